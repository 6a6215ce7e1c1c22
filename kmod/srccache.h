/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_SRCCACHE_H
#define _EW_SRCCACHE_H

#include <linux/types.h>

struct ib_device;
struct ew_src;
struct net;
struct notifier_block;

int ew_src_resolve(struct ib_device *dev, u32 port, u32 sgid_index,
		   struct ew_src *src, u8 *sgid);
int ew_src_lookup(struct ib_device *dev, u32 port, u32 sgid_index,
		  struct ew_src *src, u8 *sgid);
int ew_src_cache_refresh(struct ib_device *dev);
void ew_src_incomplete_set(void);
bool ew_src_net_has_gids(const struct net *net);
void ew_src_cache_forget(struct ib_device *dev);
int ew_src_register_notifier(struct notifier_block *nb);
void ew_src_unregister_notifier(struct notifier_block *nb);
int ew_src_cache_init(void);
void ew_src_cache_exit(void);

#endif /* _EW_SRCCACHE_H */
