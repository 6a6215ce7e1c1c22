// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: lib/ -- the helpers of every binary: hex decoding (odd
 * lengths, bad digits, too long), whole-file reads (limits, missing files,
 * NUL termination), atomic writes (the mode whatever the umask, the old
 * file intact and no temporary file left when the writer fails) and running
 * programs (exit status, signal, capture, a program that is not there, the
 * eastwestctl of $EW_CTL).
 */
#include "helpers.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/ew-lib-test-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	(void)state;
	while (d && (e = readdir(d)))
		unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	return rmdir(dir);
}

static const char *path(const char *name)
{
	static char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_unhex(void **state)
{
	uint8_t out[4];
	size_t len = 99;

	(void)state;
	assert_int_equal(ew_unhex("00aBfF", out, sizeof(out), &len), 0);
	assert_int_equal(len, 3);
	assert_int_equal(out[0], 0x00);
	assert_int_equal(out[1], 0xab);
	assert_int_equal(out[2], 0xff);
	assert_int_equal(ew_unhex("", out, sizeof(out), &len), 0);
	assert_int_equal(len, 0);
	assert_int_equal(ew_unhex("abc", out, sizeof(out), &len), -1);
	assert_int_equal(ew_unhex("0g", out, sizeof(out), &len), -1);
	assert_int_equal(ew_unhex("0x00", out, sizeof(out), &len), -1);
	assert_int_equal(ew_unhex("0011223344", out, sizeof(out), &len), -1);
	assert_int_equal(ew_unhex_n("11zz", 2, out, 1, &len), 0);
	assert_int_equal(len, 1);
	assert_int_equal(out[0], 0x11);
	assert_int_equal(ew_hexval('F'), 15);
	assert_int_equal(ew_hexval('G'), -1);
}

static int put_text(FILE *f, const void *arg)
{
	fputs(arg, f);
	return 0;
}

static int put_half_then_fail(FILE *f, const void *arg)
{
	fputs(arg, f);
	return 1;
}

static void test_read(void **state)
{
	struct ew_buf b = { 0 };

	(void)state;
	assert_int_equal(ew_read_path(path("missing"), 100, &b), -ENOENT);
	assert_int_equal(ew_write_file(path("f"), "12345", 5, 0600), 0);
	assert_int_equal(ew_read_path(path("f"), 5, &b), 0);
	assert_int_equal(b.len, 5);
	assert_memory_equal(b.data, "12345", 6);	/* NUL-terminated */
	assert_int_equal(ew_read_path(path("f"), 4, &b), -EFBIG);
	assert_int_equal(ew_write_file(path("empty"), "", 0, 0600), 0);
	assert_int_equal(ew_read_path(path("empty"), 4, &b), 0);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.data[0], 0);
	ew_buf_free(&b);
}

static void test_write_atomic(void **state)
{
	struct ew_buf b = { 0 };
	struct stat st;
	mode_t old;
	int n;

	(void)state;
	n = entries();
	old = umask(077);
	assert_int_equal(ew_write_atomic(path("w"), 0644, put_text, "first\n", NULL), 0);
	umask(old);
	assert_int_equal(stat(path("w"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(ew_write_atomic(path("w"), 0640, put_text, "second\n", NULL), 0);
	assert_int_equal(ew_read_path(path("w"), 100, &b), 0);
	assert_string_equal((char *)b.data, "second\n");
	assert_int_equal(stat(path("w"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	/* A writer that fails: the old file stays whole, nothing is left. */
	assert_int_equal(ew_write_atomic(path("w"), 0644, put_half_then_fail, "thi", NULL),
			 -EIO);
	assert_int_equal(ew_read_path(path("w"), 100, &b), 0);
	assert_string_equal((char *)b.data, "second\n");
	assert_int_equal(entries(), n + 1);
	/* No such directory: the create fails, with a message naming it. */
	ew_quiet = true;
	assert_int_equal(ew_write_atomic("/nonexistent-ew/x", 0644, put_text, "", "test"),
			 -ENOENT);
	assert_non_null(strstr(ew_last_error(), "test: cannot create /nonexistent-ew/.x."));
	ew_buf_free(&b);
}

static void test_run(void **state)
{
	char *sh_exit[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	char *sh_kill[] = { "sh", "-c", "kill -TERM $$", NULL };
	char *sh_big[] = { "sh", "-c", "head -c 70000000 /dev/zero", NULL };
	char *none[] = { "none", NULL };
	char *args[] = { "config", "set", "admission", "admitted", NULL };
	char *out = NULL;

	(void)state;
	assert_int_equal(ew_run("/bin/sh", sh_exit, EW_RUN_STDIN_NULL, &out), 3);
	assert_string_equal(out, "out\n");
	free(out);
	out = NULL;
	/* Searched in $PATH; without @out nothing is captured. */
	assert_int_equal(ew_run("sh", sh_exit, EW_RUN_STDOUT_TO_STDERR, NULL), 3);
	assert_int_equal(ew_run("/bin/sh", sh_kill, 0, NULL), 128 + 15);
	/* More than the limit: no output, an error; the child is reaped. */
	assert_int_equal(ew_run("/bin/sh", sh_big, 0, &out), -1);
	assert_null(out);
	assert_non_null(strstr(ew_last_error(), "more than"));
	assert_int_equal(ew_run("/nonexistent-ew/none", none, 0, NULL), EW_RUN_NOT_FOUND);
	assert_int_equal(ew_run("nonexistent-ew-program", none, 0, NULL), EW_RUN_NOT_FOUND);

	/* eastwestctl is $EW_CTL: an absolute path, given our arguments. */
	setenv("EW_CTL", "/bin/echo", 1);
	assert_int_equal(ew_ctl_run(args, 0, &out), 0);
	assert_string_equal(out, "config set admission admitted\n");
	free(out);
	out = NULL;
	setenv("EW_CTL", "echo", 1);
	assert_int_equal(ew_ctl_run(args, 0, &out), EW_RUN_NOT_FOUND);
	assert_null(out);
	assert_non_null(strstr(ew_last_error(), "EW_CTL=echo is not an absolute path"));
	unsetenv("EW_CTL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unhex),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_write_atomic),
		cmocka_unit_test(test_run),
	};

	return cmocka_run_group_tests_name("lib", tests, setup, teardown);
}
