// SPDX-License-Identifier: GPL-2.0
/*
 * Messages and allocation.
 *
 * Every message is one line on stderr, "eastwest oci-hook: what is wrong":
 * runc puts a failing hook's stderr into its own error, which is what the
 * operator (or "kubectl describe pod") shows. crun (podman's default
 * runtime on Debian) sends a hook's stderr to /dev/null unless the
 * container asks otherwise and reports only the exit code, so every message
 * also goes to syslog (journalctl -t eastwest-oci-hook), where there is one.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "hook.h"

static void vmsg(int prio, const char *kind, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void vmsg(int prio, const char *kind, const char *fmt, va_list ap)
{
	char msg[1024];
	char *c;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* Control characters (from a file or the state) would break the line. */
	for (c = msg; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	fprintf(stderr, "%s: %s%s\n", EWOCI_PROG, kind, msg);
	/* Without a syslog socket this does nothing (no LOG_CONS). */
	openlog(EWOCI_SYSLOG_IDENT, LOG_PID, LOG_DAEMON);
	syslog(prio, "%s%s", kind, msg);
	closelog();
}

void ewoci_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(LOG_ERR, "", fmt, ap);
	va_end(ap);
}

void ewoci_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(LOG_WARNING, "warning: ", fmt, ap);
	va_end(ap);
}

static void *oom(void *p)
{
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", EWOCI_PROG);
		exit(EWOCI_FAIL);
	}
	return p;
}

int ewoci_bad(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void *ewoci_malloc(size_t size)
{
	return oom(malloc(size ? size : 1));
}

char *ewoci_strdup(const char *s)
{
	return oom(strdup(s));
}

void ewoci_strv_add(struct ewoci_strv *sv, const char *s)
{
	if (sv->n + 1 >= sv->cap) {
		sv->cap = sv->cap ? 2 * sv->cap : 16;
		sv->v = oom(reallocarray(sv->v, sv->cap, sizeof(*sv->v)));
	}
	sv->v[sv->n++] = ewoci_strdup(s);
	sv->v[sv->n] = NULL;
}

void ewoci_strv_addf(struct ewoci_strv *sv, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (ret < 0)
		oom(NULL);
	ewoci_strv_add(sv, s);
	free(s);
}

void ewoci_strv_free(struct ewoci_strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
	sv->cap = 0;
}
