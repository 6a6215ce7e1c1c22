// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: policy files (JSON) -- the good case, each kind of error with
 * its path or line and column, resolution against the host, and the round
 * trip of "show -j" output through the parser.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "helpers.h"

#include "io/output.h"
#include "model/parse.h"
#include "model/policy_file.h"
#include "model/print.h"

#define EXAMPLE "../Documentation/examples/policy.json"

static int parse(const char *text, struct ew_state *st, char *err, size_t len)
{
	return ew_policy_parse(text, strlen(text), "t.json", st, err, len);
}

/* @text must fail with exactly @msg. */
static void expect(const char *text, const char *msg)
{
	struct ew_state st;
	char err[1024];

	if (!parse(text, &st, err, sizeof(err)))
		fail_msg("accepted: %s", text);
	ew_state_free(&st);
	if (strcmp(err, msg))
		fail_msg("\n   got: %s\nwanted: %s", err, msg);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;

	assert_non_null(f);
	buf = malloc(1 << 20);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static void test_example(void **state)
{
	char err[1024], buf[EW_PEER_STRLEN];
	struct ew_state st;
	struct ew_job_desc *j;
	size_t len;
	char *text;

	(void)state;
	text = slurp(EXAMPLE, &len);
	if (ew_policy_parse(text, len, EXAMPLE, &st, err, sizeof(err)))
		fail_msg("%s", err);
	free(text);
	assert_true(st.has_config && st.has_jobs);
	assert_int_equal(st.config.present, EW_CFG_MODE | EW_CFG_DEFAULT);
	assert_int_equal(st.config.default_action, EASTWEST_DEFAULT_ACTION_DENY);
	assert_int_equal(st.n_jobs, 2);

	j = &st.jobs[0];
	assert_string_equal(j->name, "slurm-42");
	assert_true(j->present & EW_JOB_ID);
	assert_int_equal(j->id, 42);
	assert_int_equal(j->qkey, 305419896);
	assert_false(j->qkey_auto);
	assert_true(j->ud);
	assert_false(j->dc);
	assert_int_equal(j->n_cgroups, 1);
	assert_int_equal(j->peers.n, 3);
	assert_string_equal(ew_peer_format(&j->peers.v[2], buf, sizeof(buf)),
			    "2001:db8:42::/48");
	assert_int_equal(j->n_netdevs, 2);
	assert_string_equal(j->netdevs[0].name, "eth0");
	assert_int_equal(j->netdevs[1].kind, EW_NETDEV_VLAN);
	assert_int_equal(j->netdevs[1].value, 100);
	assert_int_equal(j->n_pkeys, 1);
	assert_int_equal(j->pkeys[0], 0x8001);

	j = &st.jobs[1];
	assert_false(j->present & EW_JOB_ID);
	assert_int_equal(j->mode, EASTWEST_MODE_AUDIT);
	assert_int_equal(j->encrypt, EASTWEST_ENCRYPT_MACSEC);
	assert_true(j->qkey_auto);
	assert_true(j->qkey && j->qkey <= 0x7fffffff);
	assert_int_equal(j->netdevs[0].kind, EW_NETDEV_VRF);
	assert_string_equal(j->netdevs[0].name, "vrf-blue");
	ew_state_free(&st);
}

static void test_defaults_and_sections(void **state)
{
	struct ew_state st;
	char err[1024];

	(void)state;
	/* No "jobs": jobs unmanaged; no "config": config unmanaged. */
	assert_int_equal(parse("{}", &st, err, sizeof(err)), 0);
	assert_false(st.has_jobs);
	assert_false(st.has_config);
	ew_state_free(&st);

	assert_int_equal(parse("{\"config\":{\"mode\":\"audit\"},\"jobs\":[]}",
			       &st, err, sizeof(err)), 0);
	assert_true(st.has_jobs && st.has_config);
	assert_int_equal(st.config.present, EW_CFG_MODE);
	assert_int_equal(st.n_jobs, 0);
	ew_state_free(&st);

	/* A job's missing keys take their defaults. */
	assert_int_equal(parse("{\"jobs\":[{\"name\":\"a\"}]}", &st, err, sizeof(err)), 0);
	assert_int_equal(st.jobs[0].mode, EASTWEST_MODE_ENFORCE);
	assert_int_equal(st.jobs[0].encrypt, EASTWEST_ENCRYPT_NONE);
	assert_int_equal(st.jobs[0].qkey, 0);
	assert_false(st.jobs[0].ud || st.jobs[0].dc);
	assert_true((st.jobs[0].present & (EW_JOB_UD | EW_JOB_DC)) ==
		    (EW_JOB_UD | EW_JOB_DC));
	assert_false(st.jobs[0].present & EW_JOB_ID);
	assert_true(st.jobs[0].present & EW_JOB_CGROUPS);
	ew_state_free(&st);

	/* Read-only keys of "show -j" are accepted; pkeys and qkey as numbers. */
	assert_int_equal(parse("{\"$schema\":\"x\",\"config\":{\"mode\":\"enforce\","
			       "\"default_action\":\"allow\",\"version\":\"0.1.0\","
			       "\"job_count\":1,\"peer_count\":0},\"jobs\":[{\"id\":3,"
			       "\"name\":\"a\",\"qkey\":\"0x10\",\"pkeys\":[32769,\"0xffff\"],"
			       "\"netdevs\":[{\"ifindex\":1},{\"vrf\":7}],\"peer_count\":0,"
			       "\"qp_count\":4,\"ud\":false,\"dc\":true}]}\n\n", &st, err,
			       sizeof(err)), 0);
	assert_int_equal(st.jobs[0].qkey, 16);
	assert_false(st.jobs[0].ud);
	assert_true(st.jobs[0].dc);
	assert_int_equal(st.jobs[0].pkeys[0], 0x8001);
	assert_int_equal(st.jobs[0].netdevs[1].value, 7);
	ew_state_free(&st);
}

static void test_syntax_errors(void **state)
{
	(void)state;
	expect("", "t.json:1:1: unexpected end of input");
	expect("{\n  \"jobs\": [\n", "t.json:3:1: unexpected end of input");
	expect("{\n  \"jobs\": [,]\n}", "t.json:2:12: unexpected character");
	expect("{\"jobs\": []} x", "t.json:1:14: unexpected character");
	expect("{\"jobs\": []}\n{}", "t.json:2:1: unexpected character");
	expect("{\"jobs\": [],}", "t.json:1:13: unexpected character");
	expect("{'jobs': []}", "t.json:1:2: unexpected character");
	expect("{\"a\": 1 /* c */}", "t.json:1:9: object value separator ',' expected");
	expect("{\n\n   \"x\": tru }", "t.json:3:12: boolean expected");
	expect("{\"x\": \"\xff\"}", "t.json:1:8: invalid utf-8 string");
}

/*
 * json-c keeps the last of two equal keys and cuts a key at a NUL: a file
 * that says two things must be refused, not read as its last word.
 */
static void test_duplicate_keys(void **state)
{
	struct ew_state st;
	char err[1024];
	const char *ok;

	(void)state;
	expect("{\"jobs\": [{\"name\": \"a\"}],\n \"jobs\": []}",
	       "t.json:2:2: duplicate key \"jobs\"");
	expect("{\"jobs\": [{\"name\": \"a\", \"mode\": \"enforce\", \"mod\\u0065\": \"audit\"}]}",
	       "t.json:1:44: duplicate key \"mode\"");
	expect("{\"config\": {\"mode\": \"audit\", \"mode\": \"enforce\"}}",
	       "t.json:1:30: duplicate key \"mode\"");
	expect("{\"jobs\": [], \"jobs\\u0000x\": []}",
	       "t.json:1:14: key \"jobs\\u0000x\" holds a NUL character");
	/* Escaped quotes and backslashes neither end a string nor hide a key. */
	expect("{\"p\\\\\": \"\\\\\\\"\", \"p\\\\\": 1}",
	       "t.json:1:17: duplicate key \"p\\u005c\"");
	/* The first in the file, though an inner object ends before it. */
	expect("{\"jobs\": [], \"jobs\": [{\"name\": \"a\", \"name\": \"b\"}]}",
	       "t.json:1:14: duplicate key \"jobs\"");
	/* Equal keys in different objects are no duplicates. */
	ok = "{\"config\": {\"mode\": \"audit\"}, \"jobs\": [{\"name\": \"a\", \"mode\": \"audit\"},"
	     " {\"name\": \"b\", \"mode\": \"audit\", \"netdevs\": [{\"vlan\": 1}, {\"vlan\": 2}]}]}";
	if (parse(ok, &st, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(st.n_jobs, 2);
	ew_state_free(&st);
}

static void test_structure_errors(void **state)
{
	(void)state;
	expect("[]", "t.json: expected an object at the top level, got an array");
	expect("{\"job\": []}", "t.json: unknown key \"job\"");
	expect("{\"jobs\": {}}", "t.json: jobs: expected an array, got an object");
	expect("{\"config\": []}", "t.json: config: expected an object, got an array");
	expect("{\"config\": {\"mode\": \"strict\"}}",
	       "t.json: config.mode: \"strict\" is not one of enforce|audit");
	expect("{\"config\": {\"default\": \"deny\"}}",
	       "t.json: config: unknown key \"default\"");
	expect("{\"config\": {\"default_action\": 0}}",
	       "t.json: config.default_action: expected a string, got an integer");
	expect("{\"jobs\": [1]}", "t.json: jobs[0]: expected an object, got an integer");
	expect("{\"jobs\": [{\"name\": \"a\"}, {\"id\": 2}]}",
	       "t.json: jobs[1]: missing \"name\"");
	expect("{\"jobs\": [{\"name\": \"a\", \"foo\": 1}]}",
	       "t.json: jobs[0]: unknown key \"foo\"");
	expect("{\"jobs\": [{\"name\": \"a\", \"mode\": 1}]}",
	       "t.json: jobs[0].mode: expected a string, got an integer");
	expect("{\"jobs\": [{\"name\": \"a\", \"encrypt\": \"tls\"}]}",
	       "t.json: jobs[0].encrypt: \"tls\" is not one of none|any|macsec|ipsec");
	expect("{\"jobs\": [{\"name\": \"a b\"}]}",
	       "t.json: jobs[0].name: bad job name \"a b\": names may only contain letters, digits and _ . : @ + = -");
	expect("{\"jobs\": [{\"name\": \"a\", \"id\": 0}]}",
	       "t.json: jobs[0].id: 0 is out of range (1..4294967295)");
	expect("{\"jobs\": [{\"name\": \"a\", \"id\": 4294967296}]}",
	       "t.json: jobs[0].id: 4294967296 is out of range (1..4294967295)");
	expect("{\"jobs\": [{\"name\": \"a\", \"id\": 99999999999999999999}]}",
	       "t.json: jobs[0].id: the number is out of range (1..4294967295)");
	expect("{\"jobs\": [{\"name\": \"a\", \"id\": 1.5}]}",
	       "t.json: jobs[0].id: expected an integer, got a number with a fraction");
	expect("{\"jobs\": [{\"name\": \"a\", \"id\": \"1\"}]}",
	       "t.json: jobs[0].id: expected an integer, got a string");
	expect("{\"jobs\": [{\"name\": \"a\", \"qkey\": 2147483648}]}",
	       "t.json: jobs[0].qkey: Q_Keys with bit 31 set are privileged and refused");
	expect("{\"jobs\": [{\"name\": \"a\", \"ud\": \"on\"}]}",
	       "t.json: jobs[0].ud: expected true or false, got a string");
	expect("{\"jobs\": [{\"name\": \"a\", \"dc\": 1}]}",
	       "t.json: jobs[0].dc: expected true or false, got an integer");
	expect("{\"jobs\": [{\"name\": \"a\", \"ud\": null}]}",
	       "t.json: jobs[0].ud: expected true or false, got null");
	expect("{\"jobs\": [{\"name\": \"a\", \"qkey\": -1}]}",
	       "t.json: jobs[0].qkey: -1 is out of range (0..2147483647)");
	expect("{\"jobs\": [{\"name\": \"a\", \"qkey\": \"x\"}]}",
	       "t.json: jobs[0].qkey: bad qkey \"x\": a Q_Key is a number or \"auto\"");
	expect("{\"jobs\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\", "
	       "\"peers\": [\"10.0.0.1\", \"10.0.0.2\", \"lid:3\", \"fe80::1\", "
	       "\"10.0.0.0/8\", \"10.0.0.300\"]}]}",
	       "t.json: jobs[2].peers[5]: bad address \"10.0.0.300\"");
	expect("{\"jobs\": [{\"name\": \"a\", \"peers\": [\"10.0.0.1/24\"]}]}",
	       "t.json: jobs[0].peers[0]: bad address \"10.0.0.1/24\": bits are set beyond the prefix length");
	expect("{\"jobs\": [{\"name\": \"a\", \"peers\": [\"lid:0\"]}]}",
	       "t.json: jobs[0].peers[0]: bad address \"lid:0\": a LID is 1..65534 (0x1..0xfffe)");
	expect("{\"jobs\": [{\"name\": \"a\", \"peers\": [17]}]}",
	       "t.json: jobs[0].peers[0]: expected a string, got an integer");
	expect("{\"jobs\": [{\"name\": \"a\", \"peers\": \"10.0.0.1\"}]}",
	       "t.json: jobs[0].peers: expected an array, got a string");
	expect("{\"jobs\": [{\"name\": \"a\", \"netdevs\": [{\"vlan\": 4095}]}]}",
	       "t.json: jobs[0].netdevs[0].vlan: 4095 is out of range (1..4094)");
	expect("{\"jobs\": [{\"name\": \"a\", \"netdevs\": [{\"vlan\": 1, \"ifname\": \"x\"}]}]}",
	       "t.json: jobs[0].netdevs[0]: expected exactly one of \"ifname\", \"ifindex\", \"vlan\", \"vrf\"");
	expect("{\"jobs\": [{\"name\": \"a\", \"netdevs\": [{}]}]}",
	       "t.json: jobs[0].netdevs[0]: expected exactly one of \"ifname\", \"ifindex\", \"vlan\", \"vrf\"");
	expect("{\"jobs\": [{\"name\": \"a\", \"netdevs\": [{\"dev\": \"x\"}]}]}",
	       "t.json: jobs[0].netdevs[0]: unknown key \"dev\"");
	expect("{\"jobs\": [{\"name\": \"a\", \"netdevs\": [{\"ifname\": \"\"}]}]}",
	       "t.json: jobs[0].netdevs[0]: bad interface name \"\"");
	expect("{\"jobs\": [{\"name\": \"a\", \"netdevs\": [{\"vrf\": true}]}]}",
	       "t.json: jobs[0].netdevs[0].vrf: expected a string (VRF name) or an integer (ifindex), got a boolean");
	expect("{\"jobs\": [{\"name\": \"a\", \"pkeys\": [\"0x8000\"]}]}",
	       "t.json: jobs[0].pkeys[0]: bad pkey \"0x8000\": partition 0 (0x0000, 0x8000) is invalid");
	expect("{\"jobs\": [{\"name\": \"a\", \"pkeys\": [0]}]}",
	       "t.json: jobs[0].pkeys[0]: bad pkey 0: partition 0 is invalid");
	expect("{\"jobs\": [{\"name\": \"a\", \"pkeys\": [null]}]}",
	       "t.json: jobs[0].pkeys[0]: expected a string or an integer, got null");
	expect("{\"jobs\": [{\"name\": \"a\", \"cgroups\": [\"\"]}]}",
	       "t.json: jobs[0].cgroups[0]: bad cgroup path");
	/* C sees a string up to its first NUL: every string must end there. */
	expect("{\"jobs\": [{\"name\": \"a\", \"cgroups\": [\"a\\u0000b\"]}]}",
	       "t.json: jobs[0].cgroups[0]: the string holds a NUL character (\\u0000)");
	expect("{\"jobs\": [{\"name\": \"a\\u0000evil\"}]}",
	       "t.json: jobs[0].name: the string holds a NUL character (\\u0000)");
	expect("{\"jobs\": [{\"name\": \"a\", \"netdevs\": [{\"ifname\": \"lo\\u0000xx\"}]}]}",
	       "t.json: jobs[0].netdevs[0].ifname: the string holds a NUL character (\\u0000)");
	expect("{\"jobs\": [{\"name\": \"a\", \"netdevs\": [{\"vrf\": \"lo\\u0000xx\"}]}]}",
	       "t.json: jobs[0].netdevs[0].vrf: the string holds a NUL character (\\u0000)");
	expect("{\"jobs\": [{\"name\": \"a\", \"mode\": \"audit\\u0000x\"}]}",
	       "t.json: jobs[0].mode: the string holds a NUL character (\\u0000)");
	expect("{\"jobs\": [{\"name\": \"a\", \"peers\": [\"10.0.0.1\\u0000, 0.0.0.0/0\"]}]}",
	       "t.json: jobs[0].peers[0]: the string holds a NUL character (\\u0000)");
	expect("{\"jobs\": [{\"name\": \"a\", \"pkeys\": [\"0x8001\\u0000\"]}]}",
	       "t.json: jobs[0].pkeys[0]: the string holds a NUL character (\\u0000)");
	expect("{\"jobs\": [{\"name\": \"a\", \"qkey\": \"5\\u0000\"}]}",
	       "t.json: jobs[0].qkey: the string holds a NUL character (\\u0000)");
	expect("{\"jobs\": [{\"name\": \"a\", \"psn\": \"keyed\", \"psn_keyfile\": \"/k\\u0000x\"}]}",
	       "t.json: jobs[0].psn_keyfile: the string holds a NUL character (\\u0000)");
	expect("{\"config\": {\"version\": \"1\\u0000\"}}",
	       "t.json: config.version: the string holds a NUL character (\\u0000)");
	/* The kernel refuses a key with application-chosen PSNs. */
	expect("{\"jobs\": [{\"name\": \"a\", \"psn_key\": \"00112233445566778899aabbccddeeff\"}]}",
	       "t.json: jobs[0].psn_key: a PSN key needs \"psn\": \"keyed\"");
	expect("{\"jobs\": [{\"name\": \"a\", \"psn_keyfile\": \"/k\", \"psn\": \"app\"}]}",
	       "t.json: jobs[0].psn_keyfile: a PSN key needs \"psn\": \"keyed\"");
	expect("{\"jobs\": [{\"name\": \"a\", \"psn\": \"keyed\", \"psn_keyfile\": \"/k\"}]}",
	       "t.json: jobs[0].psn_keyfile: needs \"psn_run\": which run of the job (the same on every node); a key of the name alone comes back with the name");
	expect("{\"jobs\": [{\"name\": \"a\", \"psn\": \"keyed\", \"psn_run\": \"1\", \"psn_key\": \"00112233445566778899aabbccddeeff\"}]}",
	       "t.json: jobs[0].psn_run: a run is for \"psn_keyfile\", which derives the job's PSN key for it, not for a \"psn_key\"");
	expect("{\"jobs\": [{\"name\": \"a\", \"psn\": \"keyed\", \"psn_keyfile\": \"/k\", \"psn_run\": \"a b\"}]}",
	       "t.json: jobs[0].psn_run: not a run of a job (1..64 of 0-9 A-Z a-z . _ : -)");
	expect("{\"jobs\": [{\"name\": \"a\", \"psn\": \"keyed\", \"psn_keyfile\": \"/k\", \"psn_run\": 5}]}",
	       "t.json: jobs[0].psn_run: expected a string, got an integer");
	expect("{\"jobs\": [{\"name\": \"a\"}, {\"name\": \"a\"}]}",
	       "t.json: jobs[1]: duplicate job name \"a\" (also jobs[0])");
	expect("{\"jobs\": [{\"name\": \"a\", \"id\": 5}, {\"name\": \"b\", \"id\": 5}]}",
	       "t.json: jobs[1]: duplicate job id 5 (also jobs[0])");
	/* Duplicates are found by sorting: still the first in file order. */
	expect("{\"jobs\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"b\"}, {\"name\": \"a\"}]}",
	       "t.json: jobs[2]: duplicate job name \"b\" (also jobs[1])");
	expect("{\"jobs\": [{\"name\": \"c\", \"id\": 9}, {\"name\": \"a\", \"id\": 7},"
	       " {\"name\": \"b\", \"id\": 9}, {\"name\": \"d\", \"id\": 7}, {\"name\": \"e\", \"id\": 9}]}",
	       "t.json: jobs[2]: duplicate job id 9 (also jobs[0])");
}

static void test_resolve(void **state)
{
	struct ew_state st;
	char err[1024];

	(void)state;
	assert_int_equal(parse("{\"jobs\": [{\"name\": \"a\", \"cgroups\": [\"/x\", "
			       "\"system.slice//job_42/\", \"/x\"], \"netdevs\": "
			       "[{\"ifname\": \"lo\"}, {\"vrf\": \"lo\"}, {\"vlan\": 3}]}]}",
			       &st, err, sizeof(err)), 0);
	assert_int_equal(ew_policy_resolve(&st, "t.json", err, sizeof(err)), 0);
	assert_int_equal(st.jobs[0].n_cgroups, 2);
	assert_string_equal(st.jobs[0].cgroups[0].path, "/system.slice/job_42");
	assert_string_equal(st.jobs[0].cgroups[1].path, "/x");
	assert_int_equal(st.jobs[0].netdevs[0].value, if_nametoindex("lo"));
	assert_int_equal(st.jobs[0].netdevs[2].kind, EW_NETDEV_VRF);
	ew_state_free(&st);

	assert_int_equal(parse("{\"jobs\": [{\"name\": \"a\", \"cgroups\": [\"/x\", \"/nope\"]}]}",
			       &st, err, sizeof(err)), 0);
	assert_int_not_equal(ew_policy_resolve(&st, "t.json", err, sizeof(err)), 0);
	assert_string_equal(err, "t.json: jobs[0].cgroups[1]: cgroup \"/nope\": no such cgroup");
	ew_state_free(&st);

	assert_int_equal(parse("{\"jobs\": [{\"name\": \"a\", \"cgroups\": [\"/x\"]}, "
			       "{\"name\": \"b\", \"cgroups\": [\"/y\", \"x\"]}]}",
			       &st, err, sizeof(err)), 0);
	assert_int_not_equal(ew_policy_resolve(&st, "t.json", err, sizeof(err)), 0);
	assert_string_equal(err, "t.json: jobs[1].cgroups[1]: cgroup /x is also bound to job \"a\" (jobs[0])");
	ew_state_free(&st);

	assert_int_equal(parse("{\"jobs\": [{\"name\": \"a\", \"netdevs\": [{\"ifname\": \"nonexistent0\"}]}]}",
			       &st, err, sizeof(err)), 0);
	assert_int_not_equal(ew_policy_resolve(&st, "t.json", err, sizeof(err)), 0);
	assert_string_equal(err, "t.json: jobs[0].netdevs[0]: no such network interface \"nonexistent0\"");
	ew_state_free(&st);
}

/*
 * psn_key_check: the key the file gives must be the one the check value
 * names (ew_kdf.py psn-key-check); without a key in the file it is kept
 * for the node's job, not compared.
 */
static void test_psn_key_check(void **state)
{
	char keyfile[] = "/tmp/ew-policy-test-key.XXXXXX", err[1024], text[512];
	struct ew_state st;
	int fd;

	(void)state;
	assert_int_equal(parse("{\"jobs\": [{\"name\": \"a\", \"psn\": \"keyed\", "
			       "\"psn_key\": \"000102030405060708090a0b0c0d0e0f\", "
			       "\"psn_key_check\": 4213061868}]}", &st, err, sizeof(err)), 0);
	assert_int_equal(ew_policy_resolve(&st, "t.json", err, sizeof(err)), 0);
	ew_state_free(&st);
	assert_int_equal(parse("{\"jobs\": [{\"name\": \"a\", \"psn\": \"keyed\", "
			       "\"psn_key\": \"000102030405060708090a0b0c0d0e0f\", "
			       "\"psn_key_check\": 4213061869}]}", &st, err, sizeof(err)), 0);
	assert_int_not_equal(ew_policy_resolve(&st, "t.json", err, sizeof(err)), 0);
	assert_string_equal(err, "t.json: jobs[0].psn_key_check: 0xfb1e38ed, but psn_key is 0xfb1e38ec's");
	ew_state_free(&st);
	/* No key in the file: the node's job keeps its own. */
	assert_int_equal(parse("{\"jobs\": [{\"name\": \"a\", \"psn\": \"keyed\", "
			       "\"psn_run\": \"7.0\", \"psn_key_check\": 1}]}",
			       &st, err, sizeof(err)), 0);
	assert_int_equal(ew_policy_resolve(&st, "t.json", err, sizeof(err)), 0);
	ew_state_free(&st);
	expect("{\"jobs\": [{\"name\": \"a\", \"psn_key_check\": \"0x1\"}]}",
	       "t.json: jobs[0].psn_key_check: expected an integer, got a string");
	expect("{\"jobs\": [{\"name\": \"a\", \"psn_key_check\": 4294967296}]}",
	       "t.json: jobs[0].psn_key_check: 4294967296 is out of range (0..4294967295)");

	/* Derived from a key file: 0x66eb1d91 for job a, run 7.0. */
	fd = mkstemp(keyfile);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "1111111111111111111111111111111111111111111111111111111111111111\n", 65), 65);
	close(fd);
	snprintf(text, sizeof(text), "{\"jobs\": [{\"name\": \"a\", \"psn\": \"keyed\", "
		 "\"psn_keyfile\": \"%s\", \"psn_run\": \"7.0\", \"psn_key_check\": %u}]}",
		 keyfile, 0x66eb1d91U);
	assert_int_equal(parse(text, &st, err, sizeof(err)), 0);
	assert_int_equal(ew_policy_resolve(&st, "t.json", err, sizeof(err)), 0);
	ew_state_free(&st);
	snprintf(text, sizeof(text), "{\"jobs\": [{\"name\": \"a\", \"psn\": \"keyed\", "
		 "\"psn_keyfile\": \"%s\", \"psn_run\": \"7.1\", \"psn_key_check\": %u}]}",
		 keyfile, 0x66eb1d91U);
	assert_int_equal(parse(text, &st, err, sizeof(err)), 0);
	assert_int_not_equal(ew_policy_resolve(&st, "t.json", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "t.json: jobs[0].psn_key_check: 0x66eb1d91, but the key "));
	assert_non_null(strstr(err, " gives for run 7.1 is 0x"));
	assert_non_null(strstr(err, "'s: the key file changed since, or the job's key came from another"));
	ew_state_free(&st);
	unlink(keyfile);
}

/* What "show -j" prints reads back as the same state. */
static void test_roundtrip(void **state)
{
	struct ew_state st = { 0 }, back;
	struct ew_peer_addr p;
	struct ew_job_desc *j;
	struct test_out out;
	const char *why;
	char err[1024];
	char *text;
	size_t i;

	(void)state;
	st.has_config = st.has_jobs = true;
	st.config.present = EW_CFG_MODE | EW_CFG_DEFAULT | EW_CFG_VERSION |
			    EW_CFG_JOB_COUNT | EW_CFG_PEER_COUNT;
	st.config.mode = EASTWEST_MODE_AUDIT;
	st.config.default_action = EASTWEST_DEFAULT_ACTION_ALLOW;
	snprintf(st.config.version, sizeof(st.config.version), "0.1.0");
	j = ew_state_add_job(&st);
	j->id = 9;
	snprintf(j->name, sizeof(j->name), "job_9");
	j->mode = EASTWEST_MODE_AUDIT;
	j->encrypt = EASTWEST_ENCRYPT_IPSEC;
	j->qkey = 0x7fffffff;
	j->present = EW_JOB_PEER_COUNT | EW_JOB_QP_COUNT;
	j->peer_count = 5;
	ew_job_add_cgroup(j, "/system.slice/job_42", 1234);
	ew_job_add_netdev(j, EW_NETDEV_IFINDEX, 1, "lo");
	ew_job_add_netdev(j, EW_NETDEV_VLAN, 4094, NULL);
	ew_job_add_netdev(j, EW_NETDEV_VRF, 77, NULL);
	ew_job_add_pkey(j, 0xffff);
	ew_job_add_pkey(j, 0x0001);
	for (i = 0; i < 5; i++) {
		static const char *const peers[] = {
			"192.0.2.0/24", "192.0.2.2", "fe80::1", "::/0", "lid:5",
		};

		assert_int_equal(ew_peer_parse(peers[i], &p, &why), 0);
		ew_peers_add(&j->peers, &p);
	}
	ew_job_normalize(j);

	ew_opts.json = true;
	ew_output_file(test_out_open(&out));
	ew_print_state(&st);
	ew_output_file(NULL);
	ew_opts.json = false;
	text = test_out_close(&out);
	assert_non_null(strstr(text, "\"peers\":[\"::/0\",\"192.0.2.0/24\",\"192.0.2.2/32\",\"fe80::1/128\",\"lid:5\"]"));
	assert_non_null(strstr(text, "\"netdevs\":[{\"ifname\":\"lo\"},{\"vlan\":4094},{\"vrf\":77}]"));
	assert_non_null(strstr(text, "\"pkeys\":[\"0x0001\",\"0xffff\"]"));
	assert_non_null(strstr(text, "\"cgroups\":[\"/system.slice/job_42\"]"));

	if (parse(text, &back, err, sizeof(err)))
		fail_msg("%s\n%s", err, text);
	assert_int_equal(ew_policy_resolve(&back, "t.json", err, sizeof(err)), 0);
	assert_int_equal(back.config.mode, st.config.mode);
	assert_int_equal(back.config.default_action, st.config.default_action);
	assert_int_equal(back.n_jobs, 1);
	assert_int_equal(back.jobs[0].id, 9);
	assert_string_equal(back.jobs[0].name, "job_9");
	assert_int_equal(back.jobs[0].mode, j->mode);
	assert_int_equal(back.jobs[0].encrypt, j->encrypt);
	assert_int_equal(back.jobs[0].qkey, j->qkey);
	assert_int_equal(back.jobs[0].n_cgroups, 1);
	assert_string_equal(back.jobs[0].cgroups[0].path, "/system.slice/job_42");
	assert_int_equal(back.jobs[0].n_netdevs, 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(ew_netdev_cmp(&back.jobs[0].netdevs[i], &j->netdevs[i]), 0);
	assert_int_equal(back.jobs[0].n_pkeys, 2);
	assert_memory_equal(back.jobs[0].pkeys, j->pkeys, 2 * sizeof(uint16_t));
	assert_int_equal(back.jobs[0].peers.n, j->peers.n);
	assert_memory_equal(back.jobs[0].peers.v, j->peers.v, j->peers.n * sizeof(p));
	free(text);
	ew_state_free(&back);
	ew_state_free(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_defaults_and_sections),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_duplicate_keys),
		cmocka_unit_test(test_structure_errors),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_psn_key_check),
		cmocka_unit_test(test_roundtrip),
	};

	return cmocka_run_group_tests_name("policy", tests, test_cgroup_setup,
					   test_cgroup_teardown);
}
