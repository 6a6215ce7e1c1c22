// SPDX-License-Identifier: GPL-2.0
/*
 * eastwest-attest: the node side of attestation, a program of its own.
 *
 *   eastwest-attest [-j] [-p] [--location FILE:LINE] COMMAND ARGS
 *
 * It links the TPM libraries (tpm2-tss), so that eastwestctl does not, and
 * reaches the module only through eastwestctl's commands (kadmit.c).
 * `eastwestctl [-j] [-p] attest COMMAND ARGS` runs it with the same options;
 * in a batch (-b FILE), eastwestctl passes the batch line with --location,
 * so that errors name it like every other command's.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../ewctl.h"
#include "attest.h"
#include "nodeside.h"

#define PROG "eastwest-attest"


/* FILE:LINE, the file name may hold colons: the line is after the last. */
static int set_location(char *arg)
{
	char *colon = strrchr(arg, ':'), *end;
	unsigned long line;

	if (!colon || colon == arg || !colon[1])
		return -1;
	errno = 0;
	line = strtoul(colon + 1, &end, 10);
	if (errno || *end || !line)
		return -1;
	*colon = '\0';
	ew_set_location(arg, line);
	return 0;
}

int main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		EW_OPTS_LONGOPTS,
		{ "location",	required_argument,	NULL, 'L' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	ew_prog = PROG;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+jpVh", longopts, NULL)) != -1) {
		if (ew_opts_set(opt))
			continue;
		switch (opt) {
		case 'L':
			if (set_location(optarg)) {
				ew_err("--location: expected FILE:LINE, got \"%s\"", optarg);
				return EWA_USAGE;
			}
			break;
		case 'V':
			printf(PROG " " EW_VERSION "\n");
			return EWA_OK;
		case 'h':
			attest_usage(stdout);
			return EWA_OK;
		default:
			if (optopt == 'L')
				ew_err("option --location needs an argument");
			else
				ew_unknown_option(argv);
			return EWA_USAGE;
		}
	}
	return ew_flush_stdout(attest_main(argc - optind, argv + optind), EWA_FAIL);
}
