// SPDX-License-Identifier: GPL-2.0
/*
 * Integration tests against the private swtpm tests/run.sh starts
 * ($EW_TCTI): enroll, activate, quote, verify -> admit, and every denial
 * with its own reason. The tests run in order and share the TPM: the
 * fixture tests extend PCRs, so they come after the tests without logs.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <tss2/tss2_rc.h>

#include "../ewctl.h"
#include "attest.h"
#include "credential.h"
#include "enroll.h"
#include "keyrel.h"
#include "manifest.h"
#include "nodeside.h"
#include "release.h"
#include "tpm.h"
#include "tpmcheck.h"
#include "verify.h"


/* "attest watch apply kernel" lands here instead of the eastwest module. */
static int kernel_calls;
static bool kernel_admitted;

int ewa_kernel_set_admission(bool admitted, uint32_t ttl, char *why, size_t whylen)
{
	(void)ttl;
	(void)why;
	(void)whylen;
	kernel_calls++;
	kernel_admitted = admitted;
	return 0;
}

static char work[256];
static char kernel_release[128];
static const char *verifier;

static char *wpath(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *wpath(const char *fmt, ...)
{
	static char bufs[8][512];
	static int next;
	char *b = bufs[next++ % 8];
	va_list ap;
	int n;

	n = snprintf(b, sizeof(bufs[0]), "%s/", work);
	va_start(ap, fmt);
	vsnprintf(b + n, sizeof(bufs[0]) - (size_t)n, fmt, ap);
	va_end(ap);
	return b;
}

/* "quote nonce ... out ..." -> attest_main; words are separated by spaces. */
static int node(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int node(const char *fmt, ...)
{
	char line[2048], *argv[32], *save, *w;
	int argc = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (w = strtok_r(line, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	return attest_main(argc, argv);
}

static void fresh_nonce(char hex[65])
{
	static unsigned int counter;
	uint8_t n[32];

	memset(n, 0, sizeof(n));
	n[0] = (uint8_t)++counter;
	n[1] = (uint8_t)getpid();
	ewa_sha256(n, sizeof(n), n);
	ewa_hex(n, 32, hex);
}

static void make_state(const char *name)
{
	mkdir(wpath("%s", name), 0700);
}

/* As node @enrollment (a node record from "enroll confirm"). */
static void verify_as(const char *enrollment, const char *evidence, const char *nonce,
		      const char *manifest, const char *state, struct ewa_verdict *v)
{
	struct ewa_verify_input in = { 0 };
	struct ewa_vstate st;

	assert_int_equal(ewa_parse_nonce(nonce, in.nonce, &in.nonce_len), 0);
	in.evidence = evidence;
	in.enrollment = enrollment;
	in.manifest = manifest;
	in.pubkey = wpath("op.pub");
	assert_int_equal(ewa_vstate_open(wpath("%s", state), &st), 0);
	in.state = &st;
	ewa_verify(&in, v);
	ewa_vstate_close(&st);
}

static void verify(const char *evidence, const char *nonce, const char *manifest,
		   const char *state, struct ewa_verdict *v)
{
	verify_as(wpath("node.json"), evidence, nonce, manifest, state, v);
}

static void print_reasons(const struct ewa_verdict *v)
{
	if (!v->admit)
		ewa_verdict_print(v, stderr);
}

/* Denied, and for @check among the reasons. */
static void assert_denied(const struct ewa_verdict *v, const char *check)
{
	if (v->admit || !ewa_verdict_has(v, check)) {
		ewa_verdict_print(v, stderr);
		fail_msg("expected a denial for %s", check);
	}
}

/* A manifest needing no logs, for the host's kernel (the quotes without fixtures). */
static void sign_plain_manifest(const char *out, unsigned int serial, const char *extra,
				const char *key)
{
	char *text = ew_asprintf(
		"{\"format\":\"eastwest-manifest\",\"version\":1,\"serial\":%u,"
		"\"require\":{\"ima\":false,\"uefi_event_log\":false,\"secure_boot\":false,"
		"\"pcrs\":[0,1,2,3,4,5,6,7,10,14]},\"kernels\":[\"%s\"],\"modules\":[]%s}\n",
		serial, kernel_release, extra ? extra : "");
	char *plain = ew_asprintf("%s.json", out);

	assert_int_equal(ew_write_file(plain, text, strlen(text), 0644), 0);
	assert_int_equal(ewa_manifest_sign(plain, key ? key : wpath("op.key"), out), 0);
	free(plain);
	free(text);
}

static int setup(void **state)
{
	const char *w = getenv("EW_TEST_WORK");
	struct ew_buf b = { 0 };

	(void)state;
	ew_quiet = true;
	if (!w || !getenv("EW_TCTI")) {
		fprintf(stderr, "tpm_test: run it through tests/run.sh (make test)\n");
		return -1;
	}
	snprintf(work, sizeof(work), "%s/t", w);
	mkdir(work, 0700);
	verifier = getenv("EW_VERIFIER");
	if (ewa_read_file("/proc/sys/kernel/osrelease", &b))
		return -1;
	b.data[strcspn((char *)b.data, "\n")] = '\0';
	snprintf(kernel_release, sizeof(kernel_release), "%s", (char *)b.data);
	ew_buf_free(&b);
	if (ewa_manifest_keygen(wpath("op.key"), wpath("op.pub")) ||
	    ewa_manifest_keygen(wpath("rogue.key"), wpath("rogue.pub")))
		return -1;
	return 0;
}

static void test_enroll_and_activate(void **state)
{
	struct ewa_challenge_args a = { 0 };
	struct json_object *rec;
	struct ewa_vstate st;

	(void)state;
	assert_int_equal(node("enroll out %s", wpath("enroll.json")), EWA_OK);
	a.enrollment = wpath("enroll.json");
	a.out = wpath("challenge.json");
	a.ek_ca = getenv("EW_SWTPM_CA");	/* swtpm_setup's EK certificate chain */
	assert_int_equal(ewa_vstate_open(wpath("enroll-state"), &st), 0);
	assert_int_equal(ewa_enroll_challenge(&st, &a), 0);
	assert_int_equal(node("activate challenge %s out %s", wpath("challenge.json"),
			      wpath("response.json")), EWA_OK);
	assert_int_equal(ewa_enroll_confirm(&st, wpath("response.json"), wpath("node.json"), NULL), 0);
	ewa_vstate_close(&st);
	rec = ewa_json_load(wpath("node.json"));
	assert_non_null(rec);
	assert_string_equal(ewa_json_str(rec, "bound_by"), "credential-activation");
	if (getenv("EW_SWTPM_CA"))
		assert_true(json_object_get_boolean(json_object_object_get(rec,
						    "ek_certificate_verified")));
	json_object_put(rec);
}

/* A secret that is not what the TPM unwrapped, or a challenge for another AK. */
static void test_activation_refusals(void **state)
{
	struct ewa_challenge_args a = { 0 };
	struct json_object *r;
	struct ewa_vstate st;
	char *s;

	(void)state;
	a.enrollment = wpath("enroll.json");
	a.out = wpath("challenge2.json");
	assert_int_equal(ewa_vstate_open(wpath("enroll-state2"), &st), 0);
	assert_int_equal(ewa_enroll_challenge(&st, &a), 0);
	assert_int_equal(node("activate challenge %s out %s", wpath("challenge2.json"),
			      wpath("response2.json")), EWA_OK);
	r = ewa_json_load(wpath("response2.json"));
	s = ew_strdup(ewa_json_str(r, "secret"));
	s[0] = s[0] == '0' ? '1' : '0';
	json_object_object_add(r, "secret", json_object_new_string(s));
	free(s);
	assert_int_equal(ewa_json_save(r, wpath("response2.json"), 0644), 0);
	json_object_put(r);
	assert_int_equal(ewa_enroll_confirm(&st, wpath("response2.json"), NULL, NULL), -1);
	assert_non_null(strstr(ew_last_error(), "not in the same TPM"));
	ewa_vstate_close(&st);

	r = ewa_json_load(wpath("challenge2.json"));
	json_object_object_add(r, "ak_name", json_object_new_string(
		"000b0000000000000000000000000000000000000000000000000000000000000000"));
	assert_int_equal(ewa_json_save(r, wpath("challenge3.json"), 0644), 0);
	json_object_put(r);
	assert_int_equal(node("activate challenge %s out %s", wpath("challenge3.json"),
			      wpath("response3.json")), EWA_FAIL);
	assert_non_null(strstr(ew_last_error(), "another AK"));
}

/*
 * Enrollment takes a successful TPM2_ActivateCredential as proof that the
 * AK's private key is in the EK's TPM. A software key in the AK's public
 * shape passes every check the verifier makes (ewa_check_ak_public only
 * reads attribute bits), and TPM2_LoadExternal loads that public area, so
 * the TPM itself is the only barrier: ActivateCredential needs the ADMIN
 * role of the object, and a public-only object's authValue and authPolicy
 * are never available (TPM_RC_AUTH_UNAVAILABLE). The genuine AK, same EK,
 * same path, is the control.
 */
static void test_software_ak_cannot_activate(void **state)
{
	struct ewa_key ek, ak, soft = { .handle = ESYS_TR_NONE };
	uint8_t secret[32], point[65], name[EWA_NAME_MAX_KDF];
	TPM2B_DIGEST *cred = NULL;
	TPM2B_ENCRYPTED_SECRET enc;
	TPM2B_ID_OBJECT blob;
	size_t plen, nlen;
	TPM2B_PUBLIC pub;
	EVP_PKEY *key;
	struct ewa_tpm t;
	char why[256];

	(void)state;
	memset(secret, 0x5a, sizeof(secret));
	assert_int_equal(ewa_tpm_open(getenv("EW_TCTI"), &t, why, sizeof(why)), 0);
	assert_int_equal(ewa_tpm_load_ek(&t, &ek), 0);
	assert_int_equal(ewa_tpm_load_ak(&t, &ak), 0);
	assert_int_equal(ewa_make_credential(ek.pub, ak.name->name, ak.name->size, secret,
					     sizeof(secret), &blob, &enc, why, sizeof(why)), 0);
	assert_int_equal(ewa_tpm_activate(&t, &ek, &ak, &blob, &enc, &cred), 0);
	assert_memory_equal(cred->buffer, secret, sizeof(secret));
	free(cred);
	cred = NULL;

	/* The AK's public area with the point of a key OpenSSL generated. */
	key = EVP_EC_gen("P-256");
	assert_non_null(key);
	assert_int_equal(EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, point,
							 sizeof(point), &plen), 1);
	assert_int_equal(plen, 65);
	EVP_PKEY_free(key);
	pub = *ak.pub;
	pub.publicArea.unique.ecc.x.size = 32;
	memcpy(pub.publicArea.unique.ecc.x.buffer, point + 1, 32);
	pub.publicArea.unique.ecc.y.size = 32;
	memcpy(pub.publicArea.unique.ecc.y.buffer, point + 33, 32);
	assert_int_equal(ewa_check_ak_public(&pub, why, sizeof(why)), 0);
	assert_int_equal(ewa_public_name(&pub, name, &nlen), 0);

	assert_int_equal(Esys_LoadExternal(t.esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
					   NULL, &pub, ESYS_TR_RH_OWNER, &soft.handle), 0);
	soft.transient = true;
	/* The credential really is addressed to the loaded object. */
	assert_int_equal(Esys_TR_GetName(t.esys, soft.handle, &soft.name), 0);
	assert_int_equal(soft.name->size, nlen);
	assert_memory_equal(soft.name->name, name, nlen);
	assert_int_equal(ewa_make_credential(ek.pub, name, nlen, secret, sizeof(secret), &blob,
					     &enc, why, sizeof(why)), 0);
	assert_int_equal(ewa_tpm_activate(&t, &ek, &soft, &blob, &enc, &cred), -1);
	assert_null(cred);
	assert_non_null(strstr(ew_last_error(), Tss2_RC_Decode(TPM2_RC_AUTH_UNAVAILABLE)));

	ewa_tpm_release(&t, &soft);
	ewa_tpm_release(&t, &ak);
	ewa_tpm_release(&t, &ek);
	ewa_tpm_close(&t);
}

static void test_quote_verify_admit(void **state)
{
	struct ewa_verdict v;
	char nonce[65];

	(void)state;
	sign_plain_manifest(wpath("plain.signed"), 3, NULL, NULL);
	make_state("s-admit");
	fresh_nonce(nonce);
	assert_int_equal(node("quote nonce %s out %s", nonce, wpath("q-admit.json")), EWA_OK);
	verify(wpath("q-admit.json"), nonce, wpath("plain.signed"), "s-admit", &v);
	print_reasons(&v);
	assert_true(v.admit);
	assert_int_equal(v.manifest_serial, 3);
	ewa_verdict_free(&v);
}

/* The binary: exit 0 admit, 1 deny, 2 usage; -j carries the admission. */
static void test_verifier_exit_codes(void **state)
{
	char nonce[65], other[65], *cmd;
	int st;

	(void)state;
	if (!verifier)
		skip();
	make_state("s-cli");
	fresh_nonce(nonce);
	fresh_nonce(other);
	assert_int_equal(node("quote nonce %s out %s", nonce, wpath("q-cli.json")), EWA_OK);
	cmd = ew_asprintf("%s -j verify evidence %s nonce %s enrollment %s manifest %s "
			  "pubkey %s state %s > %s", verifier, wpath("q-cli.json"), other,
			  wpath("node.json"), wpath("plain.signed"), wpath("op.pub"),
			  wpath("s-cli"), wpath("cli.out"));
	st = system(cmd);
	free(cmd);
	assert_int_equal(WEXITSTATUS(st), 1);
	cmd = ew_asprintf("grep -q '\"admission\":\"revoked\"' %s", wpath("cli.out"));
	assert_int_equal(system(cmd), 0);
	free(cmd);
	cmd = ew_asprintf("%s -j verify evidence %s nonce %s enrollment %s manifest %s "
			  "pubkey %s state %s > %s", verifier, wpath("q-cli.json"), nonce,
			  wpath("node.json"), wpath("plain.signed"), wpath("op.pub"),
			  wpath("s-cli"), wpath("cli.out"));
	st = system(cmd);
	free(cmd);
	assert_int_equal(WEXITSTATUS(st), 0);
	cmd = ew_asprintf("grep -q '\"admission\":\"admitted\"' %s", wpath("cli.out"));
	assert_int_equal(system(cmd), 0);
	free(cmd);
	cmd = ew_asprintf("%s verify evidence %s nonce xyz 2>/dev/null", verifier,
			  wpath("q-cli.json"));
	st = system(cmd);
	free(cmd);
	assert_int_equal(WEXITSTATUS(st), 2);
}

static void test_wrong_nonce(void **state)
{
	struct ewa_verdict v;
	char nonce[65], other[65];

	(void)state;
	make_state("s-nonce");
	fresh_nonce(nonce);
	fresh_nonce(other);
	assert_int_equal(node("quote nonce %s out %s", nonce, wpath("q-nonce.json")), EWA_OK);
	verify(wpath("q-nonce.json"), other, wpath("plain.signed"), "s-nonce", &v);
	assert_denied(&v, "nonce-mismatch");
	assert_int_equal(v.n_reasons, 1);
	ewa_verdict_free(&v);
}

/* Flips one bit of a base64 member (@obj: NULL or "quote"; @idx: array index or -1). */
static void tamper(const char *in, const char *out, const char *obj, const char *key, int idx,
		   size_t offset)
{
	struct json_object *o = ewa_json_load(in), *parent = o, *arr;
	const char *s;
	uint8_t *p;
	size_t n;
	char *b;

	assert_non_null(o);
	if (obj)
		parent = json_object_object_get(o, obj);
	if (idx >= 0) {
		arr = json_object_object_get(parent, key);
		s = json_object_get_string(json_object_array_get_idx(arr, (size_t)idx));
	} else {
		s = ewa_json_str(parent, key);
	}
	assert_int_equal(ewa_unbase64(s, &p, &n), 0);
	assert_true(offset < n);
	p[offset] ^= 0x01;
	b = ewa_base64(p, n);
	if (idx >= 0)
		json_object_array_put_idx(arr, (size_t)idx, json_object_new_string(b));
	else
		json_object_object_add(parent, key, json_object_new_string(b));
	free(b);
	free(p);
	assert_int_equal(ewa_json_save(o, out, 0644), 0);
	json_object_put(o);
}

static void test_tampered_quote(void **state)
{
	struct ewa_verdict v;
	char nonce[65];

	(void)state;
	make_state("s-tamper");
	fresh_nonce(nonce);
	assert_int_equal(node("quote nonce %s out %s", nonce, wpath("q-tamper.json")), EWA_OK);
	/* TPM2B_ATTEST: size 2, magic 4, type 2, signer 2+34, extraData 2+32, clock... */
	tamper(wpath("q-tamper.json"), wpath("q-tamper1.json"), "quote", "attest", -1, 80);
	verify(wpath("q-tamper1.json"), nonce, wpath("plain.signed"), "s-tamper", &v);
	assert_denied(&v, "quote-signature");
	ewa_verdict_free(&v);
	/* The magic itself. */
	tamper(wpath("q-tamper.json"), wpath("q-tamper2.json"), "quote", "attest", -1, 5);
	verify(wpath("q-tamper2.json"), nonce, wpath("plain.signed"), "s-tamper", &v);
	assert_denied(&v, "quote-magic");
	assert_denied(&v, "quote-signature");
	ewa_verdict_free(&v);
	/* The signature: last byte of S. */
	tamper(wpath("q-tamper.json"), wpath("q-tamper3.json"), "quote", "signature", -1, 70);
	verify(wpath("q-tamper3.json"), nonce, wpath("plain.signed"), "s-tamper", &v);
	assert_denied(&v, "quote-signature");
	ewa_verdict_free(&v);
	/* The report, bound by qualifyingData. */
	tamper(wpath("q-tamper.json"), wpath("q-tamper4.json"), NULL, "report", -1, 20);
	verify(wpath("q-tamper4.json"), nonce, wpath("plain.signed"), "s-tamper", &v);
	assert_denied(&v, "report-binding");
	ewa_verdict_free(&v);
	/* Untouched, it passes: the failures above were the tampering. */
	verify(wpath("q-tamper.json"), nonce, wpath("plain.signed"), "s-tamper", &v);
	print_reasons(&v);
	assert_true(v.admit);
	ewa_verdict_free(&v);
}

static void test_replayed_quote(void **state)
{
	struct json_object *o;
	struct ewa_verdict v;
	char n1[65], n2[65], n3[65], *path;
	uint64_t reset;

	(void)state;
	make_state("s-replay");
	fresh_nonce(n1);
	fresh_nonce(n2);
	assert_int_equal(node("quote nonce %s out %s", n1, wpath("q-old.json")), EWA_OK);
	usleep(20000);
	assert_int_equal(node("quote nonce %s out %s", n2, wpath("q-new.json")), EWA_OK);
	verify(wpath("q-new.json"), n2, wpath("plain.signed"), "s-replay", &v);
	print_reasons(&v);
	assert_true(v.admit);
	ewa_verdict_free(&v);
	/* The old quote, with its own nonce, after a newer one was accepted. */
	verify(wpath("q-old.json"), n1, wpath("plain.signed"), "s-replay", &v);
	assert_denied(&v, "clock-rollback");
	ewa_verdict_free(&v);
	/* The same quote twice. */
	verify(wpath("q-new.json"), n2, wpath("plain.signed"), "s-replay", &v);
	assert_denied(&v, "clock-rollback");
	ewa_verdict_free(&v);
	/* The verifier saw a later TPM reset than this quote's. */
	fresh_nonce(n3);
	assert_int_equal(node("quote nonce %s out %s", n3, wpath("q-reset.json")), EWA_OK);
	verify(wpath("q-reset.json"), n3, wpath("plain.signed"), "s-replay-probe", &v);
	assert_true(v.admit);
	reset = v.clock.reset_count;
	path = ew_asprintf("%s/ak/%s.json", wpath("s-replay"), v.ak_name);
	ewa_verdict_free(&v);
	o = json_object_new_object();
	json_object_object_add(o, "clock", json_object_new_uint64(1));
	json_object_object_add(o, "reset_count", json_object_new_uint64(reset + 1));
	json_object_object_add(o, "restart_count", json_object_new_uint64(0));
	assert_int_equal(ewa_json_save(o, path, 0600), 0);
	json_object_put(o);
	free(path);
	verify(wpath("q-reset.json"), n3, wpath("plain.signed"), "s-replay", &v);
	assert_denied(&v, "reset-rollback");
	ewa_verdict_free(&v);
}

static void test_pcr_mismatch(void **state)
{
	struct ewa_verdict v;
	char nonce[65], *extra;

	(void)state;
	make_state("s-pcr");
	fresh_nonce(nonce);
	assert_int_equal(node("quote nonce %s out %s", nonce, wpath("q-pcr.json")), EWA_OK);
	/* A PCR value in the evidence that is not what the TPM quoted. */
	tamper(wpath("q-pcr.json"), wpath("q-pcr1.json"), "quote", "pcr_values", 0, 40);
	verify(wpath("q-pcr1.json"), nonce, wpath("plain.signed"), "s-pcr", &v);
	assert_denied(&v, "pcr-digest-mismatch");
	ewa_verdict_free(&v);
	/* The quoted PCR 0 differs from the manifest's golden value. */
	extra = ew_asprintf(",\"pcrs\":{\"0\":\"%064d\",\"1\":\"%s\"}", 0,
			    "1111111111111111111111111111111111111111111111111111111111111111");
	sign_plain_manifest(wpath("golden.signed"), 3, extra, NULL);
	free(extra);
	verify(wpath("q-pcr.json"), nonce, wpath("golden.signed"), "s-pcr", &v);
	assert_denied(&v, "pcr-mismatch");
	assert_int_equal(v.n_reasons, 1);	/* PCR 1 only: PCR 0 is zero on swtpm */
	assert_non_null(strstr(v.reasons[0].detail, "PCR 1"));
	ewa_verdict_free(&v);
	/* Fewer PCRs quoted than the manifest requires. */
	fresh_nonce(nonce);
	assert_int_equal(node("quote nonce %s out %s pcrs 0-7", nonce, wpath("q-pcr2.json")),
			 EWA_OK);
	verify(wpath("q-pcr2.json"), nonce, wpath("plain.signed"), "s-pcr", &v);
	assert_denied(&v, "pcr-not-quoted");
	ewa_verdict_free(&v);
}

static void test_forged_manifest(void **state)
{
	struct json_object *o;
	struct ewa_verdict v;
	char nonce[65];
	char *body;

	(void)state;
	make_state("s-forged");
	fresh_nonce(nonce);
	assert_int_equal(node("quote nonce %s out %s", nonce, wpath("q-forged.json")), EWA_OK);
	/* Signed by a key that is not the operator's. */
	sign_plain_manifest(wpath("rogue.signed"), 3, NULL, wpath("rogue.key"));
	verify(wpath("q-forged.json"), nonce, wpath("rogue.signed"), "s-forged", &v);
	assert_denied(&v, "manifest-signature");
	ewa_verdict_free(&v);
	/* The operator's signature over other bytes (serial raised after signing). */
	o = ewa_json_load(wpath("plain.signed"));
	body = ew_asprintf("{\"format\":\"eastwest-manifest\",\"version\":1,\"serial\":99,"
			   "\"require\":{\"ima\":false,\"uefi_event_log\":false,"
			   "\"secure_boot\":false},\"kernels\":[\"%s\"]}", kernel_release);
	ewa_json_add_b64(o, "manifest", body, strlen(body));
	free(body);
	assert_int_equal(ewa_json_save(o, wpath("edited.signed"), 0644), 0);
	json_object_put(o);
	verify(wpath("q-forged.json"), nonce, wpath("edited.signed"), "s-forged", &v);
	assert_denied(&v, "manifest-signature");
	ewa_verdict_free(&v);
}

static void test_manifest_rollback(void **state)
{
	struct ewa_verdict v;
	char nonce[65];

	(void)state;
	make_state("s-serial");
	sign_plain_manifest(wpath("serial5.signed"), 5, NULL, NULL);
	sign_plain_manifest(wpath("serial4.signed"), 4, NULL, NULL);
	fresh_nonce(nonce);
	assert_int_equal(node("quote nonce %s out %s", nonce, wpath("q-s5.json")), EWA_OK);
	verify(wpath("q-s5.json"), nonce, wpath("serial5.signed"), "s-serial", &v);
	print_reasons(&v);
	assert_true(v.admit);
	ewa_verdict_free(&v);
	fresh_nonce(nonce);
	assert_int_equal(node("quote nonce %s out %s", nonce, wpath("q-s4.json")), EWA_OK);
	verify(wpath("q-s4.json"), nonce, wpath("serial4.signed"), "s-serial", &v);
	assert_denied(&v, "manifest-rollback");
	ewa_verdict_free(&v);
}

static void test_unknown_kernel(void **state)
{
	struct ewa_verdict v;
	char nonce[65];
	char *text;

	(void)state;
	make_state("s-kernel");
	text = ew_strdup("{\"format\":\"eastwest-manifest\",\"version\":1,\"serial\":3,"
			 "\"require\":{\"ima\":false,\"uefi_event_log\":false,"
			 "\"secure_boot\":false},\"kernels\":[\"5.10.0-0-amd64\"]}");
	assert_int_equal(ew_write_file(wpath("oldkernel.json"), text, strlen(text), 0644), 0);
	free(text);
	assert_int_equal(ewa_manifest_sign(wpath("oldkernel.json"), wpath("op.key"),
					   wpath("oldkernel.signed")), 0);
	fresh_nonce(nonce);
	assert_int_equal(node("quote nonce %s out %s", nonce, wpath("q-kernel.json")), EWA_OK);
	verify(wpath("q-kernel.json"), nonce, wpath("oldkernel.signed"), "s-kernel", &v);
	assert_denied(&v, "unknown-kernel");
	ewa_verdict_free(&v);
}

/* No TPM: the node says so in its evidence, the verifier denies and says why. */
static void test_no_tpm(void **state)
{
	struct ewa_verdict v;
	char nonce[65];

	(void)state;
	make_state("s-notpm");
	fresh_nonce(nonce);
	assert_int_equal(node("quote nonce %s out %s tcti device:/dev/no-such-tpm", nonce,
			      wpath("q-notpm.json")), EWA_FAIL);
	assert_non_null(strstr(ew_last_error(), "no TPM on node"));
	verify(wpath("q-notpm.json"), nonce, wpath("plain.signed"), "s-notpm", &v);
	assert_denied(&v, "no-tpm");
	assert_non_null(strstr(v.reasons[v.n_reasons - 1].detail, "no TPM on node"));
	ewa_verdict_free(&v);
	/* Nothing listens there: same answer. */
	assert_int_equal(node("quote nonce %s out %s tcti swtpm:host=127.0.0.1,port=9", nonce,
			      wpath("q-notpm2.json")), EWA_FAIL);
	verify(wpath("q-notpm2.json"), nonce, wpath("plain.signed"), "s-notpm", &v);
	assert_denied(&v, "no-tpm");
	ewa_verdict_free(&v);
}

/* 100 quotes, then no transient object and no session left in the TPM. */
static void test_no_handle_leak(void **state)
{
	char nonce[65], why[256];
	uint32_t objects = 1, sessions = 1;
	struct ewa_tpm t;
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		fresh_nonce(nonce);
		assert_int_equal(node("quote nonce %s out %s", nonce, wpath("q-loop.json")), EWA_OK);
	}
	/* The enrollment path too: EK (persistent or created), AK, policy session. */
	assert_int_equal(node("enroll out %s", wpath("enroll-again.json")), EWA_OK);
	assert_int_equal(ewa_tpm_open(getenv("EW_TCTI"), &t, why, sizeof(why)), 0);
	assert_int_equal(ewa_tpm_count_handles(&t, &objects, &sessions), 0);
	ewa_tpm_close(&t);
	assert_int_equal(objects, 0);
	assert_int_equal(sessions, 0);
}

/*
 * Extends the PCRs of the swtpm @tcti as firmware and IMA would have (or
 * as root can, from user space), from expected.json.
 */
static void extend_tpm(const char *tcti, struct json_object *exp, const char *key)
{
	struct json_object *list = json_object_object_get(exp, key);
	char why[256];
	struct ewa_tpm t;
	size_t i, len;

	assert_non_null(list);
	assert_int_equal(ewa_tpm_open(tcti, &t, why, sizeof(why)), 0);
	for (i = 0; i < json_object_array_length(list); i++) {
		struct json_object *e = json_object_array_get_idx(list, i);
		TPML_DIGEST_VALUES d = { .count = 1 };
		int pcr = json_object_get_int(json_object_array_get_idx(e, 0));
		const char *hex = json_object_get_string(json_object_array_get_idx(e, 1));
		TSS2_RC rc;

		d.digests[0].hashAlg = TPM2_ALG_SHA256;
		assert_int_equal(ew_unhex(hex, d.digests[0].digest.sha256, 32, &len), 0);
		rc = Esys_PCR_Extend(t.esys, ESYS_TR_PCR0 + (ESYS_TR)pcr, ESYS_TR_PASSWORD,
				     ESYS_TR_NONE, ESYS_TR_NONE, &d);
		if (rc)
			fail_msg("PCR_Extend %d: %s", pcr, Tss2_RC_Decode(rc));
	}
	ewa_tpm_close(&t);
}

static void extend_from(struct json_object *exp, const char *key)
{
	extend_tpm(getenv("EW_TCTI"), exp, key);
}

static void quote_fixture(const char *nonce, const char *out, const char *ima)
{
	char *root = fixture_path("root"), *ilog = fixture_path(ima);
	char *ulog = fixture_path("uefi.bin");

	assert_int_equal(node("quote nonce %s out %s root %s ima-log %s event-log %s", nonce,
			      out, root, ilog, ulog), EWA_OK);
	free(root);
	free(ilog);
	free(ulog);
}

/*
 * Firmware and IMA logs: the TPM's PCRs after the extends equal Python's
 * values, the verifier's replays equal the TPM's, and a manifest captured
 * from this node admits it (Secure Boot on, every module known).
 */
static void test_fixture_logs_admit(void **state)
{
	struct json_object *exp = fixture_expected(), *m;
	TPML_DIGEST chunks[EWA_MAX_PCR_CHUNKS];
	struct ewa_verdict v;
	char nonce[65], why[256];
	uint8_t want[32];
	struct ewa_tpm t;
	size_t n, i;

	(void)state;
	extend_from(exp, "extends");
	/* Independent check: the TPM agrees with Python. */
	assert_int_equal(ewa_tpm_open(getenv("EW_TCTI"), &t, why, sizeof(why)), 0);
	assert_int_equal(ewa_tpm_pcr_read(&t, 0x7ff | 1U << 14, chunks, &n), 0);
	ewa_tpm_close(&t);
	for (i = 0; i < 12; i++) {
		unsigned int pcr = i < 11 ? (unsigned int)i : 14;

		expected_pcr(exp, pcr, want);
		assert_memory_equal(chunks[i / 8].digests[i % 8].buffer, want, 32);
	}
	fresh_nonce(nonce);
	quote_fixture(nonce, wpath("q-ref.json"), "ima.bin");
	assert_int_equal(ewa_manifest_from_node(wpath("q-ref.json"), 10, wpath("ref.json")), 0);
	m = ewa_json_load(wpath("ref.json"));
	assert_true(json_object_get_boolean(json_object_object_get(
		json_object_object_get(m, "require"), "secure_boot")));
	assert_int_equal(json_object_array_length(json_object_object_get(m, "modules")), 3);
	assert_int_equal(json_object_array_length(json_object_object_get(m, "boot_digests")), 3);
	json_object_put(m);
	json_object_put(exp);
	assert_int_equal(ewa_manifest_sign(wpath("ref.json"), wpath("op.key"),
					   wpath("ref.signed")), 0);
	make_state("s-fixture");
	fresh_nonce(nonce);
	quote_fixture(nonce, wpath("q-fix.json"), "ima.bin");
	verify(wpath("q-fix.json"), nonce, wpath("ref.signed"), "s-fixture", &v);
	print_reasons(&v);
	assert_true(v.admit);
	assert_string_equal(v.secure_boot, "on");
	assert_int_equal(v.modules_measured, 3);
	assert_int_equal(v.modules_reported, 3);
	ewa_verdict_free(&v);
	/* The host manifest requires logs it does not list: everything denied. */
	verify(wpath("q-fix.json"), nonce, wpath("plain.signed"), "s-fixture", &v);
	assert_denied(&v, "unknown-kernel");
	assert_denied(&v, "unknown-boot-digest");
	assert_denied(&v, "unknown-module");
	ewa_verdict_free(&v);
}

/* An unknown-module reason names @path. */
static void assert_unknown_entry(const struct ewa_verdict *v, const char *path)
{
	size_t i;

	for (i = 0; i < v->n_reasons; i++)
		if (!strcmp(v->reasons[i].check, "unknown-module") &&
		    strstr(v->reasons[i].detail, path))
			return;
	ewa_verdict_print(v, stderr);
	fail_msg("expected an unknown-module reason naming %s", path);
}

/*
 * Root loads a module with finit_module() from a file that is not named
 * *.ko, or from a memfd: IMA records that path (MODULE_CHECK looks at the
 * file, never at its name), and the entry is judged like any other.
 */
static void test_module_any_name(void **state)
{
	struct json_object *exp = fixture_expected();
	struct ewa_verdict v;
	char nonce[65];

	(void)state;
	extend_from(exp, "renamed_extend");
	json_object_put(exp);
	make_state("s-renamed");
	fresh_nonce(nonce);
	quote_fixture(nonce, wpath("q-renamed.json"), "ima-renamed.bin");
	verify(wpath("q-renamed.json"), nonce, wpath("ref.signed"), "s-renamed", &v);
	if (v.admit) {
		ewa_verdict_print(&v, stderr);
		fail_msg("a module loaded from /var/tmp/evil.bin and a memfd was admitted");
	}
	assert_unknown_entry(&v, "/var/tmp/evil.bin");
	assert_unknown_entry(&v, "/memfd:evil (deleted)");
	ewa_verdict_free(&v);
}

/* A module outside the manifest is measured (even a refused load): deny. */
static void test_unknown_module(void **state)
{
	struct json_object *exp = fixture_expected();
	struct ewa_verdict v;
	char nonce[65];
	size_t i, unknown = 0;

	(void)state;
	extend_from(exp, "evil_extend");
	json_object_put(exp);
	make_state("s-evil");
	fresh_nonce(nonce);
	quote_fixture(nonce, wpath("q-evil.json"), "ima-evil.bin");
	verify(wpath("q-evil.json"), nonce, wpath("ref.signed"), "s-evil", &v);
	assert_denied(&v, "unknown-module");
	assert_unknown_entry(&v, "/tmp/evil.ko");
	/* And the two loads of test_module_any_name before it, nothing else. */
	for (i = 0; i < v.n_reasons; i++)
		if (!strcmp(v.reasons[i].check, "unknown-module"))
			unknown++;
	assert_int_equal(unknown, 3);
	assert_int_equal(v.n_reasons, 3);
	ewa_verdict_free(&v);
}

/* A log that hides the last measurement no longer replays to PCR 10. */
static void test_ima_log_hides_entry(void **state)
{
	struct ewa_verdict v;
	char nonce[65];

	(void)state;
	make_state("s-hide");
	fresh_nonce(nonce);
	quote_fixture(nonce, wpath("q-hide.json"), "ima.bin");
	verify(wpath("q-hide.json"), nonce, wpath("ref.signed"), "s-hide", &v);
	assert_denied(&v, "ima-replay-mismatch");
	ewa_verdict_free(&v);
}


/* eastwest-verifier ARGS with its output in work/NAME.out and NAME.err: the exit status. */
static int vrun(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int vrun(const char *name, const char *fmt, ...)
{
	char args[2048], *cmd;
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	cmd = ew_asprintf("%s %s >%s 2>%s", verifier, args, wpath("%s.out", name),
			  wpath("%s.err", name));
	st = system(cmd);
	free(cmd);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* work/FILE holds @needle (printed when not). */
static void assert_file_has(const char *file, const char *needle)
{
	struct ew_buf b = { 0 };

	assert_int_equal(ewa_read_file(wpath("%s", file), &b), 0);
	if (!memmem(b.data, b.len, needle, strlen(needle)))
		fail_msg("%s does not say \"%s\": %.*s", file, needle, (int)b.len,
			 (const char *)b.data);
	ew_buf_free(&b);
}

/* --- key release bound to admission ------------------------------------ */

static void write_key(const char *path, unsigned int mode, uint8_t key[32])
{
	int i;

	for (i = 0; i < 32; i++)
		key[i] = (uint8_t)(i * 37 + 11);
	unlink(path);
	assert_int_equal(ew_write_file(path, key, 32, mode), 0);
}

static int release(const char *state, const char *out, uint64_t max_age,
		   struct ewa_release_result *r)
{
	struct ewa_release_args a = { 0 };
	struct ewa_vstate st;
	int ret;

	a.key = wpath("path.key");
	a.enrollment = wpath("node.json");
	a.out = out;
	a.max_age = max_age;
	assert_int_equal(ewa_vstate_open(wpath("%s", state), &st), 0);
	ret = ewa_release_key(&st, &a, r);
	ewa_vstate_close(&st);
	return ret;
}

static void assert_refused(struct ewa_release_result *r, const char *reason)
{
	if (r->released || !r->reason || strcmp(r->reason, reason))
		fail_msg("expected a refusal for %s, got %s: %s", reason,
			 r->released ? "released" : r->reason, r->detail);
	ewa_release_result_free(r);
}

/* s-admit holds this node's admit (test_quote_verify_admit): released, and
 * only this TPM gets the exact bytes back, mode 0600. */
static void test_release_after_admit(void **state)
{
	struct ewa_release_result r;
	struct ew_buf got = { 0 };
	uint8_t key[32];
	struct stat st;

	(void)state;
	write_key(wpath("path.key"), 0600, key);
	assert_int_equal(release("s-admit", wpath("key.rel"), 300, &r), 0);
	assert_true(r.released);
	assert_int_equal(r.key_len, 32);
	ewa_release_result_free(&r);
	/* The release file does not hold the key in the clear. */
	assert_int_equal(ewa_read_file(wpath("key.rel"), &got), 0);
	assert_null(memmem(got.data, got.len, key, sizeof(key)));
	ew_buf_free(&got);

	unlink(wpath("got.key"));
	assert_int_equal(node("unwrap in %s out %s", wpath("key.rel"), wpath("got.key")), EWA_OK);
	assert_int_equal(ewa_read_file(wpath("got.key"), &got), 0);
	assert_int_equal(got.len, 32);
	assert_memory_equal(got.data, key, 32);
	ew_buf_free(&got);
	assert_int_equal(stat(wpath("got.key"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(node("unwrap in %s out -", wpath("key.rel")), EWA_USAGE);
}

/* Back-dates the verdict of the node's AK in @state by @secs. */
static void age_verdict(const char *state, uint64_t secs)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "f=$(ls %s/verdicts/*.json) && python3 -c 'import json,sys; p=sys.argv[1]; "
		 "o=json.load(open(p)); o[\"at\"]-=%llu; json.dump(o,open(p,\"w\"))' $f",
		 wpath("%s", state), (unsigned long long)secs);
	assert_int_equal(system(cmd), 0);
}

static void test_release_refusals(void **state)
{
	struct ewa_release_result r;
	struct ewa_verdict v;
	char nonce[65], *cmd;
	uint8_t key[32];
	int st;

	(void)state;
	/* Never attested here. */
	make_state("s-rel-none");
	assert_int_equal(release("s-rel-none", wpath("none.rel"), 300, &r), 1);
	assert_refused(&r, "not-admitted");
	assert_int_equal(access(wpath("none.rel"), F_OK), -1);

	/* Admitted, then denied: the deny wins. */
	make_state("s-rel-deny");
	fresh_nonce(nonce);
	assert_int_equal(node("quote nonce %s out %s", nonce, wpath("q-rel.json")), EWA_OK);
	verify(wpath("q-rel.json"), nonce, wpath("plain.signed"), "s-rel-deny", &v);
	assert_true(v.admit);
	ewa_verdict_free(&v);
	assert_int_equal(release("s-rel-deny", wpath("deny.rel"), 300, &r), 0);
	ewa_release_result_free(&r);
	fresh_nonce(nonce);
	assert_int_equal(node("quote nonce %s out %s", nonce, wpath("q-rel2.json")), EWA_OK);
	verify(wpath("q-rel2.json"), nonce, wpath("oldkernel.signed"), "s-rel-deny", &v);
	assert_denied(&v, "unknown-kernel");
	ewa_verdict_free(&v);
	assert_int_equal(release("s-rel-deny", wpath("deny.rel"), 300, &r), 1);
	assert_non_null(strstr(r.detail, "unknown-kernel"));
	assert_refused(&r, "denied");

	/* A stale admit. */
	make_state("s-rel-stale");
	fresh_nonce(nonce);
	assert_int_equal(node("quote nonce %s out %s", nonce, wpath("q-rel3.json")), EWA_OK);
	verify(wpath("q-rel3.json"), nonce, wpath("plain.signed"), "s-rel-stale", &v);
	assert_true(v.admit);
	ewa_verdict_free(&v);
	age_verdict("s-rel-stale", 1000);
	assert_int_equal(release("s-rel-stale", wpath("stale.rel"), 300, &r), 1);
	assert_non_null(strstr(r.detail, "max-age 300"));
	assert_refused(&r, "stale");
	assert_int_equal(release("s-rel-stale", wpath("stale.rel"), 3600, &r), 0);
	ewa_release_result_free(&r);

	/* An operator's revocation, through the binary. */
	if (verifier) {
		cmd = ew_asprintf("%s revoke enrollment %s reason 'stolen disk' state %s "
				  ">/dev/null", verifier, wpath("node.json"), wpath("s-rel-stale"));
		assert_int_equal(system(cmd), 0);
		free(cmd);
		cmd = ew_asprintf("%s -j release key %s enrollment %s out %s state %s > %s",
				  verifier, wpath("path.key"), wpath("node.json"),
				  wpath("rev.rel"), wpath("s-rel-stale"), wpath("rev.out"));
		st = system(cmd);
		free(cmd);
		assert_int_equal(WEXITSTATUS(st), 1);
		cmd = ew_asprintf("grep -q '\"reason\":\"denied\".*operator-revoked: stolen disk' %s",
				  wpath("rev.out"));
		assert_int_equal(system(cmd), 0);
		free(cmd);
	}

	/* A key file others can read is not released. */
	write_key(wpath("path.key"), 0644, key);
	assert_int_equal(release("s-admit", wpath("open.rel"), 300, &r), 1);
	assert_non_null(strstr(r.detail, "too open"));
	assert_refused(&r, "key-invalid");
	write_key(wpath("path.key"), 0600, key);
}

/* Node B's TPM (a second swtpm) cannot unwrap what was released to A. */
static void test_release_other_tpm(void **state)
{
	const char *b = getenv("EW_TCTI_B");
	struct json_object *o, *enr;

	(void)state;
	if (!b)
		skip();
	unlink(wpath("b.key"));
	assert_int_equal(node("unwrap in %s out %s tcti %s", wpath("key.rel"), wpath("b.key"), b),
			 EWA_FAIL);
	assert_non_null(strstr(ew_last_error(), "for another TPM"));
	/* Even addressed to B's AK, B's EK cannot open A's credential. */
	assert_int_equal(node("enroll out %s tcti %s", wpath("enroll-b.json"), b), EWA_OK);
	enr = ewa_json_load(wpath("enroll-b.json"));
	o = ewa_json_load(wpath("key.rel"));
	assert_non_null(enr);
	assert_non_null(o);
	json_object_object_add(o, "ak_name", json_object_new_string(ewa_json_str(enr, "ak_name")));
	assert_int_equal(ewa_json_save(o, wpath("key-b.rel"), 0600), 0);
	json_object_put(o);
	json_object_put(enr);
	assert_int_equal(node("unwrap in %s out %s tcti %s", wpath("key-b.rel"), wpath("b.key"),
			      b), EWA_FAIL);
	assert_non_null(strstr(ew_last_error(), "ActivateCredential"));
	assert_int_equal(access(wpath("b.key"), F_OK), -1);
	/* And A itself refuses the altered file (the AK name is authenticated). */
	assert_int_equal(node("unwrap in %s out %s", wpath("key-b.rel"), wpath("b.key")),
			 EWA_FAIL);
}

/*
 * Enrollment through the binary into @sdir: challenge (with @opts, e.g.
 * "node NAME"), activation on @tcti (NULL: $EW_TCTI), then confirm (with
 * @confirm_opts, e.g. "replace NAME"): confirm's exit status, its output
 * in work/confirm.out and confirm.err.
 */
static int enroll_via_binary(const char *sdir, const char *enrollment, const char *tcti,
			     const char *opts, const char *confirm_opts)
{
	char t[256] = "";

	if (tcti)
		snprintf(t, sizeof(t), " tcti %s", tcti);
	assert_int_equal(vrun("challenge", "enroll challenge enrollment %s out %s %s state %s",
			      enrollment, wpath("taken-challenge.json"), opts ? opts : "", sdir), 0);
	assert_int_equal(node("activate challenge %s out %s%s", wpath("taken-challenge.json"),
			      wpath("taken-response.json"), t), EWA_OK);
	return vrun("confirm", "enroll confirm response %s %s state %s", wpath("taken-response.json"),
		    confirm_opts ? confirm_opts : "", sdir);
}

/*
 * A second TPM reporting the first node's hostname (both run on this host)
 * must not take over that node's record, nor may one AK hold two names.
 */
static void test_enroll_name_taken(void **state)
{
	const char *b = getenv("EW_TCTI_B");
	struct ew_buf before = { 0 }, after = { 0 };
	struct json_object *enr, *rec;
	struct ewa_verify_input in = { 0 };
	struct ewa_vstate st;
	struct ewa_verdict v;
	char sdir[512], rec_a[768], name[128], nonce[65];

	(void)state;
	if (!verifier || !b)
		skip();
	snprintf(sdir, sizeof(sdir), "%s", wpath("s-enroll-names"));
	/* A, named after its hostname (no "node NAME"), as the docs allow. */
	assert_int_equal(enroll_via_binary(sdir, wpath("enroll.json"), NULL, NULL, NULL), 0);
	enr = ewa_json_load(wpath("enroll.json"));
	assert_non_null(enr);
	snprintf(name, sizeof(name), "%s", ewa_json_str(enr, "hostname"));
	json_object_put(enr);
	snprintf(rec_a, sizeof(rec_a), "%s/nodes/%s.json", sdir, name);
	assert_int_equal(ewa_read_file(rec_a, &before), 0);

	/* B says it is A: refused, and A's record is what it was. */
	assert_int_equal(node("enroll out %s tcti %s", wpath("enroll-b.json"), b), EWA_OK);
	assert_int_equal(enroll_via_binary(sdir, wpath("enroll-b.json"), b, NULL, NULL), 1);
	assert_file_has("confirm.err", "already bound");
	assert_file_has("confirm.err", name);
	assert_file_has("confirm.err", "replace");
	assert_int_equal(ewa_read_file(rec_a, &after), 0);
	assert_int_equal(after.len, before.len);
	assert_memory_equal(after.data, before.data, before.len);
	ew_buf_free(&after);

	/* A still attests under its name. */
	fresh_nonce(nonce);
	assert_int_equal(node("quote nonce %s out %s", nonce, wpath("q-names.json")), EWA_OK);
	assert_int_equal(ewa_parse_nonce(nonce, in.nonce, &in.nonce_len), 0);
	in.evidence = wpath("q-names.json");
	in.enrollment = rec_a;
	in.manifest = wpath("plain.signed");
	in.pubkey = wpath("op.pub");
	assert_int_equal(ewa_vstate_open(sdir, &st), 0);
	in.state = &st;
	ewa_verify(&in, &v);
	ewa_vstate_close(&st);
	print_reasons(&v);
	assert_true(v.admit);
	ewa_verdict_free(&v);

	/* A's AK (and EK) under a second name: refused. */
	assert_int_equal(enroll_via_binary(sdir, wpath("enroll.json"), NULL, "node second-name",
					   NULL), 1);
	assert_file_has("confirm.err", "already enrolled as node");
	assert_file_has("confirm.err", name);
	assert_int_equal(access(wpath("s-enroll-names/nodes/second-name.json"), F_OK), -1);

	/* A again with its own keys: as before, bound anew. */
	assert_int_equal(enroll_via_binary(sdir, wpath("enroll.json"), NULL, NULL, NULL), 0);

	/* Replacing A on purpose takes naming it, exactly. */
	assert_int_equal(enroll_via_binary(sdir, wpath("enroll-b.json"), b, NULL,
					   "replace not-this-node"), 1);
	assert_file_has("confirm.err", "not-this-node");
	assert_int_equal(vrun("confirm", "enroll confirm response %s replace %s state %s",
			      wpath("taken-response.json"), name, sdir), 0);
	rec = ewa_json_load(rec_a);
	enr = ewa_json_load(wpath("enroll-b.json"));
	assert_non_null(rec);
	assert_non_null(enr);
	assert_string_equal(ewa_json_str(rec, "ak_name"), ewa_json_str(enr, "ak_name"));
	json_object_put(rec);
	json_object_put(enr);
	ew_buf_free(&before);
}

/* --- periodic re-attestation ------------------------------------------------ */

/* A verifier state whose inventory knows this node, for "serve". */
static const char *serve_state(const char *name, char *node_name, size_t len)
{
	struct json_object *rec = ewa_json_load(wpath("node.json"));
	char *dir = ew_strdup(wpath("%s", name)), *p;
	struct ewa_vstate st;

	assert_non_null(rec);
	snprintf(node_name, len, "%s", ewa_json_str(rec, "node"));
	assert_int_equal(ewa_vstate_open(dir, &st), 0);
	ewa_vstate_close(&st);
	p = ew_asprintf("%s/nodes/%s.json", dir, node_name);
	assert_int_equal(ewa_json_save(rec, p, 0600), 0);
	free(p);
	free(dir);
	json_object_put(rec);
	return wpath("%s", name);
}

static void test_watch_admit_and_revoke(void **state)
{
	struct ewa_release_result r;
	char nodename[128], sdir[512];

	(void)state;
	if (!verifier)
		skip();
	snprintf(sdir, sizeof(sdir), "%s", serve_state("s-watch", nodename, sizeof(nodename)));
	ew_quiet = false;

	kernel_calls = 0;
	assert_int_equal(node("watch rounds 1 timeout 20 verifier %s serve node %s manifest %s "
			      "pubkey %s state %s", verifier, nodename, wpath("plain.signed"),
			      wpath("op.pub"), sdir), EWA_OK);
	assert_int_equal(kernel_calls, 1);
	assert_true(kernel_admitted);
	/* The serve recorded the admit: the key is released. */
	assert_int_equal(release("s-watch", wpath("w.rel"), 300, &r), 0);
	ewa_release_result_free(&r);

	/* The verifier denies (a manifest for another kernel): revoked. */
	assert_int_equal(node("watch rounds 1 timeout 20 verifier %s serve node %s manifest %s "
			      "pubkey %s state %s", verifier, nodename, wpath("oldkernel.signed"),
			      wpath("op.pub"), sdir), EWA_FAIL);
	assert_int_equal(kernel_calls, 2);
	assert_false(kernel_admitted);
	assert_int_equal(release("s-watch", wpath("w.rel"), 300, &r), 1);
	assert_refused(&r, "denied");

	/* Admitted again, then two rounds: the interval is start to start. */
	assert_int_equal(node("watch rounds 2 interval 1 timeout 20 verifier %s serve node %s "
			      "manifest %s pubkey %s state %s", verifier, nodename,
			      wpath("plain.signed"), wpath("op.pub"), sdir), EWA_OK);
	assert_int_equal(kernel_calls, 4);
	assert_true(kernel_admitted);
	ew_quiet = true;
}

/* Fail closed: no verifier, a silent one, a bad answer, no TPM. */
static void test_watch_fail_closed(void **state)
{
	static const char silent[] = "#!/bin/sh\necho nonce "
		"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\nexec sleep 30\n";
	static const char liar[] = "#!/bin/sh\necho nonce "
		"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n"
		"cat >/dev/null\necho '{\"decision\": \"admit\", \"reasons\": []}'\nexit 1\n";
	struct ewa_release_result r;
	char nodename[128], sdir[512];

	(void)state;
	if (!verifier)
		skip();
	snprintf(sdir, sizeof(sdir), "%s", serve_state("s-watch2", nodename, sizeof(nodename)));
	kernel_calls = 0;
	kernel_admitted = true;
	assert_int_equal(node("watch rounds 1 verifier /nonexistent/verifier"), EWA_FAIL);
	assert_int_equal(kernel_calls, 1);
	assert_false(kernel_admitted);

	kernel_admitted = true;
	assert_int_equal(node("watch rounds 1 timeout 1 verifier sleep 30"), EWA_FAIL);
	assert_false(kernel_admitted);

	/* A nonce, then silence: the round times out. */
	assert_int_equal(ew_write_file(wpath("silent-verifier.sh"), silent, strlen(silent),
				       0755), 0);
	kernel_admitted = true;
	assert_int_equal(node("watch rounds 1 timeout 2 verifier %s",
			      wpath("silent-verifier.sh")), EWA_FAIL);
	assert_false(kernel_admitted);

	/* Says admit, exits 1: not admitted. */
	assert_int_equal(ew_write_file(wpath("fake-verifier.sh"), liar, strlen(liar), 0755), 0);
	kernel_admitted = true;
	assert_int_equal(node("watch rounds 1 timeout 5 verifier %s",
			      wpath("fake-verifier.sh")), EWA_FAIL);
	assert_false(kernel_admitted);

	/* No TPM: revoked, and the verifier recorded the deny. */
	kernel_admitted = true;
	assert_int_equal(node("watch rounds 1 timeout 20 tcti device:/dev/no-such-tpm verifier %s "
			      "serve node %s manifest %s pubkey %s state %s", verifier, nodename,
			      wpath("plain.signed"), wpath("op.pub"), sdir), EWA_FAIL);
	assert_false(kernel_admitted);
	assert_int_equal(release("s-watch2", wpath("w2.rel"), 300, &r), 1);
	assert_non_null(strstr(r.detail, "no-tpm"));
	assert_refused(&r, "denied");
}

/*
 * An operator's revocation holds through the node's next rounds (its watch
 * re-attests every interval) until the operator lifts it.
 */
static void test_revoke_holds(void **state)
{
	struct ewa_release_result r;
	struct ewa_verdict_rec vr;
	struct ewa_vstate st;
	char nodename[128], sdir[512], rec[768], r_ak[2 * EWA_NAME_MAX + 1];

	(void)state;
	if (!verifier)
		skip();
	snprintf(sdir, sizeof(sdir), "%s", serve_state("s-revoke", nodename, sizeof(nodename)));
	snprintf(rec, sizeof(rec), "%s/nodes/%s.json", sdir, nodename);
	assert_int_equal(node("watch rounds 1 timeout 20 verifier %s serve node %s manifest %s "
			      "pubkey %s state %s", verifier, nodename, wpath("plain.signed"),
			      wpath("op.pub"), sdir), EWA_OK);
	assert_int_equal(release("s-revoke", wpath("rv.rel"), 300, &r), 0);
	snprintf(r_ak, sizeof(r_ak), "%s", r.ak_name);
	ewa_release_result_free(&r);

	assert_int_equal(vrun("revoke", "revoke enrollment %s reason 'stolen disk' state %s",
			      rec, sdir), 0);
	/* The node's next round: denied, and key release with it. */
	kernel_admitted = true;
	assert_int_equal(node("watch rounds 1 timeout 20 verifier %s serve node %s manifest %s "
			      "pubkey %s state %s", verifier, nodename, wpath("plain.signed"),
			      wpath("op.pub"), sdir), EWA_FAIL);
	assert_false(kernel_admitted);
	assert_int_equal(release("s-revoke", wpath("rv.rel"), 300, &r), 1);
	assert_non_null(strstr(r.detail, "operator-revoked: stolen disk"));
	assert_refused(&r, "denied");
	/* The round's deny is on record, for what reads the verdicts. */
	assert_int_equal(ewa_vstate_open(sdir, &st), 0);
	assert_int_equal(ewa_vstate_get_verdict(&st, r_ak, &vr), 1);
	ewa_vstate_close(&st);
	assert_false(vr.admit);
	assert_string_equal(vr.reasons, "operator-revoked");

	/* Lifting it: what is wrong is said so. */
	assert_int_equal(vrun("unrevoke", "unrevoke state %s", sdir), 2);
	assert_file_has("unrevoke.err", "enrollment");
	assert_int_equal(vrun("unrevoke", "unrevoke node %s enrollment %s state %s", nodename, rec,
			      sdir), 2);
	assert_int_equal(vrun("unrevoke", "unrevoke node ../x state %s", sdir), 2);
	assert_int_equal(vrun("unrevoke", "unrevoke node no-such-node state %s", sdir), 1);
	assert_file_has("unrevoke.err", "no-such-node");
	assert_file_has("unrevoke.err", "not enrolled");
	assert_int_equal(vrun("unrevoke", "unrevoke enrollment %s state %s",
			      wpath("no-such.json"), sdir), 1);
	assert_file_has("unrevoke.err", "no-such.json");
	assert_int_equal(vrun("unrevoke", "unrevoke node %s state %s", nodename, sdir), 0);
	assert_file_has("unrevoke.out", nodename);
	assert_int_equal(vrun("unrevoke", "unrevoke node %s state %s", nodename, sdir), 1);
	assert_file_has("unrevoke.err", "not revoked");

	/* Admitted again at the next round, and released. */
	assert_int_equal(node("watch rounds 1 timeout 20 verifier %s serve node %s manifest %s "
			      "pubkey %s state %s", verifier, nodename, wpath("plain.signed"),
			      wpath("op.pub"), sdir), EWA_OK);
	assert_true(kernel_admitted);
	assert_int_equal(release("s-revoke", wpath("rv.rel"), 300, &r), 0);
	ewa_release_result_free(&r);
}

/* --- eastwest-verifier serve, as a process ------------------------------ */

struct serve_proc {
	pid_t pid;
	int in, out;
};

/* "eastwest-verifier serve node NODE manifest MANIFEST pubkey ... state SDIR". */
static void serve_start(struct serve_proc *p, const char *node_name, const char *manifest,
			const char *sdir)
{
	int in[2], out[2];

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	p->pid = fork();
	assert_true(p->pid >= 0);
	if (p->pid == 0) {
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		execl(verifier, verifier, "serve", "node", node_name, "manifest", manifest,
		      "pubkey", wpath("op.pub"), "state", sdir, "timeout", "60", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->in = in[1];
	p->out = out[0];
}

/* Its output up to EOF (or the end of a line, with @line), within 30 s. */
static void serve_read(struct serve_proc *p, struct ew_buf *b, bool line)
{
	char c;

	for (;;) {
		struct pollfd pfd = { .fd = p->out, .events = POLLIN };

		if (poll(&pfd, 1, 30000) != 1)
			fail_msg("serve: no output within 30 s");
		if (read(p->out, &c, 1) != 1)
			break;
		ew_buf_add(b, &c, 1);
		if (line && c == '\n')
			break;
	}
	ew_buf_add(b, "", 1);
	b->len--;
}

/* One line ("nonce HEX"), without its newline. */
static void serve_line(struct serve_proc *p, char *line, size_t len)
{
	struct ew_buf b = { 0 };

	serve_read(p, &b, true);
	snprintf(line, len, "%s", b.len ? (char *)b.data : "");
	line[strcspn(line, "\n")] = '\0';
	ew_buf_free(&b);
}

/* Closes its input, reads the rest of its output into @rest; its exit status. */
static int serve_end(struct serve_proc *p, struct ew_buf *rest)
{
	struct ew_buf b = { 0 };
	int st;

	if (p->in >= 0)
		close(p->in);
	serve_read(p, rest ? rest : &b, false);
	ew_buf_free(&b);
	close(p->out);
	assert_int_equal(waitpid(p->pid, &st, 0), p->pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * The evidence serve reads is bounded by what a node's evidence needs, not
 * by the verifier's 256 MiB file limit: 17 MiB of it is refused, and serve
 * stops reading there instead of buffering and parsing it all.
 */
static void test_serve_evidence_limit(void **state)
{
	static char chunk[65536];
	struct serve_proc p;
	struct ew_buf out = { 0 };
	char nodename[128], sdir[512], line[256];
	size_t sent = 0;
	void (*old)(int);

	(void)state;
	if (!verifier)
		skip();
	snprintf(sdir, sizeof(sdir), "%s", serve_state("s-big", nodename, sizeof(nodename)));
	old = signal(SIGPIPE, SIG_IGN);
	serve_start(&p, nodename, wpath("plain.signed"), sdir);
	serve_line(&p, line, sizeof(line));
	assert_int_equal(strncmp(line, "nonce ", 6), 0);
	memset(chunk, ' ', sizeof(chunk));
	chunk[0] = '{';
	while (sent < (17U << 20)) {
		ssize_t n = write(p.in, chunk, sizeof(chunk));

		if (n <= 0)
			break;
		chunk[0] = ' ';
		sent += (size_t)n;
	}
	assert_int_equal(serve_end(&p, &out), EWA_FAIL);
	signal(SIGPIPE, old);
	if (!strstr((char *)out.data, "evidence-invalid") ||
	    !strstr((char *)out.data, "more than 16 MiB"))
		fail_msg("17 MiB of evidence: expected evidence-invalid for more than 16 MiB, "
			 "got %s", (char *)out.data);
	if (sent >= (17U << 20))
		fail_msg("serve read all %zu bytes of an oversized evidence", sent);
	ew_buf_free(&out);
}

/*
 * One session per node: a second serve for a node whose session is open is
 * refused at once, with a reason, and before any nonce; once the first
 * ends, the node gets a session again.
 */
static void test_serve_one_session_per_node(void **state)
{
	struct serve_proc a, b;
	struct ew_buf out = { 0 };
	char nodename[128], sdir[512], line[256];
	int st;

	(void)state;
	if (!verifier)
		skip();
	snprintf(sdir, sizeof(sdir), "%s", serve_state("s-twice", nodename, sizeof(nodename)));
	serve_start(&a, nodename, wpath("plain.signed"), sdir);
	serve_line(&a, line, sizeof(line));
	assert_int_equal(strncmp(line, "nonce ", 6), 0);

	serve_start(&b, nodename, wpath("plain.signed"), sdir);
	serve_line(&b, line, sizeof(line));
	st = serve_end(&b, NULL);
	/* The first session is unharmed: no evidence, a deny of its own. */
	assert_int_equal(serve_end(&a, &out), EWA_FAIL);
	assert_non_null(strstr((char *)out.data, "evidence-invalid"));
	ew_buf_free(&out);
	if (strncmp(line, "refused: ", 9) || !strstr(line, "session"))
		fail_msg("a second session of node %s: expected \"refused: ...session...\", "
			 "got \"%s\"", nodename, line);
	assert_int_equal(st, EWA_FAIL);

	serve_start(&b, nodename, wpath("plain.signed"), sdir);
	serve_line(&b, line, sizeof(line));
	assert_int_equal(strncmp(line, "nonce ", 6), 0);
	assert_int_equal(serve_end(&b, NULL), EWA_FAIL);
}

/*
 * A verification that takes long (here: its manifest is a FIFO nobody
 * writes yet) holds up no other node: another node's round is admitted
 * meanwhile. The verifier's state lock covers the state's reads and
 * writes only, not the parsing and checking of a node's evidence.
 */
static void test_serve_slow_node_holds_up_no_other(void **state)
{
	struct ew_buf man = { 0 }, out = { 0 };
	char nodename[128], sdir[512], line[256];
	struct serve_proc slow;
	int fd, ret;

	(void)state;
	if (!verifier)
		skip();
	snprintf(sdir, sizeof(sdir), "%s", serve_state("s-slow", nodename, sizeof(nodename)));
	assert_int_equal(mkfifo(wpath("slow.fifo"), 0600), 0);
	serve_start(&slow, "slow-node", wpath("slow.fifo"), sdir);
	serve_line(&slow, line, sizeof(line));
	assert_int_equal(strncmp(line, "nonce ", 6), 0);
	close(slow.in);		/* no evidence: serve goes on to verify */
	slow.in = -1;
	usleep(300000);

	kernel_calls = 0;
	kernel_admitted = false;
	ew_quiet = false;
	ret = node("watch rounds 1 timeout 10 verifier %s serve node %s manifest %s pubkey %s "
		   "state %s", verifier, nodename, wpath("plain.signed"), wpath("op.pub"), sdir);
	ew_quiet = true;

	/* Let the slow one finish. */
	assert_int_equal(ewa_read_file(wpath("plain.signed"), &man), 0);
	fd = open(wpath("slow.fifo"), O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, man.data, man.len), (ssize_t)man.len);
	close(fd);
	assert_int_equal(serve_end(&slow, &out), EWA_FAIL);
	ew_buf_free(&out);
	ew_buf_free(&man);

	assert_int_equal(ret, EWA_OK);
	assert_int_equal(kernel_calls, 1);
	assert_true(kernel_admitted);
}

/* --- firmware facts the node itself could have measured ------------------ */

/*
 * A manifest for the fixture node (its kernel, modules and boot
 * applications) requiring @require; its db: the fixture's certificates,
 * plus the one no firmware trusts with @extra_db, none without @db.
 */
static void sign_fixture_manifest(const char *out, const char *require, bool db, bool extra_db)
{
	struct json_object *exp = fixture_expected(), *m, *a, *mods, *it;
	struct json_object_iterator i, end;
	char *plain = ew_asprintf("%s.json", out);
	size_t k;

	m = json_object_new_object();
	json_object_object_add(m, "format", json_object_new_string("eastwest-manifest"));
	json_object_object_add(m, "version", json_object_new_int(1));
	json_object_object_add(m, "serial", json_object_new_int(7));
	it = json_tokener_parse(require);
	assert_non_null(it);
	json_object_object_add(m, "require", it);
	a = json_object_new_array();
	json_object_array_add(a, json_object_new_string(ewa_json_str(exp, "release")));
	json_object_object_add(m, "kernels", a);
	a = json_object_new_array();
	mods = json_object_object_get(exp, "modules");
	end = json_object_iter_end(mods);
	for (i = json_object_iter_begin(mods); !json_object_iter_equal(&i, &end);
	     json_object_iter_next(&i)) {
		it = json_object_new_object();
		json_object_object_add(it, "name",
				       json_object_new_string(json_object_iter_peek_name(&i)));
		json_object_object_add(it, "sha256", json_object_get(json_object_object_get(
			json_object_iter_peek_value(&i), "sha256")));
		json_object_array_add(a, it);
	}
	json_object_object_add(m, "modules", a);
	json_object_object_add(m, "boot_digests",
			       json_object_get(json_object_object_get(exp, "boot_apps")));
	if (db) {
		a = json_object_new_array();
		it = json_object_object_get(exp, "db_certs");
		for (k = 0; k < json_object_array_length(it); k++)
			json_object_array_add(a, json_object_get(json_object_array_get_idx(it, k)));
		if (extra_db)
			json_object_array_add(a, json_object_get(json_object_object_get(
				exp, "extra_db_cert")));
		json_object_object_add(m, "secure_boot_db", a);
	}
	assert_int_equal(ewa_json_save(m, plain, 0644), 0);
	assert_int_equal(ewa_manifest_sign(plain, wpath("op.key"), out), 0);
	json_object_put(m);
	json_object_put(exp);
	free(plain);
}

/* A quote of @pcrs by the swtpm @tcti with the fixture node and firmware log @log. */
static void quote_log(const char *tcti, const char *pcrs, const char *log, const char *nonce,
		      const char *out)
{
	char *root = fixture_path("root"), *ulog = fixture_path(log);

	assert_int_equal(node("quote nonce %s out %s pcrs %s tcti %s root %s ima-log none "
			      "event-log %s", nonce, out, pcrs, tcti, root, ulog), EWA_OK);
	free(root);
	free(ulog);
}

/* Verified in a state of its own: each verdict stands alone. */
static void verify_fresh(const char *enrollment, const char *evidence, const char *nonce,
			 const char *manifest, struct ewa_verdict *v)
{
	static unsigned int n;
	char name[32];

	snprintf(name, sizeof(name), "s-fw%u", ++n);
	make_state(name);
	verify_as(enrollment, evidence, nonce, manifest, name, v);
}

/* A denial with a @check reason whose detail names @what. */
static void assert_reason(const struct ewa_verdict *v, const char *check, const char *what)
{
	size_t i;

	for (i = 0; i < v->n_reasons; i++)
		if (!strcmp(v->reasons[i].check, check) && strstr(v->reasons[i].detail, what))
			return;
	ewa_verdict_print(v, stderr);
	fail_msg("expected a %s reason naming \"%s\"", check, what);
}

#define PCRS_FIRMWARE	"0-9,14"
#define REQ_SB(sb)	"{\"ima\":false,\"uefi_event_log\":true,\"secure_boot\":" sb "," \
			"\"pcrs\":[0,1,2,3,4,5,6,7,14]}"

/*
 * Node B's TPM (the second swtpm, its PCRs untouched so far) enrolled as a
 * node of its own, its PCRs extended as firmware with Secure Boot off
 * would have.
 */
static bool node_b_booted_sb_off(void)
{
	const char *b = getenv("EW_TCTI_B");
	struct ewa_challenge_args a = { 0 };
	struct json_object *exp;
	struct ewa_vstate st;

	if (!b)
		return false;
	assert_int_equal(node("enroll out %s tcti %s", wpath("enroll-sb.json"), b), EWA_OK);
	a.enrollment = wpath("enroll-sb.json");
	a.out = wpath("challenge-sb.json");
	assert_int_equal(ewa_vstate_open(wpath("enroll-state-sb"), &st), 0);
	assert_int_equal(ewa_enroll_challenge(&st, &a), 0);
	assert_int_equal(node("activate challenge %s out %s tcti %s", wpath("challenge-sb.json"),
			      wpath("response-sb.json"), b), EWA_OK);
	assert_int_equal(ewa_enroll_confirm(&st, wpath("response-sb.json"), wpath("node-b.json"),
					    NULL), 0);
	ewa_vstate_close(&st);
	exp = fixture_expected();
	extend_tpm(b, exp, "sboff_extends");
	json_object_put(exp);
	return true;
}

/*
 * Root on a node booted with Secure Boot off extends PCR 7 from user space
 * (locality 0 may extend PCRs 0-15) with a SecureBoot=1 variable event and
 * appends that event to the log it sends: the replay matches the quote.
 * The firmware measures its Secure Boot configuration before PCR 7's
 * separator, so such an event after it is no measurement of the boot.
 */
static void test_late_secure_boot_event(void **state)
{
	const char *b = getenv("EW_TCTI_B");
	struct json_object *exp;
	struct ewa_verdict v;
	char nonce[65];

	(void)state;
	if (!node_b_booted_sb_off())
		skip();
	sign_fixture_manifest(wpath("sb-on.signed"), REQ_SB("true"), false, false);
	sign_fixture_manifest(wpath("sb-any.signed"), REQ_SB("false"), false, false);

	/* Control: the honest log is denied Secure Boot, and otherwise admitted. */
	fresh_nonce(nonce);
	quote_log(b, PCRS_FIRMWARE, "uefi-sboff.bin", nonce, wpath("q-sboff.json"));
	verify_fresh(wpath("node-b.json"), wpath("q-sboff.json"), nonce, wpath("sb-on.signed"), &v);
	assert_denied(&v, "secure-boot-off");
	assert_int_equal(v.n_reasons, 1);
	ewa_verdict_free(&v);
	verify_fresh(wpath("node-b.json"), wpath("q-sboff.json"), nonce, wpath("sb-any.signed"),
		     &v);
	print_reasons(&v);
	assert_true(v.admit);
	assert_string_equal(v.secure_boot, "off");
	ewa_verdict_free(&v);

	/* The attack. */
	exp = fixture_expected();
	extend_tpm(b, exp, "late_sb_extend");
	json_object_put(exp);
	fresh_nonce(nonce);
	quote_log(b, PCRS_FIRMWARE, "uefi-late-sb.bin", nonce, wpath("q-late-sb.json"));
	verify_fresh(wpath("node-b.json"), wpath("q-late-sb.json"), nonce, wpath("sb-on.signed"),
		     &v);
	if (v.admit)
		fail_msg("Secure Boot off plus a SecureBoot=1 event root appended to PCR 7: "
			 "admitted, secure_boot %s", v.secure_boot);
	assert_denied(&v, "secure-boot-config-invalid");
	assert_string_not_equal(v.secure_boot, "on");
	ewa_verdict_free(&v);
	/* Not even where Secure Boot is not required: the log lies about PCR 7. */
	verify_fresh(wpath("node-b.json"), wpath("q-late-sb.json"), nonce, wpath("sb-any.signed"),
		     &v);
	assert_denied(&v, "secure-boot-config-invalid");
	ewa_verdict_free(&v);
}

/*
 * The same with the db: the firmware's db lacks a certificate the manifest
 * expects; root appends a db event that holds it, and extends PCR 7 to
 * match. This node's TPM (A) holds the Secure Boot on log's PCRs
 * (test_fixture_logs_admit), and its db, with shim's and the firmware's
 * EV_EFI_VARIABLE_AUTHORITY events after PCR 7's separator.
 */
static void test_late_db_event(void **state)
{
	const char *a = getenv("EW_TCTI");
	struct json_object *exp;
	struct ewa_verdict v;
	char nonce[65];

	(void)state;
	sign_fixture_manifest(wpath("db.signed"), REQ_SB("true"), true, false);
	sign_fixture_manifest(wpath("db-extra.signed"), REQ_SB("false"), true, true);

	/* Control: the firmware's db as it is admits, and lacks the extra one. */
	fresh_nonce(nonce);
	quote_log(a, PCRS_FIRMWARE, "uefi.bin", nonce, wpath("q-db.json"));
	verify_fresh(wpath("node.json"), wpath("q-db.json"), nonce, wpath("db.signed"), &v);
	print_reasons(&v);
	assert_true(v.admit);
	assert_string_equal(v.secure_boot, "on");
	assert_int_equal(v.db_certs, 2);
	ewa_verdict_free(&v);
	verify_fresh(wpath("node.json"), wpath("q-db.json"), nonce, wpath("db-extra.signed"), &v);
	assert_denied(&v, "secure-boot-db");
	assert_int_equal(v.n_reasons, 1);
	ewa_verdict_free(&v);

	/* The attack. */
	exp = fixture_expected();
	extend_from(exp, "late_db_extend");
	json_object_put(exp);
	fresh_nonce(nonce);
	quote_log(a, PCRS_FIRMWARE, "uefi-late-db.bin", nonce, wpath("q-late-db.json"));
	verify_fresh(wpath("node.json"), wpath("q-late-db.json"), nonce, wpath("db-extra.signed"),
		     &v);
	if (v.admit)
		fail_msg("a db event root appended to PCR 7 with the certificate the manifest "
			 "expects: admitted, db_certs %zu", v.db_certs);
	assert_denied(&v, "secure-boot-config-invalid");
	ewa_verdict_free(&v);
}

/*
 * Facts from the firmware log count only if their PCR was quoted: a node
 * quoting PCR 10 alone sends a forged log (Secure Boot on, the expected db
 * and boot applications) that nothing compares. The manifest does not
 * list require.pcrs, as a hand-written one may not.
 */
static void test_firmware_facts_need_their_pcrs(void **state)
{
	const char *b = getenv("EW_TCTI_B");
	struct ewa_verdict v;
	char nonce[65];

	(void)state;
	if (!b)
		skip();
	sign_fixture_manifest(wpath("nopcrs.signed"),
			      "{\"ima\":false,\"uefi_event_log\":true,\"secure_boot\":true}",
			      true, false);
	sign_fixture_manifest(wpath("nopcrs-boot.signed"),
			      "{\"ima\":false,\"uefi_event_log\":true,\"secure_boot\":false}",
			      false, false);
	fresh_nonce(nonce);
	quote_log(b, "10", "uefi.bin", nonce, wpath("q-pcr10.json"));
	verify_fresh(wpath("node-b.json"), wpath("q-pcr10.json"), nonce, wpath("nopcrs.signed"),
		     &v);
	if (v.admit)
		fail_msg("PCR 10 quoted alone with a forged firmware log: admitted, "
			 "secure_boot %s, db_certs %zu", v.secure_boot, v.db_certs);
	assert_reason(&v, "pcr-not-quoted", "PCR 7");
	assert_reason(&v, "pcr-not-quoted", "PCR 4");
	assert_string_not_equal(v.secure_boot, "on");
	ewa_verdict_free(&v);
	/* Boot applications alone. */
	verify_fresh(wpath("node-b.json"), wpath("q-pcr10.json"), nonce,
		     wpath("nopcrs-boot.signed"), &v);
	if (v.admit)
		fail_msg("PCR 10 quoted alone, boot applications from a forged log: admitted");
	assert_reason(&v, "pcr-not-quoted", "PCR 4");
	ewa_verdict_free(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enroll_and_activate),
		cmocka_unit_test(test_activation_refusals),
		cmocka_unit_test(test_software_ak_cannot_activate),
		cmocka_unit_test(test_quote_verify_admit),
		cmocka_unit_test(test_verifier_exit_codes),
		cmocka_unit_test(test_release_after_admit),
		cmocka_unit_test(test_wrong_nonce),
		cmocka_unit_test(test_tampered_quote),
		cmocka_unit_test(test_replayed_quote),
		cmocka_unit_test(test_pcr_mismatch),
		cmocka_unit_test(test_forged_manifest),
		cmocka_unit_test(test_manifest_rollback),
		cmocka_unit_test(test_unknown_kernel),
		cmocka_unit_test(test_release_refusals),
		cmocka_unit_test(test_release_other_tpm),
		cmocka_unit_test(test_enroll_name_taken),
		cmocka_unit_test(test_watch_admit_and_revoke),
		cmocka_unit_test(test_watch_fail_closed),
		cmocka_unit_test(test_revoke_holds),
		cmocka_unit_test(test_serve_evidence_limit),
		cmocka_unit_test(test_serve_one_session_per_node),
		cmocka_unit_test(test_serve_slow_node_holds_up_no_other),
		cmocka_unit_test(test_no_tpm),
		cmocka_unit_test(test_no_handle_leak),
		cmocka_unit_test(test_fixture_logs_admit),
		cmocka_unit_test(test_module_any_name),
		cmocka_unit_test(test_unknown_module),
		cmocka_unit_test(test_ima_log_hides_entry),
		cmocka_unit_test(test_late_db_event),
		cmocka_unit_test(test_late_secure_boot_event),
		cmocka_unit_test(test_firmware_facts_need_their_pcrs),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
