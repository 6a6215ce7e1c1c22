// SPDX-License-Identifier: GPL-2.0
/*
 * eastwest-verifier: decides whether a node may join the fabric, from its
 * evidence, without a TPM of its own.
 *
 *   eastwest-verifier [-j] [-p] verify evidence FILE nonce HEX enrollment FILE
 *                     manifest FILE pubkey FILE [state DIR]
 *   eastwest-verifier enroll challenge enrollment FILE out FILE [node NAME]
 *                     [ek-ca FILE] [state DIR]
 *   eastwest-verifier enroll confirm response FILE [out FILE] [replace NAME]
 *                     [state DIR]
 *   eastwest-verifier manifest keygen key FILE pub FILE
 *   eastwest-verifier manifest sign in FILE key FILE out FILE
 *   eastwest-verifier manifest show in FILE pubkey FILE
 *   eastwest-verifier manifest from-node evidence FILE out FILE [serial N]
 *   eastwest-verifier nonce
 *   eastwest-verifier [-j] release key FILE enrollment FILE out FILE
 *                     [max-age SEC] [state DIR]
 *   eastwest-verifier revoke enrollment FILE|node NAME [reason TEXT] [state DIR]
 *   eastwest-verifier unrevoke enrollment FILE|node NAME [state DIR]
 *   eastwest-verifier serve node NAME manifest FILE pubkey FILE [state DIR]
 *                     [timeout SEC] [max-evidence MIB]
 *
 * Exit status of verify: 0 admit, 1 deny, 2 usage. Of the others: 0 done,
 * 1 failed, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "enroll.h"
#include "jsonfile.h"
#include "manifest.h"
#include "release.h"
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
		"       " PROG " enroll confirm response FILE [out FILE] [replace NAME]\n"
		"                         [state DIR]\n"
		"       " PROG " manifest keygen key FILE pub FILE\n"
		"       " PROG " manifest sign in FILE key FILE out FILE\n"
		"       " PROG " manifest show in FILE pubkey FILE\n"
		"       " PROG " manifest from-node evidence FILE out FILE [serial N]\n"
		"       " PROG " nonce\n"
		"       " PROG " [-j] release key FILE enrollment FILE out FILE\n"
		"                         [max-age SEC] [state DIR]\n"
		"       " PROG " revoke enrollment FILE|node NAME [reason TEXT] [state DIR]\n"
		"       " PROG " unrevoke enrollment FILE|node NAME [state DIR]\n"
		"       " PROG " serve node NAME manifest FILE pubkey FILE [state DIR]\n"
		"                         [timeout SEC] [max-evidence MIB]\n"
		"state DIR defaults to $EW_VERIFIER_STATE, else " EWA_DEFAULT_STATE_DIR ".\n"
		"Exit status of verify and serve: 0 admit, 1 deny, 2 usage error;\n"
		"of release: 0 released, 1 refused, 2 usage error.\n");
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
			ew_err("%s: unknown keyword \"%s\" (try \"" PROG " help\")", cmd, argv[0]);
			return EWA_USAGE;
		}
		if (argc < 2) {
			ew_err("%s: \"%s\" needs an argument", cmd, argv[0]);
			return EWA_USAGE;
		}
		if (vals[i]) {
			ew_err("%s: \"%s\" is given twice", cmd, argv[0]);
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
			ew_err("%s: \"%s\" is required (try \"" PROG " help\")", cmd, keys[i]);
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

/* A deny for a state that cannot be opened, with why. */
static void state_error(struct ewa_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->secure_boot = "unknown";
	v->reasons = ew_calloc(1, sizeof(*v->reasons));
	v->reasons[0].check = ew_strdup("state-error");
	v->reasons[0].detail = ew_strdup(ew_last_error());
	v->n_reasons = 1;
}

/*
 * The verdict on @in, with the replay memory in @state (NULL: the default).
 * Without that memory the verifier could not refuse replays: deny instead.
 * The state's lock is ewa_verify()'s to take, for as long as it needs it.
 */
static void verify_with_state(struct ewa_verify_input *in, const char *state,
			      struct ewa_verdict *v)
{
	struct ewa_vstate st;

	if (ewa_vstate_open_unlocked(state_dir(state), &st)) {
		state_error(v);
		return;
	}
	in->state = &st;
	ewa_verify(in, v);
	in->state = NULL;
	ewa_vstate_close(&st);
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
	int ret;

	ret = parse_kv(argc, argv, "verify", keys, vals);
	if (!ret)
		ret = require("verify", keys, vals, 5);
	if (ret)
		return ret;
	if (ewa_parse_nonce(vals[1], in.nonce, &in.nonce_len)) {
		ew_err("verify: nonce \"%s\": expected %d to %d bytes of hex", vals[1],
		       EWA_NONCE_MIN, EWA_NONCE_MAX);
		return EWA_USAGE;
	}
	in.evidence = vals[0];
	in.enrollment = vals[2];
	in.manifest = vals[3];
	in.pubkey = vals[4];
	verify_with_state(&in, vals[5], &v);
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
	static const char *const fkeys[] = { "response", "out", "state", "replace", NULL };
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
		if (vals[3] && !ewa_node_name_ok(vals[3])) {
			ew_err("enroll confirm: replace \"%s\": use letters, digits, '.', '_' and '-'",
			       vals[3]);
			return EWA_USAGE;
		}
		if (ewa_vstate_open(state_dir(vals[2]), &st))
			return EWA_FAIL;
		ret = ewa_enroll_confirm(&st, vals[0], vals[1], vals[3]) ? EWA_FAIL : EWA_OK;
		ewa_vstate_close(&st);
		return ret;
	}
	ew_err("enroll: expected \"challenge\" or \"confirm\" (try \"" PROG " help\")");
	return EWA_USAGE;
}

static int manifest_show(const char *in, const char *pubkey)
{
	struct ewa_manifest m;
	char why[512];

	if (ewa_manifest_load(in, pubkey, &m, why, sizeof(why)) != EWA_MANIFEST_OK) {
		ew_err("manifest show: %s", why);
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
				ew_err("manifest from-node: serial \"%s\": expected a number", vals[2]);
				return EWA_USAGE;
			}
		}
		return ewa_manifest_from_node(vals[0], serial, vals[1]) ? EWA_FAIL : EWA_OK;
	}
	ew_err("manifest: expected keygen, sign, show or from-node (try \"" PROG " help\")");
	return EWA_USAGE;
}

static int cmd_nonce(int argc, char *argv[])
{
	uint8_t n[32];
	char hex[65];

	(void)argv;
	if (argc > 0) {
		ew_err("nonce: unexpected argument \"%s\"", argv[0]);
		return EWA_USAGE;
	}
	if (RAND_bytes(n, sizeof(n)) != 1) {
		ew_err("nonce: no randomness");
		return EWA_FAIL;
	}
	puts(ewa_hex(n, sizeof(n), hex));
	return EWA_OK;
}

/* A positive number of seconds. */
static int parse_seconds(const char *cmd, const char *key, const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end || errno || *out == 0 || *out > 86400 * 365) {
		ew_err("%s: %s \"%s\": expected a number of seconds", cmd, key, s);
		return EWA_USAGE;
	}
	return EWA_OK;
}

static int cmd_release(int argc, char *argv[])
{
	static const char *const keys[] = { "key", "enrollment", "out", "max-age", "state", NULL };
	const char *vals[5] = { NULL };
	struct ewa_release_args a = { .max_age = EWA_RELEASE_MAX_AGE };
	struct ewa_release_result r;
	struct ewa_vstate st;
	int ret;

	ret = parse_kv(argc, argv, "release", keys, vals);
	if (!ret)
		ret = require("release", keys, vals, 3);
	if (!ret && vals[3])
		ret = parse_seconds("release", "max-age", vals[3], &a.max_age);
	if (ret)
		return ret;
	a.key = vals[0];
	a.enrollment = vals[1];
	a.out = vals[2];
	if (ewa_vstate_open(state_dir(vals[4]), &st)) {
		memset(&r, 0, sizeof(r));
		r.reason = "state-error";
		snprintf(r.detail, sizeof(r.detail), "%s", ew_last_error());
	} else {
		ewa_release_key(&st, &a, &r);
		ewa_vstate_close(&st);
	}
	if (opt_json) {
		struct json_object *o = json_object_new_object();

		ewa_json_add_str(o, "release", r.released ? "released" : "refused");
		json_object_object_add(o, "reason", r.reason ? json_object_new_string(r.reason) :
				       NULL);
		json_object_object_add(o, "detail", r.released ? NULL :
				       json_object_new_string(r.detail));
		json_object_object_add(o, "node", r.node ? json_object_new_string(r.node) : NULL);
		json_object_object_add(o, "ak_name", r.ak_name ?
				       json_object_new_string(r.ak_name) : NULL);
		if (r.released) {
			ewa_json_add_str(o, "out", a.out);
			json_object_object_add(o, "key_bytes", json_object_new_uint64(r.key_len));
			json_object_object_add(o, "verdict_age",
					       json_object_new_uint64(r.verdict_age));
		}
		print_json(o);
		json_object_put(o);
	} else if (r.released) {
		printf("released node %s ak %s key-bytes %zu verdict-age %llus out %s\n", r.node,
		       r.ak_name, r.key_len, (unsigned long long)r.verdict_age, a.out);
	} else {
		printf("refused node %s ak %s\n\t%s: %s\n", r.node ? r.node : "-",
		       r.ak_name ? r.ak_name : "-", r.reason, r.detail);
	}
	ret = r.released ? EWA_OK : EWA_FAIL;
	ewa_release_result_free(&r);
	return ret;
}

/* A revoke or unrevoke names its node by "enrollment FILE" or "node NAME". */
static int record_usage(const char *cmd, const char *enrollment, const char *node)
{
	if (!enrollment == !node) {
		ew_err("%s: give either \"enrollment FILE\" or \"node NAME\" (try \"" PROG
		       " help\")", cmd);
		return EWA_USAGE;
	}
	if (node && !ewa_node_name_ok(node)) {
		ew_err("%s: node \"%s\": use letters, digits, '.', '_' and '-'", cmd, node);
		return EWA_USAGE;
	}
	return EWA_OK;
}

/* That node record: FILE, or the inventory's DIR/nodes/NAME.json; NULL if none. */
static char *record_path(const char *cmd, const char *enrollment, const char *node,
			 const char *dir)
{
	char *path;

	if (enrollment)
		return ew_strdup(enrollment);
	path = ew_asprintf("%s/nodes/%s.json", dir, node);
	if (access(path, F_OK)) {
		ew_err("%s: node %s is not enrolled in %s (no nodes/%s.json)", cmd, node, dir,
		       node);
		free(path);
		return NULL;
	}
	return path;
}

static int cmd_revoke(int argc, char *argv[])
{
	static const char *const keys[] = { "enrollment", "node", "reason", "state", NULL };
	const char *vals[4] = { NULL };
	struct ewa_vstate st;
	char *ak = NULL, *node = NULL, *rec;
	int ret;

	ret = parse_kv(argc, argv, "revoke", keys, vals);
	if (!ret)
		ret = record_usage("revoke", vals[0], vals[1]);
	if (ret)
		return ret;
	if (ewa_vstate_open(state_dir(vals[3]), &st))
		return EWA_FAIL;
	rec = record_path("revoke", vals[0], vals[1], st.dir);
	ret = !rec || ewa_revoke_node(&st, rec, vals[2], &ak, &node) ? EWA_FAIL : EWA_OK;
	ewa_vstate_close(&st);
	if (!ret)
		printf("revoked node %s ak %s\n", node, ak);
	free(rec);
	free(ak);
	free(node);
	return ret;
}

static int cmd_unrevoke(int argc, char *argv[])
{
	static const char *const keys[] = { "enrollment", "node", "state", NULL };
	const char *vals[3] = { NULL };
	struct ewa_vstate st;
	char *ak = NULL, *node = NULL, *rec;
	int ret;

	ret = parse_kv(argc, argv, "unrevoke", keys, vals);
	if (!ret)
		ret = record_usage("unrevoke", vals[0], vals[1]);
	if (ret)
		return ret;
	if (ewa_vstate_open(state_dir(vals[2]), &st))
		return EWA_FAIL;
	rec = record_path("unrevoke", vals[0], vals[1], st.dir);
	ret = !rec || ewa_unrevoke_node(&st, rec, &ak, &node) ? EWA_FAIL : EWA_OK;
	ewa_vstate_close(&st);
	if (!ret)
		printf("unrevoked node %s ak %s: admitted again at its next passing "
		       "attestation\n", node, ak);
	free(rec);
	free(ak);
	free(node);
	return ret;
}

/*
 * What serve reads by default, in MiB. A node's evidence is its IMA list
 * (modules only: one entry per distinct module loaded, 150 to 300 bytes,
 * about 1 KiB with an appended signature: 4 MiB even for all of the 4,000
 * to 4,300 modules Debian's 6.1 and 6.12 kernels ship), its firmware's
 * event log (tens of KiB, seldom above 1 MiB), the node report
 * (/proc/modules with a digest each, under 1 MiB) and a quote under 2 KiB,
 * all in base64 (4/3): about 8 MiB at the very worst, a few hundred KiB
 * in practice. Twice the worst, for what no one foresaw.
 */
#define SERVE_EVIDENCE_MIB	16

/*
 * One attestation over a byte stream (the node's "attest watch" runs this
 * through its verifier command, e.g. ssh): "nonce HEX\n" out; the evidence
 * in, up to EOF; the verdict out, one JSON line; exit 0 admit, 1 deny. The
 * nonce never leaves this process but to the node, so a node cannot pick
 * it, and the node name, manifest and key come from this side's command
 * line (in production: a forced command per node key).
 *
 * A node is served one session at a time ("refused: ..." instead of a
 * nonce while another is open), its evidence is bounded by max-evidence,
 * and the state's lock is held only for the state's reads and writes: a
 * node that opens sessions, sends the most it may or stalls holds up
 * neither the verifier nor the other nodes' rounds.
 */
static int cmd_serve(int argc, char *argv[])
{
	static const char *const keys[] = { "node", "manifest", "pubkey", "state", "timeout",
					    "max-evidence", NULL };
	const char *vals[6] = { NULL };
	struct ewa_verify_input in = { 0 };
	struct ew_buf ev = { 0 };
	struct ewa_vstate st;
	struct json_object *o;
	struct ewa_verdict v;
	uint64_t timeout = 60, max_mib = SERVE_EVIDENCE_MIB;
	size_t max;
	time_t deadline;
	char hex[65], *enrollment, *name;
	bool timed_out = false, too_big = false, have_state;
	int ret, session = -1;

	ret = parse_kv(argc, argv, "serve", keys, vals);
	if (!ret)
		ret = require("serve", keys, vals, 3);
	if (!ret && vals[4])
		ret = parse_seconds("serve", "timeout", vals[4], &timeout);
	if (!ret && vals[5]) {
		char *end;

		errno = 0;
		max_mib = strtoull(vals[5], &end, 10);
		if (vals[5][0] < '0' || vals[5][0] > '9' || *end || errno || max_mib == 0 ||
		    max_mib > EWA_FILE_MAX >> 20) {
			ew_err("serve: max-evidence \"%s\": expected 1 to %u (MiB)", vals[5],
			       EWA_FILE_MAX >> 20);
			ret = EWA_USAGE;
		}
	}
	if (ret)
		return ret;
	if (!ewa_node_name_ok(vals[0])) {
		ew_err("serve: node \"%s\": use letters, digits, '.', '_' and '-'", vals[0]);
		return EWA_USAGE;
	}
	max = (size_t)max_mib << 20;
	signal(SIGPIPE, SIG_IGN);
	/* Without a state the session goes on, to a state-error deny. */
	have_state = !ewa_vstate_open_unlocked(state_dir(vals[3]), &st);
	if (have_state) {
		session = ewa_vstate_session(&st, vals[0]);
		if (session < 0) {
			const char *why = session == -EWOULDBLOCK ?
				"another session of this node is open (one at a time)" :
				strerror(-session);

			printf("refused: node %s: %s\n", vals[0], why);
			ew_err("serve: node %s: %s", vals[0], why);
			ewa_vstate_close(&st);
			return EWA_FAIL;
		}
	}
	enrollment = ew_asprintf("%s/nodes/%s.json", state_dir(vals[3]), vals[0]);
	if (RAND_bytes(in.nonce, 32) != 1) {
		ew_err("serve: no randomness");
		ret = EWA_FAIL;
		goto out;
	}
	in.nonce_len = 32;
	printf("nonce %s\n", ewa_hex(in.nonce, 32, hex));
	fflush(stdout);

	deadline = time(NULL) + (time_t)timeout;
	for (;;) {
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		uint8_t chunk[65536];
		time_t left = deadline - time(NULL);
		ssize_t n;

		if (left <= 0) {
			timed_out = true;
			break;
		}
		n = poll(&p, 1, (int)(left * 1000));
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0) {
			timed_out = true;
			break;
		}
		n = read(STDIN_FILENO, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		/* Read no further: the rest is not worth the memory. */
		if (ev.len + (size_t)n > max) {
			too_big = true;
			break;
		}
		ew_buf_add(&ev, chunk, (size_t)n);
	}
	name = timed_out ? ew_asprintf("stdin (no complete evidence within %llu s)",
				       (unsigned long long)timeout) :
	       too_big ? ew_asprintf("stdin (more than %llu MiB of evidence, serve's "
				     "max-evidence)", (unsigned long long)max_mib) :
	       ew_strdup("stdin");
	in.evidence = name;
	/* Timed out or too big: judge nothing (a deny with evidence-invalid), not a prefix. */
	in.evidence_data = timed_out || too_big || !ev.len ? (const uint8_t *)"" : ev.data;
	in.evidence_len = timed_out || too_big ? 0 : ev.len;
	in.enrollment = enrollment;
	in.manifest = vals[1];
	in.pubkey = vals[2];
	if (have_state) {
		in.state = &st;
		ewa_verify(&in, &v);
		in.state = NULL;
	} else {
		state_error(&v);
	}
	o = ewa_verdict_json(&v);
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	ret = v.admit ? EWA_OK : EWA_FAIL;
	ewa_verdict_free(&v);
	free(name);
out:
	ew_buf_free(&ev);
	free(enrollment);
	if (session >= 0)
		close(session);
	if (have_state)
		ewa_vstate_close(&st);
	return ret;
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

	ew_prog = PROG;
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
			ew_err("unknown option \"%s\" (try \"" PROG " help\")", argv[optind - 1]);
			return EWA_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		ew_err("missing command (try \"" PROG " help\")");
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
	else if (!strcmp(argv[0], "release"))
		ret = cmd_release(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "revoke"))
		ret = cmd_revoke(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "unrevoke"))
		ret = cmd_unrevoke(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "serve"))
		ret = cmd_serve(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "help")) {
		usage(stdout);
		ret = EWA_OK;
	} else {
		ew_err("unknown command \"%s\" (try \"" PROG " help\")", argv[0]);
		ret = EWA_USAGE;
	}
	if (fflush(stdout) || ferror(stdout)) {
		ew_err("write error");
		if (!ret)
			ret = EWA_FAIL;
	}
	return ret;
}
