// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the IMA binary measurement list parser and replay.
 * Whatever parses must replay, and every entry must keep its invariants.
 */
#include <stdlib.h>
#include <string.h>

#include "imalog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ewa_pcrbank bank = { 0 };
	struct ewa_ima_log log;
	char why[256];
	size_t i;

	if (ewa_ima_parse(data, size, &log, why, sizeof(why)))
		return 0;
	ewa_ima_replay(&log, &bank);
	for (i = 0; i < log.n; i++) {
		if (log.v[i].pcr >= EWA_PCR_COUNT || !log.v[i].path ||
		    log.v[i].file_digest_len > EWA_IMA_MAX_DIGEST)
			abort();
		if (ewa_ima_kind(&log, i) == EWA_IMA_BOOT_AGGREGATE && i)
			abort();
		ewa_is_module_path(log.v[i].path);
	}
	ewa_ima_free(&log);
	return 0;
}
