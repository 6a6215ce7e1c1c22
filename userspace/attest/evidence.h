/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The evidence file a node hands to the verifier: a JSON container,
 * format "eastwest-evidence", version 1 (Documentation/attestation.md).
 *
 *   tpm            false: the node has no usable TPM; "no_tpm_reason" says
 *                  why and nothing else but the report is present
 *   nonce          the verifier's nonce, hex
 *   report         base64 of the node report's exact bytes (JSON)
 *   ak_name        hex TPM2B_NAME body of the AK that signed
 *   quote          attest        TPM2B_ATTEST, marshalled (Tss2_MU), base64
 *                  signature     TPMT_SIGNATURE
 *                  pcr_selection TPML_PCR_SELECTION that was quoted
 *                  pcr_values    TPML_DIGEST list (<= 8 each, PCR order)
 *   uefi_event_log base64 of binary_bios_measurements (when present)
 *   ima_log        base64 of binary_runtime_measurements (when present)
 *
 * qualifyingData of the quote = SHA256(nonce || SHA256(report)).
 */
#ifndef EWA_EVIDENCE_H
#define EWA_EVIDENCE_H

#include <stdbool.h>

#include "ewa.h"

#define EWA_EVIDENCE_FORMAT	"eastwest-evidence"
#define EWA_EVIDENCE_VERSION	1
#define EWA_NONCE_MIN		16
#define EWA_NONCE_MAX		64
#define EWA_NAME_MAX		68	/* TPM2B_NAME */
#define EWA_MAX_PCR_CHUNKS	3	/* 24 PCRs, 8 per TPML_DIGEST */

struct ewa_evidence {
	bool tpm;
	char *no_tpm_reason;
	uint8_t nonce[EWA_NONCE_MAX];
	size_t nonce_len;
	struct ew_buf report;
	uint8_t ak_name[EWA_NAME_MAX];
	size_t ak_name_len;
	struct ew_buf attest;		/* TPM2B_ATTEST */
	struct ew_buf signature;	/* TPMT_SIGNATURE */
	struct ew_buf pcr_selection;	/* TPML_PCR_SELECTION */
	struct ew_buf pcr_values[EWA_MAX_PCR_CHUNKS];	/* TPML_DIGEST */
	size_t n_pcr_values;
	bool has_uefi_log;
	struct ew_buf uefi_log;
	bool has_ima_log;
	struct ew_buf ima_log;
};

/* qualifyingData = SHA256(nonce || SHA256(report)) */
void ewa_qualifying_data(const uint8_t *nonce, size_t nonce_len, const uint8_t *report,
			 size_t report_len, uint8_t out[EWA_SHA256_LEN]);
int ewa_parse_nonce(const char *hex, uint8_t *out, size_t *len);

int ewa_evidence_save(const struct ewa_evidence *ev, const char *path);
/* The same JSON as one malloc'ed line (for a verifier's stdin). */
char *ewa_evidence_text(const struct ewa_evidence *ev);
int ewa_evidence_parse(const char *text, size_t len, struct ewa_evidence *ev,
		       char *why, size_t whylen);
void ewa_evidence_free(struct ewa_evidence *ev);

#endif /* EWA_EVIDENCE_H */
