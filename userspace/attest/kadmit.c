// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict, applied to the kernel: config-set admission admitted or
 * revoked over the eastwest generic netlink family (userspace/ipc.c). Only
 * eastwestctl links this file; the attestation tests supply their own.
 */
#include <stdio.h>

#include <linux/eastwest.h>

#include "../ewctl.h"
#include "../ipc.h"
#include "../nl.h"
#include "nodeside.h"

int ewa_kernel_set_admission(bool admitted, uint32_t ttl, char *why, size_t whylen)
{
	struct ew_config cfg = {
		.admission = admitted ? EASTWEST_ADMISSION_ADMITTED :
					EASTWEST_ADMISSION_REVOKED,
		.admission_ttl = ttl,
	};
	struct ewnl *nl = NULL;
	int ret;

	if (ewnl_open(&nl)) {
		snprintf(why, whylen, "%s", ew_last_error());
		return -1;
	}
	ret = ew_ipc_config_set(nl, &cfg, EW_CFG_ADMISSION |
				(admitted && ttl ? EW_CFG_ADMISSION_TTL : 0));
	if (ret) {
		ewnl_report(nl, "config-set admission %s", admitted ? "admitted" : "revoked");
		snprintf(why, whylen, "%s", ew_last_error());
	}
	ewnl_close(nl);
	return ret ? -1 : 0;
}
