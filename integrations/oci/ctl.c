// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl is $EW_CTL (an absolute path) if set, else the first one in
 * $PATH (ew_ctl_run()). Runtimes run hooks with the environment their
 * configuration gives, often none at all: without $PATH, the usual system
 * directories are searched. eastwestctl's messages go to the hook's stderr,
 * where the runtime shows them; its stdin is /dev/null, and without capture
 * its stdout (job ids) joins stderr: the hook's stdout stays empty.
 */
#include "ctl.h"
#include "hook.h"

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
	return ew_ctl_run(args, EW_RUN_STDIN_NULL | EW_RUN_STDOUT_TO_STDERR, out);
}

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
