/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_NODES_H
#define _EW_NODES_H

#include <linux/types.h>

struct netlink_ext_ack;
struct sk_buff;

/* Most revoked addresses kept at once (a revoked node has a few GIDs). */
#define EW_NODES_REVOKED_MAX	65536

bool ew_node_revoked(const u8 *gid);
int ew_nodes_change(const u8 *addrs, unsigned int n, bool revoke,
		    struct netlink_ext_ack *extack);
int ew_nodes_put_revoked(struct sk_buff *skb, int attrtype);
void ew_nodes_exit(void);

#endif /* _EW_NODES_H */
