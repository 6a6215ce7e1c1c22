/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_REGISTRY_H
#define _EW_REGISTRY_H

#include <linux/list.h>
#include <linux/rcupdate.h>
#include <rdma/ib_verbs.h>

/**
 * struct ew_dev - an RDMA device known to eastwest
 * @list: entry in the registry's device list (RCU, writers hold ew_registry_lock)
 * @ibdev: the RDMA core's device; valid until our ib_client remove() returns
 * @event_handler: port/GID/P_Key change notifications from the RDMA core
 * @rcu: deferred free
 * @qpn_last: QPN of the last user QP seen entering INIT
 * @qpn_observed: user QPs seen entering INIT
 * @qpn_sequential: those whose QPN followed the previous one
 */
struct ew_dev {
	struct list_head list;
	struct ib_device *ibdev;
	struct ib_event_handler event_handler;
	atomic_t qpn_last;
	atomic_t qpn_observed;
	atomic_t qpn_sequential;
	struct rcu_head rcu;
};

struct notifier_block;

int ew_registry_register_notifier(struct notifier_block *nb);
void ew_registry_unregister_notifier(struct notifier_block *nb);
int ew_registry_init(void);
void ew_registry_exit(void);
void ew_registry_observe_qpn(struct ib_device *ibdev, u32 qpn);
struct ew_dev *ew_registry_next_twin(const struct ib_device *ibdev,
				     struct ew_dev *pos);

void ew_registry_lock(void);
void ew_registry_unlock(void);
struct ew_dev *ew_registry_nth(unsigned int n);
struct ew_dev *ew_registry_find_by_index(u32 index);
struct ew_dev *ew_registry_find_by_name(const char *name);

#endif /* _EW_REGISTRY_H */
