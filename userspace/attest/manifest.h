/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The golden manifest: what an admitted node may run, signed by the
 * operator with Ed25519. The signed file is an envelope around the exact
 * manifest bytes, so no JSON canonicalisation is needed:
 *
 *   {"format": "eastwest-signed-manifest", "version": 1,
 *    "key_sha256": hex SHA-256 of the public key (DER),
 *    "manifest": base64 of the manifest, "signature": base64 Ed25519}
 *
 * The manifest itself:
 *
 *   {"format": "eastwest-manifest", "version": 1,
 *    "serial": N (never lower than the last one the verifier accepted),
 *    "created": "...", "comment": "...",
 *    "require": {"ima": bool, "uefi_event_log": bool, "secure_boot": bool,
 *                "pcrs": [PCR, ...] (must all be in the quote)},
 *    "kernels": ["6.1.0-28-amd64", ...],
 *    "modules": [{"name": "ib_core", "sha256": hex}, ...],
 *    "boot_digests": [hex, ...]  (PCR 4 boot applications: shim, grub, kernel),
 *    "secure_boot_db": [hex, ...] (SHA-256 of the DER of X.509 certificates
 *                                  the Secure Boot db measured into PCR 7 must
 *                                  hold, e.g. the Microsoft UEFI CA 2011
 *                                  that signs shim),
 *    "pcrs": {"0": hex, ...}     (optional golden PCR values)}
 */
#ifndef EWA_MANIFEST_H
#define EWA_MANIFEST_H

#include <stdbool.h>

#include "ewa.h"

#define EWA_MANIFEST_FORMAT	"eastwest-manifest"
#define EWA_SIGNED_FORMAT	"eastwest-signed-manifest"
#define EWA_MANIFEST_VERSION	1

struct ewa_golden_module {
	uint8_t sha256[EWA_SHA256_LEN];
	char *name;
};

struct ewa_manifest {
	uint64_t serial;
	bool require_ima;
	bool require_uefi_log;
	bool require_secure_boot;
	uint32_t require_pcrs;
	char **kernels;
	size_t n_kernels;
	struct ewa_golden_module *modules;	/* sorted by digest */
	size_t n_modules;
	uint8_t (*boot_digests)[EWA_SHA256_LEN];	/* sorted */
	size_t n_boot_digests;
	uint8_t (*db_certs)[EWA_SHA256_LEN];
	size_t n_db_certs;
	uint32_t golden_pcrs;
	uint8_t golden[24][EWA_SHA256_LEN];
};

enum ewa_manifest_error {
	EWA_MANIFEST_OK,
	EWA_MANIFEST_UNREADABLE,	/* file or key cannot be read */
	EWA_MANIFEST_BAD_SIGNATURE,	/* not signed by the operator's key */
	EWA_MANIFEST_INVALID,		/* signed, but not a manifest this build reads */
};

int ewa_manifest_parse(const char *text, size_t len, struct ewa_manifest *m,
		       char *why, size_t whylen);
/* Checks the envelope's signature with @pubkey_path, then parses. */
enum ewa_manifest_error ewa_manifest_load(const char *signed_path, const char *pubkey_path,
					  struct ewa_manifest *m, char *why, size_t whylen);
void ewa_manifest_free(struct ewa_manifest *m);

const struct ewa_golden_module *ewa_manifest_module(const struct ewa_manifest *m,
						     const uint8_t sha256[EWA_SHA256_LEN]);
bool ewa_manifest_boot_digest(const struct ewa_manifest *m, const uint8_t sha256[EWA_SHA256_LEN]);
bool ewa_manifest_kernel(const struct ewa_manifest *m, const char *release);

int ewa_manifest_keygen(const char *key_path, const char *pub_path);
int ewa_manifest_sign(const char *in, const char *key_path, const char *out);
int ewa_manifest_from_node(const char *evidence_path, uint64_t serial, const char *out);

#endif /* EWA_MANIFEST_H */
