// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl: the operator tool of the eastwest module.
 *
 *   eastwestctl [OPTIONS] OBJECT VERB ARGS
 *   eastwestctl [OPTIONS] -b FILE
 *
 * main() parses the global options and hands OBJECT's arguments to its
 * file (job_cmd.c, peer.c, ...). Commands parse everything first and only
 * then connect (ew_connect()): a command with a bad argument sends nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/subcommands.h"
#include "ewctl.h"
#include "io/lock.h"

#define EW_BATCH_MAX (256 * 1024 * 1024)

static const struct {
	const char *name;
	int (*fn)(int argc, char *argv[]);
	void (*usage)(FILE *f);
} objects[] = {
	{ "job",	job_main,	job_usage },
	{ "peer",	peer_main,	peer_usage },
	{ "dev",	dev_main,	dev_usage },
	{ "config",	config_main,	config_usage },
	{ "stats",	stats_main,	stats_usage },
	{ "monitor",	monitor_main,	monitor_usage },
	{ "show",	show_main,	show_usage },
	{ "apply",	apply_main,	apply_usage },
	{ "path",	path_main,	path_usage },
	{ "attest",	attest_main,	attest_usage },
	{ "node",	node_main,	node_usage },
	{ "mgmt",	mgmt_main,	mgmt_usage },
};

static void usage(FILE *f, bool all)
{
	size_t i;

	fprintf(f,
		"Usage: " EW_PROG " [OPTIONS] OBJECT { COMMAND | help }\n"
		"       " EW_PROG " [OPTIONS] -b FILE\n"
		"OBJECT := { job | peer | dev | config | stats | monitor | show | apply | path |\n"
		"           attest | node | mgmt }\n"
		"OPTIONS := { -j[son] | -p[retty] | -b[atch] FILE | -V[ersion] | -h[elp] }\n");
	if (!all)
		return;
	for (i = 0; i < EW_ARRAY_SIZE(objects); i++) {
		fputc('\n', f);
		objects[i].usage(f);
	}
	fprintf(f, "\nExit status: 0 success, 1 the kernel refused or the operation failed,\n"
		"2 usage or parse error (nothing sent), 3 permission denied,\n"
		"4 eastwest not available, 5 no such job or peer entry,\n"
		"6 apply --expect: the node changed meanwhile, 7 failed part-way: the\n"
		"changes made before the failure stay (the message says which).\n");
}

static int help(int argc, char *argv[])
{
	size_t i;

	if (argc == 0) {
		usage(stdout, true);
		return EW_OK;
	}
	for (i = 0; i < EW_ARRAY_SIZE(objects); i++) {
		if (!strcmp(argv[0], objects[i].name)) {
			objects[i].usage(stdout);
			return EW_OK;
		}
	}
	ew_err("help: unknown object \"%s\"", argv[0]);
	return EW_USAGE;
}

static int dispatch(int argc, char *argv[])
{
	size_t i;
	int ret;

	if (!strcmp(argv[0], "help"))
		return help(argc - 1, argv + 1);
	for (i = 0; i < EW_ARRAY_SIZE(objects); i++) {
		if (strcmp(argv[0], objects[i].name))
			continue;
		ret = objects[i].fn(argc - 1, argv + 1);
		/*
		 * Each command (each batch line) releases the node lock it
		 * took: none is held while another program runs (attest runs
		 * eastwest-attest, which runs eastwestctl).
		 */
		ew_node_unlock();
		return ret;
	}
	ew_err("unknown object \"%s\" (try \"" EW_PROG " help\")", argv[0]);
	return EW_USAGE;
}

/*
 * Splits a batch line into words, in place: white space separates words,
 * '...' and "..." quote, a backslash escapes the next character (outside
 * single quotes), and an unquoted word starting with '#' begins a comment.
 */
static int split(char *line, char ***argvp, int *argcp, size_t *cap)
{
	char *r = line, *w;
	int argc = 0;

	for (;;) {
		char quote = 0;

		while (*r == ' ' || *r == '\t' || *r == '\r' || *r == '\n')
			r++;
		if (!*r || *r == '#')
			break;
		if ((size_t)argc + 1 >= *cap) {
			*cap = *cap ? 2 * *cap : 16;
			*argvp = ew_reallocarray(*argvp, *cap, sizeof(**argvp));
		}
		(*argvp)[argc++] = w = r;
		for (; *r; r++) {
			if (quote) {
				if (*r == quote) {
					quote = 0;
					continue;
				}
				if (*r == '\\' && quote == '"' && r[1])
					r++;
			} else if (*r == '\'' || *r == '"') {
				quote = *r;
				continue;
			} else if (*r == ' ' || *r == '\t' || *r == '\r' || *r == '\n') {
				break;
			} else if (*r == '\\' && r[1]) {
				r++;
			}
			*w++ = *r;
		}
		if (quote) {
			ew_err("unterminated quote");
			return EW_USAGE;
		}
		if (*r)
			r++;
		*w = '\0';
	}
	*argcp = argc;
	if (argc)
		(*argvp)[argc] = NULL;
	return EW_OK;
}

/* A batch line, split into words (in the batch's buffer). */
struct batch_line {
	unsigned long lineno;
	int argc;
	char **argv;
};

/*
 * Splits all of @text (@len bytes, NUL-terminated past them) into @lines,
 * in place, before any line runs: a NUL byte or an unterminated quote on
 * any line is a usage error, and nothing was sent. Empty and comment lines
 * are left out.
 */
static int batch_split(char *text, size_t len, const char *name,
		       struct batch_line **lines, size_t *n)
{
	unsigned long lineno = 0;
	size_t cap = 0, acap;
	char *p = text, *nl;
	int ret = EW_OK;

	*n = 0;
	while (!ret && p < text + len) {
		struct batch_line l = { 0 };

		l.lineno = ++lineno;
		nl = memchr(p, '\n', (size_t)(text + len - p));
		if (!nl)
			nl = text + len;
		ew_set_location(name, lineno);
		/* split() would stop at it, and the rest of the line be lost. */
		if (memchr(p, '\0', (size_t)(nl - p))) {
			ew_err("NUL byte");
			ret = EW_USAGE;
			break;
		}
		*nl = '\0';
		acap = 0;
		ret = split(p, &l.argv, &l.argc, &acap);
		p = nl + 1;
		if (ret || !l.argc) {
			free(l.argv);
			continue;
		}
		EW_GROW(*lines, *n, cap);
		(*lines)[(*n)++] = l;
	}
	ew_set_location(NULL, 0);
	return ret;
}

/*
 * Runs the lines of @file in order, up to the first that fails. The whole
 * file is read and split first (batch_split()). A line that fails after
 * earlier lines changed something (ew_changes) exits EW_PARTIAL: the
 * statuses that say nothing was changed (2, 3, 5, 6) would be false.
 */
static int batch(const char *file)
{
	const char *name = strcmp(file, "-") ? file : "stdin";
	struct batch_line *lines = NULL;
	unsigned long start;
	size_t len, n = 0, i;
	int ret;
	char *text;

	ret = ew_read_file(file, EW_BATCH_MAX, &text, &len);
	if (ret)
		return ret;
	ret = batch_split(text, len, name, &lines, &n);
	ew_batch_stdin = !strcmp(file, "-");
	start = ew_changes;
	for (i = 0; !ret && i < n; i++) {
		bool earlier = ew_changes != start;

		ew_set_location(name, lines[i].lineno);
		ret = dispatch(lines[i].argc, lines[i].argv);
		fflush(stdout);
		if (ret && ret != EW_PARTIAL && earlier) {
			ew_err("failed after earlier lines changed the node: their changes stay");
			ret = EW_PARTIAL;
		}
	}
	ew_set_location(NULL, 0);
	ew_batch_stdin = false;
	for (i = 0; i < n; i++)
		free(lines[i].argv);
	free(lines);
	free(text);
	return ret;
}

int main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		EW_OPTS_LONGOPTS,
		{ "batch",	required_argument,	NULL, 'b' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *batch_file = NULL;
	int opt, ret;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+jpb:Vh", longopts, NULL)) != -1) {
		if (ew_opts_set(opt))
			continue;
		switch (opt) {
		case 'b':
			batch_file = optarg;
			break;
		case 'V':
			printf(EW_PROG " " EW_VERSION "\n");
			return EW_OK;
		case 'h':
			usage(stdout, true);
			return EW_OK;
		default:
			if (optopt && strchr("b", optopt))
				ew_err("option -%c needs an argument", optopt);
			else
				ew_unknown_option(argv);
			return EW_USAGE;
		}
	}
	argc -= optind;
	argv += optind;

	if (batch_file) {
		if (argc > 0) {
			ew_err("-b takes no command, got \"%s\"", argv[0]);
			return EW_USAGE;
		}
		ret = batch(batch_file);
	} else if (argc == 0) {
		ew_err("missing object (try \"" EW_PROG " help\")");
		return EW_USAGE;
	} else {
		ret = dispatch(argc, argv);
	}
	ew_disconnect();
	return ew_flush_stdout(ret, EW_FAIL);
}
