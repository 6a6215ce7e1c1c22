// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl config show|set (stats: stats.c).
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/subcommands.h"
#include "ewctl.h"
#include "io/ipc.h"
#include "model/parse.h"
#include "model/print.h"

void config_usage(FILE *f)
{
	fprintf(f,
		"Usage: " EW_PROG " config show\n"
		"       " EW_PROG " config set [mode { enforce | audit }] [default { deny | allow }]\n"
		"                    [admission { unattested | admitted | revoked }]\n"
		"                    [admission-required { on | off }] [admission-ttl SECONDS]\n");
}

static int config_show(int argc, char *argv[])
{
	struct ew_config cfg;
	struct ewnl *nl;
	int ret;

	ret = ew_connect_after(argc, argv, &nl);
	if (ret)
		return ret;
	if (ew_ipc_config_get(nl, &cfg))
		return ewnl_report(nl, "config show");
	ew_print_config(NULL, &cfg, true);
	free(cfg.revoked);
	return EW_OK;
}

static int config_set(int argc, char *argv[])
{
	struct ew_config cfg = { 0 };
	char list[64];
	struct ewnl *nl;
	int ret;

	for (; argc > 0; argc -= 2, argv += 2) {
		const struct ew_names *names;
		uint32_t bit, *val;

		if (!strcmp(argv[0], "mode")) {
			names = &ew_mode_names;
			bit = EW_CFG_MODE;
			val = &cfg.mode;
		} else if (!strcmp(argv[0], "default")) {
			names = &ew_default_action_names;
			bit = EW_CFG_DEFAULT;
			val = &cfg.default_action;
		} else if (!strcmp(argv[0], "admission")) {
			names = &ew_admission_names;
			bit = EW_CFG_ADMISSION;
			val = &cfg.admission;
		} else if (!strcmp(argv[0], "admission-ttl")) {
			if (argc < 2 ||
			    ew_parse_u32(argv[1], 1, 7 * 24 * 3600, &cfg.admission_ttl)) {
				ew_err("admission-ttl: expected 1..604800 seconds");
				return EW_USAGE;
			}
			if (cfg.present & EW_CFG_ADMISSION_TTL) {
				ew_err("\"admission-ttl\" is given twice");
				return EW_USAGE;
			}
			cfg.present |= EW_CFG_ADMISSION_TTL;
			continue;
		} else if (!strcmp(argv[0], "admission-required")) {
			names = &ew_on_off_names;
			bit = EW_CFG_ADMISSION_REQUIRED;
			val = &cfg.admission_required;
		} else {
			ew_err("unknown keyword \"%s\" (try \"" EW_PROG " config help\")",
			       argv[0]);
			return EW_USAGE;
		}
		if (argc < 2) {
			ew_err("\"%s\" needs an argument", argv[0]);
			return EW_USAGE;
		}
		if (cfg.present & bit) {
			ew_err("\"%s\" is given twice", argv[0]);
			return EW_USAGE;
		}
		if (ew_enum_parse(names, argv[1], val)) {
			ew_err("%s \"%s\": expected %s", argv[0], argv[1],
			       ew_enum_list(names, list, sizeof(list)));
			return EW_USAGE;
		}
		cfg.present |= bit;
	}
	if (!cfg.present) {
		ew_err("config set: nothing to change (try \"" EW_PROG " config help\")");
		return EW_USAGE;
	}
	ret = ew_connect(&nl);
	if (ret)
		return ret;
	if (ew_ipc_config_set(nl, &cfg, cfg.present))
		return ewnl_report(nl, "config set");
	return EW_OK;
}

int config_main(int argc, char *argv[])
{
	static const struct ew_cmd cmds[] = {
		{ NULL,		config_show },
		{ "show",	config_show },
		{ "set",	config_set },
		{ NULL },
	};

	return ew_exec_cmd("config", config_usage, cmds, argc, argv);
}
