// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-line helpers behind compat.h.
 */

#include <linux/netdevice.h>
#include <linux/spinlock.h>

#include "compat.h"

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
static char ew_extack_ring[EW_COMPAT_EXTACK_SLOTS][NETLINK_MAX_FMTMSG_LEN];
static unsigned int ew_extack_next;
static DEFINE_SPINLOCK(ew_extack_lock);

/**
 * ew_compat_extack_buf() - a buffer for one formatted extack message
 */
char *ew_compat_extack_buf(void)
{
	unsigned int slot;

	spin_lock(&ew_extack_lock);
	slot = ew_extack_next++ % EW_COMPAT_EXTACK_SLOTS;
	spin_unlock(&ew_extack_lock);
	return ew_extack_ring[slot];
}
#endif

bool ew_xfrmdev_packet_offload(const struct net_device *dev)
{
#if defined(CONFIG_XFRM_OFFLOAD) && LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return dev->xfrmdev_ops && dev->xfrmdev_ops->xdo_dev_policy_add;
#else
	return false;
#endif
}
