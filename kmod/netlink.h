/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_NETLINK_H
#define _EW_NETLINK_H

#include <net/genetlink.h>
#include "netlink-gen.h"

extern struct genl_family ew_genl_family;

int ew_netlink_init(void);
void ew_netlink_exit(void);

#endif /* _EW_NETLINK_H */
