// SPDX-License-Identifier: GPL-2.0
/*
 * Source GIDs: what a (device, port, GID index) names, for the rules on
 * source netdevs and for keyed PSNs: the GID itself and its netdev's
 * ifindex, VLAN id and VRF.
 *
 * DOC: Source cache
 *
 * Every address vector a policed modify or create-ah carries names its
 * source by GID index. Resolving it through the RDMA core (a reference on
 * the GID entry under the table's lock, then its netdev) is the largest
 * single step of a policed modify, so each device keeps a table of every
 * index resolved ahead of time, published with RCU: a lookup is one array
 * read. The table follows the core's:
 *
 * - It is rebuilt on every GID change of the device (registry.c), before
 *   the records of live QPs are checked again, which they are with fresh
 *   resolutions (ew_src_resolve()), never from this cache.
 * - A netdev event that can change what an unchanged GID entry resolves
 *   to (a VRF enslaving or releasing the netdev: CHANGEUPPER; an ifindex
 *   going or coming) makes every table stale at once (a generation), and a
 *   work item rebuilds them. A stale table is not read: lookups resolve
 *   afresh until the rebuild. When the upper was a VRF, the work then tells
 *   the chain ew_src_register_notifier() subscribes to (the records: a QP
 *   whose source netdev left or joined a VRF is judged again), since no GID
 *   change will.
 * - Only entries that resolved are served; any other index (empty, out of
 *   range, a port without a table) is resolved afresh, so that its error
 *   is the core's.
 *
 * - The network namespaces of the GIDs' netdevs are kept with each table:
 *   netdev and XFRM events elsewhere (an unprivileged user's own
 *   namespace) change nothing eastwest judges, and are not followed
 *   (ew_src_net_has_gids()), so that nobody can make the node rebuild its
 *   tables or revalidate its connections at will.
 *
 * Between the core's change and the rebuild a lookup may return what the
 * index named just before: the same window as a resolution made just
 * before the change, which the revocation pass after every GID change
 * closes (a modify in flight across it is checked again at commit,
 * qptrack.c "Decisions in flight").
 */

#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/l3mdev.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "fault.h"
#include "policy.h"
#include "srccache.h"

enum ew_src_state {
	EW_SRC_NONE,		/* not resolved: ask the core */
	EW_SRC_NETDEV,		/* a RoCE GID: @src holds its netdev */
	EW_SRC_NO_NETDEV,	/* InfiniBand: no netdev behind the GID */
};

struct ew_src_entry {
	u8 state;		/* enum ew_src_state */
	u8 sgid[16];
	struct ew_src src;
};

/**
 * struct ew_src_table - one device's resolved GID indices
 * @dev: the device (valid while the table is in ew_src_tables)
 * @gen: ew_src_gen when the table was read; a table of another is stale
 * @start_port: the device's first port
 * @n_ports: how many ports
 * @per_port: entries per port (the largest GID table of the device)
 * @n_nets: how many of @nets are set
 * @nets: the namespaces of the entries' netdevs, each once (compared,
 *	never dereferenced); room for one per entry, after @ents
 * @rcu: deferred free
 * @ents: @n_ports * @per_port entries, port-major
 */
struct ew_src_table {
	struct ib_device *dev;
	unsigned int gen;
	u32 start_port;
	u32 n_ports;
	u32 per_port;
	u32 n_nets;
	const struct net **nets;
	struct rcu_head rcu;
	struct ew_src_entry ents[];
};

/* Tables by device index; writers hold ew_src_lock. */
static DEFINE_XARRAY(ew_src_tables);
static DEFINE_MUTEX(ew_src_lock);

/*
 * The same tables by device index modulo EW_SRC_SLOTS, for lookups: one
 * array read under the caller's RCU read lock, where xa_load() takes its
 * own and walks the tree. Of two devices whose indices share a slot, one
 * has it and the other is resolved through the core until the slot frees.
 * Writers hold ew_src_lock; a slot holds NULL or a table in ew_src_tables.
 */
#define EW_SRC_SLOTS	64
static struct ew_src_table __rcu *ew_src_slots[EW_SRC_SLOTS];
static atomic_t ew_src_gen = ATOMIC_INIT(0);

/*
 * A device's GIDs may be missing from every table (it has none: out of
 * memory, or it was never registered): every namespace may hold them.
 */
static bool ew_src_incomplete;

/* A netdev joined or left a VRF since the rebuild work last ran. */
static atomic_t ew_src_vrf_changed = ATOMIC_INIT(0);
static BLOCKING_NOTIFIER_HEAD(ew_src_chain);

/**
 * ew_src_register_notifier() - be told when a netdev joined or left a VRF
 * @nb: called in process context, after the tables were rebuilt
 *
 * Return: 0 or a negative errno.
 */
int ew_src_register_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&ew_src_chain, nb);
}

/**
 * ew_src_unregister_notifier() - stop telling @nb
 * @nb: a registered block
 */
void ew_src_unregister_notifier(struct notifier_block *nb)
{
	blocking_notifier_chain_unregister(&ew_src_chain, nb);
}

/* ew_src_resolve(), and the namespace of the netdev in @net if not NULL. */
static int __ew_src_resolve(struct ib_device *dev, u32 port, u32 sgid_index,
			    struct ew_src *src, u8 *sgid,
			    const struct net **net)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	int ret = 0;

	if (!rdma_is_port_valid(dev, port))
		return -EINVAL;
	attr = rdma_get_gid_attr(dev, port, sgid_index);
	if (IS_ERR(attr))
		return PTR_ERR(attr);
	memcpy(sgid, attr->gid.raw, sizeof(attr->gid.raw));

	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (IS_ERR(ndev)) {
		ret = -ENODEV;
	} else {
		src->ifindex = ndev->ifindex;
		src->vlan = is_vlan_dev(ndev) ? vlan_dev_vlan_id(ndev) : 0;
		src->vrf = l3mdev_master_ifindex_rcu(ndev);
		if (net)
			*net = dev_net(ndev);
	}
	rdma_put_gid_attr(attr);
	return ret;
}

/**
 * ew_src_resolve() - resolve a source GID index through the RDMA core
 * @dev: the device
 * @port: the port
 * @sgid_index: the GID index
 * @src: receives the netdev behind the GID (unless -ENODEV)
 * @sgid: receives the GID, 16 bytes
 *
 * Context: rcu_read_lock() (the netdev is read under it); atomic-safe.
 * Return: 0; -ENODEV if the GID has no netdev (InfiniBand; @sgid is set);
 * another negative errno if the index names no GID.
 */
int ew_src_resolve(struct ib_device *dev, u32 port, u32 sgid_index,
		   struct ew_src *src, u8 *sgid)
{
	return __ew_src_resolve(dev, port, sgid_index, src, sgid, NULL);
}

/**
 * ew_src_lookup() - ew_src_resolve(), from the device's table when it holds
 * the index
 * @dev: the device
 * @port: the port
 * @sgid_index: the GID index
 * @src: as ew_src_resolve()
 * @sgid: as ew_src_resolve()
 *
 * Context: rcu_read_lock(); atomic-safe.
 * Return: as ew_src_resolve().
 */
int ew_src_lookup(struct ib_device *dev, u32 port, u32 sgid_index,
		  struct ew_src *src, u8 *sgid)
{
	const struct ew_src_table *t =
		rcu_dereference(ew_src_slots[dev->index % EW_SRC_SLOTS]);
	const struct ew_src_entry *e;
	u32 p = port - (t ? t->start_port : 0);

	if (!t || t->dev != dev ||
	    t->gen != (unsigned int)atomic_read(&ew_src_gen) ||
	    p >= t->n_ports || sgid_index >= t->per_port)
		return ew_src_resolve(dev, port, sgid_index, src, sgid);
	e = &t->ents[p * t->per_port + sgid_index];
	/* Entries do not change once their table is published. */
	switch (e->state) {
	case EW_SRC_NETDEV:
		*src = e->src;
		memcpy(sgid, e->sgid, sizeof(e->sgid));
		return 0;
	case EW_SRC_NO_NETDEV:
		memcpy(sgid, e->sgid, sizeof(e->sgid));
		return -ENODEV;
	}
	return ew_src_resolve(dev, port, sgid_index, src, sgid);
}

/* Add @net to @t's namespaces unless it is there already. */
static void ew_src_table_add_net(struct ew_src_table *t, const struct net *net)
{
	u32 i;

	for (i = 0; i < t->n_nets; i++)
		if (t->nets[i] == net)
			return;
	t->nets[t->n_nets++] = net;
}

/* Read every GID index of @dev; NULL if out of memory. */
static struct ew_src_table *ew_src_table_read(struct ib_device *dev)
{
	u32 start = rdma_start_port(dev), n = rdma_end_port(dev) - start + 1;
	struct ew_src_table *t;
	u32 port, i, per_port = 0;
	size_t ents, size;

	rdma_for_each_port(dev, port)
		per_port = max_t(u32, per_port,
				 dev->port_data[port].immutable.gid_tbl_len);
	ents = (size_t)n * per_port;
	size = size_add(struct_size(t, ents, ents),
			array_size(ents, sizeof(*t->nets)));
	t = kvzalloc(size, GFP_KERNEL);
	EW_FAIL_ALLOC(t, kvfree(t));
	if (!t)
		return NULL;
	t->dev = dev;
	t->nets = (const struct net **)&t->ents[ents];
	/* Read before the entries: an event meanwhile makes the table stale. */
	t->gen = atomic_read(&ew_src_gen);
	t->start_port = start;
	t->n_ports = n;
	t->per_port = per_port;
	rdma_for_each_port(dev, port) {
		u32 len = dev->port_data[port].immutable.gid_tbl_len;

		for (i = 0; i < len; i++) {
			struct ew_src_entry *e =
				&t->ents[(port - start) * per_port + i];
			const struct net *net = NULL;
			int ret;

			rcu_read_lock();
			ret = __ew_src_resolve(dev, port, i, &e->src, e->sgid,
					       &net);
			rcu_read_unlock();
			if (!ret) {
				e->state = EW_SRC_NETDEV;
				ew_src_table_add_net(t, net);
			} else if (ret == -ENODEV) {
				e->state = EW_SRC_NO_NETDEV;
			}
		}
		cond_resched();
	}
	return t;
}

static struct ew_src_table __rcu **ew_src_slot(u32 index)
{
	return &ew_src_slots[index % EW_SRC_SLOTS];
}

/*
 * Give a freed slot to a table waiting for it (its device shares the slot).
 * Context: holds ew_src_lock.
 */
static void ew_src_slot_refill(u32 freed)
{
	struct ew_src_table *t;
	unsigned long index;

	xa_for_each(&ew_src_tables, index, t) {
		if (ew_src_slot(index) == ew_src_slot(freed)) {
			rcu_assign_pointer(*ew_src_slot(index), t);
			return;
		}
	}
}

/*
 * Publish @t as @dev's table, or drop the table (@t NULL). Returns 0, or
 * -ENOMEM if @t could not be published: @dev then has no table.
 * Context: holds ew_src_lock.
 */
static int ew_src_table_set(struct ib_device *dev, struct ew_src_table *t)
{
	struct ew_src_table __rcu **slot = ew_src_slot(dev->index);
	struct ew_src_table *old, *cur;
	int ret = 0;

	lockdep_assert_held(&ew_src_lock);
	old = t ? xa_store(&ew_src_tables, dev->index, t, GFP_KERNEL) :
		  xa_erase(&ew_src_tables, dev->index);
	if (xa_is_err(old)) {
		ret = xa_err(old);
		kvfree(t);
		t = NULL;
		old = xa_erase(&ew_src_tables, dev->index);
	}
	cur = rcu_dereference_protected(*slot, lockdep_is_held(&ew_src_lock));
	if (t && (!cur || cur->dev == dev)) {
		rcu_assign_pointer(*slot, t);
	} else if (!t && cur && cur->dev == dev) {
		RCU_INIT_POINTER(*slot, NULL);
		ew_src_slot_refill(dev->index);
	}
	if (old)
		kvfree_rcu(old, rcu);
	return ret;
}

/**
 * ew_src_incomplete_set() - a device's GIDs may be in no table
 *
 * For a device whose table could not be read, or that was never
 * registered: ew_src_net_has_gids() then takes every namespace for one.
 */
void ew_src_incomplete_set(void)
{
	WRITE_ONCE(ew_src_incomplete, true);
}

/**
 * ew_src_net_has_gids() - whether a GID of a device may have its netdev in
 * @net
 * @net: a network namespace
 *
 * The initial namespace always may. Another does if a table holds a GID
 * whose netdev is there, stale or not, or while a device has no table.
 * Netdev and XFRM events of any other namespace change nothing the module
 * judges: what a GID resolves to, and a path's protection, are read in the
 * GID's netdev's namespace. A stale table does not open the filter to
 * every namespace: the events of one that is new to the GIDs (a netdev
 * moved there) come with GID changes, whose table refresh and revocation
 * pass judge afresh; and an open filter would let any user's own
 * namespace make the tables stale again, event after event.
 * Context: any (rcu_read_lock() taken here).
 */
bool ew_src_net_has_gids(const struct net *net)
{
	const struct ew_src_table *t;
	unsigned long index;
	bool found = false;
	u32 i;

	if (net_eq(net, &init_net) || READ_ONCE(ew_src_incomplete))
		return true;
	rcu_read_lock();
	xa_for_each(&ew_src_tables, index, t) {
		for (i = 0; i < t->n_nets && !found; i++)
			found = t->nets[i] == net;
		if (found)
			break;
	}
	rcu_read_unlock();
	return found;
}

/*
 * ew_src_cache_refresh() with ew_src_lock held. Out of memory, @dev has no
 * table (the old one no longer holds): every lookup asks the core.
 */
static int ew_src_cache_refresh_locked(struct ib_device *dev)
{
	struct ew_src_table *t = ew_src_table_read(dev);
	int ret;

	if (!t) {
		ew_src_table_set(dev, NULL);
		ew_src_incomplete_set();
		return -ENOMEM;
	}
	ret = ew_src_table_set(dev, t);
	if (ret)
		ew_src_incomplete_set();
	return ret;
}

/**
 * ew_src_cache_refresh() - read @dev's GID tables again (after a change)
 * @dev: a registered device
 *
 * Context: process context, sleeps.
 * Return: 0, or -ENOMEM: @dev then has no table, and lookups resolve
 * through the core.
 */
int ew_src_cache_refresh(struct ib_device *dev)
{
	int ret;

	mutex_lock(&ew_src_lock);
	ret = ew_src_cache_refresh_locked(dev);
	mutex_unlock(&ew_src_lock);
	return ret;
}

/**
 * ew_src_cache_forget() - drop @dev's table (the device goes)
 * @dev: a device being removed
 *
 * Context: process context, sleeps.
 */
void ew_src_cache_forget(struct ib_device *dev)
{
	mutex_lock(&ew_src_lock);
	ew_src_table_set(dev, NULL);
	mutex_unlock(&ew_src_lock);
}

/* Rebuild every table after a netdev event made them all stale. */
static void ew_src_rebuild_worker(struct work_struct *work)
{
	/* Taken before the rebuild: a VRF change after it queues another run. */
	bool vrf = atomic_xchg(&ew_src_vrf_changed, 0);
	struct ew_src_table *t;
	unsigned long index;

	/* Tests keep the tables stale here (the fault build only). */
	ew_fault_rebuild_delay();
	mutex_lock(&ew_src_lock);
	xa_for_each(&ew_src_tables, index, t)
		if (ew_src_cache_refresh_locked(t->dev))
			pr_warn_ratelimited("%s: out of memory for the source cache: GIDs are resolved one by one\n",
					    dev_name(&t->dev->dev));
	mutex_unlock(&ew_src_lock);
	/* Without ew_src_lock: the records' pass may sleep for long. */
	if (vrf)
		blocking_notifier_call_chain(&ew_src_chain, 0, NULL);
}

static DECLARE_WORK(ew_src_rebuild_work, ew_src_rebuild_worker);

static int ew_src_netdev_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct netdev_notifier_changeupper_info *info = ptr;

	if (!ew_src_net_has_gids(dev_net(netdev_notifier_info_to_dev(ptr))))
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_CHANGEUPPER:
		if (netif_is_l3_master(info->upper_dev))
			atomic_set(&ew_src_vrf_changed, 1);
		fallthrough;
	case NETDEV_REGISTER:
	case NETDEV_UNREGISTER:
		atomic_inc(&ew_src_gen);
		schedule_work(&ew_src_rebuild_work);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block ew_src_netdev_nb = {
	.notifier_call = ew_src_netdev_event,
};

/**
 * ew_src_cache_init() - follow the netdev events that make tables stale
 *
 * Return: 0 or a negative errno.
 */
int ew_src_cache_init(void)
{
	return register_netdevice_notifier(&ew_src_netdev_nb);
}

/**
 * ew_src_cache_exit() - after every device's table was dropped
 */
void ew_src_cache_exit(void)
{
	unregister_netdevice_notifier(&ew_src_netdev_nb);
	cancel_work_sync(&ew_src_rebuild_work);
	/* Every device was removed, and its table forgotten, before. */
	WARN_ON(!xa_empty(&ew_src_tables));
}
