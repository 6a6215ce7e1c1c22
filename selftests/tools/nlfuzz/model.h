/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzzer knows about the eastwest family: every operation with its
 * request attributes and their policy (type, length, range), mirroring
 * Documentation/netlink/specs/eastwest.yaml. `ew_nlfuzz --print-model`
 * prints it so that selftests/eastwest/nlfuzz.sh can check it against the
 * spec: an op or attribute added to the spec and not here fails that test.
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
	const char *name;
	enum nf_kind kind;
	/* NF_STRING: longest accepted string without its NUL (0: no limit);
	 * NF_BINARY: the exact length. */
	uint32_t len;
	bool has_min, has_max;
	uint64_t min, max;
	const struct nf_set *nest;
	enum nf_pool pool;
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

extern const struct nf_op nf_ops[];
extern const unsigned int nf_n_ops;

const struct nf_attr *nf_set_attr(const struct nf_set *set, uint16_t type);
const struct nf_op *nf_op_by_cmd(uint8_t cmd);
const struct nf_set *nf_peer_set(void);
void nf_print_model(void);

#endif
