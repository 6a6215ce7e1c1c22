// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the keyword grammar of "job add", "job set" and peer lists.
 */
#include <errno.h>
#include <net/if.h>
#include <unistd.h>

#include "helpers.h"

#include "model/jobspec.h"
#include "model/parse.h"

#define ARGS(...) ((char *[]){ __VA_ARGS__, NULL })
#define NARGS(...) ((int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(set, ...) ew_jobspec_parse(NARGS(__VA_ARGS__), ARGS(__VA_ARGS__), \
					 set, &ref, &job)

static void expect_error(int ret, const char *msg)
{
	assert_int_equal(ret, EW_USAGE);
	if (!strstr(ew_last_error(), msg))
		fail_msg("error \"%s\" lacks \"%s\"", ew_last_error(), msg);
}

static void test_add_all(void **state)
{
	struct ew_jobref ref;
	struct ew_job_desc job;
	char buf[EW_PEER_STRLEN];

	(void)state;
	assert_int_equal(PARSE(false, "a", "id", "7", "mode", "audit", "encrypt",
			       "macsec", "qkey", "0x1234", "cgroup", "/x",
			       "cgroup", "system.slice/job_42", "peer", "192.0.2.0/24",
			       "peer", "fe80::1", "lid", "5", "peer", "lid:6",
			       "netdev", "lo", "vlan", "100", "vrf", "lo",
			       "pkey", "0x8001", "pkey", "0x7fff", "ud", "on",
			       "dc", "off"), EW_OK);
	assert_string_equal(job.name, "a");
	assert_int_equal(job.id, 7);
	assert_int_equal(job.mode, EASTWEST_MODE_AUDIT);
	assert_int_equal(job.encrypt, EASTWEST_ENCRYPT_MACSEC);
	assert_int_equal(job.qkey, 0x1234);
	assert_true(job.ud);
	assert_false(job.dc);
	assert_int_equal(job.present, EW_JOB_NAME | EW_JOB_ID | EW_JOB_MODE |
			 EW_JOB_ENCRYPT | EW_JOB_QKEY | EW_JOB_CGROUPS | EW_JOB_PEERS |
			 EW_JOB_NETDEVS | EW_JOB_PKEYS | EW_JOB_UD | EW_JOB_DC);
	/* Normalized: sorted sets. */
	assert_int_equal(job.n_cgroups, 2);
	assert_string_equal(job.cgroups[0].path, "/system.slice/job_42");
	assert_string_equal(job.cgroups[1].path, "/x");
	assert_int_equal(job.peers.n, 4);
	assert_string_equal(ew_peer_format(&job.peers.v[0], buf, sizeof(buf)),
			    "192.0.2.0/24");
	assert_string_equal(ew_peer_format(&job.peers.v[1], buf, sizeof(buf)),
			    "fe80::1/128");
	assert_string_equal(ew_peer_format(&job.peers.v[2], buf, sizeof(buf)), "lid:5");
	assert_string_equal(ew_peer_format(&job.peers.v[3], buf, sizeof(buf)), "lid:6");
	assert_int_equal(job.n_netdevs, 3);
	assert_int_equal(job.netdevs[0].kind, EW_NETDEV_IFINDEX);
	assert_int_equal(job.netdevs[0].value, if_nametoindex("lo"));
	assert_string_equal(job.netdevs[0].name, "lo");
	assert_int_equal(job.netdevs[1].kind, EW_NETDEV_VLAN);
	assert_int_equal(job.netdevs[1].value, 100);
	assert_int_equal(job.netdevs[2].kind, EW_NETDEV_VRF);
	assert_int_equal(job.n_pkeys, 2);
	assert_int_equal(job.pkeys[0], 0x7fff);
	assert_int_equal(job.pkeys[1], 0x8001);
	ew_job_free(&job);
}

static void test_add_minimal(void **state)
{
	struct ew_jobref ref;
	struct ew_job_desc job;

	(void)state;
	assert_int_equal(PARSE(false, "job_42"), EW_OK);
	assert_int_equal(job.present, EW_JOB_NAME);
	assert_int_equal(job.id, 0);
	assert_false(job.ud || job.dc);
	ew_job_free(&job);

	assert_int_equal(PARSE(false, "a", "dc", "on"), EW_OK);
	assert_int_equal(job.present, EW_JOB_NAME | EW_JOB_DC);
	assert_true(job.dc);
	assert_false(job.ud);
	ew_job_free(&job);

	/* Repeated list keywords accumulate; duplicates collapse. */
	assert_int_equal(PARSE(false, "a", "peer", "10.0.0.1", "peer", "10.0.0.1",
			       "pkey", "1", "pkey", "0x0001"), EW_OK);
	assert_int_equal(job.peers.n, 1);
	assert_int_equal(job.n_pkeys, 1);
	ew_job_free(&job);

	assert_int_equal(PARSE(false, "a", "qkey", "auto"), EW_OK);
	assert_true(job.qkey && job.qkey <= 0x7fffffff);
	ew_job_free(&job);

	assert_int_equal(PARSE(false, "a", "id", "4294967295", "vlan", "1",
			       "vlan", "4094", "qkey", "0x7fffffff"), EW_OK);
	assert_int_equal(job.id, UINT32_MAX);
	ew_job_free(&job);
}

static void test_add_errors(void **state)
{
	struct ew_jobref ref;
	struct ew_job_desc job;

	(void)state;
	expect_error(ew_jobspec_parse(0, ARGS(NULL), false, &ref, &job),
		     "missing job name");
	expect_error(PARSE(false, "a", "bogus", "1"), "unknown keyword \"bogus\"");
	expect_error(PARSE(false, "a", "mode"), "\"mode\" needs an argument");
	expect_error(PARSE(false, "a", "mode", "enforce", "mode", "audit"),
		     "\"mode\" is given twice");
	expect_error(PARSE(false, "a", "mode", "strict"),
		     "mode \"strict\": expected enforce|audit");
	expect_error(PARSE(false, "a", "encrypt", "tls"),
		     "expected none|any|macsec|ipsec");
	expect_error(PARSE(false, "a", "qkey", "0x80000000"),
		     "Q_Keys with bit 31 set are privileged");
	expect_error(PARSE(false, "a", "qkey", "-1"), "bad qkey");
	expect_error(PARSE(false, "a", "ud", "yes"), "ud \"yes\": expected off|on");
	expect_error(PARSE(false, "a", "dc", "1"), "dc \"1\": expected off|on");
	expect_error(PARSE(false, "a", "ud", "ON"), "expected off|on");
	expect_error(PARSE(false, "a", "ud"), "\"ud\" needs an argument");
	expect_error(PARSE(false, "a", "ud", "on", "ud", "off"),
		     "\"ud\" is given twice");
	expect_error(PARSE(false, "a", "id", "0"), "bad job id \"0\"");
	expect_error(PARSE(false, "a", "id", "4294967296"), "bad job id");
	expect_error(PARSE(false, "a", "vlan", "0"), "bad vlan \"0\" (1..4094)");
	expect_error(PARSE(false, "a", "vlan", "4095"), "bad vlan \"4095\"");
	expect_error(PARSE(false, "a", "pkey", "0x8000"), "partition 0");
	expect_error(PARSE(false, "a", "peer", "10.0.0.300"),
		     "bad address \"10.0.0.300\"");
	expect_error(PARSE(false, "a", "peer", "10.0.0.1/33"), "0..32");
	expect_error(PARSE(false, "a", "lid", "0"), "bad LID \"0\"");
	expect_error(PARSE(false, "a", "lid", "65535"), "bad LID");
	expect_error(PARSE(false, "a", "netdev", "nonexistent0"),
		     "netdev \"nonexistent0\": no such network interface");
	expect_error(PARSE(false, "a", "vrf", "this-name-is-too-long-for-ifnamsiz"),
		     "no such network interface");
	expect_error(PARSE(false, "a", "cgroup", "/missing"),
		     "cgroup \"/missing\": no such cgroup");
	expect_error(PARSE(false, "a", "cgroup", "/x/../y"), "\"..\"");
	expect_error(PARSE(false, "a", "name", "b"), "unknown keyword \"name\"");
	expect_error(PARSE(false, "a", "cgroup", "none"), "no such cgroup");
	expect_error(PARSE(false, "id"), "\"id\" is reserved");
	expect_error(PARSE(false, "a b"), "bad job name");
	expect_error(PARSE(false, "-a"), "must not start with '-'");
}

static void test_set(void **state)
{
	struct ew_jobref ref;
	struct ew_job_desc job;

	(void)state;
	assert_int_equal(PARSE(true, "id", "5", "mode", "audit"), EW_OK);
	assert_int_equal(ref.id, 5);
	assert_int_equal(job.present, EW_JOB_MODE);
	ew_job_free(&job);

	assert_int_equal(PARSE(true, "a", "name", "b", "cgroup", "none",
			       "peer", "none", "pkey", "none", "netdev", "none"), EW_OK);
	assert_int_equal(ref.id, 0);
	assert_string_equal(ref.name, "a");
	assert_string_equal(job.name, "b");
	assert_int_equal(job.present, EW_JOB_NAME | EW_JOB_CGROUPS | EW_JOB_PEERS |
			 EW_JOB_PKEYS | EW_JOB_NETDEVS);
	assert_int_equal(job.n_cgroups + job.peers.n + job.n_pkeys + job.n_netdevs, 0);
	ew_job_free(&job);

	/* ud off is a change, not an absence. */
	assert_int_equal(PARSE(true, "a", "ud", "off"), EW_OK);
	assert_int_equal(job.present, EW_JOB_UD);
	assert_false(job.ud);
	assert_true(job.present & EW_JOB_SETTABLE);
	ew_job_free(&job);

	assert_int_equal(PARSE(true, "id", "3", "dc", "on", "ud", "on"), EW_OK);
	assert_int_equal(job.present, EW_JOB_UD | EW_JOB_DC);
	assert_true(job.ud && job.dc);
	ew_job_free(&job);

	assert_int_equal(PARSE(true, "a", "vlan", "7", "vlan", "8"), EW_OK);
	assert_int_equal(job.present, EW_JOB_NETDEVS);
	assert_int_equal(job.n_netdevs, 2);
	ew_job_free(&job);

	expect_error(PARSE(true, "a"), "nothing to change");
	expect_error(PARSE(true, "id"), "\"id\" needs a job id");
	expect_error(PARSE(true, "id", "x", "mode", "audit"), "bad job id \"x\"");
	expect_error(PARSE(true, "a", "id", "5"), "unknown keyword \"id\"");
	expect_error(PARSE(true, "a", "cgroup", "none", "cgroup", "/x"),
		     "cleared with \"none\"");
	expect_error(PARSE(true, "a", "cgroup", "/x", "cgroup", "none"),
		     "clears the list");
	expect_error(PARSE(true, "a", "netdev", "none", "vlan", "5"),
		     "cleared with \"none\"");
	expect_error(PARSE(true, "a", "name", "id"), "reserved");
	expect_error(PARSE(true, "a", "vlan", "none"), "bad vlan");
	expect_error(PARSE(true, "a", "ud", "none"), "ud \"none\": expected off|on");
}

static void test_peerlist(void **state)
{
	static const char nul[] = "192.0.2.1\0 192.0.2.300\n";
	struct ew_peers peers = { 0 };
	char path[] = "/tmp/ewctl-peers.XXXXXX";
	char buf[EW_PEER_STRLEN];
	FILE *f;

	(void)state;
	assert_int_equal(ew_peerlist_parse(4, ARGS("10.0.0.1", "lid", "5", "lid:6"),
					   &peers), EW_OK);
	assert_int_equal(peers.n, 3);
	assert_true(peers.v[1].is_lid && peers.v[1].lid == 5);

	test_temp_file(path, "# peers of job a\n192.0.2.0/24 192.0.2.9\n\tfe80::1 # gw\nlid:9\n");
	assert_int_equal(ew_peerlist_parse(2, ARGS("file", path), &peers), EW_OK);
	assert_int_equal(peers.n, 7);
	assert_string_equal(ew_peer_format(&peers.v[5], buf, sizeof(buf)), "fe80::1/128");

	test_write_file(path, "192.0.2.1\n\n192.0.2.300\n");
	expect_error(ew_peerlist_parse(2, ARGS("file", path), &peers),
		     ":3: bad address \"192.0.2.300\"");

	/* A comment right after a token, CRLF, no newline at the end. */
	peers.n = 0;
	test_write_file(path, "192.0.2.1#one\r\n# 192.0.2.99\r\n192.0.2.2 192.0.2.3");
	assert_int_equal(ew_peerlist_parse(2, ARGS("file", path), &peers), EW_OK);
	assert_int_equal(peers.n, 3);
	assert_string_equal(ew_peer_format(&peers.v[2], buf, sizeof(buf)), "192.0.2.3/32");
	test_write_file(path, "# a\n\n192.0.2.1 # b\n 192.0.2.0/33");
	expect_error(ew_peerlist_parse(2, ARGS("file", path), &peers),
		     ":4: bad address \"192.0.2.0/33\": the prefix length");
	/* A NUL byte would hide the rest of its line: refused. */
	f = fopen(path, "w");
	fwrite(nul, 1, sizeof(nul) - 1, f);
	fclose(f);
	expect_error(ew_peerlist_parse(2, ARGS("file", path), &peers), "a NUL byte");
	unlink(path);
	expect_error(ew_peerlist_parse(2, ARGS("file", path), &peers),
		     "No such file");

	expect_error(ew_peerlist_parse(0, ARGS(NULL), &peers), "missing peer address");
	expect_error(ew_peerlist_parse(1, ARGS("lid"), &peers), "\"lid\" needs an argument");
	expect_error(ew_peerlist_parse(1, ARGS("file"), &peers), "\"file\" needs");
	expect_error(ew_peerlist_parse(1, ARGS("bogus"), &peers), "bad address \"bogus\"");
	ew_peers_free(&peers);
}

static void test_jobref(void **state)
{
	struct ew_jobref ref;
	char **argv = ARGS("id", "12", "x");
	char buf[80];
	int argc = 3;

	(void)state;
	assert_int_equal(ew_jobref_parse(&argc, &argv, &ref), EW_OK);
	assert_int_equal(ref.id, 12);
	assert_int_equal(argc, 1);
	assert_string_equal(argv[0], "x");
	assert_string_equal(ew_jobref_str(&ref, buf, sizeof(buf)), "id 12");
	assert_int_equal(ew_jobref_parse(&argc, &argv, &ref), EW_OK);
	assert_string_equal(ref.name, "x");
	assert_int_equal(argc, 0);
	expect_error(ew_jobref_parse(&argc, &argv, &ref), "missing job");
}

/* Keyed PSNs: the key from hex or derived from a key file and the name. */
static void test_psn(void **state)
{
	static const uint8_t want[16] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05,
					  0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
					  0x0c, 0x0d, 0x0e, 0x0f };
	char keyfile[] = "/tmp/ew-psn-XXXXXX";
	struct ew_jobref ref;
	struct ew_job_desc job, other;
	uint8_t first[16];
	int fd;

	(void)state;
	assert_int_equal(PARSE(false, "a", "psn", "keyed", "psn-key",
			       "000102030405060708090a0b0c0d0e0f"), EW_OK);
	assert_int_equal(job.psn, EASTWEST_PSN_KEYED);
	assert_memory_equal(job.psn_key, want, sizeof(want));
	assert_true(job.present & EW_JOB_PSN_KEY);
	ew_job_free(&job);

	expect_error(PARSE(false, "a", "psn", "random"), "expected app|keyed");
	expect_error(PARSE(false, "a", "psn-key", "0001"), "32 hex digits");
	expect_error(PARSE(false, "a", "psn-key",
			   "000102030405060708090a0b0c0d0e0g"), "32 hex digits");
	expect_error(PARSE(false, "a", "psn-key", "000102030405060708090a0b0c0d0e0f",
			   "psn-keyfile", "/nonexistent"), "given twice");
	expect_error(PARSE(false, "a", "psn-keyfile", "/nonexistent/key", "psn-run", "1"),
		     "psn-keyfile /nonexistent/key");
	expect_error(PARSE(true, "id", "3", "psn-keyfile", "/etc/hostname", "psn-run", "1"),
		     "needs the job's name");
	/* A key of the name alone would come back with the name: a run. */
	expect_error(PARSE(false, "a", "psn-keyfile", "/etc/hostname"),
		     "psn-keyfile needs psn-run ID");
	expect_error(PARSE(false, "a", "psn-run", "1"), "a run is only for psn-keyfile");
	expect_error(PARSE(true, "a", "psn-run", "1"), "a run is only for psn-keyfile");
	expect_error(PARSE(false, "a", "psn-key", "000102030405060708090a0b0c0d0e0f",
			   "psn-run", "1"), "a run is only for psn-keyfile");
	expect_error(PARSE(false, "a", "psn-keyfile", "/etc/hostname", "psn-run", ""),
		     "bad psn-run \"\"");
	expect_error(PARSE(false, "a", "psn-keyfile", "/etc/hostname", "psn-run", "1 2"),
		     "bad psn-run \"1 2\"");
	expect_error(PARSE(false, "a", "psn-keyfile", "/etc/hostname", "psn-run", "1",
			   "psn-run", "2"), "\"psn-run\" is given twice");
	expect_error(PARSE(false, "a", "psn-run"), "\"psn-run\" needs an argument");

	/* The same file and name give the same key; another name another. */
	fd = mkstemp(keyfile);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "00112233445566778899aabbccddeeff"
			       "00112233445566778899aabbccddeeff\n", 65), 65);
	close(fd);
	assert_int_equal(PARSE(false, "a", "psn", "keyed", "psn-keyfile", keyfile,
			       "psn-run", "7.0"), EW_OK);
	memcpy(first, job.psn_key, sizeof(first));
	assert_null(job.psn_keyfile);
	assert_string_equal(job.psn_run, "7.0");
	assert_true(job.present & EW_JOB_PSN_RUN);
	ew_job_free(&job);
	assert_int_equal(PARSE(true, "a", "psn-run", "7.0", "psn-keyfile", keyfile), EW_OK);
	assert_memory_equal(job.psn_key, first, sizeof(first));
	ew_job_free(&job);
	/* The same name's next run (a requeue): another key. */
	assert_int_equal(PARSE(true, "a", "psn-keyfile", keyfile, "psn-run", "7.1"), EW_OK);
	assert_memory_not_equal(job.psn_key, first, sizeof(first));
	ew_job_free(&job);
	assert_int_equal(ew_jobspec_parse(NARGS("b", "psn-keyfile", keyfile, "psn-run", "7.0"),
					  ARGS("b", "psn-keyfile", keyfile, "psn-run", "7.0"),
					  false, &ref, &other), EW_OK);
	assert_memory_not_equal(other.psn_key, first, sizeof(first));
	ew_job_free(&other);
	unlink(keyfile);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_all),
		cmocka_unit_test(test_add_minimal),
		cmocka_unit_test(test_add_errors),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_peerlist),
		cmocka_unit_test(test_jobref),
		cmocka_unit_test(test_psn),
	};

	return cmocka_run_group_tests_name("jobspec", tests, test_cgroup_setup,
					   test_cgroup_teardown);
}
