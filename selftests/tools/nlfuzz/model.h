/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzzer knows about the eastwest family: every operation with its
 * request attributes and their policy (type, length, range). The tables
 * (model-gen.c) are generated from Documentation/netlink/specs/eastwest.yaml
 * by scripts/ynl-regen; what the spec does not say (where plausible values
 * come from) is written by hand in model.c. `ew_nlfuzz --print-model`
 * prints the model so that selftests/eastwest/nlfuzz.sh can check it
 * against the spec.
 */
#ifndef EW_NLFUZZ_MODEL_H
#define EW_NLFUZZ_MODEL_H

#include <stdbool.h>
#include <stdint.h>

enum nf_kind { NF_U8, NF_U16, NF_U32, NF_U64, NF_STRING, NF_BINARY, NF_NEST, NF_PAD };

/* Where plausible values of an attribute come from. */
enum nf_pool {
	NF_POOL_NONE,
	NF_POOL_JOB_ID,
	NF_POOL_JOB_NAME,
	NF_POOL_CGROUP,
	NF_POOL_ADDR,
	NF_POOL_DEV_INDEX,
	NF_POOL_DEV_NAME,
	NF_POOL_IFINDEX,
};

struct nf_set;

struct nf_attr {
	uint16_t type;
	const char *set;	/* name of the attribute set it belongs to */
	const char *name;
	enum nf_kind kind;
	/* NF_STRING: longest accepted string without its NUL (0: no limit);
	 * NF_BINARY: the exact length, or with @records one record's. */
	uint32_t len;
	bool records;	/* NF_BINARY: records of @len bytes back to back */
	bool has_min, has_max;
	uint64_t min, max;
	const struct nf_set *nest;
	bool multi;
};

struct nf_set {
	const char *name;
	uint16_t max_type;	/* highest attribute type of the set */
	unsigned int n;
	const struct nf_attr *attrs;
};

#define NF_MAX_REQ 16

struct nf_op {
	uint8_t cmd;
	const char *name;
	bool admin;		/* GENL_ADMIN_PERM: needs CAP_NET_ADMIN */
	bool has_do, has_dump;
	const struct nf_set *set;
	unsigned int n_req;
	uint16_t req[NF_MAX_REQ];	/* request attribute types */
};

/* Generated (model-gen.c): the operations and the nested set of peers. */
extern const struct nf_op nf_ops[];
extern const struct nf_set nf_set_peer;
extern const unsigned int nf_n_ops;

enum nf_pool nf_pool_of(const struct nf_attr *a);
const struct nf_attr *nf_set_attr(const struct nf_set *set, uint16_t type);
const struct nf_op *nf_op_by_cmd(uint8_t cmd);
const struct nf_set *nf_peer_set(void);
void nf_print_model(void);

#endif
