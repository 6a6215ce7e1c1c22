// SPDX-License-Identifier: GPL-2.0
/*
 * The node lock. Every command that changes the node holds an exclusive
 * flock(2) on one file (EW_LOCK_PATH, or $EASTWEST_LOCK) from before it
 * reads the state it plans from until it has applied or undone its steps,
 * so that two runs (the service's reload, an operator's apply, a Slurm
 * prolog's job add) never interleave, and the undo of one never reverts
 * what the other did. Read-only commands take none.
 *
 * While it holds the lock the command blocks SIGINT, SIGTERM, SIGHUP and
 * SIGPIPE: an operator's Ctrl-C or a hook timeout's SIGTERM cannot stop it
 * between two steps, or in the middle of its undo, with the node
 * half-way. A signal that arrived meanwhile is delivered when the lock is
 * released, after the command's output is flushed, and ends the process
 * as it would have (its action: by default, killed by it, exit status
 * 128 + N in a shell; an ignored SIGHUP stays ignored). SIGKILL cannot be
 * blocked: a run killed by it leaves the steps it sent, each of them
 * narrowing before the ones that widen (diff.c), and the lock goes with
 * the process.
 *
 * The lock is released after each command (each line of a batch), so a
 * command never holds it while another program runs: eastwest-attest,
 * the hooks and eastwest-service run eastwestctl, and would wait for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ewctl.h"
#include "io/lock.h"

static int lock_fd = -1;
static sigset_t saved_mask;

static void on_alarm(int sig)
{
	(void)sig;
}

/* The wait for the lock: $EASTWEST_LOCK_WAIT seconds, or EW_LOCK_WAIT. */
static unsigned int lock_wait(void)
{
	const char *s = getenv("EASTWEST_LOCK_WAIT");
	unsigned long n;
	char *end;

	if (!s || !*s)
		return EW_LOCK_WAIT;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || !n || n > 3600)
		return EW_LOCK_WAIT;
	return (unsigned int)n;
}

/* Creates the directory of @path (mode 0755) if it is missing. */
static void make_dir(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	/* 0755 whatever the umask: readers of /run/eastwest need to look in. */
	if (!mkdir(dir, 0755))
		chmod(dir, 0755);
	/* Else open() says what is wrong, if anything is. */
}

/*
 * flock(LOCK_EX), waiting at most @secs: SIGALRM (no SA_RESTART) ends the
 * wait with EINTR.
 */
static int flock_wait(int fd, unsigned int secs)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	int ret, err;

	if (!flock(fd, LOCK_EX | LOCK_NB))
		return 0;
	if (errno != EWOULDBLOCK)
		return -errno;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	alarm(secs);
	ret = flock(fd, LOCK_EX);
	err = errno;
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	if (!ret)
		return 0;
	return err == EINTR ? -EWOULDBLOCK : -err;
}

/**
 * ew_node_lock() - take the node lock
 * @why: what went wrong, if it did: the lock file cannot be opened, or
 *	another eastwestctl held it for the whole wait
 * @len: its size
 *
 * Return: EW_OK (also if this process holds it already), or EW_FAIL.
 */
int ew_node_lock(char *why, size_t len)
{
	const char *path = getenv("EASTWEST_LOCK");
	unsigned int secs = lock_wait();
	sigset_t block;
	int fd, ret;

	if (lock_fd >= 0)
		return EW_OK;
	if (!path || !*path)
		path = EW_LOCK_PATH;
	make_dir(path);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	/*
	 * Root's file (and directory): a caller that may not open or make it
	 * is no administrator, and the module refuses its change (EPERM,
	 * exit 3) as it always did; it goes on without the lock.
	 */
	if (fd < 0 && (errno == EACCES || errno == EPERM ||
		       (errno == ENOENT && geteuid())))
		return EW_OK;
	if (fd < 0) {
		snprintf(why, len, "cannot open the lock %s: %s: nothing was changed", path,
			 strerror(errno));
		return EW_FAIL;
	}
	ret = flock_wait(fd, secs);
	if (ret) {
		if (ret == -EWOULDBLOCK)
			snprintf(why, len, "another " EW_PROG " holds the lock %s "
				 "(waited %u s): nothing was changed", path, secs);
		else
			snprintf(why, len, "cannot lock %s: %s: nothing was changed", path,
				 strerror(-ret));
		close(fd);
		return EW_FAIL;
	}
	/* Waiting for the lock could be interrupted; the run cannot. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGPIPE);
	sigprocmask(SIG_BLOCK, &block, &saved_mask);
	lock_fd = fd;
	return EW_OK;
}

/* ew_node_lock(), with its message on stderr after "@what: ". */
int ew_node_lock_or_say(const char *what)
{
	char why[PATH_MAX + 128];

	if (!ew_node_lock(why, sizeof(why)))
		return EW_OK;
	ew_err("%s: %s", what, why);
	return EW_FAIL;
}

/*
 * ew_node_unlock() - release the node lock, then take a signal held off
 *
 * The output is flushed first: a signal that ends the process now loses
 * nothing the command printed.
 */
void ew_node_unlock(void)
{
	if (lock_fd < 0)
		return;
	fflush(stdout);
	fflush(stderr);
	close(lock_fd);
	lock_fd = -1;
	sigprocmask(SIG_SETMASK, &saved_mask, NULL);
}

bool ew_node_locked(void)
{
	return lock_fd >= 0;
}
