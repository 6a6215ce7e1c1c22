// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of "eastwestctl path": HKDF against RFC 5869, the fixed
 * vectors of eastwest's key derivation (what every node must compute; the
 * same values come out of selftests/tools/ew_kdf.py, an independent
 * implementation), key file checks, the grammar, the auto chooser and the
 * RoCE MTU arithmetic, and the record of transmit keys this node has sent
 * with (io/txkeys.c).
 */
#include <errno.h>
#include <fcntl.h>

#include "helpers.h"

#include "io/keys.h"
#include "io/txkeys.h"
#include "model/pathspec.h"

#define ARGS(...) ((char *[]){ __VA_ARGS__, NULL })
#define NARGS(...) ((int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(verb, ...) ew_pathspec_parse(verb, NARGS(__VA_ARGS__), ARGS(__VA_ARGS__), &spec)

static char tmpdir[64];

static size_t unhex(const char *s, uint8_t *out)
{
	size_t n = 0;
	unsigned int b;

	while (s[0] && s[1] && sscanf(s, "%2x", &b) == 1) {
		out[n++] = (uint8_t)b;
		s += 2;
	}
	return n;
}

static void assert_hex(const uint8_t *got, size_t len, const char *want)
{
	uint8_t w[256];

	assert_int_equal(unhex(want, w), len);
	assert_memory_equal(got, w, len);
}

/* RFC 5869 appendix A, test cases 1-3 (SHA-256). */
static void test_hkdf_rfc5869(void **state)
{
	uint8_t ikm[80], salt[80], info[80], okm[82];
	size_t i;

	(void)state;
	memset(ikm, 0x0b, 22);
	for (i = 0; i < 13; i++)
		salt[i] = (uint8_t)i;
	for (i = 0; i < 10; i++)
		info[i] = (uint8_t)(0xf0 + i);
	assert_int_equal(ew_hkdf_sha256(ikm, 22, salt, 13, info, 10, okm, 42), 0);
	assert_hex(okm, 42, "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
			    "34007208d5b887185865");

	for (i = 0; i < 80; i++) {
		ikm[i] = (uint8_t)i;
		salt[i] = (uint8_t)(0x60 + i);
		info[i] = (uint8_t)(0xb0 + i);
	}
	assert_int_equal(ew_hkdf_sha256(ikm, 80, salt, 80, info, 80, okm, 82), 0);
	assert_hex(okm, 82, "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
			    "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
			    "cc30c58179ec3e87c14c01d5c1f3434f1d87");

	memset(ikm, 0x0b, 22);
	assert_int_equal(ew_hkdf_sha256(ikm, 22, NULL, 0, NULL, 0, okm, 42), 0);
	assert_hex(okm, 42, "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"
			    "9d201395faa4b61a96c8");
}

static void secret_0_31(struct ew_secret *s)
{
	char why[128];
	uint8_t raw[32];
	size_t i;

	for (i = 0; i < sizeof(raw); i++)
		raw[i] = (uint8_t)i;
	assert_int_equal(ew_secret_parse(raw, sizeof(raw), s, why, sizeof(why)), 0);
}

/*
 * Version 1 of the derivation, fixed: secret 00 01 .. 1f. Both nodes of a
 * path compute these; ew_kdf.py (Python hmac) prints the same.
 */
static void test_kdf_vectors(void **state)
{
	static const uint8_t sci[8] = { 0x02, 0, 0, 0, 0, 0x01, 0x00, 0x01 };
	uint8_t a[16] = { [10] = 0xff, [11] = 0xff, 10, 1, 0, 1 };
	uint8_t b[16] = { [10] = 0xff, [11] = 0xff, 10, 1, 0, 2 };
	uint8_t c6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	uint8_t d6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
	struct ew_macsec_keys mk;
	struct ew_esp_keys ek;
	struct ew_secret s;

	(void)state;
	secret_0_31(&s);
	assert_int_equal(ew_kdf_macsec(&s, sci, 0, &mk), 0);
	assert_hex(mk.sak, 32, "9c8c323222c28d5d9678aa3528dc80ad6cda3c452e71517505e531de07fe3658");
	assert_hex(mk.ki, 16, "a8b572751cd3c0f266407aa0ea272097");
	assert_hex(mk.salt, 12, "ea5ef1f63a37e79176279f56");
	assert_int_equal(mk.ssci, 0x467a98c0);
	assert_int_equal(ew_kdf_macsec(&s, sci, 5, &mk), 0);
	assert_hex(mk.sak, 32, "96f6c1813e706758e4b98fcdb0f05d62c116c9af60a9aa3677aefcd71fe278ab");
	assert_hex(mk.ki, 16, "9901092cf4ae8f514fbed0987d07a8e0");

	assert_int_equal(ew_kdf_esp(&s, a, b, 0, &ek), 0);
	assert_hex(ek.key, 36, "fb8b0dc10ed3215daac849c4268297de14fe83aba0ca49ff8691d58c09423564"
			       "6b5a6222");
	assert_int_equal(ek.spi, 0x613a5115);
	assert_int_equal(ew_kdf_esp(&s, c6, d6, 7, &ek), 0);
	assert_hex(ek.key, 36, "27e18919ce71dfb937ddee0304f396cdd3d5f03c915ee73c3a0d093919573384"
			       "163ccaff");
	assert_int_equal(ek.spi, 0xbba03947);

	/* Direction, epoch and sender all change the keys. */
	{
		struct ew_esp_keys back;

		assert_int_equal(ew_kdf_esp(&s, b, a, 0, &back), 0);
		assert_int_equal(ew_kdf_esp(&s, a, b, 0, &ek), 0);
		assert_memory_not_equal(back.key, ek.key, sizeof(ek.key));
		assert_int_not_equal(back.spi, ek.spi);
		assert_int_equal(ew_kdf_esp(&s, a, b, 1, &back), 0);
		assert_int_not_equal(back.spi, ek.spi);
	}
	ew_secret_free(&s);
	assert_null(s.buf);
}

/*
 * The secret of a job's run: HKDF of the cluster secret, the job's name and
 * its run (vectors by Python's hmac, selftests/tools/ew_kdf.py).
 */
static void test_kdf_job(void **state)
{
	uint8_t a[16] = { 0xfd, 0x00, 0x00, 0xee, [11] = 1, [15] = 0x65 };
	uint8_t b[16] = { 0xfd, 0x00, 0x00, 0xee, [11] = 2, [15] = 0x65 };
	char run_max[EW_RUN_MAX + 2];
	struct ew_secret s, j1, j1b, j2, jr;
	struct ew_esp_keys k1, k2, kc, kr;

	(void)state;
	secret_0_31(&s);
	assert_int_equal(ew_kdf_job_secret(&s, "slurm-101", "1796601600.0", &j1), 0);
	assert_int_equal(j1.len, EW_JOB_SECRET_LEN);
	assert_hex(j1.buf, 32, "777f0915b0533e4c630602a051a7296bcbf4bdf839985abbac09fdeaf6fb9f47");
	assert_int_equal(ew_kdf_job_secret(&s, "slurm-101", "1796601600.0", &j1b), 0);
	assert_memory_equal(j1.buf, j1b.buf, EW_JOB_SECRET_LEN);
	assert_int_equal(ew_kdf_job_secret(&s, "slurm-102", "1796601600.0", &j2), 0);
	assert_hex(j2.buf, 32, "264c80f09f16d6932f266a8a09ba7728b4f0ccd634cab6cabf45a92cfe93df49");
	/* The same job requeued: its next run has other keys. */
	assert_int_equal(ew_kdf_job_secret(&s, "slurm-101", "1796605200.1", &jr), 0);
	assert_hex(jr.buf, 32, "756b93bbd42fe4dde9f35a724125fbbd6ebbdbac6f3363eb4e4508c638c2a213");

	/* The job's SAs: the same addresses, other keys and SPIs per job and run. */
	assert_int_equal(ew_kdf_esp(&j1, a, b, 0, &k1), 0);
	assert_int_equal(k1.spi, 0xe7b99b7a);
	assert_int_equal(ew_kdf_esp(&j2, a, b, 0, &k2), 0);
	assert_int_equal(k2.spi, 0xafa9a685);
	assert_memory_not_equal(k1.key, k2.key, sizeof(k1.key));
	assert_int_equal(ew_kdf_esp(&jr, a, b, 0, &kr), 0);
	assert_int_equal(kr.spi, 0xe02c3eda);
	assert_memory_not_equal(k1.key, kr.key, sizeof(k1.key));
	assert_int_equal(ew_kdf_esp(&s, a, b, 0, &kc), 0);
	assert_memory_not_equal(k1.key, kc.key, sizeof(k1.key));
	ew_secret_free(&j2);
	ew_secret_free(&jr);

	/*
	 * Keyed PSNs: the key of a run, from the run's secret; the requeued
	 * job's differs, and neither is the key of the name alone (HKDF of the
	 * cluster secret, "eastwest v1 psn key" 0x00 "slurm-101": 6f458296...).
	 */
	{
		uint8_t p1[EW_PSN_KEY_LEN], pr[EW_PSN_KEY_LEN], p2[EW_PSN_KEY_LEN];

		assert_int_equal(ew_kdf_psn(&s, "slurm-101", "1796601600.0", p1), 0);
		assert_hex(p1, 16, "e8971f5a3adf8068fe3f74e8b4bc6c03");
		assert_int_equal(ew_kdf_psn(&s, "slurm-101", "1796605200.1", pr), 0);
		assert_hex(pr, 16, "632c1134fac2af7cddc97dff7d756e92");
		assert_int_equal(ew_kdf_psn(&s, "slurm-102", "1796601600.0", p2), 0);
		assert_hex(p2, 16, "e2271d2452686762ecc7ddc12eb9eb55");
		assert_int_equal(ew_kdf_psn(&s, "slurm-101", "", p2), -EINVAL);
	}

	/* No name or run, or one longer than its maximum: refused. */
	assert_int_equal(ew_kdf_job_secret(&s, "", "1", &j2), -EINVAL);
	assert_null(j2.buf);
	assert_int_equal(ew_kdf_job_secret(&s, "slurm-101", "", &j2), -EINVAL);
	assert_null(j2.buf);
	memset(run_max, '7', sizeof(run_max) - 1);
	run_max[sizeof(run_max) - 1] = '\0';
	assert_int_equal(ew_kdf_job_secret(&s, "slurm-101", run_max, &j2), -EINVAL);
	run_max[EW_RUN_MAX] = '\0';
	assert_int_equal(ew_kdf_job_secret(&s, "slurm-101", run_max, &j2), 0);
	ew_secret_free(&j2);
	ew_secret_free(&j1);
	ew_secret_free(&j1b);
	ew_secret_free(&s);
}

static void write_file(const char *name, const void *data, size_t len, mode_t mode)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static int load(const char *name, uid_t caller, struct ew_secret *s, char *why)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return ew_secret_load(path, caller, s, why, 160);
}

static void test_keyfile(void **state)
{
	static const char hex64[] =
		"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n";
	char raw[40], why[160], path[128], link[128];
	struct ew_secret s, ref;
	uid_t me = getuid();

	(void)state;
	secret_0_31(&ref);
	/* hex, with a newline: the same 32 bytes as the raw form */
	write_file("hex", hex64, sizeof(hex64) - 1, 0600);
	assert_int_equal(load("hex", me, &s, why), 0);
	assert_int_equal(s.len, 32);
	assert_memory_equal(s.buf, ref.buf, 32);
	ew_secret_free(&s);
	/* raw bytes (not all hex digits): taken as they are, 40 bytes */
	memset(raw, 'z', sizeof(raw));
	write_file("raw", raw, sizeof(raw), 0400);
	assert_int_equal(load("raw", me, &s, why), 0);
	assert_int_equal(s.len, 40);
	ew_secret_free(&s);
	/* too short: 31 raw bytes, 62 hex digits */
	write_file("short", raw, 31, 0600);
	assert_int_equal(load("short", me, &s, why), -EINVAL);
	assert_non_null(strstr(why, "31 bytes, need at least 32"));
	write_file("shorthex", hex64 + 2, 62, 0600);
	assert_int_equal(load("shorthex", me, &s, why), -EINVAL);
	assert_non_null(strstr(why, "31 bytes (hex)"));
	write_file("odd", hex64 + 1, 63, 0600);
	assert_int_equal(load("odd", me, &s, why), -EINVAL);
	assert_non_null(strstr(why, "odd number"));
	/* modes: group or other may not read or write */
	write_file("g", hex64, sizeof(hex64) - 1, 0640);
	assert_int_equal(load("g", me, &s, why), -EPERM);
	assert_string_equal(why, "mode 0640 is too open (want 0600 or stricter)");
	write_file("o", hex64, sizeof(hex64) - 1, 0602);
	assert_int_equal(load("o", me, &s, why), -EPERM);
	assert_non_null(strstr(why, "mode 0602"));
	/* owner: root or the caller */
	if (me == 0) {
		snprintf(path, sizeof(path), "%s/hex", tmpdir);
		assert_int_equal(chown(path, 4242, 4242), 0);
		assert_int_equal(load("hex", 1000, &s, why), -EPERM);
		assert_string_equal(why, "owned by uid 4242 (want root or uid 1000)");
		assert_int_equal(load("hex", 4242, &s, why), 0);
		ew_secret_free(&s);
	} else {
		assert_int_equal(load("hex", me + 1, &s, why), -EPERM);
		assert_non_null(strstr(why, "owned by uid"));
	}
	/* a symbolic link, even to a good file; a directory; a missing file */
	snprintf(path, sizeof(path), "%s/raw", tmpdir);
	snprintf(link, sizeof(link), "%s/link", tmpdir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(load("link", me, &s, why), -ELOOP);
	assert_non_null(strstr(why, "symbolic link"));
	snprintf(path, sizeof(path), "%s/dir", tmpdir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(load("dir", me, &s, why), -EINVAL);
	assert_string_equal(why, "not a regular file");
	assert_int_equal(load("missing", me, &s, why), -ENOENT);
	ew_secret_free(&ref);
}

static void expect_error(int ret, const char *msg)
{
	assert_int_equal(ret, EW_USAGE);
	if (!strstr(ew_last_error(), msg))
		fail_msg("error \"%s\" lacks \"%s\"", ew_last_error(), msg);
}

static void test_grammar(void **state)
{
	struct ew_path_spec spec;

	(void)state;
	assert_int_equal(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "macsec", "key-file", "/k",
			       "cipher", "gcm-aes-256", "name", "ms0", "epoch", "6",
			       "local", "10.2.0.1/24", "peer", "10.2.0.2", "lladdr",
			       "02:00:00:00:00:02", "peer", "10.2.0.3"), EW_OK);
	assert_string_equal(spec.dev, "eth0");
	assert_int_equal(spec.type, EW_PT_MACSEC);
	assert_int_equal(spec.cipher, EW_CIPHER_GCM_AES_256);
	assert_string_equal(spec.name, "ms0");
	assert_string_equal(spec.rxe_name, "");
	assert_int_equal(spec.epoch, 6);
	assert_true(spec.local_has_plen);
	assert_int_equal(spec.local_plen, 96 + 24);
	assert_int_equal(spec.n_peers, 2);
	assert_true(spec.peers[0].has_mac);
	assert_int_equal(spec.peers[0].mac[5], 2);
	assert_false(spec.peers[1].has_mac);
	assert_int_equal(spec.replay_window, EW_REPLAY_WINDOW_DEFAULT);
	ew_pathspec_free(&spec);

	assert_int_equal(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "macsec", "key-file", "/k",
			       "rxe", "rxem", "peer", "10.2.0.2"), EW_OK);
	assert_string_equal(spec.rxe_name, "rxem");
	/* The extended packet number unless asked otherwise. */
	assert_int_equal(spec.cipher, EW_CIPHER_GCM_AES_XPN_256);
	ew_pathspec_free(&spec);
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "key-file", "/k", "rxe", "",
			   "peer", "10.0.0.2"), "not an RDMA device name");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "key-file", "/k", "rxe", "rxe%d",
			   "peer", "10.0.0.2"), "not an RDMA device name");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "key-file", "/k", "rxe",
			   "a-name-of-sixty-four-characters-is-one-more-than-rdma-allows-xyz",
			   "peer", "10.0.0.2"), "not an RDMA device name");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "ipsec", "key-file", "/k",
			   "rxe", "rxem", "peer", "10.0.0.2"), "MACsec options");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "physical", "rxe", "rxem"),
		     "type physical takes only dev");

	/* Per-job IPsec: job NAME and its run, with the job's own address. */
	assert_int_equal(PARSE(EW_PATH_ADD, "dev", "ewv100", "type", "ipsec", "key-file", "/k",
			       "job", "slurm-101", "run", "1796601600.0", "local", "fd00:ee::1:0:65",
			       "peer", "fd00:ee::2:0:65"), EW_OK);
	assert_string_equal(spec.job, "slurm-101");
	assert_string_equal(spec.run, "1796601600.0");
	assert_true(spec.has_local);
	ew_pathspec_free(&spec);
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "key-file", "/k", "job", "slurm-1",
			   "run", "1", "local", "10.0.0.1", "peer", "10.0.0.2"),
		     "job NAME needs type ipsec");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "ipsec", "key-file", "/k",
			   "job", "slurm-1", "run", "1", "peer", "10.0.0.2"),
		     "job NAME needs local ADDR");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "ipsec", "key-file", "/k",
			   "job", "slurm-1", "run", "1", "local", "10.0.0.1/24", "peer", "10.0.0.2"),
		     "local ADDR without a prefix length");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "ipsec", "key-file", "/k",
			   "job", "", "local", "10.0.0.1", "peer", "10.0.0.2"), "not a job name");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "ipsec", "key-file", "/k",
			   "job", "a-job-name-longer-than-sixty-three-characters-is-not-a-job-name-x",
			   "local", "10.0.0.1", "peer", "10.0.0.2"), "not a job name");
	/* A name alone would give a requeued job its earlier run's keys. */
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "ipsec", "key-file", "/k",
			   "job", "slurm-1", "local", "10.0.0.1", "peer", "10.0.0.2"),
		     "job NAME needs run ID");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "ipsec", "key-file", "/k",
			   "run", "1", "peer", "10.0.0.2"), "give job NAME too");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "ipsec", "key-file", "/k",
			   "job", "slurm-1", "run", "", "local", "10.0.0.1", "peer", "10.0.0.2"),
		     "not a run of a job");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "ipsec", "key-file", "/k",
			   "job", "slurm-1", "run", "1 2", "local", "10.0.0.1", "peer", "10.0.0.2"),
		     "not a run of a job");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "ipsec", "key-file", "/k",
			   "job", "slurm-1", "run",
			   "12345678901234567890123456789012345678901234567890123456789012345",
			   "local", "10.0.0.1", "peer", "10.0.0.2"), "not a run of a job");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "ipsec", "key-file", "/k",
			   "job", "slurm-1", "run", "1", "run", "2", "local", "10.0.0.1",
			   "peer", "10.0.0.2"), "given twice");
	expect_error(PARSE(EW_PATH_DEL, "dev", "eth0", "job", "slurm-1", "run", "1",
			   "local", "10.0.0.1"), "unknown keyword \"run\"");
	assert_int_equal(PARSE(EW_PATH_DEL, "dev", "ewv100", "job", "slurm-101", "local",
			       "fd00:ee::1:0:65"), EW_OK);
	assert_string_equal(spec.job, "slurm-101");
	ew_pathspec_free(&spec);
	expect_error(PARSE(EW_PATH_DEL, "dev", "eth0", "job", "slurm-1"), "job NAME needs local ADDR");
	expect_error(PARSE(EW_PATH_DEL, "dev", "eth0", "local", "10.0.0.1"),
		     "local ADDR is for one job's IPsec");
	assert_int_equal(PARSE(EW_PATH_ROTATE, "dev", "ewv100", "key-file", "/k", "epoch", "1",
			       "job", "slurm-101", "run", "1796601600.0", "local", "fd00:ee::1:0:65"),
			 EW_OK);
	assert_string_equal(spec.run, "1796601600.0");
	ew_pathspec_free(&spec);
	expect_error(PARSE(EW_PATH_ROTATE, "dev", "eth0", "key-file", "/k", "epoch", "1",
			   "job", "slurm-1", "run", "1"), "job NAME needs local ADDR");
	expect_error(PARSE(EW_PATH_ROTATE, "dev", "eth0", "key-file", "/k", "epoch", "1",
			   "job", "slurm-1", "local", "10.0.0.1"), "job NAME needs run ID");

	assert_int_equal(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "physical"), EW_OK);
	assert_int_equal(PARSE(EW_PATH_ROTATE, "dev", "eth0", "key-file", "/k", "epoch", "1",
			       "stage", "rx"), EW_OK);
	assert_int_equal(spec.stage, EW_STAGE_RX);
	assert_int_equal(PARSE(EW_PATH_CHECK, "dev", "rxe0", "sgid-index", "1", "dst",
			       "fe80::1"), EW_OK);
	assert_string_equal(spec.rdma_dev, "rxe0");
	assert_int_equal(spec.port, 1);
	assert_int_equal(PARSE(EW_PATH_PHYSICAL, "dev", "eth0", "on"), EW_OK);
	assert_true(spec.physical);
	assert_int_equal(ew_pathspec_parse(EW_PATH_SHOW, 0, NULL, &spec), EW_OK);

	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "peer", "10.0.0.2"), "missing key-file");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "key-file", "/k"), "missing peer");
	expect_error(PARSE(EW_PATH_ADD, "key-file", "/k", "peer", "10.0.0.2"), "missing dev");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "key", "0102", "peer", "10.0.0.2"),
		     "unknown keyword \"key\"");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "wireguard"),
		     "type \"wireguard\": expected auto|macsec|ipsec|physical");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "key-file", "/k", "peer", "10.0.0.2",
			   "peer", "10.0.0.2"), "given twice");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "key-file", "/k", "lladdr",
			   "02:00:00:00:00:02", "peer", "10.0.0.2"), "must follow the peer");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "key-file", "/k", "peer", "10.0.0.2",
			   "lladdr", "01:00:5e:00:00:01"), "not a unicast MAC");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "key-file", "/k", "peer", "10.0.0.0/24"),
		     "not an IPv4 or IPv6 address");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "key-file", "/k", "peer", "10.0.0.2",
			   "peer", "fe80::2"), "all peers must be IPv4 or all IPv6");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "key-file", "/k", "local", "fe80::1",
			   "peer", "10.0.0.2"), "different families");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "key-file", "/k", "local", "10.0.0.1/33",
			   "peer", "10.0.0.2"), "bad prefix length");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "ipsec", "key-file", "/k",
			   "offload", "mac", "peer", "10.0.0.2"), "MACsec offload");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "macsec", "key-file", "/k",
			   "offload", "packet", "peer", "10.0.0.2"), "IPsec offload");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "ipsec", "key-file", "/k",
			   "name", "x", "peer", "10.0.0.2"), "MACsec options");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "type", "physical", "key-file", "/k"),
		     "type physical takes only dev");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "key-file", "/k", "epoch", "-1",
			   "peer", "10.0.0.2"), "epoch \"-1\"");
	expect_error(PARSE(EW_PATH_ADD, "dev", "an-interface-name-too-long"), "not an interface name");
	expect_error(PARSE(EW_PATH_ADD, "dev", "eth0", "key-file", "/k", "replay-window", "0",
			   "peer", "10.0.0.2"), "replay-window");
	expect_error(PARSE(EW_PATH_ROTATE, "dev", "eth0", "key-file", "/k"), "epoch N");
	expect_error(PARSE(EW_PATH_ROTATE, "dev", "eth0", "key-file", "/k", "epoch", "1",
			   "stage", "both"), "expected all|rx|tx|retire");
	expect_error(PARSE(EW_PATH_CHECK, "dev", "rxe0", "dst", "10.0.0.2"), "sgid-index");
	expect_error(PARSE(EW_PATH_PHYSICAL, "dev", "eth0"), "missing on or off");
	expect_error(PARSE(EW_PATH_PHYSICAL, "dev", "eth0", "on", "off"), "not both");
	expect_error(PARSE(EW_PATH_DEL, "dev", "eth0", "peer", "10.0.0.2"), "unknown keyword");
	expect_error(PARSE(EW_PATH_DEL, "dev"), "needs an argument");
}

static void test_mac_and_names(void **state)
{
	uint8_t mac[6];
	char buf[32];

	(void)state;
	assert_int_equal(ew_mac_parse("02:aB:00:00:00:ff", mac), 0);
	assert_string_equal(ew_mac_format(mac, buf, sizeof(buf)), "02:ab:00:00:00:ff");
	assert_int_equal(ew_mac_parse("02:ab:00:00:00", mac), -EINVAL);
	assert_int_equal(ew_mac_parse("02-ab-00-00-00-ff", mac), -EINVAL);
	assert_int_equal(ew_mac_parse("00:00:00:00:00:00", mac), -EINVAL);
	assert_string_equal(ew_default_macsec_name("eth0", buf, sizeof(buf)), "ew-eth0");
	assert_string_equal(ew_default_macsec_name("enp129s0f1np1", buf, sizeof(buf)),
			    "ew-enp129s0f1np");
}

/* ew_path_choose()'s order, whatever else is offered beside. */
static void test_chooser(void **state)
{
	struct ew_path_caps c;
	struct ew_path_choice ch;
	char why[160];

	(void)state;
	memset(&c, 0, sizeof(c));
	ew_path_choose(&c, &ch);
	assert_int_equal(ch.type, EW_PT_MACSEC);
	assert_int_equal(ch.offload, EW_OFL_OFF);
	assert_true(ch.software);
	assert_non_null(strstr(ch.reason, "unknown"));
	c.known = true;
	ew_path_choose(&c, &ch);
	assert_non_null(strstr(ch.reason, "no crypto offload"));

	c.esp_crypto = true;
	ew_path_choose(&c, &ch);
	assert_int_equal(ch.type, EW_PT_IPSEC);
	assert_int_equal(ch.offload, EW_OFL_CRYPTO);
	assert_false(ch.software);

	c.esp_packet = true;		/* driver can, kernel 6.1 cannot */
	ew_path_choose(&c, &ch);
	assert_int_equal(ch.offload, EW_OFL_CRYPTO);
	assert_non_null(strstr(ch.reason, "usable on this kernel"));
	c.kernel_esp_packet = true;
	ew_path_choose(&c, &ch);
	assert_int_equal(ch.type, EW_PT_IPSEC);
	assert_int_equal(ch.offload, EW_OFL_PACKET);

	c.macsec_offload = true;
	ew_path_choose(&c, &ch);
	assert_int_equal(ch.type, EW_PT_MACSEC);
	assert_int_equal(ch.offload, EW_OFL_MAC);

	c.physical = true;
	ew_path_choose(&c, &ch);
	assert_int_equal(ch.type, EW_PT_PHYSICAL);

	/* explicit choices are checked against what is there */
	memset(&c, 0, sizeof(c));
	assert_int_equal(ew_path_resolve(EW_PT_IPSEC, EW_OFL_PACKET, &c, &ch, why, sizeof(why)),
			 -EOPNOTSUPP);
	assert_string_equal(why, "ESP packet offload is not on this kernel (needs 6.2 or later)");
	c.kernel_esp_packet = true;
	assert_int_equal(ew_path_resolve(EW_PT_IPSEC, EW_OFL_PACKET, &c, &ch, why, sizeof(why)),
			 -EOPNOTSUPP);
	assert_string_equal(why, "the netdev has no ESP packet offload");
	assert_int_equal(ew_path_resolve(EW_PT_MACSEC, EW_OFL_MAC, &c, &ch, why, sizeof(why)),
			 -EOPNOTSUPP);
	assert_int_equal(ew_path_resolve(EW_PT_IPSEC, EW_OFL_AUTO, &c, &ch, why, sizeof(why)), 0);
	assert_int_equal(ch.offload, EW_OFL_OFF);
	assert_true(ch.software);
	c.esp_crypto = true;
	assert_int_equal(ew_path_resolve(EW_PT_IPSEC, EW_OFL_AUTO, &c, &ch, why, sizeof(why)), 0);
	assert_int_equal(ch.offload, EW_OFL_CRYPTO);
	assert_int_equal(ew_path_resolve(EW_PT_MACSEC, EW_OFL_OFF, &c, &ch, why, sizeof(why)), 0);
	assert_true(ch.software);

	assert_false(ew_kernel_at_least("6.1.0-57-amd64", 6, 2));
	assert_true(ew_kernel_at_least("6.12.117+deb12-amd64", 6, 2));
	assert_true(ew_kernel_at_least("7.0.0", 6, 2));
	assert_false(ew_kernel_at_least("garbage", 6, 2));
}

static void test_roce_mtu(void **state)
{
	(void)state;
	/* 1500: 1500 - 60 - 32 = 1408 -> 1024, whatever the protection */
	assert_int_equal(ew_roce_mtu(1500, 0, false), 1024);
	assert_int_equal(ew_roce_mtu(1500, EW_MACSEC_OVERHEAD, false), 1024);
	assert_int_equal(ew_roce_mtu(1500, EW_ESP_OVERHEAD, true), 1024);
	/* 9000 fits 4096 with anything */
	assert_int_equal(ew_roce_mtu(9000, EW_ESP_OVERHEAD, true), 4096);
	/* the edges of 4096: payload + 60 (+80 for IPv6) + overhead */
	assert_int_equal(ew_roce_mtu(4096 + 60, 0, false), 4096);
	assert_int_equal(ew_roce_mtu(4096 + 60 + 32, EW_MACSEC_OVERHEAD, false), 4096);
	assert_int_equal(ew_roce_mtu(4096 + 60 + 31, EW_MACSEC_OVERHEAD, false), 2048);
	assert_int_equal(ew_roce_mtu(4096 + 80 + 37, EW_ESP_OVERHEAD, true), 4096);
	assert_int_equal(ew_roce_mtu(4096 + 80 + 36, EW_ESP_OVERHEAD, true), 2048);
	/* too small for even 256 */
	assert_int_equal(ew_roce_mtu(256 + 60 + 31, EW_MACSEC_OVERHEAD, false), 0);
	assert_int_equal(ew_roce_mtu(576, EW_ESP_OVERHEAD, false), 256);
}


/*
 * The transmit key record: a key recorded once is refused ever after (and
 * across processes: it is on disk), whichever path or epoch it came from;
 * the record names no key; the directory and files are root-only; state
 * that cannot be read or written refuses instead of letting a key through.
 */
static void test_txkeys(void **state)
{
	struct ew_macsec_keys m0, m1;
	struct ew_esp_keys e0;
	struct ew_txkey_prev prev;
	struct ew_secret s;
	uint8_t sci[8] = { 0x02, 0, 0, 0, 0, 0x0a, 0, 1 };
	uint8_t id0[EW_TXKEY_ID_LEN], id1[EW_TXKEY_ID_LEN], ide[EW_TXKEY_ID_LEN];
	uint8_t a[16] = { [10] = 0xff, [11] = 0xff, 10, 1, 0, 1 };
	uint8_t b[16] = { [10] = 0xff, [11] = 0xff, 10, 1, 0, 2 };
	char dir[128], file[256], why[256], buf[512];
	struct stat st;
	ssize_t n;
	int fd;

	(void)state;
	assert_int_equal(ew_secret_parse((const uint8_t *)"000102030405060708090a0b0c0d0e0f"
					 "101112131415161718191a1b1c1d1e1f\n", 65, &s,
					 why, sizeof(why)), 0);
	assert_int_equal(ew_kdf_macsec(&s, sci, 0, &m0), 0);
	assert_int_equal(ew_kdf_macsec(&s, sci, 1, &m1), 0);
	assert_int_equal(ew_kdf_esp(&s, a, b, 0, &e0), 0);
	assert_int_equal(ew_txkey_id(m0.sak, sizeof(m0.sak), id0), 0);
	assert_int_equal(ew_txkey_id(m1.sak, sizeof(m1.sak), id1), 0);
	assert_int_equal(ew_txkey_id(e0.key, EW_ESP_KEY_LEN, ide), 0);
	assert_memory_not_equal(id0, id1, sizeof(id0));
	assert_memory_not_equal(id0, ide, sizeof(id0));

	/* a directory of this test's own, created on first use */
	snprintf(dir, sizeof(dir), "%s/state", tmpdir);
	assert_int_equal(setenv(EW_STATE_DIR_ENV, dir, 1), 0);
	assert_int_equal(ew_txkey_seen(id0, &prev, why, sizeof(why)), 0);
	assert_int_equal(ew_txkey_record(id0, "macsec ew-x epoch 0", &prev, why, sizeof(why)), 0);
	assert_int_equal(ew_txkey_seen(id0, &prev, why, sizeof(why)), 1);
	assert_string_equal(prev.what, "macsec ew-x epoch 0");
	assert_true(prev.since > 0 && prev.since <= time(NULL));
	assert_int_equal(ew_txkey_record(id0, "again", &prev, why, sizeof(why)), -EEXIST);
	assert_string_equal(prev.what, "macsec ew-x epoch 0");
	/* another epoch's key, and an ESP key, are new */
	assert_int_equal(ew_txkey_seen(id1, &prev, why, sizeof(why)), 0);
	assert_int_equal(ew_txkey_record(id1, "macsec ew-x epoch 1", &prev, why, sizeof(why)), 0);
	assert_int_equal(ew_txkey_record(ide, "esp epoch 0", &prev, why, sizeof(why)), 0);

	/* root-only, and no file holds a key, its KI or its SPI */
	snprintf(file, sizeof(file), "%s/tx-keys", dir);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	snprintf(file, sizeof(file), "%s/tx-keys/", dir);
	for (n = 0; n < EW_TXKEY_ID_LEN; n++)
		snprintf(file + strlen(file), 3, "%02x", id0[n]);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	fd = open(file, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = 0;
	assert_null(memmem(buf, (size_t)n, m0.sak, 4));
	assert_null(memmem(buf, (size_t)n, m0.ki, 4));

	/* a record from an earlier run (another process) is found too */
	assert_int_equal(ew_txkey_seen(ide, &prev, why, sizeof(why)), 1);
	assert_string_equal(prev.what, "esp epoch 0");

	/* fail closed: a state directory others may write to, or none possible */
	assert_int_equal(chmod(file, 0644), 0);
	snprintf(file, sizeof(file), "%s/tx-keys", dir);
	assert_int_equal(chmod(file, 0755), 0);
	assert_true(ew_txkey_seen(id0, &prev, why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "0755"));
	assert_true(ew_txkey_record(id1, "x", &prev, why, sizeof(why)) < 0);
	assert_int_equal(chmod(file, 0700), 0);
	snprintf(file, sizeof(file), "%s/key-as-dir", tmpdir);
	fd = open(file, O_WRONLY | O_CREAT, 0600);
	close(fd);
	assert_int_equal(setenv(EW_STATE_DIR_ENV, file, 1), 0);
	assert_true(ew_txkey_seen(id0, &prev, why, sizeof(why)) < 0);
	assert_non_null(strstr(why, file));
	assert_true(ew_txkey_record(id0, "x", &prev, why, sizeof(why)) < 0);
	assert_int_equal(setenv(EW_STATE_DIR_ENV, "relative/dir", 1), 0);
	assert_true(ew_txkey_record(id0, "x", &prev, why, sizeof(why)) < 0);
	unsetenv(EW_STATE_DIR_ENV);
	assert_string_equal(ew_state_dir(), EW_STATE_DIR_DEFAULT);
	ew_wipe(&m0, sizeof(m0));
	ew_wipe(&m1, sizeof(m1));
	ew_wipe(&e0, sizeof(e0));
	ew_secret_free(&s);
}

static int setup(void **state)
{
	(void)state;
	ew_quiet = true;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ew-path-test.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return nftw(tmpdir, rm_cb, 8, FTW_DEPTH | FTW_PHYS);
}

/*
 * path rotate stage tx on MACsec: the AN of the epoch may already hold a
 * TX SA. Of this very key (same KI): stage tx ran before, and finishes or
 * is done. Of another key (epoch E + 4, or a new key file at the same
 * epoch): refused, whether the link sends with it or not, since no new
 * key would be installed. A KI the kernel does not report: refused.
 */
static void test_macsec_tx_stage(void **state)
{
	uint8_t want[EW_MACSEC_KI_BYTES], other[EW_MACSEC_KI_BYTES];

	(void)state;
	memset(want, 0xa5, sizeof(want));
	memset(other, 0x5a, sizeof(other));
	/* Epoch 4 after epoch 0: AN 0 sends with epoch 0's key. */
	assert_int_equal(ew_macsec_tx_stage(true, other, 0, 0, want), EW_MACSEC_TX_OTHER_KEY);
	assert_int_equal(ew_macsec_tx_stage(false, NULL, 0, 1, want), EW_MACSEC_TX_INSTALL);
	assert_int_equal(ew_macsec_tx_stage(true, want, 1, 1, want), EW_MACSEC_TX_DONE);
	assert_int_equal(ew_macsec_tx_stage(true, want, 0, 1, want), EW_MACSEC_TX_SWITCH);
	assert_int_equal(ew_macsec_tx_stage(true, other, 1, 0, want), EW_MACSEC_TX_OTHER_KEY);
	assert_int_equal(ew_macsec_tx_stage(true, NULL, 0, 0, want), EW_MACSEC_TX_NO_KI);
	assert_int_equal(ew_macsec_tx_stage(true, NULL, 1, 0, want), EW_MACSEC_TX_NO_KI);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hkdf_rfc5869),
		cmocka_unit_test(test_kdf_vectors),
		cmocka_unit_test(test_kdf_job),
		cmocka_unit_test(test_keyfile),
		cmocka_unit_test(test_grammar),
		cmocka_unit_test(test_mac_and_names),
		cmocka_unit_test(test_chooser),
		cmocka_unit_test(test_roce_mtu),
		cmocka_unit_test(test_txkeys),
		cmocka_unit_test(test_macsec_tx_stage),
	};

	return cmocka_run_group_tests_name("path", tests, setup, teardown);
}
