/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plan that takes the node from its current state to a desired one.
 */
#ifndef EW_DIFF_H
#define EW_DIFF_H

#include "model/model.h"

enum ew_step_op {
	EW_STEP_JOB_DEL,
	EW_STEP_JOB_SET,
	EW_STEP_PEER_ADD,
	EW_STEP_PEER_DEL,
	EW_STEP_JOB_NEW,
	EW_STEP_CONFIG_SET,
};

struct ew_step {
	enum ew_step_op op;
	uint32_t id;			/* the job (all but NEW and CONFIG_SET) */
	char name[EASTWEST_JOB_NAME_MAX]; /* its name, for messages */
	uint32_t mask;			/* SET: EW_JOB_*; CONFIG_SET: EW_CFG_* */
	struct ew_job_desc job;		/* SET: the values to send (no peers) */
	struct ew_peers peers;		/* PEER_ADD, PEER_DEL */
	const struct ew_job_desc *src;	/* NEW: the desired job */
	struct ew_config config;	/* CONFIG_SET */
};

struct ew_plan {
	struct ew_step *steps;
	size_t n, cap;
};

void ew_peers_diff(const struct ew_peers *want, const struct ew_peers *have,
		   struct ew_peers *add, struct ew_peers *del);
uint32_t ew_job_diff(const struct ew_job_desc *want, const struct ew_job_desc *have);
void ew_plan_build(const struct ew_state *want, const struct ew_state *have,
		   struct ew_plan *plan);
void ew_plan_free(struct ew_plan *plan);
bool ew_state_unchanged(const struct ew_state *seen, const struct ew_state *have);
const char *ew_step_refused(const struct ew_step *s);

#endif /* EW_DIFF_H */
