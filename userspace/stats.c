// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl stats: the decision counters, for people (a summary: node
 * state, totals, the jobs with the most denials, rates over an interval),
 * for scripts (-j) and for Prometheus (text exposition, metrics.c).
 *
 * Rates come from two samples taken "interval" seconds apart by this one
 * run: nothing is kept between runs, so two operators (or an operator and
 * the metrics timer) never disturb each other's numbers. Prometheus
 * computes its own rates from the counters.
 *
 * "stats prometheus out FILE" writes a temporary file in FILE's directory
 * and renames it over FILE: node_exporter's textfile collector reads either
 * the old or the new file, never half of one. If the module cannot be read,
 * FILE still gets written, with eastwest_up 0, so that stale numbers do not
 * outlive the module; the exit status tells what went wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ewctl.h"
#include "ipc.h"
#include "json_out.h"
#include "metrics.h"
#include "parse.h"
#include "print.h"
#include "subcommands.h"

#define INDENT "    "
#define EW_STATS_TOP 10
#define EW_STATS_INTERVAL_MAX 3600

void stats_usage(FILE *f)
{
	fprintf(f,
		"Usage: " EW_PROG " stats [show] [top N] [interval SECONDS]\n"
		"       " EW_PROG " stats prometheus [out FILE]\n"
		"Decision counters: the node's state and totals, then the jobs with the most\n"
		"denials (top N, default %d; 0: all). interval: two samples SECONDS apart, with\n"
		"rates per second. prometheus: the Prometheus text format; out FILE: replace\n"
		"FILE atomically (node_exporter textfile collector: " EW_PROM_TEXTFILE ").\n",
		EW_STATS_TOP);
}

struct show_args {
	uint32_t top;
	bool has_top;
	uint32_t interval;
};

static int parse_show(int argc, char *argv[], struct show_args *a)
{
	a->top = EW_STATS_TOP;
	a->has_top = false;
	a->interval = 0;
	for (; argc > 0; argc -= 2, argv += 2) {
		if (argc < 2 && (!strcmp(argv[0], "top") || !strcmp(argv[0], "interval"))) {
			ew_err("\"%s\" needs an argument", argv[0]);
			return EW_USAGE;
		}
		if (!strcmp(argv[0], "top")) {
			if (ew_parse_u32(argv[1], 0, UINT32_MAX, &a->top)) {
				ew_err("top \"%s\": expected a number of jobs (0: all)", argv[1]);
				return EW_USAGE;
			}
			a->has_top = true;
		} else if (!strcmp(argv[0], "interval")) {
			if (ew_parse_u32(argv[1], 1, EW_STATS_INTERVAL_MAX, &a->interval)) {
				ew_err("interval \"%s\": expected 1..%d seconds", argv[1],
				       EW_STATS_INTERVAL_MAX);
				return EW_USAGE;
			}
		} else {
			ew_err("stats: unknown argument \"%s\" (try \"" EW_PROG " stats help\")",
			       argv[0]);
			return EW_USAGE;
		}
	}
	return EW_OK;
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One sample, or two @interval seconds apart (@prev: the first). */
static int sample(uint32_t interval, struct ew_state *now, struct ew_state *prev,
		  double *seconds)
{
	struct ewnl *nl;
	double t0;
	int ret;

	memset(prev, 0, sizeof(*prev));
	memset(now, 0, sizeof(*now));
	*seconds = 0;
	ret = ew_connect(&nl);
	if (ret)
		return ret;
	if (interval) {
		if (ew_ipc_state(nl, prev, false))
			return ewnl_report(nl, "stats");
		t0 = now_seconds();
		sleep(interval);
		*seconds = now_seconds() - t0;
	}
	if (ew_ipc_state(nl, now, false))
		return ewnl_report(nl, "stats");
	return EW_OK;
}

static void print_rates(const double *r, double seconds)
{
	printf(INDENT "rate allowed %.2f/s audited %.2f/s denied %.2f/s psn-zero %.2f/s (over %.0f s)\n",
	       r[EASTWEST_A_COUNTERS_ALLOWED], r[EASTWEST_A_COUNTERS_AUDITED],
	       r[EASTWEST_A_COUNTERS_DENIED], r[EASTWEST_A_COUNTERS_PSN_ZERO], seconds);
}

static void print_summary(const struct ew_state *st, const struct ew_state *prev,
			  double seconds, uint32_t top)
{
	size_t i, n, shown, *order;
	double rate[EW_N_COUNTERS];

	ew_print_config(&st->config);
	printf("global\n");
	ew_print_counters(&st->config.counters);
	if (seconds > 0) {
		ew_counters_rate(&st->config.counters, &prev->config.counters, seconds, rate);
		print_rates(rate, seconds);
	}
	n = ew_jobs_by_denials(st, &order);
	shown = top && top < n ? top : n;
	if (shown < n)
		printf("top %zu of %zu jobs, by denials\n", shown, n);
	else if (n > 1)
		printf("%zu jobs, by denials\n", n);
	for (i = 0; i < shown; i++) {
		const struct ew_job_desc *job = &st->jobs[order[i]], *old;

		printf("job %s id %u\n", job->name, job->id);
		ew_print_counters(&job->counters);
		if (job->present & (EW_JOB_PEER_COUNT | EW_JOB_QP_COUNT))
			printf(INDENT "peers %u qps %u\n", job->peer_count, job->qp_count);
		old = seconds > 0 ? ew_job_previous(prev, job) : NULL;
		if (old) {
			ew_counters_rate(&job->counters, &old->counters, seconds, rate);
			print_rates(rate, seconds);
		} else if (seconds > 0) {
			printf(INDENT "rate: new job, no earlier sample\n");
		}
	}
	free(order);
}

static struct json_object *json_rates(const struct ew_counter_set *now,
				      const struct ew_counter_set *prev, double seconds)
{
	struct json_object *o = json_object_new_object();
	double rate[EW_N_COUNTERS];
	size_t i;

	ew_counters_rate(now, prev, seconds, rate);
	for (i = 0; i < EW_N_COUNTERS; i++)
		if (ew_counter_names[i])
			json_object_object_add(o, ew_counter_names[i],
					       json_object_new_double(rate[i]));
	return o;
}

/*
 * {"global": COUNTERS, "jobs": [{"id", "name", "counters", "mode", "encrypt",
 * "peer_count", "qp_count"[, "rates"]}], "config": {...}[, "interval",
 * "global_rates"]}: the first keys are the original stats -j, kept as they
 * were for existing scripts.
 */
static int print_json(const struct ew_state *st, const struct ew_state *prev,
		      double seconds, const struct show_args *a)
{
	struct json_object *o = json_object_new_object(), *arr;
	size_t i, n, *order;

	json_object_object_add(o, "global", ew_json_counters(&st->config.counters));
	arr = json_object_new_array();
	n = ew_jobs_by_denials(st, &order);
	if (a->has_top && a->top && a->top < n)
		n = a->top;
	for (i = 0; i < n; i++) {
		const struct ew_job_desc *job = &st->jobs[a->has_top ? order[i] : i], *old;
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "id", json_object_new_int64(job->id));
		json_object_object_add(j, "name", json_object_new_string(job->name));
		json_object_object_add(j, "counters", ew_json_counters(&job->counters));
		json_object_object_add(j, "mode", json_object_new_string(
			ew_enum_name(&ew_mode_names, job->mode)));
		json_object_object_add(j, "encrypt", json_object_new_string(
			ew_enum_name(&ew_encrypt_names, job->encrypt)));
		if (job->present & EW_JOB_PEER_COUNT)
			json_object_object_add(j, "peer_count",
					       json_object_new_int64(job->peer_count));
		if (job->present & EW_JOB_QP_COUNT)
			json_object_object_add(j, "qp_count", json_object_new_int64(job->qp_count));
		old = seconds > 0 ? ew_job_previous(prev, job) : NULL;
		if (old)
			json_object_object_add(j, "rates", json_rates(&job->counters,
								      &old->counters, seconds));
		json_object_array_add(arr, j);
	}
	free(order);
	json_object_object_add(o, "jobs", arr);
	json_object_object_add(o, "config", ew_json_config_status(&st->config));
	if (seconds > 0) {
		json_object_object_add(o, "interval", json_object_new_double(seconds));
		json_object_object_add(o, "global_rates",
				       json_rates(&st->config.counters, &prev->config.counters,
						  seconds));
	}
	return ew_json_print(o);
}

static int stats_show(int argc, char *argv[])
{
	struct ew_state st, prev;
	struct show_args a;
	double seconds;
	int ret;

	ret = parse_show(argc, argv, &a);
	if (ret)
		return ret;
	ret = sample(a.interval, &st, &prev, &seconds);
	if (!ret && ew_opts.json)
		ret = print_json(&st, &prev, seconds, &a);
	else if (!ret)
		print_summary(&st, &prev, seconds, a.top);
	ew_state_free(&st);
	ew_state_free(&prev);
	return ret;
}

/* The directory of @path must exist: checked before anything is read. */
static int check_out_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	struct stat sb;
	char *dir;
	int ret = EW_OK;

	if (!*path || (slash && !slash[1])) {
		ew_err("stats prometheus: out \"%s\": expected a file name", path);
		return EW_USAGE;
	}
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!dir) {
		ew_err("out of memory");
		return EW_FAIL;
	}
	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) {
		ew_err("stats prometheus: out \"%s\": no directory \"%s\"", path, dir);
		ret = EW_USAGE;
	}
	free(dir);
	return ret;
}

static int prom_fill(FILE *f, const void *arg)
{
	const struct ew_state *st = arg;

	if (st)
		ew_prom_write(st, f);
	else
		ew_prom_write_down(f);
	return 0;
}

/*
 * Writes @st (NULL: eastwest_up 0) to @path atomically; node_exporter runs
 * as its own user: the file must be readable.
 */
static int write_atomic(const char *path, const struct ew_state *st)
{
	return ew_write_atomic(path, 0644, prom_fill, st,
			       "stats prometheus") ? EW_FAIL : EW_OK;
}

static int stats_prometheus(int argc, char *argv[])
{
	const char *out = NULL;
	struct ew_state st = { 0 };
	struct ewnl *nl;
	int ret, wret;

	if (argc >= 1 && !strcmp(argv[0], "out")) {
		if (argc < 2) {
			ew_err("\"out\" needs a file name");
			return EW_USAGE;
		}
		out = argv[1];
		argc -= 2;
		argv += 2;
	}
	ret = ew_no_more_args(argc, argv);
	if (ret)
		return ret;
	if (ew_opts.json) {
		ew_err("stats prometheus: -j does not apply (the output is Prometheus text)");
		return EW_USAGE;
	}
	if (out) {
		ret = check_out_dir(out);
		if (ret)
			return ret;
	}
	ret = ew_connect(&nl);
	if (!ret && ew_ipc_state(nl, &st, false))
		ret = ewnl_report(nl, "stats prometheus");
	if (out) {
		wret = write_atomic(out, ret ? NULL : &st);
	} else {
		if (ret)
			ew_prom_write_down(stdout);
		else
			ew_prom_write(&st, stdout);
		wret = EW_OK;
	}
	ew_state_free(&st);
	return ret ? ret : wret;
}

int stats_main(int argc, char *argv[])
{
	if (argc > 0 && !strcmp(argv[0], "help"))
		return ew_verb_error("stats", argc, argv, stats_usage);
	if (argc > 0 && !strcmp(argv[0], "prometheus"))
		return stats_prometheus(argc - 1, argv + 1);
	if (argc > 0 && !strcmp(argv[0], "show"))
		return stats_show(argc - 1, argv + 1);
	return stats_show(argc, argv);
}
