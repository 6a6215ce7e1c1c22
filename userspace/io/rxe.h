/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Soft-RoCE (rxe) links through RDMA netlink (RDMA_NL_NLDEV, libmnl), the
 * interface of `rdma link add|delete`. Functions return 0 or a negative
 * errno; ew_rxe_err() has the kernel's extended ack text, if it sent one.
 */
#ifndef EW_RXE_H
#define EW_RXE_H

#include <stddef.h>

#define EW_RXE_NAME_MAX 64	/* IB_DEVICE_NAME_MAX */

struct ew_rxe_list {
	char (*name)[EW_RXE_NAME_MAX];
	size_t n, cap;
};

/* The rxe devices bound to netdev @netdev (their sysfs "parent"). */
int ew_rxe_on(const char *netdev, struct ew_rxe_list *l);
void ew_rxe_list_free(struct ew_rxe_list *l);
/* rdma link add @name type rxe netdev @netdev; waits for it in sysfs. */
int ew_rxe_add(const char *name, const char *netdev);
/*
 * Waits up to 10 s until @name's port 1 has a GID on @netdev: the kernel
 * fills a new device's GID table from the netdev's addresses afterwards.
 */
int ew_rxe_wait_gid(const char *name, const char *netdev);
/* rdma link delete @name; waits until it is gone from sysfs. */
int ew_rxe_del(const char *name);
const char *ew_rxe_err(void);

#endif
