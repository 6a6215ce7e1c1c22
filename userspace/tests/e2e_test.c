// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end tests of eastwestctl's commands against the fake module of
 * fake_kernel.c: command line -> netlink requests -> replies -> output and
 * exit status, including chunked peer lists, extack messages, EPERM, an
 * absent family, interrupted dumps, and "show -j" | "apply" round trips.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>

#include "helpers.h"

#include "fake_kernel.h"

int ew_main(int argc, char *argv[]);

static char out[1 << 22], err[1 << 16];
static char lock_path[] = "/tmp/ewctl-e2e-lock.XXXXXX";

static void slurp_fd(int fd, char *buf, size_t len)
{
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/* Runs eastwestctl with @args (a NULL-terminated list); output in out/err. */
static int run_argv(char **args)
{
	int argc = 0, ret, o, e, so, se;

	while (args[argc])
		argc++;
	fflush(stdout);
	fflush(stderr);
	o = open("/tmp", O_TMPFILE | O_RDWR, 0600);
	e = open("/tmp", O_TMPFILE | O_RDWR, 0600);
	so = dup(1);
	se = dup(2);
	dup2(o, 1);
	dup2(e, 2);
	optind = 0;
	memset(&ew_opts, 0, sizeof(ew_opts));
	ret = ew_main(argc, args);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	slurp_fd(o, out, sizeof(out));
	slurp_fd(e, err, sizeof(err));
	close(o);
	close(e);
	return ret;
}

#define RUN(...) run_argv((char *[]){ "eastwestctl", __VA_ARGS__, NULL })

static void has(const char *buf, const char *s)
{
	if (!strstr(buf, s))
		fail_msg("\"%s\" not in:\n%s", s, buf);
}

static int setup(void **state)
{
	int ret = test_cgroup_setup(state);

	ew_quiet = false;
	fake_reset();
	return ret;
}

static int teardown(void **state)
{
	return test_cgroup_teardown(state);
}

static int reset(void **state)
{
	(void)state;
	fake_reset();
	return 0;
}

static void test_job_lifecycle(void **state)
{
	(void)state;
	assert_int_equal(RUN("job", "add", "a", "cgroup", "/x", "peer", "192.0.2.0/24",
			     "lid", "7", "vlan", "100", "netdev", "lo", "pkey", "0x8001",
			     "qkey", "0x1234", "mode", "audit"), EW_OK);
	assert_string_equal(out, "1\n");
	assert_string_equal(err, "");
	assert_int_equal(fake.st.n_jobs, 1);
	assert_int_equal(fake.st.jobs[0].peers.n, 2);

	assert_int_equal(RUN("job", "show"), EW_OK);
	has(out, "job a id 1 mode audit encrypt none qkey 0x1234 ud off dc off psn app\n");
	has(out, "    cgroup /x (id 1000)\n");
	has(out, "    netdev lo\n");
	has(out, "    vlan 100\n");
	has(out, "    pkey 0x8001\n");
	has(out, "    peers 2 qps 2\n");

	assert_int_equal(RUN("-j", "job", "show", "a"), EW_OK);
	assert_string_equal(out, "[{\"id\":1,\"name\":\"a\",\"mode\":\"audit\",\"encrypt\":\"none\","
			    "\"qkey\":4660,\"ud\":false,\"dc\":false,\"psn\":\"app\",\"cgroups\":[\"/x\"],"
			    "\"netdevs\":[{\"ifname\":\"lo\"},{\"vlan\":100}],\"pkeys\":[\"0x8001\"],"
			    "\"peer_count\":2,\"qp_count\":2}]\n");

	/* job set: replace lists, empty one, rename. */
	assert_int_equal(RUN("job", "set", "a", "cgroup", "none", "vlan", "5",
			     "name", "b", "peer", "10.0.0.1", "peer", "lid:7"), EW_OK);
	assert_string_equal(fake.st.jobs[0].name, "b");
	assert_int_equal(fake.st.jobs[0].n_cgroups, 0);
	assert_int_equal(fake.st.jobs[0].n_netdevs, 1);
	assert_int_equal(fake.st.jobs[0].n_pkeys, 1);
	assert_int_equal(fake.st.jobs[0].peers.n, 2);
	assert_int_equal(RUN("job", "set", "id", "1", "pkey", "none"), EW_OK);
	assert_int_equal(fake.st.jobs[0].n_pkeys, 0);

	assert_int_equal(RUN("job", "add", "b"), EW_FAIL);
	assert_string_equal(err, "eastwestctl: job add b: job name already in use (attribute name)\n");
	assert_int_equal(RUN("job", "set", "nosuch", "mode", "audit"), EW_NOENT);
	assert_string_equal(err, "eastwestctl: job set nosuch: no such job (attribute name)\n");

	assert_int_equal(RUN("job", "del", "b"), EW_OK);
	assert_int_equal(fake.st.n_jobs, 0);
	assert_int_equal(RUN("job", "del", "id", "1"), EW_NOENT);
	has(err, "job del id 1: no such job");
}

/* ud and dc: set on their own, shown by both outputs, sent only when given. */
static void test_job_ud_dc(void **state)
{
	(void)state;
	assert_int_equal(RUN("job", "add", "a", "ud", "on"), EW_OK);
	assert_true(fake.st.jobs[0].ud);
	assert_false(fake.st.jobs[0].dc);
	assert_int_equal(RUN("job", "show", "a"), EW_OK);
	has(out, "job a id 1 mode enforce encrypt none qkey 0x0 ud on dc off psn app\n");

	/* job set changes only what it names. */
	assert_int_equal(RUN("job", "set", "a", "dc", "on"), EW_OK);
	assert_true(fake.st.jobs[0].ud && fake.st.jobs[0].dc);
	assert_int_equal(RUN("job", "set", "a", "ud", "off", "mode", "audit"), EW_OK);
	assert_int_equal(RUN("-j", "job", "show"), EW_OK);
	has(out, "\"mode\":\"audit\",\"encrypt\":\"none\",\"qkey\":0,\"ud\":false,\"dc\":true,");
	assert_int_equal(RUN("job", "set", "a", "dc", "off"), EW_OK);
	assert_false(fake.st.jobs[0].ud || fake.st.jobs[0].dc);
	assert_int_equal(RUN("job", "add", "b"), EW_OK);
	assert_false(fake.st.jobs[1].ud || fake.st.jobs[1].dc);

	/* Bad values send nothing and say what is expected. */
	memset(fake.msgs, 0, sizeof(fake.msgs));
	assert_int_equal(RUN("job", "set", "a", "ud", "true"), EW_USAGE);
	assert_string_equal(err, "eastwestctl: ud \"true\": expected off|on\n");
	assert_int_equal(RUN("job", "add", "c", "dc", "2"), EW_USAGE);
	assert_string_equal(err, "eastwestctl: dc \"2\": expected off|on\n");
	assert_int_equal(fake.msgs[EASTWEST_CMD_JOB_SET] + fake.msgs[EASTWEST_CMD_JOB_NEW], 0);
}

static void test_peers_chunked(void **state)
{
	char path[] = "/tmp/ewctl-e2e.XXXXXX";
	FILE *f;
	int fd, i;

	(void)state;
	fd = mkstemp(path);
	f = fdopen(fd, "w");
	for (i = 0; i < 5000; i++)
		fprintf(f, "10.%d.%d.0/24\n", i / 256, i % 256);
	fclose(f);

	assert_int_equal(RUN("job", "add", "big", "id", "9"), EW_OK);
	assert_string_equal(out, "9\n");
	assert_int_equal(RUN("peer", "add", "big", "file", path, "fe80::/64"), EW_OK);
	assert_int_equal(fake.st.jobs[0].peers.n, 5001);
	assert_int_equal(fake.msgs[EASTWEST_CMD_PEER_ADD], 3);
	assert_int_equal(fake.max_peers, 2000);

	assert_int_equal(RUN("peer", "show", "id", "9"), EW_OK);
	has(out, "10.0.0.0/24\n10.0.1.0/24\n");
	has(out, "10.19.135.0/24\nfe80::/64\n");
	assert_int_equal(RUN("-j", "peer", "show", "big"), EW_OK);
	has(out, "[{\"id\":9,\"name\":\"big\",\"peers\":[\"10.0.0.0/24\",");

	assert_int_equal(RUN("peer", "get", "big", "10.0.3.77"), EW_OK);
	assert_string_equal(out, "10.0.3.0/24\n");
	assert_int_equal(RUN("peer", "get", "big", "192.0.2.1"), EW_NOENT);
	assert_string_equal(err, "eastwestctl: peer get big: no peer of the job admits 192.0.2.1/32\n");

	/* peer-del is all or nothing per message; the message names the peer. */
	assert_int_equal(RUN("peer", "del", "big", "10.0.0.0/24", "10.9.9.9"), EW_NOENT);
	assert_string_equal(err, "eastwestctl: peer del big: peer not found (peer 10.9.9.9/32)\n");
	assert_int_equal(fake.st.jobs[0].peers.n, 5001);
	assert_int_equal(RUN("peer", "del", "big", "file", path), EW_OK);
	assert_int_equal(fake.st.jobs[0].peers.n, 1);

	/* A job created with 5000 peers: job-new + peer-add chunks. */
	memset(fake.msgs, 0, sizeof(fake.msgs));
	fake.max_peers = 0;
	assert_int_equal(RUN("job", "add", "big2", "peer", "lid:1", "peer", "lid:2"), EW_OK);
	assert_int_equal(RUN("peer", "add", "big2", "file", path), EW_OK);
	assert_int_equal(RUN("-j", "show"), EW_OK);
	unlink(path);
	assert_int_equal(fake.max_peers, 2000);
}

static void test_errors(void **state)
{
	(void)state;
	fake.eperm = true;
	assert_int_equal(RUN("job", "add", "a"), EW_PERM);
	assert_string_equal(err, "eastwestctl: job add a: Operation not permitted (CAP_NET_ADMIN is needed)\n");
	assert_int_equal(RUN("config", "show"), EW_OK);
	fake.eperm = false;

	fake.present = false;
	assert_int_equal(RUN("job", "show"), EW_NOTAVAIL);
	has(err, "eastwest is not available");
	fake.present = true;

	/* Parse errors send nothing. */
	memset(fake.msgs, 0, sizeof(fake.msgs));
	assert_int_equal(RUN("job", "add", "a", "peer", "10.0.0.300"), EW_USAGE);
	assert_int_equal(RUN("peer", "add", "a", "lid", "0"), EW_USAGE);
	assert_int_equal(RUN("config", "set", "mode", "x"), EW_USAGE);
	assert_int_equal(fake.msgs[EASTWEST_CMD_JOB_NEW] + fake.msgs[EASTWEST_CMD_PEER_ADD] +
			 fake.msgs[EASTWEST_CMD_CONFIG_SET], 0);

	/* The kernel's message, and the attribute, on one line. */
	assert_int_equal(RUN("job", "add", "a", "id", "3"), EW_OK);
	assert_int_equal(RUN("job", "add", "c", "id", "3"), EW_FAIL);
	assert_string_equal(err, "eastwestctl: job add c: job id already in use\n");
	assert_int_equal(RUN("job", "add", "b", "cgroup", "/x"), EW_OK);
	assert_int_equal(RUN("job", "set", "a", "cgroup", "/x"), EW_FAIL);
	assert_string_equal(err, "eastwestctl: job set a: cgroup is bound to another job\n");
}

static void test_dump_intr(void **state)
{
	(void)state;
	assert_int_equal(RUN("job", "add", "a"), EW_OK);
	assert_int_equal(RUN("job", "add", "b"), EW_OK);
	assert_int_equal(RUN("job", "add", "c"), EW_OK);
	fake.dump_intr = 2;
	assert_int_equal(RUN("job", "show"), EW_OK);
	assert_string_equal(err, "eastwestctl: warning: dump was interrupted, retrying\n"
				 "eastwestctl: warning: dump was interrupted, retrying\n");
	has(out, "job a id 1");
	has(out, "job c id 3");
	assert_null(strstr(strstr(out, "job c id 3") + 1, "job c id 3"));
	fake.dump_intr = 10;
	assert_int_equal(RUN("job", "show"), EW_FAIL);
	has(err, "eastwestctl: job show: dump was interrupted 4 times: the state keeps changing, try again\n");
}

static void test_show_apply_roundtrip(void **state)
{
	char path[] = "/tmp/ewctl-e2e.XXXXXX";

	(void)state;
	assert_int_equal(RUN("job", "add", "a", "cgroup", "/x", "peer", "192.0.2.0/24",
			     "peer", "fe80::1", "lid", "5", "vlan", "100", "netdev", "lo",
			     "pkey", "0x8001", "qkey", "auto", "encrypt", "ipsec"), EW_OK);
	assert_int_equal(RUN("job", "add", "b", "id", "40", "cgroup", "/y", "ud", "on"), EW_OK);
	assert_int_equal(RUN("config", "set", "mode", "audit", "default", "allow"), EW_OK);

	assert_int_equal(RUN("-j", "show"), EW_OK);
	test_temp_file(path, out);
	has(out, "\"peers\":[\"192.0.2.0/24\",\"fe80::1/128\",\"lid:5\"]");
	has(out, "\"config\":{\"mode\":\"audit\",\"default_action\":\"allow\"");
	has(out, "\"name\":\"b\",\"mode\":\"enforce\",\"encrypt\":\"none\",\"qkey\":0,"
	    "\"ud\":true,\"dc\":false,");

	memset(fake.msgs, 0, sizeof(fake.msgs));
	assert_int_equal(RUN("apply", "-f", path), EW_OK);
	has(out, "no changes: the node already matches");
	assert_int_equal(fake.msgs[EASTWEST_CMD_JOB_NEW] + fake.msgs[EASTWEST_CMD_JOB_SET] +
			 fake.msgs[EASTWEST_CMD_JOB_DEL] + fake.msgs[EASTWEST_CMD_PEER_ADD] +
			 fake.msgs[EASTWEST_CMD_PEER_DEL] + fake.msgs[EASTWEST_CMD_CONFIG_SET], 0);

	/* Change the node; apply restores it; again is a no-op. */
	assert_int_equal(RUN("job", "del", "b"), EW_OK);
	assert_int_equal(RUN("job", "add", "intruder", "cgroup", "/system.slice/job_42"), EW_OK);
	assert_int_equal(RUN("peer", "add", "a", "198.51.100.1"), EW_OK);
	assert_int_equal(RUN("peer", "del", "a", "lid:5"), EW_OK);
	assert_int_equal(RUN("job", "set", "a", "mode", "audit", "cgroup", "none", "dc", "on"),
			 EW_OK);
	assert_int_equal(RUN("config", "set", "default", "deny"), EW_OK);

	assert_int_equal(RUN("apply", "--dry-run", "-f", path), EW_OK);
	has(out, "job del id 2 # intruder\n");
	has(out, "job set id 1 mode enforce dc off cgroup /x # a\n");
	has(out, "peer add id 1 lid:5 # a\n");
	has(out, "peer del id 1 198.51.100.1/32 # a\n");
	has(out, "job add b id 40 mode enforce encrypt none qkey 0x0 ud on dc off psn app cgroup /y\n");
	has(out, "config set default allow\n");
	has(out, "would apply 6 steps: jobs 1 added, 1 changed, 1 deleted; peers 1 added, 1 removed; config changed\n");
	assert_int_equal(fake.st.n_jobs, 2);

	assert_int_equal(RUN("-j", "apply", "--dry-run", "-f", path), EW_OK);
	has(out, "{\"dry_run\":true,\"changes\":6,\"plan\":[{\"op\":\"peer-del\",\"id\":1,\"name\":\"a\",");
	has(out, "{\"op\":\"job-del\",\"id\":2,\"name\":\"intruder\"},{\"op\":\"config-set\",");
	has(out, "{\"op\":\"job-set\",\"id\":1,\"name\":\"a\",\"set\":{\"mode\":\"enforce\",\"cgroups\":[\"/x\"],\"dc\":false}}");

	assert_int_equal(RUN("apply", "-f", path), EW_OK);
	assert_string_equal(out, "applied 6 steps: jobs 1 added, 1 changed, 1 deleted; peers 1 added, 1 removed; config changed\n");
	assert_int_equal(RUN("apply", "-f", path), EW_OK);
	has(out, "no changes");

	/* A refused step stops the run, says where, and the steps before are undone. */
	test_write_file(path, "{\"jobs\": [{\"name\": \"a\", \"qkey\": \"auto\"}, {\"name\": \"n1\"}, "
			"{\"name\": \"n2\", \"cgroups\": [\"/x\"]}]}");
	fake.changes = 0;
	fake.fail_change = 3;
	assert_int_equal(RUN("apply", "-f", path), EW_FAIL);
	has(err, ": step 3 of 5 (job add n1) failed, 2 applied before it: refused by the test\n");
	has(err, ": rolled back 2 steps: the jobs and settings are as they were; "
	    "live QPs that the run revoked stay revoked\n");
	assert_string_equal(out, "");
	assert_int_equal(RUN("apply", "-f", path), EW_OK);
	assert_string_equal(out, "applied 5 steps: jobs 2 added, 1 changed, 1 deleted; "
			    "peers 0 added, 3 removed\n");
	assert_string_equal(fake.st.jobs[0].name, "a");
	assert_int_equal(fake.st.jobs[0].n_cgroups, 0);
	assert_int_equal(fake.st.jobs[0].peers.n, 0);
	assert_int_equal(fake.st.jobs[0].encrypt, EASTWEST_ENCRYPT_NONE);
	assert_true(fake.st.jobs[0].qkey != 0);
	assert_int_equal(RUN("apply", "-f", path), EW_OK);
	has(out, "no changes");
	unlink(path);
}

static void test_refused_step(void **state)
{
	char path[] = "/tmp/ewctl-e2e.XXXXXX";

	(void)state;
	assert_int_equal(RUN("job", "add", "a", "id", "1"), EW_OK);
	test_temp_file(path, "{\"jobs\": [{\"id\": 1, \"name\": \"a\", \"mode\": \"audit\"}, "
		       "{\"name\": \"b\", \"qkey\": 5}]}");
	fake.eperm = true;
	assert_int_equal(RUN("apply", "-f", path), EW_PERM);
	has(err, "reading the current state");
	fake.eperm = false;
	assert_int_equal(RUN("apply", "-f", path), EW_OK);
	has(out, "applied 2 steps");
	unlink(path);
}

/* @path's policy must be refused before anything is sent, with exactly @msg. */
static void apply_refused(char *path, const char *msg)
{
	char want[512];

	memset(fake.msgs, 0, sizeof(fake.msgs));
	assert_int_equal(RUN("apply", "-n", "-f", path), EW_USAGE);
	snprintf(want, sizeof(want), "eastwestctl: %s%s\n", path, msg);
	assert_string_equal(err, want);
	assert_string_equal(out, "");
	assert_int_equal(fake.msgs[EASTWEST_CMD_JOB_NEW] + fake.msgs[EASTWEST_CMD_JOB_DEL] +
			 fake.msgs[EASTWEST_CMD_JOB_SET], 0);
}

/*
 * Policy files apply must refuse before it plans anything, each with its
 * message: a second "jobs" would plan the deletion of every job and a
 * second "mode" turn the job to audit; a string cut at an embedded NUL
 * would plan "job add a ... netdev lo"; a key with "psn": "app" (the
 * default) would reach the kernel.
 */
static void test_apply_refused_files(void **state)
{
	static const struct {
		const char *json, *msg;
	} files[] = {
		{ "{\"jobs\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"jobs\": []}",
		  ":1:42: duplicate key \"jobs\"" },
		{ "{\"jobs\": [{\"name\": \"a\", \"mode\": \"enforce\",\n"
		  "  \"mode\": \"audit\"}, {\"name\": \"b\"}]}",
		  ":2:3: duplicate key \"mode\"" },
		{ "{\"jobs\": [{\"name\": \"a\\u0000evil\", "
		  "\"netdevs\": [{\"ifname\": \"lo\\u0000xx\"}]}]}",
		  ": jobs[0].name: the string holds a NUL character (\\u0000)" },
		{ "{\"jobs\": [{\"name\": \"a\", "
		  "\"netdevs\": [{\"ifname\": \"lo\\u0000xx\"}]}]}",
		  ": jobs[0].netdevs[0].ifname: the string holds a NUL character (\\u0000)" },
		{ "{\"jobs\": [{\"name\": \"k\", "
		  "\"psn_key\": \"00112233445566778899aabbccddeeff\"}]}",
		  ": jobs[0].psn_key: a PSN key needs \"psn\": \"keyed\"" },
	};
	char path[] = "/tmp/ewctl-e2e.XXXXXX";
	size_t i;

	(void)state;
	assert_int_equal(RUN("job", "add", "a"), EW_OK);
	assert_int_equal(RUN("job", "add", "b"), EW_OK);
	test_temp_file(path, "");
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		test_write_file(path, files[i].json);
		apply_refused(path, files[i].msg);
	}
	assert_int_equal(fake.st.n_jobs, 2);
	unlink(path);
}

static void test_apply_directory(void **state)
{
	(void)state;
	apply_refused("/tmp", ": Is a directory");
	assert_int_equal(RUN("mgmt", "generate", "-f", "/tmp"), EW_USAGE);
	assert_string_equal(err, "eastwestctl: /tmp: Is a directory\n");
}

/*
 * Scripts go by the exit status: "help" and the manual's "peer get" name
 * the one the command returns when no peer admits the address.
 */
static void test_help_exit_status(void **state)
{
	const char *entry, *end;
	size_t len;
	char *man;

	(void)state;
	assert_int_equal(RUN("job", "add", "a", "peer", "10.0.0.0/24"), EW_OK);
	assert_int_equal(RUN("peer", "get", "a", "192.0.2.1"), EW_NOENT);
	assert_int_equal(RUN("help"), EW_OK);
	has(out, "5 no such job or peer entry");
	assert_int_equal(ew_read_file("../Documentation/eastwestctl.8", 1 << 20, &man, &len), EW_OK);
	entry = strstr(man, "\n.B peer get ");
	assert_non_null(entry);
	end = strstr(entry + 1, "\n.PP");
	assert_non_null(end);
	man[end - man] = '\0';
	has(entry, "exit status 5 if none does");
	free(man);
}

/*
 * What the commands show of jobs a, b, c, d, k and n and of the
 * configuration: the node's state, whatever order the jobs are kept in.
 */
static void snapshot(char *buf, size_t len)
{
	static const char *const names[] = { "a", "b", "c", "d", "k", "n" };
	size_t i, n = 0;
	int ret;

	for (i = 0; i < EW_ARRAY_SIZE(names); i++) {
		ret = RUN("job", "show", (char *)names[i]);
		n += (size_t)snprintf(buf + n, len - n, "[%d] %s", ret, out);
		ret = RUN("peer", "show", (char *)names[i]);
		n += (size_t)snprintf(buf + n, len - n, "[%d] %s", ret, out);
		assert_true(n < len);
	}
	RUN("config", "show");
	snprintf(buf + n, len - n, "%s", out);
}

/* Jobs a, b and d and the policy that changes each of them and adds c. */
static void mixed_setup(const char *path)
{
	assert_int_equal(RUN("job", "add", "a", "cgroup", "/x", "peer", "10.0.0.1", "lid", "7",
			     "netdev", "lo", "vlan", "100", "pkey", "0x8001", "qkey", "0x1234",
			     "mode", "audit", "encrypt", "any", "ud", "on", "dc", "on"), EW_OK);
	assert_int_equal(RUN("job", "add", "b", "cgroup", "/y", "peer", "10.0.0.2"), EW_OK);
	assert_int_equal(RUN("job", "add", "d", "peer", "10.0.1.1", "peer", "10.0.1.2"), EW_OK);
	test_write_file(path, "{\"config\": {\"mode\": \"audit\"}, \"jobs\": ["
			"{\"name\": \"a\", \"id\": 5, \"cgroups\": [\"/x\"]}, "
			"{\"name\": \"d\", \"mode\": \"audit\", \"peers\": [\"10.0.1.2\", \"10.0.1.3\"]}, "
			"{\"name\": \"c\", \"cgroups\": [\"/y\"], \"peers\": [\"10.0.2.1\"]}]}");
}

/*
 * apply --expect STATE: a compare-and-set against the jobs that "show -j"
 * read. A job made or deleted since, or deleted and made again under its
 * name, leaves the node unchanged (exit 6); the same jobs apply.
 */
static void test_apply_expect(void **state)
{
	char seen[] = "/tmp/ewctl-e2e-seen.XXXXXX", want[] = "/tmp/ewctl-e2e.XXXXXX";
	char hand[] = "/tmp/ewctl-e2e-hand.XXXXXX";
	static char before[1 << 14], after[1 << 14];

	(void)state;
	assert_int_equal(RUN("job", "add", "a", "cgroup", "/x", "peer", "192.0.2.0/24"), EW_OK);
	assert_int_equal(RUN("-j", "show"), EW_OK);
	test_temp_file(seen, out);
	test_temp_file(want, "{\"jobs\":[{\"name\":\"a\",\"cgroups\":[\"/x\"],"
			     "\"peers\":[\"198.51.100.0/24\"]}]}");

	/* Made since: "b" would be deleted by a plain apply. */
	assert_int_equal(RUN("job", "add", "b", "cgroup", "/y"), EW_OK);
	snapshot(before, sizeof(before));
	memset(fake.msgs, 0, sizeof(fake.msgs));
	assert_int_equal(RUN("apply", "--expect", seen, "-f", want), EW_CHANGED);
	has(err, "the node's jobs or settings changed since");
	has(err, "nothing was changed");
	assert_int_equal(fake.msgs[EASTWEST_CMD_JOB_NEW] + fake.msgs[EASTWEST_CMD_JOB_SET] +
			 fake.msgs[EASTWEST_CMD_JOB_DEL] + fake.msgs[EASTWEST_CMD_PEER_ADD] +
			 fake.msgs[EASTWEST_CMD_PEER_DEL] + fake.msgs[EASTWEST_CMD_CONFIG_SET], 0);
	snapshot(after, sizeof(after));
	assert_string_equal(after, before);

	/* Changed since: a peer added (a job made in chunks, a job set). */
	assert_int_equal(RUN("job", "del", "b"), EW_OK);
	assert_int_equal(RUN("peer", "add", "a", "203.0.113.7"), EW_OK);
	assert_int_equal(RUN("apply", "--expect", seen, "-f", want), EW_CHANGED);
	assert_int_equal(RUN("peer", "show", "a"), EW_OK);
	has(out, "203.0.113.7");
	assert_int_equal(RUN("peer", "del", "a", "203.0.113.7"), EW_OK);
	assert_int_equal(RUN("job", "add", "b", "cgroup", "/y"), EW_OK);

	/* Deleted since. */
	assert_int_equal(RUN("job", "del", "b"), EW_OK);
	assert_int_equal(RUN("job", "del", "a"), EW_OK);
	assert_int_equal(RUN("apply", "--expect", seen, "-f", want), EW_CHANGED);
	/* Deleted and made again under its name: a new id. */
	assert_int_equal(RUN("job", "add", "a", "cgroup", "/x", "peer", "192.0.2.0/24"), EW_OK);
	assert_int_equal(RUN("apply", "--expect", seen, "-f", want), EW_CHANGED);

	/*
	 * The same jobs: applied (a keyed job, whose key is never shown, and
	 * one whose netdev rule "show -j" names by its interface, too).
	 */
	assert_int_equal(RUN("job", "add", "k", "psn", "keyed", "psn-key",
			     "000102030405060708090a0b0c0d0e0f"), EW_OK);
	assert_int_equal(RUN("job", "add", "n", "netdev", "lo"), EW_OK);
	assert_int_equal(RUN("-j", "show"), EW_OK);
	test_write_file(seen, out);
	assert_int_equal(RUN("apply", "--expect", seen, "-f", want), EW_OK);
	assert_int_equal(RUN("peer", "show", "a"), EW_OK);
	has(out, "198.51.100.0/24");

	/* A file without ids is not a state read; stdin twice; no file name. */
	test_temp_file(hand, "{\"jobs\":[{\"name\":\"a\"}]}");
	assert_int_equal(RUN("apply", "--expect", hand, "-f", want), EW_USAGE);
	has(err, "jobs[0] (a) has no id");
	test_write_file(hand, "{\"config\":{\"mode\":\"audit\"}}");
	assert_int_equal(RUN("apply", "--expect", hand, "-f", want), EW_USAGE);
	has(err, "no \"jobs\" list");
	assert_int_equal(RUN("apply", "--expect", "-", "-f", "-"), EW_USAGE);
	assert_int_equal(RUN("apply", "-f", want, "--expect"), EW_USAGE);
	assert_int_equal(RUN("apply", "--expect", "/nonexistent/ew", "-f", want), EW_USAGE);
	unlink(seen);
	unlink(want);
	unlink(hand);
}

/*
 * A refused step of apply undoes the steps before it: the node is as it
 * was, whichever step it is (the fake refuses the Nth change once).
 */
/*
 * apply -f @path with the fake refusing its @n-th change: it fails, and
 * the node is as it was before. Returns a copy of apply's stderr (the
 * snapshots after it overwrite err).
 */
static const char *apply_fails_unchanged(char *path, int n)
{
	static char before[1 << 14], after[1 << 14], apply_err[sizeof(err)];

	snapshot(before, sizeof(before));
	fake.changes = 0;
	fake.fail_change = n;
	assert_int_equal(RUN("apply", "-f", path), EW_FAIL);
	fake.fail_change = 0;
	snprintf(apply_err, sizeof(apply_err), "%s", err);
	snapshot(after, sizeof(after));
	assert_string_equal(after, before);
	return apply_err;
}

static void test_apply_rollback(void **state)
{
	char path[] = "/tmp/ewctl-e2e.XXXXXX";
	const char *apply_err;
	int n;

	(void)state;
	close(mkstemp(path));
	for (n = 1; n <= 8; n++) {
		fake_reset();
		mixed_setup(path);
		apply_err = apply_fails_unchanged(path, n);
		has(apply_err, "failed, ");
		if (n > 1)
			has(apply_err, "rolled back");
	}
	fake_reset();
	mixed_setup(path);
	assert_int_equal(RUN("apply", "-f", path), EW_OK);
	assert_string_equal(out, "applied 8 steps: jobs 2 added, 1 changed, 2 deleted; "
			    "peers 1 added, 1 removed; config changed\n");
	unlink(path);
}

/*
 * A key the run changed before a refused step cannot be given back (the
 * kernel never reports a key): the job's check value tells, the message
 * names the job with both values, and the exit status says the node is
 * not as it was, also when nothing else is left to undo.
 */
static void test_apply_rollback_rekeyed(void **state)
{
	char path[] = "/tmp/ewctl-e2e.XXXXXX";

	(void)state;
	assert_int_equal(RUN("job", "add", "a", "cgroup", "/x", "psn", "keyed",
			     "psn-key", "000102030405060708090a0b0c0d0e0f"), EW_OK);
	assert_int_equal(RUN("job", "show", "a"), EW_OK);
	has(out, " psn keyed psn-key-check 0xfb1e38ec\n");
	test_temp_file(path, "{\"jobs\": [{\"name\": \"a\", \"cgroups\": [\"/x\"], "
		       "\"psn\": \"keyed\", \"psn_key\": \"00112233445566778899aabbccddeeff\"}, "
		       "{\"name\": \"c\", \"cgroups\": [\"/y\"]}]}");
	fake.fail_cmd = EASTWEST_CMD_JOB_NEW;
	assert_int_equal(RUN("apply", "-f", path), EW_PARTIAL);
	has(err, "(job add c) failed, 1 applied before it: refused by the test\n");
	has(err, "rolling back: job a keeps the PSN key this run gave it (check value 0x11fcaddc, "
	    "before 0xfb1e38ec): the kernel never reports a key, so the old one cannot be given back\n");
	fake.fail_cmd = 0;
	assert_int_equal(RUN("job", "show", "a"), EW_OK);
	has(out, " psn keyed psn-key-check 0x11fcaddc\n");
	/* The same key again: nothing to report, a plain refusal. */
	fake.fail_cmd = EASTWEST_CMD_JOB_NEW;
	assert_int_equal(RUN("apply", "-f", path), EW_FAIL);
	assert_null(strstr(err, "keeps the PSN key"));
	fake.fail_cmd = 0;
	unlink(path);
}

/*
 * An undo step refused too: the message says so, and the steps that
 * would restore the node are printed.
 */
static void test_apply_rollback_refused(void **state)
{
	char path[] = "/tmp/ewctl-e2e.XXXXXX";

	(void)state;
	assert_int_equal(RUN("job", "add", "a", "cgroup", "/x", "peer", "10.0.0.1"), EW_OK);
	assert_int_equal(RUN("job", "add", "b", "cgroup", "/y"), EW_OK);
	test_temp_file(path, "{\"jobs\": [{\"name\": \"a\", \"id\": 5}, {\"name\": \"c\"}]}");
	fake.fail_cmd = EASTWEST_CMD_JOB_NEW;
	assert_int_equal(RUN("apply", "-f", path), EW_PARTIAL);
	has(err, "step 2 of 4 (job add a) failed, 1 applied before it: refused by the test\n");
	has(err, "rolling back: job add a: refused by the test\n");
	has(err, "not rolled back: the node is not as it was: 1 step printed would restore it\n");
	has(out, "job add a id 1 mode enforce encrypt none qkey 0x0 ud off dc off psn app "
	    "cgroup /x peer 10.0.0.1/32\n");
	fake.fail_cmd = 0;
	/* b frees nothing: deleted last, it was never touched. */
	assert_int_equal(RUN("job", "show"), EW_OK);
	has(out, "job b id 2 ");
	assert_int_equal(fake.st.n_jobs, 1);
	unlink(path);
}

/*
 * The exit status of a refused apply says what is left: a refused first
 * step changed nothing and keeps the kernel's reason (5 for ENOENT); a
 * later one is 1 once the undo restored the jobs and settings, and 7 when
 * it could not. The message does not claim the node is as it was: QPs
 * revoked meanwhile are not brought back.
 */
static void test_apply_exit_status(void **state)
{
	char path[] = "/tmp/ewctl-e2e.XXXXXX";
	FILE *f;
	int n;

	(void)state;
	test_temp_file(path, "{\"jobs\": [{\"name\": \"b\", \"cgroups\": [\"/y\"], "
		       "\"mode\": \"audit\"}, {\"name\": \"k\"}]}");
	for (n = 1; n <= 3; n++) {
		fake_reset();
		assert_int_equal(RUN("job", "add", "a", "cgroup", "/x"), EW_OK);
		assert_int_equal(RUN("job", "add", "b", "cgroup", "/y"), EW_OK);
		fake.changes = 0;
		fake.fail_change = n;
		fake.fail_errno = ENOENT;
		assert_int_equal(RUN("apply", "-f", path), n == 1 ? EW_NOENT : EW_FAIL);
		if (n > 1) {
			has(err, "rolled back ");
			has(err, "live QPs");
			assert_null(strstr(err, "is as it was"));
		}
		fake.fail_change = 0;
		assert_int_equal(RUN("job", "show", "b"), EW_OK);
		has(out, "mode enforce");
		assert_int_equal(RUN("job", "show", "a"), EW_OK);
		assert_int_equal(RUN("job", "show", "k"), EW_NOENT);
	}

	/* The undo refused too: 7, whatever the refusal's errno. */
	fake_reset();
	assert_int_equal(RUN("job", "add", "a", "cgroup", "/x", "peer", "10.0.0.1"), EW_OK);
	assert_int_equal(RUN("job", "add", "b", "cgroup", "/y"), EW_OK);
	test_write_file(path, "{\"jobs\": [{\"name\": \"a\", \"id\": 5}, {\"name\": \"c\"}]}");
	fake.fail_cmd = EASTWEST_CMD_JOB_NEW;
	fake.fail_errno = ENOENT;
	assert_int_equal(RUN("apply", "-f", path), EW_PARTIAL);
	has(err, "not rolled back");
	fake.fail_cmd = 0;
	unlink(path);

	/* peer add in messages of 2000 peers: the second refused, 7. */
	fake_reset();
	assert_int_equal(RUN("job", "add", "a"), EW_OK);
	close(mkstemp(path));
	f = fopen(path, "w");
	for (n = 0; n < 3000; n++)
		fprintf(f, "10.%d.%d.0/24\n", n / 256, n % 256);
	fclose(f);
	fake.changes = 0;
	fake.fail_change = 2;
	fake.fail_errno = ENOENT;
	assert_int_equal(RUN("peer", "add", "a", "file", path), EW_PARTIAL);
	has(err, "2000 of 3000 peers were added");
	assert_int_equal(fake.st.jobs[0].peers.n, 2000);
	unlink(path);
}

/*
 * A job that another program (an epilog) deleted while apply ran is not
 * created again by the undo: the undo creates only jobs apply deleted.
 */
static void test_apply_undo_deleted_meanwhile(void **state)
{
	char path[] = "/tmp/ewctl-e2e.XXXXXX";
	char saved[sizeof(err)];

	(void)state;
	assert_int_equal(RUN("job", "add", "a", "cgroup", "/x"), EW_OK);
	assert_int_equal(RUN("job", "add", "b", "cgroup", "/y", "peer", "10.0.0.1"), EW_OK);
	test_temp_file(path, "{\"jobs\": [{\"name\": \"a\", \"cgroups\": [\"/x\"], "
		       "\"mode\": \"audit\"}, {\"name\": \"b\", \"cgroups\": [\"/y\"], "
		       "\"mode\": \"audit\"}]}");
	fake.changes = 0;
	fake.gone_change = 2;
	fake.gone_id = 2;
	assert_int_equal(RUN("apply", "-f", path), EW_FAIL);
	snprintf(saved, sizeof(saved), "%s", err);
	has(saved, "step 3 of 3 (job set b (id 2)) failed, 2 applied before it: ");
	assert_int_equal(RUN("job", "show", "b"), EW_NOENT);
	assert_int_equal(RUN("job", "show", "a"), EW_OK);
	has(out, "mode enforce");
	has(saved, "rolling back: job b (id 2) was deleted meanwhile, not by this run: "
	    "not created again\n");
	has(saved, "rolled back 1 step: ");
	unlink(path);

	/* job set: its job deleted between two of its requests. */
	fake_reset();
	assert_int_equal(RUN("job", "add", "a", "cgroup", "/x", "peer", "10.0.0.1"), EW_OK);
	fake.changes = 0;
	fake.gone_change = 2;
	fake.gone_id = 1;
	assert_int_equal(RUN("job", "set", "a", "mode", "audit", "peer", "10.0.0.2"), EW_FAIL);
	has(err, "job set a: rolling back: the job was deleted meanwhile, not by this run: "
	    "nothing is left to roll back\n");
	assert_int_equal(fake.st.n_jobs, 0);
}

/*
 * job set with peers: a refused request undoes the attributes and peers
 * set before it; the job never keeps more peers than it had or was given.
 */
static void test_job_set_rollback(void **state)
{
	static char before[1 << 14], after[1 << 14];
	int n;

	(void)state;
	for (n = 1; n <= 3; n++) {
		fake_reset();
		assert_int_equal(RUN("job", "add", "a", "cgroup", "/x", "peer", "10.0.0.1",
				     "peer", "10.0.0.3"), EW_OK);
		snapshot(before, sizeof(before));
		fake.changes = 0;
		fake.fail_change = n;
		assert_int_equal(RUN("job", "set", "a", "mode", "audit", "cgroup", "/y",
				     "peer", "10.0.0.2", "peer", "10.0.0.3"), EW_FAIL);
		has(err, "refused by the test");
		if (n > 1)
			has(err, "rolled back");
		fake.fail_change = 0;
		snapshot(after, sizeof(after));
		assert_string_equal(after, before);
	}

	/*
	 * Every peer-add refused: the peers lost went first, so the undo
	 * cannot add them back and says what is left; the attributes are
	 * set back, and the job holds fewer peers, never more.
	 */
	fake_reset();
	assert_int_equal(RUN("job", "add", "a", "cgroup", "/x", "peer", "10.0.0.1"), EW_OK);
	fake.fail_cmd = EASTWEST_CMD_PEER_ADD;
	assert_int_equal(RUN("job", "set", "a", "mode", "audit", "cgroup", "/y",
			     "peer", "10.0.0.2"), EW_PARTIAL);
	has(err, "job set a: peers: refused by the test\n");
	has(err, "rolling back: peer add a (id 1), 1 peers: refused by the test\n");
	has(err, "not rolled back: the job is not as it was: 1 step printed would restore it\n");
	assert_string_equal(out, "peer add id 1 10.0.0.1/32 # a\n");
	fake.fail_cmd = 0;
	assert_int_equal(RUN("job", "show", "a"), EW_OK);
	has(out, "job a id 1 mode enforce ");
	has(out, "cgroup /x ");
	assert_int_equal(RUN("peer", "show", "a"), EW_OK);
	assert_string_equal(out, "");

	/* Every peer-del refused: nothing was changed. */
	assert_int_equal(RUN("peer", "add", "a", "10.0.0.1"), EW_OK);
	fake.fail_cmd = EASTWEST_CMD_PEER_DEL;
	assert_int_equal(RUN("job", "set", "a", "mode", "audit", "peer", "10.0.0.2"), EW_FAIL);
	has(err, "job set a: peers: refused by the test\n");
	fake.fail_cmd = 0;
	assert_int_equal(RUN("peer", "show", "a"), EW_OK);
	assert_string_equal(out, "10.0.0.1/32\n");
	assert_int_equal(RUN("job", "show", "a"), EW_OK);
	has(out, "job a id 1 mode enforce ");
}

/*
 * Keyed PSNs: the kernel never reports the key, so a deleted keyed job
 * cannot be created again. apply deletes such a job last when nothing
 * needs its name or cgroups (a refused step before leaves it alone), and
 * says so when it had to delete it first; what the kernel would refuse
 * (keyed PSNs without a key) is refused before the first request.
 */
static void test_apply_keyed_psn(void **state)
{
	char path[] = "/tmp/ewctl-e2e.XXXXXX";
	int n;

	(void)state;
	close(mkstemp(path));
	for (n = 1; n <= 4; n++) {
		fake_reset();
		assert_int_equal(RUN("job", "add", "k", "cgroup", "/x", "psn", "keyed", "psn-key",
				     "00112233445566778899aabbccddeeff"), EW_OK);
		assert_int_equal(RUN("job", "add", "a", "peer", "10.0.0.1"), EW_OK);
		test_write_file(path, "{\"config\": {\"default_action\": \"allow\"}, \"jobs\": ["
				"{\"name\": \"a\", \"mode\": \"audit\"}, {\"name\": \"n\"}]}");
		apply_fails_unchanged(path, n);
	}
	assert_int_equal(RUN("apply", "--dry-run", "-f", path), EW_OK);
	has(out, "config set default allow\njob del id 1 # k\n");

	/* Recreated (its id changes): deleted first, and not restored. */
	fake_reset();
	assert_int_equal(RUN("job", "add", "k", "cgroup", "/x", "psn", "keyed", "psn-key",
			     "00112233445566778899aabbccddeeff"), EW_OK);
	assert_int_equal(RUN("job", "add", "a"), EW_OK);
	test_write_file(path, "{\"jobs\": [{\"name\": \"k\", \"id\": 9, \"psn\": \"keyed\", "
			"\"psn_key\": \"ffeeddccbbaa99887766554433221100\", \"cgroups\": [\"/x\"]}, "
			"{\"name\": \"a\"}, {\"name\": \"n\"}]}");
	fake.changes = 0;
	fake.fail_change = 3;
	assert_int_equal(RUN("apply", "-f", path), EW_PARTIAL);
	fake.fail_change = 0;
	has(err, "step 3 of 3 (job add n) failed, 2 applied before it: refused by the test\n");
	has(err, "rolling back: job add k: keyed PSNs need a psn-key, which the kernel "
	    "never reports\n");
	has(out, "job add k id 1 mode enforce encrypt none qkey 0x0 ud off dc off psn keyed "
	    "cgroup /x\n");
	assert_int_equal(RUN("job", "show", "k"), EW_NOENT);
	assert_int_equal(RUN("job", "show", "n"), EW_NOENT);
	assert_int_equal(RUN("job", "show", "a"), EW_OK);

	/* Keyed PSNs without a key: nothing is sent. */
	memset(fake.msgs, 0, sizeof(fake.msgs));
	test_write_file(path, "{\"jobs\": [{\"name\": \"a\", \"psn\": \"keyed\"}, {\"name\": \"n\"}]}");
	assert_int_equal(RUN("apply", "-f", path), EW_USAGE);
	has(err, "job set a (id 2): keyed PSNs need a psn-key");
	test_write_file(path, "{\"jobs\": [{\"name\": \"a\"}, {\"name\": \"n\", \"psn\": \"keyed\"}]}");
	assert_int_equal(RUN("apply", "-f", path), EW_USAGE);
	has(err, "job add n: keyed PSNs need a psn-key");
	assert_int_equal(fake.msgs[EASTWEST_CMD_JOB_NEW] + fake.msgs[EASTWEST_CMD_JOB_SET] +
			 fake.msgs[EASTWEST_CMD_JOB_DEL] + fake.msgs[EASTWEST_CMD_PEER_ADD] +
			 fake.msgs[EASTWEST_CMD_PEER_DEL] + fake.msgs[EASTWEST_CMD_CONFIG_SET], 0);
	unlink(path);
}

/*
 * A keyed job set to app PSNs cannot be set back (the key is never
 * reported): apply sends that change last, so a refused step before it
 * leaves the job keyed, and the undo of the steps before it is whole.
 */
static void test_apply_keyed_to_app(void **state)
{
	char path[] = "/tmp/ewctl-e2e.XXXXXX";
	int n;

	(void)state;
	close(mkstemp(path));
	for (n = 1; n <= 2; n++) {
		fake_reset();
		assert_int_equal(RUN("job", "add", "k", "cgroup", "/x", "psn", "keyed", "psn-key",
				     "00112233445566778899aabbccddeeff"), EW_OK);
		test_write_file(path, "{\"jobs\": [{\"name\": \"k\", \"cgroups\": [\"/x\"], "
				"\"psn\": \"app\", \"mode\": \"audit\"}, "
				"{\"name\": \"n\", \"cgroups\": [\"/y\"]}]}");
		apply_fails_unchanged(path, n);
	}
	assert_int_equal(RUN("apply", "--dry-run", "-f", path), EW_OK);
	has(out, "job set id 1 mode audit # k\njob add n ");
	has(out, "\njob set id 1 psn app # k\nwould apply 3 steps");
	assert_int_equal(RUN("apply", "-f", path), EW_OK);
	assert_int_equal(RUN("job", "show", "k"), EW_OK);
	has(out, "mode audit ");
	has(out, "psn app\n");
	unlink(path);
}

static volatile sig_atomic_t term_seen;
static int term_changes;

static void on_term(int sig)
{
	(void)sig;
	term_seen = 1;
	term_changes = fake.changes;
}

/*
 * SIGTERM (a hook's timeout, an operator's kill) in the middle of a run:
 * held off until the run is done, the undo of a refused step included,
 * then delivered (here to a handler that notes how many changes were
 * sent by then; by default it ends the process).
 */
static void test_signal_deferred(void **state)
{
	static char before[1 << 14], after[1 << 14];
	struct sigaction sa = { .sa_handler = on_term }, old;
	char path[] = "/tmp/ewctl-e2e.XXXXXX";

	(void)state;
	close(mkstemp(path));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old);

	mixed_setup(path);
	term_seen = 0;
	fake.changes = 0;
	fake.signal_change = 1;
	assert_int_equal(RUN("apply", "-f", path), EW_OK);
	has(out, "applied 8 steps");
	assert_true(term_seen);
	assert_int_equal(term_changes, 8);

	/* A refused step: the undo runs to its end before the signal. */
	fake_reset();
	mixed_setup(path);
	snapshot(before, sizeof(before));
	term_seen = 0;
	fake.changes = 0;
	fake.signal_change = 1;
	fake.fail_change = 3;
	assert_int_equal(RUN("apply", "-f", path), EW_FAIL);
	has(err, "rolled back 2 steps: the jobs and settings are as they were; "
	    "live QPs that the run revoked stay revoked\n");
	assert_true(term_seen);
	assert_int_equal(term_changes, fake.changes);
	assert_true(term_changes > 3);
	fake.signal_change = fake.fail_change = 0;
	snapshot(after, sizeof(after));
	assert_string_equal(after, before);

	/* job set: peer-del, job-set, peer-add, then the signal. */
	fake_reset();
	assert_int_equal(RUN("job", "add", "a", "cgroup", "/x", "peer", "10.0.0.1"), EW_OK);
	term_seen = 0;
	fake.changes = 0;
	fake.signal_change = 1;
	assert_int_equal(RUN("job", "set", "a", "cgroup", "/y", "peer", "10.0.0.2"), EW_OK);
	assert_true(term_seen);
	assert_int_equal(term_changes, 3);

	sigaction(SIGTERM, &old, NULL);
	unlink(path);
}

/*
 * The node lock: held by another process (here another open file of the
 * same lock), a command that changes the node waits, then fails saying
 * which lock, having changed nothing; a read-only command does not wait.
 */
static void test_node_lock(void **state)
{
	char path[] = "/tmp/ewctl-e2e.XXXXXX", want[256];
	int fd, status, pfd[2];
	pid_t pid;

	(void)state;
	test_temp_file(path, "{\"jobs\": [{\"name\": \"a\"}]}");
	fd = open(lock_path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	snprintf(want, sizeof(want), "another eastwestctl holds the lock %s (waited 1 s): "
		 "nothing was changed\n", lock_path);
	memset(fake.msgs, 0, sizeof(fake.msgs));
	assert_int_equal(RUN("job", "add", "a"), EW_FAIL);
	has(err, "job add a: ");
	has(err, want);
	assert_int_equal(RUN("apply", "-f", path), EW_FAIL);
	has(err, "apply ");
	has(err, want);
	assert_int_equal(fake.msgs[EASTWEST_CMD_JOB_GET], 0);
	assert_int_equal(RUN("job", "set", "a", "mode", "audit"), EW_FAIL);
	has(err, want);
	assert_int_equal(fake.st.n_jobs, 0);
	assert_int_equal(fake.msgs[EASTWEST_CMD_JOB_NEW], 0);
	assert_int_equal(RUN("job", "show"), EW_OK);
	assert_int_equal(RUN("apply", "--dry-run", "-f", path), EW_OK);
	has(out, "job add a");
	close(fd);

	/* Held for a while: the writer waits for it, then runs. */
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		fd = open(lock_path, O_RDWR | O_CLOEXEC);
		if (fd < 0 || flock(fd, LOCK_EX) || write(pfd[1], "x", 1) != 1)
			_exit(1);
		poll(NULL, 0, 500);
		_exit(0);
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], want, 1), 1);	/* the child holds it */
	close(pfd[0]);
	setenv("EASTWEST_LOCK_WAIT", "5", 1);
	assert_int_equal(RUN("apply", "-f", path), EW_OK);
	setenv("EASTWEST_LOCK_WAIT", "1", 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && !WEXITSTATUS(status));
	assert_int_equal(fake.st.n_jobs, 1);
	unlink(path);
}

/*
 * A new key for a job that is keyed already: sent, though the PSN setting
 * is the same (the kernel never reports the key), and with a rename.
 */
static void test_apply_rekey(void **state)
{
	char path[] = "/tmp/ewctl-e2e.XXXXXX";

	(void)state;
	close(mkstemp(path));
	assert_int_equal(RUN("job", "add", "k", "cgroup", "/x", "psn", "keyed", "psn-key",
			     "00112233445566778899aabbccddeeff"), EW_OK);
	test_write_file(path, "{\"jobs\": [{\"name\": \"k\", \"cgroups\": [\"/x\"], "
			"\"psn\": \"keyed\", \"psn_key\": \"ffeeddccbbaa99887766554433221100\"}]}");
	memset(fake.msgs, 0, sizeof(fake.msgs));
	assert_int_equal(RUN("apply", "-f", path), EW_OK);
	assert_int_equal(fake.msgs[EASTWEST_CMD_JOB_SET], 1);
	assert_int_equal(fake.st.jobs[0].psn_key[0], 0xff);
	assert_int_equal(RUN("apply", "--dry-run", "-f", path), EW_OK);
	has(out, "job set id 1 psn keyed psn-key (secret) # k\n");

	test_write_file(path, "{\"jobs\": [{\"name\": \"k2\", \"id\": 1, \"cgroups\": [\"/x\"], "
			"\"psn\": \"keyed\", \"psn_key\": \"00112233445566778899aabbccddeeff\"}]}");
	memset(fake.msgs, 0, sizeof(fake.msgs));
	assert_int_equal(RUN("apply", "-f", path), EW_OK);
	assert_int_equal(fake.msgs[EASTWEST_CMD_JOB_SET], 1);
	assert_string_equal(fake.st.jobs[0].name, "k2");
	assert_int_equal(fake.st.jobs[0].psn_key[0], 0x00);
	unlink(path);
}

/*
 * A PSN key by value in a policy file that other users may read: refused
 * before anything is sent, as a key file of that mode would be; the same
 * file of mode 0600 applies.
 */
static void test_apply_psn_key_mode(void **state)
{
	char path[] = "/tmp/ewctl-e2e.XXXXXX";
	char want[512];

	(void)state;
	fake_reset();
	close(mkstemp(path));
	test_write_file(path, "{\"jobs\": [{\"name\": \"k\", \"psn\": \"keyed\", "
			"\"psn_key\": \"00112233445566778899aabbccddeeff\"}]}");
	assert_int_equal(chmod(path, 0644), 0);
	snprintf(want, sizeof(want), ": jobs[0].psn_key: mode 0644 lets other users read the key "
		 "(want 0600 or stricter, or a psn_keyfile): nothing was changed");
	apply_refused(path, want);
	assert_int_equal(RUN("apply", "-f", path), EW_USAGE);
	assert_int_equal(fake.st.n_jobs, 0);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(RUN("apply", "-f", path), EW_OK);
	assert_int_equal(fake.st.n_jobs, 1);
	unlink(path);
}

/*
 * psn-key -: the key from a line of standard input, kept off the command
 * line; a bad or missing line is refused and nothing is sent.
 */
static void test_psn_key_stdin(void **state)
{
	static const uint8_t want[16] = { 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88,
					  0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00 };
	char path[] = "/tmp/ewctl-e2e.XXXXXX";

	(void)state;
	fake_reset();
	test_temp_file(path, "ffeeddccbbaa99887766554433221100\n");
	assert_non_null(freopen(path, "r", stdin));
	assert_int_equal(RUN("job", "add", "k", "psn", "keyed", "psn-key", "-"), EW_OK);
	assert_int_equal(fake.st.n_jobs, 1);
	assert_memory_equal(fake.st.jobs[0].psn_key, want, sizeof(want));

	test_write_file(path, "not-a-key\n");
	assert_non_null(freopen(path, "r", stdin));
	memset(fake.msgs, 0, sizeof(fake.msgs));
	assert_int_equal(RUN("job", "add", "j", "psn", "keyed", "psn-key", "-"), EW_USAGE);
	has(err, "bad psn-key: expected 32 hex digits");
	assert_non_null(freopen("/dev/null", "r", stdin));
	assert_int_equal(RUN("job", "add", "j", "psn", "keyed", "psn-key", "-"), EW_USAGE);
	has(err, "psn-key -: no key on standard input");
	assert_int_equal(fake.msgs[EASTWEST_CMD_JOB_NEW], 0);
	assert_int_equal(fake.st.n_jobs, 1);

	/*
	 * In a batch read from standard input, "-" would swallow the batch's
	 * next line: refused, and the batch stops there.
	 */
	test_write_file(path, "job add j psn keyed psn-key -\n"
			"00112233445566778899aabbccddeeff\n");
	assert_non_null(freopen(path, "r", stdin));
	assert_int_equal(RUN("-b", "-"), EW_USAGE);
	has(err, "psn-key -: standard input holds the batch's commands");
	test_write_file(path, "peer add k file -\n10.0.0.1\n");
	assert_non_null(freopen(path, "r", stdin));
	assert_int_equal(RUN("-b", "-"), EW_USAGE);
	has(err, "-: standard input holds the batch's commands");
	assert_non_null(freopen("/dev/null", "r", stdin));
	assert_int_equal(fake.msgs[EASTWEST_CMD_JOB_NEW] + fake.msgs[EASTWEST_CMD_PEER_ADD], 0);
	assert_int_equal(fake.st.n_jobs, 1);
	unlink(path);
}

static void test_config_stats_dev(void **state)
{
	(void)state;
	assert_int_equal(RUN("config", "show"), EW_OK);
	assert_string_equal(out, "mode enforce default deny\nversion 0.1.0 jobs 0 peers 0\n");
	assert_int_equal(RUN("-j", "config"), EW_OK);
	assert_string_equal(out, "{\"mode\":\"enforce\",\"default_action\":\"deny\","
			    "\"version\":\"0.1.0\",\"job_count\":0,\"peer_count\":0}\n");
	assert_int_equal(RUN("job", "add", "a"), EW_OK);
	assert_int_equal(RUN("stats"), EW_OK);
	has(out, "global\n    allowed 2 audited 3 denied 4 psn-zero 14 events-dropped 22\n");
	has(out, "job a id 1\n    allowed 102 ");
	assert_int_equal(RUN("-j", "stats"), EW_OK);
	has(out, "{\"global\":{\"allowed\":2,\"audited\":3,\"denied\":4,\"denied_no_job\":5,");
	has(out, "\"jobs\":[{\"id\":1,\"name\":\"a\",\"counters\":{\"allowed\":102,");
	/* rxe0 comes in two messages (fake_kernel.c's dev_dump()): one device. */
	assert_int_equal(RUN("dev", "show"), EW_OK);
	assert_string_equal(out, "dev rxe0 index 3 qpn-observed 40 qpn-sequential 39 qpns random\n    port 1 link-layer ethernet\n"
			    "        pkey 0 0xffff\n"
			    "        gid 1 192.0.2.1 type roce-v2 netdev lo vlan 100\n"
			    "        gid 2 192.0.2.2 type roce-v2 netdev lo vlan 100\n"
			    "dev rxe1 index 4 qpn-observed 40 qpn-sequential 39 qpns random\n    port 1 link-layer ethernet\n"
			    "        gid 0 192.0.2.9 type roce-v2 netdev lo vlan 100\n");
	assert_int_equal(RUN("-j", "dev", "show"), EW_OK);
	assert_string_equal(out, "[{\"index\":3,\"name\":\"rxe0\",\"qpn_observed\":40,\"qpn_sequential\":39,\"qpns\":\"random\",\"ports\":[{\"num\":1,"
			    "\"link_layer\":\"ethernet\",\"gids\":[{\"index\":1,\"gid\":\"192.0.2.1\","
			    "\"type\":\"roce-v2\",\"ifindex\":1,\"ifname\":\"lo\",\"vlan\":100},"
			    "{\"index\":2,\"gid\":\"192.0.2.2\",\"type\":\"roce-v2\",\"ifindex\":1,\"ifname\":\"lo\",\"vlan\":100}],"
			    "\"pkeys\":[\"0xffff\"]}]},"
			    "{\"index\":4,\"name\":\"rxe1\",\"qpn_observed\":40,\"qpn_sequential\":39,\"qpns\":\"random\",\"ports\":[{\"num\":1,"
			    "\"link_layer\":\"ethernet\",\"gids\":[{\"index\":0,\"gid\":\"192.0.2.9\","
			    "\"type\":\"roce-v2\",\"ifindex\":1,\"ifname\":\"lo\",\"vlan\":100}],"
			    "\"pkeys\":[]}]}]\n");
}

static void test_batch(void **state)
{
	char path[] = "/tmp/ewctl-e2e.XXXXXX";

	(void)state;
	test_temp_file(path, "# setup\njob add a id 5\n\npeer add id 5 10.0.0.1 'lid:4' # trailing\n"
		       "job add a\njob add never\n");
	assert_int_equal(RUN("-b", path), EW_PARTIAL);
	has(err, ":5: job add a: job name already in use (attribute name)\n");
	assert_int_equal(fake.st.n_jobs, 1);
	assert_int_equal(fake.st.jobs[0].peers.n, 2);
	assert_string_equal(out, "5\n");
	unlink(path);
}

/*
 * A batch is read and split whole before its first line runs, so a syntax
 * error anywhere changes nothing (2). A line that fails after earlier lines
 * changed something exits 7, whatever its own status; after lines that
 * changed nothing (reads, an apply with nothing to do), its own.
 */
static void test_batch_partial(void **state)
{
	char path[] = "/tmp/ewctl-e2e.XXXXXX", pol[] = "/tmp/ewctl-e2e.XXXXXX";
	char text[256];

	(void)state;
	test_temp_file(path, "job add a\njob add b peer 10.0.0.1 peer 'lid:4\njob add c\n");
	assert_int_equal(RUN("-b", path), EW_USAGE);
	has(err, ":2: unterminated quote\n");
	assert_int_equal(fake.st.n_jobs, 0);

	test_write_file(path, "job add a\njob del nosuch\njob add never\n");
	assert_int_equal(RUN("-b", path), EW_PARTIAL);
	has(err, ":2: job del nosuch: ");
	has(err, ":2: failed after earlier lines changed the node: their changes stay\n");
	assert_int_equal(fake.st.n_jobs, 1);

	/* The command's own parse error: 2 would say nothing was sent. */
	test_write_file(path, "job del a\njob add b peer 10.0.0.300\n");
	assert_int_equal(RUN("-b", path), EW_PARTIAL);
	assert_int_equal(fake.st.n_jobs, 0);

	/* Reads and an apply with nothing to do change nothing. */
	test_temp_file(pol, "{\"jobs\": []}");
	snprintf(text, sizeof(text), "job show\nshow\napply -f %s\njob del nosuch\n", pol);
	test_write_file(path, text);
	assert_int_equal(RUN("-b", path), EW_NOENT);
	assert_null(strstr(err, "earlier lines"));

	/* A refused first line: its own status. */
	test_write_file(path, "job del nosuch\njob add a\n");
	assert_int_equal(RUN("-b", path), EW_NOENT);
	assert_int_equal(fake.st.n_jobs, 0);
	unlink(pol);
	unlink(path);
}

/*
 * A NUL byte in a batch line is refused like any other parse error of the
 * line: not cut there, the rest of the line lost.
 */
static void test_batch_nul(void **state)
{
	static const char text[] = "job add a peer 10.0.0.1\0 peer 10.0.0.2 mode audit\n";
	char path[] = "/tmp/ewctl-e2e.XXXXXX", want[128];
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_int_equal(RUN("-b", path), EW_USAGE);
	snprintf(want, sizeof(want), "%s:1: NUL byte\n", path);
	has(err, want);
	assert_int_equal(fake.st.n_jobs, 0);
	unlink(path);
}

/* The attestation commands' errors name the batch line like every other. */
static void test_batch_attest_error(void **state)
{
	static const char text[] =
		"# the nonce is not hex\nattest quote nonce zz out /nonexistent/q.json\n";
	char path[] = "/tmp/ewctl-e2e.XXXXXX";

	(void)state;
	close(mkstemp(path));
	assert_int_equal(ew_write_file(path, text, strlen(text), 0600), 0);
	assert_int_equal(RUN("-b", path), EW_USAGE);
	has(err, ":2: attest quote: nonce \"zz\": expected 16 to 64 bytes of hex\n");
	unlink(path);
}

/*
 * attest runs eastwest-attest with eastwestctl's -j, the batch line and
 * this eastwestctl as $EW_CTL; without the program, a clear error.
 */
static void test_attest_runs_its_program(void **state)
{
	const char *prog = getenv("EASTWEST_ATTEST");
	char *saved = ew_strdup(prog);

	(void)state;
	assert_int_equal(RUN("attest", "help"), EW_OK);
	has(out, "attest watch [interval SEC]");
	assert_int_equal(RUN("-j", "attest", "quote", "nonce", "zz", "out", "/nonexistent/q"),
			 EW_USAGE);
	has(err, "eastwest-attest: attest quote: nonce \"zz\"");
	/* An argument that looks like an option is still the command's. */
	assert_int_equal(RUN("attest", "-x"), EW_USAGE);
	has(err, "attest: unknown command \"-x\"");
	setenv("EASTWEST_ATTEST", "/nonexistent-ew/eastwest-attest", 1);
	assert_int_equal(RUN("attest", "handles"), EW_FAIL);
	has(err, "cannot run /nonexistent-ew/eastwest-attest");
	setenv("EASTWEST_ATTEST", "eastwest-attest", 1);
	assert_int_equal(RUN("attest", "handles"), EW_FAIL);
	has(err, "EASTWEST_ATTEST=eastwest-attest is not an absolute path");
	setenv("EASTWEST_ATTEST", saved, 1);
	free(saved);
}

static void test_monitor(void **state)
{
	(void)state;
	fake.events = 3;
	fake.unload = true;
	assert_int_equal(RUN("monitor"), EW_FAIL);
	assert_string_equal(out,
		"deny modify-qp reason peer job none pid 812 uid 65534 comm bad?app? cgroup 77 dev rxe0 port 1 qpn 0x11 dest 198.51.100.9 dest-qpn 0x12\n"
		"audit modify-qp reason peer job 3 pid 813 uid 65534 comm bad?app? cgroup 77 dev rxe0 port 1 qpn 0x11 dest 198.51.100.9 dest-qpn 0x12\n"
		"deny modify-qp reason peer job none pid 814 uid 65534 comm bad?app? cgroup 77 dev rxe0 port 1 qpn 0x11 dest 198.51.100.9 dest-qpn 0x12\n");
	assert_string_equal(err, "eastwestctl: monitor: the eastwest module was unloaded\n");

	fake_reset();
	fake.events = 2;
	fake.unload = true;
	assert_int_equal(RUN("-j", "monitor"), EW_FAIL);
	has(out, "{\"event\":\"deny\",\"mode\":\"audit\",\"op\":\"modify-qp\",\"reason\":\"peer\",\"job_id\":3,"
	    "\"pid\":813,\"uid\":65534,\"port\":1,\"qpn\":17,\"dest_qpn\":18,\"comm\":\"bad app\\n\","
	    "\"cgroup_id\":77,\"dev_name\":\"rxe0\",\"dest_gid\":\"198.51.100.9\"}\n");

	/* SIGTERM (blocked, taken from the signalfd) ends it cleanly. */
	fake_reset();
	fake.events = 2;
	fake.sigterm = true;
	assert_int_equal(RUN("monitor"), EW_OK);
	has(out, "pid 812");
	assert_string_equal(err, "");
}

/*
 * The output of every command, text and JSON (plain and -p), against the
 * transcript tests/output.golden: scripts, the VM tests and "show -j" as a
 * policy file all read it, so a change must be deliberate. Each entry is
 * "$ eastwestctl ARGS", the output and, if not 0, "[exit N]". With
 * EW_GOLDEN_UPDATE=1 the file is rewritten instead; the transcript of a
 * failed comparison is left in /tmp/ewctl-output.actual.
 */
#define GOLDEN "tests/output.golden"
#define GOLDEN_ACTUAL "/tmp/ewctl-output.actual"

static FILE *transcript;
static char policy[] = "/tmp/ewctl-e2e.XXXXXX";

/* Runs @args and adds it to the transcript, with the policy file's name as POLICY. */
static void capture(char **args)
{
	const char *s, *hit;
	int ret, i;

	ret = run_argv(args);
	fputs("$", transcript);
	for (i = 0; args[i]; i++)
		fprintf(transcript, " %s", strcmp(args[i], policy) ? args[i] : "POLICY");
	fputc('\n', transcript);
	for (s = out; (hit = strstr(s, policy)); s = hit + strlen(policy))
		fprintf(transcript, "%.*sPOLICY", (int)(hit - s), s);
	fputs(s, transcript);
	if (ret)
		fprintf(transcript, "[exit %d]\n", ret);
}

#define CAP(...) capture((char *[]){ "eastwestctl", __VA_ARGS__, NULL })
/* A command that changes nothing, in its three forms. */
#define CAP3(...)						\
	do {							\
		CAP(__VA_ARGS__);				\
		CAP("-j", __VA_ARGS__);				\
		CAP("-j", "-p", __VA_ARGS__);			\
	} while (0)

static void capture_reads(void)
{
	CAP3("job", "show");
	CAP3("job", "show", "a");
	CAP3("peer", "show", "a");
	CAP3("peer", "get", "a", "192.0.2.5");
	CAP3("show");
	CAP3("config", "show");
	CAP3("stats");
	CAP3("stats", "top", "1");
	CAP3("stats", "top", "0");
	CAP3("stats", "top", "2", "interval", "4");
	CAP3("dev", "show");
	CAP3("node", "show");
	CAP3("path", "check", "dev", "rxe0", "port", "1", "sgid-index", "1", "dst", "192.0.2.9");
	CAP3("path", "caps", "dev", "lo");
}

static void test_output_golden(void **state)
{
	static char file[1 << 16];
	struct test_out t;
	char *text, *want, *keyed;
	size_t len;

	(void)state;
	transcript = test_out_open(&t);
	close(mkstemp(policy));

	CAP3("job", "show");
	CAP3("show");
	CAP("job", "add", "a", "cgroup", "/x", "peer", "192.0.2.0/24", "lid", "7", "vlan", "100",
	    "netdev", "lo", "vrf", "lo", "pkey", "0x8001", "qkey", "0x1234", "mode", "audit",
	    "encrypt", "macsec");
	CAP("-j", "job", "add", "b", "id", "40", "cgroup", "/y", "ud", "on", "dc", "on",
	    "psn", "keyed", "psn-key", "00112233445566778899aabbccddeeff");
	CAP("-j", "-p", "job", "add", "c", "vlan", "5", "encrypt", "any", "peer", "fe80::/64");
	CAP("peer", "add", "a", "fe80::1", "lid", "9");
	CAP("node", "revoke", "198.51.100.7", "2001:db8::1");
	capture_reads();

	/*
	 * A plan with every kind of step, in the three forms, then applied.
	 * The kernel never reports a PSN key: the file gives b's again.
	 */
	CAP("-j", "show");
	keyed = strstr(out, "\"psn\":\"keyed\"");
	assert_non_null(keyed);
	keyed += strlen("\"psn\":\"keyed\"");
	snprintf(file, sizeof(file), "%.*s,\"psn_key\":\"00112233445566778899aabbccddeeff\"%s",
		 (int)(keyed - out), out, keyed);
	test_write_file(policy, file);
	CAP("job", "del", "b");
	CAP("job", "add", "intruder", "cgroup", "/system.slice/job_42");
	CAP("peer", "add", "a", "198.51.100.1");
	CAP("peer", "del", "a", "lid:9");
	CAP("job", "set", "a", "mode", "enforce", "cgroup", "none", "dc", "on", "name", "a");
	CAP("config", "set", "mode", "audit", "default", "allow");
	CAP3("apply", "--dry-run", "-f", policy);
	CAP("-j", "-p", "apply", "-f", policy);
	CAP3("apply", "-f", policy);

	/* The optional attributes: admission, revoked nodes, GID protection, ... */
	fake.full = true;
	CAP("config", "set", "admission", "admitted", "admission-required", "on",
	    "admission-ttl", "600");
	capture_reads();
	CAP("config", "set", "admission", "revoked");
	CAP3("config", "show");
	CAP("node", "admit", "198.51.100.7", "2001:db8::1");
	CAP3("node", "show");
	CAP("stats", "prometheus");

	fake.events = 2;
	fake.unload = true;
	CAP("monitor");
	fake.events = 2;
	fake.unload = true;
	CAP("-j", "monitor");
	fake.events = 2;
	fake.unload = true;
	CAP("-j", "-p", "monitor");
	unlink(policy);

	text = test_out_close(&t);
	if (getenv("EW_GOLDEN_UPDATE")) {
		assert_int_equal(ew_write_file(GOLDEN, text, strlen(text), 0644), 0);
		free(text);
		return;
	}
	assert_int_equal(ew_read_file(GOLDEN, 1 << 24, &want, &len), EW_OK);
	if (strcmp(text, want)) {
		ew_write_file(GOLDEN_ACTUAL, text, strlen(text), 0644);
		fail_msg("the output differs from " GOLDEN ": diff -u " GOLDEN " " GOLDEN_ACTUAL);
	}
	free(want);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_job_lifecycle, reset),
		cmocka_unit_test_setup(test_job_ud_dc, reset),
		cmocka_unit_test_setup(test_peers_chunked, reset),
		cmocka_unit_test_setup(test_errors, reset),
		cmocka_unit_test_setup(test_dump_intr, reset),
		cmocka_unit_test_setup(test_show_apply_roundtrip, reset),
		cmocka_unit_test_setup(test_refused_step, reset),
		cmocka_unit_test_setup(test_apply_refused_files, reset),
		cmocka_unit_test_setup(test_apply_directory, reset),
		cmocka_unit_test_setup(test_help_exit_status, reset),
		cmocka_unit_test_setup(test_apply_rollback, reset),
		cmocka_unit_test_setup(test_apply_rollback_refused, reset),
		cmocka_unit_test_setup(test_apply_rollback_rekeyed, reset),
		cmocka_unit_test_setup(test_apply_exit_status, reset),
		cmocka_unit_test_setup(test_apply_undo_deleted_meanwhile, reset),
		cmocka_unit_test_setup(test_job_set_rollback, reset),
		cmocka_unit_test_setup(test_apply_psn_key_mode, setup),
		cmocka_unit_test_setup(test_psn_key_stdin, setup),
		cmocka_unit_test_setup(test_apply_keyed_psn, reset),
		cmocka_unit_test_setup(test_apply_keyed_to_app, reset),
		cmocka_unit_test_setup(test_apply_rekey, reset),
		cmocka_unit_test_setup(test_node_lock, reset),
		cmocka_unit_test_setup(test_signal_deferred, reset),
		cmocka_unit_test_setup(test_config_stats_dev, reset),
		cmocka_unit_test_setup(test_batch, reset),
		cmocka_unit_test_setup(test_batch_nul, reset),
		cmocka_unit_test_setup(test_batch_partial, reset),
		cmocka_unit_test_setup(test_batch_attest_error, reset),
		cmocka_unit_test_setup(test_attest_runs_its_program, reset),
		cmocka_unit_test_setup(test_monitor, reset),
		cmocka_unit_test_setup(test_apply_expect, reset),
		cmocka_unit_test_setup(test_output_golden, reset),
	};
	/* The tests run in userspace/, where the program is built. */
	char *attest = realpath("attest/eastwest-attest", NULL);
	int ret;

	if (!attest) {
		fprintf(stderr, "e2e: attest/eastwest-attest: %s\n", strerror(errno));
		return 1;
	}
	setenv("EASTWEST_ATTEST", attest, 1);
	free(attest);
	/* A lock of the tests' own, not the node's. */
	close(mkstemp(lock_path));
	setenv("EASTWEST_LOCK", lock_path, 1);
	setenv("EASTWEST_LOCK_WAIT", "1", 1);

	ret = cmocka_run_group_tests_name("e2e", tests, setup, teardown);
	unlink(lock_path);
	return ret;
}
