/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_CONFIG_H
#define _EW_CONFIG_H

#include <linux/mutex.h>
#include "job.h"
#include "policy.h"

/* Serialises every change of jobs, peers, bindings and global settings. */
extern struct mutex ew_config_lock;

/* Global settings: written under ew_config_lock, read with READ_ONCE. */
extern struct ew_global ew_global;

void ew_global_snapshot(struct ew_global *out);
void ew_counter_inc(struct ew_job *job, unsigned int idx);
void ew_counters_sum(struct ew_counters __percpu *pcpu, struct ew_counters *out);
struct ew_counters __percpu *ew_global_counters(void);

int ew_config_init(void);
void ew_config_exit(void);

#endif /* _EW_CONFIG_H */
