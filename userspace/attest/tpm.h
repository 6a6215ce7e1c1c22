/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The node's TPM through tpm2-tss ESAPI: the keys attestation uses and
 * the few commands it needs. Every transient object and session created
 * here is flushed by its caller through ewa_tpm_flush() (a raw swtpm
 * socket has no resource manager: leaks end in TPM_RC_OBJECT_MEMORY 0x902
 * or TPM_RC_SESSION_MEMORY 0x903).
 */
#ifndef EWA_TPM_H
#define EWA_TPM_H

#include <tss2/tss2_esys.h>

#include "ewa.h"

#define EWA_EK_PERSISTENT	0x81010001	/* RSA EK (TCG EK profile; swtpm_setup) */
#define EWA_EK_CERT_NV		0x01c00002	/* its certificate (DER) */
#define EWA_DEFAULT_TCTI	"device:/dev/tpmrm0"
#define EWA_CONF_FILE		"/etc/eastwest/attest.conf"

struct ewa_tpm {
	TSS2_TCTI_CONTEXT *tcti;
	ESYS_CONTEXT *esys;
};

struct ewa_key {
	ESYS_TR handle;
	bool transient;		/* created here: flush it; else close it */
	TPM2_HANDLE persistent;	/* the persistent handle it was read from, or 0 */
	TPM2B_PUBLIC *pub;
	TPM2B_NAME *name;
};

/* The TCTI to use: @option, else $EW_TCTI, else the config file, else the device. */
const char *ewa_tcti_choose(const char *option, char *buf, size_t len);

/* -1 means "no usable TPM" and @why says why (the verifier is told so). */
int ewa_tpm_open(const char *tcti, struct ewa_tpm *t, char *why, size_t whylen);
void ewa_tpm_close(struct ewa_tpm *t);

/* The persistent RSA EK if there is one, else one created from the template. */
int ewa_tpm_load_ek(struct ewa_tpm *t, struct ewa_key *ek);
/* The attestation key: ECC P-256, restricted, signing, endorsement hierarchy. */
int ewa_tpm_load_ak(struct ewa_tpm *t, struct ewa_key *ak);
void ewa_tpm_release(struct ewa_tpm *t, struct ewa_key *k);

/* 0 with @der filled, 1 when there is no certificate, -1 on error. */
int ewa_tpm_read_ek_cert(struct ewa_tpm *t, struct ew_buf *der);

int ewa_tpm_activate(struct ewa_tpm *t, const struct ewa_key *ek, const struct ewa_key *ak,
		     const TPM2B_ID_OBJECT *blob, const TPM2B_ENCRYPTED_SECRET *secret,
		     TPM2B_DIGEST **cred);

/* Reads the SHA-256 PCRs in @pcrs (bit i = PCR i), 8 per TPM2_PCR_Read. */
int ewa_tpm_pcr_read(struct ewa_tpm *t, uint32_t pcrs, TPML_DIGEST *chunks, size_t *n);

int ewa_tpm_quote(struct ewa_tpm *t, const struct ewa_key *ak, const TPM2B_DATA *qdata,
		  const TPML_PCR_SELECTION *sel, TPM2B_ATTEST **quoted, TPMT_SIGNATURE **sig);

/* Loaded transient objects + loaded sessions + saved sessions (the leak check). */
int ewa_tpm_count_handles(struct ewa_tpm *t, uint32_t *objects, uint32_t *sessions);

/* A SHA-256 selection of the PCRs in @pcrs. */
void ewa_pcr_selection(uint32_t pcrs, TPML_PCR_SELECTION *sel);

#endif /* EWA_TPM_H */
