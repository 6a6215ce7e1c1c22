// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: Local GIDs - which destination GIDs are this node's own
 *
 * A connection whose destination GID belongs to this node ends in a QP on
 * this node, and that QP may be another job's: two jobs that are both
 * allowed the node's address (a Slurm job's peers are all its nodes, this
 * one included) would otherwise reach each other's QPs. The modify and
 * create-AH hooks ask here whether a destination is local, and on which
 * device, in one hash probe.
 *
 * The set mirrors the GID tables of the registered devices: it is filled
 * when a device registers and refilled for a device on each GID change
 * event (the core dispatches it after its cache changed), and a device's
 * entries go when it unregisters. Readers use RCU; writers hold
 * ew_local_gid_lock and free entries after a grace period. An entry's
 * device pointer is valid inside the reader's RCU section: the registry's
 * remove callback drops the device's entries and waits for readers before
 * the core may free the device.
 */

#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/cgroup.h>
#include <linux/xarray.h>
#include <rdma/ib_cache.h>
#include <rdma/restrack.h>

#include "fault.h"
#include "job.h"
#include "localgid.h"
#include "policy.h"

#define EW_LOCAL_GID_BITS	8
/* GID entries read per device at once; doubled while the tables hold more. */
#define EW_LOCAL_GID_FIRST	64
#define EW_LOCAL_GID_MAX	65536

struct ew_local_gid {
	struct hlist_node node;
	u8 gid[16];
	struct ib_device *dev;
	/* Not in the device's table any more: a refresh removes it last. */
	bool stale;
	struct rcu_head rcu;
};

static DEFINE_HASHTABLE(ew_local_gids, EW_LOCAL_GID_BITS);
static DEFINE_SPINLOCK(ew_local_gid_lock);
/*
 * Serialises refreshes, each from its read of a device's table to its
 * publication: InfiniBand dispatches the GID changes of a device's ports
 * on an unordered workqueue, and an older read published last would leave
 * a GID out of the set until the next change.
 */
static DEFINE_MUTEX(ew_local_gids_refresh_lock);
/*
 * A refresh failed (no memory): the set may miss GIDs of this node. Then a
 * destination missing from it is looked up in the QP's own device's table
 * too (slower), so that loopback on one device is never mistaken for a
 * remote destination. Stays set until unload.
 */
static bool ew_local_gids_incomplete;

/*
 * The two halves of the GID folded (hash_min() then picks the bucket):
 * the interface identifier or IPv4 address varies in the low half, a
 * per-node or per-job prefix in the high one. The set holds only this
 * node's own GIDs, so a caller choosing a destination can only pick which
 * of their short chains it walks.
 */
static u32 ew_local_gid_hash(const u8 *gid)
{
	u64 hi, lo;

	memcpy(&hi, gid, sizeof(hi));
	memcpy(&lo, gid + sizeof(hi), sizeof(lo));
	hi ^= lo;
	return (u32)hi ^ (u32)(hi >> 32);
}

/* Two GIDs compared as two words each: every policed connect asks. */
static bool ew_local_gid_equal(const u8 *a, const u8 *b)
{
	u64 a0, a1, b0, b1;

	memcpy(&a0, a, sizeof(a0));
	memcpy(&a1, a + sizeof(a0), sizeof(a1));
	memcpy(&b0, b, sizeof(b0));
	memcpy(&b1, b + sizeof(b0), sizeof(b1));
	return !((a0 ^ b0) | (a1 ^ b1));
}

/*
 * The set's entry of @gid for @dev, or NULL. Context: rcu_read_lock() or
 * ew_local_gid_lock.
 */
static struct ew_local_gid *ew_local_gid_find(const u8 *gid,
					      const struct ib_device *dev)
{
	struct ew_local_gid *e;

	hash_for_each_possible_rcu(ew_local_gids, e, node,
				   ew_local_gid_hash(gid),
				   lockdep_is_held(&ew_local_gid_lock))
		if (e->dev == dev && ew_local_gid_equal(e->gid, gid))
			return e;
	return NULL;
}

/* Mark @dev's entries stale (@mark) or remove those that are (!@mark). */
static void ew_local_gids_sweep(struct ib_device *dev, bool mark)
{
	struct hlist_node *tmp;
	struct ew_local_gid *e;
	unsigned int bkt;

	lockdep_assert_held(&ew_local_gid_lock);
	hash_for_each_safe(ew_local_gids, bkt, tmp, e, node) {
		if (e->dev != dev)
			continue;
		if (mark) {
			e->stale = true;
		} else if (e->stale) {
			hash_del_rcu(&e->node);
			kfree_rcu(e, rcu);
		}
	}
}

static void ew_local_gids_unhash(struct ib_device *dev)
{
	lockdep_assert_held(&ew_local_gid_lock);
	ew_local_gids_sweep(dev, true);
	ew_local_gids_sweep(dev, false);
}

/* The valid entries of @dev's GID tables, all ports: a kvmalloc'ed array. */
static struct ib_uverbs_gid_entry *ew_gid_table_read(struct ib_device *dev,
						     ssize_t *n)
{
	struct ib_uverbs_gid_entry *ents;
	size_t max = EW_LOCAL_GID_FIRST;

	for (;;) {
		ents = kvcalloc(max, sizeof(*ents), GFP_KERNEL);
		EW_FAIL_ALLOC(ents, kvfree(ents));
		if (!ents)
			return ERR_PTR(-ENOMEM);
		*n = rdma_query_gid_table(dev, ents, max);
		if (*n >= 0)
			return ents;
		kvfree(ents);
		/* -EINVAL: more valid entries than @max. */
		if (*n != -EINVAL || max >= EW_LOCAL_GID_MAX)
			return ERR_PTR(*n);
		max *= 2;
	}
}

/**
 * ew_local_gids_incomplete_set() - the set may miss GIDs of this node
 *
 * For a device whose GIDs never reached the set (its registration failed).
 */
void ew_local_gids_incomplete_set(void)
{
	WRITE_ONCE(ew_local_gids_incomplete, true);
}

/* ew_local_gids_refresh() under ew_local_gids_refresh_lock. */
static int __ew_local_gids_refresh(struct ib_device *dev)
{
	struct ib_uverbs_gid_entry *ents;
	struct ew_local_gid **fresh;
	ssize_t n, i, used = 0;
	int ret = 0;

	ents = ew_gid_table_read(dev, &n);
	if (IS_ERR(ents)) {
		ew_local_gids_incomplete_set();
		return PTR_ERR(ents);
	}
	fresh = kvcalloc(n ? n : 1, sizeof(*fresh), GFP_KERNEL);
	EW_FAIL_ALLOC(fresh, kvfree(fresh));
	if (!fresh) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		fresh[used] = kzalloc(sizeof(*fresh[used]), GFP_KERNEL);
		EW_FAIL_ALLOC(fresh[used], kfree(fresh[used]));
		if (!fresh[used]) {
			ret = -ENOMEM;
			goto free;
		}
		memcpy(fresh[used]->gid, ents[i].gid, sizeof(fresh[used]->gid));
		fresh[used]->dev = dev;
		used++;
	}

	/*
	 * The new set is added before the old one goes: a lookup meanwhile
	 * finds a GID the device keeps either way, never neither (it would
	 * take a destination of this node for a remote one).
	 */
	spin_lock(&ew_local_gid_lock);
	ew_local_gids_sweep(dev, true);
	for (i = 0; i < used; i++) {
		struct ew_local_gid *e = ew_local_gid_find(fresh[i]->gid, dev);

		/* Kept; RoCE v1 and v2 entries share a GID: one. */
		if (e) {
			e->stale = false;
			kfree(fresh[i]);
			continue;
		}
		hash_add_rcu(ew_local_gids, &fresh[i]->node,
			     ew_local_gid_hash(fresh[i]->gid));
	}
	ew_local_gids_sweep(dev, false);
	spin_unlock(&ew_local_gid_lock);
	used = 0;
free:
	while (used--)
		kfree(fresh[used]);
	kvfree(fresh);
out:
	kvfree(ents);
	if (ret)
		ew_local_gids_incomplete_set();
	return ret;
}

/**
 * ew_local_gids_refresh() - make the set hold exactly @dev's GIDs
 * @dev: a registered device
 *
 * On failure the device's old entries stay (the set may then miss a GID
 * added meanwhile: a later change refreshes it again).
 * Context: process context, may sleep.
 * Return: 0 or a negative errno.
 */
int ew_local_gids_refresh(struct ib_device *dev)
{
	int ret;

	mutex_lock(&ew_local_gids_refresh_lock);
	ret = __ew_local_gids_refresh(dev);
	mutex_unlock(&ew_local_gids_refresh_lock);
	return ret;
}

/**
 * ew_gid_attr_find() - @gid's entry in @dev's own GID table, of any type
 * @dev: a registered device
 * @gid: 16 bytes, network order
 *
 * Kept out of line: its aligned on-stack GID would otherwise give every
 * caller's frame (a local destination probe) a realigned, guarded stack.
 * Context: any (the table's read lock).
 * Return: the entry, held (rdma_put_gid_attr()), or an ERR_PTR().
 */
noinline const struct ib_gid_attr *ew_gid_attr_find(struct ib_device *dev,
						    const u8 *gid)
{
	static const enum ib_gid_type types[] = {
		IB_GID_TYPE_ROCE_UDP_ENCAP, IB_GID_TYPE_IB,
	};
	const struct ib_gid_attr *attr = ERR_PTR(-ENOENT);
	union ib_gid g;
	unsigned int i;

	memcpy(g.raw, gid, sizeof(g.raw));
	for (i = 0; i < ARRAY_SIZE(types) && IS_ERR(attr); i++)
		attr = rdma_find_gid(dev, &g, types[i], NULL);
	return attr;
}

/* @gid in @dev's own table: the slow path, see above. */
static bool ew_gid_on_dev(struct ib_device *dev, const u8 *gid)
{
	const struct ib_gid_attr *attr = ew_gid_attr_find(dev, gid);

	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

/**
 * ew_local_gids_forget() - drop @dev's GIDs (the device unregisters)
 * @dev: the device
 *
 * Waits for readers that may have found the device here, so that none uses
 * it once the remove callback returned and the core may free it.
 * Context: process context, sleeps.
 */
void ew_local_gids_forget(struct ib_device *dev)
{
	spin_lock(&ew_local_gid_lock);
	ew_local_gids_unhash(dev);
	spin_unlock(&ew_local_gid_lock);
	synchronize_rcu();
}

/**
 * ew_res_job() - the job of the process that created a user object of the
 * RDMA core (its restrack entry names the task)
 * @res: a user object's entry (@res->task set)
 *
 * Context: rcu_read_lock().
 * Return: the job, or NULL for a process in no job.
 */
struct ew_job *ew_res_job(const struct rdma_restrack_entry *res)
{
	u64 cgid;

	return ew_job_lookup_by_cgroup(task_dfl_cgroup(res->task), &cgid);
}

/*
 * Set on this CPU while ew_restrack_get_qp_unhidden() looks a QP up: the
 * restrack hooks let this module's own lookups through (it judges the
 * owner itself), without the visibility rule's job lookups.
 */
static DEFINE_PER_CPU(bool, ew_restrack_own);

/**
 * ew_restrack_own_lookup() - is this the module's own restrack lookup?
 *
 * Context: the restrack hooks.
 */
bool ew_restrack_own_lookup(void)
{
	return in_task() && this_cpu_read(ew_restrack_own);
}

/*
 * rdma_restrack_get_byid() of a QP, seen by nobody's visibility rule. It
 * does not sleep (the restrack xarray's lock), so the flag stays with this
 * task for the call.
 */
static struct rdma_restrack_entry *
ew_restrack_get_qp_unhidden(struct ib_device *dev, u32 qpn)
{
	struct rdma_restrack_entry *res;

	preempt_disable();
	this_cpu_write(ew_restrack_own, true);
	res = rdma_restrack_get_byid(dev, RDMA_RESTRACK_QP, qpn);
	this_cpu_write(ew_restrack_own, false);
	preempt_enable();
	return res;
}

/**
 * ew_local_dest_dev() - the device of this node a destination GID ends on
 * @dev: the device of the QP or address handle that aims at @gid
 * @gid: the destination GID, 16 bytes, network order
 * @ambiguous: set if @gid is not @dev's but more than one other device's
 *
 * A GID may be on several devices at once: an address of an upper device
 * (VLAN, macvlan, MACsec) has a GID on the device of its lower netdev as
 * well as on a device bound to the upper one. A packet to one of its own
 * GIDs never leaves the sending device: soft-RoCE hands it back to itself
 * (by destination MAC, before any GID check), a NIC loops it back. So the
 * connect ends on @dev when @gid is @dev's, whichever other device has it
 * too; else on the one device that has it. With several such devices the
 * answer is not known: the caller must refuse.
 *
 * One probe of the set, its whole chain; while the set may be incomplete,
 * @dev's own table too, so that loopback on one device is never taken for
 * a remote destination.
 *
 * Context: rcu_read_lock(); the device stays valid until it is dropped.
 * Return: the device, or NULL if @gid is not one of this node's.
 */
struct ib_device *ew_local_dest_dev(struct ib_device *dev, const u8 *gid,
				    bool *ambiguous)
{
	struct ib_device *ldev = NULL;
	bool several = false;
	struct ew_local_gid *e;

	hash_for_each_possible_rcu(ew_local_gids, e, node,
				   ew_local_gid_hash(gid)) {
		if (!ew_local_gid_equal(e->gid, gid))
			continue;
		if (e->dev == dev) {
			ldev = dev;
			several = false;
			break;
		}
		if (ldev && ldev != e->dev)
			several = true;
		ldev = e->dev;
	}
	if (ldev != dev && READ_ONCE(ew_local_gids_incomplete) &&
	    ew_gid_on_dev(dev, gid)) {
		ldev = dev;
		several = false;
	}
	*ambiguous = several;
	return ldev;
}

/**
 * ew_res_is_jobs() - whether a process of @job created RDMA object @res
 * @res: the object's restrack entry
 * @job: a job
 *
 * A kernel object, or one whose creator is unknown, is nobody's job's.
 * Context: rcu_read_lock().
 */
bool ew_res_is_jobs(const struct rdma_restrack_entry *res,
		    const struct ew_job *job)
{
	return res->user && res->task && ew_res_job(res) == job;
}

/**
 * ew_res_is_no_jobs() - whether no job's process created RDMA object @res
 * @res: the object's restrack entry
 *
 * The kernel did, or a process in no job. A user object whose creator is
 * unknown may be a job's: not counted.
 * Context: rcu_read_lock().
 */
bool ew_res_is_no_jobs(const struct rdma_restrack_entry *res)
{
	return !res->user || (res->task && !ew_res_job(res));
}

/**
 * ew_restrack_qp_exists() - whether a QP of @dev has number @qpn, by the
 * RDMA core's own table
 * @dev: the device
 * @qpn: the QP number
 *
 * Context: rcu_read_lock(); atomic-safe (takes the restrack table lock).
 */
bool ew_restrack_qp_exists(struct ib_device *dev, u32 qpn)
{
	struct rdma_restrack_entry *res;

	res = ew_restrack_get_qp_unhidden(dev, qpn);
	if (IS_ERR(res))
		return false;
	rdma_restrack_put(res);
	return true;
}

/**
 * ew_restrack_qp_is_jobs() - whether QP @qpn of @dev is @job's, by the
 * RDMA core's own table
 * @dev: a device of this node
 * @qpn: the QP number
 * @job: a job
 *
 * Context: rcu_read_lock(); atomic-safe (takes the restrack table lock).
 * Return: false also when no QP has that number.
 */
bool ew_restrack_qp_is_jobs(struct ib_device *dev, u32 qpn,
			    const struct ew_job *job)
{
	struct rdma_restrack_entry *res;
	bool mine;

	res = ew_restrack_get_qp_unhidden(dev, qpn);
	if (IS_ERR(res))
		return false;
	mine = ew_res_is_jobs(res, job);
	rdma_restrack_put(res);
	return mine;
}

/**
 * ew_restrack_qp_is_no_jobs() - whether QP @qpn of @dev exists and no job's
 * process created it (the kernel did, or a process in no job)
 * @dev: a device of this node
 * @qpn: the QP number
 * @user: a process in no job did; not the kernel (a kernel protocol's QP,
 *	or an XRC target, which the core keeps as the kernel's whoever asked)
 *
 * A user QP whose creator is unknown may be a job's: not counted.
 * Context: rcu_read_lock(); atomic-safe (takes the restrack table lock).
 */
bool ew_restrack_qp_is_no_jobs(struct ib_device *dev, u32 qpn, bool user)
{
	struct rdma_restrack_entry *res;
	bool none;

	res = ew_restrack_get_qp_unhidden(dev, qpn);
	if (IS_ERR(res))
		return false;
	none = ew_res_is_no_jobs(res) && (!user || res->user);
	rdma_restrack_put(res);
	return none;
}

/**
 * ew_restrack_qp_none_or_callers() - whether QP @qpn of @dev does not
 * exist, or the caller could name it: @job's, or for no job (@job NULL)
 * a user QP of no job's
 * @dev: a device of this node
 * @qpn: the QP number
 * @job: the caller's job, or NULL
 *
 * Context: rcu_read_lock(); atomic-safe (takes the restrack table lock).
 */
bool ew_restrack_qp_none_or_callers(struct ib_device *dev, u32 qpn,
				    const struct ew_job *job)
{
	struct rdma_restrack_entry *res;
	bool ok;

	res = ew_restrack_get_qp_unhidden(dev, qpn);
	if (IS_ERR(res))
		return true;
	ok = job ? ew_res_is_jobs(res, job) :
		   ew_res_is_no_jobs(res) && res->user;
	rdma_restrack_put(res);
	return ok;
}

/**
 * ew_restrack_user_qps() - the next user QPs of a device, by the RDMA core's
 * own table
 * @dev: a registered device
 * @next: the QP number to start from; moved past the last one returned
 * @out: filled with up to @max QPs: pointer and number, no reference held
 * @max: room in @out
 *
 * A QP returned may be destroyed at any time after: its pointer serves only
 * to compare with ew_restrack_qp_hold()'s and to pick its modify lock.
 *
 * Context: process context.
 * Return: how many were filled; fewer than @max once the table is done.
 */
unsigned int ew_restrack_user_qps(struct ib_device *dev, unsigned long *next,
				  struct ew_core_qp *out, unsigned int max)
{
	struct xarray *xa = ew_restrack_xa(dev, RDMA_RESTRACK_QP);
	struct rdma_restrack_entry *res;
	unsigned int n = 0;
	unsigned long id;

	xa_lock(xa);
	xa_for_each_start(xa, id, res, *next) {
		if (n == max)
			break;
		*next = id + 1;
		if (!res->user)
			continue;
		out[n].qp = container_of(res, struct ib_qp, res);
		out[n].qpn = id;
		n++;
	}
	xa_unlock(xa);
	return n;
}

/**
 * ew_restrack_qp_hold() - a QP of a device by number, held
 * @dev: a registered device
 * @qpn: the QP number
 *
 * Return: the QP, with a reference on its restrack entry
 * (rdma_restrack_put(&qp->res)), or NULL if no QP has that number.
 */
struct ib_qp *ew_restrack_qp_hold(struct ib_device *dev, u32 qpn)
{
	struct rdma_restrack_entry *res = ew_restrack_get_qp_unhidden(dev, qpn);

	return IS_ERR(res) ? NULL : container_of(res, struct ib_qp, res);
}
