// SPDX-License-Identifier: GPL-2.0
/*
 * Software checks of TPM structures with OpenSSL 3.
 */
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>
#include <tss2/tss2_mu.h>

#include "tpmcheck.h"

int ewa_unmarshal_public(const uint8_t *p, size_t n, TPM2B_PUBLIC *pub)
{
	size_t off = 0;

	memset(pub, 0, sizeof(*pub));
	if (Tss2_MU_TPM2B_PUBLIC_Unmarshal(p, n, &off, pub) || off != n)
		return -1;
	return 0;
}

static EVP_PKEY *from_params(const char *type, OSSL_PARAM_BLD *bld)
{
	OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
	EVP_PKEY *pkey = NULL;

	if (params && ctx && EVP_PKEY_fromdata_init(ctx) > 0 &&
	    EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
		pkey = NULL;
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	return pkey;
}

EVP_PKEY *ewa_public_to_pkey(const TPM2B_PUBLIC *pub, char *why, size_t whylen)
{
	const TPMT_PUBLIC *a = &pub->publicArea;
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	BIGNUM *n = NULL, *e = NULL;
	EVP_PKEY *pkey = NULL;
	uint8_t point[1 + 2 * 66];

	if (!bld)
		goto out;
	if (a->type == TPM2_ALG_RSA) {
		uint32_t exp = a->parameters.rsaDetail.exponent ?
			       a->parameters.rsaDetail.exponent : 65537;

		n = BN_bin2bn(a->unique.rsa.buffer, a->unique.rsa.size, NULL);
		e = BN_new();
		if (!n || !e || !BN_set_word(e, exp) ||
		    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
		    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e))
			goto out;
		pkey = from_params("RSA", bld);
	} else if (a->type == TPM2_ALG_ECC) {
		const TPMS_ECC_POINT *q = &a->unique.ecc;
		const char *group;
		size_t len;

		switch (a->parameters.eccDetail.curveID) {
		case TPM2_ECC_NIST_P256:
			group = "prime256v1";
			len = 32;
			break;
		case TPM2_ECC_NIST_P384:
			group = "secp384r1";
			len = 48;
			break;
		default:
			snprintf(why, whylen, "unsupported ECC curve 0x%04x",
				 a->parameters.eccDetail.curveID);
			goto out;
		}
		if (q->x.size != len || q->y.size != len) {
			snprintf(why, whylen, "ECC point of the wrong size");
			goto out;
		}
		point[0] = 0x04;
		memcpy(point + 1, q->x.buffer, len);
		memcpy(point + 1 + len, q->y.buffer, len);
		if (!OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, group, 0) ||
		    !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point,
						      1 + 2 * len))
			goto out;
		pkey = from_params("EC", bld);
	} else {
		snprintf(why, whylen, "unsupported key type 0x%04x", a->type);
		goto out;
	}
	if (!pkey)
		snprintf(why, whylen, "OpenSSL refuses the public key");
out:
	BN_free(n);
	BN_free(e);
	OSSL_PARAM_BLD_free(bld);
	return pkey;
}

int ewa_public_name(const TPM2B_PUBLIC *pub, uint8_t *name, size_t *len)
{
	uint8_t buf[sizeof(TPMT_PUBLIC)];
	size_t off = 0;

	if (pub->publicArea.nameAlg != TPM2_ALG_SHA256 ||
	    Tss2_MU_TPMT_PUBLIC_Marshal(&pub->publicArea, buf, sizeof(buf), &off))
		return -1;
	name[0] = TPM2_ALG_SHA256 >> 8;
	name[1] = TPM2_ALG_SHA256 & 0xff;
	ewa_sha256(buf, off, name + 2);
	*len = 2 + EWA_SHA256_LEN;
	return 0;
}

#define FIXED	(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | \
		 TPMA_OBJECT_SENSITIVEDATAORIGIN)

int ewa_check_ak_public(const TPM2B_PUBLIC *pub, char *why, size_t whylen)
{
	TPMA_OBJECT attr = pub->publicArea.objectAttributes;

	if ((attr & FIXED) != FIXED) {
		snprintf(why, whylen, "AK is not fixedTPM, fixedParent and TPM-generated");
		return -1;
	}
	if (!(attr & TPMA_OBJECT_RESTRICTED) || !(attr & TPMA_OBJECT_SIGN_ENCRYPT) ||
	    (attr & TPMA_OBJECT_DECRYPT)) {
		snprintf(why, whylen, "AK is not a restricted signing-only key");
		return -1;
	}
	return 0;
}

int ewa_check_ek_public(const TPM2B_PUBLIC *pub, char *why, size_t whylen)
{
	const TPMT_PUBLIC *a = &pub->publicArea;

	if (a->type != TPM2_ALG_RSA || a->unique.rsa.size < 256) {
		snprintf(why, whylen, "EK is not RSA 2048 or larger (ECC EKs are not supported)");
		return -1;
	}
	if ((a->objectAttributes & FIXED) != FIXED ||
	    !(a->objectAttributes & TPMA_OBJECT_RESTRICTED) ||
	    !(a->objectAttributes & TPMA_OBJECT_DECRYPT) ||
	    (a->objectAttributes & TPMA_OBJECT_SIGN_ENCRYPT)) {
		snprintf(why, whylen, "EK is not a restricted, TPM-bound decryption key");
		return -1;
	}
	if (a->nameAlg != TPM2_ALG_SHA256 ||
	    a->parameters.rsaDetail.symmetric.algorithm != TPM2_ALG_AES ||
	    a->parameters.rsaDetail.symmetric.keyBits.aes != 128 ||
	    a->parameters.rsaDetail.symmetric.mode.aes != TPM2_ALG_CFB) {
		snprintf(why, whylen, "EK is not SHA-256 named with AES-128-CFB (template L-1)");
		return -1;
	}
	return 0;
}

static const EVP_MD *md_of(TPMI_ALG_HASH alg)
{
	switch (alg) {
	case TPM2_ALG_SHA256:
		return EVP_sha256();
	case TPM2_ALG_SHA384:
		return EVP_sha384();
	case TPM2_ALG_SHA512:
		return EVP_sha512();
	default:
		return NULL;
	}
}

/* ECDSA (r, s) as the DER OpenSSL verifies. */
static int ecdsa_der(const TPMS_SIGNATURE_ECC *ecc, unsigned char **der, int *len)
{
	ECDSA_SIG *s = ECDSA_SIG_new();
	BIGNUM *r = BN_bin2bn(ecc->signatureR.buffer, ecc->signatureR.size, NULL);
	BIGNUM *sv = BN_bin2bn(ecc->signatureS.buffer, ecc->signatureS.size, NULL);

	if (!s || !r || !sv || !ECDSA_SIG_set0(s, r, sv)) {
		ECDSA_SIG_free(s);
		BN_free(r);
		BN_free(sv);
		return -1;
	}
	*der = NULL;
	*len = i2d_ECDSA_SIG(s, der);
	ECDSA_SIG_free(s);
	return *len > 0 ? 0 : -1;
}

int ewa_verify_signature(EVP_PKEY *key, const TPMT_SIGNATURE *sig, const uint8_t *data,
			 size_t len, char *why, size_t whylen)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	const unsigned char *sigp;
	unsigned char *der = NULL;
	EVP_PKEY_CTX *pctx = NULL;
	const EVP_MD *md;
	size_t siglen;
	int ret = -1, dlen;

	switch (sig->sigAlg) {
	case TPM2_ALG_ECDSA:
		md = md_of(sig->signature.ecdsa.hash);
		if (!md || ecdsa_der(&sig->signature.ecdsa, &der, &dlen)) {
			snprintf(why, whylen, "malformed ECDSA signature");
			goto out;
		}
		sigp = der;
		siglen = (size_t)dlen;
		break;
	case TPM2_ALG_RSASSA:
	case TPM2_ALG_RSAPSS:
		md = md_of(sig->signature.rsassa.hash);
		sigp = sig->signature.rsassa.sig.buffer;
		siglen = sig->signature.rsassa.sig.size;
		break;
	default:
		snprintf(why, whylen, "unsupported signature scheme 0x%04x", sig->sigAlg);
		goto out;
	}
	if (!md || !ctx || EVP_DigestVerifyInit(ctx, &pctx, md, NULL, key) <= 0) {
		snprintf(why, whylen, "signature hash or key not usable");
		goto out;
	}
	if (sig->sigAlg == TPM2_ALG_RSAPSS &&
	    (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) <= 0 ||
	     EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_AUTO) <= 0)) {
		snprintf(why, whylen, "RSA-PSS setup failed");
		goto out;
	}
	if (EVP_DigestVerify(ctx, sigp, siglen, data, len) != 1) {
		snprintf(why, whylen, "the signature does not verify with the enrolled AK");
		goto out;
	}
	ret = 0;
out:
	OPENSSL_free(der);
	EVP_MD_CTX_free(ctx);
	return ret;
}
