// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl path: the verbs, dispatched by table to path.c (add, del,
 * rotate) and path_show.c (show, caps, check, physical).
 */
#include <stdio.h>
#include <string.h>

#include "ewctl.h"
#include "path.h"
#include "pathspec.h"
#include "subcommands.h"

static const struct {
	const char *name;
	int (*fn)(const struct ew_path_spec *spec);
} verbs[] = {
	[EW_PATH_CAPS] = { "caps", ew_path_caps },
	[EW_PATH_ADD] = { "add", ew_path_add },
	[EW_PATH_DEL] = { "del", ew_path_del },
	[EW_PATH_SHOW] = { "show", ew_path_show },
	[EW_PATH_ROTATE] = { "rotate", ew_path_rotate },
	[EW_PATH_CHECK] = { "check", ew_path_check },
	[EW_PATH_PHYSICAL] = { "physical", ew_path_physical },
};

void path_usage(FILE *f)
{
	fprintf(f,
		"Usage: " EW_PROG " path caps dev NETDEV\n"
		"       " EW_PROG " path add dev NETDEV [type { auto | macsec | ipsec | physical }]\n"
		"               key-file FILE [job NAME] [cipher { gcm-aes-256 | gcm-aes-xpn-256 }]\n"
		"               [offload { auto | off | mac | phy | crypto | packet }] [name IFNAME]\n"
		"               [rxe NAME]\n"
		"               [epoch N] [replay-window N] [local ADDR[/LEN]]\n"
		"               peer ADDR [lladdr MAC] [peer ADDR [lladdr MAC]]...\n"
		"       " EW_PROG " path del dev NETDEV [job NAME local ADDR]\n"
		"       " EW_PROG " path show [dev NETDEV]\n"
		"       " EW_PROG " path rotate dev NETDEV key-file FILE epoch N\n"
		"               [stage { rx | tx | retire | all }] [job NAME local ADDR]\n"
		"       " EW_PROG " path check dev RDMADEV [port N] sgid-index I dst ADDR\n"
		"       " EW_PROG " path physical dev NETDEV { on | off }\n"
		"A key file holds at least 32 secret bytes (hex digits, or raw bytes), mode 0600,\n"
		"owned by root or the caller. Rotation: run stage rx on every node, then tx on\n"
		"every node, then retire on every node. job NAME (type ipsec): the SAs of one job\n"
		"between its address here (local ADDR) and its peers, keyed from a secret that\n"
		"every node derives from the key file and the job's name.\n");
}

int path_main(int argc, char *argv[])
{
	static char show[] = "show";
	static char *show_argv[] = { show, NULL };
	struct ew_path_spec spec;
	uint32_t v;
	int ret;

	if (argc == 0) {
		argc = 1;
		argv = show_argv;
	}
	for (v = 0; v < EW_ARRAY_SIZE(verbs); v++)
		if (verbs[v].name && !strcmp(argv[0], verbs[v].name))
			break;
	if (v == EW_ARRAY_SIZE(verbs))
		return ew_verb_error("path", argc, argv, path_usage);
	ret = ew_pathspec_parse(v, argc - 1, argv + 1, &spec);
	if (ret)
		return ret;
	ret = verbs[v].fn(&spec);
	ew_pathspec_free(&spec);
	return ret;
}
