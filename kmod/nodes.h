/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_NODES_H
#define _EW_NODES_H

#include <linux/types.h>

struct netlink_ext_ack;
struct sk_buff;

/*
 * Most revoked addresses kept at once (a revoked node has a few GIDs).
 * config-get returns them all in one message: 2048 of them (40 KiB of
 * attributes) still fit a reply that eastwestctl and default socket
 * buffers take.
 */
#define EW_NODES_REVOKED_MAX	2048

bool ew_node_revoked(const u8 *gid);
int ew_nodes_change(const u8 *addrs, unsigned int n, bool revoke,
		    struct netlink_ext_ack *extack);
int ew_nodes_put_revoked(struct sk_buff *skb, int attrtype);
size_t ew_nodes_revoked_size(void);
void ew_nodes_exit(void);

#endif /* _EW_NODES_H */
