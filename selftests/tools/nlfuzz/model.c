// SPDX-License-Identifier: GPL-2.0
/*
 * The eastwest family as the fuzzer sees it: attribute sets and operations
 * with their request policies (see model.h). Values come from the generated
 * uapi header, so only the shape is written down here.
 */
#include <stdio.h>

#include <linux/eastwest.h>

#include "model.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SET(var, nm, maxt) \
	{ .name = (nm), .max_type = (maxt), .n = ARRAY_SIZE(var), .attrs = (var) }

/* Enumerations and checks of the spec as ranges. */
#define RANGE(lo, hi) .has_min = true, .min = (lo), .has_max = true, .max = (hi)
#define MIN(lo) .has_min = true, .min = (lo)
#define MAX(hi) .has_max = true, .max = (hi)

static const struct nf_attr peer_attrs[] = {
	{ .type = EASTWEST_A_PEER_ADDR, .name = "addr", .kind = NF_BINARY, .len = 16, .pool = NF_POOL_ADDR },
	{ .type = EASTWEST_A_PEER_PREFIX_LEN, .name = "prefix-len", .kind = NF_U8, MAX(128) },
	{ .type = EASTWEST_A_PEER_LID, .name = "lid", .kind = NF_U16 },
};
static const struct nf_set peer_set = SET(peer_attrs, "peer", EASTWEST_A_PEER_MAX);

static const struct nf_attr netdev_attrs[] = {
	{ .type = EASTWEST_A_NETDEV_IFINDEX, .name = "ifindex", .kind = NF_U32, MIN(1), .pool = NF_POOL_IFINDEX },
	{ .type = EASTWEST_A_NETDEV_VLAN, .name = "vlan", .kind = NF_U16, RANGE(1, 4094) },
	{ .type = EASTWEST_A_NETDEV_VRF, .name = "vrf", .kind = NF_U32, MIN(1), .pool = NF_POOL_IFINDEX },
};
static const struct nf_set netdev_set = SET(netdev_attrs, "netdev", EASTWEST_A_NETDEV_MAX);

static const struct nf_attr cgroup_attrs[] = {
	{ .type = EASTWEST_A_CGROUP_PATH, .name = "path", .kind = NF_STRING, .len = EASTWEST_CGROUP_PATH_MAX,
	  .pool = NF_POOL_CGROUP },
	{ .type = EASTWEST_A_CGROUP_ID, .name = "id", .kind = NF_U64 },
	{ .type = EASTWEST_A_CGROUP_PAD, .name = "pad", .kind = NF_PAD },
};
static const struct nf_set cgroup_set = SET(cgroup_attrs, "cgroup", EASTWEST_A_CGROUP_MAX);

static const struct nf_attr job_attrs[] = {
	{ .type = EASTWEST_A_JOB_ID, .name = "id", .kind = NF_U32, MIN(1), .pool = NF_POOL_JOB_ID },
	{ .type = EASTWEST_A_JOB_NAME, .name = "name", .kind = NF_STRING, .len = EASTWEST_JOB_NAME_LEN,
	  .pool = NF_POOL_JOB_NAME },
	{ .type = EASTWEST_A_JOB_MODE, .name = "mode", .kind = NF_U32, MAX(EASTWEST_MODE_AUDIT) },
	{ .type = EASTWEST_A_JOB_ENCRYPT, .name = "encrypt", .kind = NF_U32, MAX(EASTWEST_ENCRYPT_IPSEC) },
	{ .type = EASTWEST_A_JOB_QKEY, .name = "qkey", .kind = NF_U32 },
	{ .type = EASTWEST_A_JOB_CGROUP, .name = "cgroup", .kind = NF_NEST, .nest = &cgroup_set, .multi = true },
	{ .type = EASTWEST_A_JOB_PEER, .name = "peer", .kind = NF_NEST, .nest = &peer_set, .multi = true },
	{ .type = EASTWEST_A_JOB_NETDEV, .name = "netdev", .kind = NF_NEST, .nest = &netdev_set, .multi = true },
	{ .type = EASTWEST_A_JOB_PKEY, .name = "pkey", .kind = NF_U16, .multi = true },
	{ .type = EASTWEST_A_JOB_PEER_COUNT, .name = "peer-count", .kind = NF_U32 },
	{ .type = EASTWEST_A_JOB_QP_COUNT, .name = "qp-count", .kind = NF_U32 },
	{ .type = EASTWEST_A_JOB_UD, .name = "ud", .kind = NF_U8, MAX(1) },
	{ .type = EASTWEST_A_JOB_DC, .name = "dc", .kind = NF_U8, MAX(1) },
	{ .type = EASTWEST_A_JOB_PSN, .name = "psn", .kind = NF_U32, MAX(EASTWEST_PSN_KEYED) },
	{ .type = EASTWEST_A_JOB_PSN_KEY, .name = "psn-key", .kind = NF_BINARY, .len = 16 },
};
static const struct nf_set job_set = SET(job_attrs, "job", EASTWEST_A_JOB_MAX);

static const struct nf_attr dev_attrs[] = {
	{ .type = EASTWEST_A_DEV_INDEX, .name = "index", .kind = NF_U32, .pool = NF_POOL_DEV_INDEX },
	{ .type = EASTWEST_A_DEV_NAME, .name = "name", .kind = NF_STRING, .pool = NF_POOL_DEV_NAME },
	{ .type = EASTWEST_A_DEV_QPN_OBSERVED, .name = "qpn-observed", .kind = NF_U32 },
};
static const struct nf_set dev_set = SET(dev_attrs, "dev", EASTWEST_A_DEV_MAX);

static const struct nf_attr config_attrs[] = {
	{ .type = EASTWEST_A_CONFIG_MODE, .name = "mode", .kind = NF_U32, MAX(EASTWEST_MODE_AUDIT) },
	{ .type = EASTWEST_A_CONFIG_DEFAULT_ACTION, .name = "default-action", .kind = NF_U32,
	  MAX(EASTWEST_DEFAULT_ACTION_ALLOW) },
	{ .type = EASTWEST_A_CONFIG_VERSION, .name = "version", .kind = NF_STRING },
	{ .type = EASTWEST_A_CONFIG_JOB_COUNT, .name = "job-count", .kind = NF_U32 },
	{ .type = EASTWEST_A_CONFIG_ADMISSION, .name = "admission", .kind = NF_U32, MAX(EASTWEST_ADMISSION_REVOKED) },
	{ .type = EASTWEST_A_CONFIG_ADMISSION_REQUIRED, .name = "admission-required", .kind = NF_U8, MAX(1) },
	{ .type = EASTWEST_A_CONFIG_ADMISSION_TTL, .name = "admission-ttl", .kind = NF_U32 },
};
static const struct nf_set config_set = SET(config_attrs, "config", EASTWEST_A_CONFIG_MAX);

static const struct nf_attr path_attrs[] = {
	{ .type = EASTWEST_A_PATH_DEV_INDEX, .name = "dev-index", .kind = NF_U32, .pool = NF_POOL_DEV_INDEX },
	{ .type = EASTWEST_A_PATH_DEV_NAME, .name = "dev-name", .kind = NF_STRING, .pool = NF_POOL_DEV_NAME },
	{ .type = EASTWEST_A_PATH_PORT, .name = "port", .kind = NF_U32, MIN(1) },
	{ .type = EASTWEST_A_PATH_SGID_INDEX, .name = "sgid-index", .kind = NF_U32 },
	{ .type = EASTWEST_A_PATH_DGID, .name = "dgid", .kind = NF_BINARY, .len = 16, .pool = NF_POOL_ADDR },
	{ .type = EASTWEST_A_PATH_PROTECTION, .name = "protection", .kind = NF_U32 },
};
static const struct nf_set path_set = SET(path_attrs, "path", EASTWEST_A_PATH_MAX);

static const struct nf_attr fabric_attrs[] = {
	{ .type = EASTWEST_A_FABRIC_IFINDEX, .name = "ifindex", .kind = NF_U32, MIN(1), .pool = NF_POOL_IFINDEX },
	{ .type = EASTWEST_A_FABRIC_PHYSICAL, .name = "physical", .kind = NF_U8, MAX(1) },
};
static const struct nf_set fabric_set = SET(fabric_attrs, "fabric", EASTWEST_A_FABRIC_MAX);

static const struct nf_attr node_attrs[] = {
	{ .type = EASTWEST_A_NODE_ADDR, .name = "addr", .kind = NF_BINARY, .len = 16, .pool = NF_POOL_ADDR,
	  .multi = true },
	{ .type = EASTWEST_A_NODE_ADMISSION, .name = "admission", .kind = NF_U32, MAX(EASTWEST_ADMISSION_REVOKED) },
};
static const struct nf_set node_set = SET(node_attrs, "node", EASTWEST_A_NODE_MAX);

static const struct nf_attr peer_list_attrs[] = {
	{ .type = EASTWEST_A_PEER_LIST_JOB_ID, .name = "job-id", .kind = NF_U32, MIN(1), .pool = NF_POOL_JOB_ID },
	{ .type = EASTWEST_A_PEER_LIST_PEER, .name = "peer", .kind = NF_NEST, .nest = &peer_set, .multi = true },
};
static const struct nf_set peer_list_set =
	SET(peer_list_attrs, "peer-list", EASTWEST_A_PEER_LIST_MAX);

#define REQ(...) .req = { __VA_ARGS__ }, \
	.n_req = sizeof((uint16_t[]){ __VA_ARGS__ }) / sizeof(uint16_t)

const struct nf_op nf_ops[] = {
	{ EASTWEST_CMD_JOB_GET, "job-get", true, true, true, &job_set,
	  REQ(EASTWEST_A_JOB_ID, EASTWEST_A_JOB_NAME) },
	{ EASTWEST_CMD_JOB_NEW, "job-new", true, true, false, &job_set,
	  REQ(EASTWEST_A_JOB_ID, EASTWEST_A_JOB_NAME, EASTWEST_A_JOB_MODE,
	      EASTWEST_A_JOB_ENCRYPT, EASTWEST_A_JOB_QKEY, EASTWEST_A_JOB_PSN,
	      EASTWEST_A_JOB_PSN_KEY, EASTWEST_A_JOB_CGROUP,
	      EASTWEST_A_JOB_PEER, EASTWEST_A_JOB_NETDEV, EASTWEST_A_JOB_PKEY,
	      EASTWEST_A_JOB_UD, EASTWEST_A_JOB_DC) },
	{ EASTWEST_CMD_JOB_SET, "job-set", true, true, false, &job_set,
	  REQ(EASTWEST_A_JOB_ID, EASTWEST_A_JOB_NAME, EASTWEST_A_JOB_MODE,
	      EASTWEST_A_JOB_ENCRYPT, EASTWEST_A_JOB_QKEY, EASTWEST_A_JOB_PSN,
	      EASTWEST_A_JOB_PSN_KEY, EASTWEST_A_JOB_CGROUP,
	      EASTWEST_A_JOB_NETDEV, EASTWEST_A_JOB_PKEY, EASTWEST_A_JOB_UD,
	      EASTWEST_A_JOB_DC) },
	{ EASTWEST_CMD_JOB_DEL, "job-del", true, true, false, &job_set,
	  REQ(EASTWEST_A_JOB_ID, EASTWEST_A_JOB_NAME) },
	{ EASTWEST_CMD_PEER_ADD, "peer-add", true, true, false, &peer_list_set,
	  REQ(EASTWEST_A_PEER_LIST_JOB_ID, EASTWEST_A_PEER_LIST_PEER) },
	{ EASTWEST_CMD_PEER_DEL, "peer-del", true, true, false, &peer_list_set,
	  REQ(EASTWEST_A_PEER_LIST_JOB_ID, EASTWEST_A_PEER_LIST_PEER) },
	{ EASTWEST_CMD_PEER_GET, "peer-get", true, true, true, &peer_list_set,
	  REQ(EASTWEST_A_PEER_LIST_JOB_ID, EASTWEST_A_PEER_LIST_PEER) },
	{ EASTWEST_CMD_DEV_GET, "dev-get", false, true, true, &dev_set,
	  REQ(EASTWEST_A_DEV_INDEX, EASTWEST_A_DEV_NAME) },
	{ EASTWEST_CMD_CONFIG_GET, "config-get", false, true, false, &config_set,
	  REQ(EASTWEST_A_CONFIG_MODE) },
	{ EASTWEST_CMD_CONFIG_SET, "config-set", true, true, false, &config_set,
	  REQ(EASTWEST_A_CONFIG_MODE, EASTWEST_A_CONFIG_DEFAULT_ACTION,
	      EASTWEST_A_CONFIG_ADMISSION, EASTWEST_A_CONFIG_ADMISSION_REQUIRED,
	      EASTWEST_A_CONFIG_ADMISSION_TTL) },
	{ EASTWEST_CMD_PATH_GET, "path-get", true, true, false, &path_set,
	  REQ(EASTWEST_A_PATH_DEV_INDEX, EASTWEST_A_PATH_DEV_NAME,
	      EASTWEST_A_PATH_PORT, EASTWEST_A_PATH_SGID_INDEX, EASTWEST_A_PATH_DGID) },
	{ EASTWEST_CMD_FABRIC_SET, "fabric-set", true, true, false, &fabric_set,
	  REQ(EASTWEST_A_FABRIC_IFINDEX, EASTWEST_A_FABRIC_PHYSICAL) },
	{ EASTWEST_CMD_NODE_SET, "node-set", true, true, false, &node_set,
	  REQ(EASTWEST_A_NODE_ADDR, EASTWEST_A_NODE_ADMISSION) },
	/* Notifications: no request side; a request with their cmd is refused. */
	{ EASTWEST_CMD_DENY_NTF, "deny-ntf", false, false, false, &job_set, .n_req = 0 },
	{ EASTWEST_CMD_REVOKE_NTF, "revoke-ntf", false, false, false, &job_set, .n_req = 0 },
	{ EASTWEST_CMD_DEV_ADD_NTF, "dev-add-ntf", false, false, false, &dev_set, .n_req = 0 },
	{ EASTWEST_CMD_DEV_DEL_NTF, "dev-del-ntf", false, false, false, &dev_set, .n_req = 0 },
	{ EASTWEST_CMD_ADMISSION_NTF, "admission-ntf", false, false, false, &config_set,
	  .n_req = 0 },
};
const unsigned int nf_n_ops = ARRAY_SIZE(nf_ops);

const struct nf_attr *nf_set_attr(const struct nf_set *set, uint16_t type)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (set->attrs[i].type == type)
			return &set->attrs[i];
	return NULL;
}

const struct nf_op *nf_op_by_cmd(uint8_t cmd)
{
	unsigned int i;

	for (i = 0; i < nf_n_ops; i++)
		if (nf_ops[i].cmd == cmd)
			return &nf_ops[i];
	return NULL;
}

const struct nf_set *nf_peer_set(void)
{
	return &peer_set;
}

static const char *const nf_kind_names[] = {
	[NF_U8] = "u8", [NF_U16] = "u16", [NF_U32] = "u32", [NF_U64] = "u64",
	[NF_STRING] = "string", [NF_BINARY] = "binary", [NF_NEST] = "nest",
	[NF_PAD] = "pad",
};

/*
 * One line per op: "op NAME CMD admin=0|1 do=0|1 dump=0|1 ATTR:KIND...", with
 * nested attributes as ATTR:nest(SET).
 */
void nf_print_model(void)
{
	unsigned int i, j;

	for (i = 0; i < nf_n_ops; i++) {
		const struct nf_op *op = &nf_ops[i];

		printf("op %s %u admin=%d do=%d dump=%d", op->name, op->cmd,
		       op->admin, op->has_do, op->has_dump);
		for (j = 0; j < op->n_req; j++) {
			const struct nf_attr *a = nf_set_attr(op->set, op->req[j]);

			if (!a) {	/* a table error: say so rather than crash */
				printf(" ?%u", op->req[j]);
				continue;
			}
			printf(" %s:%s", a->name, nf_kind_names[a->kind]);
			if (a->nest) {
				unsigned int k;

				printf("(%s", a->nest->name);
				for (k = 0; k < a->nest->n; k++)
					printf("%s%s:%s", k ? "," : ":",
					       a->nest->attrs[k].name,
					       nf_kind_names[a->nest->attrs[k].kind]);
				printf(")");
			}
		}
		printf("\n");
	}
}
