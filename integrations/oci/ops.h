/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hook's stages and its template check.
 */
#ifndef EWOCI_OPS_H
#define EWOCI_OPS_H

struct ewoci_opts {
	const char *templates;	/* template directory */
	const char *state_dir;	/* claims */
};

int ewoci_create(const struct ewoci_opts *o);
int ewoci_remove(const struct ewoci_opts *o);
int ewoci_teardown(const struct ewoci_opts *o, const char *job, const char *id);
int ewoci_check(const struct ewoci_opts *o, const char *name);

#endif /* EWOCI_OPS_H */
