// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl is $EW_CTL (an absolute path) if set, else the first one in
 * $PATH. Runtimes run hooks with the environment their configuration gives,
 * often none at all: without $PATH, the usual system directories are searched.
 * eastwestctl's messages go to the hook's stderr, where the runtime shows them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl.h"
#include "hook.h"

#define DEFAULT_PATH	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
/* Largest output captured (eastwestctl -j job show lists every job). */
#define OUT_MAX		(64 << 20)

static void child(char *const args[], int out_fd)
{
	const char *ctl = getenv("EW_CTL");
	struct ew_strv argv = { 0 };
	int null_fd;
	size_t i;

	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null_fd >= 0)
		dup2(null_fd, STDIN_FILENO);
	/* Without capture, stdout (job ids) joins stderr: stdout stays empty. */
	dup2(out_fd >= 0 ? out_fd : STDERR_FILENO, STDOUT_FILENO);

	ew_strv_add(&argv, "eastwestctl");
	for (i = 0; args[i]; i++)
		ew_strv_add(&argv, args[i]);
	if (ctl && *ctl) {
		if (ctl[0] != '/') {
			ew_err("EW_CTL=%s is not an absolute path", ctl);
			_exit(EWCTL_NOT_FOUND);
		}
		execv(ctl, argv.v);
		ew_err("cannot run EW_CTL=%s: %s", ctl, strerror(errno));
		_exit(EWCTL_NOT_FOUND);
	}
	if (!getenv("PATH") || !*getenv("PATH"))
		setenv("PATH", DEFAULT_PATH, 1);
	execvp("eastwestctl", argv.v);
	ew_err("cannot run eastwestctl (PATH=%s): %s", getenv("PATH"), strerror(errno));
	_exit(EWCTL_NOT_FOUND);
}

static char *capture(int fd)
{
	size_t n = 0, cap = 4096;
	char *buf = ew_malloc(cap), *grown;
	ssize_t r;

	for (;;) {
		if (n + 1 == cap) {
			if (cap >= OUT_MAX)
				break;
			grown = realloc(buf, cap * 2);
			if (!grown) {
				free(buf);
				return NULL;
			}
			buf = grown;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return buf;
}

/**
 * ewoci_ctl_run() - run eastwestctl and wait for it
 * @args: its arguments (after the program name), NULL-terminated
 * @out: if not NULL, its standard output is returned here (free() it)
 *
 * Return: its exit status (EWCTL_NOT_FOUND if it could not be run), 128 + N
 * if signal N killed it, or -1 if it could not be started (message printed).
 */
int ewoci_ctl_run(char *const args[], char **out)
{
	int fds[2] = { -1, -1 };
	char *text = NULL;
	int status;
	pid_t pid;

	if (out && pipe2(fds, O_CLOEXEC)) {
		ew_err("pipe: %s", strerror(errno));
		return -1;
	}
	/* Nothing buffered may be written twice: ew_err() in the child flushes stdout. */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		ew_err("fork: %s", strerror(errno));
		if (out) {
			close(fds[0]);
			close(fds[1]);
		}
		return -1;
	}
	if (!pid)
		child(args, fds[1]);
	if (out) {
		close(fds[1]);
		text = capture(fds[0]);
		close(fds[0]);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			ew_err("waitpid: %s", strerror(errno));
			free(text);
			return -1;
		}
	}
	if (out) {
		if (!text) {
			ew_err("out of memory reading eastwestctl's output");
			return -1;
		}
		*out = text;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* What an eastwestctl exit status means, for the hook's message. */
const char *ewoci_ctl_meaning(int status)
{
	switch (status) {
	case 0:
		return "success";
	case EWCTL_FAIL:
		return "the kernel refused, or the operation failed";
	case EWCTL_USAGE:
		return "eastwestctl refused the arguments (check the template's values)";
	case EWCTL_PERM:
		return "permission denied (the hook needs CAP_NET_ADMIN)";
	case EWCTL_NOTAVAIL:
		return "eastwest is not available (module not loaded?)";
	case EWCTL_NOENT:
		return "no such job";
	case EWCTL_NOT_FOUND:
		return "eastwestctl could not be run";
	default:
		return status > 128 ? "eastwestctl was killed" : "unexpected exit status";
	}
}
