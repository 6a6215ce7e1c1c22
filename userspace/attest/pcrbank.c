// SPDX-License-Identifier: GPL-2.0
/*
 * The software PCR bank the verifier replays logs into.
 */
#include <openssl/evp.h>
#include <string.h>

#include "pcrbank.h"

void ewa_pcr_extend(struct ewa_pcrbank *bank, unsigned int pcr,
		    const uint8_t digest[EWA_SHA256_LEN])
{
	uint8_t buf[2 * EWA_SHA256_LEN];

	if (pcr >= EWA_PCR_COUNT)
		return;
	memcpy(buf, bank->v[pcr], EWA_SHA256_LEN);
	memcpy(buf + EWA_SHA256_LEN, digest, EWA_SHA256_LEN);
	ewa_sha256(buf, sizeof(buf), bank->v[pcr]);
	bank->touched |= 1U << pcr;
}
