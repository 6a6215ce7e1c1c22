// SPDX-License-Identifier: GPL-2.0
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/eastwest.yaml */
/* by scripts/ynl-gen-eastwest.py (attribute names) */

#include <stddef.h>

#include <linux/eastwest.h>

#include "io/nlnames.h"

#define EW_NLN_SET(a) { sizeof(a) / sizeof((a)[0]) - 1, a }

static const struct ew_attr_desc cgroup_attrs[] = {
	[EASTWEST_A_CGROUP_PATH] = { .name = "path" },
	[EASTWEST_A_CGROUP_ID] = { .name = "id" },
};

static const struct ew_attr_set cgroup_set = EW_NLN_SET(cgroup_attrs);

static const struct ew_attr_desc peer_attrs[] = {
	[EASTWEST_A_PEER_ADDR] = { .name = "addr" },
	[EASTWEST_A_PEER_PREFIX_LEN] = { .name = "prefix-len" },
	[EASTWEST_A_PEER_LID] = { .name = "lid" },
};

static const struct ew_attr_set peer_set = EW_NLN_SET(peer_attrs);

static const struct ew_attr_desc netdev_attrs[] = {
	[EASTWEST_A_NETDEV_IFINDEX] = { .name = "ifindex" },
	[EASTWEST_A_NETDEV_VLAN] = { .name = "vlan" },
	[EASTWEST_A_NETDEV_VRF] = { .name = "vrf" },
};

static const struct ew_attr_set netdev_set = EW_NLN_SET(netdev_attrs);

static const struct ew_attr_desc counters_attrs[] = {
	[EASTWEST_A_COUNTERS_ALLOWED] = { .name = "allowed" },
	[EASTWEST_A_COUNTERS_AUDITED] = { .name = "audited" },
	[EASTWEST_A_COUNTERS_DENIED] = { .name = "denied" },
	[EASTWEST_A_COUNTERS_DENIED_NO_JOB] = { .name = "denied-no-job" },
	[EASTWEST_A_COUNTERS_DENIED_PEER] = { .name = "denied-peer" },
	[EASTWEST_A_COUNTERS_DENIED_SRC_NETDEV] = { .name = "denied-src-netdev" },
	[EASTWEST_A_COUNTERS_DENIED_PKEY] = { .name = "denied-pkey" },
	[EASTWEST_A_COUNTERS_DENIED_QKEY] = { .name = "denied-qkey" },
	[EASTWEST_A_COUNTERS_DENIED_QP_TYPE] = { .name = "denied-qp-type" },
	[EASTWEST_A_COUNTERS_DENIED_UNPROTECTED_PATH] = { .name = "denied-unprotected-path" },
	[EASTWEST_A_COUNTERS_DENIED_NOT_ADMITTED] = { .name = "denied-not-admitted" },
	[EASTWEST_A_COUNTERS_DENIED_INTERNAL] = { .name = "denied-internal" },
	[EASTWEST_A_COUNTERS_PSN_ZERO] = { .name = "psn-zero" },
	[EASTWEST_A_COUNTERS_DENIED_DEVX] = { .name = "denied-devx" },
	[EASTWEST_A_COUNTERS_DENIED_QP_STATE] = { .name = "denied-qp-state" },
	[EASTWEST_A_COUNTERS_DENIED_REVOKED] = { .name = "denied-revoked" },
	[EASTWEST_A_COUNTERS_DENIED_QP_OWNER] = { .name = "denied-qp-owner" },
	[EASTWEST_A_COUNTERS_DENIED_FOREIGN_QP] = { .name = "denied-foreign-qp" },
	[EASTWEST_A_COUNTERS_DENIED_IWARP] = { .name = "denied-iwarp" },
	[EASTWEST_A_COUNTERS_DENIED_KERNEL_ULP] = { .name = "denied-kernel-ulp" },
	[EASTWEST_A_COUNTERS_EVENTS_DROPPED] = { .name = "events-dropped" },
};

static const struct ew_attr_set counters_set = EW_NLN_SET(counters_attrs);

static const struct ew_attr_desc job_attrs[] = {
	[EASTWEST_A_JOB_ID] = { .name = "id" },
	[EASTWEST_A_JOB_NAME] = { .name = "name" },
	[EASTWEST_A_JOB_MODE] = { .name = "mode" },
	[EASTWEST_A_JOB_ENCRYPT] = { .name = "encrypt" },
	[EASTWEST_A_JOB_QKEY] = { .name = "qkey" },
	[EASTWEST_A_JOB_CGROUP] = { .name = "cgroup", .nested = &cgroup_set, .multi = true },
	[EASTWEST_A_JOB_PEER] = { .name = "peer", .nested = &peer_set, .multi = true },
	[EASTWEST_A_JOB_NETDEV] = { .name = "netdev", .nested = &netdev_set, .multi = true },
	[EASTWEST_A_JOB_PKEY] = { .name = "pkey", .multi = true },
	[EASTWEST_A_JOB_PEER_COUNT] = { .name = "peer-count" },
	[EASTWEST_A_JOB_QP_COUNT] = { .name = "qp-count" },
	[EASTWEST_A_JOB_COUNTERS] = { .name = "counters", .nested = &counters_set },
	[EASTWEST_A_JOB_UD] = { .name = "ud" },
	[EASTWEST_A_JOB_DC] = { .name = "dc" },
	[EASTWEST_A_JOB_PSN] = { .name = "psn" },
	[EASTWEST_A_JOB_PSN_KEY] = { .name = "psn-key" },
	[EASTWEST_A_JOB_PEER_RECS] = { .name = "peer-recs", .multi = true },
	[EASTWEST_A_JOB_PSN_RUN] = { .name = "psn-run" },
	[EASTWEST_A_JOB_PSN_KEY_CHECK] = { .name = "psn-key-check" },
};

static const struct ew_attr_set job_set = EW_NLN_SET(job_attrs);

static const struct ew_attr_desc peer_list_attrs[] = {
	[EASTWEST_A_PEER_LIST_JOB_ID] = { .name = "job-id" },
	[EASTWEST_A_PEER_LIST_PEER] = { .name = "peer", .nested = &peer_set, .multi = true },
	[EASTWEST_A_PEER_LIST_PEER_RECS] = { .name = "peer-recs", .multi = true },
};

static const struct ew_attr_set peer_list_set = EW_NLN_SET(peer_list_attrs);

static const struct ew_attr_desc gid_attrs[] = {
	[EASTWEST_A_GID_INDEX] = { .name = "index" },
	[EASTWEST_A_GID_GID] = { .name = "gid" },
	[EASTWEST_A_GID_TYPE] = { .name = "type" },
	[EASTWEST_A_GID_IFINDEX] = { .name = "ifindex" },
	[EASTWEST_A_GID_IFNAME] = { .name = "ifname" },
	[EASTWEST_A_GID_VLAN] = { .name = "vlan" },
	[EASTWEST_A_GID_VRF] = { .name = "vrf" },
	[EASTWEST_A_GID_PROTECTION] = { .name = "protection" },
	[EASTWEST_A_GID_MACSEC_IFINDEX] = { .name = "macsec-ifindex" },
	[EASTWEST_A_GID_MACSEC_OFFLOAD] = { .name = "macsec-offload" },
	[EASTWEST_A_GID_OFFLOAD_CAPS] = { .name = "offload-caps" },
	[EASTWEST_A_GID_MTU] = { .name = "mtu" },
};

static const struct ew_attr_set gid_set = EW_NLN_SET(gid_attrs);

static const struct ew_attr_desc port_attrs[] = {
	[EASTWEST_A_PORT_NUM] = { .name = "num" },
	[EASTWEST_A_PORT_LINK_LAYER] = { .name = "link-layer" },
	[EASTWEST_A_PORT_GID] = { .name = "gid", .nested = &gid_set, .multi = true },
	[EASTWEST_A_PORT_PKEY] = { .name = "pkey", .multi = true },
};

static const struct ew_attr_set port_set = EW_NLN_SET(port_attrs);

static const struct ew_attr_desc dev_attrs[] = {
	[EASTWEST_A_DEV_INDEX] = { .name = "index" },
	[EASTWEST_A_DEV_NAME] = { .name = "name" },
	[EASTWEST_A_DEV_PORT] = { .name = "port", .nested = &port_set, .multi = true },
	[EASTWEST_A_DEV_QPN_OBSERVED] = { .name = "qpn-observed" },
	[EASTWEST_A_DEV_QPN_SEQUENTIAL] = { .name = "qpn-sequential" },
	[EASTWEST_A_DEV_QPN_ORDER] = { .name = "qpn-order" },
};

static const struct ew_attr_set dev_set = EW_NLN_SET(dev_attrs);

static const struct ew_attr_desc config_attrs[] = {
	[EASTWEST_A_CONFIG_MODE] = { .name = "mode" },
	[EASTWEST_A_CONFIG_DEFAULT_ACTION] = { .name = "default-action" },
	[EASTWEST_A_CONFIG_VERSION] = { .name = "version" },
	[EASTWEST_A_CONFIG_JOB_COUNT] = { .name = "job-count" },
	[EASTWEST_A_CONFIG_PEER_COUNT] = { .name = "peer-count" },
	[EASTWEST_A_CONFIG_COUNTERS] = { .name = "counters", .nested = &counters_set },
	[EASTWEST_A_CONFIG_PHYSICAL_IFINDEX] = { .name = "physical-ifindex", .multi = true },
	[EASTWEST_A_CONFIG_ADMISSION] = { .name = "admission" },
	[EASTWEST_A_CONFIG_ADMISSION_REQUIRED] = { .name = "admission-required" },
	[EASTWEST_A_CONFIG_REVOKED_NODE] = { .name = "revoked-node", .multi = true },
	[EASTWEST_A_CONFIG_ADMISSION_TTL] = { .name = "admission-ttl" },
};

static const struct ew_attr_set config_set = EW_NLN_SET(config_attrs);

static const struct ew_attr_desc path_attrs[] = {
	[EASTWEST_A_PATH_DEV_INDEX] = { .name = "dev-index" },
	[EASTWEST_A_PATH_DEV_NAME] = { .name = "dev-name" },
	[EASTWEST_A_PATH_PORT] = { .name = "port" },
	[EASTWEST_A_PATH_SGID_INDEX] = { .name = "sgid-index" },
	[EASTWEST_A_PATH_DGID] = { .name = "dgid" },
	[EASTWEST_A_PATH_PROTECTION] = { .name = "protection" },
	[EASTWEST_A_PATH_IFINDEX] = { .name = "ifindex" },
	[EASTWEST_A_PATH_MACSEC_IFINDEX] = { .name = "macsec-ifindex" },
	[EASTWEST_A_PATH_MACSEC_OFFLOAD] = { .name = "macsec-offload" },
	[EASTWEST_A_PATH_IPSEC_SPI] = { .name = "ipsec-spi" },
};

static const struct ew_attr_set path_set = EW_NLN_SET(path_attrs);

static const struct ew_attr_desc fabric_attrs[] = {
	[EASTWEST_A_FABRIC_IFINDEX] = { .name = "ifindex" },
	[EASTWEST_A_FABRIC_PHYSICAL] = { .name = "physical" },
};

static const struct ew_attr_set fabric_set = EW_NLN_SET(fabric_attrs);

static const struct ew_attr_desc node_attrs[] = {
	[EASTWEST_A_NODE_ADDR] = { .name = "addr", .multi = true },
	[EASTWEST_A_NODE_ADMISSION] = { .name = "admission" },
};

static const struct ew_attr_set node_set = EW_NLN_SET(node_attrs);

/* The attribute set of a command's requests (NULL: the command has none). */
const struct ew_attr_set *ew_cmd_attr_set(uint8_t cmd)
{
	switch (cmd) {
	case EASTWEST_CMD_JOB_GET:
	case EASTWEST_CMD_JOB_NEW:
	case EASTWEST_CMD_JOB_SET:
	case EASTWEST_CMD_JOB_DEL:
		return &job_set;
	case EASTWEST_CMD_DEV_GET:
		return &dev_set;
	case EASTWEST_CMD_PATH_GET:
		return &path_set;
	case EASTWEST_CMD_FABRIC_SET:
		return &fabric_set;
	case EASTWEST_CMD_NODE_SET:
		return &node_set;
	case EASTWEST_CMD_CONFIG_GET:
	case EASTWEST_CMD_CONFIG_SET:
		return &config_set;
	case EASTWEST_CMD_PEER_ADD:
	case EASTWEST_CMD_PEER_DEL:
	case EASTWEST_CMD_PEER_GET:
		return &peer_list_set;
	default:
		return NULL;
	}
}
