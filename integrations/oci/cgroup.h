/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The container's cgroup v2, as the host sees it.
 */
#ifndef EWOCI_CGROUP_H
#define EWOCI_CGROUP_H

#include <stddef.h>

int ewoci_cgroup_parse(const char *content, char *out, size_t len, const char **why);
int ewoci_cgroup_of_pid(int pid, char *out, size_t len);
int ewoci_cgroup_check_fresh(const char *path, int pid);

#endif /* EWOCI_CGROUP_H */
