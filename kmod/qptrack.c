// SPDX-License-Identifier: GPL-2.0
/*
 * Tracking of the QPs that jobs configured, and their revocation.
 *
 * A QP is tracked from the first judged modify a job's process makes to it
 * (pkey index, address vector, ...), or its first multicast join, with the
 * configuration it was judged on and the state the driver then left it in:
 * the record changes only after the driver applied a modify
 * (ew_qp_commit()), so a modify the driver refused leaves it as it was.
 * When the policy behind it goes (job deleted, peer removed, rules
 * changed) the QP is moved to the error state and its owner gets a
 * QP_FATAL event, the way the core's security.c treats a P_Key change; its
 * record stays as a tombstone, and the gate (qpgate.c) lets nothing but
 * RESET or destroy follow. RESET and destroy drop the record.
 *
 * DOC: Multicast memberships - the groups a QP joined are part of its
 * record, judged by every pass like its paths. A membership outlives
 * RESET, so RESET keeps a record that still has groups (its configuration
 * wiped, a tombstone live again) and the last detach of such a record
 * drops it; and a revoked QP leaves the groups its job may no longer join,
 * or a reset and a new RTR would let it receive from them again. Joins of
 * a process that was not policed are not recorded: the core's count of a
 * QP's groups (usecnt, which also counts flow rules) above the record's
 * tells the modify hook that the QP holds groups nobody judged, and a
 * judged modify is refused until its process leaves them.
 *
 * DOC: Locking - ew_qp_lock (a spinlock: the hooks run with preemption
 * disabled) protects the table, every record and ew_qp_n_records. It is
 * only taken in process context (the hooks and their wrappers, netlink,
 * workers, the blocking notifier chains of GID, P_Key, VRF and protection
 * changes), never in a softirq or an interrupt, so neither is disabled: a
 * plain spin_lock(), which every modify takes two or three times, saves
 * the bottom-half toggles and keeps pending softirqs out of the modify. A
 * re-check under it evaluates path protection, whose route and XFRM
 * lookups disable and re-enable bottom halves themselves, which is allowed
 * with a spinlock held (not with interrupts off). A revoker marks a record
 * `revoking`, drops the lock and calls ib_modify_qp() under the QP's
 * modify lock. The destroy of every user QP runs under the same modify
 * lock (ew_destroy_qp_serialised()), so it never frees a QP under a
 * revoker or a sweep, and drops the record only once the QP is gone: a
 * destroy the core refuses (an XRC target QP others hold open) or the
 * driver refuses leaves a QP that can still be revoked. Revokers are
 * serialised by ew_revoke_mutex.
 *
 * DOC: Modify locks - a revoker's move to the error state must not run
 * beside a modify of the same QP by its owner: drivers need not serialise
 * modifies (rxe in 6.1 does not; its responder dereferences a NULL packet
 * when a RESET or INIT lands while an ERR drains), and a policy check made
 * before a revocation must not be applied after it. So every modify of a
 * user QP (tracked or not: the sweep of QPs without records revokes
 * untracked ones) runs its check and the driver's modify under the QP's
 * modify lock (ew_qp_modify_lock()), which the revoker holds around
 * ib_modify_qp(). The lock is the QP's own, kept in a table hashed by QP:
 * a slot lists the holders of its QPs (a ticket each, on the holder's
 * stack), and a modify waits only while its own QP is held; a QP that
 * shares the slot never makes it wait. Order: the registry's mutex (held
 * by the sweep of QPs without records), ew_revoke_mutex, then a modify
 * lock, then ew_qp_lock; no two modify locks are nested, and a slot's
 * spinlock is held only to look at its lists.
 *
 * DOC: Busy modify locks - a modify may hold its lock for long inside the
 * RDMA core or the driver: the core resolves a RoCE destination's MAC
 * address under it, a second for an address nobody answers, and mlx5
 * copies its driver data from user memory, which a page of a FUSE file
 * can stall without bound. Were the locks shared by the QPs of a slot, a
 * process that keeps many QPs busy (a thread each, connecting towards a
 * silent address its job allows) would make every other job's modifies,
 * and its revocations, wait for it; with a lock per QP only that QP's own
 * modifies wait. A revoker never waits even for that: if the QP is held,
 * it hands the record to the holder (the slot's list of pending
 * revocations, under the slot's lock) and goes on. The holder runs the
 * records of its QP on that list before it lets go
 * (ew_qp_modify_unlock()), under the same lock as the hand-over, so no
 * record is left behind, and a revoked QP waits for at most the one
 * modify under way on it. Meanwhile that QP can still send: what must not
 * start before it is in the error state waits for it (a QP reusing the
 * number it aims at: "Local destinations that go away"). The sweep of QPs
 * without records skips, before taking any lock, the QPs that are tracked
 * or whose owner is not enforced, which are all but the ones it revokes.
 *
 * DOC: Revocation - a revoker collects the records it takes in one pass
 * over the table, marking each `revoking` and linking it on a private list
 * (the record stays hashed, so that a destroy still finds it and waits),
 * then moves their QPs to the error state one by one. Each QP gets its own
 * revoke event; the log gets one line per revocation and per-QP lines only
 * up to a rate limit (10,000 QPs of a deleted job must not flush the
 * kernel log). A pass runs again until it finds nothing: QPs tracked while
 * the revoker worked are caught too. In audit mode nothing is touched,
 * nor by the re-check of "Decisions in flight".
 *
 * DOC: Decisions in flight - a modify decides on the rules it read, and
 * records its QP after the driver applied it; a narrowing change (peer or
 * job removed, rules changed, admission or protection lost, a node revoked)
 * publishes its new rules and then runs a revocation pass. The pass bumps
 * ew_qp_policy_seq, fully ordered, before it collects; the modify read the
 * sequence before it read the rules, and compares it under ew_qp_lock when
 * it records. Either the pass's collection comes after the record (and
 * takes it), or the modify sees the sequence moved, checks its record
 * against the current rules and revokes its QP itself.
 *
 * A destroyed QP narrows the rules too: its number may then go to a QP of
 * another job, and a connect of this node that was judged while the number
 * was its own job's would land in that QP. The pass of "Local destinations
 * that go away" catches records aimed at the number when the new QP comes
 * to INIT; a connect still in flight has no record yet, so the destroy
 * bumps the sequence before the driver frees the number: either the new
 * QP's INIT finds the connect's record, or the connect sees the sequence
 * moved when it records and checks its destination again.
 */

#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

#include "config.h"
#include "events.h"
#include "fault.h"
#include "job.h"
#include "localgid.h"
#include "protect.h"
#include "qptrack.h"
#include "registry.h"
#include "request.h"
#include "srccache.h"

#define EW_QP_HASH_BITS	12
/* Buckets a collecting pass scans per hold of ew_qp_lock. */
#define EW_REVOKE_SCAN_BUCKETS	256
/*
 * QPs revoked between two reschedule points. Each queues a revoke event on
 * the events ring (256 entries); the event worker runs when the revoker
 * yields, and ew_event_report_wait() waits for it once the ring is half
 * full, so that no revoke event is dropped.
 */
#define EW_REVOKE_BATCH	32
/* Modify locks, hashed by QP: two QPs share one only by chance. */
#define EW_QP_MODIFY_LOCK_BITS	8

struct ew_qp {
	struct hlist_node node;
	/* On the revoker's list while `revoking`. */
	struct list_head revoke_node;
	struct ib_qp *qp;
	u32 job_id;
	u32 qpn;
	/* enum ib_qp_state after the last modify the driver applied. */
	u8 state;
	bool revoking;
	/* A tombstone: only RESET or destroy may follow. */
	bool revoked;
	/* Reset while `revoking`: out of the table, the revoker frees it. */
	bool detached;
	/*
	 * Its QP's destroy is under way (ew_destroy_qp_serialised()): the
	 * core may have freed the QP, so nothing but that destroy reads
	 * @qp or frees the record; lookups and passes skip it.
	 */
	bool dying;
	/* Why it is being revoked (enum eastwest_reason), while `revoking`. */
	u32 reason;
	/* Its destination is a QP on this node (ew_qp_local_index()). */
	bool local;
	/* In ew_qp_local_idx while `local`, by destination QPN. */
	struct hlist_node local_node;
	/* In ew_qp_by_qpn while hashed: the QP itself by device and number. */
	struct hlist_node qpn_node;
	/* What the QP was last allowed to do, re-checked on policy changes. */
	struct ew_request req;
	/* The multicast groups it joined (struct ew_qp_group). */
	struct list_head groups;
};

/* A multicast group a tracked QP joined: judged like a destination. */
struct ew_qp_group {
	struct list_head node;
	union ib_gid gid;
	u16 lid;
};

static DEFINE_HASHTABLE(ew_qps, EW_QP_HASH_BITS);
static DEFINE_SPINLOCK(ew_qp_lock);
/* Records in ew_qps: the modify hook skips its lookup while there are none. */
static unsigned int ew_qp_n_records;
/*
 * Modify locks of the QPs hashed here, and the revocations their holders
 * run before letting go: see "Modify locks".
 */
struct ew_qp_modify_slot {
	/* Guards busy and pending; never held across a sleep. */
	spinlock_t lock;
	/* The holders' tickets (struct ew_qp_modify_ticket), a QP once. */
	struct list_head busy;
	/* Records handed over by a revoker (revoke_node), their QP busy. */
	struct list_head pending;
	/* Modifies waiting for a QP of this slot held by another. */
	struct wait_queue_head wait;
};

static struct ew_qp_modify_slot ew_qp_modify_slots[1 << EW_QP_MODIFY_LOCK_BITS];
static DEFINE_MUTEX(ew_revoke_mutex);
/* Set under ew_revoke_mutex on unload: no revocation starts any more. */
static bool ew_revokers_stopped;

/*
 * DOC: Local destinations that go away - a record whose destination is a
 * QP on this node (ew_dest_is_foreign()) was judged against that QP's
 * owner. Once that QP is destroyed its number may be given to a QP of
 * another job, which the old connection would then reach. So before a QP
 * is brought to INIT, if a live record aims at its number (an index of
 * the local records by destination QPN, ew_qp_local_idx, tells in one
 * bucket), those aimed at it are checked again and revoked if the number
 * is now another job's: no QP that reuses a number can be connected
 * before that. The INIT also waits until no record aimed at the number is
 * still being revoked: a revocation handed to the holder of a busy modify
 * lock (see "Busy modify locks"), or taken by another pass that has not
 * reached it yet, leaves the old QP able to send until it is done, for as
 * long as its owner keeps that lock busy (ew_qp_revoked_wait, woken as
 * each revocation ends; the wait is interruptible). A QP that is already
 * tracked skips the pass (its record was
 * made by an INIT that ran it, a reset drops the record, and a QP keeps
 * its number). A kernel QP reusing the number is not checked (kernel QPs
 * never pass the hooks).
 */
#define EW_QP_LOCAL_BITS	10
/*
 * Records with a local destination, by destination QPN: a QP brought to
 * INIT whose number no live record aims at, which is the common case, skips
 * the revocation pass. Exact, so a process cannot make every INIT of its
 * own scan the record table by picking a number that merely hashes like a
 * live destination (nor by retrying a refused INIT after the pass revoked
 * what aimed at its number). Under ew_qp_lock.
 */
static DEFINE_HASHTABLE(ew_qp_local_idx, EW_QP_LOCAL_BITS);
/* Woken whenever a record stops being `revoking` (ew_qp_revoke_locked()). */
static DECLARE_WAIT_QUEUE_HEAD(ew_qp_revoked_wait);
static struct kmem_cache *ew_qp_cache;
/* The per-QP revocation lines; each revocation also logs a summary. */
static DEFINE_RATELIMIT_STATE(ew_revoke_log_rs, 5 * HZ, 10);

/*
 * DOC: Same-node destinations - whose QP a connect to this node reaches
 *
 * The peer rules cannot tell two jobs apart that may both reach this node
 * (a job's peers are all its nodes, this one included), so a destination
 * GID of this node (localgid.c) must name a QP that a process of the
 * caller's job created; a kernel QP, no QP at all, or no QP named (a UD
 * address handle) is foreign. The QP is looked for on the device the
 * connect ends on (ew_local_dest_dev()): the QP's own device when the GID
 * is one of its own, even if another device has that GID too; a GID of
 * several other devices at once is foreign. Most such destinations are QPs
 * a job has already configured, which are tracked: ew_qp_by_qpn holds
 * every record by its QP's device and number, so their creator is found in
 * one bucket under ew_qp_lock, from the QP itself (its restrack entry
 * names the task), without the restrack table's lookup. A number it does
 * not hold is looked up in the restrack table as before: the answer is the
 * same either way. A record is in ew_qp_by_qpn exactly while it is in
 * ew_qps, and the destroy hook marks it `dying` before the core frees the
 * QP, so a QP found there under the lock, on a record not dying, is alive.
 *
 * A caller that is not policed has no record to check; what its modify
 * sets is judged by ew_dest_open_to_unpoliced(), which counts any tracked
 * QP as a job's (a job configured it, whoever created it), where the
 * creator test above would not.
 */
static DEFINE_HASHTABLE(ew_qp_by_qpn, EW_QP_HASH_BITS);

static unsigned long ew_qp_qpn_key(const struct ib_device *dev, u32 qpn)
{
	return (unsigned long)dev + qpn;
}

/*
 * Bumped (fully ordered) by every revocation pass before it collects: a
 * modify that read the rules before a narrowing change and records its QP
 * after the pass went by sees it changed, and checks its record again.
 */
static atomic_t ew_qp_policy_seq = ATOMIC_INIT(0);

static struct ew_qp *ew_qp_find(struct ib_qp *qp)
{
	struct ew_qp *rec;

	lockdep_assert_held(&ew_qp_lock);
	hash_for_each_possible(ew_qps, rec, node, (unsigned long)qp)
		if (rec->qp == qp)
			return rec;
	return NULL;
}

static void ew_qp_count(u32 job_id, int delta)
{
	struct ew_job *job;

	rcu_read_lock();
	job = ew_job_find(job_id);
	if (job)
		atomic_add(delta, &job->n_qps);
	rcu_read_unlock();
}

/**
 * ew_qp_policy_seq_read() - the revocation sequence, before reading rules
 *
 * Return: a value for &struct ew_qp_change.seq.
 */
unsigned int ew_qp_policy_seq_read(void)
{
	/* Acquire: the rules read after it are at least this new. */
	return atomic_read_acquire(&ew_qp_policy_seq);
}

/*
 * Whether tracked QP @qpn of @dev is @job's: 1 if it is, 0 if another's,
 * -ENOENT if no record has that QP. See "Same-node destinations".
 */
static int ew_qp_tracked_is_jobs(const struct ew_job *job,
				 const struct ib_device *dev, u32 qpn)
{
	struct ew_qp *rec;

	lockdep_assert_held(&ew_qp_lock);
	hash_for_each_possible(ew_qp_by_qpn, rec, qpn_node,
			       ew_qp_qpn_key(dev, qpn)) {
		/* Its number may already be another QP's. */
		if (rec->dying)
			continue;
		if (rec->qp->device == dev && rec->qp->qp_num == qpn)
			return ew_res_is_jobs(&rec->qp->res, job);
	}
	return -ENOENT;
}

static int ew_qp_tracked_is_jobs_lock(const struct ew_job *job,
				      const struct ib_device *dev, u32 qpn)
{
	int mine;

	spin_lock(&ew_qp_lock);
	mine = ew_qp_tracked_is_jobs(job, dev, qpn);
	spin_unlock(&ew_qp_lock);
	return mine;
}

/* ew_dest_is_foreign(), with ew_qp_lock held (@locked) or not. */
static bool __ew_dest_is_foreign(const struct ew_job *job,
				 struct ib_device *dev,
				 const struct ew_request *req, bool *local,
				 bool locked)
{
	struct ib_device *ldev;
	bool ambiguous;
	unsigned int i;
	int mine;

	if (local)
		*local = false;
	for (i = 0; i < req->n_paths && i < ARRAY_SIZE(req->paths); i++) {
		if (!req->paths[i].has_grh)
			continue;
		ldev = ew_local_dest_dev(dev, req->paths[i].dgid, &ambiguous);
		if (!ldev)
			continue;
		if (local)
			*local = true;
		if (!req->has_dest_qpn || ambiguous)
			return true;
		mine = locked ?
		       ew_qp_tracked_is_jobs(job, ldev, req->dest_qpn) :
		       ew_qp_tracked_is_jobs_lock(job, ldev, req->dest_qpn);
		if (mine == -ENOENT)
			mine = ew_restrack_qp_is_jobs(ldev, req->dest_qpn, job);
		if (!mine)
			return true;
	}
	return false;
}

/**
 * ew_dest_is_foreign() - whether a path of @req ends on this node in a QP
 * that is not @job's
 * @job: the caller's job
 * @dev: the QP's (or AH's) device
 * @req: the whole configuration of the QP
 * @local: if not NULL, set to whether a path ends on this node
 *
 * See "Same-node destinations". Paths without a GRH (InfiniBand by LID)
 * are not recognised as local.
 *
 * Context: rcu_read_lock(), ew_qp_lock not held; atomic-safe.
 */
bool ew_dest_is_foreign(const struct ew_job *job, struct ib_device *dev,
			const struct ew_request *req, bool *local)
{
	return __ew_dest_is_foreign(job, dev, req, local, false);
}

/**
 * ew_dest_open_to_unpoliced() - whether a caller that is not policed may
 * aim a QP at @dgid, QP @qpn
 * @dev: the QP's device
 * @dgid: the destination GID, 16 bytes, network order
 * @has_qpn: whether @qpn is known (the modify sets the destination QPN)
 * @qpn: the destination QP number
 *
 * A process in no job under a default of allow is not policed, but it may
 * not reach a job's QP on this node any more than another job may: a
 * destination of this node must be a QP that the kernel or a process in no
 * job made. A tracked QP is a job's; a number no QP has yet may become a
 * job's; a GID of several other devices names no one device: refused. See
 * "Same-node destinations".
 *
 * Context: rcu_read_lock(), ew_qp_lock not held; atomic-safe.
 * Return: true if @dgid is not this node's or names such a QP.
 */
bool ew_dest_open_to_unpoliced(struct ib_device *dev, const u8 *dgid,
			       bool has_qpn, u32 qpn)
{
	struct ib_device *ldev;
	bool ambiguous;
	int tracked;

	ldev = ew_local_dest_dev(dev, dgid, &ambiguous);
	if (!ldev)
		return true;
	if (!has_qpn || ambiguous)
		return false;
	/* Only a job's QP has a record, whoever made it. */
	tracked = ew_qp_tracked_is_jobs_lock(NULL, ldev, qpn);
	if (tracked != -ENOENT)
		return false;
	return ew_restrack_qp_is_no_jobs(ldev, qpn, false);
}

/* Its multicast groups. Context: ew_qp_lock. */
static u32 ew_qp_group_count(const struct ew_qp *rec)
{
	const struct ew_qp_group *g;
	u32 n = 0;

	list_for_each_entry(g, &rec->groups, node)
		n++;
	return n;
}

/**
 * ew_qp_lookup() - what eastwest recorded of a QP
 * @qp: the real QP
 * @view: filled in (an untracked QP: not tracked, in RESET)
 * @req: if not NULL, set to the recorded configuration (zeroed if none)
 *
 * Context: process context, under the QP's modify lock, so that the record
 * cannot change but for a revoker marking it `revoking`.
 */
void ew_qp_lookup(struct ib_qp *qp, struct ew_qp_view *view,
		  struct ew_request *req)
{
	struct ew_qp *rec;

	*view = (struct ew_qp_view) { .state = IB_QPS_RESET };
	if (READ_ONCE(ew_qp_n_records)) {
		spin_lock(&ew_qp_lock);
		rec = ew_qp_find(qp);
		if (rec) {
			view->tracked = true;
			view->revoked = rec->revoked || rec->revoking;
			view->state = rec->state;
			view->job_id = rec->job_id;
			view->n_groups = ew_qp_group_count(rec);
			if (req)
				*req = rec->req;
		}
		spin_unlock(&ew_qp_lock);
		if (rec)
			return;
	}
	if (req)
		memset(req, 0, sizeof(*req));
}

/**
 * ew_qp_change_start() - a modify's change, from the record before it
 * @qp: the real QP
 * @chg: filled in: its view and request from the record (ew_qp_lookup()),
 *	the modify's state change, the revocation sequence; the rest zeroed
 * @mask: the modify's enum ib_qp_attr_mask bits
 * @next_state: attr->qp_state
 *
 * The request, the bulk of @chg, is written once: copied from the record,
 * or zeroed for an untracked QP.
 *
 * Context: as ew_qp_lookup(); the sequence is read before the rules are.
 */
void ew_qp_change_start(struct ib_qp *qp, struct ew_qp_change *chg,
			int mask, u8 next_state)
{
	/* Nothing but padding after the request. */
	static_assert(sizeof(struct ew_qp_change) -
		      offsetofend(struct ew_qp_change, req) <
		      __alignof__(struct ew_qp_change));

	memset(chg, 0, offsetof(struct ew_qp_change, req));
	chg->to_state = mask & IB_QP_STATE;
	chg->next_state = next_state;
	chg->seq = ew_qp_policy_seq_read();
	ew_qp_lookup(qp, &chg->view, &chg->req);
}

static struct ew_qp *ew_qp_alloc(gfp_t gfp)
{
	struct ew_qp *rec = kmem_cache_zalloc(ew_qp_cache, gfp);

	if (rec) {
		INIT_LIST_HEAD(&rec->revoke_node);
		INIT_LIST_HEAD(&rec->groups);
	}
	return rec;
}

static void ew_qp_free(struct ew_qp *rec)
{
	struct ew_qp_group *g, *tmp;

	list_for_each_entry_safe(g, tmp, &rec->groups, node)
		kfree(g);
	kmem_cache_free(ew_qp_cache, rec);
}

/**
 * ew_qp_prealloc() - a record for a QP that a modify may start tracking
 * @chg: the modify's change; its @fresh is set, or left NULL on failure
 *
 * Context: the decision, under rcu_read_lock(): from a dedicated cache,
 * GFP_ATOMIC.
 */
void ew_qp_prealloc(struct ew_qp_change *chg)
{
	chg->fresh = ew_qp_alloc(GFP_ATOMIC | __GFP_NOWARN);
	EW_FAIL_ALLOC(chg->fresh, ew_qp_free(chg->fresh));
}

/**
 * ew_qp_change_release() - free what a change did not use
 * @chg: the change
 */
void ew_qp_change_release(struct ew_qp_change *chg)
{
	if (chg->fresh)
		ew_qp_free(chg->fresh);
	chg->fresh = NULL;
}

/* Index (@add) or unindex @rec's local destination, if it has one. */
static void ew_qp_local_index(struct ew_qp *rec, bool add)
{
	lockdep_assert_held(&ew_qp_lock);
	if (!add)
		hash_del(&rec->local_node);
	else if (rec->local)
		hash_add(ew_qp_local_idx, &rec->local_node, rec->req.dest_qpn);
}

static void ew_qp_drop_locked(struct ew_qp *rec)
{
	lockdep_assert_held(&ew_qp_lock);
	hash_del(&rec->node);
	hash_del(&rec->qpn_node);
	WRITE_ONCE(ew_qp_n_records, ew_qp_n_records - 1);
	ew_qp_local_index(rec, false);
	if (!rec->revoked)
		ew_qp_count(rec->job_id, -1);
}

/* Put a new record for @qp (its job and state set) into the table. */
static void ew_qp_hash_locked(struct ew_qp *rec, struct ib_qp *qp)
{
	lockdep_assert_held(&ew_qp_lock);
	rec->qp = qp;
	rec->qpn = qp->qp_num;
	hash_add(ew_qps, &rec->node, (unsigned long)qp);
	hash_add(ew_qp_by_qpn, &rec->qpn_node,
		 ew_qp_qpn_key(qp->device, qp->qp_num));
	WRITE_ONCE(ew_qp_n_records, ew_qp_n_records + 1);
	ew_qp_count(rec->job_id, 1);
}

/*
 * Take a record out of the table for good (its QP was reset or destroyed).
 * Returns it for the caller to free, or NULL if a revoker holds it: the
 * revoker then frees it, and revokes nothing.
 */
static struct ew_qp *ew_qp_forget_locked(struct ew_qp *rec)
{
	ew_qp_drop_locked(rec);
	if (!rec->revoking)
		return rec;
	rec->detached = true;
	return NULL;
}

/*
 * The QP was reset: it forgets its configuration, and the record goes with
 * it, unless the QP is still a member of multicast groups (a reset leaves
 * them joined): then the record stays, answering to its job, with the
 * groups alone, and a revoked QP is live again. Returns the record to
 * free, if any.
 */
static struct ew_qp *ew_qp_reset_locked(struct ew_qp *rec)
{
	if (list_empty(&rec->groups))
		return ew_qp_forget_locked(rec);
	ew_qp_local_index(rec, false);
	rec->local = false;
	memset(&rec->req, 0, sizeof(rec->req));
	rec->state = IB_QPS_RESET;
	if (rec->revoked) {
		rec->revoked = false;
		ew_qp_count(rec->job_id, 1);
	}
	return NULL;
}

static bool ew_qp_revoke_locked(struct ew_qp *rec);
static u32 ew_qp_recheck(const struct ew_qp *rec, bool only_if_protected);

/*
 * Check the record against the rules now: returns true, the record marked
 * `revoking`, if it no longer passes (the caller revokes it).
 */
static bool ew_qp_doom_if_refused_locked(struct ew_qp *rec)
{
	u32 reason;

	if (rec->revoking || rec->revoked)
		return false;
	reason = ew_qp_recheck(rec, false);
	if (!reason)
		return false;
	/* The node in audit mode: reported, never revoked, as by a pass. */
	if (READ_ONCE(ew_global.mode) == EASTWEST_MODE_AUDIT) {
		pr_info_ratelimited("audit: job %u: qpn 0x%x would be revoked\n",
				    rec->job_id, rec->qpn);
		return false;
	}
	rec->revoking = true;
	rec->reason = reason;
	return true;
}

/*
 * If a revocation pass ran since the rules were read (@seq), check the
 * record again: returns true, the record marked `revoking`, if it no
 * longer passes (the caller revokes it once the lock is dropped).
 */
static bool ew_qp_doom_if_stale_locked(struct ew_qp *rec, unsigned int seq)
{
	/* Pairs with the revoker's fully ordered increment. */
	if (atomic_read(&ew_qp_policy_seq) == seq)
		return false;
	return ew_qp_doom_if_refused_locked(rec);
}

/* @rec's membership of group @gid, @lid, if it has one. */
static struct ew_qp_group *ew_qp_group_find(struct ew_qp *rec,
					    const union ib_gid *gid, u16 lid)
{
	struct ew_qp_group *g;

	list_for_each_entry(g, &rec->groups, node)
		if (g->lid == lid && !memcmp(&g->gid, gid, sizeof(*gid)))
			return g;
	return NULL;
}

/**
 * ew_qp_commit() - the driver applied a modify: make the record follow it
 * @qp: the real QP
 * @chg: what the gate allowed (filled by the modify hook)
 *
 * RESET drops the record (the QP forgets its configuration); a judged
 * modify stores the configuration it was judged on, starting a record from
 * @chg->fresh if there was none; a state change is recorded. If a
 * revocation pass ran since the rules were read (@chg->seq), the record is
 * checked again and the QP revoked here if it no longer passes.
 *
 * Context: process context, under the QP's modify lock, after the driver
 * returned 0 (a refused modify leaves the record as it was).
 */
void ew_qp_commit(struct ib_qp *qp, struct ew_qp_change *chg)
{
	struct ew_qp *rec, *drop = NULL;
	bool doomed = false;

	if (!chg->fresh && !READ_ONCE(ew_qp_n_records))
		return;
	spin_lock(&ew_qp_lock);
	rec = ew_qp_find(qp);
	if (chg->to_state && chg->next_state == IB_QPS_RESET) {
		if (rec)
			drop = ew_qp_reset_locked(rec);
		rec = NULL;
	} else if (!rec && chg->judged && chg->job_id && chg->fresh) {
		rec = chg->fresh;
		chg->fresh = NULL;
		rec->job_id = chg->job_id;
		rec->state = IB_QPS_RESET;
		ew_qp_hash_locked(rec, qp);
	}
	if (rec) {
		if (chg->judged) {
			ew_qp_local_index(rec, false);
			rec->req = chg->req;
			rec->local = chg->local;
			ew_qp_local_index(rec, true);
		}
		if (chg->to_state)
			rec->state = chg->next_state;
		doomed = ew_qp_doom_if_stale_locked(rec, chg->seq);
	}
	spin_unlock(&ew_qp_lock);
	if (drop)
		ew_qp_free(drop);
	if (doomed)
		ew_qp_revoke_locked(rec);
}

/**
 * ew_qp_member_prealloc() - what recording a multicast membership may need
 * @mem: the membership; its @group and @fresh are set, or left NULL
 *
 * Context: process context (the attach wrapper), sleeps.
 */
void ew_qp_member_prealloc(struct ew_qp_member *mem)
{
	mem->group = kzalloc(sizeof(*mem->group), GFP_KERNEL);
	mem->fresh = ew_qp_alloc(GFP_KERNEL);
}

/**
 * ew_qp_member_release() - free what a membership did not use
 * @mem: the membership
 */
void ew_qp_member_release(struct ew_qp_member *mem)
{
	kfree(mem->group);
	mem->group = NULL;
	if (mem->fresh)
		ew_qp_free(mem->fresh);
	mem->fresh = NULL;
}

/**
 * ew_qp_member_commit() - the driver joined a QP to a group: record it
 * @qp: the real QP
 * @mem: what the attach check allowed (@job_id 0: nothing is recorded)
 * @gid: the group
 * @lid: its LID
 *
 * The group becomes part of the QP's record (started from @mem->fresh if
 * there was none), so that revocation passes judge it with the rest, and
 * a revoked QP leaves it (see ew_qp_leave_refused_groups()). As for a
 * modify, a pass since the rules were read (@mem->seq) re-checks it now.
 *
 * Context: under the QP's modify lock, after ib_attach_mcast() returned 0.
 */
void ew_qp_member_commit(struct ib_qp *qp, struct ew_qp_member *mem,
			 const union ib_gid *gid, u16 lid)
{
	struct ew_qp_group *g;
	bool doomed = false;
	struct ew_qp *rec;

	if (!mem->job_id || !mem->group)
		return;
	spin_lock(&ew_qp_lock);
	rec = ew_qp_find(qp);
	if (!rec && mem->fresh) {
		rec = mem->fresh;
		mem->fresh = NULL;
		rec->job_id = mem->job_id;
		rec->state = IB_QPS_RESET;
		ew_qp_hash_locked(rec, qp);
	}
	if (rec && !ew_qp_group_find(rec, gid, lid)) {
		g = mem->group;
		mem->group = NULL;
		g->gid = *gid;
		g->lid = lid;
		list_add_tail(&g->node, &rec->groups);
		doomed = ew_qp_doom_if_stale_locked(rec, mem->seq);
	}
	spin_unlock(&ew_qp_lock);
	if (doomed)
		ew_qp_revoke_locked(rec);
}

/**
 * ew_qp_member_forget() - the driver took a QP out of a group
 * @qp: the real QP
 * @gid: the group
 * @lid: its LID
 *
 * A record that was kept only for its groups (its QP reset, or never
 * configured) goes with the last of them.
 *
 * Context: under the QP's modify lock, after ib_detach_mcast() returned 0.
 */
void ew_qp_member_forget(struct ib_qp *qp, const union ib_gid *gid, u16 lid)
{
	struct ew_qp *rec, *drop = NULL;
	struct ew_qp_group *g = NULL;

	if (!READ_ONCE(ew_qp_n_records))
		return;
	spin_lock(&ew_qp_lock);
	rec = ew_qp_find(qp);
	if (rec)
		g = ew_qp_group_find(rec, gid, lid);
	if (g) {
		list_del(&g->node);
		if (list_empty(&rec->groups) && rec->state == IB_QPS_RESET &&
		    !rec->revoked)
			drop = ew_qp_forget_locked(rec);
	}
	spin_unlock(&ew_qp_lock);
	kfree(g);
	if (drop)
		ew_qp_free(drop);
}

/*
 * Whether @qp (the real QP) has a record. Context: the sweep, its QP's
 * restrack entry held; under the QP's modify lock for an answer that
 * holds.
 */
static bool ew_qp_is_tracked(struct ib_qp *qp)
{
	bool tracked;

	/*
	 * Unlocked peek: a record is added only under the QP's modify lock,
	 * which the caller holds when the answer must hold.
	 */
	if (!READ_ONCE(ew_qp_n_records))
		return false;
	spin_lock(&ew_qp_lock);
	tracked = ew_qp_find(qp);
	spin_unlock(&ew_qp_lock);
	return tracked;
}

static struct ew_qp_modify_slot *ew_qp_modify_slot(const struct ib_qp *qp)
{
	return &ew_qp_modify_slots[hash_ptr(qp, EW_QP_MODIFY_LOCK_BITS)];
}

/* Whether @qp's modify lock is held. Context: @slot's lock held. */
static bool ew_qp_modify_busy(const struct ew_qp_modify_slot *slot,
			      const struct ib_qp *qp)
{
	const struct ew_qp_modify_ticket *t;

	list_for_each_entry(t, &slot->busy, node)
		if (t->qp == qp)
			return true;
	return false;
}

/*
 * Wait until nobody holds @qp's modify lock. Out of line: the wait entry
 * on the stack would give every lock a stack protector.
 * Context: @slot's lock held; dropped while asleep, held again on return.
 */
static noinline void ew_qp_modify_wait(struct ew_qp_modify_slot *slot,
				       const struct ib_qp *qp)
	__must_hold(&slot->lock)
{
	DEFINE_WAIT(wait);

	for (;;) {
		prepare_to_wait(&slot->wait, &wait, TASK_UNINTERRUPTIBLE);
		if (!ew_qp_modify_busy(slot, qp))
			break;
		spin_unlock(&slot->lock);
		schedule();
		spin_lock(&slot->lock);
	}
	finish_wait(&slot->wait, &wait);
}

/**
 * ew_qp_modify_lock() - take the lock that serialises modifies of a QP
 * @qp: the real QP
 * @t: the holder's ticket, until ew_qp_modify_unlock()
 *
 * Held by a policed modify of the QP (its check and the driver's modify)
 * and by a revoker moving it to the error state. Waits only for a holder
 * of the same QP: see "Modify locks".
 * Context: process context, sleeps.
 */
void ew_qp_modify_lock(struct ib_qp *qp, struct ew_qp_modify_ticket *t)
{
	struct ew_qp_modify_slot *slot = ew_qp_modify_slot(qp);

	t->qp = qp;
	spin_lock(&slot->lock);
	if (unlikely(!list_empty(&slot->busy)) && ew_qp_modify_busy(slot, qp))
		ew_qp_modify_wait(slot, qp);
	list_add(&t->node, &slot->busy);
	spin_unlock(&slot->lock);
}

/*
 * Run the revocations handed to the holder of @t's QP, until none is left.
 * Out of line: its list head on the stack would give every unlock a stack
 * protector. Context: @slot's lock held; dropped while revoking.
 */
static noinline void ew_qp_run_pending(struct ew_qp_modify_slot *slot,
				       const struct ew_qp_modify_ticket *t)
	__must_hold(&slot->lock)
{
	struct ew_qp *rec, *tmp;
	LIST_HEAD(doomed);

	for (;;) {
		list_for_each_entry_safe(rec, tmp, &slot->pending, revoke_node)
			if (rec->qp == t->qp)
				list_move_tail(&rec->revoke_node, &doomed);
		if (list_empty(&doomed))
			return;
		spin_unlock(&slot->lock);
		list_for_each_entry_safe(rec, tmp, &doomed, revoke_node)
			ew_qp_revoke_locked(rec);
		spin_lock(&slot->lock);
	}
}

/**
 * ew_qp_modify_unlock() - let go of a QP's modify lock
 * @t: the ticket ew_qp_modify_lock() took
 *
 * Revokes the records a revoker handed over while the lock was held,
 * first. See "Busy modify locks".
 * Context: process context, sleeps.
 */
void ew_qp_modify_unlock(struct ew_qp_modify_ticket *t)
{
	struct ew_qp_modify_slot *slot = ew_qp_modify_slot(t->qp);

	spin_lock(&slot->lock);
	if (unlikely(!list_empty(&slot->pending)))
		ew_qp_run_pending(slot, t);
	list_del(&t->node);
	/* Waiters queue under the slot's lock: none is missed. */
	if (unlikely(waitqueue_active(&slot->wait)))
		wake_up_all(&slot->wait);
	spin_unlock(&slot->lock);
}

/**
 * ew_qp_forget_going() - a QP is destroyed while the module goes
 * @qp: the QP, about to be freed by the plain destroy
 *
 * Its record (a tombstone: no job is left) is marked dying, so that the
 * hooks still armed never read the freed QP; the module's exit frees it.
 * Context: the destroy hook (atomic).
 */
void ew_qp_forget_going(struct ib_qp *qp)
{
	struct ew_qp *rec;

	if (!READ_ONCE(ew_qp_n_records))
		return;
	spin_lock(&ew_qp_lock);
	rec = ew_qp_find(qp);
	if (rec)
		rec->dying = true;
	spin_unlock(&ew_qp_lock);
}

/**
 * ew_destroy_qp_serialised() - ib_destroy_qp_user() of a user QP
 * @qp: the QP
 * @udata: as passed to ib_destroy_qp_user()
 *
 * The destroy hook points the destroy of every user QP here. The call back
 * into ib_destroy_qp_user() comes from this module, which the hook
 * recognises and lets through; the hook took the module reference that
 * keeps this text alive while the destroy sleeps here.
 *
 * Under the QP's modify lock no revoker is in the middle of the QP (a
 * revoker that collected the record waits for the lock, then finds it
 * detached and leaves the QP alone), a sweep that finds the QP in the
 * core's table and then takes the lock finds it gone or whole, and no
 * modify of a QP allocated at the same address can find the record before
 * it is dropped. The core frees the QP inside ib_destroy_qp_user(), before
 * the record can go: it is marked `dying` first, and the passes and lookups
 * under ew_qp_lock skip it from then on. The record is dropped only if the
 * driver destroyed the QP; if not, it is live again, and judged now against
 * any pass that ran meanwhile.
 *
 * Return: ib_destroy_qp_user()'s.
 */
int ew_destroy_qp_serialised(struct ib_qp *qp, struct ib_udata *udata)
{
	struct ew_qp *rec = NULL, *drop = NULL;
	struct ew_qp_modify_ticket t;
	bool doomed = false;
	int ret;

	ew_qp_modify_lock(qp, &t);
	/* Before the number is free, fully ordered: "Decisions in flight". */
	atomic_inc_return(&ew_qp_policy_seq);
	if (READ_ONCE(ew_qp_n_records)) {
		spin_lock(&ew_qp_lock);
		rec = ew_qp_find(qp);
		if (rec)
			rec->dying = true;
		spin_unlock(&ew_qp_lock);
	}
	ret = ib_destroy_qp_user(qp, udata);
	/* Tests hold a destroyed QP's record here (the fault build only). */
	if (!ret)
		ew_fault_destroy_delay();
	if (rec) {
		spin_lock(&ew_qp_lock);
		if (!ret) {
			/* Only the pointer's value is used: the QP is gone. */
			drop = ew_qp_forget_locked(rec);
		} else {
			/*
			 * The QP stays: what the passes skipped, judge now. A
			 * pass may have moved the sequence before this destroy
			 * did and collected after it: no sequence tells.
			 */
			rec->dying = false;
			doomed = ew_qp_doom_if_refused_locked(rec);
		}
		spin_unlock(&ew_qp_lock);
		if (drop)
			ew_qp_free(drop);
		if (doomed)
			ew_qp_revoke_locked(rec);
	}
	ew_qp_modify_unlock(&t);
	/* Not a tail call: the hook must see this module as the caller. */
	module_put(THIS_MODULE);
	return ret;
}

/*
 * Which records a revocation pass takes: those of one job its rules now
 * refuse (@job NULL: the job is gone, all of them), those on one device
 * whose indices no longer resolve or now resolve to something refused, or
 * (@protection) those of jobs requiring protection whose path lost it, or
 * (@all) any record the global state (admission, revoked nodes) now refuses.
 */
struct ew_revoke_sel {
	u32 job_id;
	struct ew_job *job;
	struct ib_device *dev;
	bool protection;
	bool all;
	/* Records aimed at QP @local_qpn of this node. */
	bool local;
	u32 local_qpn;
	/* What a pass over all records logs when it revoked some. */
	const char *why;
};

/* Why @job may no longer have @rec's QP in group @g, or 0. RCU read side. */
static u32 ew_qp_group_check(const struct ew_job *job,
			     const struct ew_job_policy *pol,
			     const struct ew_qp *rec, const struct ew_qp_group *g)
{
	struct ew_request req;

	ew_request_from_mcast(rec->qp, &g->gid, g->lid, &req);
	return ew_policy_check(job, pol, &req);
}

/* The first refusal among @rec's groups. RCU read side. */
static u32 ew_qp_groups_check(const struct ew_job *job,
			      const struct ew_job_policy *pol,
			      const struct ew_qp *rec)
{
	const struct ew_qp_group *g;
	u32 reason;

	list_for_each_entry(g, &rec->groups, node) {
		reason = ew_qp_group_check(job, pol, rec, g);
		if (reason)
			return reason;
	}
	return 0;
}

/*
 * Check a record against its job's rules with its indices resolved anew,
 * and a destination on this node against the owner of the QP there.
 * Context: under ew_qp_lock (the local check reads the record index).
 */
static u32 ew_qp_recheck(const struct ew_qp *rec, bool only_if_protected)
{
	struct ew_request req = rec->req;
	const struct ew_job_policy *pol;
	struct ew_global global;
	struct ew_job *job;
	u32 reason;

	lockdep_assert_held(&ew_qp_lock);
	ew_global_snapshot(&global);
	rcu_read_lock();
	job = ew_job_find(rec->job_id);
	if (!job) {
		rcu_read_unlock();
		return EASTWEST_REASON_NO_JOB;
	}
	pol = ew_job_policy(job);
	if (only_if_protected && pol->encrypt == EASTWEST_ENCRYPT_NONE) {
		rcu_read_unlock();
		return 0;
	}
	if (ew_admission_closed(&global))
		reason = EASTWEST_REASON_NOT_ADMITTED;
	else if (ew_request_refresh(rec->qp->device, &req))
		reason = EASTWEST_REASON_INTERNAL;
	else
		reason = ew_policy_check(job, pol, &req);
	if (!reason)
		reason = ew_qp_groups_check(job, pol, rec);
	/*
	 * A destination on this node must still be a QP of the job: audit
	 * mode may have let a connect onto another job's QP through, a
	 * connect in flight across a change is checked here on commit, and
	 * an address may have come to this node since the connect (its
	 * locality is worked out again, not taken from the record).
	 */
	if (!reason &&
	    __ew_dest_is_foreign(job, rec->qp->device, &rec->req, NULL, true))
		reason = EASTWEST_REASON_FOREIGN_QP;
	/* A job in audit mode is reported, never revoked. */
	if (reason && pol->mode == EASTWEST_MODE_AUDIT) {
		pr_info_ratelimited("audit: job %u: qpn 0x%x would be revoked\n",
				    rec->job_id, rec->qpn);
		reason = 0;
	}
	rcu_read_unlock();
	return reason;
}

/*
 * Whether a record's destination, if it is on this node now, is a QP of
 * its job; a job in audit mode is reported, never revoked, as by
 * ew_qp_recheck().
 */
static u32 ew_qp_recheck_local(const struct ew_qp *rec)
{
	const struct ew_job *job;
	u32 reason = 0;

	lockdep_assert_held(&ew_qp_lock);
	rcu_read_lock();
	job = ew_job_find(rec->job_id);
	if (__ew_dest_is_foreign(job, rec->qp->device, &rec->req, NULL, true)) {
		reason = EASTWEST_REASON_FOREIGN_QP;
		if (job && ew_job_policy(job)->mode == EASTWEST_MODE_AUDIT) {
			pr_info_ratelimited("audit: job %u: qpn 0x%x would be revoked\n",
					    rec->job_id, rec->qpn);
			reason = 0;
		}
	}
	rcu_read_unlock();
	return reason;
}

/*
 * Whether a path of @rec's connection, remote when it was judged, now ends
 * on device @dev of this node (or ambiguously on several). Context:
 * rcu_read_lock().
 */
static bool ew_qp_dest_now_on(const struct ew_qp *rec, struct ib_device *dev)
{
	const struct ew_request *req = &rec->req;
	struct ib_device *ldev;
	bool ambiguous;
	unsigned int i;

	if (rec->local || !req->has_av)
		return false;
	for (i = 0; i < req->n_paths && i < ARRAY_SIZE(req->paths); i++) {
		if (!req->paths[i].has_grh)
			continue;
		ldev = ew_local_dest_dev(rec->qp->device, req->paths[i].dgid,
					 &ambiguous);
		if (ldev == dev || (ldev && ambiguous))
			return true;
	}
	return false;
}

/*
 * A GID table change of @dev. Its own QPs' records are judged again whole
 * (a GID index they name may be gone or name another netdev now). A
 * record of another device's QP is judged again against the same-node rule
 * when its destination has become a GID of @dev: its connection may now end
 * in another job's QP of this node, though its own device's table did not
 * change. Context: ew_qp_lock held.
 */
static u32 ew_qp_dev_doomed(const struct ew_qp *rec, struct ib_device *dev)
{
	bool now_local;

	if (rec->qp->device == dev)
		return ew_qp_recheck(rec, false);
	rcu_read_lock();
	now_local = ew_qp_dest_now_on(rec, dev);
	rcu_read_unlock();
	return now_local ? ew_qp_recheck_local(rec) : 0;
}

/* Why this record must be revoked, or 0 to keep it. */
static u32 ew_qp_doomed(const struct ew_qp *rec, const struct ew_revoke_sel *sel)
{
	const struct ew_job_policy *pol;
	struct ew_request req;
	u32 reason;

	if (sel->local)
		return rec->local && rec->req.dest_qpn == sel->local_qpn ?
		       ew_qp_recheck_local(rec) : 0;
	if (sel->protection)
		return ew_qp_recheck(rec, true);
	if (sel->all)
		return ew_qp_recheck(rec, false);
	if (sel->dev)
		return ew_qp_dev_doomed(rec, sel->dev);
	if (rec->job_id != sel->job_id)
		return 0;
	if (!sel->job)
		return EASTWEST_REASON_NO_JOB;
	rcu_read_lock();
	pol = ew_job_policy(sel->job);
	if (pol->encrypt != EASTWEST_ENCRYPT_NONE) {
		/* The requirement may be new: evaluate the path's protection. */
		req = rec->req;
		reason = ew_request_refresh(rec->qp->device, &req) ?
			 EASTWEST_REASON_INTERNAL :
			 ew_policy_check(sel->job, pol, &req);
	} else {
		reason = ew_policy_check(sel->job, pol, &rec->req);
	}
	if (!reason)
		reason = ew_qp_groups_check(sel->job, pol, rec);
	rcu_read_unlock();
	/*
	 * Audit mode may have let a connect onto another job's QP through, or
	 * its destination's address has come to this node since.
	 */
	if (!reason)
		reason = ew_qp_recheck_local(rec);
	return reason;
}

/* The revoke event of @rec's QP, for the events group. */
static void ew_qp_revoke_event(const struct ew_qp *rec, struct ib_qp *qp,
			       u32 reason, struct ew_event *ev)
{
	*ev = (struct ew_event) {
		.cmd = EASTWEST_CMD_REVOKE_NTF,
		.op = EASTWEST_OP_REVOKE,
		.reason = reason,
		.job_id = rec->job_id,
		.qpn = qp->qp_num,
		.has_qpn = true,
	};
	strscpy(ev->dev_name, dev_name(&qp->device->dev), sizeof(ev->dev_name));
	if (rec->req.has_av && rec->req.paths[0].has_grh) {
		ev->has_dgid = true;
		memcpy(ev->dgid, rec->req.paths[0].dgid, sizeof(ev->dgid));
	} else if (rec->req.has_av) {
		ev->has_dlid = true;
		ev->dlid = rec->req.paths[0].dlid;
	}
}

static bool ew_revoke_audited(const struct ew_revoke_sel *sel)
{
	bool audit = READ_ONCE(ew_global.mode) == EASTWEST_MODE_AUDIT;

	if (sel->job) {
		rcu_read_lock();
		audit |= ew_job_policy(sel->job)->mode == EASTWEST_MODE_AUDIT;
		rcu_read_unlock();
	}
	return audit;
}

/* Audit mode: report what enforce would revoke, touch nothing. */
static void ew_qp_audit_revoke(const struct ew_revoke_sel *sel)
{
	/* A deleted job's records answer to nobody: they go. */
	bool job_gone = !sel->job && !sel->dev && !sel->protection && !sel->all &&
			!sel->local;
	struct hlist_node *tmp;
	unsigned int bkt, n = 0;
	struct ew_qp *rec;
	HLIST_HEAD(gone);

	spin_lock(&ew_qp_lock);
	hash_for_each_safe(ew_qps, bkt, tmp, rec, node) {
		if (rec->revoked || rec->dying || !ew_qp_doomed(rec, sel))
			continue;
		n++;
		if (job_gone && !rec->revoking) {
			ew_qp_drop_locked(rec);
			hlist_add_head(&rec->node, &gone);
		}
	}
	spin_unlock(&ew_qp_lock);
	hlist_for_each_entry_safe(rec, tmp, &gone, node)
		ew_qp_free(rec);
	if (n)
		pr_info_ratelimited("audit: %u QP(s) would be revoked\n", n);
}

/*
 * A record kept by a pass after a GID table change: if its destination has
 * become an address of this node, index it as a local destination, so that
 * a QP that later reuses its destination's number revokes it ("Local
 * destinations that go away").
 */
static void ew_qp_local_refresh_locked(struct ew_qp *rec)
{
	bool local;

	lockdep_assert_held(&ew_qp_lock);
	if (rec->local)
		return;
	rcu_read_lock();
	__ew_dest_is_foreign(NULL, rec->qp->device, &rec->req, &local, true);
	rcu_read_unlock();
	if (!local)
		return;
	rec->local = true;
	ew_qp_local_index(rec, true);
}

/*
 * One pass over the table: mark every selected record `revoking` and move
 * it to @doomed. The lock is dropped every EW_REVOKE_SCAN_BUCKETS buckets:
 * a record tracked meanwhile in a bucket already passed is left to the
 * next pass. Returns how many records were taken.
 */
static unsigned int ew_qp_collect(const struct ew_revoke_sel *sel,
				  struct list_head *doomed)
{
	unsigned int first, bkt, n = 0;
	struct ew_qp *rec;
	u32 reason;

	BUILD_BUG_ON(HASH_SIZE(ew_qps) % EW_REVOKE_SCAN_BUCKETS);
	for (first = 0; first < HASH_SIZE(ew_qps);
	     first += EW_REVOKE_SCAN_BUCKETS) {
		spin_lock(&ew_qp_lock);
		for (bkt = first; bkt < first + EW_REVOKE_SCAN_BUCKETS; bkt++) {
			hlist_for_each_entry(rec, &ew_qps[bkt], node) {
				if (rec->revoking || rec->revoked || rec->dying)
					continue;
				reason = ew_qp_doomed(rec, sel);
				if (!reason) {
					if (sel->dev)
						ew_qp_local_refresh_locked(rec);
					continue;
				}
				rec->revoking = true;
				rec->reason = reason;
				list_add_tail(&rec->revoke_node, doomed);
				n++;
			}
		}
		spin_unlock(&ew_qp_lock);
		cond_resched();
	}
	return n;
}

/*
 * A revoked QP leaves the groups its job may no longer join: a reset would
 * otherwise bring it back to receive from them. The groups still allowed
 * stay. Context: the QP's modify lock held (membership changes take it).
 */
static void ew_qp_leave_refused_groups(struct ew_qp *rec)
{
	const struct ew_job_policy *pol = NULL;
	struct ew_qp_group *g, *tmp;
	struct ew_global global;
	struct ew_job *job;
	bool closed;
	LIST_HEAD(gone);

	if (list_empty(&rec->groups))
		return;
	ew_global_snapshot(&global);
	closed = ew_admission_closed(&global);
	spin_lock(&ew_qp_lock);
	rcu_read_lock();
	job = ew_job_find(rec->job_id);
	if (job)
		pol = ew_job_policy(job);
	list_for_each_entry_safe(g, tmp, &rec->groups, node)
		if (!job || closed || ew_qp_group_check(job, pol, rec, g))
			list_move(&g->node, &gone);
	rcu_read_unlock();
	spin_unlock(&ew_qp_lock);
	list_for_each_entry_safe(g, tmp, &gone, node) {
		/* The detach hook lets this module's own call through. */
		ib_detach_mcast(rec->qp, &g->gid, g->lid);
		kfree(g);
	}
}

/* A record stopped being `revoking`: wake INITs waiting for that. */
static void ew_qp_revoked_wake(void)
{
	/* Full barrier, then a look: pairs with the waiter's queueing. */
	if (wq_has_sleeper(&ew_qp_revoked_wait))
		wake_up_all(&ew_qp_revoked_wait);
}

/*
 * Revoke a record marked `revoking`: its QP to the error state, its owner
 * told (a QP_FATAL event, as security.c does), and the record kept as a
 * tombstone until the QP is reset or destroyed. A destroy of the QP waits
 * for the modify lock (ew_destroy_qp_serialised()).
 * Context: the QP's modify lock held.
 * Return: false if there was nothing left to revoke (the QP was reset).
 */
static bool ew_qp_revoke_locked(struct ew_qp *rec)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_event event = { .event = IB_EVENT_QP_FATAL };
	struct ew_event ev;
	struct ib_qp *qp;
	int err;

	/*
	 * Its owner reset or destroyed the QP after the record was collected:
	 * the QP has no destination left to revoke (and may have a new record
	 * already, or be freed: nothing of it is read).
	 */
	if (rec->detached) {
		spin_lock(&ew_qp_lock);
		list_del_init(&rec->revoke_node);
		spin_unlock(&ew_qp_lock);
		ew_qp_free(rec);
		ew_qp_revoked_wake();
		return false;
	}
	qp = rec->qp;
	event.device = qp->device;
	event.element.qp = qp;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	/*
	 * A driver may refuse ERR (mlx5 takes a DC target only from RESET to
	 * INIT to RTR): the QP may still receive. It is marked revoked all the
	 * same, so that its owner can only reset or destroy it; the operator
	 * is told.
	 */
	if (err)
		pr_warn_ratelimited("job %u: qpn 0x%x on %s: the driver refused to move it to ERR (%d): it may still carry traffic until its owner resets or destroys it\n",
				    rec->job_id, qp->qp_num,
				    dev_name(&qp->device->dev), err);
	ew_qp_leave_refused_groups(rec);
	/*
	 * Unlike security.c we do not require a qp_context: uverbs QPs (the
	 * only ones tracked) have none, and their handler does not use it.
	 * The modify lock is held: a destroy waits, the QP stays.
	 */
	if (qp->event_handler)
		qp->event_handler(&event, qp->qp_context);

	spin_lock(&ew_qp_lock);
	ew_qp_revoke_event(rec, qp, rec->reason, &ev);
	if (__ratelimit(&ew_revoke_log_rs))
		pr_info("job %u: revoked qpn 0x%x on %s: %s\n", rec->job_id,
			qp->qp_num, dev_name(&qp->device->dev),
			ew_reason_name(rec->reason));
	list_del_init(&rec->revoke_node);
	rec->state = IB_QPS_ERR;
	rec->revoked = true;
	rec->revoking = false;
	ew_qp_count(rec->job_id, -1);
	spin_unlock(&ew_qp_lock);
	ew_qp_revoked_wake();
	/* It may wait for room in the events ring. */
	ew_event_report_wait(&ev);
	return true;
}

/*
 * Revoke one collected record, serialised with its owner's modifies, or
 * hand it to the holder of its QP's busy modify lock (see "Busy modify
 * locks"). Returns whether it was revoked or handed over; @handed counts
 * the latter.
 */
static bool ew_qp_revoke_one(struct ew_qp *rec, unsigned int *handed)
{
	struct ew_qp_modify_slot *slot = ew_qp_modify_slot(rec->qp);
	struct ew_qp_modify_ticket t;
	bool revoked;

	t.qp = rec->qp;
	spin_lock(&slot->lock);
	if (ew_qp_modify_busy(slot, rec->qp)) {
		/* Its holder runs it before letting go: the record is its. */
		list_move_tail(&rec->revoke_node, &slot->pending);
		spin_unlock(&slot->lock);
		(*handed)++;
		return true;
	}
	list_add(&t.node, &slot->busy);
	spin_unlock(&slot->lock);
	revoked = ew_qp_revoke_locked(rec);
	ew_qp_modify_unlock(&t);
	return revoked;
}

/*
 * The summary line of a revocation of @n QPs. Revalidations for path
 * protection and for the node's state are summed up by their callers.
 */
static void ew_qp_log_revocation(const struct ew_revoke_sel *sel,
				 unsigned int n, unsigned int handed)
{
	if (handed)
		pr_info("%u QP(s) to be revoked as the modifies under way on their locks end\n",
			handed);
	if (sel->why)
		pr_info("%u QP(s) revoked: %s\n", n, sel->why);
	if (sel->protection || sel->all)
		return;
	if (sel->local)
		pr_info("qpn 0x%x of this node has a new owner: %u QP(s) aimed at it revoked\n",
			sel->local_qpn, n);
	else if (sel->dev)
		pr_info("%u QP(s) revoked on %s: GID or P_Key table changed\n",
			n, dev_name(&sel->dev->dev));
	else
		pr_info("job %u: %u QP(s) revoked%s\n", sel->job_id, n,
			sel->job ? "" : ": job deleted");
}

/* Move every selected QP to the error state; returns how many. */
static unsigned int ew_qp_revoke(const struct ew_revoke_sel *sel)
{
	unsigned int n = 0, handed = 0;
	LIST_HEAD(doomed);
	struct ew_qp *rec, *tmp;

	/* Before collecting: see ew_qp_commit(). */
	atomic_inc_return(&ew_qp_policy_seq);
	mutex_lock(&ew_revoke_mutex);
	if (ew_revokers_stopped) {
		mutex_unlock(&ew_revoke_mutex);
		return 0;
	}
	if (ew_revoke_audited(sel)) {
		ew_qp_audit_revoke(sel);
		mutex_unlock(&ew_revoke_mutex);
		return 0;
	}
	/* Until a pass finds nothing: QPs may be tracked behind us. */
	while (ew_qp_collect(sel, &doomed)) {
		list_for_each_entry_safe(rec, tmp, &doomed, revoke_node) {
			if (ew_qp_revoke_one(rec, &handed) &&
			    ++n % EW_REVOKE_BATCH == 0)
				cond_resched();
		}
	}
	mutex_unlock(&ew_revoke_mutex);
	if (n)
		ew_qp_log_revocation(sel, n, handed);
	return n;
}

/**
 * ew_qp_revoke_job() - move every live QP of a deleted job to the error state
 * @job_id: the job (already unpublished)
 *
 * Context: process context, sleeps.
 */
unsigned int ew_qp_revoke_job(u32 job_id)
{
	struct ew_revoke_sel sel = { .job_id = job_id };

	return ew_qp_revoke(&sel);
}

/**
 * ew_qp_revalidate_job() - revoke the job's QPs its current rules refuse
 * @job: the job, after a change of its peers or rules
 *
 * Context: holds ew_config_lock; sleeps.
 */
unsigned int ew_qp_revalidate_job(struct ew_job *job)
{
	struct ew_revoke_sel sel = { .job_id = job->id, .job = job };

	lockdep_assert_held(&ew_config_lock);
	return ew_qp_revoke(&sel);
}

/*
 * After a GID or P_Key table change of a device (the registry's chain),
 * revoke the QPs whose source GID or P_Key no longer resolves to what their
 * job allows. Context: process context (the core's event work), sleeps.
 */
static int ew_qp_dev_changed(struct notifier_block *nb, unsigned long event,
			     void *data)
{
	struct ew_revoke_sel sel = { .dev = data };

	ew_qp_revoke(&sel);
	return NOTIFY_DONE;
}

/*
 * After a MACsec, XFRM or fabric change (protect.c's chain), revoke the
 * QPs of jobs requiring protection whose path lost it. Context: process
 * context, sleeps.
 */
static int ew_qp_protection_changed(struct notifier_block *nb,
				    unsigned long event, void *data)
{
	struct ew_revoke_sel sel = {
		.protection = true,
		.why = "their path lost the protection their job requires",
	};

	ew_qp_revoke(&sel);
	return NOTIFY_DONE;
}

/*
 * After a netdev joined or left a VRF (srccache.c's chain), revoke the QPs
 * whose source netdev no longer passes their job's rules. Context:
 * process context, sleeps.
 */
static int ew_qp_vrf_changed(struct notifier_block *nb, unsigned long event,
			     void *data)
{
	struct ew_revoke_sel sel = {
		.all = true,
		.why = "their source netdev joined or left a VRF",
	};

	ew_qp_revoke(&sel);
	return NOTIFY_DONE;
}

static struct notifier_block ew_qp_dev_nb = {
	.notifier_call = ew_qp_dev_changed,
};

static struct notifier_block ew_qp_vrf_nb = {
	.notifier_call = ew_qp_vrf_changed,
};

static struct notifier_block ew_qp_protection_nb = {
	.notifier_call = ew_qp_protection_changed,
};

/**
 * ew_qp_revalidate_all() - after this node lost its admission, another
 * node was revoked or enforce mode followed audit mode, revoke every QP
 * the global state now refuses
 *
 * Context: holds ew_config_lock; sleeps.
 */
unsigned int ew_qp_revalidate_all(void)
{
	struct ew_revoke_sel sel = { .all = true };

	lockdep_assert_held(&ew_config_lock);
	return ew_qp_revoke(&sel);
}

/* Whether a record aimed at QP @qpn of this node is being revoked. */
static bool ew_qp_local_revoking(u32 qpn)
{
	struct ew_qp *rec;
	bool busy = false;

	spin_lock(&ew_qp_lock);
	hash_for_each_possible(ew_qp_local_idx, rec, local_node, qpn) {
		if (rec->req.dest_qpn == qpn && rec->revoking) {
			busy = true;
			break;
		}
	}
	spin_unlock(&ew_qp_lock);
	return busy;
}

/**
 * ew_qp_revalidate_local() - a QP of this node comes up: revoke the QPs
 * aimed at its number that are not of its job
 * @qp: the real QP, brought to INIT
 *
 * A tracked QP skips the pass: it has kept its number since the INIT that
 * made its record (a reset drops it), which ran the pass, so rdma_cm's
 * INIT->INIT before RTR does not run it again. Records aimed at the number
 * that the new QP's owner may keep (its own job's) start no pass either,
 * so a process cycling its QP through RESET and INIT under a connection of
 * its own does not make the node scan every record. One hold of
 * ew_qp_lock answers these questions. Then it waits until no record aimed
 * at the number is being revoked (see "Local destinations that go away").
 *
 * Context: process context, sleeps; holds no modify lock.
 * Return: 0, or -ERESTARTSYS if a signal came while it waited.
 */
int ew_qp_revalidate_local(struct ib_qp *qp)
{
	struct ew_revoke_sel sel = { .local = true, .local_qpn = qp->qp_num };
	bool aimed = false, revoking = false;
	u32 qpn = qp->qp_num;
	struct ew_qp *rec;

	if (!READ_ONCE(ew_qp_n_records))
		return 0;
	spin_lock(&ew_qp_lock);
	/*
	 * Not before its modify lock: a record of a QP whose destroy is under
	 * way may name a freed QP, or this one's address.
	 */
	rec = ew_qp_find(qp);
	if (rec && !rec->dying) {
		spin_unlock(&ew_qp_lock);
		return 0;
	}
	/* Only a record the new owner's QP is foreign to starts the pass. */
	hash_for_each_possible(ew_qp_local_idx, rec, local_node, qpn) {
		if (rec->req.dest_qpn != qpn || rec->revoked || rec->dying)
			continue;
		if (rec->revoking) {
			revoking = true;
		} else if (ew_qp_recheck_local(rec)) {
			aimed = true;
			break;
		}
	}
	spin_unlock(&ew_qp_lock);
	if (aimed)
		ew_qp_revoke(&sel);
	if (!aimed && !revoking)
		return 0;
	/* Until the old QPs are in the error state, not just collected. */
	return wait_event_interruptible(ew_qp_revoked_wait,
					!ew_qp_local_revoking(qpn));
}

/*
 * DOC: QPs of processes in no job - while such processes are not policed
 * (default action allow, or audit mode) nothing judges their connections
 * and their QPs have no records; nor does anything judge a connection made
 * before a job bound its process's cgroup. No user QP of a job's process
 * is connected without a record otherwise: every modify of one is judged
 * and recorded. So one rule covers both: a connected user QP (RTR and on)
 * without a record is revoked once its owner is policed and enforced, that
 * is, once it is in a job in enforce mode, or in no job under default deny,
 * with the global mode enforce. ew_qp_revoke_unrecorded() applies it after
 * every change that can make it true (ew_op_config_set(), ew_op_job_add(),
 * ew_op_job_change()): it finds the QPs in the RDMA core's own QP table
 * and revokes each as a record is revoked: the error state, a QP_FATAL
 * event, and a tombstone record that lets only RESET or destroy through.
 * A QP listed by the table may be destroyed at any moment; it is looked up
 * again under its modify lock, which every user QP's destroy holds from
 * before the driver is called until the core's table has dropped the QP,
 * so what the lookup finds stays whole while the lock is held.
 */

#define EW_SWEEP_BATCH	64

/*
 * Whether the creator of @qp is policed and enforced now; @job_id is set to
 * its job (0: none). @deny: the default action is deny.
 */
static bool ew_qp_owner_enforced(struct ib_qp *qp, bool deny, u32 *job_id)
{
	struct ew_job *owner;
	bool enforced;

	if (!qp->res.task)
		return false;
	rcu_read_lock();
	owner = ew_res_job(&qp->res);
	*job_id = owner ? owner->id : 0;
	enforced = owner ? ew_job_policy(owner)->mode == EASTWEST_MODE_ENFORCE :
			   deny;
	rcu_read_unlock();
	return enforced;
}

/* Revoke @cq if it is an untracked connected QP of an enforced owner. */
static bool ew_qp_revoke_unrecorded_one(struct ib_device *dev,
					const struct ew_core_qp *cq, bool deny)
{
	struct ew_qp_modify_ticket t;
	struct ib_qp_init_attr init_attr;
	struct ib_qp_attr attr;
	struct ew_qp *rec;
	struct ib_qp *qp;
	bool revoked = false;
	u32 job_id;

	/*
	 * Tracked QPs, and those of owners not enforced, are left without
	 * waiting for their lock: see "Busy modify locks". The entry held
	 * keeps the QP whole; nothing here waits while it is held.
	 */
	qp = ew_restrack_qp_hold(dev, cq->qpn);
	if (!qp)
		return false;
	revoked = qp == cq->qp && ew_qp_owner_enforced(qp, deny, &job_id) &&
		  !ew_qp_is_tracked(qp);
	rdma_restrack_put(&qp->res);
	if (!revoked)
		return false;
	revoked = false;
	rec = ew_qp_alloc(GFP_KERNEL);
	if (!rec)
		return false;
	ew_qp_modify_lock(cq->qp, &t);
	qp = ew_restrack_qp_hold(dev, cq->qpn);
	if (!qp)
		goto out;
	if (qp != cq->qp || !ew_qp_owner_enforced(qp, deny, &job_id) ||
	    ew_qp_is_tracked(qp) ||
	    ib_query_qp(qp, &attr, IB_QP_STATE, &init_attr) ||
	    attr.qp_state < IB_QPS_RTR || attr.qp_state == IB_QPS_ERR)
		goto out;
	/* Tests hold the sweep here, with the QP's lock (the fault build). */
	ew_fault_sweep_delay();
	rec->job_id = job_id;
	rec->state = attr.qp_state;
	rec->revoking = true;
	/* Connected while its process was in no job. */
	rec->reason = EASTWEST_REASON_NO_JOB;
	spin_lock(&ew_qp_lock);
	ew_qp_hash_locked(rec, qp);
	spin_unlock(&ew_qp_lock);
	revoked = ew_qp_revoke_locked(rec);
	rec = NULL;
out:
	if (qp)
		rdma_restrack_put(&qp->res);
	ew_qp_modify_unlock(&t);
	if (rec)
		ew_qp_free(rec);
	return revoked;
}

/**
 * ew_qp_revoke_unrecorded() - revoke the connected QPs without records
 * whose owners are now policed and enforced
 *
 * In global audit mode nothing is touched.
 *
 * Context: holds ew_config_lock; sleeps.
 * Return: how many were revoked.
 */
unsigned int ew_qp_revoke_unrecorded(void)
{
	struct ew_core_qp *batch;
	unsigned int n, i, d, total = 0;
	unsigned long next;
	struct ew_dev *dev;
	bool deny;

	lockdep_assert_held(&ew_config_lock);
	if (ew_global.mode != EASTWEST_MODE_ENFORCE)
		return 0;
	deny = ew_global.default_action == EASTWEST_DEFAULT_ACTION_DENY;
	batch = kmalloc_array(EW_SWEEP_BATCH, sizeof(*batch), GFP_KERNEL);
	if (!batch) {
		pr_warn("no memory to look for QPs connected in no job\n");
		return 0;
	}
	ew_registry_lock();
	mutex_lock(&ew_revoke_mutex);
	for (d = 0; !ew_revokers_stopped && (dev = ew_registry_nth(d)); d++) {
		next = 0;
		do {
			n = ew_restrack_user_qps(dev->ibdev, &next, batch,
						 EW_SWEEP_BATCH);
			for (i = 0; i < n; i++)
				total += ew_qp_revoke_unrecorded_one(dev->ibdev,
								     &batch[i],
								     deny);
			cond_resched();
		} while (n == EW_SWEEP_BATCH);
	}
	mutex_unlock(&ew_revoke_mutex);
	ew_registry_unlock();
	kfree(batch);
	if (total)
		pr_info("%u QP(s) connected in no job revoked\n", total);
	return total;
}

/**
 * ew_qptrack_init() - create the record cache
 */
int ew_qptrack_init(void)
{
	/* The summary line says how many: no "callbacks suppressed" lines. */
	unsigned int i;
	int ret;

	ratelimit_set_flags(&ew_revoke_log_rs, RATELIMIT_MSG_ON_RELEASE);
	for (i = 0; i < ARRAY_SIZE(ew_qp_modify_slots); i++) {
		spin_lock_init(&ew_qp_modify_slots[i].lock);
		INIT_LIST_HEAD(&ew_qp_modify_slots[i].busy);
		INIT_LIST_HEAD(&ew_qp_modify_slots[i].pending);
		init_waitqueue_head(&ew_qp_modify_slots[i].wait);
	}
	ew_qp_cache = KMEM_CACHE(ew_qp, 0);
	if (!ew_qp_cache)
		return -ENOMEM;
	ret = ew_registry_register_notifier(&ew_qp_dev_nb);
	if (ret)
		goto err_cache;
	ret = ew_protect_register_notifier(&ew_qp_protection_nb);
	if (ret)
		goto err_dev_nb;
	ret = ew_src_register_notifier(&ew_qp_vrf_nb);
	if (ret)
		goto err_protection_nb;
	return 0;

err_protection_nb:
	ew_protect_unregister_notifier(&ew_qp_protection_nb);
err_dev_nb:
	ew_registry_unregister_notifier(&ew_qp_dev_nb);
err_cache:
	kmem_cache_destroy(ew_qp_cache);
	return ret;
}

/**
 * ew_qptrack_stop() - no revocation from here on; waits for the one running
 *
 * Unload: revocations may still be asked for by device events until the
 * registry goes, and a revoker must not outlive the destroy hook, which
 * keeps a destroy from freeing the QP under it.
 * Context: process context, sleeps.
 */
void ew_qptrack_stop(void)
{
	mutex_lock(&ew_revoke_mutex);
	ew_revokers_stopped = true;
	mutex_unlock(&ew_revoke_mutex);
}

/**
 * ew_qptrack_exit() - drop every record; the hooks must already be gone
 */
void ew_qptrack_exit(void)
{
	struct hlist_node *tmp;
	struct ew_qp *rec;
	unsigned int bkt;

	unsigned int i;

	ew_src_unregister_notifier(&ew_qp_vrf_nb);
	ew_protect_unregister_notifier(&ew_qp_protection_nb);
	ew_registry_unregister_notifier(&ew_qp_dev_nb);
	hash_for_each_safe(ew_qps, bkt, tmp, rec, node) {
		hash_del(&rec->node);
		hash_del(&rec->qpn_node);
		hash_del(&rec->local_node);
		ew_qp_free(rec);
	}
	ew_qp_n_records = 0;
	kmem_cache_destroy(ew_qp_cache);
	for (i = 0; i < ARRAY_SIZE(ew_qp_modify_slots); i++)
		WARN_ON(!list_empty(&ew_qp_modify_slots[i].busy));
}
