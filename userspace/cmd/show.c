// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl show: the whole node (config and every job with its peers).
 * With -j the output is a policy file: "apply -f" of it changes nothing.
 */
#include "cmd/subcommands.h"
#include "ewctl.h"
#include "io/ipc.h"
#include "model/print.h"

void show_usage(FILE *f)
{
	fprintf(f, "Usage: " EW_PROG " show\n"
		"The configuration and every job with its peers; with -j, a policy file\n"
		"that \"" EW_PROG " apply -f\" takes.\n");
}

static int show_all(int argc, char *argv[])
{
	struct ew_state st;
	struct ewnl *nl;
	int ret;

	ret = ew_connect_after(argc, argv, &nl);
	if (ret)
		return ret;
	if (ew_ipc_state(nl, &st, true)) {
		ret = ewnl_report(nl, "show");
		ew_state_free(&st);
		return ret;
	}
	ew_print_state(&st);
	ew_state_free(&st);
	return EW_OK;
}

int show_main(int argc, char *argv[])
{
	static const struct ew_cmd cmds[] = {
		{ EW_CMD_ANY,	show_all },
		{ NULL },
	};

	return ew_exec_cmd("show", show_usage, cmds, argc, argv);
}
