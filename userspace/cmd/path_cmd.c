// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl path: the verbs, each parsed by pathspec.c and run by path.c
 * (add, del, rotate) or path_show.c (show, caps, check, physical).
 */
#include <stdio.h>

#include "cmd/path.h"
#include "cmd/subcommands.h"
#include "ewctl.h"
#include "io/lock.h"
#include "model/pathspec.h"

void path_usage(FILE *f)
{
	fprintf(f,
		"Usage: " EW_PROG " path caps dev NETDEV\n"
		"       " EW_PROG " path add dev NETDEV [type { auto | macsec | ipsec | physical }]\n"
		"               key-file FILE [job NAME run ID]\n"
		"               [cipher { gcm-aes-xpn-256 | gcm-aes-256 }]\n"
		"               [offload { auto | off | mac | phy | crypto | packet }] [name IFNAME]\n"
		"               [rxe NAME]\n"
		"               [epoch N] [replay-window N] [local ADDR[/LEN]]\n"
		"               peer ADDR [lladdr MAC] [peer ADDR [lladdr MAC]]...\n"
		"       " EW_PROG " path del dev NETDEV [job NAME local ADDR]\n"
		"       " EW_PROG " path show [dev NETDEV]\n"
		"       " EW_PROG " path rotate dev NETDEV key-file FILE epoch N\n"
		"               [stage { rx | tx | retire | all }] [job NAME run ID local ADDR]\n"
		"       " EW_PROG " path check dev RDMADEV [port N] sgid-index I dst ADDR\n"
		"       " EW_PROG " path physical dev NETDEV { on | off }\n"
		"A key file holds at least 32 secret bytes (hex digits, or raw bytes), mode 0600,\n"
		"owned by root or the caller. Rotation: run stage rx on every node, then tx on\n"
		"every node, then retire on every node. job NAME (type ipsec): the SAs of one job\n"
		"between its address here (local ADDR) and its peers, keyed from a secret that\n"
		"every node derives from the key file, the job's name and its run (ID: the\n"
		"same on all its nodes, another for every run of the name; see slurm-prolog).\n");
}

/*
 * Parses VERB's arguments into a spec, then runs FN on it. add undoes what
 * it did before a failure; del and rotate do not, so one that fails after
 * a change exits EW_PARTIAL: 3 or 5 would say nothing was changed.
 */
static int path_run(uint32_t verb, int (*fn)(const struct ew_path_spec *spec),
		    int argc, char *argv[])
{
	unsigned long changes = ew_changes;
	struct ew_path_spec spec;
	int ret;

	ret = ew_pathspec_parse(verb, argc, argv, &spec);
	if (ret)
		return ret;
	/* What changes links, SAs and policies holds the node lock: see lock.c. */
	if (verb == EW_PATH_ADD || verb == EW_PATH_DEL || verb == EW_PATH_ROTATE)
		ret = ew_node_lock_or_say(verb == EW_PATH_ADD ? "path add" :
					  verb == EW_PATH_DEL ? "path del" : "path rotate");
	if (!ret)
		ret = fn(&spec);
	if (ret && ret != EW_PARTIAL && ew_changes != changes &&
	    (verb == EW_PATH_DEL || verb == EW_PATH_ROTATE)) {
		ew_err("path %s: failed part-way: what was changed before the failure stays",
		       verb == EW_PATH_DEL ? "del" : "rotate");
		ret = EW_PARTIAL;
	}
	ew_pathspec_free(&spec);
	return ret;
}

#define PATH_VERB(name, verb)						\
	static int path_##name(int argc, char *argv[])			\
	{								\
		return path_run(verb, ew_path_##name, argc, argv);	\
	}

PATH_VERB(caps, EW_PATH_CAPS)
PATH_VERB(add, EW_PATH_ADD)
PATH_VERB(del, EW_PATH_DEL)
PATH_VERB(show, EW_PATH_SHOW)
PATH_VERB(rotate, EW_PATH_ROTATE)
PATH_VERB(check, EW_PATH_CHECK)
PATH_VERB(physical, EW_PATH_PHYSICAL)

int path_main(int argc, char *argv[])
{
	static const struct ew_cmd cmds[] = {
		{ NULL,		path_show },
		{ "caps",	path_caps },
		{ "add",	path_add },
		{ "del",	path_del },
		{ "show",	path_show },
		{ "rotate",	path_rotate },
		{ "check",	path_check },
		{ "physical",	path_physical },
		{ NULL },
	};

	return ew_exec_cmd("path", path_usage, cmds, argc, argv);
}
