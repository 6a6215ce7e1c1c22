// SPDX-License-Identifier: GPL-2.0
/*
 * Messages and allocation for the attestation code. Every error is one
 * line on stderr, "PROG: what is wrong", naming the bad input; the last
 * one is kept for the unit tests. Separate from userspace/util.c because
 * the verifier is its own program with its own name.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ewa.h"

const char *ewa_prog = "eastwestctl";
bool ewa_quiet;

static char last_error[1024];

const char *ewa_last_error(void)
{
	return last_error;
}

static void vmsg(const char *kind, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	char msg[1024], *s;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* A newline inside a file name or a TSS message would break the line. */
	for (s = msg; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
	if (!*kind)
		snprintf(last_error, sizeof(last_error), "%s", msg);
	if (ewa_quiet)
		return;
	fflush(stdout);
	fprintf(stderr, "%s: %s%s\n", ewa_prog, kind, msg);
}

void ewa_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void ewa_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

static void *oom(void *p)
{
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", ewa_prog);
		exit(EWA_FAIL);
	}
	return p;
}

void *ewa_malloc(size_t size)
{
	return oom(malloc(size ? size : 1));
}

void *ewa_calloc(size_t n, size_t size)
{
	return oom(calloc(n ? n : 1, size ? size : 1));
}

void *ewa_realloc(void *p, size_t size)
{
	return oom(realloc(p, size ? size : 1));
}

char *ewa_strdup(const char *s)
{
	return oom(strdup(s));
}

char *ewa_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return oom(n < 0 ? NULL : s);
}

void ewa_buf_add(struct ewa_buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->len + n + 1) {
			if (cap > (size_t)-1 / 2)
				oom(NULL);
			cap *= 2;
		}
		b->data = ewa_realloc(b->data, cap);
		b->cap = cap;
	}
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	/* Always NUL-terminated, so text files can be handed to parsers. */
	b->data[b->len] = 0;
}

void ewa_buf_free(struct ewa_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
