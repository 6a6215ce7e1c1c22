/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A key release: a path-protection key file wrapped to one node's TPM.
 * JSON, format "eastwest-key-release", version 1:
 *
 *   node, ak_name (hex)    whom it is for (the enrolled AK's name)
 *   released_at            UTC, and verdict_at: the admit it rests on
 *   credential_blob        base64 TPM2B_ID_OBJECT   } MakeCredential(EK, AK name,
 *   encrypted_secret       base64 TPM2B_ENCRYPTED_SECRET }  KEK): only that TPM,
 *                                                     for that AK, unwraps the KEK
 *   iv, ciphertext, tag    base64: AES-256-GCM(KEK, iv, key file bytes), AAD =
 *                          "eastwest-key-release v1\0" || AK name
 *
 * The key file's exact bytes are wrapped (hex or raw, up to 4096 bytes); a
 * credential carries at most a digest (32 bytes), hence the KEK.
 */
#ifndef EWA_KEYREL_H
#define EWA_KEYREL_H

#include "evidence.h"

#define EWA_KEYREL_FORMAT	"eastwest-key-release"
#define EWA_KEYREL_VERSION	1
#define EWA_KEYREL_KEY_MAX	4096
#define EWA_KEYREL_KEK_LEN	32
#define EWA_KEYREL_IV_LEN	12
#define EWA_KEYREL_TAG_LEN	16

struct ewa_keyrel {
	char *node;
	uint8_t ak_name[EWA_NAME_MAX];
	size_t ak_name_len;
	char released_at[32];
	char verdict_at[32];
	struct ew_buf credential_blob;		/* marshalled TPM2B_ID_OBJECT */
	struct ew_buf encrypted_secret;	/* marshalled TPM2B_ENCRYPTED_SECRET */
	uint8_t iv[EWA_KEYREL_IV_LEN];
	struct ew_buf ciphertext;
	uint8_t tag[EWA_KEYREL_TAG_LEN];
};

/* Encrypts @key into r->iv, r->ciphertext, r->tag (r->ak_name must be set). */
int ewa_keyrel_seal(const uint8_t kek[EWA_KEYREL_KEK_LEN], const uint8_t *key, size_t len,
		    struct ewa_keyrel *r);
/* Decrypts into @out (r->ciphertext.len bytes); -1 when the tag does not verify. */
int ewa_keyrel_open(const uint8_t kek[EWA_KEYREL_KEK_LEN], const struct ewa_keyrel *r,
		    uint8_t *out);
int ewa_keyrel_save(const struct ewa_keyrel *r, const char *path);
int ewa_keyrel_load(const char *path, struct ewa_keyrel *r, char *why, size_t whylen);
void ewa_keyrel_free(struct ewa_keyrel *r);

#endif /* EWA_KEYREL_H */
