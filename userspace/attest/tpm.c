// SPDX-License-Identifier: GPL-2.0
/*
 * tpm2-tss ESAPI calls of the node side.
 *
 * The AK is a primary key of the endorsement hierarchy, not a child of
 * the EK: primaries are derived from the hierarchy seed, so the same
 * template gives the same key after every reboot without storing a key
 * blob on the node, and a key of the endorsement hierarchy gets its
 * resetCount/restartCount unobfuscated in quotes (the verifier's replay
 * check needs them). ECC P-256 because a TPM derives it in milliseconds
 * where an RSA primary can take seconds, and signatures are small.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

#include "tpm.h"

/*
 * What the EK and the AK templates share: restricted keys generated inside
 * this TPM that can never leave it.
 */
#define TPM_KEY_ATTRS (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | \
		       TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_RESTRICTED)

/* TCG EK Credential Profile, template L-1 (RSA 2048, AES-128-CFB). */
static const TPM2B_PUBLIC ek_template = {
	.publicArea = {
		.type = TPM2_ALG_RSA,
		.nameAlg = TPM2_ALG_SHA256,
		.objectAttributes = TPM_KEY_ATTRS | TPMA_OBJECT_ADMINWITHPOLICY |
			TPMA_OBJECT_DECRYPT,
		.authPolicy = {
			.size = 32,
			/* PolicySecret(TPM_RH_ENDORSEMENT) */
			.buffer = {
				0x83, 0x71, 0x97, 0x67, 0x44, 0x84, 0xb3, 0xf8,
				0x1a, 0x90, 0xcc, 0x8d, 0x46, 0xa5, 0xd7, 0x24,
				0xfd, 0x52, 0xd7, 0x6e, 0x06, 0x52, 0x0b, 0x64,
				0xf2, 0xa1, 0xda, 0x1b, 0x33, 0x14, 0x69, 0xaa,
			},
		},
		.parameters.rsaDetail = {
			.symmetric = {
				.algorithm = TPM2_ALG_AES,
				.keyBits.aes = 128,
				.mode.aes = TPM2_ALG_CFB,
			},
			.scheme.scheme = TPM2_ALG_NULL,
			.keyBits = 2048,
			.exponent = 0,
		},
		.unique.rsa.size = 256,
	},
};

/* The unique field makes this key eastwest's own among endorsement primaries. */
#define AK_UNIQUE "eastwest attestation key v1"

static const TPM2B_PUBLIC ak_template = {
	.publicArea = {
		.type = TPM2_ALG_ECC,
		.nameAlg = TPM2_ALG_SHA256,
		.objectAttributes = TPM_KEY_ATTRS | TPMA_OBJECT_USERWITHAUTH |
			TPMA_OBJECT_SIGN_ENCRYPT,
		.parameters.eccDetail = {
			.symmetric.algorithm = TPM2_ALG_NULL,
			.scheme = {
				.scheme = TPM2_ALG_ECDSA,
				.details.ecdsa.hashAlg = TPM2_ALG_SHA256,
			},
			.curveID = TPM2_ECC_NIST_P256,
			.kdf.scheme = TPM2_ALG_NULL,
		},
		.unique.ecc = {
			.x = { .size = sizeof(AK_UNIQUE) - 1, .buffer = AK_UNIQUE },
		},
	},
};

static const char *rcstr(TSS2_RC rc)
{
	return Tss2_RC_Decode(rc);
}

const char *ewa_tcti_choose(const char *option, char *buf, size_t len)
{
	const char *env = getenv("EW_TCTI");
	char line[512];
	FILE *f;

	if (option)
		return option;
	if (env && *env)
		return env;
	f = fopen(EWA_CONF_FILE, "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *p = line, *end;

			while (*p == ' ' || *p == '\t')
				p++;
			if (strncmp(p, "tcti", 4))
				continue;
			p += 4;
			while (*p == ' ' || *p == '\t' || *p == '=')
				p++;
			end = p + strcspn(p, " \t\r\n#");
			*end = '\0';
			if (*p) {
				snprintf(buf, len, "%s", p);
				fclose(f);
				return buf;
			}
		}
		fclose(f);
	}
	return EWA_DEFAULT_TCTI;
}

int ewa_tpm_open(const char *tcti, struct ewa_tpm *t, char *why, size_t whylen)
{
	TPMS_CAPABILITY_DATA *cap = NULL;
	TPMI_YES_NO more;
	TSS2_RC rc;

	memset(t, 0, sizeof(*t));
	/* Say "no such device" rather than the loader's list of attempts. */
	if (!strncmp(tcti, "device:", 7) && access(tcti + 7, F_OK)) {
		snprintf(why, whylen, "%s: %s", tcti + 7, strerror(errno));
		return -1;
	}
	rc = Tss2_TctiLdr_Initialize(tcti, &t->tcti);
	if (rc) {
		snprintf(why, whylen, "TCTI \"%s\": %s", tcti, rcstr(rc));
		return -1;
	}
	rc = Esys_Initialize(&t->esys, t->tcti, NULL);
	if (rc) {
		snprintf(why, whylen, "TCTI \"%s\": Esys_Initialize: %s", tcti, rcstr(rc));
		Tss2_TctiLdr_Finalize(&t->tcti);
		return -1;
	}
	/* A TCTI may open without anything answering behind it: ask. */
	rc = Esys_GetCapability(t->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
				TPM2_CAP_TPM_PROPERTIES, TPM2_PT_FAMILY_INDICATOR, 1,
				&more, &cap);
	free(cap);
	if (rc) {
		snprintf(why, whylen, "TCTI \"%s\": the TPM does not answer: %s", tcti,
			 rcstr(rc));
		ewa_tpm_close(t);
		return -1;
	}
	return 0;
}

void ewa_tpm_close(struct ewa_tpm *t)
{
	if (t->esys)
		Esys_Finalize(&t->esys);
	if (t->tcti)
		Tss2_TctiLdr_Finalize(&t->tcti);
	t->esys = NULL;
	t->tcti = NULL;
}

void ewa_tpm_release(struct ewa_tpm *t, struct ewa_key *k)
{
	if (k->handle != ESYS_TR_NONE && t->esys) {
		if (k->transient)
			Esys_FlushContext(t->esys, k->handle);
		else
			Esys_TR_Close(t->esys, &k->handle);
	}
	free(k->pub);
	free(k->name);
	memset(k, 0, sizeof(*k));
	k->handle = ESYS_TR_NONE;
}

static int create_primary(struct ewa_tpm *t, ESYS_TR hierarchy, const TPM2B_PUBLIC *tmpl,
			  struct ewa_key *k, const char *what)
{
	TPM2B_SENSITIVE_CREATE in_sensitive = { 0 };
	TPMT_TK_CREATION *ticket = NULL;
	TPM2B_CREATION_DATA *cdata = NULL;
	TPML_PCR_SELECTION no_pcrs = { 0 };
	TPM2B_DIGEST *chash = NULL;
	TPM2B_DATA outside = { 0 };
	TSS2_RC rc;

	rc = Esys_CreatePrimary(t->esys, hierarchy, ESYS_TR_PASSWORD, ESYS_TR_NONE,
				ESYS_TR_NONE, &in_sensitive, tmpl, &outside, &no_pcrs,
				&k->handle, &k->pub, &cdata, &chash, &ticket);
	free(cdata);
	free(chash);
	free(ticket);
	if (rc) {
		k->handle = ESYS_TR_NONE;
		ew_err("%s: TPM2_CreatePrimary: %s", what, rcstr(rc));
		return -1;
	}
	k->transient = true;
	rc = Esys_TR_GetName(t->esys, k->handle, &k->name);
	if (rc) {
		ew_err("%s: name: %s", what, rcstr(rc));
		return -1;
	}
	return 0;
}

int ewa_tpm_load_ek(struct ewa_tpm *t, struct ewa_key *ek)
{
	TPM2B_NAME *qname = NULL;
	TSS2_RC rc;

	memset(ek, 0, sizeof(*ek));
	ek->handle = ESYS_TR_NONE;
	rc = Esys_TR_FromTPMPublic(t->esys, EWA_EK_PERSISTENT, ESYS_TR_NONE, ESYS_TR_NONE,
				   ESYS_TR_NONE, &ek->handle);
	if (!rc) {
		rc = Esys_ReadPublic(t->esys, ek->handle, ESYS_TR_NONE, ESYS_TR_NONE,
				     ESYS_TR_NONE, &ek->pub, &ek->name, &qname);
		free(qname);
		if (!rc && ek->pub->publicArea.type == TPM2_ALG_RSA &&
		    (ek->pub->publicArea.objectAttributes & TPMA_OBJECT_RESTRICTED) &&
		    (ek->pub->publicArea.objectAttributes & TPMA_OBJECT_DECRYPT)) {
			ek->persistent = EWA_EK_PERSISTENT;
			return 0;
		}
		/* Something else lives there: use a template EK instead. */
		ewa_tpm_release(t, ek);
	}
	ek->handle = ESYS_TR_NONE;
	return create_primary(t, ESYS_TR_RH_ENDORSEMENT, &ek_template, ek, "EK");
}

int ewa_tpm_load_ak(struct ewa_tpm *t, struct ewa_key *ak)
{
	memset(ak, 0, sizeof(*ak));
	ak->handle = ESYS_TR_NONE;
	return create_primary(t, ESYS_TR_RH_ENDORSEMENT, &ak_template, ak, "AK");
}

/* A DER SEQUENCE's full length, so NV padding after the certificate is dropped. */
static size_t der_length(const uint8_t *p, size_t n)
{
	size_t len, i, nb;

	if (n < 2 || p[0] != 0x30)
		return 0;
	if (!(p[1] & 0x80))
		return 2 + (size_t)p[1] <= n ? 2 + (size_t)p[1] : 0;
	nb = p[1] & 0x7f;
	if (nb == 0 || nb > 3 || 2 + nb > n)
		return 0;
	for (len = 0, i = 0; i < nb; i++)
		len = len << 8 | p[2 + i];
	return 2 + nb + len <= n ? 2 + nb + len : 0;
}

int ewa_tpm_read_ek_cert(struct ewa_tpm *t, struct ew_buf *der)
{
	TPM2B_NV_PUBLIC *nvpub = NULL;
	TPM2B_NAME *nvname = NULL;
	ESYS_TR nv = ESYS_TR_NONE;
	uint16_t size, off;
	size_t dlen;
	TSS2_RC rc;
	int ret = -1;

	rc = Esys_TR_FromTPMPublic(t->esys, EWA_EK_CERT_NV, ESYS_TR_NONE, ESYS_TR_NONE,
				   ESYS_TR_NONE, &nv);
	if (rc)
		return 1;
	rc = Esys_NV_ReadPublic(t->esys, nv, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
				&nvpub, &nvname);
	if (rc) {
		ew_err("EK certificate: TPM2_NV_ReadPublic: %s", rcstr(rc));
		goto out;
	}
	size = nvpub->nvPublic.dataSize;
	for (off = 0; off < size;) {
		UINT16 chunk = size - off > 512 ? 512 : size - off;
		TPM2B_MAX_NV_BUFFER *data = NULL;

		rc = Esys_NV_Read(t->esys, nv, nv, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
				  chunk, off, &data);
		if (rc) {
			ew_err("EK certificate: TPM2_NV_Read at %u: %s", off, rcstr(rc));
			goto out;
		}
		ew_buf_add(der, data->buffer, data->size);
		off += data->size;
		free(data);
		if (!chunk)
			break;
	}
	dlen = der_length(der->data, der->len);
	if (!dlen) {
		ew_err("EK certificate at NV 0x%08x is not DER", EWA_EK_CERT_NV);
		goto out;
	}
	der->len = dlen;
	ret = 0;
out:
	free(nvpub);
	free(nvname);
	Esys_TR_Close(t->esys, &nv);
	return ret;
}

/* A policy session satisfying the EK's PolicySecret(TPM_RH_ENDORSEMENT). */
static int ek_policy_session(struct ewa_tpm *t, ESYS_TR *session)
{
	TPMT_SYM_DEF sym = { .algorithm = TPM2_ALG_NULL };
	TPMT_TK_AUTH *ticket = NULL;
	TPM2B_TIMEOUT *timeout = NULL;
	TSS2_RC rc;

	rc = Esys_StartAuthSession(t->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
				   ESYS_TR_NONE, ESYS_TR_NONE, NULL, TPM2_SE_POLICY, &sym,
				   TPM2_ALG_SHA256, session);
	if (rc) {
		*session = ESYS_TR_NONE;
		ew_err("EK policy: TPM2_StartAuthSession: %s", rcstr(rc));
		return -1;
	}
	rc = Esys_PolicySecret(t->esys, ESYS_TR_RH_ENDORSEMENT, *session, ESYS_TR_PASSWORD,
			       ESYS_TR_NONE, ESYS_TR_NONE, NULL, NULL, NULL, 0, &timeout,
			       &ticket);
	free(timeout);
	free(ticket);
	if (rc) {
		ew_err("EK policy: TPM2_PolicySecret: %s", rcstr(rc));
		Esys_FlushContext(t->esys, *session);
		*session = ESYS_TR_NONE;
		return -1;
	}
	return 0;
}

int ewa_tpm_activate(struct ewa_tpm *t, const struct ewa_key *ek, const struct ewa_key *ak,
		     const TPM2B_ID_OBJECT *blob, const TPM2B_ENCRYPTED_SECRET *secret,
		     TPM2B_DIGEST **cred)
{
	ESYS_TR session;
	TSS2_RC rc;

	if (ek_policy_session(t, &session))
		return -1;
	rc = Esys_ActivateCredential(t->esys, ak->handle, ek->handle, ESYS_TR_PASSWORD,
				     session, ESYS_TR_NONE, blob, secret, cred);
	/* Flushed whatever happened: a failed command does not end the session. */
	Esys_FlushContext(t->esys, session);
	if (rc) {
		ew_err("TPM2_ActivateCredential: %s", rcstr(rc));
		return -1;
	}
	return 0;
}

void ewa_pcr_selection(uint32_t pcrs, TPML_PCR_SELECTION *sel)
{
	memset(sel, 0, sizeof(*sel));
	sel->count = 1;
	sel->pcrSelections[0].hash = TPM2_ALG_SHA256;
	sel->pcrSelections[0].sizeofSelect = 3;
	sel->pcrSelections[0].pcrSelect[0] = pcrs & 0xff;
	sel->pcrSelections[0].pcrSelect[1] = (pcrs >> 8) & 0xff;
	sel->pcrSelections[0].pcrSelect[2] = (pcrs >> 16) & 0xff;
}

int ewa_tpm_pcr_read(struct ewa_tpm *t, uint32_t pcrs, TPML_DIGEST *chunks, size_t *n)
{
	uint32_t left = pcrs & 0xffffff;

	*n = 0;
	while (left) {
		TPML_PCR_SELECTION sel, *sel_out = NULL;
		uint32_t batch = 0, want;
		TPML_DIGEST *values = NULL;
		UINT32 update_counter;
		int i, count = 0;
		TSS2_RC rc;

		/* TPM2_PCR_Read answers at most 8 digests: ask for 8 at a time. */
		for (i = 0; i < 24 && count < 8; i++) {
			if (left & (1U << i)) {
				batch |= 1U << i;
				count++;
			}
		}
		ewa_pcr_selection(batch, &sel);
		rc = Esys_PCR_Read(t->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &sel,
				   &update_counter, &sel_out, &values);
		if (rc) {
			ew_err("TPM2_PCR_Read: %s", rcstr(rc));
			return -1;
		}
		want = sel_out->count == 1 ?
		       (uint32_t)sel_out->pcrSelections[0].pcrSelect[0] |
		       (uint32_t)sel_out->pcrSelections[0].pcrSelect[1] << 8 |
		       (uint32_t)sel_out->pcrSelections[0].pcrSelect[2] << 16 : 0;
		if (want != batch || values->count != (UINT32)count) {
			ew_err("TPM2_PCR_Read: the TPM returned %u of %d SHA-256 PCRs "
			       "(is the SHA-256 bank allocated?)", values->count, count);
			free(sel_out);
			free(values);
			return -1;
		}
		chunks[(*n)++] = *values;
		free(sel_out);
		free(values);
		left &= ~batch;
	}
	return 0;
}

int ewa_tpm_quote(struct ewa_tpm *t, const struct ewa_key *ak, const TPM2B_DATA *qdata,
		  const TPML_PCR_SELECTION *sel, TPM2B_ATTEST **quoted, TPMT_SIGNATURE **sig)
{
	TPMT_SIG_SCHEME scheme;
	TSS2_RC rc;

	memset(&scheme, 0, sizeof(scheme));
	scheme.scheme = TPM2_ALG_NULL;	/* the AK's own: ECDSA-SHA256 */

	rc = Esys_Quote(t->esys, ak->handle, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
			qdata, &scheme, sel, quoted, sig);
	if (rc) {
		ew_err("TPM2_Quote: %s", rcstr(rc));
		return -1;
	}
	return 0;
}

/* TPM2_TRANSIENT_FIRST shifts 0x80 into an int's sign bit (UBSan): spell it out. */
#define TRANSIENT_FIRST	((TPM2_HANDLE)TPM2_HT_TRANSIENT << TPM2_HR_SHIFT)

static int count_handles(struct ewa_tpm *t, TPM2_HANDLE first, uint32_t *count)
{
	TPMS_CAPABILITY_DATA *cap = NULL;
	TPMI_YES_NO more;
	TSS2_RC rc;

	rc = Esys_GetCapability(t->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
				TPM2_CAP_HANDLES, first, TPM2_MAX_CAP_HANDLES, &more, &cap);
	if (rc) {
		ew_err("TPM2_GetCapability(handles 0x%08x): %s", first, rcstr(rc));
		return -1;
	}
	/*
	 * Only handles of the asked type; saved sessions come back with their
	 * session handle (0x02...) although asked for as type 0x03.
	 */
	*count = 0;
	for (UINT32 i = 0; i < cap->data.handles.count; i++) {
		TPM2_HANDLE type = cap->data.handles.handle[i] >> 24;

		if (first == TRANSIENT_FIRST ? type == TPM2_HT_TRANSIENT :
		    type == TPM2_HT_HMAC_SESSION || type == TPM2_HT_POLICY_SESSION)
			(*count)++;
	}
	free(cap);
	return 0;
}

int ewa_tpm_count_handles(struct ewa_tpm *t, uint32_t *objects, uint32_t *sessions)
{
	uint32_t loaded, saved;

	if (count_handles(t, TRANSIENT_FIRST, objects) ||
	    count_handles(t, TPM2_LOADED_SESSION_FIRST, &loaded) ||
	    count_handles(t, TPM2_ACTIVE_SESSION_FIRST, &saved))
		return -1;
	*sessions = loaded + saved;
	return 0;
}
