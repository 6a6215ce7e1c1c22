// SPDX-License-Identifier: GPL-2.0
/*
 * Attestation bench (bench/attest.sh runs it against a private swtpm):
 * quote latency (eastwestctl attest quote, in process: TCTI connect, AK
 * derivation, PCR reads, quote, evidence file), verify latency, and the
 * verifier's throughput in nodes per second on one core, for evidence
 * without logs and for evidence carrying an IMA log of IMA_ENTRIES
 * entries (PCR 10 extended to match); key release (verifier: admission
 * check, MakeCredential, AES-256-GCM) and unwrap (node: TPM2_ActivateCredential,
 * decryption, the key file written). Prints measurements, asserts nothing.
 *
 *   bench_attest WORKDIR QUOTES IMA_ENTRIES
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../ewctl.h"
#include "attest.h"
#include "enroll.h"
#include "manifest.h"
#include "nodeside.h"
#include "release.h"
#include "tpm.h"
#include "verify.h"


/* watch.c's hook into the kernel: not measured here. */
int ewa_kernel_set_admission(bool admitted, uint32_t ttl, char *why, size_t whylen)
{
	(void)admitted;
	(void)ttl;
	(void)why;
	(void)whylen;
	return 0;
}

static const char *work;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *p(const char *name)
{
	return ew_asprintf("%s/%s", work, name);
}

static int node(char *a0, char *a1, char *a2, char *a3, char *a4, char *a5, char *a6,
		char *a7)
{
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, NULL };
	int argc = 0;

	while (argv[argc])
		argc++;
	return attest_main(argc, argv);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void stats(const char *what, double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	printf("%-34s %9.2f %9.2f %9.2f\n", what, v[n / 2] * 1e3, v[(n * 95) / 100] * 1e3,
	       v[n - 1] * 1e3);
}

/* An ima-ng record for @path with file digest @d; extends @bank and the TPM. */
static void ima_record(struct ew_buf *log, const char *path, const uint8_t d[32],
		       struct ewa_tpm *t)
{
	uint8_t hdr[4 + 20 + 4], field[4], tdig[32];
	struct ew_buf data = { 0 };
	TPML_DIGEST_VALUES dv = { .count = 1 };
	uint32_t n;

	n = 8 + 32;
	memcpy(field, &n, 4);
	ew_buf_add(&data, field, 4);
	ew_buf_add(&data, "sha256:\0", 8);
	ew_buf_add(&data, d, 32);
	n = (uint32_t)strlen(path) + 1;
	memcpy(field, &n, 4);
	ew_buf_add(&data, field, 4);
	ew_buf_add(&data, path, n);
	n = 10;
	memcpy(hdr, &n, 4);
	memset(hdr + 4, 0x5a, 20);	/* SHA-1 digest: not checked, not zero */
	n = 6;
	memcpy(hdr + 24, &n, 4);
	ew_buf_add(log, hdr, sizeof(hdr));
	ew_buf_add(log, "ima-ng", 6);
	n = (uint32_t)data.len;
	memcpy(field, &n, 4);
	ew_buf_add(log, field, 4);
	ew_buf_add(log, data.data, data.len);
	ewa_sha256(data.data, data.len, tdig);
	dv.digests[0].hashAlg = TPM2_ALG_SHA256;
	memcpy(dv.digests[0].digest.sha256, tdig, 32);
	Esys_PCR_Extend(t->esys, ESYS_TR_PCR0 + 10, ESYS_TR_PASSWORD, ESYS_TR_NONE,
			ESYS_TR_NONE, &dv);
	ew_buf_free(&data);
}

/*
 * IMA log of @entries under the modules-only policy: every entry a module
 * load, and every one in the manifest (the verifier judges them all).
 */
static void make_ima(int entries, const char *log_path, struct ew_buf *modules_json)
{
	struct ew_buf log = { 0 };
	char why[256], path[128], hex[65];
	struct ewa_tpm t;
	uint8_t d[32];
	int i;

	if (ewa_tpm_open(getenv("EW_TCTI"), &t, why, sizeof(why)))
		exit(1);
	for (i = 0; i < entries; i++) {
		char *e;

		snprintf(path, sizeof(path), "/lib/modules/6.1.0-28-amd64/kernel/m%d.ko", i);
		ewa_sha256(path, strlen(path), d);
		ima_record(&log, path, d, &t);
		e = ew_asprintf("%s{\"name\":\"m%d\",\"sha256\":\"%s\"}",
				modules_json->len ? "," : "", i, ewa_hex(d, 32, hex));
		ew_buf_add(modules_json, e, strlen(e));
		free(e);
	}
	ewa_tpm_close(&t);
	ew_write_file(log_path, log.data, log.len, 0644);
	ew_buf_free(&log);
}

static void sign_manifest(const char *name, const char *kernel, bool ima, const char *modules)
{
	char *text = ew_asprintf(
		"{\"format\":\"eastwest-manifest\",\"version\":1,\"serial\":1,"
		"\"require\":{\"ima\":%s,\"uefi_event_log\":false,\"secure_boot\":false},"
		"\"kernels\":[\"%s\"],\"modules\":[%s]}", ima ? "true" : "false", kernel,
		modules ? modules : "");
	char *plain = p("m.json"), *out = p(name), *key = p("op.key");

	ew_write_file(plain, text, strlen(text), 0644);
	if (ewa_manifest_sign(plain, key, out))
		exit(1);
	free(text);
	free(plain);
	free(out);
	free(key);
}

/* One case: QUOTES quotes and verifications, then a throughput loop. */
static void run_case(const char *label, int quotes, const char *manifest, const char *ima_log)
{
	double *ql = ew_calloc((size_t)quotes, sizeof(double));
	double *vl = ew_calloc((size_t)quotes, sizeof(double));
	struct ewa_verify_input in = { 0 };
	char *ev = p("ev.json"), *state = p("state"), *rec = p("node.json");
	char *man = p(manifest), *pub = p("op.pub"), hex[65], line[96];
	struct ewa_vstate st;
	struct ewa_verdict v;
	double t0, end;
	long n = 0;
	int i;

	in.evidence = ev;
	in.enrollment = rec;
	in.manifest = man;
	in.pubkey = pub;
	for (i = 0; i < quotes; i++) {
		uint8_t nonce[32];

		memset(nonce, 0, sizeof(nonce));
		memcpy(nonce, &i, sizeof(i));
		ewa_sha256(nonce, sizeof(nonce), nonce);
		ewa_hex(nonce, 32, hex);
		t0 = now();
		if (node("quote", "nonce", hex, "out", ev, "ima-log",
			 (char *)(ima_log ? ima_log : "none"), NULL)) {
			fprintf(stderr, "bench: quote failed: %s\n", ew_last_error());
			exit(1);
		}
		ql[i] = now() - t0;
		memcpy(in.nonce, nonce, 32);
		in.nonce_len = 32;
		if (ewa_vstate_open(state, &st))
			exit(1);
		in.state = &st;
		t0 = now();
		ewa_verify(&in, &v);
		vl[i] = now() - t0;
		ewa_vstate_close(&st);
		if (!v.admit) {
			ewa_verdict_print(&v, stderr);
			exit(1);
		}
		ewa_verdict_free(&v);
	}
	snprintf(line, sizeof(line), "quote (%s)", label);
	stats(line, ql, quotes);
	snprintf(line, sizeof(line), "verify (%s)", label);
	stats(line, vl, quotes);
	/* Throughput: the last evidence again and again, without replay memory. */
	in.state = NULL;
	t0 = now();
	end = t0 + 3.0;
	while (now() < end) {
		ewa_verify(&in, &v);
		if (!v.admit)
			exit(1);
		ewa_verdict_free(&v);
		n++;
	}
	snprintf(line, sizeof(line), "throughput (%s)", label);
	printf("%-34s %9.0f nodes/s (one core, %ld verifications)\n", line,
	       n / (now() - t0), n);
	free(ql);
	free(vl);
	free(ev);
	free(state);
	free(rec);
	free(man);
	free(pub);
}

/* Key release and unwrap of a 32-byte key, after the admits run_case left. */
static void run_release(int n)
{
	double *rl = ew_calloc((size_t)n, sizeof(double));
	double *ul = ew_calloc((size_t)n, sizeof(double));
	struct ewa_release_args a = { .max_age = 3600 };
	struct ewa_release_result r;
	struct ewa_vstate st;
	uint8_t key[32];
	double t0;
	int i;

	memset(key, 0x5a, sizeof(key));
	a.key = p("path.key");
	a.enrollment = p("node.json");
	a.out = p("key.rel");
	if (ew_write_file(a.key, key, sizeof(key), 0600))
		exit(1);
	for (i = 0; i < n; i++) {
		if (ewa_vstate_open(p("state"), &st))
			exit(1);
		t0 = now();
		if (ewa_release_key(&st, &a, &r)) {
			fprintf(stderr, "bench: release refused: %s: %s\n", r.reason, r.detail);
			exit(1);
		}
		rl[i] = now() - t0;
		ewa_vstate_close(&st);
		ewa_release_result_free(&r);
		t0 = now();
		if (node("unwrap", "in", (char *)a.out, "out", p("got.key"), NULL, NULL, NULL)) {
			fprintf(stderr, "bench: unwrap failed: %s\n", ew_last_error());
			exit(1);
		}
		ul[i] = now() - t0;
	}
	stats("key release (verifier)", rl, n);
	stats("key unwrap (node, TPM)", ul, n);
	free(rl);
	free(ul);
}

int main(int argc, char *argv[])
{
	struct ewa_challenge_args ca = { 0 };
	struct ew_buf mods = { 0 }, rel = { 0 };
	int quotes, entries;
	struct ewa_vstate st;
	char *ima, label[64];
	double t0;

	if (argc != 4) {
		fprintf(stderr, "usage: bench_attest WORKDIR QUOTES IMA_ENTRIES\n");
		return 2;
	}
	work = argv[1];
	quotes = atoi(argv[2]);
	entries = atoi(argv[3]);
	ew_quiet = true;
	setenv("TSS2_LOG", "all+NONE", 0);
	ewa_read_file("/proc/sys/kernel/osrelease", &rel);
	rel.data[strcspn((char *)rel.data, "\n")] = '\0';
	if (ewa_manifest_keygen(p("op.key"), p("op.pub")))
		return 1;
	t0 = now();
	if (node("enroll", "out", p("enroll.json"), NULL, NULL, NULL, NULL, NULL))
		return 1;
	printf("%-34s %9.2f ms\n", "enroll (EK + AK)", (now() - t0) * 1e3);
	ca.enrollment = p("enroll.json");
	ca.out = p("challenge.json");
	t0 = now();
	if (ewa_vstate_open(p("enroll-state"), &st) || ewa_enroll_challenge(&st, &ca) ||
	    node("activate", "challenge", p("challenge.json"), "out", p("response.json"),
		 NULL, NULL, NULL) ||
	    ewa_enroll_confirm(&st, p("response.json"), p("node.json"), NULL))
		return 1;
	ewa_vstate_close(&st);
	printf("%-34s %9.2f ms\n", "challenge + activate + confirm", (now() - t0) * 1e3);
	printf("\n%-34s %9s %9s %9s\n", "latency (ms)", "median", "p95", "max");
	sign_manifest("plain.signed", (char *)rel.data, false, NULL);
	run_case("no logs", quotes, "plain.signed", NULL);
	run_release(quotes);
	ima = p("ima.bin");
	make_ima(entries, ima, &mods);
	ew_buf_add(&mods, "", 0);
	sign_manifest("ima.signed", (char *)rel.data, true, (char *)mods.data);
	snprintf(label, sizeof(label), "IMA log, %d entries", entries);
	run_case(label, quotes, "ima.signed", ima);
	return 0;
}
