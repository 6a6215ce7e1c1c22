/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TPM2_MakeCredential in software (TPM 2.0 Part 1, "Credential
 * Protection"), so that the verifier needs no TPM: the secret is wrapped
 * so that only the TPM holding the EK, and only for an object named
 * @ak_name, can unwrap it with TPM2_ActivateCredential.
 */
#ifndef EWA_CREDENTIAL_H
#define EWA_CREDENTIAL_H

#include <tss2/tss2_tpm2_types.h>

#include "ewa.h"

#define EWA_NAME_MAX_KDF	68	/* longest TPM2B_NAME body */

int ewa_make_credential(const TPM2B_PUBLIC *ek, const uint8_t *ak_name, size_t ak_name_len,
			const uint8_t *secret, size_t secret_len, TPM2B_ID_OBJECT *blob,
			TPM2B_ENCRYPTED_SECRET *enc, char *why, size_t whylen);

/* KDFa (SP 800-108 counter mode, HMAC-SHA256), exposed for the tests. */
int ewa_kdfa_sha256(const uint8_t *key, size_t key_len, const char *label,
		    const uint8_t *u, size_t u_len, const uint8_t *v, size_t v_len,
		    uint32_t bits, uint8_t *out);

#endif /* EWA_CREDENTIAL_H */
