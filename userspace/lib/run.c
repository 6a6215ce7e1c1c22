// SPDX-License-Identifier: GPL-2.0
/*
 * Running another program and waiting for it (see ewlib.h). The OCI hook
 * and the attestation tool never talk netlink themselves: they run
 * eastwestctl's commands; eastwestctl runs the attestation tool the same way.
 *
 * Callers (hooks, services) may run with no $PATH at all: without one, the
 * usual system directories are searched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ewlib.h"

#define EW_RUN_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
/* Largest output captured (eastwestctl -j job show lists every job). */
#define EW_RUN_OUT_MAX (64 << 20)

static void __attribute__((noreturn)) run_child(const char *prog, char *const argv[],
						unsigned int flags, int out_fd)
{
	int null_fd;

	if (flags & EW_RUN_STDIN_NULL) {
		null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null_fd >= 0)
			dup2(null_fd, STDIN_FILENO);
	}
	if (out_fd >= 0)
		dup2(out_fd, STDOUT_FILENO);
	else if (flags & EW_RUN_STDOUT_TO_STDERR)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	if (strchr(prog, '/')) {
		execv(prog, argv);
		ew_err("cannot run %s: %s", prog, strerror(errno));
		_exit(EW_RUN_NOT_FOUND);
	}
	if (!getenv("PATH") || !*getenv("PATH"))
		setenv("PATH", EW_RUN_DEFAULT_PATH, 1);
	execvp(prog, argv);
	ew_err("cannot run %s (PATH=%s): %s", prog, getenv("PATH"), strerror(errno));
	_exit(EW_RUN_NOT_FOUND);
}

static int capture(int fd, struct ew_buf *b)
{
	char chunk[4096];
	ssize_t r;

	for (;;) {
		r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		/* Past the limit, read on (the child must not block) and drop. */
		if (b->len + (size_t)r <= EW_RUN_OUT_MAX)
			ew_buf_add(b, chunk, (size_t)r);
		else
			b->len = EW_RUN_OUT_MAX + 1;
	}
	return b->len > EW_RUN_OUT_MAX ? -EFBIG : 0;
}

int ew_run(const char *prog, char *const argv[], unsigned int flags, char **out)
{
	int fds[2] = { -1, -1 };
	struct ew_buf text = { 0 };
	int status, cap = 0;
	pid_t pid;

	if (out && pipe2(fds, O_CLOEXEC)) {
		ew_err("pipe: %s", strerror(errno));
		return -1;
	}
	/* Nothing buffered may be written twice: the child's messages flush stdout. */
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
		run_child(prog, argv, flags, fds[1]);
	if (out) {
		close(fds[1]);
		cap = capture(fds[0], &text);
		close(fds[0]);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			ew_err("waitpid: %s", strerror(errno));
			ew_buf_free(&text);
			return -1;
		}
	}
	if (out) {
		if (cap) {
			ew_err("%s: more than %u bytes of output", prog, EW_RUN_OUT_MAX);
			ew_buf_free(&text);
			return -1;
		}
		ew_buf_add(&text, "", 0);
		*out = (char *)text.data;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int ew_ctl_run(char *const args[], unsigned int flags, char **out)
{
	const char *ctl = getenv("EW_CTL");
	struct ew_strv argv = { 0 };
	const char *prog = "eastwestctl";
	size_t i;
	int ret;

	if (ctl && *ctl) {
		if (ctl[0] != '/') {
			ew_err("EW_CTL=%s is not an absolute path", ctl);
			return EW_RUN_NOT_FOUND;
		}
		prog = ctl;
	}
	ew_strv_add(&argv, "eastwestctl");
	for (i = 0; args[i]; i++)
		ew_strv_add(&argv, args[i]);
	ret = ew_run(prog, argv.v, flags, out);
	ew_strv_free(&argv);
	return ret;
}
