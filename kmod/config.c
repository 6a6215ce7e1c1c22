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

struct ew_counters __percpu *ew_counters_global;

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
