// SPDX-License-Identifier: GPL-2.0
/*
 * Registry of RDMA devices: an ib_client the RDMA core calls for every device
 * that appears or goes away. Policy decisions read the device's P_Key cache
 * directly and its GIDs through the source cache (srccache.c), which the
 * registry keeps current; it keeps the list that netlink dumps and the
 * event handlers that tell the chain ew_registry_register_notifier()
 * subscribes to when a device's GID or P_Key table changed (the QP records
 * re-validate there).
 */

#include <linux/eastwest.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "events.h"
#include "fault.h"
#include "localgid.h"
#include "qpnrand.h"
#include "registry.h"
#include "srccache.h"

/* DOC: Locking - ew_registry_mutex serialises writers of ew_devices; readers use RCU. */
static DEFINE_MUTEX(ew_registry_mutex);
static LIST_HEAD(ew_devices);

static struct ib_client ew_ib_client;
static BLOCKING_NOTIFIER_HEAD(ew_registry_chain);

/**
 * ew_registry_register_notifier() - be told that a device's GID or P_Key
 * table changed
 * @nb: called with the struct ib_device as data, from the core's event
 *	work (process context); may sleep
 */
int ew_registry_register_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&ew_registry_chain, nb);
}

/**
 * ew_registry_unregister_notifier() - stop telling @nb
 * @nb: a registered block
 */
void ew_registry_unregister_notifier(struct notifier_block *nb)
{
	blocking_notifier_chain_unregister(&ew_registry_chain, nb);
}

static void ew_dev_free_rcu(struct rcu_head *rcu)
{
	kfree(container_of(rcu, struct ew_dev, rcu));
}

static void ew_dev_event(struct ib_event_handler *handler, struct ib_event *event)
{
	switch (event->event) {
	case IB_EVENT_GID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
		/*
		 * The core updated its caches before dispatching: the same
		 * indices may now name another netdev or P_Key, or nothing.
		 */
		pr_debug("%s: port %u: %s\n", dev_name(&event->device->dev),
			 event->element.port_num, ib_event_msg(event->event));
		if (event->event == IB_EVENT_GID_CHANGE &&
		    ew_local_gids_refresh(event->device))
			pr_warn_ratelimited("%s: cannot read the GID table: local destinations may be missed\n",
					    dev_name(&event->device->dev));
		/* Before the records are checked: new modifies read it. */
		if (event->event == IB_EVENT_GID_CHANGE &&
		    ew_src_cache_refresh(event->device))
			pr_warn_ratelimited("%s: out of memory for the source cache: GIDs are resolved one by one\n",
					    dev_name(&event->device->dev));
		blocking_notifier_call_chain(&ew_registry_chain, event->event,
					     event->device);
		break;
	default:
		break;
	}
}

/*
 * A device the IB core gave us but whose registration failed (no memory):
 * the core forgets our client for it, so its GIDs never reach the set of
 * this node's GIDs; the set is marked incomplete, so that a destination on
 * the QP's own device is still found local by its own table (a loopback
 * onto another job's QP is never taken for a remote destination). From
 * another device of the node its GIDs still look remote.
 */
static int ew_dev_add_failed(struct ib_device *ibdev, int ret)
{
	ew_local_gids_incomplete_set();
	ew_src_incomplete_set();
	pr_err("%s: not registered (%d): its GIDs are found local only from its own QPs\n",
	       dev_name(&ibdev->dev), ret);
	return ret;
}

static int ew_dev_add(struct ib_device *ibdev)
{
	struct ew_dev *dev;
	int ret;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	EW_FAIL_ALLOC(dev, kfree(dev));
	if (!dev)
		return ew_dev_add_failed(ibdev, -ENOMEM);

	dev->ibdev = ibdev;
	ew_qpnrand_dev_add(ibdev);
	/*
	 * The GIDs first, then the handler that keeps them current: a change
	 * between the two is read by the handler's first refresh at the
	 * latest (the core dispatches after updating its cache).
	 */
	ret = ew_src_cache_refresh(ibdev);
	if (ret) {
		kfree(dev);
		return ew_dev_add_failed(ibdev, ret);
	}
	ret = ew_local_gids_refresh(ibdev);
	if (ret) {
		ew_src_cache_forget(ibdev);
		kfree(dev);
		return ew_dev_add_failed(ibdev, ret);
	}
	INIT_IB_EVENT_HANDLER(&dev->event_handler, ibdev, ew_dev_event);
	ib_register_event_handler(&dev->event_handler);
	ib_set_client_data(ibdev, &ew_ib_client, dev);

	mutex_lock(&ew_registry_mutex);
	list_add_tail_rcu(&dev->list, &ew_devices);
	mutex_unlock(&ew_registry_mutex);

	pr_info("%s: registered, ports %u-%u\n", dev_name(&ibdev->dev),
		rdma_start_port(ibdev), rdma_end_port(ibdev));
	ew_event_dev(EASTWEST_CMD_DEV_ADD_NTF, ibdev);
	return 0;
}

static void ew_dev_remove(struct ib_device *ibdev, void *client_data)
{
	struct ew_dev *dev = client_data;

	mutex_lock(&ew_registry_mutex);
	list_del_rcu(&dev->list);
	mutex_unlock(&ew_registry_mutex);

	ib_unregister_event_handler(&dev->event_handler);
	/*
	 * Waits for RCU readers: none that found this device in the list
	 * (ew_registry_next_twin()) or among the local GIDs still uses it
	 * once this returns and the core may free it.
	 */
	ew_local_gids_forget(ibdev);
	ew_src_cache_forget(ibdev);
	pr_info("%s: unregistered\n", dev_name(&ibdev->dev));
	ew_event_dev(EASTWEST_CMD_DEV_DEL_NTF, ibdev);
	/*
	 * The core unpublishes the client data only after this returns: a
	 * hook that loads it after call_rcu() would not be waited for.
	 */
	ib_set_client_data(ibdev, &ew_ib_client, NULL);
	call_rcu(&dev->rcu, ew_dev_free_rcu);
}

static struct ib_client ew_ib_client = {
	.name = "eastwest",
	.add = ew_dev_add,
	.remove = ew_dev_remove,
	/* Police every device, including those without kernel verbs. */
	.no_kverbs_req = true,
};

/**
 * ew_registry_observe_qpn() - record the QPN of a user QP entering INIT
 * @ibdev: its device
 * @qpn: its number
 *
 * Feeds the QPN predictability audit: sequential QPNs let an attacker who
 * sees one connection guess the next (ReDMArk). Context: any (the hooks).
 */
void ew_registry_observe_qpn(struct ib_device *ibdev, u32 qpn)
{
	struct ew_dev *dev = ib_get_client_data(ibdev, &ew_ib_client);
	u32 last;

	if (!dev)
		return;
	last = atomic_xchg(&dev->qpn_last, qpn);
	if (atomic_inc_return(&dev->qpn_observed) > 1 && qpn == last + 1)
		atomic_inc(&dev->qpn_sequential);
}

/**
 * ew_registry_next_twin() - the next registered device other than @ibdev
 * that has @ibdev's node GUID
 * @ibdev: a device
 * @pos: the device last returned, or NULL for the first
 *
 * The IB CM tells connection ends apart by node GUID and QP number, and
 * soft-RoCE takes a device's GUID from its netdev's MAC address, which an
 * upper device (MACsec, VLAN, bond) shares with its lower one: an rxe on a
 * netdev and one on its MACsec link number their QPs apart but are one
 * device to another node's CM. A device whose registration failed is not
 * in the list.
 *
 * Context: rcu_read_lock(); what it returns is valid until
 * rcu_read_unlock() (ew_dev_remove() waits for readers).
 * Return: the device, or NULL after the last one.
 */
struct ew_dev *ew_registry_next_twin(const struct ib_device *ibdev,
				     struct ew_dev *pos)
{
	pos = pos ? list_next_or_null_rcu(&ew_devices, &pos->list,
					  struct ew_dev, list) :
		    list_first_or_null_rcu(&ew_devices, struct ew_dev, list);
	for (; pos; pos = list_next_or_null_rcu(&ew_devices, &pos->list,
						struct ew_dev, list))
		if (pos->ibdev != ibdev &&
		    pos->ibdev->node_guid == ibdev->node_guid)
			return pos;
	return NULL;
}

/**
 * ew_registry_lock() - hold the device list still (and devices registered)
 */
void ew_registry_lock(void)
{
	mutex_lock(&ew_registry_mutex);
}

/**
 * ew_registry_unlock() - release ew_registry_lock()
 */
void ew_registry_unlock(void)
{
	mutex_unlock(&ew_registry_mutex);
}

/**
 * ew_registry_nth() - the @n-th device in registration order, for dumps
 * @n: position from 0
 *
 * Context: under ew_registry_lock().
 */
struct ew_dev *ew_registry_nth(unsigned int n)
{
	struct ew_dev *dev;

	lockdep_assert_held(&ew_registry_mutex);
	list_for_each_entry(dev, &ew_devices, list)
		if (!n--)
			return dev;
	return NULL;
}

/**
 * ew_registry_find_by_index() - a device by RDMA core index (0 is valid)
 * @index: device index
 *
 * Context: under ew_registry_lock().
 */
struct ew_dev *ew_registry_find_by_index(u32 index)
{
	struct ew_dev *dev;

	lockdep_assert_held(&ew_registry_mutex);
	list_for_each_entry(dev, &ew_devices, list)
		if (dev->ibdev->index == index)
			return dev;
	return NULL;
}

/**
 * ew_registry_find_by_name() - a device by name
 * @name: device name
 *
 * Context: under ew_registry_lock().
 */
struct ew_dev *ew_registry_find_by_name(const char *name)
{
	struct ew_dev *dev;

	lockdep_assert_held(&ew_registry_mutex);
	list_for_each_entry(dev, &ew_devices, list)
		if (!strcmp(dev_name(&dev->ibdev->dev), name))
			return dev;
	return NULL;
}

/**
 * ew_registry_init() - register the ib_client; add() runs for existing devices
 */
int ew_registry_init(void)
{
	int ret = ew_src_cache_init();

	if (ret)
		return ret;
	ret = ib_register_client(&ew_ib_client);
	if (ret)
		ew_src_cache_exit();
	return ret;
}

/**
 * ew_registry_exit() - unregister; remove() runs for every device
 */
void ew_registry_exit(void)
{
	ib_unregister_client(&ew_ib_client);
	ew_src_cache_exit();
	/* Wait for ew_dev_free_rcu() callbacks before the module text goes. */
	rcu_barrier();
}
