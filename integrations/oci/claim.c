// SPDX-License-Identifier: GPL-2.0
/*
 * A runtime runs the poststop hooks of a container whose createRuntime hook
 * failed, too (runc does, on its way out). So poststop must not delete a job
 * just because its name matches the container's: if the start failed because
 * another container already holds that name, its job must survive.
 *
 * createRuntime therefore claims the job name first, by creating DIR/NAME
 * exclusively with the container id in it, and only then creates the job;
 * poststop deletes the job only when the claim names the same container.
 * A claim appears whole: the id is written to a file of this process's
 * own, which is then linked to the name (exclusive, as creating it was);
 * so an empty claim, which a hook killed between creating and writing it
 * left before, is stale and replaced. That file is DIR/NAME@new.XXXXXX, a
 * name of its own each time ('@' is in no job name, so it is never a
 * claim or an address record, NAME@addr): one a killed hook left is in
 * nobody's way. The state dir is on tmpfs (/run): it goes at reboot, as
 * the jobs do.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "claim.h"
#include "hook.h"

/* mkdir -p with mode 0700, for the state dir. */
static int make_dirs(const char *dir)
{
	char path[4096], *p;

	if ((size_t)snprintf(path, sizeof(path), "%s", dir) >= sizeof(path))
		return -ENAMETOOLONG;
	for (p = path + 1; ; p++) {
		if (*p == '/' || !*p) {
			char c = *p;

			*p = '\0';
			if (mkdir(path, 0700) && errno != EEXIST)
				return -errno;
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

/*
 * Whoever can write claims can make poststop delete a job or keep a name
 * taken: the dir must be root's (or ours) and writable by nobody else.
 */
static int claim_path(const char *dir, const char *job, char *path, size_t len)
{
	struct stat st;

	if (lstat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if ((st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	if ((size_t)snprintf(path, len, "%s/%s", dir, job) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/**
 * ewoci_claim_owner() - which container holds the claim on @job
 * @dir: the state dir
 * @job: the job name
 * @owner: the container id in the claim
 * @len: size of @owner
 *
 * Return: 0, -ENOENT if there is no claim, or another -errno.
 */
int ewoci_claim_owner(const char *dir, const char *job, char *owner, size_t len)
{
	char path[4096];
	ssize_t n;
	int fd, ret;

	ret = claim_path(dir, job, path, sizeof(path));
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, owner, len - 1);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	owner[n] = '\0';
	owner[strcspn(owner, "\n")] = '\0';
	return 0;
}

/**
 * ewoci_claim_take() - claim job name @job for container @id
 * @dir: the state dir (created, mode 0700, if missing)
 * @job: the job name
 * @id: the container id
 * @owner: on -EEXIST, the container holding the claim ("" otherwise)
 * @len: size of @owner (at least 1)
 *
 * Return: 0, -EEXIST if the name is claimed already, or another -errno.
 */
int ewoci_claim_take(const char *dir, const char *job, const char *id,
		     char *owner, size_t len)
{
	char path[4096], tmp[4096 + 32];
	size_t n = strlen(id);
	int fd, ret, tries;

	owner[0] = '\0';
	ret = make_dirs(dir);
	if (ret)
		return ret;
	ret = claim_path(dir, job, path, sizeof(path));
	if (ret)
		return ret;
	snprintf(tmp, sizeof(tmp), "%s@new.XXXXXX", path);
	/* mkostemp() makes it 0600, exclusively, under a name no one else has. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	errno = 0;
	if (write(fd, id, n) != (ssize_t)n || write(fd, "\n", 1) != 1) {
		ret = errno ? -errno : -EIO;
		close(fd);
		goto out;
	}
	if (close(fd)) {
		ret = -errno;
		goto out;
	}
	for (tries = 0; tries < 2; tries++) {
		ret = link(tmp, path) ? -errno : 0;
		if (ret != -EEXIST)
			break;
		if (ewoci_claim_owner(dir, job, owner, len)) {
			snprintf(owner, len, "(unreadable)");
			break;
		}
		if (owner[0])
			break;
		/* Empty: a stale claim (see the top of this file). */
		if (unlink(path) && errno != ENOENT) {
			ret = -errno;
			break;
		}
	}
out:
	unlink(tmp);
	return ret;
}

/**
 * ewoci_claim_drop() - remove the claim on @job
 * @dir: the state dir
 * @job: the job name
 *
 * Return: 0 (also if there was none), or -errno.
 */
int ewoci_claim_drop(const char *dir, const char *job)
{
	char path[4096];
	int ret;

	ret = claim_path(dir, job, path, sizeof(path));
	if (ret)
		return ret;
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}
