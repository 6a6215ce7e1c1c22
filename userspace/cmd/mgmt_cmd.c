// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl mgmt show | generate | apply | flush: the management-plane
 * ACL (mgmt.c makes the ruleset) in the kernel, through libnftables.
 *
 * The configuration is read and checked completely before libnftables is
 * asked for anything: a bad file exits 2 with the kernel untouched. apply
 * hands the kernel the whole ruleset as one nft run, which is one netlink
 * batch, which nf_tables commits or aborts as a whole: the table is
 * replaced, or the old one stays. --dry-run runs the same batch in
 * libnftables' check mode (nft -c): the kernel validates it, then aborts it.
 */
#include <json-c/json.h>
#include <nftables/libnftables.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/subcommands.h"
#include "ewctl.h"
#include "model/mgmt.h"

#define EW_MGMT_FILE_MAX (1024 * 1024)

void mgmt_usage(FILE *f)
{
	fprintf(f,
		"Usage: " EW_PROG " mgmt show\n"
		"       " EW_PROG " mgmt generate [-f CONFIG]\n"
		"       " EW_PROG " mgmt apply [-f CONFIG] [--dry-run] [--force]\n"
		"       " EW_PROG " mgmt flush\n"
		"Management-plane ACL: SSH, BMC, UFM and verifier ports reachable only from the\n"
		"admin networks, as nftables table " EW_MGMT_FAMILY " " EW_MGMT_TABLE
		" (replaced atomically).\n"
		"CONFIG: JSON, default " EW_MGMT_CONFIG " (\"-\": stdin).\n"
		"Services: %s, or your own with ports.\n"
		"apply refuses to close the port of the SSH session it runs in to its client,\n"
		"unless --force.\n",
		ew_mgmt_known_services());
}

struct mgmt_args {
	const char *file;
	bool dry_run;
	bool force;
};

/* -f FILE and, for apply, --dry-run and --force. */
static int parse_args(const char *verb, int argc, char *argv[], bool apply,
		      struct mgmt_args *a)
{
	a->file = EW_MGMT_CONFIG;
	a->dry_run = false;
	a->force = false;
	for (; argc > 0; argc--, argv++) {
		if (apply && (!strcmp(argv[0], "--dry-run") || !strcmp(argv[0], "-n"))) {
			a->dry_run = true;
		} else if (apply && !strcmp(argv[0], "--force")) {
			a->force = true;
		} else if (!strcmp(argv[0], "-f") || !strcmp(argv[0], "--file")) {
			if (argc < 2) {
				ew_err("\"%s\" needs a file name", argv[0]);
				return EW_USAGE;
			}
			a->file = argv[1];
			argc--;
			argv++;
		} else {
			ew_err("mgmt %s: unknown argument \"%s\" (try \"" EW_PROG " mgmt help\")",
			       verb, argv[0]);
			return EW_USAGE;
		}
	}
	return EW_OK;
}

/* Reads and checks CONFIG; its ruleset in *@nft (malloc'd). */
static int load(const char *file, struct ew_mgmt *m, char **nft)
{
	const char *name = strcmp(file, "-") ? file : "stdin";
	char err[1024], *text;
	size_t len;
	FILE *out;
	int ret;

	ret = ew_read_file(file, EW_MGMT_FILE_MAX, &text, &len);
	if (ret)
		return ret;
	ret = ew_mgmt_parse(text, len, name, m, err, sizeof(err));
	free(text);
	if (ret) {
		ew_err("%s", err);
		ew_mgmt_free(m);
		return EW_USAGE;
	}
	out = open_memstream(nft, &len);
	if (!out) {
		ew_err("out of memory");
		ew_mgmt_free(m);
		return EW_FAIL;
	}
	ew_mgmt_write_nft(m, name, out);
	if (fclose(out)) {
		ew_err("out of memory");
		free(*nft);
		ew_mgmt_free(m);
		return EW_FAIL;
	}
	return EW_OK;
}

static struct nft_ctx *nft_open(void)
{
	struct nft_ctx *nft = nft_ctx_new(NFT_CTX_DEFAULT);

	if (!nft) {
		ew_err("libnftables: cannot create a context");
		return NULL;
	}
	if (nft_ctx_buffer_output(nft) || nft_ctx_buffer_error(nft)) {
		ew_err("libnftables: cannot buffer its output");
		nft_ctx_free(nft);
		return NULL;
	}
	return nft;
}

/*
 * Runs @cmds as one nft run (a change is one transaction). On failure
 * prints nft's own message (the error and the offending input) under @what.
 */
static int nft_run(struct nft_ctx *nft, const char *cmds, const char *what,
		   bool change)
{
	const char *msg;
	char *line, *save, *copy;

	if (!nft_run_cmd_from_buffer(nft, cmds)) {
		if (change)
			ew_changes++;
		return EW_OK;
	}
	msg = nft_ctx_get_error_buffer(nft);
	ew_err("%s: nftables refused it%s", what, change ? ", nothing was changed" : "");
	copy = ew_strdup(msg ? msg : "");
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!ew_quiet)
			fprintf(stderr, "    %s\n", line);
	free(copy);
	if (msg && strstr(msg, "Operation not permitted")) {
		ew_err("%s: CAP_NET_ADMIN is needed", what);
		return EW_PERM;
	}
	return EW_FAIL;
}

/*
 * The SSH session running this command, if the ACL would close its port to
 * its client: new logins from there would be refused, and the session
 * itself is cut at once unless connection tracking already follows it
 * (the first ACL on a host without conntrack rules). Refused without
 * --force, before the kernel is asked anything.
 */
static int check_lockout(const struct ew_mgmt *m, const struct mgmt_args *a)
{
	const char *conn = getenv("SSH_CONNECTION");
	char client[64], server[64];
	unsigned int port;
	struct ew_peer_addr addr;
	const char *why;
	bool managed;

	if (!conn || sscanf(conn, "%63s %*u %63s %u", client, server, &port) != 3 ||
	    port < 1 || port > 65535 || ew_peer_parse(client, &addr, &why) || addr.is_lid)
		return EW_OK;
	if (ew_mgmt_allows(m, EW_MGMT_TCP, (uint16_t)port, addr.addr, &managed))
		return EW_OK;
	if (a->force || a->dry_run) {
		ew_warn("this SSH session comes from %s, which the ACL does not allow on port %u: new logins from there will be refused",
			client, port);
		return EW_OK;
	}
	ew_err("mgmt apply: this SSH session comes from %s, which the ACL does not allow on port %u: new logins from there would be refused, and this session cut unless connection tracking already follows it; add its network to %s, or use --force",
	       client, port, a->file);
	return EW_USAGE;
}

static int mgmt_generate(int argc, char *argv[])
{
	struct mgmt_args a;
	struct ew_mgmt m;
	char *nft;
	int ret;

	ret = parse_args("generate", argc, argv, false, &a);
	if (!ret)
		ret = load(a.file, &m, &nft);
	if (ret)
		return ret;
	fputs(nft, stdout);
	free(nft);
	ew_mgmt_free(&m);
	return EW_OK;
}

static int mgmt_apply(int argc, char *argv[])
{
	struct mgmt_args a;
	struct nft_ctx *ctx;
	struct ew_mgmt m;
	char *nft;
	int ret;

	ret = parse_args("apply", argc, argv, true, &a);
	if (!ret)
		ret = load(a.file, &m, &nft);
	if (ret)
		return ret;
	ret = check_lockout(&m, &a);
	if (ret)
		goto out;
	ctx = nft_open();
	if (!ctx) {
		ret = EW_FAIL;
		goto out;
	}
	nft_ctx_set_dry_run(ctx, a.dry_run);
	ret = nft_run(ctx, nft, a.dry_run ? "mgmt apply --dry-run" : "mgmt apply", true);
	nft_ctx_free(ctx);
	if (ret)
		goto out;
	if (a.dry_run)
		fputs(nft, stdout);
	else
		printf("table " EW_MGMT_FAMILY " " EW_MGMT_TABLE " applied: %zu service%s\n",
		       m.n_svcs, m.n_svcs == 1 ? "" : "s");
out:
	free(nft);
	ew_mgmt_free(&m);
	return ret;
}

static int mgmt_flush(int argc, char *argv[])
{
	struct nft_ctx *ctx;
	char *cmds = NULL;
	size_t len;
	FILE *out;
	int ret;

	ret = ew_no_more_args(argc, argv);
	if (ret)
		return ret;
	out = open_memstream(&cmds, &len);
	if (!out) {
		ew_err("out of memory");
		return EW_FAIL;
	}
	ew_mgmt_write_flush(out);
	fclose(out);
	ctx = nft_open();
	ret = ctx ? nft_run(ctx, cmds, "mgmt flush", true) : EW_FAIL;
	if (ctx)
		nft_ctx_free(ctx);
	free(cmds);
	return ret;
}

/* Whether our table exists, from nft's JSON list of inet tables. */
static int table_exists(struct nft_ctx *ctx, bool *exists)
{
	struct json_object *root, *arr, *t, *v;
	size_t i;
	int ret;

	*exists = false;
	nft_ctx_output_set_flags(ctx, NFT_CTX_OUTPUT_JSON);
	ret = nft_run(ctx, "list tables " EW_MGMT_FAMILY, "mgmt show", false);
	if (ret)
		return ret;
	root = json_tokener_parse(nft_ctx_get_output_buffer(ctx));
	if (!json_object_object_get_ex(root, "nftables", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		json_object_put(root);
		ew_err("mgmt show: cannot read the table list of libnftables");
		return EW_FAIL;
	}
	for (i = 0; i < json_object_array_length(arr); i++) {
		if (json_object_object_get_ex(json_object_array_get_idx(arr, i), "table", &t) &&
		    json_object_object_get_ex(t, "name", &v) &&
		    !strcmp(json_object_get_string(v), EW_MGMT_TABLE))
			*exists = true;
	}
	json_object_put(root);
	return EW_OK;
}

static int mgmt_show(int argc, char *argv[])
{
	struct nft_ctx *ctx;
	bool exists;
	int ret;

	ret = ew_no_more_args(argc, argv);
	if (ret)
		return ret;
	ctx = nft_open();
	if (!ctx)
		return EW_FAIL;
	ret = table_exists(ctx, &exists);
	if (ret || !exists) {
		if (!ret && ew_opts.json)
			printf("{\"nftables\":[]}\n");
		else if (!ret)
			printf("no management ACL (no table " EW_MGMT_FAMILY " " EW_MGMT_TABLE ")\n");
		nft_ctx_free(ctx);
		return ret;
	}
	nft_ctx_output_set_flags(ctx, ew_opts.json ? NFT_CTX_OUTPUT_JSON : 0);
	ret = nft_run(ctx, "list table " EW_MGMT_FAMILY " " EW_MGMT_TABLE, "mgmt show",
		      false);
	if (!ret)
		fputs(nft_ctx_get_output_buffer(ctx), stdout);
	nft_ctx_free(ctx);
	return ret;
}

int mgmt_main(int argc, char *argv[])
{
	static const struct ew_cmd cmds[] = {
		{ NULL,		NULL },
		{ "show",	mgmt_show },
		{ "generate",	mgmt_generate },
		{ "apply",	mgmt_apply },
		{ "flush",	mgmt_flush },
		{ NULL },
	};

	return ew_exec_cmd("mgmt", mgmt_usage, cmds, argc, argv);
}
