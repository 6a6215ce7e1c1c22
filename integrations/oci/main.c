// SPDX-License-Identifier: GPL-2.0
/*
 * oci-hook: puts each container that carries the annotation eastwest.io/job
 * in an eastwest job of its own, built from an administrator's template.
 *
 *   oci-hook [--templates DIR] [--state-dir DIR] createRuntime   (OCI state on stdin)
 *   oci-hook [--templates DIR] [--state-dir DIR] poststop        (OCI state on stdin)
 *   oci-hook [--templates DIR] check TEMPLATE
 *
 * Every message is one line on stderr, "eastwest oci-hook: what is wrong":
 * runc puts a failing hook's stderr into its own error, which is what the
 * operator (or "kubectl describe pod") shows. crun (podman's default
 * runtime on Debian) sends a hook's stderr to /dev/null unless the
 * container asks otherwise and reports only the exit code, so every message
 * also goes to syslog (journalctl -t eastwest-oci-hook), where there is one.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "hook.h"
#include "ops.h"

#ifndef EW_VERSION
#define EW_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: oci-hook [--templates DIR] [--state-dir DIR] { createRuntime | poststop }\n"
		"       oci-hook [--templates DIR] check TEMPLATE\n"
		"An OCI runtime hook: createRuntime creates a job for the container whose state\n"
		"is on stdin, from template DIR/NAME.json named by its annotation " EWOCI_ANNOTATION ";\n"
		"poststop deletes it. check prints the eastwestctl command a template gives.\n"
		"Defaults: --templates " EWOCI_TEMPLATE_DIR ", --state-dir " EWOCI_STATE_DIR ".\n"
		"eastwestctl is $EW_CTL if set, else found in $PATH.\n"
		"Exit status: 0 done (or nothing to do), 1 internal error, 2 usage,\n"
		"3 bad OCI state, 4 bad template, 5 unusable cgroup, 6 eastwestctl failed,\n"
		"7 job name taken or state dir unusable, 8 the container's address (jobaddr)\n"
		"cannot be made or removed.\n");
}

int main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "templates",	required_argument,	NULL, 't' },
		{ "state-dir",	required_argument,	NULL, 's' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct ewoci_opts o = {
		.templates = EWOCI_TEMPLATE_DIR,
		.state_dir = EWOCI_STATE_DIR,
	};
	const char *cmd;
	int opt;

	ew_prog = EWOCI_PROG;
	ew_syslog_ident = EWOCI_SYSLOG_IDENT;
	while ((opt = getopt_long(argc, argv, "+t:s:hV", longopts, NULL)) != -1) {
		switch (opt) {
		case 't':
			o.templates = optarg;
			break;
		case 's':
			o.state_dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return EWOCI_OK;
		case 'V':
			printf("oci-hook (eastwest) %s\n", EW_VERSION);
			return EWOCI_OK;
		default:
			usage(stderr);
			return EWOCI_USAGE;
		}
	}
	if (optind >= argc) {
		ew_err("missing stage (createRuntime or poststop)");
		usage(stderr);
		return EWOCI_USAGE;
	}
	if (o.templates[0] != '/' || o.state_dir[0] != '/') {
		ew_err("--templates and --state-dir take absolute paths");
		return EWOCI_USAGE;
	}
	cmd = argv[optind++];
	if (!strcmp(cmd, "check")) {
		if (argc - optind != 1) {
			ew_err("check takes one template name");
			return EWOCI_USAGE;
		}
		return ewoci_check(&o, argv[optind]);
	}
	if (argc != optind) {
		ew_err("unexpected argument \"%s\" after %s", argv[optind], cmd);
		return EWOCI_USAGE;
	}
	if (!strcmp(cmd, "createRuntime"))
		return ewoci_create(&o);
	if (!strcmp(cmd, "poststop"))
		return ewoci_remove(&o);
	ew_err("unknown stage \"%s\" (want createRuntime or poststop)", cmd);
	return EWOCI_USAGE;
}
