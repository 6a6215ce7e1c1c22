// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl attest ARGS: runs eastwest-attest, the node side of
 * attestation, a program of its own so that eastwestctl does not link the
 * TPM libraries. It gets eastwestctl's -j and -p, the batch line while a
 * batch runs (its errors name it), and $EW_CTL, this eastwestctl, through
 * which it applies its verdict to the kernel.
 *
 * eastwest-attest is $EASTWEST_ATTEST (an absolute path) if set, else found
 * beside this program: attest/eastwest-attest in the source tree, or
 * ../lib/eastwest/eastwest-attest from the sbin directory it is installed in.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/subcommands.h"
#include "ewctl.h"

static const char *const attest_beside[] = {
	"attest/eastwest-attest",		/* the source tree */
	"../lib/eastwest/eastwest-attest",	/* PREFIX/sbin -> PREFIX/lib/eastwest */
};

/* The program's path (malloc'd), or NULL after a message. */
static char *attest_prog(void)
{
	const char *env = getenv("EASTWEST_ATTEST");
	char self[PATH_MAX], *slash, *path;
	ssize_t n;
	size_t i;

	if (env && *env) {
		if (env[0] != '/') {
			ew_err("attest: EASTWEST_ATTEST=%s is not an absolute path", env);
			return NULL;
		}
		return ew_strdup(env);
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		ew_err("attest: cannot find this program (/proc/self/exe); set EASTWEST_ATTEST");
		return NULL;
	}
	self[n] = '\0';
	slash = strrchr(self, '/');
	*slash = '\0';
	for (i = 0; i < EW_ARRAY_SIZE(attest_beside); i++) {
		path = ew_asprintf("%s/%s", self, attest_beside[i]);
		if (!access(path, X_OK))
			return path;
		free(path);
	}
	ew_err("attest: eastwest-attest is not installed beside %s (%s/%s); set EASTWEST_ATTEST",
	       self, self, attest_beside[EW_ARRAY_SIZE(attest_beside) - 1]);
	return NULL;
}

int attest_main(int argc, char *argv[])
{
	struct ew_strv args = { 0 };
	char self[PATH_MAX], *prog;
	unsigned long line;
	const char *file = ew_location(&line);
	ssize_t n;
	int i, status;

	prog = attest_prog();
	if (!prog)
		return EW_FAIL;
	/* The verdict goes to the kernel through this very eastwestctl. */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0 && (!getenv("EW_CTL") || !*getenv("EW_CTL"))) {
		self[n] = '\0';
		setenv("EW_CTL", self, 1);
	}
	ew_strv_add(&args, "eastwest-attest");
	if (ew_opts.json)
		ew_strv_add(&args, "-j");
	if (ew_opts.pretty)
		ew_strv_add(&args, "-p");
	if (file) {
		ew_strv_add(&args, "--location");
		ew_strv_addf(&args, "%s:%lu", file, line);
	}
	ew_strv_add(&args, "--");
	for (i = 0; i < argc; i++)
		ew_strv_add(&args, argv[i]);
	status = ew_run(prog, args.v, 0, NULL);
	ew_strv_free(&args);
	free(prog);
	if (status < 0 || status == EW_RUN_NOT_FOUND)
		return EW_FAIL;
	/* It may have changed the module, through another eastwestctl. */
	ew_changes++;
	return status > 128 ? EW_FAIL : status;
}

void attest_usage(FILE *f)
{
	fprintf(f,
		"Usage: " EW_PROG " attest { enroll | activate | quote | handles | unwrap | watch } ...\n"
		"       (runs eastwest-attest, the node side of attestation;\n"
		"        \"" EW_PROG " attest help\" lists its commands)\n");
}
