/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eastwestctl: declarations shared by every file (exit codes; messages,
 * allocation and the output options come from lib/ewlib.h).
 */
#ifndef EWCTL_H
#define EWCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Messages, allocation, hex, files: shared with the attestation code. */
#include "lib/ewlib.h"

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
	EW_CHANGED = 6,		/* apply --expect: the node's jobs changed meanwhile */
	EW_PARTIAL = 7,		/* failed part-way: the changes made before stay */
};

/*
 * Requests that changed something, counted where they are sent: the
 * module's change requests; rtnetlink, macsec, xfrm and RDMA netlink
 * changes; nftables changes; transmit key records; and eastwest-attest
 * runs (it changes the module through eastwestctl, another process). Batch
 * mode tells by it whether a line changed the node.
 */
extern unsigned long ew_changes;

/*
 * Reads all of PATH ("-": stdin) into *text (malloc'd, NUL-terminated past
 * *len) and *len. EW_OK, or EW_USAGE after a message: cannot open or read
 * it, or it has more than max_bytes.
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
