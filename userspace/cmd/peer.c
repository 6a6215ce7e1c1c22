// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl peer add|del|show|get
 */
#include <errno.h>
#include <string.h>

#include <linux/eastwest.h>

#include "cmd/subcommands.h"
#include "ewctl.h"
#include "io/ipc.h"
#include "io/output.h"
#include "model/jobspec.h"
#include "model/print.h"

void peer_usage(FILE *f)
{
	fprintf(f,
		"Usage: " EW_PROG " peer add JOB PEER...\n"
		"       " EW_PROG " peer del JOB PEER...\n"
		"       " EW_PROG " peer show JOB\n"
		"       " EW_PROG " peer get JOB { ADDR | lid N }\n"
		"JOB  := { NAME | id N }\n"
		"PEER := { ADDR[/LEN] | lid N | lid:N | file FILE }\n"
		"FILE holds peers separated by white space, '#' comments; \"-\" is stdin.\n");
}

static int peer_change(uint8_t cmd, const char *verb, int argc, char *argv[])
{
	struct ew_peers peers = { 0 };
	struct ew_jobref ref;
	struct ewnl *nl;
	char what[80];
	uint32_t id;
	size_t done;
	int ret;

	ret = ew_jobref_parse(&argc, &argv, &ref);
	if (!ret)
		ret = ew_peerlist_parse(argc, argv, &peers);
	if (ret)
		goto out;
	ew_jobref_str(&ref, what, sizeof(what));
	ret = ew_connect(&nl);
	if (ret)
		goto out;
	if (ew_ipc_job_id(nl, &ref, &id)) {
		ret = ewnl_report(nl, "peer %s %s", verb, what);
		goto out;
	}
	/* Messages of EW_PEER_CHUNK peers: those sent before a refused one stay. */
	if (ew_ipc_peers(nl, cmd, id, &peers, &done)) {
		ret = ewnl_report(nl, "peer %s %s", verb, what);
		if (done) {
			ew_err("peer %s %s: failed part-way: %zu of %zu peers were %s, and stay so",
			       verb, what, done, peers.n,
			       cmd == EASTWEST_CMD_PEER_ADD ? "added" : "removed");
			ret = EW_PARTIAL;
		}
	}
out:
	ew_peers_free(&peers);
	return ret;
}

static int peer_show(int argc, char *argv[])
{
	struct ew_job_desc job;
	struct ewnl *nl;
	int ret;

	ret = ew_job_of_args("peer show", argc, argv, &nl, &job);
	if (ret)
		return ret;
	if (ew_ipc_peer_dump(nl, job.id, &job.peers)) {
		ret = ewnl_report(nl, "peer show %s", job.name);
		goto out;
	}
	ew_open_array(NULL);
	ew_open_object(NULL);
	ew_print_uint(EW_JSON, "id", NULL, job.id);
	ew_print_string(EW_JSON, "name", NULL, job.name);
	ew_print_peers("%s\n", &job.peers);
	ew_close_object();
	ew_close_array();
out:
	ew_job_free(&job);
	return ret;
}

static int peer_get(int argc, char *argv[])
{
	struct ew_peer_addr addr, match;
	char buf[EW_PEER_STRLEN];
	struct ew_jobref ref;
	const char *why;
	struct ewnl *nl;
	char what[80];
	uint32_t id;
	int ret;

	ret = ew_jobref_parse(&argc, &argv, &ref);
	if (ret)
		return ret;
	if (argc < 1) {
		ew_err("missing address (try \"" EW_PROG " peer help\")");
		return EW_USAGE;
	}
	if (!strcmp(argv[0], "lid")) {
		if (argc < 2) {
			ew_err("\"lid\" needs an argument");
			return EW_USAGE;
		}
		ret = ew_lid_parse(argv[1], &addr, &why);
		argc -= 2;
		argv += 2;
	} else {
		ret = ew_peer_parse(argv[0], &addr, &why);
		argc--;
		argv++;
	}
	if (ret) {
		ew_err("bad address \"%s\"%s%s", argv[-1], why ? ": " : "", why ? why : "");
		return EW_USAGE;
	}
	if (!ew_peer_is_host(&addr)) {
		ew_err("peer get looks up one address, not a prefix");
		return EW_USAGE;
	}
	ret = ew_connect_after(argc, argv, &nl);
	if (ret)
		return ret;
	ew_jobref_str(&ref, what, sizeof(what));
	if (ew_ipc_job_id(nl, &ref, &id))
		return ewnl_report(nl, "peer get %s", what);
	if (ew_ipc_peer_get(nl, id, &addr, &match)) {
		if (nl->err.code == ENOENT && !nl->err.msg[0]) {
			ew_err("peer get %s: no peer of the job admits %s", what,
			       ew_peer_format(&addr, buf, sizeof(buf)));
			return EW_NOENT;
		}
		return ewnl_report(nl, "peer get %s", what);
	}
	ew_open_array(NULL);
	ew_open_object(NULL);
	ew_print_uint(EW_JSON, "id", NULL, id);
	ew_print_string(EW_ANY, "peer", "%s\n", ew_peer_format(&match, buf, sizeof(buf)));
	ew_close_object();
	ew_close_array();
	return EW_OK;
}

static int peer_add(int argc, char *argv[])
{
	return peer_change(EASTWEST_CMD_PEER_ADD, "add", argc, argv);
}

static int peer_del(int argc, char *argv[])
{
	return peer_change(EASTWEST_CMD_PEER_DEL, "del", argc, argv);
}

int peer_main(int argc, char *argv[])
{
	static const struct ew_cmd cmds[] = {
		{ NULL,		NULL },
		{ "add",	peer_add },
		{ "del",	peer_del },
		{ "show",	peer_show },
		{ "get",	peer_get },
		{ NULL },
	};

	return ew_exec_cmd("peer", peer_usage, cmds, argc, argv);
}
