// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the UEFI TCG2 event log parser, replay and the
 * Secure Boot readers (SecureBoot, the db's certificates). Events must
 * point inside the input.
 */
#include <stdlib.h>

#include "eventlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t (*certs)[EWA_SHA256_LEN];
	struct ewa_pcrbank bank = { 0 };
	enum ewa_secure_boot sb;
	bool found;
	size_t n;
	struct ewa_uefi_log log;
	char why[256];
	size_t i;

	if (ewa_uefi_parse(data, size, &log, why, sizeof(why)))
		return 0;
	ewa_uefi_replay(&log, &bank);
	ewa_uefi_secure_boot(&log, &sb, why, sizeof(why));
	if (!ewa_uefi_db_certs(&log, &found, &certs, &n, why, sizeof(why)))
		free(certs);
	for (i = 0; i < log.n; i++)
		if (log.v[i].data < data || log.v[i].data + log.v[i].data_len > data + size)
			abort();
	ewa_uefi_free(&log);
	return 0;
}
