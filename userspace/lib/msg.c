// SPDX-License-Identifier: GPL-2.0
/*
 * Messages, allocation and byte buffers (see ewlib.h).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ewlib.h"

const char *ew_prog = "eastwestctl";
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

static void vmsg(const char *kind, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	char msg[1024], *s;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* Control characters (a newline in a kernel or TSS message, a file
	 * name) would break the line. */
	for (s = msg; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
	if (!*kind)
		snprintf(last_error, sizeof(last_error), "%s", msg);
	if (ew_quiet)
		return;
	fflush(stdout);
	if (loc_file)
		fprintf(stderr, "%s: %s:%lu: %s%s\n", ew_prog, loc_file, loc_line,
			kind, msg);
	else
		fprintf(stderr, "%s: %s%s\n", ew_prog, kind, msg);
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
		fprintf(stderr, "%s: out of memory\n", ew_prog);
		exit(EXIT_FAILURE);
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

char *ew_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return oom(n < 0 ? NULL : s);
}

void ew_buf_add(struct ew_buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->len + n + 1) {
			if (cap > (size_t)-1 / 2)
				oom(NULL);
			cap *= 2;
		}
		b->data = ew_reallocarray(b->data, cap, 1);
		b->cap = cap;
	}
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	/* Always NUL-terminated, so text files can be handed to parsers. */
	b->data[b->len] = 0;
}

void ew_buf_free(struct ew_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
