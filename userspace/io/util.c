// SPDX-License-Identifier: GPL-2.0
/*
 * The global options and reading an input file with eastwestctl's messages.
 * Messages and allocation are lib/msg.c's: every error is one line on
 * stderr, "eastwestctl: what is wrong", with the batch file and line in
 * front while a batch runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ewctl.h"


/* "256 MiB", "64 KiB" or "100 bytes": a size limit for a message. */
static void size_str(size_t n, char *buf, size_t len)
{
	if (n && !(n % (1024 * 1024)))
		snprintf(buf, len, "%zu MiB", n >> 20);
	else if (n && !(n % 1024))
		snprintf(buf, len, "%zu KiB", n >> 10);
	else
		snprintf(buf, len, "%zu bytes", n);
}

unsigned long ew_changes;

int ew_read_file(const char *path, size_t max_bytes, char **text, size_t *len)
{
	FILE *f;
	struct ew_buf b = { 0 };
	char limit[32];
	int ret;

	if (!strcmp(path, "-") && ew_batch_stdin) {
		ew_err("-: standard input holds the batch's commands");
		return EW_USAGE;
	}
	f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	if (!f) {
		ew_err("%s: %s", path, strerror(errno));
		return EW_USAGE;
	}
	/* fopen() takes a directory: its read says so ("Is a directory"). */
	errno = 0;
	ret = ew_read_stream(f, max_bytes, &b);
	if (f != stdin)
		fclose(f);
	if (ret == -EFBIG) {
		size_str(max_bytes, limit, sizeof(limit));
		ew_err("%s: larger than %s", path, limit);
	} else if (ret) {
		ew_err("%s: %s", path, strerror(-ret));
	}
	if (ret) {
		ew_buf_free(&b);
		return EW_USAGE;
	}
	*text = (char *)b.data;
	*len = b.len;
	return EW_OK;
}
