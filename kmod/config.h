/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_CONFIG_H
#define _EW_CONFIG_H

#include <linux/mutex.h>
#include <linux/percpu.h>
#include "job.h"
#include "policy.h"

/* Serialises every change of jobs, peers, bindings and global settings. */
extern struct mutex ew_config_lock;

/* Global settings: written under ew_config_lock, read with READ_ONCE. */
extern struct ew_global ew_global;

/* Node-wide decision counters (per CPU); a job's are in the job. */
extern struct ew_counters __percpu *ew_counters_global;

/*
 * The two helpers every judged call uses are inline: each is a handful of
 * instructions, less than a call to another file costs.
 */

/**
 * ew_global_snapshot() - read the global settings once, for one decision
 * @out: copy
 */
static inline void ew_global_snapshot(struct ew_global *out)
{
	out->mode = READ_ONCE(ew_global.mode);
	out->default_action = READ_ONCE(ew_global.default_action);
	out->admission = READ_ONCE(ew_global.admission);
	out->admission_required = READ_ONCE(ew_global.admission_required);
}

/**
 * ew_counter_inc() - count a decision globally and for its job
 * @job: the caller's job or NULL
 * @idx: enum ew_counter
 *
 * Context: any; per-CPU counters, no locks.
 */
static inline void ew_counter_inc(struct ew_job *job, unsigned int idx)
{
	if (WARN_ON_ONCE(idx >= EW_CTR_MAX))
		return;
	this_cpu_inc(ew_counters_global->v[idx]);
	if (job)
		this_cpu_inc(job->counters->v[idx]);
}

void ew_counters_sum(struct ew_counters __percpu *pcpu, struct ew_counters *out);

int ew_config_init(void);
void ew_config_exit(void);

#endif /* _EW_CONFIG_H */
