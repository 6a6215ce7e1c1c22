// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/eastwest.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink-gen.h"

#include <uapi/linux/eastwest.h>

/* Common nested types */
const struct nla_policy eastwest_cgroup_nl_policy[EASTWEST_A_CGROUP_PAD + 1] = {
	[EASTWEST_A_CGROUP_PATH] = { .type = NLA_NUL_STRING, .len = EASTWEST_CGROUP_PATH_MAX, },
	[EASTWEST_A_CGROUP_ID] = { .type = NLA_U64, },
};

const struct nla_policy eastwest_netdev_nl_policy[EASTWEST_A_NETDEV_VRF + 1] = {
	[EASTWEST_A_NETDEV_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[EASTWEST_A_NETDEV_VLAN] = NLA_POLICY_RANGE(NLA_U16, 1, 4094),
	[EASTWEST_A_NETDEV_VRF] = NLA_POLICY_MIN(NLA_U32, 1),
};

const struct nla_policy eastwest_peer_nl_policy[EASTWEST_A_PEER_LID + 1] = {
	[EASTWEST_A_PEER_ADDR] = NLA_POLICY_EXACT_LEN(16),
	[EASTWEST_A_PEER_PREFIX_LEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[EASTWEST_A_PEER_LID] = { .type = NLA_U16, },
};

/* EASTWEST_CMD_JOB_GET - do */
const struct nla_policy eastwest_job_get_nl_policy[EASTWEST_A_JOB_NAME + 1] = {
	[EASTWEST_A_JOB_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EASTWEST_A_JOB_NAME] = { .type = NLA_NUL_STRING, .len = EASTWEST_JOB_NAME_LEN, },
};

/* EASTWEST_CMD_JOB_NEW - do */
const struct nla_policy eastwest_job_new_nl_policy[EASTWEST_A_JOB_PSN_RUN + 1] = {
	[EASTWEST_A_JOB_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EASTWEST_A_JOB_NAME] = { .type = NLA_NUL_STRING, .len = EASTWEST_JOB_NAME_LEN, },
	[EASTWEST_A_JOB_MODE] = NLA_POLICY_MAX(NLA_U32, 1),
	[EASTWEST_A_JOB_ENCRYPT] = NLA_POLICY_MAX(NLA_U32, 3),
	[EASTWEST_A_JOB_QKEY] = { .type = NLA_U32, },
	[EASTWEST_A_JOB_PSN] = NLA_POLICY_MAX(NLA_U32, 1),
	[EASTWEST_A_JOB_PSN_KEY] = NLA_POLICY_EXACT_LEN(16),
	[EASTWEST_A_JOB_CGROUP] = NLA_POLICY_NESTED(eastwest_cgroup_nl_policy),
	[EASTWEST_A_JOB_PEER] = NLA_POLICY_NESTED(eastwest_peer_nl_policy),
	[EASTWEST_A_JOB_NETDEV] = NLA_POLICY_NESTED(eastwest_netdev_nl_policy),
	[EASTWEST_A_JOB_PKEY] = { .type = NLA_U16, },
	[EASTWEST_A_JOB_UD] = NLA_POLICY_MAX(NLA_U8, 1),
	[EASTWEST_A_JOB_DC] = NLA_POLICY_MAX(NLA_U8, 1),
	[EASTWEST_A_JOB_PEER_RECS] = { .type = NLA_BINARY, },
	[EASTWEST_A_JOB_PSN_RUN] = { .type = NLA_NUL_STRING, .len = EASTWEST_PSN_RUN_LEN, },
};

/* EASTWEST_CMD_JOB_SET - do */
const struct nla_policy eastwest_job_set_nl_policy[EASTWEST_A_JOB_PSN_RUN + 1] = {
	[EASTWEST_A_JOB_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EASTWEST_A_JOB_NAME] = { .type = NLA_NUL_STRING, .len = EASTWEST_JOB_NAME_LEN, },
	[EASTWEST_A_JOB_MODE] = NLA_POLICY_MAX(NLA_U32, 1),
	[EASTWEST_A_JOB_ENCRYPT] = NLA_POLICY_MAX(NLA_U32, 3),
	[EASTWEST_A_JOB_QKEY] = { .type = NLA_U32, },
	[EASTWEST_A_JOB_PSN] = NLA_POLICY_MAX(NLA_U32, 1),
	[EASTWEST_A_JOB_PSN_KEY] = NLA_POLICY_EXACT_LEN(16),
	[EASTWEST_A_JOB_CGROUP] = NLA_POLICY_NESTED(eastwest_cgroup_nl_policy),
	[EASTWEST_A_JOB_NETDEV] = NLA_POLICY_NESTED(eastwest_netdev_nl_policy),
	[EASTWEST_A_JOB_PKEY] = { .type = NLA_U16, },
	[EASTWEST_A_JOB_UD] = NLA_POLICY_MAX(NLA_U8, 1),
	[EASTWEST_A_JOB_DC] = NLA_POLICY_MAX(NLA_U8, 1),
	[EASTWEST_A_JOB_PSN_RUN] = { .type = NLA_NUL_STRING, .len = EASTWEST_PSN_RUN_LEN, },
};

/* EASTWEST_CMD_JOB_DEL - do */
const struct nla_policy eastwest_job_del_nl_policy[EASTWEST_A_JOB_NAME + 1] = {
	[EASTWEST_A_JOB_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EASTWEST_A_JOB_NAME] = { .type = NLA_NUL_STRING, .len = EASTWEST_JOB_NAME_LEN, },
};

/* EASTWEST_CMD_PEER_ADD - do */
const struct nla_policy eastwest_peer_add_nl_policy[EASTWEST_A_PEER_LIST_PEER_RECS + 1] = {
	[EASTWEST_A_PEER_LIST_JOB_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EASTWEST_A_PEER_LIST_PEER] = NLA_POLICY_NESTED(eastwest_peer_nl_policy),
	[EASTWEST_A_PEER_LIST_PEER_RECS] = { .type = NLA_BINARY, },
};

/* EASTWEST_CMD_PEER_DEL - do */
const struct nla_policy eastwest_peer_del_nl_policy[EASTWEST_A_PEER_LIST_PEER + 1] = {
	[EASTWEST_A_PEER_LIST_JOB_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EASTWEST_A_PEER_LIST_PEER] = NLA_POLICY_NESTED(eastwest_peer_nl_policy),
};

/* EASTWEST_CMD_PEER_GET - do */
const struct nla_policy eastwest_peer_get_nl_policy[EASTWEST_A_PEER_LIST_PEER + 1] = {
	[EASTWEST_A_PEER_LIST_JOB_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EASTWEST_A_PEER_LIST_PEER] = NLA_POLICY_NESTED(eastwest_peer_nl_policy),
};

/* EASTWEST_CMD_DEV_GET - do */
const struct nla_policy eastwest_dev_get_nl_policy[EASTWEST_A_DEV_NAME + 1] = {
	[EASTWEST_A_DEV_INDEX] = { .type = NLA_U32, },
	[EASTWEST_A_DEV_NAME] = { .type = NLA_NUL_STRING, },
};

/* EASTWEST_CMD_CONFIG_GET - do */
const struct nla_policy eastwest_config_get_nl_policy[EASTWEST_A_CONFIG_MODE + 1] = {
	[EASTWEST_A_CONFIG_MODE] = NLA_POLICY_MAX(NLA_U32, 1),
};

/* EASTWEST_CMD_CONFIG_SET - do */
const struct nla_policy eastwest_config_set_nl_policy[EASTWEST_A_CONFIG_ADMISSION_TTL + 1] = {
	[EASTWEST_A_CONFIG_MODE] = NLA_POLICY_MAX(NLA_U32, 1),
	[EASTWEST_A_CONFIG_DEFAULT_ACTION] = NLA_POLICY_MAX(NLA_U32, 1),
	[EASTWEST_A_CONFIG_ADMISSION] = NLA_POLICY_MAX(NLA_U32, 2),
	[EASTWEST_A_CONFIG_ADMISSION_REQUIRED] = NLA_POLICY_MAX(NLA_U8, 1),
	[EASTWEST_A_CONFIG_ADMISSION_TTL] = { .type = NLA_U32, },
};

/* EASTWEST_CMD_PATH_GET - do */
const struct nla_policy eastwest_path_get_nl_policy[EASTWEST_A_PATH_DGID + 1] = {
	[EASTWEST_A_PATH_DEV_INDEX] = { .type = NLA_U32, },
	[EASTWEST_A_PATH_DEV_NAME] = { .type = NLA_NUL_STRING, },
	[EASTWEST_A_PATH_PORT] = NLA_POLICY_MIN(NLA_U32, 1),
	[EASTWEST_A_PATH_SGID_INDEX] = { .type = NLA_U32, },
	[EASTWEST_A_PATH_DGID] = NLA_POLICY_EXACT_LEN(16),
};

/* EASTWEST_CMD_FABRIC_SET - do */
const struct nla_policy eastwest_fabric_set_nl_policy[EASTWEST_A_FABRIC_PHYSICAL + 1] = {
	[EASTWEST_A_FABRIC_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[EASTWEST_A_FABRIC_PHYSICAL] = NLA_POLICY_MAX(NLA_U8, 1),
};

/* EASTWEST_CMD_NODE_SET - do */
const struct nla_policy eastwest_node_set_nl_policy[EASTWEST_A_NODE_ADMISSION + 1] = {
	[EASTWEST_A_NODE_ADDR] = NLA_POLICY_EXACT_LEN(16),
	[EASTWEST_A_NODE_ADMISSION] = NLA_POLICY_MAX(NLA_U32, 2),
};

/* Ops table for eastwest */
const struct genl_ops eastwest_nl_ops[13] = {
	{
		.cmd		= EASTWEST_CMD_JOB_GET,
		.doit		= eastwest_nl_job_get_doit,
		.dumpit		= eastwest_nl_job_get_dumpit,
		.policy		= eastwest_job_get_nl_policy,
		.maxattr	= EASTWEST_A_JOB_NAME,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= EASTWEST_CMD_JOB_NEW,
		.doit		= eastwest_nl_job_new_doit,
		.policy		= eastwest_job_new_nl_policy,
		.maxattr	= EASTWEST_A_JOB_PSN_RUN,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= EASTWEST_CMD_JOB_SET,
		.doit		= eastwest_nl_job_set_doit,
		.policy		= eastwest_job_set_nl_policy,
		.maxattr	= EASTWEST_A_JOB_PSN_RUN,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= EASTWEST_CMD_JOB_DEL,
		.doit		= eastwest_nl_job_del_doit,
		.policy		= eastwest_job_del_nl_policy,
		.maxattr	= EASTWEST_A_JOB_NAME,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= EASTWEST_CMD_PEER_ADD,
		.doit		= eastwest_nl_peer_add_doit,
		.policy		= eastwest_peer_add_nl_policy,
		.maxattr	= EASTWEST_A_PEER_LIST_PEER_RECS,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= EASTWEST_CMD_PEER_DEL,
		.doit		= eastwest_nl_peer_del_doit,
		.policy		= eastwest_peer_del_nl_policy,
		.maxattr	= EASTWEST_A_PEER_LIST_PEER,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= EASTWEST_CMD_PEER_GET,
		.doit		= eastwest_nl_peer_get_doit,
		.dumpit		= eastwest_nl_peer_get_dumpit,
		.policy		= eastwest_peer_get_nl_policy,
		.maxattr	= EASTWEST_A_PEER_LIST_PEER,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= EASTWEST_CMD_DEV_GET,
		.doit		= eastwest_nl_dev_get_doit,
		.dumpit		= eastwest_nl_dev_get_dumpit,
		.policy		= eastwest_dev_get_nl_policy,
		.maxattr	= EASTWEST_A_DEV_NAME,
	},
	{
		.cmd		= EASTWEST_CMD_CONFIG_GET,
		.doit		= eastwest_nl_config_get_doit,
		.policy		= eastwest_config_get_nl_policy,
		.maxattr	= EASTWEST_A_CONFIG_MODE,
	},
	{
		.cmd		= EASTWEST_CMD_CONFIG_SET,
		.doit		= eastwest_nl_config_set_doit,
		.policy		= eastwest_config_set_nl_policy,
		.maxattr	= EASTWEST_A_CONFIG_ADMISSION_TTL,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= EASTWEST_CMD_PATH_GET,
		.doit		= eastwest_nl_path_get_doit,
		.policy		= eastwest_path_get_nl_policy,
		.maxattr	= EASTWEST_A_PATH_DGID,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= EASTWEST_CMD_FABRIC_SET,
		.doit		= eastwest_nl_fabric_set_doit,
		.policy		= eastwest_fabric_set_nl_policy,
		.maxattr	= EASTWEST_A_FABRIC_PHYSICAL,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= EASTWEST_CMD_NODE_SET,
		.doit		= eastwest_nl_node_set_doit,
		.policy		= eastwest_node_set_nl_policy,
		.maxattr	= EASTWEST_A_NODE_ADMISSION,
		.flags		= GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group eastwest_nl_mcgrps[] = {
	[EASTWEST_NLGRP_EVENTS] = { "events", },
};
