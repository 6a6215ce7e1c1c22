// SPDX-License-Identifier: GPL-2.0
/*
 * A createRuntime hook runs in the runtime's namespaces while the container's
 * init waits in the runtime's code: /proc/PID/cgroup read from here names the
 * container's cgroup relative to the runtime's cgroup namespace root (the
 * host's), which is also how eastwestctl and the kernel resolve the path the
 * job is given. Inside the container, with its own cgroup namespace, the same
 * cgroup reads "0::/"; nothing from inside is trusted.
 *
 * The cgroup bound to the job must be the container's alone: every process
 * in it and below joins the job. A runtime creates a fresh cgroup per
 * container, holding only its init at this point; a container configured
 * into an existing cgroup (another container's, a pod's, the root) would
 * carry every process already there into the job, so that is refused.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>

#include <linux/magic.h>

#include "cgroup.h"
#include "hook.h"

/**
 * ewoci_cgroup_parse() - the cgroup v2 path in the text of /proc/PID/cgroup
 * @content: the file's text ("0::/path" and, on hybrid systems, v1 lines)
 * @out: the path
 * @len: size of @out
 * @why: what is wrong, on failure
 *
 * Return: 0, or -ENOENT (no cgroup v2 line) or -EINVAL.
 */
int ewoci_cgroup_parse(const char *content, char *out, size_t len, const char **why)
{
	const char *line, *end;
	size_t n;

	for (line = content; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (strncmp(line, "0::", 3))
			continue;
		line += 3;
		n = (size_t)(end - line);
		if (!n || line[0] != '/') {
			*why = "the cgroup v2 path is not absolute";
			return -EINVAL;
		}
		if (n >= len) {
			*why = "the cgroup v2 path is too long";
			return -EINVAL;
		}
		memcpy(out, line, n);
		out[n] = '\0';
		if (!strcmp(out, "/")) {
			*why = "the process is in the root cgroup";
			return -EINVAL;
		}
		return 0;
	}
	*why = "the process is in no cgroup v2 (no \"0::\" line)";
	return -ENOENT;
}

static char *read_small(const char *path, size_t max)
{
	size_t n = 0, r;
	char *buf;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return NULL;
	buf = ew_malloc(max + 1);
	while (n < max && (r = fread(buf + n, 1, max - n, f)) > 0)
		n += r;
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/**
 * ewoci_cgroup_of_pid() - the cgroup v2 of process @pid
 * @pid: the container's init
 * @out: its cgroup path, below the cgroup2 root
 * @len: size of @out
 *
 * Return: EWOCI_OK, or EWOCI_BAD_CGROUP with the reason printed.
 */
int ewoci_cgroup_of_pid(int pid, char *out, size_t len)
{
	char path[64], *text;
	const char *why;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	text = read_small(path, 64 * 1024);
	if (!text) {
		ew_err("cannot read %s: %s (is the container's init still there?)",
			  path, strerror(errno));
		return EWOCI_BAD_CGROUP;
	}
	if (ewoci_cgroup_parse(text, out, len, &why)) {
		ew_err("container init %d: %s: refusing to bind it to a job", pid, why);
		free(text);
		return EWOCI_BAD_CGROUP;
	}
	free(text);
	return EWOCI_OK;
}

/* The cgroup2 mount: /sys/fs/cgroup, or .../unified on hybrid systems. */
static const char *cgroup2_mount(void)
{
	static const char *const candidates[] = {
		"/sys/fs/cgroup", "/sys/fs/cgroup/unified", NULL
	};
	struct statfs sf;
	size_t i;

	for (i = 0; candidates[i]; i++)
		if (!statfs(candidates[i], &sf) && sf.f_type == CGROUP2_SUPER_MAGIC)
			return candidates[i];
	return NULL;
}

/* Is @text exactly one line holding @pid? */
static bool only_pid(const char *text, int pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || v != pid)
		return false;
	return !strcmp(end, "\n") || !*end;
}

/**
 * ewoci_cgroup_check_fresh() - is @path a new cgroup holding only @pid
 * @path: the container's cgroup, below the cgroup2 root
 * @pid: the container's init
 *
 * Return: EWOCI_OK, or EWOCI_BAD_CGROUP with the reason printed.
 */
int ewoci_cgroup_check_fresh(const char *path, int pid)
{
	char file[PATH_MAX + 32], *text, *p;
	const char *mnt;
	long desc = -1;
	int ret = EWOCI_BAD_CGROUP;

	mnt = cgroup2_mount();
	if (!mnt) {
		ew_err("no cgroup2 file system at /sys/fs/cgroup or /sys/fs/cgroup/unified");
		return EWOCI_BAD_CGROUP;
	}
	snprintf(file, sizeof(file), "%s%s/cgroup.procs", mnt, path);
	text = read_small(file, 64 * 1024);
	if (!text) {
		ew_err("cannot read %s: %s", file, strerror(errno));
		return EWOCI_BAD_CGROUP;
	}
	if (!only_pid(text, pid)) {
		ew_err("cgroup %s holds processes other than the container's init %d: refusing to put them in the container's job (give the container a cgroup of its own)",
			  path, pid);
		goto out;
	}
	free(text);
	snprintf(file, sizeof(file), "%s%s/cgroup.stat", mnt, path);
	text = read_small(file, 64 * 1024);
	p = text ? strstr(text, "nr_descendants ") : NULL;
	if (p && (p == text || p[-1] == '\n'))
		desc = strtol(p + strlen("nr_descendants "), NULL, 10);
	if (desc != 0) {
		ew_err("cgroup %s has child cgroups already (or no readable cgroup.stat): refusing to put them in the container's job",
			  path);
		goto out;
	}
	ret = EWOCI_OK;
out:
	free(text);
	return ret;
}
