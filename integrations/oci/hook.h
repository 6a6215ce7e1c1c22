/* SPDX-License-Identifier: GPL-2.0 */
/*
 * oci-hook: declarations shared by every file (names, exit codes, and the
 * shared helpers of libewbase).
 */
#ifndef EWOCI_HOOK_H
#define EWOCI_HOOK_H

#include <stdbool.h>
#include <stddef.h>

#define EWOCI_PROG		"eastwest oci-hook"
/* syslog identity of the messages (journalctl -t eastwest-oci-hook). */
#define EWOCI_SYSLOG_IDENT	"eastwest-oci-hook"

/* The annotation that selects a template, and where templates live. */
#define EWOCI_ANNOTATION	"eastwest.io/job"
#define EWOCI_TEMPLATE_DIR	"/etc/eastwest/oci"
/* Claims: which container created which job (tmpfs: gone at reboot, as the jobs are). */
#define EWOCI_STATE_DIR		"/run/eastwest/oci"
/* Job names: this prefix and the first EWOCI_ID_CHARS characters of the id. */
#define EWOCI_JOB_PREFIX	"oci-"
#define EWOCI_ID_CHARS		12

/*
 * Exit codes: documented in Documentation/containers.md. A runtime fails the
 * container's start on any non-zero exit of a createRuntime hook.
 */
enum ewoci_exit {
	EWOCI_OK = 0,		/* done, or nothing to do */
	EWOCI_FAIL = 1,		/* internal failure (memory, fork, I/O) */
	EWOCI_USAGE = 2,	/* bad command line */
	EWOCI_BAD_STATE = 3,	/* the OCI state on stdin is unusable */
	EWOCI_BAD_TEMPLATE = 4,	/* unknown, unsafe or invalid template */
	EWOCI_BAD_CGROUP = 5,	/* the container's cgroup cannot be bound */
	EWOCI_CTL = 6,		/* eastwestctl failed (module not loaded, ...) */
	EWOCI_CLAIM = 7,	/* the job name is taken, or the state dir is unusable */
	EWOCI_ADDR = 8,		/* the container's own address cannot be made or removed */
};

/*
 * Messages (ew_err(), ew_warn(): "eastwest oci-hook: ..." on stderr and in
 * syslog, see main.c), allocation (ew_malloc(), ew_strdup(): "out of
 * memory" and exit EWOCI_FAIL, which is EXIT_FAILURE), refusals (ew_bad())
 * and argument vectors (struct ew_strv) come from libewbase.
 */
#include "../../userspace/lib/ewlib.h"

#endif /* EWOCI_HOOK_H */
