// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup paths are given either as a file system path under the cgroup v2
 * mount point (/sys/fs/cgroup/system.slice/job_42) or as the path below the
 * cgroup v2 root (/system.slice/job_42, or system.slice/job_42), which is
 * what the kernel takes and reports. Both resolve to the second form, in
 * canonical shape ("/" separated, no empty, "." or ".." components, no
 * trailing slash), and must exist as a directory under the mount point.
 *
 * The mount point is the first cgroup2 mount in /proc/self/mountinfo whose
 * root is the root of the hierarchy (as seen from this cgroup namespace,
 * which is also what the kernel resolves paths against).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ewctl.h"
#include "io/cgroup.h"

static char *mount_point;
static bool mount_looked_up;

/* Undoes the octal escapes (\040 for a space) of /proc/self/mountinfo. */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

static char *find_mount(void)
{
	char *line = NULL, *found = NULL;
	size_t cap = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return NULL;
	while (!found && getline(&line, &cap, f) > 0) {
		char *save = NULL, *tok, *root = NULL, *mnt = NULL;
		bool sep = false;
		int field = 0;

		for (tok = strtok_r(line, " \n", &save); tok;
		     tok = strtok_r(NULL, " \n", &save), field++) {
			if (field == 3)
				root = tok;
			else if (field == 4)
				mnt = tok;
			else if (field > 5 && !sep && !strcmp(tok, "-"))
				sep = true;
			else if (sep)
				break;
		}
		if (tok && sep && root && mnt && !strcmp(tok, "cgroup2") &&
		    !strcmp(root, "/")) {
			unescape(mnt);
			found = ew_strdup(mnt);
		}
	}
	free(line);
	fclose(f);
	return found;
}

/* The cgroup2 mount point, or NULL if there is none. */
const char *ew_cgroup_mount(void)
{
	if (!mount_looked_up) {
		mount_point = find_mount();
		mount_looked_up = true;
	}
	return mount_point;
}

/* For the unit tests: a directory standing in for the cgroup2 mount. */
void ew_cgroup_set_mount(const char *mnt)
{
	free(mount_point);
	mount_point = mnt ? ew_strdup(mnt) : NULL;
	mount_looked_up = true;
}

/**
 * ew_cgroup_normalize() - canonical form of a path below the cgroup root
 * @in: the path, with or without a leading '/'
 * @out: the canonical path ("/a/b", or "/" for the root)
 * @len: size of @out
 * @why: what is wrong, on failure
 *
 * Return: 0 or -EINVAL.
 */
int ew_cgroup_normalize(const char *in, char *out, size_t len, const char **why)
{
	size_t o = 0, n;
	const char *c, *e;

	if (!*in) {
		*why = "the path is empty";
		return -EINVAL;
	}
	for (c = in; *c; c = e) {
		while (*c == '/')
			c++;
		if (!*c)
			break;
		e = strchrnul(c, '/');
		n = (size_t)(e - c);
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.')) {
			*why = "the path must not contain \".\" or \"..\"";
			return -EINVAL;
		}
		if (o + 1 + n >= len || o + 1 + n > EW_CGROUP_PATH_MAX) {
			*why = "the path is too long";
			return -EINVAL;
		}
		out[o++] = '/';
		memcpy(out + o, c, n);
		o += n;
	}
	if (!o) {
		if (len < 2) {
			*why = "the path is too long";
			return -EINVAL;
		}
		out[o++] = '/';
	}
	out[o] = '\0';
	return 0;
}

/**
 * ew_cgroup_resolve() - a user's cgroup path as the kernel takes it
 * @arg: a path under the cgroup2 mount point, or below the cgroup2 root
 * @out: the path below the root, canonical
 * @len: size of @out
 * @why: what is wrong, on failure
 *
 * Return: 0, -EINVAL for a malformed path, -ENOENT if the cgroup does not
 * exist or no cgroup2 file system is mounted.
 */
int ew_cgroup_resolve(const char *arg, char *out, size_t len, const char **why)
{
	const char *mnt, *rel = arg;
	struct stat st;
	size_t mlen;
	char *full;
	int ret;

	mnt = ew_cgroup_mount();
	if (!mnt) {
		*why = "no cgroup2 file system is mounted";
		return -ENOENT;
	}
	mlen = strlen(mnt);
	while (mlen > 1 && mnt[mlen - 1] == '/')
		mlen--;
	if (mlen > 1 && !strncmp(arg, mnt, mlen) &&
	    (arg[mlen] == '/' || !arg[mlen]))
		rel = arg[mlen] ? arg + mlen : "/";

	ret = ew_cgroup_normalize(rel, out, len, why);
	if (ret)
		return ret;

	full = ew_malloc(mlen + strlen(out) + 1);
	memcpy(full, mnt, mlen);
	strcpy(full + mlen, out);
	ret = stat(full, &st);
	free(full);
	if (ret || !S_ISDIR(st.st_mode)) {
		*why = "no such cgroup";
		return -ENOENT;
	}
	return 0;
}
