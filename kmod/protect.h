/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_PROTECT_H
#define _EW_PROTECT_H

#include <linux/types.h>

struct ib_device;
struct net_device;
struct netlink_ext_ack;
struct notifier_block;
struct sk_buff;

/**
 * struct ew_protection - how the traffic of a path (or netdev) is protected
 * @flags: enum eastwest_protection bits
 * @macsec_ifindex: the encrypting MACsec netdev in the stack, 0 if none
 * @macsec_offload: enum eastwest_macsec_offload of that netdev
 * @ipsec_spi: SPI (host order) of the outermost ESP state on the route
 */
struct ew_protection {
	u32 flags;
	u32 macsec_ifindex;
	u32 macsec_offload;
	u32 ipsec_spi;
};

void ew_netdev_protection(const struct ib_device *ibdev,
			  struct net_device *ndev, struct ew_protection *prot);
u32 ew_netdev_offload_caps(struct net_device *ndev);
int ew_path_protection(struct ib_device *ibdev, u32 port, u32 sgid_index,
		       const u8 *dgid, struct ew_protection *prot,
		       u32 *ifindex);
int ew_fabric_set(u32 ifindex, bool physical, struct netlink_ext_ack *extack);
int ew_fabric_put_physical(struct sk_buff *skb, int attrtype);
int ew_protect_register_notifier(struct notifier_block *nb);
void ew_protect_unregister_notifier(struct notifier_block *nb);
int ew_protect_init(void);
void ew_protect_exit(void);

#endif /* _EW_PROTECT_H */
