/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/eastwest.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_EASTWEST_GEN_H
#define _LINUX_EASTWEST_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/eastwest.h>

/* Common nested types */
extern const struct nla_policy eastwest_cgroup_nl_policy[EASTWEST_A_CGROUP_PAD + 1];
extern const struct nla_policy eastwest_netdev_nl_policy[EASTWEST_A_NETDEV_VRF + 1];
extern const struct nla_policy eastwest_peer_nl_policy[EASTWEST_A_PEER_LID + 1];

extern const struct nla_policy eastwest_job_get_nl_policy[EASTWEST_A_JOB_NAME + 1];

extern const struct nla_policy eastwest_job_new_nl_policy[EASTWEST_A_JOB_PSN_RUN + 1];

extern const struct nla_policy eastwest_job_set_nl_policy[EASTWEST_A_JOB_PSN_RUN + 1];

extern const struct nla_policy eastwest_job_del_nl_policy[EASTWEST_A_JOB_NAME + 1];

extern const struct nla_policy eastwest_peer_add_nl_policy[EASTWEST_A_PEER_LIST_PEER_RECS + 1];

extern const struct nla_policy eastwest_peer_del_nl_policy[EASTWEST_A_PEER_LIST_PEER + 1];

extern const struct nla_policy eastwest_peer_get_nl_policy[EASTWEST_A_PEER_LIST_PEER + 1];

extern const struct nla_policy eastwest_dev_get_nl_policy[EASTWEST_A_DEV_NAME + 1];

extern const struct nla_policy eastwest_config_get_nl_policy[EASTWEST_A_CONFIG_MODE + 1];

extern const struct nla_policy eastwest_config_set_nl_policy[EASTWEST_A_CONFIG_ADMISSION_TTL + 1];

extern const struct nla_policy eastwest_path_get_nl_policy[EASTWEST_A_PATH_DGID + 1];

extern const struct nla_policy eastwest_fabric_set_nl_policy[EASTWEST_A_FABRIC_PHYSICAL + 1];

extern const struct nla_policy eastwest_node_set_nl_policy[EASTWEST_A_NODE_ADMISSION + 1];

/* Ops table for eastwest */
extern const struct genl_ops eastwest_nl_ops[13];

int eastwest_nl_job_get_doit(struct sk_buff *skb, struct genl_info *info);
int eastwest_nl_job_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);
int eastwest_nl_job_new_doit(struct sk_buff *skb, struct genl_info *info);
int eastwest_nl_job_set_doit(struct sk_buff *skb, struct genl_info *info);
int eastwest_nl_job_del_doit(struct sk_buff *skb, struct genl_info *info);
int eastwest_nl_peer_add_doit(struct sk_buff *skb, struct genl_info *info);
int eastwest_nl_peer_del_doit(struct sk_buff *skb, struct genl_info *info);
int eastwest_nl_peer_get_doit(struct sk_buff *skb, struct genl_info *info);
int eastwest_nl_peer_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);
int eastwest_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info);
int eastwest_nl_dev_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);
int eastwest_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info);
int eastwest_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info);
int eastwest_nl_path_get_doit(struct sk_buff *skb, struct genl_info *info);
int eastwest_nl_fabric_set_doit(struct sk_buff *skb, struct genl_info *info);
int eastwest_nl_node_set_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	EASTWEST_NLGRP_EVENTS,
};

#endif /* _LINUX_EASTWEST_GEN_H */
