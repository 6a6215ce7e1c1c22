// SPDX-License-Identifier: GPL-2.0
/*
 * Peer allow-lists of all jobs in one RCU hash table keyed by
 * (job, kind, prefix length, masked address).
 *
 * A GID lookup probes one key per prefix length the job uses, longest
 * first, so its cost does not grow with the number of jobs or peers. Each
 * entry also sits on its job's (singly linked) list, for dumps and for
 * flushing a job.
 *
 * DOC: Locking - writers (add, del, flush) hold ew_config_lock; lookups run
 * under rcu_read_lock() (the ftrace hooks take it too).
 * Removed entries are chained and freed together by a work item after one
 * grace period (queue_rcu_work), which is why they carry no rcu_head and
 * why a writer never waits for a grace period: deleting a job does not
 * delay the revocation of its QPs, and a policy push deleting thousands of
 * jobs does not wait for thousands of grace periods.
 */

#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "job.h"
#include "fault.h"
#include "peers.h"

static struct kmem_cache *ew_peer_cache;
static struct rhashtable ew_peer_table;
static atomic_long_t ew_peer_count;
/* Frees removed entries after a grace period; drained on module exit. */
static struct workqueue_struct *ew_peer_reap_wq;

/* A chain of removed entries (linked by ->next) waiting for a grace period. */
struct ew_peer_reap {
	struct rcu_work rwork;
	struct ew_peer *chain;
};

/*
 * A key is three words. Every policed connect hashes one per prefix length
 * its job uses, so the table hashes and compares them as words: a
 * multiply and fold per word, seeded by the table (which draws a new seed
 * when it rehashes), in place of jhash2() over six and a memcmp(). Keys
 * are the administrator's, never a judged process's, so no caller can
 * lengthen a chain; the final fold brings every byte, the IPv4 address at
 * the end of a mapped GID included, into the low bits the buckets use.
 */
#define EW_PEER_HASH_MUL	0x9e3779b97f4a7c15ULL

static_assert(sizeof(struct ew_peer_key) == 3 * sizeof(u64));

static inline u64 ew_peer_key_word(const void *key, unsigned int i)
{
	u64 w;

	memcpy(&w, (const u8 *)key + i * sizeof(w), sizeof(w));
	return w;
}

static inline u32 ew_peer_hashfn(const void *key, u32 len, u32 seed)
{
	u64 h = seed ^ ew_peer_key_word(key, 0);

	h = ((h ^ (h >> 32)) * EW_PEER_HASH_MUL) ^ ew_peer_key_word(key, 1);
	h = ((h ^ (h >> 32)) * EW_PEER_HASH_MUL) ^ ew_peer_key_word(key, 2);
	h = (h ^ (h >> 32)) * EW_PEER_HASH_MUL;
	return h ^ (h >> 32);
}

static inline int ew_peer_cmpfn(struct rhashtable_compare_arg *arg,
				const void *obj)
{
	const void *a = &((const struct ew_peer *)obj)->key;

	return (ew_peer_key_word(a, 0) ^ ew_peer_key_word(arg->key, 0)) |
	       (ew_peer_key_word(a, 1) ^ ew_peer_key_word(arg->key, 1)) |
	       (ew_peer_key_word(a, 2) ^ ew_peer_key_word(arg->key, 2)) ? 1 : 0;
}

static const struct rhashtable_params ew_peer_params = {
	.key_len = sizeof(struct ew_peer_key),
	.key_offset = offsetof(struct ew_peer, key),
	.head_offset = offsetof(struct ew_peer, node),
	.automatic_shrinking = true,
	.hashfn = ew_peer_hashfn,
	.obj_cmpfn = ew_peer_cmpfn,
};

/* The first @plen bits of @in (0..128), as two big-endian words. */
static void ew_mask_addr(u8 *out, const u8 *in, u8 plen)
{
	__be64 w[2];

	memcpy(w, in, sizeof(w));
	if (plen < 64) {
		w[0] &= cpu_to_be64(plen ? ~0ULL << (64 - plen) : 0);
		w[1] = 0;
	} else if (plen < 128) {
		w[1] &= cpu_to_be64(plen > 64 ? ~0ULL << (128 - plen) : 0);
	}
	memcpy(out, w, sizeof(w));
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
	unsigned long plen, end = EW_NUM_PLENS;
	struct ew_peer_key key;

	memset(&key, 0, sizeof(key));
	key.job_id = job->id;
	key.kind = EW_PEER_GID;

	/* Only the prefix lengths the job uses, longest first, a miss too. */
	while ((plen = find_last_bit(job->plen_gid, end)) < end) {
		end = plen;
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

static void ew_peer_free_chain(struct ew_peer *chain)
{
	struct ew_peer *next;
	unsigned int n = 0;

	for (; chain; chain = next) {
		next = chain->next;
		kmem_cache_free(ew_peer_cache, chain);
		if (!(++n % 256))
			cond_resched();
	}
}

static void ew_peer_reap_work(struct work_struct *work)
{
	struct ew_peer_reap *reap = container_of(to_rcu_work(work),
						 struct ew_peer_reap, rwork);

	ew_peer_free_chain(reap->chain);
	kfree(reap);
}

/*
 * Free a chain of entries already unlinked from the table once no reader
 * can see them. Context: may sleep (only when out of memory).
 */
static void ew_peer_free_later(struct ew_peer *chain)
{
	struct ew_peer_reap *reap;

	if (!chain)
		return;
	reap = kmalloc(sizeof(*reap), GFP_KERNEL);
	EW_FAIL_ALLOC(reap, kfree(reap));
	if (!reap) {
		synchronize_rcu();
		ew_peer_free_chain(chain);
		return;
	}
	reap->chain = chain;
	INIT_RCU_WORK(&reap->rwork, ew_peer_reap_work);
	queue_rcu_work(ew_peer_reap_wq, &reap->rwork);
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
	struct ew_peer_list added = {};
	struct ew_peer *peer;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < batch->n; i++) {
		peer = kmem_cache_alloc(ew_peer_cache, GFP_KERNEL);
		EW_FAIL_ALLOC(peer, kmem_cache_free(ew_peer_cache, peer));
		if (!peer) {
			ret = -ENOMEM;
			break;
		}
		peer->key = batch->keys[i];
		peer->next = NULL;
		ret = EW_FAIL_CALL(rhashtable_lookup_insert_fast(&ew_peer_table,
								 &peer->node,
								 ew_peer_params));
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
		if (added.last)
			added.last->next = peer;
		else
			added.first = peer;
		added.last = peer;
		ew_peer_account(job, &peer->key, true);
		if (!(i % 256))
			cond_resched();
	}

	if (ret) {
		*failed_at = i;
		for (peer = added.first; peer; peer = peer->next)
			ew_peer_unlink(job, peer);
		ew_peer_free_later(added.first);
		return ret;
	}
	if (added.first) {
		if (job->peers.last)
			job->peers.last->next = added.first;
		else
			job->peers.first = added.first;
		job->peers.last = added.last;
	}
	job->generation++;
	return 0;
}

/**
 * ew_peers_del() - remove a batch of peers from a job, all or nothing
 * @job: the job
 * @batch: keys, each of which must be an entry of the job
 * @failed_at: on -ENOENT, the index of the first key the job does not have
 *
 * Costs one table lookup per key plus one walk of the job's list (an entry
 * is removed from the table first; the walk then drops from the list every
 * entry the table no longer holds).
 *
 * Context: holds ew_config_lock.
 * Return: 0 or -ENOENT (nothing removed).
 */
int ew_peers_del(struct ew_job *job, const struct ew_peer_batch *batch,
		 unsigned int *failed_at)
{
	struct ew_peer **link, *peer, *removed = NULL;
	unsigned int i, n = 0;

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
		if (peer)
			ew_peer_unlink(job, peer);
	}
	job->peers.last = NULL;
	link = &job->peers.first;
	while ((peer = *link)) {
		if (rhashtable_lookup_fast(&ew_peer_table, &peer->key,
					   ew_peer_params) != peer) {
			*link = peer->next;
			peer->next = removed;
			removed = peer;
		} else {
			job->peers.last = peer;
			link = &peer->next;
		}
		if (!(++n % 256))
			cond_resched();
	}
	job->generation++;
	ew_peer_free_later(removed);
	return 0;
}

/**
 * ew_peers_flush() - remove every peer of a job
 * @job: the job, already unreachable for new decisions or about to be
 *
 * Context: holds ew_config_lock.
 */
void ew_peers_flush(struct ew_job *job)
{
	struct ew_peer *peer;
	unsigned int n = 0;

	for (peer = job->peers.first; peer; peer = peer->next) {
		ew_peer_unlink(job, peer);
		if (!(++n % 256))
			cond_resched();
	}
	ew_peer_free_later(job->peers.first);
	job->peers.first = NULL;
	job->peers.last = NULL;
	job->generation++;
}

/**
 * ew_peer_dump_next() - where a dump of a job's peers resumes
 * @job: the job
 * @last: the last key sent, NULL at the start
 * @sent: how many entries were sent before
 *
 * Resumes after @last with one table lookup, so a dump costs O(n) however
 * many rounds it takes. Only when @last was removed in between (the dump is
 * then flagged inconsistent anyway) does it fall back to skipping @sent
 * entries.
 *
 * Context: holds ew_config_lock.
 * Return: the next entry to send, or NULL when the dump is complete.
 */
const struct ew_peer *ew_peer_dump_next(const struct ew_job *job,
					const struct ew_peer_key *last,
					unsigned long sent)
{
	const struct ew_peer *peer;

	if (!last)
		return job->peers.first;
	peer = rhashtable_lookup_fast(&ew_peer_table, last, ew_peer_params);
	if (peer && peer->key.job_id == job->id)
		return peer->next;
	for (peer = job->peers.first; peer && sent; peer = peer->next)
		sent--;
	return peer;
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

	ew_peer_reap_wq = alloc_workqueue("eastwest_peers", 0, 0);
	if (!ew_peer_reap_wq)
		return -ENOMEM;
	ew_peer_cache = KMEM_CACHE(ew_peer, 0);
	EW_FAIL_ALLOC(ew_peer_cache, kmem_cache_destroy(ew_peer_cache));
	if (!ew_peer_cache) {
		ret = -ENOMEM;
		goto err_wq;
	}
	ret = EW_FAIL_CALL(rhashtable_init(&ew_peer_table, &ew_peer_params));
	if (ret)
		goto err_cache;
	return 0;

err_cache:
	kmem_cache_destroy(ew_peer_cache);
err_wq:
	destroy_workqueue(ew_peer_reap_wq);
	return ret;
}

/**
 * ew_peers_exit() - destroy the table; every job must have been flushed
 */
void ew_peers_exit(void)
{
	WARN_ON(atomic_long_read(&ew_peer_count));
	/* Every pending reap is queued after a grace period, then drained. */
	rcu_barrier();
	destroy_workqueue(ew_peer_reap_wq);
	rhashtable_destroy(&ew_peer_table);
	kmem_cache_destroy(ew_peer_cache);
}
