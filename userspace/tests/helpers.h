/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the unit tests: a temporary directory standing in for the
 * cgroup2 mount, files written for a test, a stream that collects what a
 * writer prints, and cmocka's includes in the order it needs.
 */
#ifndef EW_TEST_HELPERS_H
#define EW_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ewctl.h"
#include "io/cgroup.h"

static char test_cg_root[64];

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Makes DIR/system.slice/job_42, DIR/x, DIR/y and a file DIR/file. */
static inline int test_cgroup_setup(void **state)
{
	char p[128];
	FILE *f;

	(void)state;
	ew_quiet = true;
	snprintf(test_cg_root, sizeof(test_cg_root), "/tmp/ewctl-test.XXXXXX");
	if (!mkdtemp(test_cg_root))
		return -1;
	snprintf(p, sizeof(p), "%s/system.slice", test_cg_root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/system.slice/job_42", test_cg_root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/x", test_cg_root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/y", test_cg_root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/file", test_cg_root);
	f = fopen(p, "w");
	if (f)
		fclose(f);
	ew_cgroup_set_mount(test_cg_root);
	return 0;
}

static inline int test_cgroup_teardown(void **state)
{
	(void)state;
	ew_cgroup_set_mount(NULL);
	return nftw(test_cg_root, rm_cb, 8, FTW_DEPTH | FTW_PHYS);
}

/* Replaces the file at @path with @text. */
static inline void test_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A new temporary file holding @text; @path ("...XXXXXX") gets its name. */
static inline void test_temp_file(char *path, const char *text)
{
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	test_write_file(path, text);
}

/* What a writer prints to f, collected in memory. */
struct test_out {
	FILE *f;
	char *buf;
	size_t len;
};

static inline FILE *test_out_open(struct test_out *o)
{
	o->buf = NULL;
	o->f = open_memstream(&o->buf, &o->len);
	assert_non_null(o->f);
	return o->f;
}

/* Closes the stream; returns what was written (NUL-terminated, free() it). */
static inline char *test_out_close(struct test_out *o)
{
	fclose(o->f);
	return o->buf;
}

#endif /* EW_TEST_HELPERS_H */
