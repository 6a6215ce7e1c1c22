// SPDX-License-Identifier: GPL-2.0
/*
 * Peer allow-lists of all jobs in one RCU hash table keyed by
 * (job, kind, prefix length, masked address).
 *
 * A GID lookup probes one key per prefix length the job uses, longest
 * first, so its cost does not grow with the number of jobs or peers. Each
 * entry also sits on its job's list, for dumps and for flushing a job.
 *
 * DOC: Locking - writers (add, del, flush) hold ew_config_lock; lookups run
 * under rcu_read_lock() (the ftrace hooks take it too).
 * Removed entries are freed after a synchronize_rcu() per batch, which is
 * why they carry no rcu_head.
 */

#include <linux/jhash.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "job.h"
#include "peers.h"

static struct kmem_cache *ew_peer_cache;
static struct rhashtable ew_peer_table;
static atomic_long_t ew_peer_count;

static const struct rhashtable_params ew_peer_params = {
	.key_len = sizeof(struct ew_peer_key),
	.key_offset = offsetof(struct ew_peer, key),
	.head_offset = offsetof(struct ew_peer, node),
	.automatic_shrinking = true,
};

static void ew_mask_addr(u8 *out, const u8 *in, u8 plen)
{
	unsigned int full = plen / 8, rem = plen % 8;

	memset(out, 0, 16);
	memcpy(out, in, full);
	if (rem)
		out[full] = in[full] & (u8)(0xff << (8 - rem));
}

/**
 * ew_peer_key_gid() - build the key of a GID (or IPv6/IPv4-mapped) prefix
 * @key: out
 * @job_id: owning job
 * @gid: 16 bytes, network order
 * @plen: prefix length, 0..128
 */
void ew_peer_key_gid(struct ew_peer_key *key, u32 job_id, const u8 *gid, u8 plen)
{
	memset(key, 0, sizeof(*key));
	key->job_id = job_id;
	key->kind = EW_PEER_GID;
	key->plen = plen;
	ew_mask_addr(key->addr, gid, plen);
}

/**
 * ew_peer_key_lid() - build the key of an InfiniBand LID
 * @key: out
 * @job_id: owning job
 * @lid: the LID
 */
void ew_peer_key_lid(struct ew_peer_key *key, u32 job_id, u16 lid)
{
	memset(key, 0, sizeof(*key));
	key->job_id = job_id;
	key->kind = EW_PEER_LID;
	key->plen = 16;
	memcpy(key->addr, &lid, sizeof(lid));
}

/**
 * ew_peer_match_gid() - does one of the job's peer prefixes contain @gid?
 * @job: the job
 * @gid: destination GID, 16 bytes network order
 * @match: if not NULL, receives the longest matching entry's key
 *
 * Context: RCU read side.
 */
bool ew_peer_match_gid(const struct ew_job *job, const u8 *gid,
		       struct ew_peer_key *match)
{
	struct ew_peer_key key;
	int plen;

	memset(&key, 0, sizeof(key));
	key.job_id = job->id;
	key.kind = EW_PEER_GID;

	for (plen = EW_NUM_PLENS - 1; plen >= 0; plen--) {
		if (!test_bit(plen, job->plen_gid))
			continue;
		key.plen = plen;
		ew_mask_addr(key.addr, gid, plen);
		if (rhashtable_lookup(&ew_peer_table, &key, ew_peer_params)) {
			if (match)
				*match = key;
			return true;
		}
	}
	return false;
}

/**
 * ew_peer_match_lid() - is @lid one of the job's peers?
 * @job: the job
 * @lid: destination LID
 *
 * Context: RCU read side.
 */
bool ew_peer_match_lid(const struct ew_job *job, u16 lid)
{
	struct ew_peer_key key;

	if (!READ_ONCE(job->n_lids))
		return false;
	ew_peer_key_lid(&key, job->id, lid);
	return rhashtable_lookup(&ew_peer_table, &key, ew_peer_params);
}

static void ew_peer_account(struct ew_job *job, const struct ew_peer_key *key,
			    bool add)
{
	if (key->kind == EW_PEER_LID) {
		WRITE_ONCE(job->n_lids, job->n_lids + (add ? 1 : -1));
	} else if (add) {
		if (job->plen_refs[key->plen]++ == 0)
			set_bit(key->plen, job->plen_gid);
	} else {
		if (--job->plen_refs[key->plen] == 0)
			clear_bit(key->plen, job->plen_gid);
	}
	job->n_peers += add ? 1 : -1;
	if (add)
		atomic_long_inc(&ew_peer_count);
	else
		atomic_long_dec(&ew_peer_count);
}

static void ew_peer_unlink(struct ew_job *job, struct ew_peer *peer)
{
	rhashtable_remove_fast(&ew_peer_table, &peer->node, ew_peer_params);
	ew_peer_account(job, &peer->key, false);
}

/**
 * ew_peers_add() - add a batch of peers to a job, all or nothing
 * @job: the job (its id must already be set in every key)
 * @batch: keys; duplicates of existing entries are skipped
 * @failed_at: on error, the index of the key that failed
 *
 * Context: holds ew_config_lock.
 * Return: 0, or -ENOMEM; on error the job is unchanged.
 */
int ew_peers_add(struct ew_job *job, const struct ew_peer_batch *batch,
		 unsigned int *failed_at)
{
	struct ew_peer *peer, *tmp;
	LIST_HEAD(added);
	unsigned int i;
	int ret = 0;

	for (i = 0; i < batch->n; i++) {
		peer = kmem_cache_alloc(ew_peer_cache, GFP_KERNEL);
		if (!peer) {
			ret = -ENOMEM;
			break;
		}
		peer->key = batch->keys[i];
		ret = rhashtable_lookup_insert_fast(&ew_peer_table, &peer->node,
						    ew_peer_params);
		if (ret == -EEXIST) {
			/* Already allowed (or repeated in the batch). */
			kmem_cache_free(ew_peer_cache, peer);
			ret = 0;
			continue;
		}
		if (ret) {
			kmem_cache_free(ew_peer_cache, peer);
			break;
		}
		list_add_tail(&peer->job_list, &added);
		ew_peer_account(job, &peer->key, true);
		cond_resched();
	}

	if (ret) {
		*failed_at = i;
		list_for_each_entry(peer, &added, job_list)
			ew_peer_unlink(job, peer);
		synchronize_rcu();
		list_for_each_entry_safe(peer, tmp, &added, job_list)
			kmem_cache_free(ew_peer_cache, peer);
		return ret;
	}
	list_splice_tail(&added, &job->peers);
	job->generation++;
	return 0;
}

/**
 * ew_peers_del() - remove a batch of peers from a job, all or nothing
 * @job: the job
 * @batch: keys, each of which must be an entry of the job
 * @failed_at: on -ENOENT, the index of the first key the job does not have
 *
 * Context: holds ew_config_lock; sleeps (synchronize_rcu).
 * Return: 0 or -ENOENT (nothing removed).
 */
int ew_peers_del(struct ew_job *job, const struct ew_peer_batch *batch,
		 unsigned int *failed_at)
{
	struct ew_peer *peer, *tmp;
	LIST_HEAD(removed);
	unsigned int i;

	/* Check everything first so that a bad key leaves the job intact. */
	for (i = 0; i < batch->n; i++) {
		if (!rhashtable_lookup_fast(&ew_peer_table, &batch->keys[i],
					    ew_peer_params)) {
			*failed_at = i;
			return -ENOENT;
		}
	}
	for (i = 0; i < batch->n; i++) {
		/* A key repeated in the batch is found only the first time. */
		peer = rhashtable_lookup_fast(&ew_peer_table, &batch->keys[i],
					      ew_peer_params);
		if (!peer)
			continue;
		ew_peer_unlink(job, peer);
		list_move_tail(&peer->job_list, &removed);
		cond_resched();
	}
	job->generation++;
	synchronize_rcu();
	list_for_each_entry_safe(peer, tmp, &removed, job_list)
		kmem_cache_free(ew_peer_cache, peer);
	return 0;
}

/**
 * ew_peers_flush() - remove every peer of a job
 * @job: the job, already unreachable for new decisions or about to be
 *
 * Context: holds ew_config_lock; sleeps (synchronize_rcu).
 */
void ew_peers_flush(struct ew_job *job)
{
	struct ew_peer *peer, *tmp;

	list_for_each_entry(peer, &job->peers, job_list) {
		ew_peer_unlink(job, peer);
		cond_resched();
	}
	synchronize_rcu();
	list_for_each_entry_safe(peer, tmp, &job->peers, job_list)
		kmem_cache_free(ew_peer_cache, peer);
	INIT_LIST_HEAD(&job->peers);
	job->generation++;
}

/**
 * ew_peers_total() - number of peer entries of all jobs
 */
unsigned long ew_peers_total(void)
{
	return atomic_long_read(&ew_peer_count);
}

/**
 * ew_peers_init() - create the peer table and its slab cache
 */
int ew_peers_init(void)
{
	int ret;

	ew_peer_cache = KMEM_CACHE(ew_peer, 0);
	if (!ew_peer_cache)
		return -ENOMEM;
	ret = rhashtable_init(&ew_peer_table, &ew_peer_params);
	if (ret)
		kmem_cache_destroy(ew_peer_cache);
	return ret;
}

/**
 * ew_peers_exit() - destroy the table; every job must have been flushed
 */
void ew_peers_exit(void)
{
	WARN_ON(atomic_long_read(&ew_peer_count));
	rhashtable_destroy(&ew_peer_table);
	kmem_cache_destroy(ew_peer_cache);
}
