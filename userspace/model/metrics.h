/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decision counters as metrics: the Prometheus text exposition format,
 * rates between two samples, jobs ranked by denials. Pure code.
 */
#ifndef EW_METRICS_H
#define EW_METRICS_H

#include <stddef.h>
#include <stdio.h>

#include "model/model.h"

/* Where node_exporter's textfile collector looks (Debian's default). */
#define EW_PROM_TEXTFILE "/var/lib/prometheus/node-exporter/eastwest.prom"

void ew_prom_write(const struct ew_state *st, FILE *f);
void ew_prom_write_down(FILE *f);
void ew_prom_label_value(const char *s, FILE *f);

void ew_counters_rate(const struct ew_counter_set *now, const struct ew_counter_set *prev,
		      double seconds, double rate[EW_N_COUNTERS]);
const struct ew_job_desc *ew_job_previous(const struct ew_state *prev,
				     const struct ew_job_desc *job);
size_t ew_jobs_by_denials(const struct ew_state *st, size_t **order);

#endif /* EW_METRICS_H */
