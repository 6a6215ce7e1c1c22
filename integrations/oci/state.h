/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The OCI state a runtime writes to a hook's stdin (runtime-spec, "State").
 */
#ifndef EWOCI_STATE_H
#define EWOCI_STATE_H

#include <stdio.h>

/* Largest state accepted; runc's are a few hundred bytes plus annotations. */
#define EWOCI_STATE_MAX		(1 << 20)

struct ewoci_state {
	char *id;		/* the container id */
	int pid;		/* its init process; 0 if absent (poststop) */
	char *template;		/* the eastwest.io/job annotation; NULL if absent */
};

int ewoci_state_parse(const char *text, size_t len, struct ewoci_state *st,
		      char *why, size_t whylen);
int ewoci_state_read(FILE *in, struct ewoci_state *st);
void ewoci_state_free(struct ewoci_state *st);
int ewoci_job_name(const char *id, char *out, size_t len);

#endif /* EWOCI_STATE_H */
