// SPDX-License-Identifier: GPL-2.0
/*
 * Messages, allocation, byte buffers and string vectors (see ewlib.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "ewlib.h"

const char *ew_prog = "eastwestctl";
bool ew_quiet;
bool ew_batch_stdin;
const char *ew_syslog_ident;

static const char *loc_file;
static unsigned long loc_line;
static char last_error[1024];

void ew_set_location(const char *file, unsigned long line)
{
	loc_file = file;
	loc_line = line;
}

const char *ew_location(unsigned long *line)
{
	*line = loc_line;
	return loc_file;
}

const char *ew_last_error(void)
{
	return last_error;
}

static void vmsg(int prio, const char *kind, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void vmsg(int prio, const char *kind, const char *fmt, va_list ap)
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
	if (ew_syslog_ident) {
		/* Without a syslog socket this does nothing (no LOG_CONS). */
		openlog(ew_syslog_ident, LOG_PID, LOG_DAEMON);
		syslog(prio, "%s%s", kind, msg);
		closelog();
	}
}

void ew_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(LOG_ERR, "", fmt, ap);
	va_end(ap);
}

void ew_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(LOG_WARNING, "warning: ", fmt, ap);
	va_end(ap);
}

int ew_bad(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void ew_unknown_option(char *const argv[])
{
	if (optopt)
		ew_err("unknown option -%c (try \"%s help\")", optopt, ew_prog);
	else
		ew_err("unknown option \"%s\" (try \"%s help\")", argv[optind - 1], ew_prog);
}

int ew_flush_stdout(int ret, int fail)
{
	if (fflush(stdout) || ferror(stdout)) {
		ew_err("write error: %s", strerror(errno));
		if (!ret)
			ret = fail;
	}
	return ret;
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

static char *vasprintf_or_exit(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

static char *vasprintf_or_exit(const char *fmt, va_list ap)
{
	char *s;

	return oom(vasprintf(&s, fmt, ap) < 0 ? NULL : s);
}

char *ew_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vasprintf_or_exit(fmt, ap);
	va_end(ap);
	return s;
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

/* Appends the string @s, which @sv now owns. */
static void strv_push(struct ew_strv *sv, char *s)
{
	if (sv->n + 1 >= sv->cap) {
		sv->cap = sv->cap ? 2 * sv->cap : 16;
		sv->v = ew_reallocarray(sv->v, sv->cap, sizeof(*sv->v));
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void ew_strv_add(struct ew_strv *sv, const char *s)
{
	strv_push(sv, ew_strdup(s));
}

void ew_strv_addf(struct ew_strv *sv, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vasprintf_or_exit(fmt, ap);
	va_end(ap);
	strv_push(sv, s);
}

void ew_strv_free(struct ew_strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
	sv->cap = 0;
}
