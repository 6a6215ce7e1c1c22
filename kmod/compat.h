/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels eastwest supports (Debian 12: 6.1 and 6.12)
 * live here and nowhere else: the rest of the module is written against the
 * newer API and this header supplies it on older kernels. It is force-included
 * by Kbuild into every object.
 */
#ifndef _EW_COMPAT_H
#define _EW_COMPAT_H

#include <linux/types.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#include <linux/netlink.h>
#include <linux/spinlock.h>

/*
 * Formatted extack messages (NL_SET_ERR_MSG_FMT_MOD, 6.2+) keep their text in
 * struct netlink_ext_ack itself; 6.1's has no buffer and the message must
 * outlive the handler (netlink_ack() copies it after we return). Use a ring
 * of static buffers: a message is only overwritten after 64 newer ones, far
 * more than can be in flight between a handler and its ack.
 */
#define NETLINK_MAX_FMTMSG_LEN	80
#define EW_COMPAT_EXTACK_SLOTS	64

char *ew_compat_extack_buf(void);

#define NL_SET_ERR_MSG_FMT_MOD(extack, fmt, args...) do {		\
	struct netlink_ext_ack *__extack = (extack);			\
	char *__buf;							\
									\
	if (!__extack)							\
		break;							\
	__buf = ew_compat_extack_buf();					\
	snprintf(__buf, NETLINK_MAX_FMTMSG_LEN, KBUILD_MODNAME ": " fmt,	\
		 ##args);						\
	__extack->_msg = __buf;						\
} while (0)

/* genlmsg_iput() (6.2+): a reply header for the request in @info. */
#include <net/genetlink.h>
extern struct genl_family ew_genl_family;
static inline void *genlmsg_iput(struct sk_buff *skb,
				 const struct genl_info *info)
{
	return genlmsg_put(skb, info->snd_portid, info->snd_seq,
			   &ew_genl_family, 0, info->genlhdr->cmd);
}

/* Dumps' parsed request attributes: genl_info_dump(cb)->attrs on 6.2+. */
#define genl_info_dump(cb)	genl_dumpit_info(cb)
#endif /* < 6.2 */

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 7, 0)
/* Renamed in 6.7; x86 defines both as setting the saved pt_regs' ip. */
#define ftrace_regs_set_instruction_pointer(fregs, ip) \
	ftrace_instruction_pointer_set(fregs, ip)
#endif

#ifdef CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS
#include <linux/ftrace.h>
#ifndef ftrace_regs_get_argument
/* 6.1's x86 struct ftrace_regs is a pt_regs, without this accessor. */
#define ftrace_regs_get_argument(fregs, n) \
	regs_get_kernel_argument(&(fregs)->regs, n)
#endif
#endif

#ifdef MODULE
#include <linux/module.h>

/*
 * Whether @addr is in @mod's core text, where its functions are: one range
 * check, where within_module() walks every section of the module.
 * 6.4 replaced the module's layouts by memory regions.
 */
static inline bool ew_within_module_text(unsigned long addr,
					 const struct module *mod)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	return within_module_mem_type(addr, mod, MOD_TEXT);
#else
	return addr - (unsigned long)mod->core_layout.base <
	       mod->core_layout.text_size;
#endif
}
#endif /* MODULE */

struct net_device;

/*
 * Can the netdev's driver offload whole ESP packets (XFRM_DEV_OFFLOAD_PACKET)?
 * Packet offload, and the xfrmdev_ops->xdo_dev_policy_add() that marks a
 * driver capable of it, arrived in 6.2: never on older kernels.
 */
bool ew_xfrmdev_packet_offload(const struct net_device *dev);

#endif /* _EW_COMPAT_H */
