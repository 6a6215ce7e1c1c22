// SPDX-License-Identifier: GPL-2.0
/*
 * Names of the request attributes, as in
 * Documentation/netlink/specs/eastwest.yaml.
 */
#include <stddef.h>

#include <linux/eastwest.h>

#include "nlnames.h"

#define SET(a) { EW_ARRAY_SIZE_(a) - 1, a }
#define EW_ARRAY_SIZE_(a) (sizeof(a) / sizeof((a)[0]))

static const struct ew_attr_desc peer_attrs[] = {
	[EASTWEST_A_PEER_ADDR] = { .name = "addr" },
	[EASTWEST_A_PEER_PREFIX_LEN] = { .name = "prefix-len" },
	[EASTWEST_A_PEER_LID] = { .name = "lid" },
};

static const struct ew_attr_desc netdev_attrs[] = {
	[EASTWEST_A_NETDEV_IFINDEX] = { .name = "ifindex" },
	[EASTWEST_A_NETDEV_VLAN] = { .name = "vlan" },
	[EASTWEST_A_NETDEV_VRF] = { .name = "vrf" },
};

static const struct ew_attr_desc cgroup_attrs[] = {
	[EASTWEST_A_CGROUP_PATH] = { .name = "path" },
	[EASTWEST_A_CGROUP_ID] = { .name = "id" },
};

static const struct ew_attr_set peer_set = SET(peer_attrs);
static const struct ew_attr_set netdev_set = SET(netdev_attrs);
static const struct ew_attr_set cgroup_set = SET(cgroup_attrs);

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
	[EASTWEST_A_JOB_COUNTERS] = { .name = "counters" },
	[EASTWEST_A_JOB_UD] = { .name = "ud" },
	[EASTWEST_A_JOB_DC] = { .name = "dc" },
	[EASTWEST_A_JOB_PSN] = { .name = "psn" },
	[EASTWEST_A_JOB_PSN_KEY] = { .name = "psn-key" },
};

static const struct ew_attr_desc peer_list_attrs[] = {
	[EASTWEST_A_PEER_LIST_JOB_ID] = { .name = "job-id" },
	[EASTWEST_A_PEER_LIST_PEER] = { .name = "peer", .nested = &peer_set, .multi = true },
};

static const struct ew_attr_desc dev_attrs[] = {
	[EASTWEST_A_DEV_INDEX] = { .name = "index" },
	[EASTWEST_A_DEV_NAME] = { .name = "name" },
	[EASTWEST_A_DEV_PORT] = { .name = "port", .multi = true },
	[EASTWEST_A_DEV_QPN_OBSERVED] = { .name = "qpn-observed" },
	[EASTWEST_A_DEV_QPN_SEQUENTIAL] = { .name = "qpn-sequential" },
	[EASTWEST_A_DEV_QPN_ORDER] = { .name = "qpn-order" },
};

static const struct ew_attr_desc config_attrs[] = {
	[EASTWEST_A_CONFIG_MODE] = { .name = "mode" },
	[EASTWEST_A_CONFIG_DEFAULT_ACTION] = { .name = "default-action" },
	[EASTWEST_A_CONFIG_VERSION] = { .name = "version" },
	[EASTWEST_A_CONFIG_JOB_COUNT] = { .name = "job-count" },
	[EASTWEST_A_CONFIG_PEER_COUNT] = { .name = "peer-count" },
	[EASTWEST_A_CONFIG_COUNTERS] = { .name = "counters" },
	[EASTWEST_A_CONFIG_PHYSICAL_IFINDEX] = { .name = "physical-ifindex", .multi = true },
};

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

static const struct ew_attr_desc fabric_attrs[] = {
	[EASTWEST_A_FABRIC_IFINDEX] = { .name = "ifindex" },
	[EASTWEST_A_FABRIC_PHYSICAL] = { .name = "physical" },
};

static const struct ew_attr_set job_set = SET(job_attrs);
static const struct ew_attr_set peer_list_set = SET(peer_list_attrs);
static const struct ew_attr_set dev_set = SET(dev_attrs);
static const struct ew_attr_set config_set = SET(config_attrs);
static const struct ew_attr_set path_set = SET(path_attrs);
static const struct ew_attr_set fabric_set = SET(fabric_attrs);

/* The attribute set of a command's requests. */
const struct ew_attr_set *ew_cmd_attr_set(uint8_t cmd)
{
	switch (cmd) {
	case EASTWEST_CMD_JOB_GET:
	case EASTWEST_CMD_JOB_NEW:
	case EASTWEST_CMD_JOB_SET:
	case EASTWEST_CMD_JOB_DEL:
		return &job_set;
	case EASTWEST_CMD_PEER_ADD:
	case EASTWEST_CMD_PEER_DEL:
	case EASTWEST_CMD_PEER_GET:
		return &peer_list_set;
	case EASTWEST_CMD_DEV_GET:
		return &dev_set;
	case EASTWEST_CMD_CONFIG_GET:
	case EASTWEST_CMD_CONFIG_SET:
		return &config_set;
	case EASTWEST_CMD_PATH_GET:
		return &path_set;
	case EASTWEST_CMD_FABRIC_SET:
		return &fabric_set;
	default:
		return NULL;
	}
}

const char *ew_attr_name(const struct ew_attr_set *set, unsigned int type)
{
	if (set && type <= set->max && set->attrs[type].name)
		return set->attrs[type].name;
	return NULL;
}
