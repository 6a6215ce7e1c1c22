// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl node revoke|admit|show: other nodes' admission, as the
 * orchestrator learns it from the verifier. A revoked node's addresses are
 * refused to every job, whatever its peers, and live QPs to them are
 * revoked (the kernel's node-set, all or nothing).
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/subcommands.h"
#include "ewctl.h"
#include "io/ipc.h"
#include "io/output.h"
#include "model/addr.h"

void node_usage(FILE *f)
{
	fprintf(f,
		"Usage: " EW_PROG " node { revoke | admit } ADDR...\n"
		"       " EW_PROG " node show\n"
		"ADDR := a node's GID or IPv4/IPv6 address (a host, not a prefix)\n");
}

static int node_set(int argc, char *argv[], uint32_t admission)
{
	uint8_t (*addrs)[16];
	struct ewnl *nl;
	int i, ret;

	if (argc == 0) {
		ew_err("node %s: which addresses?",
		       admission == EASTWEST_ADMISSION_REVOKED ? "revoke" : "admit");
		return EW_USAGE;
	}
	addrs = calloc(argc, sizeof(*addrs));
	if (!addrs) {
		ew_err("out of memory");
		return EW_FAIL;
	}
	for (i = 0; i < argc; i++) {
		struct ew_peer_addr p;
		const char *why = NULL;

		if (ew_peer_parse(argv[i], &p, &why) || p.is_lid) {
			ew_err("node: bad address \"%s\"%s%s", argv[i],
			       why ? ": " : "", why ? why : "");
			free(addrs);
			return EW_USAGE;
		}
		if (!ew_peer_is_host(&p)) {
			ew_err("node: \"%s\" is a prefix; give a node's address", argv[i]);
			free(addrs);
			return EW_USAGE;
		}
		memcpy(addrs[i], p.addr, 16);
	}
	ret = ew_connect(&nl);
	if (!ret && ew_ipc_node_set(nl, (const uint8_t (*)[16])addrs, argc, admission))
		ret = ewnl_report(nl, "node");
	free(addrs);
	return ret;
}

static int node_show(int argc, char *argv[])
{
	char buf[EW_PEER_STRLEN];
	struct ew_config cfg;
	struct ewnl *nl;
	size_t i;
	int ret;

	ret = ew_connect_after(argc, argv, &nl);
	if (ret)
		return ret;
	if (ew_ipc_config_get(nl, &cfg))
		return ewnl_report(nl, "node show");
	ew_open_array(NULL);
	for (i = 0; i < cfg.n_revoked; i++)
		ew_print_string(EW_ANY, NULL, "%s revoked\n",
				ew_addr_format(cfg.revoked[i], buf, sizeof(buf)));
	ew_close_array();
	free(cfg.revoked);
	return EW_OK;
}

static int node_revoke(int argc, char *argv[])
{
	return node_set(argc, argv, EASTWEST_ADMISSION_REVOKED);
}

static int node_admit(int argc, char *argv[])
{
	return node_set(argc, argv, EASTWEST_ADMISSION_ADMITTED);
}

int node_main(int argc, char *argv[])
{
	static const struct ew_cmd cmds[] = {
		{ NULL,		node_show },
		{ "revoke",	node_revoke },
		{ "admit",	node_admit },
		{ "show",	node_show },
		{ NULL },
	};

	return ew_exec_cmd("node", node_usage, cmds, argc, argv);
}
