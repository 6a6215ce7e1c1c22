// SPDX-License-Identifier: GPL-2.0
/*
 * Decision counters as metrics.
 *
 * ew_prom_write() prints the node as the Prometheus text exposition format
 * (version 0.0.4), for node_exporter's textfile collector or any scraper:
 *
 *   # HELP eastwest_denied_total Operations refused, by reason.
 *   # TYPE eastwest_denied_total counter
 *   eastwest_denied_total{reason="peer"} 2
 *   ...
 *   eastwest_job_denied_total{job_name="train42",job_id="1",reason="peer"} 2
 *
 * Node-wide counters and per-job counters are separate metric families
 * (eastwest_X, eastwest_job_X): the node's count includes operations of no
 * job, and sum() over a family mixing both would count jobs twice. Every
 * family is printed whole (HELP, TYPE, then all its samples), as the format
 * requires. Label values are escaped (backslash, double quote, newline);
 * job names cannot hold those today, the module's version string could.
 * A job's labels are job_name and job_id, not "job": Prometheus attaches
 * its own "job" (the scrape job) and would rename ours to exported_job.
 * Enumerations are "state sets": one sample per value, 1 for the current
 * one, so that an alert is a plain comparison (eastwest_mode{mode="audit"}
 * == 1).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <linux/eastwest.h>

#include "ewctl.h"
#include "model/metrics.h"
#include "model/parse.h"

static const struct {
	const char *verdict;
	unsigned int counter;
} verdicts[] = {
	{ "allowed", EASTWEST_A_COUNTERS_ALLOWED },
	{ "audited", EASTWEST_A_COUNTERS_AUDITED },
	{ "denied", EASTWEST_A_COUNTERS_DENIED },
};

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value, escaped as the exposition format wants. */
void ew_prom_label_value(const char *s, FILE *f)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void job_labels(FILE *f, const struct ew_job_desc *job)
{
	fputs("job_name=\"", f);
	ew_prom_label_value(job->name, f);
	fprintf(f, "\",job_id=\"%" PRIu32 "\"", job->id);
}

/* eastwest_X{KEY="v"} 1|0 for every value of an enumeration. */
static void stateset(FILE *f, const char *name, const char *help, const char *key,
		     const struct ew_names *names, uint32_t current)
{
	size_t i;

	family(f, name, "gauge", help);
	for (i = 0; i < names->n; i++)
		if (names->names[i])
			fprintf(f, "%s{%s=\"%s\"} %d\n", name, key, names->names[i],
				i == current);
}

static void gauge(FILE *f, const char *name, const char *help, uint64_t v)
{
	family(f, name, "gauge", help);
	fprintf(f, "%s %" PRIu64 "\n", name, v);
}

static void node_state(const struct ew_config *cfg, FILE *f)
{
	if (cfg->present & EW_CFG_VERSION) {
		family(f, "eastwest_info", "gauge", "The eastwest module's version (the value is 1).");
		fputs("eastwest_info{version=\"", f);
		ew_prom_label_value(cfg->version, f);
		fputs("\"} 1\n", f);
	}
	if (cfg->present & EW_CFG_MODE)
		stateset(f, "eastwest_mode", "Global mode: enforce refuses violations, audit only reports them.",
			 "mode", &ew_mode_names, cfg->mode);
	if (cfg->present & EW_CFG_DEFAULT)
		stateset(f, "eastwest_default_action", "Verdict for processes of no job.",
			 "action", &ew_default_action_names, cfg->default_action);
	if (cfg->present & EW_CFG_ADMISSION) {
		stateset(f, "eastwest_admission", "This node's admission to the fabric (attestation).",
			 "state", &ew_admission_names, cfg->admission);
		gauge(f, "eastwest_revoked_nodes", "Other nodes revoked on this node.",
		      cfg->n_revoked);
	}
	if (cfg->present & EW_CFG_ADMISSION_REQUIRED)
		gauge(f, "eastwest_admission_required",
		      "1 if jobs may use the fabric only while the node is admitted.",
		      cfg->admission_required);
	if (cfg->present & EW_CFG_ADMISSION_TTL)
		gauge(f, "eastwest_admission_lease_seconds",
		      "Seconds left of the admission lease (0: no lease).", cfg->admission_ttl);
	if (cfg->present & EW_CFG_JOB_COUNT)
		gauge(f, "eastwest_jobs", "Jobs defined on the node.", cfg->job_count);
	if (cfg->present & EW_CFG_PEER_COUNT)
		gauge(f, "eastwest_peers", "Peers of all jobs.", cfg->peer_count);
}

static void node_counters(const struct ew_counter_set *c, FILE *f)
{
	size_t i;

	family(f, "eastwest_decisions_total", "counter",
	       "Policed RDMA control-path operations, by verdict (audited: allowed by audit mode).");
	for (i = 0; i < EW_ARRAY_SIZE(verdicts); i++)
		fprintf(f, "eastwest_decisions_total{verdict=\"%s\"} %" PRIu64 "\n",
			verdicts[i].verdict, c->v[verdicts[i].counter]);
	family(f, "eastwest_denied_total", "counter", "Operations refused, by reason.");
	for (i = EASTWEST_REASON_NO_JOB; i <= EASTWEST_REASON_MAX; i++)
		fprintf(f, "eastwest_denied_total{reason=\"%s\"} %" PRIu64 "\n",
			ew_enum_name(&ew_reason_names, (uint32_t)i),
			c->v[ew_reason_counter[i]]);
	family(f, "eastwest_psn_zero_total", "counter", "QP modifies that set a PSN of 0.");
	fprintf(f, "eastwest_psn_zero_total %" PRIu64 "\n",
		c->v[EASTWEST_A_COUNTERS_PSN_ZERO]);
	family(f, "eastwest_events_dropped_total", "counter",
	       "Denial reports neither logged nor sent to listeners (the report ring full, or their source over its share).");
	fprintf(f, "eastwest_events_dropped_total %" PRIu64 "\n",
		c->v[EASTWEST_A_COUNTERS_EVENTS_DROPPED]);
}

/* A per-job count (EW_JOB_QP_COUNT, EW_JOB_PEER_COUNT), of the jobs that have it. */
static void job_gauge(const struct ew_state *st, FILE *f, const char *name,
		      const char *help, uint32_t what)
{
	bool head = false;
	size_t i;

	for (i = 0; i < st->n_jobs; i++) {
		const struct ew_job_desc *job = &st->jobs[i];

		if (!(job->present & what))
			continue;
		if (!head)
			family(f, name, "gauge", help);
		head = true;
		fprintf(f, "%s{", name);
		job_labels(f, job);
		fprintf(f, "} %" PRIu32 "\n",
			what == EW_JOB_QP_COUNT ? job->qp_count : job->peer_count);
	}
}

static void jobs(const struct ew_state *st, FILE *f)
{
	size_t i, k;

	if (!st->n_jobs)
		return;
	family(f, "eastwest_job_info", "gauge",
	       "A job and its settings (the value is 1).");
	for (i = 0; i < st->n_jobs; i++) {
		fputs("eastwest_job_info{", f);
		job_labels(f, &st->jobs[i]);
		fprintf(f, ",mode=\"%s\",encrypt=\"%s\"} 1\n",
			ew_enum_name(&ew_mode_names, st->jobs[i].mode),
			ew_enum_name(&ew_encrypt_names, st->jobs[i].encrypt));
	}
	job_gauge(st, f, "eastwest_job_qps", "Live QPs of a job.", EW_JOB_QP_COUNT);
	job_gauge(st, f, "eastwest_job_peers", "Peers (addresses, prefixes, LIDs) of a job.",
		  EW_JOB_PEER_COUNT);
	family(f, "eastwest_job_decisions_total", "counter",
	       "Policed operations of a job's processes, by verdict.");
	for (i = 0; i < st->n_jobs; i++) {
		for (k = 0; k < EW_ARRAY_SIZE(verdicts); k++) {
			fputs("eastwest_job_decisions_total{", f);
			job_labels(f, &st->jobs[i]);
			fprintf(f, ",verdict=\"%s\"} %" PRIu64 "\n", verdicts[k].verdict,
				st->jobs[i].counters.v[verdicts[k].counter]);
		}
	}
	family(f, "eastwest_job_denied_total", "counter",
	       "Operations of a job's processes refused, by reason.");
	for (i = 0; i < st->n_jobs; i++) {
		for (k = EASTWEST_REASON_NO_JOB; k <= EASTWEST_REASON_MAX; k++) {
			fputs("eastwest_job_denied_total{", f);
			job_labels(f, &st->jobs[i]);
			fprintf(f, ",reason=\"%s\"} %" PRIu64 "\n",
				ew_enum_name(&ew_reason_names, (uint32_t)k),
				st->jobs[i].counters.v[ew_reason_counter[k]]);
		}
	}
	family(f, "eastwest_job_psn_zero_total", "counter",
	       "QP modifies of a job's processes that set a PSN of 0.");
	for (i = 0; i < st->n_jobs; i++) {
		fputs("eastwest_job_psn_zero_total{", f);
		job_labels(f, &st->jobs[i]);
		fprintf(f, "} %" PRIu64 "\n",
			st->jobs[i].counters.v[EASTWEST_A_COUNTERS_PSN_ZERO]);
	}
}

static void up(FILE *f, int v)
{
	family(f, "eastwest_up", "gauge",
	       "1 if eastwestctl read the eastwest module, 0 if it could not (not loaded, no permission).");
	fprintf(f, "eastwest_up %d\n", v);
}

/**
 * ew_prom_write() - the node's state and counters, as Prometheus text
 * @st: config and jobs, from ew_ipc_state()
 * @f: where to write
 */
void ew_prom_write(const struct ew_state *st, FILE *f)
{
	up(f, 1);
	node_state(&st->config, f);
	node_counters(&st->config.counters, f);
	jobs(st, f);
}

/* What to expose when the module could not be read. */
void ew_prom_write_down(FILE *f)
{
	up(f, 0);
}

/**
 * ew_counters_rate() - per-second rates between two samples
 * @now: the later sample
 * @prev: the earlier one
 * @seconds: time between them (> 0)
 * @rate: the rates, by counter
 *
 * A counter lower than before was reset (the module was reloaded, or the
 * job recreated): its rate counts from 0, as Prometheus' rate() does.
 */
void ew_counters_rate(const struct ew_counter_set *now, const struct ew_counter_set *prev,
		      double seconds, double rate[EW_N_COUNTERS])
{
	size_t i;

	for (i = 0; i < EW_N_COUNTERS; i++) {
		uint64_t d = now->v[i] >= prev->v[i] ? now->v[i] - prev->v[i] : now->v[i];

		rate[i] = seconds > 0 ? (double)d / seconds : 0;
	}
}

/* The same job in an earlier sample: same id and same name, or NULL. */
const struct ew_job_desc *ew_job_previous(const struct ew_state *prev,
				     const struct ew_job_desc *job)
{
	const struct ew_job_desc *p = ew_state_find_id(prev, job->id);

	return p && !strcmp(p->name, job->name) ? p : NULL;
}

static const struct ew_state *sort_state;

static int by_denials(const void *a, const void *b)
{
	const struct ew_job_desc *x = &sort_state->jobs[*(const size_t *)a];
	const struct ew_job_desc *y = &sort_state->jobs[*(const size_t *)b];
	uint64_t dx = x->counters.v[EASTWEST_A_COUNTERS_DENIED];
	uint64_t dy = y->counters.v[EASTWEST_A_COUNTERS_DENIED];

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/**
 * ew_jobs_by_denials() - the jobs, most denials first (then by id)
 * @st: the jobs
 * @order: indexes into st->jobs (malloc'd)
 *
 * Return: the number of jobs.
 */
size_t ew_jobs_by_denials(const struct ew_state *st, size_t **order)
{
	size_t i;

	*order = ew_calloc(st->n_jobs, sizeof(**order));
	for (i = 0; i < st->n_jobs; i++)
		(*order)[i] = i;
	sort_state = st;
	qsort(*order, st->n_jobs, sizeof(**order), by_denials);
	sort_state = NULL;
	return st->n_jobs;
}
