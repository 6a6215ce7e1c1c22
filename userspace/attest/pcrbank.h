/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A software SHA-256 PCR bank: what the verifier replays logs into and
 * compares with the quoted values.
 */
#ifndef EWA_PCRBANK_H
#define EWA_PCRBANK_H

#include <stdint.h>

#include "ewa.h"

#define EWA_PCR_COUNT	24

struct ewa_pcrbank {
	uint8_t v[EWA_PCR_COUNT][EWA_SHA256_LEN];
	uint32_t touched;	/* bit i: a log extended PCR i */
};

/* PCR[i] = SHA256(PCR[i] || digest) */
void ewa_pcr_extend(struct ewa_pcrbank *bank, unsigned int pcr,
		    const uint8_t digest[EWA_SHA256_LEN]);

#endif /* EWA_PCRBANK_H */
