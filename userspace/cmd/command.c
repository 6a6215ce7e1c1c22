// SPDX-License-Identifier: GPL-2.0
/*
 * What every command shares: the module connection of a run (opened on
 * first use and kept across a batch), the dispatch of an object's verbs
 * and the errors of a bad verb or a surplus argument.
 */
#include <string.h>

#include "cmd/subcommands.h"
#include "ewctl.h"
#include "io/ipc.h"
#include "model/jobspec.h"

static struct ewnl *conn;

/* The socket, opened on first use and kept for the rest of a batch. */
int ew_connect(struct ewnl **nl)
{
	int ret;

	if (!conn) {
		ret = ewnl_open(&conn);
		if (ret)
			return ret;
	}
	*nl = conn;
	return EW_OK;
}

void ew_disconnect(void)
{
	ewnl_close(conn);
	conn = NULL;
}

int ew_verb_error(const char *object, int argc, char *argv[],
		  void (*usage)(FILE *f))
{
	if (argc > 0 && !strcmp(argv[0], "help")) {
		usage(stdout);
		return EW_OK;
	}
	if (argc == 0)
		ew_err("%s: missing command (try \"" EW_PROG " %s help\")", object, object);
	else
		ew_err("%s: unknown command \"%s\" (try \"" EW_PROG " %s help\")",
		       object, argv[0], object);
	return EW_USAGE;
}

int ew_exec_cmd(const char *object, void (*usage)(FILE *f),
		const struct ew_cmd *cmds, int argc, char *argv[])
{
	const struct ew_cmd *c;

	if (argc > 0 && !strcmp(argv[0], "help"))
		return ew_verb_error(object, argc, argv, usage);
	for (c = cmds + 1; argc > 0 && c->name; c++)
		if (!strcmp(argv[0], c->name))
			return c->fn(argc - 1, argv + 1);
	if (cmds->fn && (argc == 0 || cmds->name))
		return cmds->fn(argc, argv);
	return ew_verb_error(object, argc, argv, usage);
}

int ew_no_more_args(int argc, char *argv[])
{
	if (argc > 0) {
		ew_err("unexpected argument \"%s\"", argv[0]);
		return EW_USAGE;
	}
	return EW_OK;
}

/* A verb's last step before the kernel: refuse what is left, then connect. */
int ew_connect_after(int argc, char *argv[], struct ewnl **nl)
{
	int ret = ew_no_more_args(argc, argv);

	return ret ? ret : ew_connect(nl);
}

/*
 * A verb on one job: parse its reference, refuse what is left, connect and
 * get the job into @job (the caller frees it). On an error there is
 * nothing to free.
 */
int ew_job_of_args(const char *verb, int argc, char *argv[], struct ewnl **nl,
		   struct ew_job_desc *job)
{
	struct ew_jobref ref;
	char what[80];
	int ret;

	ret = ew_jobref_parse(&argc, &argv, &ref);
	if (!ret)
		ret = ew_connect_after(argc, argv, nl);
	if (ret)
		return ret;
	if (ew_ipc_job_get(*nl, &ref, job))
		return ewnl_report(*nl, "%s %s", verb,
				   ew_jobref_str(&ref, what, sizeof(what)));
	return EW_OK;
}
