// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests, no TPM: the IMA and UEFI log parsers and replays against
 * values make_fixtures.py computed independently in Python; truncated and
 * corrupted logs; hex, base64, KDFa; the manifest parser.
 */
#include "helpers.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "credential.h"
#include "eventlog.h"
#include "imalog.h"
#include "logread.h"
#include "manifest.h"

static void test_ima_replay_matches_python(void **state)
{
	struct json_object *exp = fixture_expected(), *v;
	struct ewa_pcrbank bank = { 0 };
	struct ewa_ima_log log;
	struct ew_buf b;
	uint8_t want[32], agg[32];
	char why[256];
	size_t len, i, modules = 0;

	(void)state;
	fixture_read("ima.bin", &b);
	assert_int_equal(ewa_ima_parse(b.data, b.len, &log, why, sizeof(why)), 0);
	assert_true(json_object_object_get_ex(exp, "ima_entries", &v));
	assert_int_equal(log.n, json_object_get_int(v));
	assert_string_equal(log.v[0].path, "boot_aggregate");
	assert_true(json_object_object_get_ex(exp, "boot_aggregate", &v));
	assert_int_equal(ew_unhex(json_object_get_string(v), agg, 32, &len), 0);
	assert_memory_equal(log.v[0].file_digest, agg, 32);
	assert_string_equal(log.v[1].template_name, "ima-sig");
	for (i = 0; i < log.n; i++)
		if (ewa_is_module_path(log.v[i].path))
			modules++;
	assert_int_equal(modules, 3);
	/* PCR 10 starts at zero; only IMA extends it. */
	ewa_ima_replay(&log, &bank);
	expected_pcr(exp, 10, want);
	assert_memory_equal(bank.v[10], want, 32);
	assert_int_equal(bank.touched, 1U << 10);
	ewa_ima_free(&log);
	ew_buf_free(&b);
	json_object_put(exp);
}

/*
 * The kind of an entry comes from its place and template, not its path:
 * only the first entry is IMA's boot_aggregate, a file logged later under
 * that name is a file like any other, and so is a memfd.
 */
static void test_ima_kinds(void **state)
{
	static const enum ewa_ima_kind want[] = {
		EWA_IMA_BOOT_AGGREGATE, EWA_IMA_FILE, EWA_IMA_MODULE_BUFFER, EWA_IMA_BUFFER,
		EWA_IMA_VIOLATION, EWA_IMA_FILE, EWA_IMA_FILE,
	};
	struct ewa_ima_log log;
	struct ew_buf b;
	char why[256];
	size_t i;

	(void)state;
	fixture_read("ima-kinds.bin", &b);
	assert_int_equal(ewa_ima_parse(b.data, b.len, &log, why, sizeof(why)), 0);
	assert_int_equal(log.n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < log.n; i++)
		assert_int_equal(ewa_ima_kind(&log, i), want[i]);
	assert_string_equal(log.v[5].path, "boot_aggregate");
	assert_string_equal(log.v[6].template_name, "ima-modsig");
	ewa_ima_free(&log);
	ew_buf_free(&b);
}

static void test_ima_violation_extends_ones(void **state)
{
	struct json_object *exp = fixture_expected(), *v;
	struct ewa_pcrbank bank = { 0 };
	struct ewa_ima_log log;
	struct ew_buf b;
	uint8_t want[32];
	char why[256];
	size_t len;

	(void)state;
	fixture_read("ima-violation.bin", &b);
	assert_int_equal(ewa_ima_parse(b.data, b.len, &log, why, sizeof(why)), 0);
	assert_true(log.v[log.n - 1].violation);
	ewa_ima_replay(&log, &bank);
	assert_true(json_object_object_get_ex(exp, "violation_pcr10", &v));
	assert_int_equal(ew_unhex(json_object_get_string(v), want, 32, &len), 0);
	assert_memory_equal(bank.v[10], want, 32);
	ewa_ima_free(&log);
	ew_buf_free(&b);
	json_object_put(exp);
}

/* Every prefix either parses (at a record boundary) or fails cleanly. */
static void test_ima_truncated(void **state)
{
	struct json_object *exp = fixture_expected(), *v;
	struct ewa_ima_log log;
	struct ew_buf b;
	size_t n, ok = 0;
	char why[256];

	(void)state;
	fixture_read("ima.bin", &b);
	for (n = 0; n < b.len; n++) {
		if (!ewa_ima_parse(b.data, n, &log, why, sizeof(why))) {
			ok++;
			ewa_ima_free(&log);
		} else {
			assert_non_null(strstr(why, "entry"));
		}
	}
	/* n = 0 and the boundary after each record but the last. */
	assert_true(json_object_object_get_ex(exp, "ima_entries", &v));
	assert_int_equal(ok, json_object_get_int(v));
	ew_buf_free(&b);
	json_object_put(exp);
}

static void test_ima_corrupt(void **state)
{
	struct ewa_ima_log log;
	struct ew_buf b;
	char why[256];

	(void)state;
	fixture_read("ima.bin", &b);
	/* Template data length of the first record: beyond the list. */
	b.data[4 + 20 + 4 + 6] = 0xff;
	b.data[4 + 20 + 4 + 6 + 3] = 0x7f;
	assert_int_equal(ewa_ima_parse(b.data, b.len, &log, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "entry 0"));
	ew_buf_free(&b);
	fixture_read("ima.bin", &b);
	/* PCR index 99 */
	b.data[0] = 99;
	assert_int_equal(ewa_ima_parse(b.data, b.len, &log, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "PCR index"));
	ew_buf_free(&b);
	fixture_read("ima.bin", &b);
	/* template "ima-ng" -> "ima-xx" */
	memcpy(b.data + 4 + 20 + 4, "ima-xx", 6);
	assert_int_equal(ewa_ima_parse(b.data, b.len, &log, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "unsupported template"));
	ew_buf_free(&b);
}

static void test_uefi_replay_matches_python(void **state)
{
	struct json_object *exp = fixture_expected();
	struct ewa_pcrbank bank = { 0 };
	enum ewa_secure_boot sb;
	struct ewa_uefi_log log;
	struct ew_buf b;
	uint8_t want[32];
	unsigned int pcrs[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 14 };
	char why[256];
	size_t i, apps = 0;

	(void)state;
	fixture_read("uefi.bin", &b);
	assert_int_equal(ewa_uefi_parse(b.data, b.len, &log, why, sizeof(why)), 0);
	ewa_uefi_replay(&log, &bank);
	for (i = 0; i < sizeof(pcrs) / sizeof(pcrs[0]); i++) {
		expected_pcr(exp, pcrs[i], want);
		assert_memory_equal(bank.v[pcrs[i]], want, 32);
	}
	assert_int_equal(ewa_uefi_secure_boot(&log, &sb, why, sizeof(why)), 0);
	assert_int_equal(sb, EWA_SB_ON);
	for (i = 0; i < log.n; i++)
		if (log.v[i].pcr == 4 && log.v[i].type == EWA_EV_EFI_BOOT_SERVICES_APPLICATION)
			apps++;
	assert_int_equal(apps, 3);
	ewa_uefi_free(&log);
	ew_buf_free(&b);
	json_object_put(exp);
}

static void test_uefi_secure_boot_off_and_forged(void **state)
{
	enum ewa_secure_boot sb;
	struct ewa_uefi_log log;
	struct ew_buf b;
	char why[256];
	size_t i;

	(void)state;
	fixture_read("uefi-sboff.bin", &b);
	assert_int_equal(ewa_uefi_parse(b.data, b.len, &log, why, sizeof(why)), 0);
	assert_int_equal(ewa_uefi_secure_boot(&log, &sb, why, sizeof(why)), 0);
	assert_int_equal(sb, EWA_SB_OFF);
	ewa_uefi_free(&log);
	/* SecureBoot = 1 in the data but the digest of "0": a forged event. */
	assert_int_equal(ewa_uefi_parse(b.data, b.len, &log, why, sizeof(why)), 0);
	for (i = 0; i < log.n; i++) {
		struct ewa_uefi_event *e = &log.v[i];

		if (e->type == EWA_EV_EFI_VARIABLE_DRIVER_CONFIG && e->data_len == 32 + 20 + 1)
			((uint8_t *)e->data)[e->data_len - 1] = 1;
	}
	assert_int_equal(ewa_uefi_secure_boot(&log, &sb, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "does not hash"));
	ewa_uefi_free(&log);
	ew_buf_free(&b);
}

/* Whether @name's Secure Boot facts are refused, and why. */
static void assert_sb_facts_refused(const char *name, const char *why_part)
{
	uint8_t (*certs)[EWA_SHA256_LEN];
	enum ewa_secure_boot sb;
	struct ewa_uefi_log log;
	struct ew_buf b;
	char why[256];
	bool found;
	size_t n;

	fixture_read(name, &b);
	assert_int_equal(ewa_uefi_parse(b.data, b.len, &log, why, sizeof(why)), 0);
	if (ewa_uefi_secure_boot(&log, &sb, why, sizeof(why)) != -1)
		fail_msg("%s: SecureBoot read as %d, expected a refusal", name, sb);
	if (!strstr(why, why_part))
		fail_msg("%s: \"%s\" does not say \"%s\"", name, why, why_part);
	if (ewa_uefi_db_certs(&log, &found, &certs, &n, why, sizeof(why)) != -1)
		fail_msg("%s: db read (%zu certificates), expected a refusal", name, n);
	assert_null(certs);
	ewa_uefi_free(&log);
	ew_buf_free(&b);
}

/*
 * The firmware measures its Secure Boot configuration into PCR 7 once,
 * before PCR 7's separator; what follows is image verification
 * (EV_EFI_VARIABLE_AUTHORITY: the firmware's, shim's SbatLevel and its own
 * certificate, all in uefi.bin, which reads fine). A variable event after
 * the separator is an extend from user space; one measured twice, or a
 * PCR 7 without a separator, leaves no way to tell.
 */
static void test_uefi_secure_boot_config_order(void **state)
{
	enum ewa_secure_boot sb;
	struct ewa_uefi_log log;
	struct ew_buf b;
	char why[256];
	size_t i, authority = 0;

	(void)state;
	fixture_read("uefi.bin", &b);
	assert_int_equal(ewa_uefi_parse(b.data, b.len, &log, why, sizeof(why)), 0);
	for (i = 0; i < log.n; i++)
		if (log.v[i].pcr == 7 && log.v[i].type == EWA_EV_EFI_VARIABLE_AUTHORITY)
			authority++;
	assert_int_equal(authority, 3);
	assert_int_equal(ewa_uefi_secure_boot(&log, &sb, why, sizeof(why)), 0);
	assert_int_equal(sb, EWA_SB_ON);
	ewa_uefi_free(&log);
	ew_buf_free(&b);

	assert_sb_facts_refused("uefi-late-sb.bin", "after");
	assert_sb_facts_refused("uefi-late-db.bin", "after");
	assert_sb_facts_refused("uefi-twice.bin", "twice");
	assert_sb_facts_refused("uefi-nosep.bin", "separator");
}

/*
 * A real log (OVMF with Secure Boot and Microsoft's keys, Debian's shim,
 * grub and kernel; the event-log fuzzer's seed, from secureboot.sh): its
 * PCR 7 after the separator holds image verification only, and it reads
 * as Secure Boot on with its db.
 */
static void test_uefi_ovmf_shim_log(void **state)
{
	const char *dir = getenv("EW_VM_FIXTURES");
	uint8_t (*certs)[EWA_SHA256_LEN];
	enum ewa_secure_boot sb;
	struct ewa_uefi_log log;
	size_t i, n, authority = 0;
	struct ew_buf b = { 0 };
	char why[256], *p;
	bool found;

	(void)state;
	if (!dir)
		skip();
	p = ew_asprintf("%s/../../fuzz/corpus/eventlog/ovmf-secureboot-shim-grub.bin", dir);
	assert_int_equal(ewa_read_file(p, &b), 0);
	free(p);
	assert_int_equal(ewa_uefi_parse(b.data, b.len, &log, why, sizeof(why)), 0);
	for (i = 0; i < log.n; i++)
		if (log.v[i].pcr == 7 && log.v[i].type == EWA_EV_EFI_VARIABLE_AUTHORITY)
			authority++;
	assert_int_equal(authority, 3);
	assert_int_equal(ewa_uefi_sb_config_check(&log, why, sizeof(why)), 0);
	assert_int_equal(ewa_uefi_secure_boot(&log, &sb, why, sizeof(why)), 0);
	assert_int_equal(sb, EWA_SB_ON);
	assert_int_equal(ewa_uefi_db_certs(&log, &found, &certs, &n, why, sizeof(why)), 0);
	assert_true(found);
	assert_int_equal(n, 2);
	free(certs);
	ewa_uefi_free(&log);
	ew_buf_free(&b);
}

/* The db's X.509 certificates, as make_fixtures.py hashed them; a broken list. */
static void test_uefi_db_certs(void **state)
{
	struct json_object *exp = fixture_expected(), *want;
	uint8_t (*certs)[EWA_SHA256_LEN];
	struct ewa_uefi_log log;
	uint8_t digest[32];
	struct ew_buf b;
	char why[256];
	bool found;
	size_t i, n, len;

	(void)state;
	fixture_read("uefi.bin", &b);
	assert_int_equal(ewa_uefi_parse(b.data, b.len, &log, why, sizeof(why)), 0);
	assert_int_equal(ewa_uefi_db_certs(&log, &found, &certs, &n, why, sizeof(why)), 0);
	assert_true(found);
	assert_true(json_object_object_get_ex(exp, "db_certs", &want));
	assert_int_equal(n, json_object_array_length(want));
	for (i = 0; i < n; i++) {
		assert_int_equal(ew_unhex(json_object_get_string(json_object_array_get_idx(want, i)),
					  digest, 32, &len), 0);
		assert_memory_equal(certs[i], digest, 32);
	}
	free(certs);
	/* A list size beyond the variable: refused, even with a matching digest. */
	for (i = 0; i < log.n; i++) {
		struct ewa_uefi_event *e = &log.v[i];

		if (e->pcr == 7 && e->type == EWA_EV_EFI_VARIABLE_DRIVER_CONFIG &&
		    e->data_len > 36 + 28 && ewa_le64(e->data + 16) == 2 &&
		    ewa_le16(e->data + 32) == 'd' &&
		    ewa_le16(e->data + 34) == 'b') {
			((uint8_t *)e->data)[36 + 17] = 0x7f;
			ewa_sha256(e->data, e->data_len, e->sha256);
		}
	}
	assert_int_equal(ewa_uefi_db_certs(&log, &found, &certs, &n, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "malformed signature list"));
	assert_null(certs);
	ewa_uefi_free(&log);
	ew_buf_free(&b);
	json_object_put(exp);
}

static void test_uefi_truncated_and_corrupt(void **state)
{
	struct ewa_uefi_log log;
	struct ew_buf b;
	char why[256];
	size_t n, ok = 0;

	(void)state;
	fixture_read("uefi.bin", &b);
	for (n = 0; n < b.len; n++) {
		if (!ewa_uefi_parse(b.data, n, &log, why, sizeof(why))) {
			ok++;
			ewa_uefi_free(&log);
		}
	}
	assert_true(ok > 10);	/* event boundaries only */
	assert_true(ok < 40);
	/* Not a crypto-agile log. */
	b.data[4 + 4 + 20 + 4] = 'X';
	assert_int_equal(ewa_uefi_parse(b.data, b.len, &log, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "Spec ID"));
	ew_buf_free(&b);
}

static void test_codec(void **state)
{
	static const uint8_t bin[] = { 0, 1, 2, 0xfe, 0xff };
	uint8_t out[8], *p;
	char hex[11], *s;
	size_t len, n;

	(void)state;
	assert_string_equal(ewa_hex(bin, sizeof(bin), hex), "000102feff");
	assert_int_equal(ew_unhex("000102FEff", out, sizeof(out), &len), 0);
	assert_int_equal(len, 5);
	assert_memory_equal(out, bin, 5);
	assert_int_equal(ew_unhex("0g", out, sizeof(out), &len), -1);
	assert_int_equal(ew_unhex("012", out, sizeof(out), &len), -1);
	assert_int_equal(ew_unhex("000102030405060708", out, sizeof(out), &len), -1);
	for (n = 0; n <= sizeof(bin); n++) {
		s = ewa_base64(bin, n);
		assert_int_equal(ewa_unbase64(s, &p, &len), 0);
		assert_int_equal(len, n);
		assert_memory_equal(p, bin, n);
		free(p);
		free(s);
	}
	assert_int_equal(ewa_unbase64("AA=A", &p, &len), -1);
	assert_int_equal(ewa_unbase64("A===", &p, &len), -1);
	assert_int_equal(ewa_unbase64("AAA", &p, &len), -1);
	assert_int_equal(ewa_unbase64("AA A", &p, &len), -1);
}

/* A member given twice is refused, not read as its last value. */
static void test_json_duplicate_keys(void **state)
{
	static const char dup[] = "{\"format\": \"a\", \"nonce\": \"x\", \"nonc\\u0065\": \"y\"}";
	static const char two[] = "{\"a\": {\"nonce\": 1}, \"b\": {\"nonce\": 2}}";
	struct json_object *o;
	char why[256];

	(void)state;
	assert_null(ewa_json_parse(dup, strlen(dup), why, sizeof(why)));
	assert_string_equal(why, "not JSON: duplicate key \"nonce\" at offset 30");
	o = ewa_json_parse(two, strlen(two), why, sizeof(why));
	assert_non_null(o);
	json_object_put(o);
}

/* KDFa with SHA-256: a vector computed with Python's hmac module. */
static void test_kdfa(void **state)
{
	uint8_t key[32], out[16], want[16];
	size_t len;

	(void)state;
	memset(key, 0x11, sizeof(key));
	assert_int_equal(ewa_kdfa_sha256(key, sizeof(key), "STORAGE", (const uint8_t *)"name", 4,
					 NULL, 0, 128, out), 0);
	/* HMAC-SHA256(key, 00000001 "STORAGE\0" "name" 00000080)[:16] */
	assert_int_equal(ew_unhex("5ecd417a5e27b593fec5a588242e73da", want, sizeof(want),
				  &len), 0);
	assert_memory_equal(out, want, 16);
}

static void test_manifest_parse(void **state)
{
	static const char good[] =
		"{\"format\":\"eastwest-manifest\",\"version\":1,\"serial\":7,"
		"\"require\":{\"ima\":true,\"uefi_event_log\":false,\"pcrs\":[0,10]},"
		"\"kernels\":[\"6.1.0-28-amd64\"],"
		"\"modules\":[{\"name\":\"b\",\"sha256\":\"" "bb" "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"},"
		"{\"name\":\"a\",\"sha256\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}],"
		"\"pcrs\":{\"0\":\"0000000000000000000000000000000000000000000000000000000000000000\"}}";
	static const char v2[] = "{\"format\":\"eastwest-manifest\",\"version\":2,\"serial\":1}";
	static const char noserial[] = "{\"format\":\"eastwest-manifest\",\"version\":1}";
	struct ewa_manifest m;
	uint8_t d[32];
	char why[256];

	(void)state;
	assert_int_equal(ewa_manifest_parse(good, strlen(good), &m, why, sizeof(why)), 0);
	assert_int_equal(m.serial, 7);
	assert_true(m.require_ima);
	assert_false(m.require_uefi_log);
	assert_true(m.require_secure_boot);	/* required unless said otherwise */
	assert_int_equal(m.require_pcrs, 1U | 1U << 10);
	assert_int_equal(m.golden_pcrs, 1U);
	memset(d, 0xaa, sizeof(d));
	assert_non_null(ewa_manifest_module(&m, d));
	assert_string_equal(ewa_manifest_module(&m, d)->name, "a");
	memset(d, 0xcc, sizeof(d));
	assert_null(ewa_manifest_module(&m, d));
	assert_true(ewa_manifest_kernel(&m, "6.1.0-28-amd64"));
	assert_false(ewa_manifest_kernel(&m, "6.1.0-29-amd64"));
	ewa_manifest_free(&m);
	assert_int_equal(ewa_manifest_parse(v2, strlen(v2), &m, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "version"));
	assert_int_equal(ewa_manifest_parse(noserial, strlen(noserial), &m, why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "serial"));
}

/*
 * Real logs from the VM bed (selftests/eastwest/attest.sh, swtpm on QEMU
 * tpm-tis, SeaBIOS, IMA measuring modules), with the PCR values of the
 * verified quote taken at the same moment: the replay must give exactly
 * what the TPM held. 6.1 logs module files (MODULE_CHECK); 6.12 also logs
 * init_module buffers (kmod 30 loads its .ko.xz that way).
 */
static void vm_logs(const char *kernel, bool init_module_buffers)
{
	const char *dir = getenv("EW_VM_FIXTURES");
	struct ewa_pcrbank ibank = { 0 }, ubank = { 0 };
	struct ewa_uefi_log ulog;
	struct ewa_ima_log ilog;
	struct json_object *pcrs;
	struct ew_buf b = { 0 };
	uint8_t want[32], all[10][32];
	size_t i, files = 0, buffers = 0;
	char why[256], *p;
	unsigned int pcr;

	if (!dir)
		skip();
	p = ew_asprintf("%s/vm-%s/pcrs.json", dir, kernel);
	pcrs = ewa_json_load(p);
	free(p);
	assert_non_null(pcrs);

	p = ew_asprintf("%s/vm-%s/ima.bin", dir, kernel);
	assert_int_equal(ewa_read_file(p, &b), 0);
	free(p);
	assert_int_equal(ewa_ima_parse(b.data, b.len, &ilog, why, sizeof(why)), 0);
	ew_buf_free(&b);
	assert_string_equal(ilog.v[0].path, "boot_aggregate");
	for (i = 0; i < ilog.n; i++) {
		enum ewa_ima_kind kind = ewa_ima_kind(&ilog, i);

		/* The documented policy makes nothing but these. */
		assert_true(i == 0 ? kind == EWA_IMA_BOOT_AGGREGATE :
			    kind == EWA_IMA_FILE || kind == EWA_IMA_MODULE_BUFFER);
		if (kind == EWA_IMA_MODULE_BUFFER)
			buffers++;
		else if (kind == EWA_IMA_FILE)
			files++;
	}
	assert_true(files >= 1);	/* eastwest.ko, insmod'ed from a file */
	if (init_module_buffers)
		assert_true(buffers >= 1);
	else
		assert_int_equal(buffers, 0);
	ewa_ima_replay(&ilog, &ibank);
	expected_pcr(pcrs, 10, want);
	assert_memory_equal(ibank.v[10], want, 32);
	/* boot_aggregate = SHA256(PCR 0 || ... || PCR 9) of the TPM. */
	for (pcr = 0; pcr < 10; pcr++)
		expected_pcr(pcrs, pcr, all[pcr]);
	ewa_sha256(all, sizeof(all), want);
	assert_memory_equal(ilog.v[0].file_digest, want, 32);
	ewa_ima_free(&ilog);

	/* SeaBIOS's TCG2 log: its replay is each PCR it extends. */
	p = ew_asprintf("%s/vm-%s/uefi.bin", dir, kernel);
	assert_int_equal(ewa_read_file(p, &b), 0);
	free(p);
	assert_int_equal(ewa_uefi_parse(b.data, b.len, &ulog, why, sizeof(why)), 0);
	ew_buf_free(&b);
	assert_true(ulog.n > 0);
	ewa_uefi_replay(&ulog, &ubank);
	assert_true(ubank.touched != 0);
	for (pcr = 0; pcr < 24; pcr++) {
		if (!(ubank.touched & (1U << pcr)))
			continue;
		expected_pcr(pcrs, pcr, want);
		assert_memory_equal(ubank.v[pcr], want, 32);
	}
	ewa_uefi_free(&ulog);
	json_object_put(pcrs);
}

static void test_vm_logs_6_1(void **state)
{
	(void)state;
	vm_logs("6.1", false);
}

static void test_vm_logs_6_12(void **state)
{
	(void)state;
	vm_logs("6.12", true);
}


/* Entries of @dir, "." and ".." included. */
static int dir_entries(const char *dir)
{
	struct dirent **list;
	int i, n = scandir(dir, &list, NULL, NULL);

	assert_true(n >= 0);
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return n;
}

/*
 * The operator's key pair: the private key 0600, the public key 0644, no
 * temporary file left behind, and the process's umask as it was (a library
 * call has no business changing it for the rest of the process).
 */
static void test_keygen_modes_and_umask(void **state)
{
	char dir[] = "/tmp/ewa-keygen-XXXXXX", key[64], pub[64];
	struct stat st;
	mode_t before;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(key, sizeof(key), "%s/op.key", dir);
	snprintf(pub, sizeof(pub), "%s/op.pub", dir);
	before = umask(022);
	assert_int_equal(ewa_manifest_keygen(key, pub), 0);
	assert_int_equal(umask(before), 022);
	assert_int_equal(stat(key, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(stat(pub, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(dir_entries(dir), 4);
	/* An existing signing key is never overwritten. */
	assert_int_not_equal(ewa_manifest_keygen(key, pub), 0);
	assert_int_equal(dir_entries(dir), 4);
	unlink(key);
	unlink(pub);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ima_replay_matches_python),
		cmocka_unit_test(test_ima_kinds),
		cmocka_unit_test(test_ima_violation_extends_ones),
		cmocka_unit_test(test_ima_truncated),
		cmocka_unit_test(test_ima_corrupt),
		cmocka_unit_test(test_uefi_replay_matches_python),
		cmocka_unit_test(test_uefi_secure_boot_off_and_forged),
		cmocka_unit_test(test_uefi_db_certs),
		cmocka_unit_test(test_uefi_secure_boot_config_order),
		cmocka_unit_test(test_uefi_ovmf_shim_log),
		cmocka_unit_test(test_uefi_truncated_and_corrupt),
		cmocka_unit_test(test_codec),
		cmocka_unit_test(test_json_duplicate_keys),
		cmocka_unit_test(test_kdfa),
		cmocka_unit_test(test_manifest_parse),
		cmocka_unit_test(test_keygen_modes_and_umask),
		cmocka_unit_test(test_vm_logs_6_1),
		cmocka_unit_test(test_vm_logs_6_12),
	};

	ew_quiet = true;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
