/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eastwestctl: declarations shared by every file (exit codes, global
 * options, messages, allocation).
 */
#ifndef EWCTL_H
#define EWCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifndef EW_VERSION
#define EW_VERSION "unknown"
#endif

#define EW_PROG "eastwestctl"

/* Exit codes: documented in eastwestctl(8), section EXIT STATUS. */
enum ew_exit {
	EW_OK = 0,		/* success */
	EW_FAIL = 1,		/* the kernel refused, or the operation failed */
	EW_USAGE = 2,		/* usage or parse error: nothing was sent */
	EW_PERM = 3,		/* permission denied (EPERM from the kernel) */
	EW_NOTAVAIL = 4,	/* the eastwest family is not available */
	EW_NOENT = 5,		/* no such job or peer entry (ENOENT) */
};

struct ew_opts {
	bool json;
	bool pretty;
};

extern struct ew_opts ew_opts;
extern bool ew_quiet;

void ew_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ew_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *ew_last_error(void);
void ew_set_location(const char *file, unsigned long line);

void *ew_malloc(size_t size);
void *ew_calloc(size_t n, size_t size);
void *ew_reallocarray(void *p, size_t n, size_t size);
char *ew_strdup(const char *s);

/*
 * Reads all of PATH ("-": stdin) into *text (malloc'd, not NUL-terminated)
 * and *len. EW_OK, or EW_USAGE after a message: cannot open or read it, or
 * it has more than max_bytes.
 */
int ew_read_file(const char *path, size_t max_bytes, char **text, size_t *len);

/* Makes room for one more element in a dynamic array (aborts on ENOMEM). */
#define EW_GROW(arr, n, cap)						\
	do {								\
		if ((n) == (cap)) {					\
			(cap) = (cap) ? 2 * (cap) : 8;			\
			(arr) = ew_reallocarray((arr), (cap), sizeof(*(arr))); \
		}							\
	} while (0)

#define EW_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* EWCTL_H */
