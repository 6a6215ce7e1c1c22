/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files of enrollment (all JSON, each with "format" and "version": 1),
 * in the order they travel:
 *
 *   node -> verifier   eastwest-enrollment  "hostname", "ek_public" and
 *                      "ak_public" (base64 TPM2B_PUBLIC), "ak_name" (hex),
 *                      "ek_persistent" ("0x81010001" or null),
 *                      "ek_certificate" (base64 DER, when NV 0x01c00002 has it)
 *   verifier -> node   eastwest-challenge   "ak_name", "credential_blob"
 *                      (base64 TPM2B_ID_OBJECT), "encrypted_secret"
 *                      (base64 TPM2B_ENCRYPTED_SECRET): MakeCredential,
 *                      done in software by the verifier
 *   node -> verifier   eastwest-activation  "ak_name", "secret" (hex): what
 *                      TPM2_ActivateCredential returned
 *   verifier           eastwest-node        the inventory record: "node",
 *                      "ak_public", "ak_name", "ek_public", "ek_sha256",
 *                      "ek_certificate_verified", "bound_by":
 *                      "credential-activation", "bound_at"
 *
 * Only a TPM holding both the EK and a key with that exact AK name can
 * return the secret, which proves the AK lives beside the EK.
 */
#ifndef EWA_ENROLLMENT_H
#define EWA_ENROLLMENT_H

#define EWA_ENROLLMENT_FORMAT	"eastwest-enrollment"
#define EWA_CHALLENGE_FORMAT	"eastwest-challenge"
#define EWA_ACTIVATION_FORMAT	"eastwest-activation"
#define EWA_NODE_FORMAT		"eastwest-node"
#define EWA_ENROLL_VERSION	1
#define EWA_BOUND_BY		"credential-activation"

#endif /* EWA_ENROLLMENT_H */
