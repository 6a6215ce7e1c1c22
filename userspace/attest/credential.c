// SPDX-License-Identifier: GPL-2.0
/*
 * MakeCredential for an RSA EK (SHA-256 name, AES-128-CFB), the profile
 * of TCG EK template L-1 that swtpm_setup and most TPM vendors provision:
 *
 *   seed        = random, 32 bytes (the EK's name digest size)
 *   secret      = RSA-OAEP(EK, SHA-256, label "IDENTITY\0", seed)
 *   symKey      = KDFa(SHA-256, seed, "STORAGE", akName, -, 128)
 *   encIdentity = AES-128-CFB(symKey, iv 0, TPM2B(credential))
 *   hmacKey     = KDFa(SHA-256, seed, "INTEGRITY", -, -, 256)
 *   blob        = TPM2B(HMAC-SHA256(hmacKey, encIdentity || akName)) || encIdentity
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "credential.h"
#include "tpmcheck.h"

int ewa_kdfa_sha256(const uint8_t *key, size_t key_len, const char *label,
		    const uint8_t *u, size_t u_len, const uint8_t *v, size_t v_len,
		    uint32_t bits, uint8_t *out)
{
	size_t want = (bits + 7) / 8, done = 0, llen = strlen(label) + 1;
	uint8_t msg[4 + 32 + 2 * EWA_NAME_MAX_KDF + 4], block[EWA_SHA256_LEN];
	uint32_t counter = 0;

	if (llen > 32 || u_len > EWA_NAME_MAX_KDF || v_len > EWA_NAME_MAX_KDF)
		return -1;
	while (done < want) {
		unsigned int blen = sizeof(block);
		size_t m = 0, take;

		counter++;
		msg[m++] = (uint8_t)(counter >> 24);
		msg[m++] = (uint8_t)(counter >> 16);
		msg[m++] = (uint8_t)(counter >> 8);
		msg[m++] = (uint8_t)counter;
		memcpy(msg + m, label, llen);	/* the label's NUL is part of it */
		m += llen;
		if (u_len)
			memcpy(msg + m, u, u_len);
		m += u_len;
		if (v_len)
			memcpy(msg + m, v, v_len);
		m += v_len;
		msg[m++] = (uint8_t)(bits >> 24);
		msg[m++] = (uint8_t)(bits >> 16);
		msg[m++] = (uint8_t)(bits >> 8);
		msg[m++] = (uint8_t)bits;
		if (!HMAC(EVP_sha256(), key, (int)key_len, msg, m, block, &blen))
			return -1;
		take = want - done < blen ? want - done : blen;
		memcpy(out + done, block, take);
		done += take;
	}
	return 0;
}

static int oaep_encrypt(const TPM2B_PUBLIC *ek, const uint8_t *seed, size_t seed_len,
			TPM2B_ENCRYPTED_SECRET *enc, char *why, size_t whylen)
{
	EVP_PKEY *pkey = ewa_public_to_pkey(ek, why, whylen);
	EVP_PKEY_CTX *ctx = NULL;
	size_t outlen = sizeof(enc->secret);
	unsigned char *label;
	int ret = -1;

	if (!pkey)
		return -1;
	ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
	label = OPENSSL_memdup("IDENTITY", sizeof("IDENTITY"));
	if (!ctx || !label || EVP_PKEY_encrypt_init(ctx) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha256()) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, EVP_sha256()) <= 0 ||
	    EVP_PKEY_CTX_set0_rsa_oaep_label(ctx, label, sizeof("IDENTITY")) <= 0) {
		OPENSSL_free(label);
		snprintf(why, whylen, "RSA-OAEP setup failed");
		goto out;
	}
	if (EVP_PKEY_encrypt(ctx, enc->secret, &outlen, seed, seed_len) <= 0) {
		snprintf(why, whylen, "RSA-OAEP encryption failed");
		goto out;
	}
	enc->size = (UINT16)outlen;
	ret = 0;
out:
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(pkey);
	return ret;
}

int ewa_make_credential(const TPM2B_PUBLIC *ek, const uint8_t *ak_name, size_t ak_name_len,
			const uint8_t *secret, size_t secret_len, TPM2B_ID_OBJECT *blob,
			TPM2B_ENCRYPTED_SECRET *enc, char *why, size_t whylen)
{
	uint8_t seed[EWA_SHA256_LEN], sym_key[16], hmac_key[EWA_SHA256_LEN];
	uint8_t plain[2 + EWA_SHA256_LEN], *enc_identity, mac_in[2 + 64 + EWA_NAME_MAX_KDF];
	unsigned int mac_len = EWA_SHA256_LEN;
	EVP_CIPHER_CTX *cctx = NULL;
	static const uint8_t iv[16];
	int outl, finl, ret = -1;
	size_t plain_len;

	if (ewa_check_ek_public(ek, why, whylen))
		return -1;
	if (secret_len > EWA_SHA256_LEN || ak_name_len > EWA_NAME_MAX_KDF) {
		snprintf(why, whylen, "secret or AK name too long");
		return -1;
	}
	if (RAND_bytes(seed, sizeof(seed)) != 1) {
		snprintf(why, whylen, "no randomness");
		return -1;
	}
	if (oaep_encrypt(ek, seed, sizeof(seed), enc, why, whylen))
		goto out;
	if (ewa_kdfa_sha256(seed, sizeof(seed), "STORAGE", ak_name, ak_name_len, NULL, 0,
			    128, sym_key) ||
	    ewa_kdfa_sha256(seed, sizeof(seed), "INTEGRITY", NULL, 0, NULL, 0,
			    8 * EWA_SHA256_LEN, hmac_key)) {
		snprintf(why, whylen, "KDFa failed");
		goto out;
	}
	/* The credential is encrypted as a marshalled TPM2B_DIGEST. */
	plain[0] = (uint8_t)(secret_len >> 8);
	plain[1] = (uint8_t)secret_len;
	memcpy(plain + 2, secret, secret_len);
	plain_len = 2 + secret_len;
	/* credential = TPM2B hmac (2 + 32) followed by encIdentity */
	enc_identity = blob->credential + 2 + EWA_SHA256_LEN;
	cctx = EVP_CIPHER_CTX_new();
	if (!cctx || !EVP_EncryptInit_ex(cctx, EVP_aes_128_cfb128(), NULL, sym_key, iv) ||
	    !EVP_EncryptUpdate(cctx, enc_identity, &outl, plain, (int)plain_len) ||
	    !EVP_EncryptFinal_ex(cctx, enc_identity + outl, &finl)) {
		snprintf(why, whylen, "AES-128-CFB failed");
		goto out;
	}
	memcpy(mac_in, enc_identity, plain_len);
	memcpy(mac_in + plain_len, ak_name, ak_name_len);
	if (!HMAC(EVP_sha256(), hmac_key, sizeof(hmac_key), mac_in, plain_len + ak_name_len,
		  blob->credential + 2, &mac_len)) {
		snprintf(why, whylen, "HMAC failed");
		goto out;
	}
	blob->credential[0] = 0;
	blob->credential[1] = EWA_SHA256_LEN;
	blob->size = (UINT16)(2 + EWA_SHA256_LEN + plain_len);
	ret = 0;
out:
	EVP_CIPHER_CTX_free(cctx);
	OPENSSL_cleanse(seed, sizeof(seed));
	OPENSSL_cleanse(sym_key, sizeof(sym_key));
	OPENSSL_cleanse(hmac_key, sizeof(hmac_key));
	OPENSSL_cleanse(plain, sizeof(plain));
	return ret;
}
