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

#include "cmd/subcommands.h"
#include "ewctl.h"
#include "io/ipc.h"
#include "io/output.h"
#include "model/metrics.h"
#include "model/parse.h"
#include "model/print.h"

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

/* The rates per second of each counter between two samples. */
static void print_rates(const char *key, const struct ew_counter_set *now,
			const struct ew_counter_set *prev, double seconds)
{
	double r[EW_N_COUNTERS];
	size_t i;

	ew_counters_rate(now, prev, seconds, r);
	ew_open_object(key);
	for (i = 0; i < EW_N_COUNTERS; i++)
		if (ew_counter_names[i])
			ew_print_double(EW_JSON, ew_counter_names[i], NULL, r[i]);
	ew_close_object();
	ew_print_text(INDENT "rate allowed %.2f/s audited %.2f/s denied %.2f/s psn-zero %.2f/s (over %.0f s)\n",
		      r[EASTWEST_A_COUNTERS_ALLOWED], r[EASTWEST_A_COUNTERS_AUDITED],
		      r[EASTWEST_A_COUNTERS_DENIED], r[EASTWEST_A_COUNTERS_PSN_ZERO], seconds);
}

/*
 * Text: the node's state and totals, then the @a->top jobs with the most
 * denials. JSON: {"global": COUNTERS, "jobs": [{"id", "name", "counters",
 * "mode", "encrypt", "peer_count", "qp_count"[, "rates"]}], "config": {...}
 * [, "interval", "global_rates"]}, every job in the kernel's order unless
 * "top" is given: the first keys are the original stats -j, kept as they
 * were for existing scripts.
 */
static void print_stats(const struct ew_state *st, const struct ew_state *prev,
			double seconds, const struct show_args *a)
{
	bool ranked = !ew_opts.json || a->has_top;
	size_t i, n, shown, *order;
	enum ew_to only;

	ew_open_object(NULL);
	only = ew_print_only(EW_TEXT);
	ew_print_config(NULL, &st->config, true);
	ew_print_only_end(only);
	ew_print_text("global\n");
	ew_print_counters("global", &st->config.counters);
	if (seconds > 0) {
		only = ew_print_only(EW_TEXT);
		print_rates(NULL, &st->config.counters, &prev->config.counters, seconds);
		ew_print_only_end(only);
	}
	n = ew_jobs_by_denials(st, &order);
	shown = ranked && a->top && a->top < n ? a->top : n;
	if (shown < n)
		ew_print_text("top %zu of %zu jobs, by denials\n", shown, n);
	else if (n > 1)
		ew_print_text("%zu jobs, by denials\n", n);
	ew_open_array("jobs");
	for (i = 0; i < shown; i++) {
		const struct ew_job_desc *job = &st->jobs[ranked ? order[i] : i], *old;

		ew_open_object(NULL);
		ew_print_uint(EW_JSON, "id", NULL, job->id);
		ew_print_string(EW_ANY, "name", "job %s", job->name);
		ew_print_text(" id %u\n", job->id);
		ew_print_counters("counters", &job->counters);
		ew_print_enum(EW_JSON, "mode", NULL, &ew_mode_names, job->mode);
		ew_print_enum(EW_JSON, "encrypt", NULL, &ew_encrypt_names, job->encrypt);
		ew_print_job_counts(job);
		old = seconds > 0 ? ew_job_previous(prev, job) : NULL;
		if (old)
			print_rates("rates", &job->counters, &old->counters, seconds);
		else if (seconds > 0)
			ew_print_text(INDENT "rate: new job, no earlier sample\n");
		ew_close_object();
	}
	ew_close_array();
	free(order);
	only = ew_print_only(EW_JSON);
	ew_print_config("config", &st->config, true);
	if (seconds > 0) {
		ew_print_double(EW_JSON, "interval", NULL, seconds);
		print_rates("global_rates", &st->config.counters, &prev->config.counters, seconds);
	}
	ew_print_only_end(only);
	ew_close_object();
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
	if (!ret)
		print_stats(&st, &prev, seconds, &a);
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

/* "show" is optional: "stats top 3" is "stats show top 3". */
int stats_main(int argc, char *argv[])
{
	static const struct ew_cmd cmds[] = {
		{ EW_CMD_ANY,	stats_show },
		{ "prometheus",	stats_prometheus },
		{ "show",	stats_show },
		{ NULL },
	};

	return ew_exec_cmd("stats", stats_usage, cmds, argc, argv);
}
