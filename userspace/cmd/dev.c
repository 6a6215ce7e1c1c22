// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl dev show: the RDMA devices the module sees, with their ports,
 * GIDs and P_Key tables, and how predictable their QP numbers are
 * (qpn-sequential close to qpn-observed: QPNs follow each other) and whether
 * the module randomises them (qpns random, soft-RoCE) or cannot (sequential;
 * provider: the hardware picks them).
 */
#include "cmd/subcommands.h"
#include "ewctl.h"
#include "io/ipc.h"
#include "io/output.h"
#include "model/print.h"

void dev_usage(FILE *f)
{
	fprintf(f, "Usage: " EW_PROG " dev show\n");
}

static int dev_show(int argc, char *argv[])
{
	struct ew_devs devs;
	struct ewnl *nl;
	size_t i;
	int ret;

	ret = ew_connect_after(argc, argv, &nl);
	if (ret)
		return ret;
	if (ew_ipc_dev_dump(nl, &devs))
		return ewnl_report(nl, "dev show");
	ew_open_array(NULL);
	for (i = 0; i < devs.n; i++)
		ew_print_dev(&devs.v[i]);
	ew_close_array();
	ew_devs_free(&devs);
	return EW_OK;
}

int dev_main(int argc, char *argv[])
{
	static const struct ew_cmd cmds[] = {
		{ NULL,		dev_show },
		{ "show",	dev_show },
		{ NULL },
	};

	return ew_exec_cmd("dev", dev_usage, cmds, argc, argv);
}
