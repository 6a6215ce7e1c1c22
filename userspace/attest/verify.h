/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verifier's decision: every check runs (as far as the evidence can
 * be read) and every failure is a reason; admit only with no reason.
 *
 * Reason codes (stable; Documentation/attestation.md lists them):
 * evidence-invalid, no-tpm, ak-not-bound, ak-mismatch, manifest-unreadable,
 * manifest-signature, manifest-invalid, manifest-rollback, quote-invalid,
 * quote-signature, quote-magic, quote-type, nonce-mismatch, report-binding,
 * clock-unsafe, reset-rollback, restart-rollback, clock-rollback,
 * pcr-selection, pcr-digest-mismatch, pcr-not-quoted, pcr-mismatch,
 * uefi-log-missing, uefi-log-invalid, uefi-replay-mismatch,
 * unknown-boot-digest, secure-boot-off, secure-boot-unproven, secure-boot-db,
 * secure-boot-config-invalid,
 * ima-log-missing, ima-log-invalid, ima-replay-mismatch, ima-violation,
 * boot-aggregate-mismatch, unknown-module, unknown-measurement, report-invalid,
 * unknown-kernel, hostname-mismatch, operator-revoked, state-error.
 */
#ifndef EWA_VERIFY_H
#define EWA_VERIFY_H

#include <json-c/json.h>

#include "evidence.h"
#include "vstate.h"

struct ewa_verify_input {
	const char *evidence;		/* a file, or the name of evidence_data */
	const uint8_t *evidence_data;	/* non-NULL: the evidence itself */
	size_t evidence_len;
	uint8_t nonce[EWA_NONCE_MAX];
	size_t nonce_len;
	const char *enrollment;		/* the node record from "enroll confirm" */
	const char *manifest;		/* signed */
	const char *pubkey;		/* the operator's Ed25519 public key */
	struct ewa_vstate *state;	/* NULL: no replay or rollback memory */
};
/*
 * With a state, every verdict for an enrolled node (admit or deny, whatever
 * AK signed the evidence) is recorded under the enrolled AK's name: key
 * release (release.h) needs a recent admit not followed by a deny. The
 * state may be open unlocked: ewa_verify() locks it only for the checks
 * against earlier verdicts and for writing its own, after everything else.
 */

struct ewa_reason {
	char *check;
	char *detail;
};

struct ewa_verdict {
	bool admit;
	struct ewa_reason *reasons;
	size_t n_reasons;
	char *node;
	char *ak_name;			/* hex */
	bool have_manifest;
	uint64_t manifest_serial;
	bool have_clock;
	struct ewa_clock clock;
	const char *secure_boot;	/* "on", "off", "unknown" */
	size_t ima_entries;
	size_t modules_measured;	/* IMA entries judged against the manifest */
	size_t modules_reported;	/* report modules checked */
	size_t uefi_events;
	size_t db_certs;		/* X.509 certificates in the measured db */
};

/* Fills @v; never fails (a failure is a reason). */
void ewa_verify(const struct ewa_verify_input *in, struct ewa_verdict *v);
bool ewa_verdict_has(const struct ewa_verdict *v, const char *check);
struct json_object *ewa_verdict_json(const struct ewa_verdict *v);
void ewa_verdict_print(const struct ewa_verdict *v, FILE *f);
void ewa_verdict_free(struct ewa_verdict *v);

#endif /* EWA_VERIFY_H */
