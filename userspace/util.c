// SPDX-License-Identifier: GPL-2.0
/*
 * Messages, allocation and reading an input file.
 *
 * Every error is one line on stderr, "eastwestctl: what is wrong", with the
 * batch file and line in front while a batch runs. The last message is kept
 * for the unit tests.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ewctl.h"

struct ew_opts ew_opts;
bool ew_quiet;

static const char *loc_file;
static unsigned long loc_line;
static char last_error[1024];

void ew_set_location(const char *file, unsigned long line)
{
	loc_file = file;
	loc_line = line;
}

const char *ew_last_error(void)
{
	return last_error;
}

/* Control characters (a newline in a kernel message) would break the line. */
static void flatten(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

static void vmsg(const char *kind, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	flatten(msg);
	if (!*kind)
		snprintf(last_error, sizeof(last_error), "%s", msg);
	if (ew_quiet)
		return;
	fflush(stdout);
	if (loc_file)
		fprintf(stderr, "%s: %s:%lu: %s%s\n", EW_PROG, loc_file, loc_line,
			kind, msg);
	else
		fprintf(stderr, "%s: %s%s\n", EW_PROG, kind, msg);
}

void ew_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void ew_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

static void *oom(void *p)
{
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", EW_PROG);
		exit(EW_FAIL);
	}
	return p;
}

void *ew_malloc(size_t size)
{
	return oom(malloc(size ? size : 1));
}

void *ew_calloc(size_t n, size_t size)
{
	return oom(calloc(n ? n : 1, size ? size : 1));
}

void *ew_reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > (size_t)-1 / size)
		return oom(NULL);
	return oom(realloc(p, (n && size) ? n * size : 1));
}

char *ew_strdup(const char *s)
{
	return oom(strdup(s));
}

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

int ew_read_file(const char *path, size_t max_bytes, char **text, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	size_t cap = 65536, n = 0, r;
	char *buf, limit[32];

	if (!f) {
		ew_err("%s: %s", path, strerror(errno));
		return EW_USAGE;
	}
	/* Room for one byte more than allowed tells "too large" from "full". */
	if (cap > max_bytes)
		cap = max_bytes + 1;
	buf = ew_malloc(cap);
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n > max_bytes) {
			size_str(max_bytes, limit, sizeof(limit));
			ew_err("%s: larger than %s", path, limit);
			goto err;
		}
		if (n == cap) {
			cap = cap > max_bytes / 2 ? max_bytes + 1 : 2 * cap;
			buf = ew_reallocarray(buf, cap, 1);
		}
	}
	if (ferror(f)) {
		ew_err("%s: read error", path);
		goto err;
	}
	if (f != stdin)
		fclose(f);
	*text = buf;
	*len = n;
	return EW_OK;
err:
	free(buf);
	if (f != stdin)
		fclose(f);
	return EW_USAGE;
}
