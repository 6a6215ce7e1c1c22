// SPDX-License-Identifier: GPL-2.0
/*
 * The key release file (keyrel.h): AES-256-GCM of the key file under a
 * key-encryption key that only the node's TPM can unwrap.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "jsonfile.h"
#include "keyrel.h"

static const char aad_label[] = "eastwest-key-release v1";	/* with its NUL */

static int gcm(bool enc, const uint8_t kek[EWA_KEYREL_KEK_LEN], const struct ewa_keyrel *r,
	       const uint8_t *in, size_t len, uint8_t *out, uint8_t tag[EWA_KEYREL_TAG_LEN])
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int n, ok;

	if (!ctx || len > EWA_KEYREL_KEY_MAX)
		return -1;
	ok = EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), NULL, NULL, NULL, enc) &&
	     EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, EWA_KEYREL_IV_LEN, NULL) &&
	     EVP_CipherInit_ex(ctx, NULL, NULL, kek, r->iv, enc) &&
	     EVP_CipherUpdate(ctx, NULL, &n, (const uint8_t *)aad_label, sizeof(aad_label)) &&
	     EVP_CipherUpdate(ctx, NULL, &n, r->ak_name, (int)r->ak_name_len) &&
	     EVP_CipherUpdate(ctx, out, &n, in, (int)len);
	if (ok && !enc)
		ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, EWA_KEYREL_TAG_LEN, tag);
	if (ok)
		ok = EVP_CipherFinal_ex(ctx, out + n, &n) > 0;
	if (ok && enc)
		ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, EWA_KEYREL_TAG_LEN, tag);
	EVP_CIPHER_CTX_free(ctx);
	return ok ? 0 : -1;
}

int ewa_keyrel_seal(const uint8_t kek[EWA_KEYREL_KEK_LEN], const uint8_t *key, size_t len,
		    struct ewa_keyrel *r)
{
	uint8_t out[EWA_KEYREL_KEY_MAX];

	if (len == 0 || len > EWA_KEYREL_KEY_MAX || RAND_bytes(r->iv, sizeof(r->iv)) != 1)
		return -1;
	if (gcm(true, kek, r, key, len, out, r->tag)) {
		OPENSSL_cleanse(out, sizeof(out));
		return -1;
	}
	r->ciphertext.len = 0;
	ew_buf_add(&r->ciphertext, out, len);
	OPENSSL_cleanse(out, sizeof(out));
	return 0;
}

int ewa_keyrel_open(const uint8_t kek[EWA_KEYREL_KEK_LEN], const struct ewa_keyrel *r,
		    uint8_t *out)
{
	uint8_t tag[EWA_KEYREL_TAG_LEN];

	memcpy(tag, r->tag, sizeof(tag));
	if (gcm(false, kek, r, r->ciphertext.data, r->ciphertext.len, out, tag)) {
		OPENSSL_cleanse(out, r->ciphertext.len);
		return -1;
	}
	return 0;
}

int ewa_keyrel_save(const struct ewa_keyrel *r, const char *path)
{
	struct json_object *o = json_object_new_object();
	int ret;

	ewa_json_add_str(o, "format", EWA_KEYREL_FORMAT);
	json_object_object_add(o, "version", json_object_new_int(EWA_KEYREL_VERSION));
	json_object_object_add(o, "node", r->node ? json_object_new_string(r->node) : NULL);
	ewa_json_add_hex(o, "ak_name", r->ak_name, r->ak_name_len);
	ewa_json_add_str(o, "released_at", r->released_at);
	ewa_json_add_str(o, "verdict_at", r->verdict_at);
	ewa_json_add_b64(o, "credential_blob", r->credential_blob.data, r->credential_blob.len);
	ewa_json_add_b64(o, "encrypted_secret", r->encrypted_secret.data,
			 r->encrypted_secret.len);
	ewa_json_add_b64(o, "iv", r->iv, sizeof(r->iv));
	ewa_json_add_b64(o, "ciphertext", r->ciphertext.data, r->ciphertext.len);
	ewa_json_add_b64(o, "tag", r->tag, sizeof(r->tag));
	/* Encrypted, but nobody else needs to read it either. */
	ret = ewa_json_save(o, path, 0600);
	json_object_put(o);
	return ret;
}

static int fixed_b64(struct json_object *o, const char *key, uint8_t *out, size_t len,
		     char *why, size_t whylen)
{
	struct ew_buf b = { 0 };
	int ret = 0;

	if (ewa_json_b64(o, key, &b, why, whylen))
		return -1;
	if (b.len != len) {
		snprintf(why, whylen, "\"%s\" is %zu bytes, not %zu", key, b.len, len);
		ret = -1;
	} else {
		memcpy(out, b.data, len);
	}
	ew_buf_free(&b);
	return ret;
}

int ewa_keyrel_load(const char *path, struct ewa_keyrel *r, char *why, size_t whylen)
{
	struct json_object *o = ewa_json_load(path);
	const char *s;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (!o) {
		snprintf(why, whylen, "%s", ew_last_error());
		return -1;
	}
	if (ewa_json_check_format(o, EWA_KEYREL_FORMAT, EWA_KEYREL_VERSION, why, whylen) ||
	    ewa_json_hex(o, "ak_name", r->ak_name, EWA_NAME_MAX, &r->ak_name_len, why, whylen) ||
	    ewa_json_b64(o, "credential_blob", &r->credential_blob, why, whylen) ||
	    ewa_json_b64(o, "encrypted_secret", &r->encrypted_secret, why, whylen) ||
	    fixed_b64(o, "iv", r->iv, sizeof(r->iv), why, whylen) ||
	    fixed_b64(o, "tag", r->tag, sizeof(r->tag), why, whylen) ||
	    ewa_json_b64(o, "ciphertext", &r->ciphertext, why, whylen))
		goto out;
	if (r->ciphertext.len == 0 || r->ciphertext.len > EWA_KEYREL_KEY_MAX) {
		snprintf(why, whylen, "\"ciphertext\" is %zu bytes (1 to %d)", r->ciphertext.len,
			 EWA_KEYREL_KEY_MAX);
		goto out;
	}
	s = ewa_json_str(o, "node");
	r->node = s ? ew_strdup(s) : NULL;
	s = ewa_json_str(o, "released_at");
	snprintf(r->released_at, sizeof(r->released_at), "%s", s ? s : "");
	s = ewa_json_str(o, "verdict_at");
	snprintf(r->verdict_at, sizeof(r->verdict_at), "%s", s ? s : "");
	ret = 0;
out:
	json_object_put(o);
	if (ret)
		ewa_keyrel_free(r);
	return ret;
}

void ewa_keyrel_free(struct ewa_keyrel *r)
{
	free(r->node);
	ew_buf_free(&r->credential_blob);
	ew_buf_free(&r->encrypted_secret);
	ew_buf_free(&r->ciphertext);
	memset(r, 0, sizeof(*r));
}
