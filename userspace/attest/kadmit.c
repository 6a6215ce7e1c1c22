// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict, applied to the kernel: eastwestctl's `config set admission
 * admitted|revoked [admission-ttl SECONDS]`. This program speaks no netlink
 * of its own; eastwestctl is $EW_CTL or the first one in $PATH
 * (ew_ctl_run()). Its messages go to our stderr; its stdout too, which
 * keeps ours (the watch's report, JSON with -j) its own.
 */
#include <stdio.h>

#include "../ewctl.h"
#include "nodeside.h"

int ewa_kernel_set_admission(bool admitted, uint32_t ttl, char *why, size_t whylen)
{
	const char *verdict = admitted ? "admitted" : "revoked";
	char ttl_text[16];
	char *args[] = { "config", "set", "admission", (char *)verdict,
			 NULL, NULL, NULL };
	int status;

	if (admitted && ttl) {
		snprintf(ttl_text, sizeof(ttl_text), "%u", ttl);
		args[4] = "admission-ttl";
		args[5] = ttl_text;
	}
	status = ew_ctl_run(args, EW_RUN_STDIN_NULL | EW_RUN_STDOUT_TO_STDERR, NULL);
	if (!status)
		return 0;
	if (status < 0)
		snprintf(why, whylen, "config set admission %s: %s", verdict, ew_last_error());
	else if (status == EW_RUN_NOT_FOUND)
		snprintf(why, whylen, "config set admission %s: eastwestctl could not be run",
			 verdict);
	else
		snprintf(why, whylen, "eastwestctl config set admission %s: exit status %d",
			 verdict, status);
	return -1;
}
