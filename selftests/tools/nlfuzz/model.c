// SPDX-License-Identifier: GPL-2.0
/*
 * The eastwest family as the fuzzer sees it (see model.h): the hand-written
 * part. The sets and operations with their request policies are generated
 * (model-gen.c); here are the value pools the spec does not know, lookups
 * and --print-model.
 */
#include <stdio.h>
#include <string.h>

#include <linux/eastwest.h>

#include "model.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Where plausible values of an attribute come from: real objects (seeded
 * jobs, cgroups, the rxe device, netdevs), so that requests get past the
 * lookups. Not in the spec; an attribute not listed draws from its range.
 */
static const struct {
	const char *set, *attr;
	enum nf_pool pool;
} nf_pools_of[] = {
	{ "peer", "addr", NF_POOL_ADDR },
	{ "netdev", "ifindex", NF_POOL_IFINDEX },
	{ "netdev", "vrf", NF_POOL_IFINDEX },
	{ "cgroup", "path", NF_POOL_CGROUP },
	{ "job", "id", NF_POOL_JOB_ID },
	{ "job", "name", NF_POOL_JOB_NAME },
	{ "dev", "index", NF_POOL_DEV_INDEX },
	{ "dev", "name", NF_POOL_DEV_NAME },
	{ "path", "dev-index", NF_POOL_DEV_INDEX },
	{ "path", "dev-name", NF_POOL_DEV_NAME },
	{ "path", "dgid", NF_POOL_ADDR },
	{ "fabric", "ifindex", NF_POOL_IFINDEX },
	{ "node", "addr", NF_POOL_ADDR },
	{ "peer-list", "job-id", NF_POOL_JOB_ID },
};

enum nf_pool nf_pool_of(const struct nf_attr *a)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nf_pools_of); i++)
		if (!strcmp(nf_pools_of[i].set, a->set) &&
		    !strcmp(nf_pools_of[i].attr, a->name))
			return nf_pools_of[i].pool;
	return NF_POOL_NONE;
}

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
	return &nf_set_peer;
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
