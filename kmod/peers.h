/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_PEERS_H
#define _EW_PEERS_H

#include <linux/rhashtable-types.h>
#include <linux/types.h>

struct ew_job;

enum ew_peer_kind {
	EW_PEER_GID = 1,
	EW_PEER_LID,
};

/**
 * struct ew_peer_key - what identifies a peer entry
 * @job_id: owning job (one table serves all jobs)
 * @kind: enum ew_peer_kind
 * @plen: prefix length in bits (GID); 16 for a LID
 * @addr: GID masked to @plen, or the LID in the first two bytes (host order)
 */
struct ew_peer_key {
	u32 job_id;
	u8 kind;
	u8 plen;
	u8 pad[2];
	u8 addr[16];
};

/*
 * 40 bytes, so that an entry plus its share of the table's buckets stays
 * within 64 bytes: no rcu_head (removed entries are freed in batches after
 * one grace period) and a singly linked job list (removal walks the job's
 * list once per request, see ew_peers_del()).
 */
struct ew_peer {
	struct rhash_head node;
	struct ew_peer *next;
	struct ew_peer_key key;
};

/**
 * struct ew_peer_list - a job's peer entries, in the order they were added
 * @first: the oldest entry, NULL if none
 * @last: the newest entry (appends are O(1))
 */
struct ew_peer_list {
	struct ew_peer *first;
	struct ew_peer *last;
};

/* A batch of peers parsed from one request, applied all or nothing. */
struct ew_peer_batch {
	struct ew_peer_key *keys;
	unsigned int n;
};

int ew_peers_init(void);
void ew_peers_exit(void);

void ew_peer_key_gid(struct ew_peer_key *key, u32 job_id, const u8 *gid, u8 plen);
void ew_peer_key_lid(struct ew_peer_key *key, u32 job_id, u16 lid);

bool ew_peer_match_gid(const struct ew_job *job, const u8 *gid,
		       struct ew_peer_key *match);
bool ew_peer_match_lid(const struct ew_job *job, u16 lid);

int ew_peers_add(struct ew_job *job, const struct ew_peer_batch *batch,
		 unsigned int *failed_at);
int ew_peers_del(struct ew_job *job, const struct ew_peer_batch *batch,
		 unsigned int *failed_at);
void ew_peers_flush(struct ew_job *job);
unsigned long ew_peers_total(void);
const struct ew_peer *ew_peer_dump_next(const struct ew_job *job,
					const struct ew_peer_key *last,
					unsigned long sent);

#endif /* _EW_PEERS_H */
