// SPDX-License-Identifier: GPL-2.0
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/eastwest.yaml */
/* by scripts/ynl-gen-eastwest.py (fuzzer model) */

#include <linux/eastwest.h>

#include "model.h"

#define NF_SET(var, nm, maxt) \
	{ .name = (nm), .max_type = (maxt), .n = sizeof(var) / sizeof((var)[0]), .attrs = (var) }

static const struct nf_attr peer_attrs[] = {
	{ .type = EASTWEST_A_PEER_ADDR, .set = "peer", .name = "addr", .kind = NF_BINARY, .len = 16 },
	{ .type = EASTWEST_A_PEER_PREFIX_LEN, .set = "peer", .name = "prefix-len", .kind = NF_U8, .has_max = true, .max = 128 },
	{ .type = EASTWEST_A_PEER_LID, .set = "peer", .name = "lid", .kind = NF_U16 },
};
const struct nf_set nf_set_peer = NF_SET(peer_attrs, "peer", EASTWEST_A_PEER_MAX);

static const struct nf_attr netdev_attrs[] = {
	{ .type = EASTWEST_A_NETDEV_IFINDEX, .set = "netdev", .name = "ifindex", .kind = NF_U32, .has_min = true, .min = 1 },
	{ .type = EASTWEST_A_NETDEV_VLAN, .set = "netdev", .name = "vlan", .kind = NF_U16, .has_min = true, .min = 1, .has_max = true, .max = 4094 },
	{ .type = EASTWEST_A_NETDEV_VRF, .set = "netdev", .name = "vrf", .kind = NF_U32, .has_min = true, .min = 1 },
};
const struct nf_set nf_set_netdev = NF_SET(netdev_attrs, "netdev", EASTWEST_A_NETDEV_MAX);

static const struct nf_attr cgroup_attrs[] = {
	{ .type = EASTWEST_A_CGROUP_PATH, .set = "cgroup", .name = "path", .kind = NF_STRING, .len = EASTWEST_CGROUP_PATH_MAX },
	{ .type = EASTWEST_A_CGROUP_ID, .set = "cgroup", .name = "id", .kind = NF_U64 },
	{ .type = EASTWEST_A_CGROUP_PAD, .set = "cgroup", .name = "pad", .kind = NF_PAD },
};
const struct nf_set nf_set_cgroup = NF_SET(cgroup_attrs, "cgroup", EASTWEST_A_CGROUP_MAX);

static const struct nf_attr counters_attrs[] = {
	{ .type = EASTWEST_A_COUNTERS_PAD, .set = "counters", .name = "pad", .kind = NF_PAD },
	{ .type = EASTWEST_A_COUNTERS_ALLOWED, .set = "counters", .name = "allowed", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_AUDITED, .set = "counters", .name = "audited", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED, .set = "counters", .name = "denied", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_NO_JOB, .set = "counters", .name = "denied-no-job", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_PEER, .set = "counters", .name = "denied-peer", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_SRC_NETDEV, .set = "counters", .name = "denied-src-netdev", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_PKEY, .set = "counters", .name = "denied-pkey", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_QKEY, .set = "counters", .name = "denied-qkey", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_QP_TYPE, .set = "counters", .name = "denied-qp-type", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_UNPROTECTED_PATH, .set = "counters", .name = "denied-unprotected-path", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_NOT_ADMITTED, .set = "counters", .name = "denied-not-admitted", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_INTERNAL, .set = "counters", .name = "denied-internal", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_PSN_ZERO, .set = "counters", .name = "psn-zero", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_DEVX, .set = "counters", .name = "denied-devx", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_QP_STATE, .set = "counters", .name = "denied-qp-state", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_REVOKED, .set = "counters", .name = "denied-revoked", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_QP_OWNER, .set = "counters", .name = "denied-qp-owner", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_FOREIGN_QP, .set = "counters", .name = "denied-foreign-qp", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_IWARP, .set = "counters", .name = "denied-iwarp", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_DENIED_KERNEL_ULP, .set = "counters", .name = "denied-kernel-ulp", .kind = NF_U64 },
	{ .type = EASTWEST_A_COUNTERS_EVENTS_DROPPED, .set = "counters", .name = "events-dropped", .kind = NF_U64 },
};
const struct nf_set nf_set_counters = NF_SET(counters_attrs, "counters", EASTWEST_A_COUNTERS_MAX);

static const struct nf_attr job_attrs[] = {
	{ .type = EASTWEST_A_JOB_ID, .set = "job", .name = "id", .kind = NF_U32, .has_min = true, .min = 1 },
	{ .type = EASTWEST_A_JOB_NAME, .set = "job", .name = "name", .kind = NF_STRING, .len = EASTWEST_JOB_NAME_LEN },
	{ .type = EASTWEST_A_JOB_MODE, .set = "job", .name = "mode", .kind = NF_U32, .has_max = true, .max = EASTWEST_MODE_AUDIT },
	{ .type = EASTWEST_A_JOB_ENCRYPT, .set = "job", .name = "encrypt", .kind = NF_U32, .has_max = true, .max = EASTWEST_ENCRYPT_IPSEC },
	{ .type = EASTWEST_A_JOB_QKEY, .set = "job", .name = "qkey", .kind = NF_U32 },
	{ .type = EASTWEST_A_JOB_CGROUP, .set = "job", .name = "cgroup", .kind = NF_NEST, .nest = &nf_set_cgroup, .multi = true },
	{ .type = EASTWEST_A_JOB_PEER, .set = "job", .name = "peer", .kind = NF_NEST, .nest = &nf_set_peer, .multi = true },
	{ .type = EASTWEST_A_JOB_NETDEV, .set = "job", .name = "netdev", .kind = NF_NEST, .nest = &nf_set_netdev, .multi = true },
	{ .type = EASTWEST_A_JOB_PKEY, .set = "job", .name = "pkey", .kind = NF_U16, .multi = true },
	{ .type = EASTWEST_A_JOB_PEER_COUNT, .set = "job", .name = "peer-count", .kind = NF_U32 },
	{ .type = EASTWEST_A_JOB_QP_COUNT, .set = "job", .name = "qp-count", .kind = NF_U32 },
	{ .type = EASTWEST_A_JOB_COUNTERS, .set = "job", .name = "counters", .kind = NF_NEST, .nest = &nf_set_counters },
	{ .type = EASTWEST_A_JOB_UD, .set = "job", .name = "ud", .kind = NF_U8, .has_max = true, .max = 1 },
	{ .type = EASTWEST_A_JOB_DC, .set = "job", .name = "dc", .kind = NF_U8, .has_max = true, .max = 1 },
	{ .type = EASTWEST_A_JOB_PSN, .set = "job", .name = "psn", .kind = NF_U32, .has_max = true, .max = EASTWEST_PSN_KEYED },
	{ .type = EASTWEST_A_JOB_PSN_KEY, .set = "job", .name = "psn-key", .kind = NF_BINARY, .len = 16 },
	{ .type = EASTWEST_A_JOB_PEER_RECS, .set = "job", .name = "peer-recs", .kind = NF_BINARY, .len = EASTWEST_PEER_REC_LEN, .records = true, .multi = true },
	{ .type = EASTWEST_A_JOB_PSN_RUN, .set = "job", .name = "psn-run", .kind = NF_STRING, .len = EASTWEST_PSN_RUN_LEN },
	{ .type = EASTWEST_A_JOB_PSN_KEY_CHECK, .set = "job", .name = "psn-key-check", .kind = NF_U32 },
};
const struct nf_set nf_set_job = NF_SET(job_attrs, "job", EASTWEST_A_JOB_MAX);

static const struct nf_attr gid_attrs[] = {
	{ .type = EASTWEST_A_GID_INDEX, .set = "gid", .name = "index", .kind = NF_U32 },
	{ .type = EASTWEST_A_GID_GID, .set = "gid", .name = "gid", .kind = NF_BINARY, .len = 16 },
	{ .type = EASTWEST_A_GID_TYPE, .set = "gid", .name = "type", .kind = NF_U32, .has_max = true, .max = EASTWEST_GID_TYPE_ROCE_V2 },
	{ .type = EASTWEST_A_GID_IFINDEX, .set = "gid", .name = "ifindex", .kind = NF_U32 },
	{ .type = EASTWEST_A_GID_IFNAME, .set = "gid", .name = "ifname", .kind = NF_STRING },
	{ .type = EASTWEST_A_GID_VLAN, .set = "gid", .name = "vlan", .kind = NF_U16 },
	{ .type = EASTWEST_A_GID_VRF, .set = "gid", .name = "vrf", .kind = NF_U32 },
	{ .type = EASTWEST_A_GID_PROTECTION, .set = "gid", .name = "protection", .kind = NF_U32 },
	{ .type = EASTWEST_A_GID_MACSEC_IFINDEX, .set = "gid", .name = "macsec-ifindex", .kind = NF_U32 },
	{ .type = EASTWEST_A_GID_MACSEC_OFFLOAD, .set = "gid", .name = "macsec-offload", .kind = NF_U32, .has_max = true, .max = EASTWEST_MACSEC_OFFLOAD_MAC },
	{ .type = EASTWEST_A_GID_OFFLOAD_CAPS, .set = "gid", .name = "offload-caps", .kind = NF_U32 },
	{ .type = EASTWEST_A_GID_MTU, .set = "gid", .name = "mtu", .kind = NF_U32 },
};
const struct nf_set nf_set_gid = NF_SET(gid_attrs, "gid", EASTWEST_A_GID_MAX);

static const struct nf_attr port_attrs[] = {
	{ .type = EASTWEST_A_PORT_NUM, .set = "port", .name = "num", .kind = NF_U32 },
	{ .type = EASTWEST_A_PORT_LINK_LAYER, .set = "port", .name = "link-layer", .kind = NF_U32, .has_max = true, .max = EASTWEST_LINK_LAYER_ETHERNET },
	{ .type = EASTWEST_A_PORT_GID, .set = "port", .name = "gid", .kind = NF_NEST, .nest = &nf_set_gid, .multi = true },
	{ .type = EASTWEST_A_PORT_PKEY, .set = "port", .name = "pkey", .kind = NF_U16, .multi = true },
};
const struct nf_set nf_set_port = NF_SET(port_attrs, "port", EASTWEST_A_PORT_MAX);

static const struct nf_attr dev_attrs[] = {
	{ .type = EASTWEST_A_DEV_INDEX, .set = "dev", .name = "index", .kind = NF_U32 },
	{ .type = EASTWEST_A_DEV_NAME, .set = "dev", .name = "name", .kind = NF_STRING },
	{ .type = EASTWEST_A_DEV_PORT, .set = "dev", .name = "port", .kind = NF_NEST, .nest = &nf_set_port, .multi = true },
	{ .type = EASTWEST_A_DEV_QPN_OBSERVED, .set = "dev", .name = "qpn-observed", .kind = NF_U32 },
	{ .type = EASTWEST_A_DEV_QPN_SEQUENTIAL, .set = "dev", .name = "qpn-sequential", .kind = NF_U32 },
	{ .type = EASTWEST_A_DEV_QPN_ORDER, .set = "dev", .name = "qpn-order", .kind = NF_U32, .has_max = true, .max = EASTWEST_QPN_ORDER_RANDOM },
};
const struct nf_set nf_set_dev = NF_SET(dev_attrs, "dev", EASTWEST_A_DEV_MAX);

static const struct nf_attr path_attrs[] = {
	{ .type = EASTWEST_A_PATH_DEV_INDEX, .set = "path", .name = "dev-index", .kind = NF_U32 },
	{ .type = EASTWEST_A_PATH_DEV_NAME, .set = "path", .name = "dev-name", .kind = NF_STRING },
	{ .type = EASTWEST_A_PATH_PORT, .set = "path", .name = "port", .kind = NF_U32, .has_min = true, .min = 1 },
	{ .type = EASTWEST_A_PATH_SGID_INDEX, .set = "path", .name = "sgid-index", .kind = NF_U32 },
	{ .type = EASTWEST_A_PATH_DGID, .set = "path", .name = "dgid", .kind = NF_BINARY, .len = 16 },
	{ .type = EASTWEST_A_PATH_PROTECTION, .set = "path", .name = "protection", .kind = NF_U32 },
	{ .type = EASTWEST_A_PATH_IFINDEX, .set = "path", .name = "ifindex", .kind = NF_U32 },
	{ .type = EASTWEST_A_PATH_MACSEC_IFINDEX, .set = "path", .name = "macsec-ifindex", .kind = NF_U32 },
	{ .type = EASTWEST_A_PATH_MACSEC_OFFLOAD, .set = "path", .name = "macsec-offload", .kind = NF_U32, .has_max = true, .max = EASTWEST_MACSEC_OFFLOAD_MAC },
	{ .type = EASTWEST_A_PATH_IPSEC_SPI, .set = "path", .name = "ipsec-spi", .kind = NF_U32 },
};
const struct nf_set nf_set_path = NF_SET(path_attrs, "path", EASTWEST_A_PATH_MAX);

static const struct nf_attr fabric_attrs[] = {
	{ .type = EASTWEST_A_FABRIC_IFINDEX, .set = "fabric", .name = "ifindex", .kind = NF_U32, .has_min = true, .min = 1 },
	{ .type = EASTWEST_A_FABRIC_PHYSICAL, .set = "fabric", .name = "physical", .kind = NF_U8, .has_max = true, .max = 1 },
};
const struct nf_set nf_set_fabric = NF_SET(fabric_attrs, "fabric", EASTWEST_A_FABRIC_MAX);

static const struct nf_attr node_attrs[] = {
	{ .type = EASTWEST_A_NODE_ADDR, .set = "node", .name = "addr", .kind = NF_BINARY, .len = 16, .multi = true },
	{ .type = EASTWEST_A_NODE_ADMISSION, .set = "node", .name = "admission", .kind = NF_U32, .has_max = true, .max = EASTWEST_ADMISSION_REVOKED },
};
const struct nf_set nf_set_node = NF_SET(node_attrs, "node", EASTWEST_A_NODE_MAX);

static const struct nf_attr config_attrs[] = {
	{ .type = EASTWEST_A_CONFIG_MODE, .set = "config", .name = "mode", .kind = NF_U32, .has_max = true, .max = EASTWEST_MODE_AUDIT },
	{ .type = EASTWEST_A_CONFIG_DEFAULT_ACTION, .set = "config", .name = "default-action", .kind = NF_U32, .has_max = true, .max = EASTWEST_DEFAULT_ACTION_ALLOW },
	{ .type = EASTWEST_A_CONFIG_VERSION, .set = "config", .name = "version", .kind = NF_STRING },
	{ .type = EASTWEST_A_CONFIG_JOB_COUNT, .set = "config", .name = "job-count", .kind = NF_U32 },
	{ .type = EASTWEST_A_CONFIG_PEER_COUNT, .set = "config", .name = "peer-count", .kind = NF_U32 },
	{ .type = EASTWEST_A_CONFIG_COUNTERS, .set = "config", .name = "counters", .kind = NF_NEST, .nest = &nf_set_counters },
	{ .type = EASTWEST_A_CONFIG_PHYSICAL_IFINDEX, .set = "config", .name = "physical-ifindex", .kind = NF_U32, .multi = true },
	{ .type = EASTWEST_A_CONFIG_ADMISSION, .set = "config", .name = "admission", .kind = NF_U32, .has_max = true, .max = EASTWEST_ADMISSION_REVOKED },
	{ .type = EASTWEST_A_CONFIG_ADMISSION_REQUIRED, .set = "config", .name = "admission-required", .kind = NF_U8, .has_max = true, .max = 1 },
	{ .type = EASTWEST_A_CONFIG_REVOKED_NODE, .set = "config", .name = "revoked-node", .kind = NF_BINARY, .multi = true },
	{ .type = EASTWEST_A_CONFIG_ADMISSION_TTL, .set = "config", .name = "admission-ttl", .kind = NF_U32 },
};
const struct nf_set nf_set_config = NF_SET(config_attrs, "config", EASTWEST_A_CONFIG_MAX);

static const struct nf_attr event_attrs[] = {
	{ .type = EASTWEST_A_EVENT_PAD, .set = "event", .name = "pad", .kind = NF_PAD },
	{ .type = EASTWEST_A_EVENT_OP, .set = "event", .name = "op", .kind = NF_U32, .has_min = true, .min = EASTWEST_OP_MODIFY_QP, .has_max = true, .max = EASTWEST_OP_ULP_BIND },
	{ .type = EASTWEST_A_EVENT_REASON, .set = "event", .name = "reason", .kind = NF_U32, .has_min = true, .min = EASTWEST_REASON_NO_JOB, .has_max = true, .max = EASTWEST_REASON_KERNEL_ULP },
	{ .type = EASTWEST_A_EVENT_MODE, .set = "event", .name = "mode", .kind = NF_U32, .has_max = true, .max = EASTWEST_MODE_AUDIT },
	{ .type = EASTWEST_A_EVENT_JOB_ID, .set = "event", .name = "job-id", .kind = NF_U32 },
	{ .type = EASTWEST_A_EVENT_PID, .set = "event", .name = "pid", .kind = NF_U32 },
	{ .type = EASTWEST_A_EVENT_COMM, .set = "event", .name = "comm", .kind = NF_STRING },
	{ .type = EASTWEST_A_EVENT_CGROUP_ID, .set = "event", .name = "cgroup-id", .kind = NF_U64 },
	{ .type = EASTWEST_A_EVENT_DEV_NAME, .set = "event", .name = "dev-name", .kind = NF_STRING },
	{ .type = EASTWEST_A_EVENT_PORT, .set = "event", .name = "port", .kind = NF_U32 },
	{ .type = EASTWEST_A_EVENT_QPN, .set = "event", .name = "qpn", .kind = NF_U32 },
	{ .type = EASTWEST_A_EVENT_DEST_GID, .set = "event", .name = "dest-gid", .kind = NF_BINARY },
	{ .type = EASTWEST_A_EVENT_DEST_LID, .set = "event", .name = "dest-lid", .kind = NF_U16 },
	{ .type = EASTWEST_A_EVENT_DEST_QPN, .set = "event", .name = "dest-qpn", .kind = NF_U32 },
	{ .type = EASTWEST_A_EVENT_UID, .set = "event", .name = "uid", .kind = NF_U32 },
};
const struct nf_set nf_set_event = NF_SET(event_attrs, "event", EASTWEST_A_EVENT_MAX);

static const struct nf_attr peer_list_attrs[] = {
	{ .type = EASTWEST_A_PEER_LIST_JOB_ID, .set = "peer-list", .name = "job-id", .kind = NF_U32, .has_min = true, .min = 1 },
	{ .type = EASTWEST_A_PEER_LIST_PEER, .set = "peer-list", .name = "peer", .kind = NF_NEST, .nest = &nf_set_peer, .multi = true },
	{ .type = EASTWEST_A_PEER_LIST_PEER_RECS, .set = "peer-list", .name = "peer-recs", .kind = NF_BINARY, .len = EASTWEST_PEER_REC_LEN, .records = true, .multi = true },
};
const struct nf_set nf_set_peer_list = NF_SET(peer_list_attrs, "peer-list", EASTWEST_A_PEER_LIST_MAX);

const struct nf_op nf_ops[] = {
	{ .cmd = EASTWEST_CMD_JOB_GET, .name = "job-get", .admin = true, .has_do = true, .has_dump = true,
	  .set = &nf_set_job, .n_req = 2, .req = { EASTWEST_A_JOB_ID, EASTWEST_A_JOB_NAME } },
	{ .cmd = EASTWEST_CMD_JOB_NEW, .name = "job-new", .admin = true, .has_do = true, .has_dump = false,
	  .set = &nf_set_job, .n_req = 15, .req = { EASTWEST_A_JOB_ID, EASTWEST_A_JOB_NAME, EASTWEST_A_JOB_MODE, EASTWEST_A_JOB_ENCRYPT, EASTWEST_A_JOB_QKEY, EASTWEST_A_JOB_PSN, EASTWEST_A_JOB_PSN_KEY, EASTWEST_A_JOB_CGROUP, EASTWEST_A_JOB_PEER, EASTWEST_A_JOB_NETDEV, EASTWEST_A_JOB_PKEY, EASTWEST_A_JOB_UD, EASTWEST_A_JOB_DC, EASTWEST_A_JOB_PEER_RECS, EASTWEST_A_JOB_PSN_RUN } },
	{ .cmd = EASTWEST_CMD_JOB_SET, .name = "job-set", .admin = true, .has_do = true, .has_dump = false,
	  .set = &nf_set_job, .n_req = 13, .req = { EASTWEST_A_JOB_ID, EASTWEST_A_JOB_NAME, EASTWEST_A_JOB_MODE, EASTWEST_A_JOB_ENCRYPT, EASTWEST_A_JOB_QKEY, EASTWEST_A_JOB_PSN, EASTWEST_A_JOB_PSN_KEY, EASTWEST_A_JOB_CGROUP, EASTWEST_A_JOB_NETDEV, EASTWEST_A_JOB_PKEY, EASTWEST_A_JOB_UD, EASTWEST_A_JOB_DC, EASTWEST_A_JOB_PSN_RUN } },
	{ .cmd = EASTWEST_CMD_JOB_DEL, .name = "job-del", .admin = true, .has_do = true, .has_dump = false,
	  .set = &nf_set_job, .n_req = 2, .req = { EASTWEST_A_JOB_ID, EASTWEST_A_JOB_NAME } },
	{ .cmd = EASTWEST_CMD_PEER_ADD, .name = "peer-add", .admin = true, .has_do = true, .has_dump = false,
	  .set = &nf_set_peer_list, .n_req = 3, .req = { EASTWEST_A_PEER_LIST_JOB_ID, EASTWEST_A_PEER_LIST_PEER, EASTWEST_A_PEER_LIST_PEER_RECS } },
	{ .cmd = EASTWEST_CMD_PEER_DEL, .name = "peer-del", .admin = true, .has_do = true, .has_dump = false,
	  .set = &nf_set_peer_list, .n_req = 2, .req = { EASTWEST_A_PEER_LIST_JOB_ID, EASTWEST_A_PEER_LIST_PEER } },
	{ .cmd = EASTWEST_CMD_PEER_GET, .name = "peer-get", .admin = true, .has_do = true, .has_dump = true,
	  .set = &nf_set_peer_list, .n_req = 2, .req = { EASTWEST_A_PEER_LIST_JOB_ID, EASTWEST_A_PEER_LIST_PEER } },
	{ .cmd = EASTWEST_CMD_DEV_GET, .name = "dev-get", .admin = false, .has_do = true, .has_dump = true,
	  .set = &nf_set_dev, .n_req = 2, .req = { EASTWEST_A_DEV_INDEX, EASTWEST_A_DEV_NAME } },
	{ .cmd = EASTWEST_CMD_CONFIG_GET, .name = "config-get", .admin = false, .has_do = true, .has_dump = false,
	  .set = &nf_set_config, .n_req = 1, .req = { EASTWEST_A_CONFIG_MODE } },
	{ .cmd = EASTWEST_CMD_CONFIG_SET, .name = "config-set", .admin = true, .has_do = true, .has_dump = false,
	  .set = &nf_set_config, .n_req = 5, .req = { EASTWEST_A_CONFIG_MODE, EASTWEST_A_CONFIG_DEFAULT_ACTION, EASTWEST_A_CONFIG_ADMISSION, EASTWEST_A_CONFIG_ADMISSION_REQUIRED, EASTWEST_A_CONFIG_ADMISSION_TTL } },
	{ .cmd = EASTWEST_CMD_PATH_GET, .name = "path-get", .admin = true, .has_do = true, .has_dump = false,
	  .set = &nf_set_path, .n_req = 5, .req = { EASTWEST_A_PATH_DEV_INDEX, EASTWEST_A_PATH_DEV_NAME, EASTWEST_A_PATH_PORT, EASTWEST_A_PATH_SGID_INDEX, EASTWEST_A_PATH_DGID } },
	{ .cmd = EASTWEST_CMD_FABRIC_SET, .name = "fabric-set", .admin = true, .has_do = true, .has_dump = false,
	  .set = &nf_set_fabric, .n_req = 2, .req = { EASTWEST_A_FABRIC_IFINDEX, EASTWEST_A_FABRIC_PHYSICAL } },
	{ .cmd = EASTWEST_CMD_NODE_SET, .name = "node-set", .admin = true, .has_do = true, .has_dump = false,
	  .set = &nf_set_node, .n_req = 2, .req = { EASTWEST_A_NODE_ADDR, EASTWEST_A_NODE_ADMISSION } },
	{ .cmd = EASTWEST_CMD_DENY_NTF, .name = "deny-ntf", .admin = false, .has_do = false, .has_dump = false,
	  .set = &nf_set_event, .n_req = 0 },
	{ .cmd = EASTWEST_CMD_REVOKE_NTF, .name = "revoke-ntf", .admin = false, .has_do = false, .has_dump = false,
	  .set = &nf_set_event, .n_req = 0 },
	{ .cmd = EASTWEST_CMD_DEV_ADD_NTF, .name = "dev-add-ntf", .admin = false, .has_do = false, .has_dump = false,
	  .set = &nf_set_dev, .n_req = 0 },
	{ .cmd = EASTWEST_CMD_DEV_DEL_NTF, .name = "dev-del-ntf", .admin = false, .has_do = false, .has_dump = false,
	  .set = &nf_set_dev, .n_req = 0 },
	{ .cmd = EASTWEST_CMD_ADMISSION_NTF, .name = "admission-ntf", .admin = false, .has_do = false, .has_dump = false,
	  .set = &nf_set_config, .n_req = 0 },
};

const unsigned int nf_n_ops = sizeof(nf_ops) / sizeof(nf_ops[0]);
