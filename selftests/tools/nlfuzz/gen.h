/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Structure-aware generation of eastwest requests: valid netlink and genl
 * headers around every command, with attributes drawn from the family's
 * policies (model.h) at plausible, boundary and wrong lengths, types and
 * values, nested garbage, truncations, oversized messages, header
 * mutations and byte-level mutations of valid messages.
 */
#ifndef EW_NLFUZZ_GEN_H
#define EW_NLFUZZ_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

#define NF_MSG_MAX	(256 * 1024)
#define NF_POOL_MAX	64
#define NF_NAME_MAX	64

/* Values that name real objects, so that requests reach past the lookups. */
struct nf_pools {
	uint32_t job_ids[NF_POOL_MAX];
	unsigned int n_job_ids;
	char job_names[NF_POOL_MAX][NF_NAME_MAX];
	unsigned int n_job_names;
	const char *cgroups[NF_POOL_MAX];
	unsigned int n_cgroups;
	uint32_t dev_index[NF_POOL_MAX];
	unsigned int n_dev_index;
	char dev_names[NF_POOL_MAX][NF_NAME_MAX];
	unsigned int n_dev_names;
};

enum nf_strategy {
	NF_S_PLAUSIBLE,		/* valid shape, values from the pools */
	NF_S_BOUNDARY,		/* every policy attribute at edge lengths/values */
	NF_S_WRONG_TYPE,	/* attributes of another kind in a slot */
	NF_S_NEST_GARBAGE,	/* nests of random bytes, deep or inconsistent */
	NF_S_MUTATE,		/* byte mutations of a plausible message */
	NF_S_HEADER,		/* flags, version, reserved, cmd, type */
	NF_S_TRUNCATE,		/* cut short, framed or not */
	NF_S_OVERSIZE,		/* far too many or too long attributes */
	NF_S_COUNT
};

extern const char *const nf_strategy_names[NF_S_COUNT];

struct nf_msg {
	uint8_t buf[NF_MSG_MAX];
	size_t len;			/* bytes to send */
	enum nf_strategy strategy;
};

/* Build message into @m for family @family with sequence number @seq. */
void nf_gen(struct nf_rng *r, const struct nf_pools *p, uint16_t family,
	    uint32_t seq, struct nf_msg *m);

#endif
