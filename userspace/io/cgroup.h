/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 paths: found in /proc/self/mountinfo, written to the kernel as
 * the path below the cgroup v2 root.
 */
#ifndef EW_CGROUP_H
#define EW_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/eastwest.h>

/* Longest path, without the NUL. */
#define EW_CGROUP_PATH_MAX	(EASTWEST_CGROUP_PATH_MAX - 1)

int ew_cgroup_normalize(const char *in, char *out, size_t len, const char **why);
int ew_cgroup_resolve(const char *arg, char *out, size_t len, const char **why);
const char *ew_cgroup_mount(void);
void ew_cgroup_set_mount(const char *mnt);

#endif /* EW_CGROUP_H */
