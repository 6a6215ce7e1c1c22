// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of oci-hook's pure parts: the OCI state, job names, template
 * names and contents, /proc/PID/cgroup, claims, and the trust checks on
 * template files (in a temporary directory); and of the container's
 * address, createRuntime and poststop against a sysfs copy, a stand-in
 * "ip" and a stand-in eastwestctl.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "addr.h"
#include "cgroup.h"
#include "claim.h"
#include "hook.h"
#include "ops.h"
#include "state.h"
#include "template.h"

static int parse_state(const char *text, struct ewoci_state *st, char *why)
{
	return ewoci_state_parse(text, strlen(text), st, why, 160);
}

static void test_state_create(void **unused)
{
	struct ewoci_state st;
	char why[160];

	(void)unused;
	assert_int_equal(parse_state(
		"{\"ociVersion\":\"1.0.2-dev\",\"id\":\"c1\",\"status\":\"creating\","
		"\"pid\":229,\"bundle\":\"/b\",\"annotations\":{\"eastwest.io/job\":\"tmpl1\","
		"\"other\":\"x\"}}\n", &st, why), 0);
	assert_string_equal(st.id, "c1");
	assert_int_equal(st.pid, 229);
	assert_string_equal(st.template, "tmpl1");
	ewoci_state_free(&st);
}

static void test_state_poststop(void **unused)
{
	struct ewoci_state st;
	char why[160];

	(void)unused;
	/* runc's poststop state: no pid; no annotations at all is fine too. */
	assert_int_equal(parse_state("{\"id\":\"abc_1.2+3-4\",\"status\":\"stopped\"}", &st, why), 0);
	assert_string_equal(st.id, "abc_1.2+3-4");
	assert_int_equal(st.pid, 0);
	assert_null(st.template);
	ewoci_state_free(&st);
}

static void test_state_bad(void **unused)
{
	static const char *const bad[] = {
		"",
		"not json",
		"{\"id\":\"c1\"",
		"[\"id\"]",
		"{\"id\":\"c1\"} trailing",
		"{\"pid\":1}",
		"{\"id\":7}",
		"{\"id\":\"\"}",
		"{\"id\":\"..\"}",
		"{\"id\":\"a/b\"}",
		"{\"id\":\"a b\"}",
		"{\"id\":\"c1\",\"pid\":-1}",
		"{\"id\":\"c1\",\"pid\":\"12\"}",
		"{\"id\":\"c1\",\"pid\":12345678901}",
		"{\"id\":\"c1\",\"annotations\":[]}",
		"{\"id\":\"c1\",\"annotations\":{\"eastwest.io/job\":1}}",
		NULL,
	};
	struct ewoci_state st;
	char why[160];
	size_t i;

	(void)unused;
	for (i = 0; bad[i]; i++) {
		why[0] = '\0';
		if (parse_state(bad[i], &st, why) != -EINVAL)
			fail_msg("state accepted: %s", bad[i]);
		assert_true(why[0] != '\0');
		assert_null(st.id);
	}
}

static void test_job_name(void **unused)
{
	char name[64];

	(void)unused;
	assert_int_equal(ewoci_job_name("c1", name, sizeof(name)), 0);
	assert_string_equal(name, "oci-c1");
	assert_int_equal(ewoci_job_name(
		"3f4e1c2a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f",
		name, sizeof(name)), 0);
	assert_string_equal(name, "oci-3f4e1c2a9b8d");
	assert_int_equal(ewoci_job_name("c1", name, 4), -ENOSPC);
}

static void test_template_names(void **unused)
{
	static const char *const good[] = { "a", "team-a", "A_1.v2", "0", NULL };
	static const char *const bad[] = {
		"", ".", "..", ".hidden", "-x", "_x", "a/b", "../x", "a b", "a\nb",
		"x12345678901234567890123456789012345678901234567890123456789012345",
		NULL,
	};
	const char *why;
	size_t i;

	(void)unused;
	for (i = 0; good[i]; i++)
		assert_int_equal(ewoci_template_name_check(good[i], &why), 0);
	for (i = 0; bad[i]; i++)
		if (!ewoci_template_name_check(bad[i], &why))
			fail_msg("template name accepted: \"%s\"", bad[i]);
}

/* The words of a template as one string, or "ERR: why". */
static char *words_of(const char *text)
{
	struct ew_strv w = { 0 };
	char why[256], *out;
	size_t i, n = 0;

	if (ewoci_template_words(text, strlen(text), &w, why, sizeof(why))) {
		ew_strv_free(&w);
		if (asprintf(&out, "ERR: %s", why) < 0)
			abort();
		return out;
	}
	out = calloc(1, 4096);
	for (i = 0; i < w.n; i++)
		n += (size_t)snprintf(out + n, 4096 - n, "%s%s", i ? " " : "", w.v[i]);
	ew_strv_free(&w);
	return out;
}

static void expect_words(const char *text, const char *want)
{
	char *got = words_of(text);

	if (strcmp(got, want))
		fail_msg("template %s\n  gave: %s\n  want: %s", text, got, want);
	free(got);
}

static void expect_refused(const char *text, const char *reason)
{
	char *got = words_of(text);

	if (strncmp(got, "ERR: ", 5) || !strstr(got, reason))
		fail_msg("template %s\n  gave: %s\n  want an error with: %s", text, got, reason);
	free(got);
}

static void test_template_words(void **unused)
{
	(void)unused;
	expect_words("{}", "");
	/* Words come in a fixed order, whatever the key order. */
	expect_words("{\"$schema\":\"x\",\"description\":\"team A\","
		     "\"pkeys\":[\"0x8001\",32770],\"netdevs\":[{\"vlan\":100},"
		     "{\"ifname\":\"ens1f0.100\"},{\"vrf\":\"vrf-a\"}],"
		     "\"peers\":[\"10.100.0.0/24\",\"lid:17\",\"2001:db8::/48\"],"
		     "\"qkey\":4660,\"encrypt\":\"macsec\",\"mode\":\"audit\"}",
		     "mode audit encrypt macsec qkey 4660 peer 10.100.0.0/24 peer lid:17 "
		     "peer 2001:db8::/48 vlan 100 netdev ens1f0.100 vrf vrf-a "
		     "pkey 0x8001 pkey 0x8002");
	expect_words("{\"qkey\":\"auto\"}", "qkey auto");
	expect_words("{\"qkey\":\"0x1234\"}", "qkey 0x1234");
	expect_words("{\"dc\":false,\"peers\":[\"10.0.0.1\"],\"ud\":true}",
		     "ud on dc off peer 10.0.0.1");
	expect_words("{\"peers\":[]}", "");
}

static void test_template_refused(void **unused)
{
	(void)unused;
	/* What a container's job is bound to is the hook's business, not the template's. */
	expect_refused("{\"cgroups\":[\"/\"]}", "set for each container");
	expect_refused("{\"name\":\"x\"}", "set for each container");
	expect_refused("{\"id\":3}", "set for each container");
	expect_refused("{\"peer\":[\"10.0.0.1\"]}", "unknown key \"peer\"");
	expect_refused("{\"qp_count\":0}", "unknown key");
	expect_refused("[]", "not a JSON object");
	expect_refused("{} {}", "text after");
	expect_refused("{", "not one JSON object");
	expect_refused("{\"mode\":\"enforce\",\"mode\":\"audit\"}", "duplicate key \"mode\"");
	expect_refused("{\"mode\":\"permissive\"}", "template.mode: \"permissive\" is not one of enforce|audit");
	expect_refused("{\"encrypt\":true}", "template.encrypt: expected a string, got a boolean");
	expect_refused("{\"ud\":\"on\"}", "template.ud: expected true or false");
	expect_refused("{\"dc\":1}", "template.dc: expected true or false");
	expect_refused("{\"qkey\":-1}", "template.qkey: -1 is out of range (0..2147483647)");
	expect_refused("{\"qkey\":2147483648}", "template.qkey: Q_Keys with bit 31 set");
	expect_refused("{\"qkey\":\"1 2\"}", "template.qkey: bad qkey \"1 2\"");
	expect_refused("{\"peers\":\"10.0.0.1\"}", "template.peers: expected an array");
	expect_refused("{\"peers\":[\"10.0.0.1 cgroup /\"]}", "template.peers[0]: bad address");
	expect_refused("{\"peers\":[\"\"]}", "template.peers[0]: bad address \"\"");
	expect_refused("{\"peers\":[\"10.0.0.1\",5]}", "template.peers[1]: expected a string");
	expect_refused("{\"netdevs\":[{\"ifindex\":3}]}", "template.netdevs[0]: ifindex is not allowed");
	expect_refused("{\"netdevs\":[{\"vlan\":0}]}", "template.netdevs[0].vlan: 0 is out of range (1..4094)");
	expect_refused("{\"netdevs\":[{\"vlan\":4095}]}", "template.netdevs[0].vlan: 4095 is out of range (1..4094)");
	expect_refused("{\"netdevs\":[{\"vrf\":7}]}", "template.netdevs[0].vrf: expected an interface name");
	expect_refused("{\"netdevs\":[{\"ifname\":\"a-name-longer-than-15\"}]}", "template.netdevs[0]: bad interface name");
	expect_refused("{\"netdevs\":[{\"vlan\":1,\"ifname\":\"x\"}]}", "template.netdevs[0]: expected exactly one of");
	expect_refused("{\"netdevs\":[{\"mtu\":1}]}", "template.netdevs[0]: unknown key \"mtu\"");
	expect_refused("{\"pkeys\":[0]}", "template.pkeys[0]: bad pkey 0");
	expect_refused("{\"pkeys\":[{}]}", "template.pkeys[0]: expected a string or an integer");
	/* Values are checked by eastwestctl's policy parser when the template is
	 * read, not first when a container starts. */
	expect_refused("{\"peers\":[\"10.0.0.300\"]}", "template.peers[0]: bad address \"10.0.0.300\"");
	expect_refused("{\"pkeys\":[\"0x1zz\"]}", "template.pkeys[0]: bad pkey \"0x1zz\"");
	expect_refused("{\"pkeys\":[65536]}", "template.pkeys[0]: 65536 is out of range");
	expect_refused("{\"qkey\":\"0x80000000\"}", "template.qkey: bad qkey \"0x80000000\"");
	expect_refused("{\"netdevs\":[{\"ifname\":\"a b\"}]}",
		       "template.netdevs[0]: bad interface name \"a b\"");
	expect_refused("{\"netdevs\":[{\"vrf\":\"\"}]}", "template.netdevs[0]: bad interface name");
	/* Keys of a policy job that are not a template's stay unknown. */
	expect_refused("{\"psn\":\"app\"}", "unknown key \"psn\"");
}

static void test_cgroup_parse(void **unused)
{
	char out[256];
	const char *why;

	(void)unused;
	assert_int_equal(ewoci_cgroup_parse("0::/ewoci/c1\n", out, sizeof(out), &why), 0);
	assert_string_equal(out, "/ewoci/c1");
	/* Hybrid hierarchy: v1 lines around the v2 one. */
	assert_int_equal(ewoci_cgroup_parse(
		"12:pids:/kubepods/x\n1:name=systemd:/kubepods/x\n"
		"0::/kubepods.slice/kubepods-pod1.slice/crio-abc.scope\n",
		out, sizeof(out), &why), 0);
	assert_string_equal(out, "/kubepods.slice/kubepods-pod1.slice/crio-abc.scope");
	assert_int_equal(ewoci_cgroup_parse("0::/a b/c", out, sizeof(out), &why), 0);
	assert_string_equal(out, "/a b/c");
	assert_int_equal(ewoci_cgroup_parse("0::/\n", out, sizeof(out), &why), -EINVAL);
	assert_non_null(strstr(why, "root cgroup"));
	assert_int_equal(ewoci_cgroup_parse("1:cpu:/x\n", out, sizeof(out), &why), -ENOENT);
	assert_int_equal(ewoci_cgroup_parse("", out, sizeof(out), &why), -ENOENT);
	assert_int_equal(ewoci_cgroup_parse("0::x\n", out, sizeof(out), &why), -EINVAL);
	assert_int_equal(ewoci_cgroup_parse("0::/abcdef\n", out, 4, &why), -EINVAL);
}

static char tmpdir[64];

static int make_tmpdir(void **unused)
{
	(void)unused;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ewoci-test.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	return chmod(tmpdir, 0755);
}

static int remove_tmpdir(void **unused)
{
	char cmd[128];

	(void)unused;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) ? -1 : 0;
}

static void test_claims(void **unused)
{
	char dir[128], owner[64], path[192];
	int fd;

	(void)unused;
	snprintf(dir, sizeof(dir), "%s/state/oci", tmpdir);
	assert_int_equal(ewoci_claim_owner(dir, "oci-c1", owner, sizeof(owner)), -ENOENT);
	assert_int_equal(ewoci_claim_take(dir, "oci-c1", "c1", owner, sizeof(owner)), 0);
	assert_int_equal(ewoci_claim_owner(dir, "oci-c1", owner, sizeof(owner)), 0);
	assert_string_equal(owner, "c1");
	/* The same name for another container: refused, and the holder named. */
	assert_int_equal(ewoci_claim_take(dir, "oci-c1", "c1x", owner, sizeof(owner)), -EEXIST);
	assert_string_equal(owner, "c1");
	assert_int_equal(ewoci_claim_drop(dir, "oci-c1"), 0);
	assert_int_equal(ewoci_claim_drop(dir, "oci-c1"), 0);
	assert_int_equal(ewoci_claim_owner(dir, "oci-c1", owner, sizeof(owner)), -ENOENT);
	/*
	 * An empty claim, as a hook killed between creating it and writing
	 * its id left it before claims were made whole: stale, replaced.
	 */
	snprintf(path, sizeof(path), "%s/oci-c3", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(ewoci_claim_take(dir, "oci-c3", "c3", owner, sizeof(owner)), 0);
	assert_int_equal(ewoci_claim_owner(dir, "oci-c3", owner, sizeof(owner)), 0);
	assert_string_equal(owner, "c3");
	assert_int_equal(ewoci_claim_drop(dir, "oci-c3"), 0);
	/*
	 * A file a hook killed before it linked its claim left, under the
	 * name this process's would have had: no claim, and no holder.
	 */
	snprintf(path, sizeof(path), "%s/oci-c4.%ld.new", dir, (long)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "c9\n", 3), 3);
	close(fd);
	snprintf(owner, sizeof(owner), "SENTINEL");
	assert_int_equal(ewoci_claim_take(dir, "oci-c4", "c4", owner, sizeof(owner)), 0);
	assert_int_equal(ewoci_claim_owner(dir, "oci-c4", owner, sizeof(owner)), 0);
	assert_string_equal(owner, "c4");
	assert_int_equal(ewoci_claim_drop(dir, "oci-c4"), 0);
	unlink(path);
	/* A state dir others can write to is not trusted. */
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(ewoci_claim_take(dir, "oci-c2", "c2", owner, sizeof(owner)), -EPERM);
	assert_int_equal(ewoci_claim_owner(dir, "oci-c2", owner, sizeof(owner)), -EPERM);
	assert_int_equal(chmod(dir, 0700), 0);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void test_template_files(void **unused)
{
	struct ew_strv w = { 0 };
	char dir[128], path[192], link[192];

	(void)unused;
	snprintf(dir, sizeof(dir), "%s/templates", tmpdir);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/good.json", dir);
	write_file(path, "{\"peers\":[\"10.0.0.0/8\"]}\n", 0644);
	assert_int_equal(ewoci_template_load(dir, "good", &w), EWOCI_OK);
	assert_int_equal(w.n, 2);
	assert_string_equal(w.v[0], "peer");
	assert_string_equal(w.v[1], "10.0.0.0/8");
	ew_strv_free(&w);

	assert_int_equal(ewoci_template_load(dir, "missing", &w), EWOCI_BAD_TEMPLATE);
	assert_int_equal(ewoci_template_load(dir, "../templates/good", &w), EWOCI_BAD_TEMPLATE);

	snprintf(path, sizeof(path), "%s/open.json", dir);
	write_file(path, "{}", 0666);
	assert_int_equal(ewoci_template_load(dir, "open", &w), EWOCI_BAD_TEMPLATE);
	chmod(path, 0664);
	assert_int_equal(ewoci_template_load(dir, "open", &w), EWOCI_BAD_TEMPLATE);
	chmod(path, 0640);
	assert_int_equal(ewoci_template_load(dir, "open", &w), EWOCI_OK);

	snprintf(link, sizeof(link), "%s/link.json", dir);
	snprintf(path, sizeof(path), "%s/good.json", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(ewoci_template_load(dir, "link", &w), EWOCI_BAD_TEMPLATE);

	snprintf(path, sizeof(path), "%s/fifo.json", dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(ewoci_template_load(dir, "fifo", &w), EWOCI_BAD_TEMPLATE);

	snprintf(path, sizeof(path), "%s/bad.json", dir);
	write_file(path, "{\"cgroups\":[\"/\"]}", 0644);
	assert_int_equal(ewoci_template_load(dir, "bad", &w), EWOCI_BAD_TEMPLATE);

	/* A directory others can write to: someone could swap the files. */
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(ewoci_template_load(dir, "good", &w), EWOCI_BAD_TEMPLATE);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(ewoci_template_load(dir, "nodir/x", &w), EWOCI_BAD_TEMPLATE);
	assert_int_equal(ewoci_template_load("/nonexistent-ewoci", "good", &w), EWOCI_BAD_TEMPLATE);
	ew_strv_free(&w);
}


/* Template "jobaddr": its words and what it sets. */
static void test_jobaddr_template(void **unused)
{
	struct ewoci_jobaddr ja = { 0 };
	struct ew_strv w = { 0 };
	char why[256], text[INET6_ADDRSTRLEN];
	const char *t;

	(void)unused;
	t = "{\"jobaddr\":{\"netdev\":\"ewv100\",\"prefix\":\"fd00:a:0:1::/64\"},\"peers\":[\"fd00:a::/48\"]}";
	assert_int_equal(ewoci_template_parse(t, strlen(t), &w, &ja, why, sizeof(why)), 0);
	/* Its netdev is the container's source netdev. */
	assert_int_equal(w.n, 4);
	assert_string_equal(w.v[0], "peer");
	assert_string_equal(w.v[2], "netdev");
	assert_string_equal(w.v[3], "ewv100");
	assert_true(ja.set);
	assert_string_equal(ja.netdev, "ewv100");
	assert_int_equal(ja.len, 64);
	inet_ntop(AF_INET6, &ja.prefix, text, sizeof(text));
	assert_string_equal(text, "fd00:a:0:1::");
	ew_strv_free(&w);

	/* "shared", or no key: the node's addresses, nothing set. */
	memset(&ja, 0, sizeof(ja));
	t = "{\"jobaddr\":\"shared\",\"netdevs\":[{\"vlan\":100}]}";
	assert_int_equal(ewoci_template_parse(t, strlen(t), &w, &ja, why, sizeof(why)), 0);
	assert_false(ja.set);
	assert_int_equal(w.n, 2);
	ew_strv_free(&w);

	expect_refused("{\"jobaddr\":\"own\"}", "\"jobaddr\" must be \"shared\" or");
	expect_refused("{\"jobaddr\":{\"netdev\":\"ewv100\"}}", "\"jobaddr\" must be");
	expect_refused("{\"jobaddr\":{\"netdev\":\"ewv100\",\"prefix\":\"fd00::/64\",\"x\":1}}",
		       "\"jobaddr\" must be");
	expect_refused("{\"jobaddr\":{\"netdev\":\"a name\",\"prefix\":\"fd00::/64\"}}",
		       "\"jobaddr\".netdev must be an interface name");
	expect_refused("{\"jobaddr\":{\"netdev\":\"ewv100\",\"prefix\":\"fd00::/81\"}}",
		       "LEN 1..80");
	expect_refused("{\"jobaddr\":{\"netdev\":\"ewv100\",\"prefix\":\"fd00::\"}}",
		       "\"jobaddr\".prefix must be IPV6/LEN");
	expect_refused("{\"jobaddr\":{\"netdev\":\"ewv100\",\"prefix\":\"10.0.0.0/8\"}}",
		       "LEN 1..80");
	expect_refused("{\"jobaddr\":{\"netdev\":\"ewv100\",\"prefix\":\"fd00::1:0:0/64\"}}",
		       "its low 48 bits are the container's");
	expect_refused("{\"jobaddr\":{\"netdev\":\"ewv100\",\"prefix\":\"fd00::/64x\"}}",
		       "LEN 1..80");
	expect_refused("{\"jobaddr\":{\"netdev\":\"ewv100\",\"prefix\":7}}",
		       "\"jobaddr\".prefix must be IPV6/LEN");
	expect_refused("{\"jobaddr\":{\"netdev\":\"ewv100\",\"prefix\":\"fd00::/64\"},\"netdevs\":[{\"vlan\":1}]}",
		       "\"netdevs\" cannot be combined with \"jobaddr\"");
}

/* The container's address: the node's prefix and the job name's 48 bits. */
static void test_jobaddr_of(void **unused)
{
	struct ewoci_jobaddr ja = { 0 };
	char why[128], text[INET6_ADDRSTRLEN], gid[64];
	struct in6_addr a;

	(void)unused;
	assert_int_equal(ewoci_jobaddr_prefix("fd00:a:0:1::/64", &ja, why, sizeof(why)), 0);
	assert_int_equal(ewoci_jobaddr_of(&ja, "3f4e1c2a9b8d0123456789abcdef", &a), 0);
	inet_ntop(AF_INET6, &a, text, sizeof(text));
	assert_string_equal(text, "fd00:a:0:1:0:3f4e:1c2a:9b8d");
	ewoci_gid_text(&a, gid, sizeof(gid));
	assert_string_equal(gid, "fd00:000a:0000:0001:0000:3f4e:1c2a:9b8d");
	assert_int_equal(ewoci_jobaddr_of(&ja, "ffffffffffff", &a), 0);
	inet_ntop(AF_INET6, &a, text, sizeof(text));
	assert_string_equal(text, "fd00:a:0:1:0:ffff:ffff:ffff");
	/*
	 * Upper case would give ids with two job names (and claims) one
	 * address: refused.
	 */
	assert_int_equal(ewoci_jobaddr_of(&ja, "FFFFFFFFFFFF", &a), -EINVAL);
	assert_int_equal(ewoci_jobaddr_of(&ja, "3f4e1c2a9B8d", &a), -EINVAL);
	/* Ids that are not 12 hex digits give no address. */
	assert_int_equal(ewoci_jobaddr_of(&ja, "3f4e1c2a9b8", &a), -EINVAL);
	assert_int_equal(ewoci_jobaddr_of(&ja, "my-container", &a), -EINVAL);
	assert_int_equal(ewoci_jobaddr_prefix("fd00::/80", &ja, why, sizeof(why)), 0);
	assert_int_equal(ewoci_jobaddr_prefix("fd00::/0", &ja, why, sizeof(why)), -EINVAL);
}

/*
 * Making and removing the address against a sysfs copy (eth0, its VLAN
 * ewv100, rxe0 on eth0 with a GID table of 8) and tests/fake-ip as "ip".
 */
static char fsys[192], fport[256], fip[192], fstate[192];

static void fake_reset(void)
{
	char path[512];
	int i;

	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "%s/gids/%d", fport, i);
		write_file(path, i < 2 ? "fe80:0000:0000:0000:0000:00ff:fe00:0001\n" :
			   "0000:0000:0000:0000:0000:0000:0000:0000\n", 0644);
		snprintf(path, sizeof(path), "%s/gid_attrs/ndevs/%d", fport, i);
		write_file(path, i < 2 ? "eth0\n" : "", 0644);
		/* RoCE v1 and v2, as on mlx5: an address takes two entries. */
		snprintf(path, sizeof(path), "%s/gid_attrs/types/%d", fport, i);
		write_file(path, i == 0 ? "IB/RoCE v1\n" : i == 1 ? "RoCE v2\n" : "", 0644);
	}
	snprintf(path, sizeof(path), "%s/addrs", fip);
	write_file(path, "", 0644);
	snprintf(path, sizeof(path), "%s/log", fip);
	write_file(path, "", 0644);
	snprintf(path, sizeof(path), "%s/fail", fip);
	unlink(path);
	snprintf(path, sizeof(path), "%s/nogid", fip);
	unlink(path);
	for (i = 0; i < 6; i++) {
		static const char *const ctl[] = {
			"faildel", "ctl.log", "ctl-add", "ctl-add-killed", "ctl-jobs", "racer"
		};

		snprintf(path, sizeof(path), "%s/%s", fip, ctl[i]);
		unlink(path);
	}
}

static bool fake_has(const char *name, const char *text)
{
	char path[512], buf[4096];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fip, name);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strstr(buf, text) != NULL;
}

static int gids_with(const char *gid)
{
	char path[512], buf[64];
	int i, n = 0;
	FILE *f;

	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "%s/gids/%d", fport, i);
		f = fopen(path, "r");
		if (f && fgets(buf, sizeof(buf), f) && !strncmp(buf, gid, strlen(gid)))
			n++;
		if (f)
			fclose(f);
	}
	return n;
}

/* Is there an address record of job @job in the state dir? */
static bool record_exists(const char *job)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s" EWOCI_ADDR_SUFFIX, fstate, job);
	return !access(path, F_OK);
}

/* Nothing of the container's address is left: no address, GID or record. */
static void assert_nothing_left(void)
{
	assert_false(fake_has("addrs", "fd00"));
	assert_int_equal(gids_with("fd00"), 0);
	assert_false(record_exists("oci-3f4e1c2a9b8d"));
}

static void fake_file(const char *name, const char *text);

static char fipdir[256], old_path[4096];

/*
 * The sysfs copy, "ip" and eastwestctl (tests/fake-ip; a script that logs
 * its arguments to FAKE_IP/ctl.log, exits as FAKE_IP/ctl-add says at "job
 * add", is killed there if FAKE_IP/ctl-add-killed exists, and lists the
 * jobs of FAKE_IP/ctl-jobs) in the environment; made at the first call.
 */
static void fake_env(void)
{
	char path[512], cwd[256], bin[320], newpath[sizeof(fipdir) + sizeof(old_path)];
	int i;

	if (fipdir[0]) {
		snprintf(newpath, sizeof(newpath), "%s:%s", fipdir, old_path);
		setenv("PATH", newpath, 1);
		setenv("EW_SYSFS", fsys, 1);
		return;
	}
	snprintf(old_path, sizeof(old_path), "%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(fsys, sizeof(fsys), "%s/a/sys", tmpdir);
	snprintf(fport, sizeof(fport), "%s/class/infiniband/rxe0/ports/1", fsys);
	snprintf(fip, sizeof(fip), "%s/a/ip", tmpdir);
	snprintf(fstate, sizeof(fstate), "%s/a/state", tmpdir);
	snprintf(fipdir, sizeof(fipdir), "%s/a/bin", tmpdir);
	const char *dirs[] = { "a", "sys", "sys/class", "sys/class/net", "sys/class/net/eth0",
			       "sys/class/net/ewv100", "sys/class/net/ewv100/lower_eth0",
			       "sys/class/infiniband", "sys/class/infiniband/rxe0",
			       "sys/class/infiniband/rxe0/ports", "sys/class/infiniband/rxe0/ports/1",
			       "sys/class/infiniband/rxe0/ports/1/gids",
			       "sys/class/infiniband/rxe0/ports/1/gid_attrs",
			       "sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs",
			       "sys/class/infiniband/rxe0/ports/1/gid_attrs/types",
			       "ip", "state", "bin" };
	for (i = 0; i < (int)(sizeof(dirs) / sizeof(dirs[0])); i++) {
		snprintf(path, sizeof(path), "%s/%s%s", tmpdir, i ? "a/" : "", dirs[i]);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	snprintf(path, sizeof(path), "%s/tests/fake-ip", cwd);
	snprintf(bin, sizeof(bin), "%s/ip", fipdir);
	assert_int_equal(symlink(path, bin), 0);
	snprintf(bin, sizeof(bin), "%s/eastwestctl", fipdir);
	write_file(bin, "#!/bin/sh\n"
		   "echo \"$*\" >>\"$FAKE_IP/ctl.log\"\n"
		   "case \"$*\" in\n"
		   "\"-j job show\") cat \"$FAKE_IP/ctl-jobs\" 2>/dev/null || echo '[]' ;;\n"
		   "\"job add \"*)\n"
		   "\t[ ! -f \"$FAKE_IP/ctl-add-killed\" ] || kill -9 $$\n"
		   "\t[ ! -f \"$FAKE_IP/ctl-add\" ] || exit \"$(cat \"$FAKE_IP/ctl-add\")\" ;;\n"
		   "esac\n"
		   "exit 0\n", 0755);
	setenv("EW_CTL", bin, 1);
	setenv("EW_GID_TIMEOUT", "1", 1);
	setenv("FAKE_IP", fip, 1);
	setenv("FAKE_IP_PORT", fport, 1);
	fake_env();
}

static void fake_env_end(void)
{
	setenv("PATH", old_path, 1);
	unsetenv("EW_SYSFS");
}

static void test_jobaddr_updown(void **unused)
{
	const char *id = "3f4e1c2a9b8d0123456789abcdef";
	const char *gid = "fd00:000a:0000:0001:0000:3f4e:1c2a:9b8d";
	struct ewoci_jobaddr ja = { .set = true, .netdev = "ewv100" };
	char why[128], path[512];
	int i;

	(void)unused;
	fake_env();
	assert_int_equal(ewoci_jobaddr_prefix("fd00:a:0:1::/64", &ja, why, sizeof(why)), 0);

	/* Made: on ewv100, both GIDs in the table, recorded; removed again. */
	fake_reset();
	assert_int_equal(ewoci_jobaddr_up(&ja, fstate, "oci-3f4e1c2a9b8d", id), EWOCI_OK);
	assert_true(fake_has("addrs", "ewv100 fd00:a:0:1:0:3f4e:1c2a:9b8d/64"));
	assert_true(fake_has("log", "ip -6 addr add fd00:a:0:1:0:3f4e:1c2a:9b8d/64 dev ewv100 nodad"));
	assert_int_equal(gids_with(gid), 2);
	assert_true(record_exists("oci-3f4e1c2a9b8d"));
	assert_int_equal(ewoci_jobaddr_down(fstate, "oci-3f4e1c2a9b8d"), EWOCI_OK);
	assert_nothing_left();
	/* Again: nothing to do. */
	assert_int_equal(ewoci_jobaddr_down(fstate, "oci-3f4e1c2a9b8d"), EWOCI_OK);

	/* The address is already on the node. */
	fake_reset();
	snprintf(path, sizeof(path), "%s/addrs", fip);
	write_file(path, "eth0 fd00:a:0:1:0:3f4e:1c2a:9b8d/64\n", 0644);
	assert_int_equal(ewoci_jobaddr_up(&ja, fstate, "oci-3f4e1c2a9b8d", id), EWOCI_ADDR);
	assert_false(fake_has("log", "addr add"));
	write_file(path, "", 0644);
	assert_nothing_left();

	/* A full GID table (7 of 8). */
	fake_reset();
	for (i = 2; i < 7; i++) {
		snprintf(path, sizeof(path), "%s/gids/%d", fport, i);
		write_file(path, "fe80:0000:0000:0000:0000:0000:0000:0009\n", 0644);
	}
	assert_int_equal(ewoci_jobaddr_up(&ja, fstate, "oci-3f4e1c2a9b8d", id), EWOCI_ADDR);
	assert_false(fake_has("log", "addr add"));
	/* With RoCE v2 GIDs only (rxe) one free entry is room. */
	snprintf(path, sizeof(path), "%s/gid_attrs/types/0", fport);
	write_file(path, "RoCE v2\n", 0644);
	assert_int_equal(ewoci_jobaddr_up(&ja, fstate, "oci-3f4e1c2a9b8d", id), EWOCI_OK);
	assert_int_equal(gids_with(gid), 1);
	assert_int_equal(ewoci_jobaddr_down(fstate, "oci-3f4e1c2a9b8d"), EWOCI_OK);
	fake_reset();
	assert_nothing_left();

	/* The netdev is missing; no RDMA port below the netdev. */
	snprintf(ja.netdev, sizeof(ja.netdev), "ewv999");
	assert_int_equal(ewoci_jobaddr_up(&ja, fstate, "oci-3f4e1c2a9b8d", id), EWOCI_ADDR);
	assert_nothing_left();
	snprintf(path, sizeof(path), "%s/class/net/lonely", fsys);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(ja.netdev, sizeof(ja.netdev), "lonely");
	assert_int_equal(ewoci_jobaddr_up(&ja, fstate, "oci-3f4e1c2a9b8d", id), EWOCI_ADDR);
	assert_nothing_left();
	snprintf(ja.netdev, sizeof(ja.netdev), "ewv100");

	/* ip refuses it; its GID never appears: the record goes too. */
	snprintf(path, sizeof(path), "%s/fail", fip);
	write_file(path, "RTNETLINK answers: Permission denied\n", 0644);
	assert_int_equal(ewoci_jobaddr_up(&ja, fstate, "oci-3f4e1c2a9b8d", id), EWOCI_ADDR);
	assert_nothing_left();
	fake_reset();
	snprintf(path, sizeof(path), "%s/nogid", fip);
	write_file(path, "", 0644);
	assert_int_equal(ewoci_jobaddr_up(&ja, fstate, "oci-3f4e1c2a9b8d", id), EWOCI_ADDR);
	assert_nothing_left();
	fake_reset();

	/* An id that is not hex, or not lower case. */
	assert_int_equal(ewoci_jobaddr_up(&ja, fstate, "oci-my-container", "my-container"), EWOCI_ADDR);
	assert_nothing_left();
	assert_int_equal(ewoci_jobaddr_up(&ja, fstate, "oci-3F4E1C2A9B8D", "3F4E1C2A9B8D0123"), EWOCI_ADDR);
	assert_false(fake_has("log", "addr add"));
	assert_nothing_left();

	/*
	 * Another hook adds the same address between the check and ip's add,
	 * which fails with "File exists": that address is not this hook's,
	 * it stays; only the record goes.
	 */
	fake_file("racer", "");
	assert_int_equal(ewoci_jobaddr_up(&ja, fstate, "oci-3f4e1c2a9b8d", id), EWOCI_ADDR);
	assert_true(fake_has("log", "ip -6 addr add fd00:a:0:1:0:3f4e:1c2a:9b8d/64"));
	assert_false(fake_has("log", "addr del"));
	assert_true(fake_has("addrs", "ewv100 fd00:a:0:1:0:3f4e:1c2a:9b8d/64"));
	assert_false(record_exists("oci-3f4e1c2a9b8d"));
	fake_reset();
	fake_env_end();
}

/*
 * createRuntime's cgroup checks need a runtime's fresh cgroup: the tests
 * link these in their place (-Wl,--wrap).
 */
int __wrap_ewoci_cgroup_of_pid(int pid, char *out, size_t len);
int __wrap_ewoci_cgroup_check_fresh(const char *path, int pid);

int __wrap_ewoci_cgroup_of_pid(int pid, char *out, size_t len)
{
	(void)pid;
	snprintf(out, len, "/test.slice/c1");
	return EWOCI_OK;
}

int __wrap_ewoci_cgroup_check_fresh(const char *path, int pid)
{
	(void)path;
	(void)pid;
	return EWOCI_OK;
}

#define CID	"3f4e1c2a9b8d0123456789abcdef"
#define CJOB	"oci-3f4e1c2a9b8d"

/* Run a stage (createRuntime: @create) with the OCI state of container @id. */
static int stage_of(bool create, const char *id)
{
	struct ewoci_opts o = { .state_dir = fstate };
	char path[512], tdir[192];
	int ret;

	snprintf(tdir, sizeof(tdir), "%s/a/templates", tmpdir);
	o.templates = tdir;
	snprintf(path, sizeof(path), "%s/a/ocistate", tmpdir);
	{
		char text[256];

		snprintf(text, sizeof(text), create ?
			 "{\"id\":\"%s\",\"pid\":1,\"annotations\":{\"eastwest.io/job\":\"own\"}}" :
			 "{\"id\":\"%s\"}", id);
		write_file(path, text, 0644);
	}
	assert_non_null(freopen(path, "r", stdin));
	ret = create ? ewoci_create(&o) : ewoci_remove(&o);
	fflush(stderr);
	return ret;
}

static int stage(bool create)
{
	return stage_of(create, CID);
}

static bool claimed(void)
{
	char owner[64];

	return !ewoci_claim_owner(fstate, CJOB, owner, sizeof(owner)) && !strcmp(owner, CID);
}

static void fake_file(const char *name, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", fip, name);
	write_file(path, text, 0644);
}

static void fake_unlink(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", fip, name);
	unlink(path);
}

/* The template "own": each container its address on ewv100. */
static void create_env(void)
{
	char path[512];

	fake_env();
	fake_reset();
	/* Each test from a clean state dir, whatever the one before left. */
	assert_int_equal(ewoci_claim_drop(fstate, CJOB), 0);
	snprintf(path, sizeof(path), "%s/" CJOB EWOCI_ADDR_SUFFIX, fstate);
	unlink(path);
	snprintf(path, sizeof(path), "%s/" CJOB ".addr", fstate);
	unlink(path);
	assert_int_equal(ewoci_claim_drop(fstate, "oci-3F4E1C2A9B8D"), 0);
	snprintf(path, sizeof(path), "%s/oci-3F4E1C2A9B8D" EWOCI_ADDR_SUFFIX, fstate);
	unlink(path);
	snprintf(path, sizeof(path), "%s/a/templates", tmpdir);
	if (mkdir(path, 0755))
		assert_int_equal(errno, EEXIST);
	snprintf(path, sizeof(path), "%s/a/templates/own.json", tmpdir);
	write_file(path, "{\"jobaddr\":{\"netdev\":\"ewv100\",\"prefix\":\"fd00:a:0:1::/64\"},"
		   "\"peers\":[\"fd00:a::/48\"]}\n", 0644);
}

static bool addr_record(void)
{
	return record_exists(CJOB);
}

/* What poststop leaves: nothing, no claim. */
static void poststop_finishes(void)
{
	assert_int_equal(stage(false), EWOCI_OK);
	assert_nothing_left();
	assert_false(claimed());
	fake_env_end();
}

static void test_create_poststop(void **unused)
{
	(void)unused;
	create_env();
	assert_int_equal(stage(true), EWOCI_OK);
	assert_true(fake_has("ctl.log", "job add " CJOB " cgroup /test.slice/c1 peer fd00:a::/48 netdev ewv100"));
	assert_true(fake_has("addrs", "ewv100 fd00:a:0:1:0:3f4e:1c2a:9b8d/64"));
	assert_true(claimed());
	fake_file("ctl-jobs", "[{\"name\":\"" CJOB "\"}]\n");
	assert_int_equal(stage(false), EWOCI_OK);
	assert_true(fake_has("ctl.log", "job del " CJOB));
	fake_unlink("ctl-jobs");
	poststop_finishes();
}

/* job add refused: the address goes, and the claim. */
static void test_create_refused(void **unused)
{
	(void)unused;
	create_env();
	fake_file("ctl-add", "1\n");
	assert_int_equal(stage(true), EWOCI_CTL);
	assert_nothing_left();
	assert_false(claimed());
	fake_env_end();
}

/*
 * job add refused and the address cannot be removed: the address's record
 * and the claim stay, so that poststop removes it, and the exit says so.
 */
static void test_create_refused_addr_kept(void **unused)
{
	int ret;

	(void)unused;
	create_env();
	fake_file("ctl-add", "1\n");
	fake_file("faildel", "RTNETLINK answers: Operation not permitted\n");
	ret = stage(true);
	assert_true(fake_has("addrs", "ewv100 fd00:a:0:1:0:3f4e:1c2a:9b8d/64"));
	assert_true(addr_record());
	assert_true(claimed());
	assert_int_equal(ret, EWOCI_ADDR);
	/* poststop cannot remove it either: all kept for its next run. */
	assert_int_equal(stage(false), EWOCI_ADDR);
	assert_true(addr_record());
	assert_true(claimed());
	fake_unlink("faildel");
	poststop_finishes();
}

/* The address's GID never comes and the address cannot be removed: the same. */
static void test_create_addr_up_kept(void **unused)
{
	int ret;

	(void)unused;
	create_env();
	fake_file("nogid", "");
	fake_file("faildel", "RTNETLINK answers: Operation not permitted\n");
	ret = stage(true);
	assert_false(fake_has("ctl.log", "job add"));
	assert_true(fake_has("addrs", "ewv100 fd00:a:0:1:0:3f4e:1c2a:9b8d/64"));
	assert_true(addr_record());
	assert_true(claimed());
	assert_int_equal(ret, EWOCI_ADDR);
	fake_unlink("faildel");
	poststop_finishes();
}

/*
 * eastwestctl killed during job add (after the job was created, before
 * all its peers were added): the job goes too.
 */
static void test_create_ctl_killed(void **unused)
{
	int ret;

	(void)unused;
	create_env();
	fake_file("ctl-add-killed", "");
	fake_file("ctl-jobs", "[{\"name\":\"" CJOB "\"}]\n");
	ret = stage(true);
	assert_true(fake_has("ctl.log", "job del " CJOB));
	assert_nothing_left();
	assert_false(claimed());
	assert_int_equal(ret, EWOCI_CTL);
	fake_env_end();
}

/*
 * What a failed poststop of this very container left (runtimes start a
 * stopped container again under its id): the next createRuntime removes
 * it and starts the container.
 */
static void test_create_after_failed_poststop(void **unused)
{
	(void)unused;
	create_env();
	assert_int_equal(stage(true), EWOCI_OK);
	fake_file("faildel", "RTNETLINK answers: Operation not permitted\n");
	fake_file("ctl-jobs", "[{\"name\":\"" CJOB "\"}]\n");
	assert_int_equal(stage(false), EWOCI_ADDR);
	assert_true(claimed());
	fake_unlink("faildel");
	fake_file("ctl.log", "");
	assert_int_equal(stage(true), EWOCI_OK);
	assert_true(fake_has("ctl.log", "job del " CJOB "\njob add " CJOB));
	assert_true(fake_has("addrs", "ewv100 fd00:a:0:1:0:3f4e:1c2a:9b8d/64"));
	assert_true(claimed());
	fake_unlink("ctl-jobs");
	poststop_finishes();
}

/*
 * An empty address record: the hook was killed between creating it and
 * writing it, before the address was added. poststop finishes.
 */
static void test_addr_record_empty(void **unused)
{
	char owner[64], path[512];

	(void)unused;
	create_env();
	assert_int_equal(ewoci_claim_take(fstate, CJOB, CID, owner, sizeof(owner)), 0);
	snprintf(path, sizeof(path), "%s/" CJOB ".addr", fstate);
	write_file(path, "", 0644);
	poststop_finishes();
}

/*
 * Container B, whose id is A's with its hex digits in upper case, starts
 * while A's hook adds A's address (ip's add fails for B with "File
 * exists"): B is refused, and A's address, job and claim stay.
 */
#define CID_UPPER	"3F4E1C2A9B8D0123456789abcdef"

static void test_create_case_twin(void **unused)
{
	char owner[64];

	(void)unused;
	create_env();
	assert_int_equal(stage(true), EWOCI_OK);
	assert_true(claimed());
	/* A's address is on the node: B is refused at the check already. */
	assert_int_equal(stage_of(true, CID_UPPER), EWOCI_ADDR);
	assert_true(fake_has("addrs", "ewv100 fd00:a:0:1:0:3f4e:1c2a:9b8d/64"));
	/* In the race, ip tells B: refused, A's address untouched. */
	fake_file("addrs", "");
	fake_file("log", "");
	fake_file("racer", "");
	assert_int_equal(stage_of(true, CID_UPPER), EWOCI_ADDR);
	assert_false(fake_has("log", "addr del"));
	assert_false(fake_has("log", "addr add"));
	assert_false(fake_has("ctl.log", "job add oci-3F4E1C2A9B8D"));
	assert_int_equal(ewoci_claim_owner(fstate, "oci-3F4E1C2A9B8D", owner, sizeof(owner)), -ENOENT);
	assert_true(claimed());
	assert_true(addr_record());
	fake_unlink("racer");
	fake_file("addrs", "ewv100 fd00:a:0:1:0:3f4e:1c2a:9b8d/64\n");
	fake_file("ctl-jobs", "[{\"name\":\"" CJOB "\"}]\n");
	assert_int_equal(stage(false), EWOCI_OK);
	assert_true(fake_has("ctl.log", "job del " CJOB));
	fake_unlink("ctl-jobs");
	poststop_finishes();
}

/*
 * A file a hook killed before it linked its claim left, named as this
 * process's would be: the container starts.
 */
static void test_create_stale_tmp(void **unused)
{
	char path[512];
	int ret;

	(void)unused;
	create_env();
	snprintf(path, sizeof(path), "%s/" CJOB ".%ld.new", fstate, (long)getpid());
	write_file(path, "someone\n", 0600);
	ret = stage(true);
	unlink(path);
	assert_int_equal(ret, EWOCI_OK);
	assert_true(claimed());
	fake_file("ctl-jobs", "[{\"name\":\"" CJOB "\"}]\n");
	assert_int_equal(stage(false), EWOCI_OK);
	fake_unlink("ctl-jobs");
	poststop_finishes();
}

/*
 * The record of an address an older hook made (STATE_DIR/JOB.addr): its
 * poststop removes the address and the record.
 */
static void test_addr_record_old_name(void **unused)
{
	char owner[64], path[512];

	(void)unused;
	create_env();
	assert_int_equal(ewoci_claim_take(fstate, CJOB, CID, owner, sizeof(owner)), 0);
	snprintf(path, sizeof(path), "%s/" CJOB ".addr", fstate);
	write_file(path, "ewv100 fd00:a:0:1:0:3f4e:1c2a:9b8d/64\n", 0644);
	fake_file("addrs", "ewv100 fd00:a:0:1:0:3f4e:1c2a:9b8d/64\n");
	poststop_finishes();
	assert_true(fake_has("log", "ip -6 addr del fd00:a:0:1:0:3f4e:1c2a:9b8d/64 dev ewv100"));
	assert_int_not_equal(access(path, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_create),
		cmocka_unit_test(test_state_poststop),
		cmocka_unit_test(test_state_bad),
		cmocka_unit_test(test_job_name),
		cmocka_unit_test(test_template_names),
		cmocka_unit_test(test_template_words),
		cmocka_unit_test(test_template_refused),
		cmocka_unit_test(test_cgroup_parse),
		cmocka_unit_test(test_claims),
		cmocka_unit_test(test_template_files),
		cmocka_unit_test(test_jobaddr_template),
		cmocka_unit_test(test_jobaddr_of),
		cmocka_unit_test(test_jobaddr_updown),
		cmocka_unit_test(test_create_poststop),
		cmocka_unit_test(test_create_refused),
		cmocka_unit_test(test_create_refused_addr_kept),
		cmocka_unit_test(test_create_addr_up_kept),
		cmocka_unit_test(test_create_ctl_killed),
		cmocka_unit_test(test_create_after_failed_poststop),
		cmocka_unit_test(test_addr_record_empty),
		cmocka_unit_test(test_create_case_twin),
		cmocka_unit_test(test_create_stale_tmp),
		cmocka_unit_test(test_addr_record_old_name),
	};

	/* The hook's messages, as main.c sets them up. */
	ew_prog = EWOCI_PROG;
	ew_syslog_ident = EWOCI_SYSLOG_IDENT;
	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
