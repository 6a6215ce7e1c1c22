// SPDX-License-Identifier: GPL-2.0
/*
 * eastwest-verifier: decides whether a node may join the fabric, from its
 * evidence, without a TPM of its own.
 *
 *   eastwest-verifier [-j] [-p] verify evidence FILE nonce HEX enrollment FILE
 *                     manifest FILE pubkey FILE [state DIR]
 *   eastwest-verifier enroll challenge enrollment FILE out FILE [node NAME]
 *                     [ek-ca FILE] [state DIR]
 *   eastwest-verifier enroll confirm response FILE [out FILE] [state DIR]
 *   eastwest-verifier manifest keygen key FILE pub FILE
 *   eastwest-verifier manifest sign in FILE key FILE out FILE
 *   eastwest-verifier manifest show in FILE pubkey FILE
 *   eastwest-verifier manifest from-node evidence FILE out FILE [serial N]
 *   eastwest-verifier nonce
 *
 * Exit status of verify: 0 admit, 1 deny, 2 usage. Of the others: 0 done,
 * 1 failed, 2 usage.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "enroll.h"
#include "jsonfile.h"
#include "manifest.h"
#include "verify.h"
#include "vstate.h"

#define PROG "eastwest-verifier"

static bool opt_json, opt_pretty;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [-j] [-p] verify evidence FILE nonce HEX enrollment FILE\n"
		"                         manifest FILE pubkey FILE [state DIR]\n"
		"       " PROG " enroll challenge enrollment FILE out FILE [node NAME]\n"
		"                         [ek-ca FILE] [state DIR]\n"
		"       " PROG " enroll confirm response FILE [out FILE] [state DIR]\n"
		"       " PROG " manifest keygen key FILE pub FILE\n"
		"       " PROG " manifest sign in FILE key FILE out FILE\n"
		"       " PROG " manifest show in FILE pubkey FILE\n"
		"       " PROG " manifest from-node evidence FILE out FILE [serial N]\n"
		"       " PROG " nonce\n"
		"state DIR defaults to $EW_VERIFIER_STATE, else " EWA_DEFAULT_STATE_DIR ".\n"
		"Exit status of verify: 0 admit, 1 deny, 2 usage error.\n");
}

/* KEY VALUE pairs into @vals by the position of KEY in @keys. */
static int parse_kv(int argc, char *argv[], const char *cmd, const char *const *keys,
		    const char **vals)
{
	size_t i;

	for (; argc > 0; argc -= 2, argv += 2) {
		for (i = 0; keys[i] && strcmp(keys[i], argv[0]); i++)
			;
		if (!keys[i]) {
			ewa_err("%s: unknown keyword \"%s\" (try \"" PROG " help\")", cmd, argv[0]);
			return EWA_USAGE;
		}
		if (argc < 2) {
			ewa_err("%s: \"%s\" needs an argument", cmd, argv[0]);
			return EWA_USAGE;
		}
		if (vals[i]) {
			ewa_err("%s: \"%s\" is given twice", cmd, argv[0]);
			return EWA_USAGE;
		}
		vals[i] = argv[1];
	}
	return EWA_OK;
}

static int require(const char *cmd, const char *const *keys, const char **vals, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!vals[i]) {
			ewa_err("%s: \"%s\" is required (try \"" PROG " help\")", cmd, keys[i]);
			return EWA_USAGE;
		}
	}
	return EWA_OK;
}

static const char *state_dir(const char *opt)
{
	const char *env = getenv("EW_VERIFIER_STATE");

	return opt ? opt : env && *env ? env : EWA_DEFAULT_STATE_DIR;
}

static void print_json(struct json_object *o)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;

	flags |= opt_pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
			      JSON_C_TO_STRING_PLAIN;
	puts(json_object_to_json_string_ext(o, flags));
}

static int cmd_verify(int argc, char *argv[])
{
	static const char *const keys[] = { "evidence", "nonce", "enrollment", "manifest",
					    "pubkey", "state", NULL };
	const char *vals[6] = { NULL };
	struct ewa_verify_input in = { 0 };
	struct ewa_verdict v;
	struct ewa_vstate st;
	int ret;

	ret = parse_kv(argc, argv, "verify", keys, vals);
	if (!ret)
		ret = require("verify", keys, vals, 5);
	if (ret)
		return ret;
	if (ewa_parse_nonce(vals[1], in.nonce, &in.nonce_len)) {
		ewa_err("verify: nonce \"%s\": expected %d to %d bytes of hex", vals[1],
			EWA_NONCE_MIN, EWA_NONCE_MAX);
		return EWA_USAGE;
	}
	in.evidence = vals[0];
	in.enrollment = vals[2];
	in.manifest = vals[3];
	in.pubkey = vals[4];
	/* Without its memory the verifier could not refuse replays: deny instead. */
	if (ewa_vstate_open(state_dir(vals[5]), &st)) {
		memset(&v, 0, sizeof(v));
		v.secure_boot = "unknown";
		v.reasons = ewa_calloc(1, sizeof(*v.reasons));
		v.reasons[0].check = ewa_strdup("state-error");
		v.reasons[0].detail = ewa_strdup(ewa_last_error());
		v.n_reasons = 1;
	} else {
		in.state = &st;
		ewa_verify(&in, &v);
		ewa_vstate_close(&st);
	}
	if (opt_json) {
		struct json_object *o = ewa_verdict_json(&v);

		print_json(o);
		json_object_put(o);
	} else {
		ewa_verdict_print(&v, stdout);
	}
	ret = v.admit ? EWA_OK : EWA_FAIL;
	ewa_verdict_free(&v);
	return ret;
}

static int cmd_enroll(int argc, char *argv[])
{
	static const char *const ckeys[] = { "enrollment", "out", "node", "ek-ca", "state", NULL };
	static const char *const fkeys[] = { "response", "out", "state", NULL };
	const char *vals[5] = { NULL };
	struct ewa_vstate st;
	int ret;

	if (argc > 0 && !strcmp(argv[0], "challenge")) {
		struct ewa_challenge_args a;

		ret = parse_kv(argc - 1, argv + 1, "enroll challenge", ckeys, vals);
		if (!ret)
			ret = require("enroll challenge", ckeys, vals, 2);
		if (ret)
			return ret;
		a.enrollment = vals[0];
		a.out = vals[1];
		a.node = vals[2];
		a.ek_ca = vals[3];
		if (ewa_vstate_open(state_dir(vals[4]), &st))
			return EWA_FAIL;
		ret = ewa_enroll_challenge(&st, &a) ? EWA_FAIL : EWA_OK;
		ewa_vstate_close(&st);
		return ret;
	}
	if (argc > 0 && !strcmp(argv[0], "confirm")) {
		ret = parse_kv(argc - 1, argv + 1, "enroll confirm", fkeys, vals);
		if (!ret)
			ret = require("enroll confirm", fkeys, vals, 1);
		if (ret)
			return ret;
		if (ewa_vstate_open(state_dir(vals[2]), &st))
			return EWA_FAIL;
		ret = ewa_enroll_confirm(&st, vals[0], vals[1]) ? EWA_FAIL : EWA_OK;
		ewa_vstate_close(&st);
		return ret;
	}
	ewa_err("enroll: expected \"challenge\" or \"confirm\" (try \"" PROG " help\")");
	return EWA_USAGE;
}

static int manifest_show(const char *in, const char *pubkey)
{
	struct ewa_manifest m;
	char why[512];

	if (ewa_manifest_load(in, pubkey, &m, why, sizeof(why)) != EWA_MANIFEST_OK) {
		ewa_err("manifest show: %s", why);
		return EWA_FAIL;
	}
	if (opt_json)
		printf("{\"serial\":%llu,\"kernels\":%zu,\"modules\":%zu,\"boot_digests\":%zu,"
		       "\"signature\":\"good\"}\n", (unsigned long long)m.serial, m.n_kernels,
		       m.n_modules, m.n_boot_digests);
	else
		printf("manifest serial %llu signature good kernels %zu modules %zu "
		       "boot-digests %zu require%s%s%s\n", (unsigned long long)m.serial,
		       m.n_kernels, m.n_modules, m.n_boot_digests,
		       m.require_ima ? " ima" : "", m.require_uefi_log ? " uefi-event-log" : "",
		       m.require_secure_boot ? " secure-boot" : "");
	ewa_manifest_free(&m);
	return EWA_OK;
}

static int cmd_manifest(int argc, char *argv[])
{
	static const char *const gkeys[] = { "key", "pub", NULL };
	static const char *const skeys[] = { "in", "key", "out", NULL };
	static const char *const vkeys[] = { "in", "pubkey", NULL };
	static const char *const nkeys[] = { "evidence", "out", "serial", NULL };
	const char *vals[3] = { NULL };
	const char *verb = argc > 0 ? argv[0] : "";
	int ret;

	if (!strcmp(verb, "keygen")) {
		ret = parse_kv(argc - 1, argv + 1, "manifest keygen", gkeys, vals);
		if (!ret)
			ret = require("manifest keygen", gkeys, vals, 2);
		return ret ? ret : ewa_manifest_keygen(vals[0], vals[1]) ? EWA_FAIL : EWA_OK;
	}
	if (!strcmp(verb, "sign")) {
		ret = parse_kv(argc - 1, argv + 1, "manifest sign", skeys, vals);
		if (!ret)
			ret = require("manifest sign", skeys, vals, 3);
		return ret ? ret : ewa_manifest_sign(vals[0], vals[1], vals[2]) ? EWA_FAIL : EWA_OK;
	}
	if (!strcmp(verb, "show")) {
		ret = parse_kv(argc - 1, argv + 1, "manifest show", vkeys, vals);
		if (!ret)
			ret = require("manifest show", vkeys, vals, 2);
		return ret ? ret : manifest_show(vals[0], vals[1]);
	}
	if (!strcmp(verb, "from-node")) {
		unsigned long long serial = 1;
		char *end;

		ret = parse_kv(argc - 1, argv + 1, "manifest from-node", nkeys, vals);
		if (!ret)
			ret = require("manifest from-node", nkeys, vals, 2);
		if (ret)
			return ret;
		if (vals[2]) {
			serial = strtoull(vals[2], &end, 10);
			if (*end || end == vals[2] || vals[2][0] == '-') {
				ewa_err("manifest from-node: serial \"%s\": expected a number", vals[2]);
				return EWA_USAGE;
			}
		}
		return ewa_manifest_from_node(vals[0], serial, vals[1]) ? EWA_FAIL : EWA_OK;
	}
	ewa_err("manifest: expected keygen, sign, show or from-node (try \"" PROG " help\")");
	return EWA_USAGE;
}

static int cmd_nonce(int argc, char *argv[])
{
	uint8_t n[32];
	char hex[65];

	(void)argv;
	if (argc > 0) {
		ewa_err("nonce: unexpected argument \"%s\"", argv[0]);
		return EWA_USAGE;
	}
	if (RAND_bytes(n, sizeof(n)) != 1) {
		ewa_err("nonce: no randomness");
		return EWA_FAIL;
	}
	puts(ewa_hex(n, sizeof(n), hex));
	return EWA_OK;
}

int main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, ret;

	ewa_prog = PROG;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+jph", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			opt_json = true;
			break;
		case 'p':
			opt_pretty = opt_json = true;
			break;
		case 'h':
			usage(stdout);
			return EWA_OK;
		default:
			ewa_err("unknown option \"%s\" (try \"" PROG " help\")", argv[optind - 1]);
			return EWA_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		ewa_err("missing command (try \"" PROG " help\")");
		return EWA_USAGE;
	}
	if (!strcmp(argv[0], "verify"))
		ret = cmd_verify(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "enroll"))
		ret = cmd_enroll(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "manifest"))
		ret = cmd_manifest(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "nonce"))
		ret = cmd_nonce(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "help")) {
		usage(stdout);
		ret = EWA_OK;
	} else {
		ewa_err("unknown command \"%s\" (try \"" PROG " help\")", argv[0]);
		ret = EWA_USAGE;
	}
	if (fflush(stdout) || ferror(stdout)) {
		ewa_err("write error");
		if (!ret)
			ret = EWA_FAIL;
	}
	return ret;
}
