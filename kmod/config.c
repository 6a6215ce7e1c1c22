// SPDX-License-Identifier: GPL-2.0
/*
 * Global settings and counters.
 *
 * The module starts fail-closed: enforce mode, processes in no job denied.
 * An operator who wants to observe first sets audit mode explicitly.
 */

#include <linux/percpu.h>

#include "config.h"

/* Serialises every writer of jobs, peers, bindings and global settings. */
DEFINE_MUTEX(ew_config_lock);

struct ew_global ew_global = {
	.mode = EASTWEST_MODE_ENFORCE,
	.default_action = EASTWEST_DEFAULT_ACTION_DENY,
	.admission = EASTWEST_ADMISSION_UNATTESTED,
};

static struct ew_counters __percpu *ew_counters_global;

/**
 * ew_global_snapshot() - read the global settings once, for one decision
 * @out: copy
 */
void ew_global_snapshot(struct ew_global *out)
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
void ew_counter_inc(struct ew_job *job, unsigned int idx)
{
	if (WARN_ON_ONCE(idx >= EW_CTR_MAX))
		return;
	this_cpu_inc(ew_counters_global->v[idx]);
	if (job)
		this_cpu_inc(job->counters->v[idx]);
}

/**
 * ew_counters_sum() - add up per-CPU counters
 * @pcpu: the counters
 * @out: the totals
 */
void ew_counters_sum(struct ew_counters __percpu *pcpu, struct ew_counters *out)
{
	unsigned int cpu, i;

	memset(out, 0, sizeof(*out));
	for_each_possible_cpu(cpu) {
		const struct ew_counters *c = per_cpu_ptr(pcpu, cpu);

		for (i = 0; i < EW_CTR_MAX; i++)
			out->v[i] += READ_ONCE(c->v[i]);
	}
}

/**
 * ew_global_counters() - the node-wide counters
 */
struct ew_counters __percpu *ew_global_counters(void)
{
	return ew_counters_global;
}

/**
 * ew_config_init() - allocate the global counters
 */
int ew_config_init(void)
{
	ew_counters_global = alloc_percpu(struct ew_counters);
	return ew_counters_global ? 0 : -ENOMEM;
}

/**
 * ew_config_exit() - free the global counters
 */
void ew_config_exit(void)
{
	free_percpu(ew_counters_global);
}
