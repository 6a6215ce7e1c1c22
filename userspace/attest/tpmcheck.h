/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TPM structures checked in software (OpenSSL): what the verifier needs
 * without a TPM -- public areas as OpenSSL keys, object names, the key
 * attributes an AK and an EK must have, quote signatures.
 */
#ifndef EWA_TPMCHECK_H
#define EWA_TPMCHECK_H

#include <openssl/evp.h>
#include <tss2/tss2_tpm2_types.h>

#include "ewa.h"

/* Unmarshals a whole buffer (trailing bytes are an error). */
int ewa_unmarshal_public(const uint8_t *p, size_t n, TPM2B_PUBLIC *pub);

EVP_PKEY *ewa_public_to_pkey(const TPM2B_PUBLIC *pub, char *why, size_t whylen);
/* nameAlg || H(TPMT_PUBLIC) */
int ewa_public_name(const TPM2B_PUBLIC *pub, uint8_t *name, size_t *len);

/* Restricted signing key that never left the TPM (fixedTPM, fixedParent). */
int ewa_check_ak_public(const TPM2B_PUBLIC *pub, char *why, size_t whylen);
/* Restricted decryption RSA key with a SHA-256 name and AES-128-CFB. */
int ewa_check_ek_public(const TPM2B_PUBLIC *pub, char *why, size_t whylen);

/* 0 when @sig is a good signature of @data by @key. */
int ewa_verify_signature(EVP_PKEY *key, const TPMT_SIGNATURE *sig, const uint8_t *data,
			 size_t len, char *why, size_t whylen);

#endif /* EWA_TPMCHECK_H */
