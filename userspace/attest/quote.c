// SPDX-License-Identifier: GPL-2.0
/*
 * This node's evidence, for "attest quote" (node.c) and "attest watch"
 * (watch.c): a TPM quote of the chosen PCRs over the verifier's nonce,
 * with the IMA and UEFI event logs read around it (a quote is taken again
 * while the PCRs move under it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <tss2/tss2_mu.h>

#include "../ewctl.h"
#include "attest.h"
#include "enrollment.h"
#include "evidence.h"
#include "jsonfile.h"
#include "keyrel.h"
#include "nodeside.h"
#include "report.h"
#include "tpm.h"

#define IMA_LOG_PATH	"/sys/kernel/security/ima/binary_runtime_measurements"
#define UEFI_LOG_PATH	"/sys/kernel/security/tpm0/binary_bios_measurements"
#define QUOTE_ATTEMPTS	5

/* A log that is absent is not an error: the verifier decides if it needed it. */
static int read_log(const char *path, const char *dflt, bool *present, struct ew_buf *b)
{
	int ret;

	*present = false;
	if (path && !strcmp(path, "none"))
		return 0;
	ret = ewa_read_file(path ? path : dflt, b);
	if (ret == -ENOENT && !path)
		return 0;
	if (ret) {
		ew_err("%s: %s", path ? path : dflt, strerror(-ret));
		return -1;
	}
	*present = true;
	return 0;
}

int ewa_parse_pcr_list(const char *s, uint32_t *mask)
{
	const char *p = s;

	*mask = 0;
	while (*p) {
		char *end;
		unsigned long lo, hi;

		if (*p < '0' || *p > '9')
			return -1;
		lo = strtoul(p, &end, 10);
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return -1;
			hi = strtoul(p, &end, 10);
		}
		if (lo > hi || hi >= 24)
			return -1;
		for (; lo <= hi; lo++)
			*mask |= 1U << lo;
		p = end;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return -1;
	}
	return *mask ? 0 : -1;
}

static void pcr_digest(const TPML_DIGEST *chunks, size_t n, uint8_t out[EWA_SHA256_LEN])
{
	struct ew_buf all = { 0 };
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < chunks[i].count; j++)
			ew_buf_add(&all, chunks[i].digests[j].buffer, chunks[i].digests[j].size);
	ewa_sha256(all.data, all.len, out);
	ew_buf_free(&all);
}

/*
 * One attempt: read the PCRs, quote, and check the quote covers the values
 * read. 1 when a PCR or the IMA log changed in between (try again).
 */
static int quote_once(struct ewa_tpm *t, const struct ewa_key *ak, uint32_t pcrs,
		      const TPM2B_DATA *qdata, const char *ima_log, struct ewa_evidence *ev)
{
	TPM2B_ATTEST *quoted = NULL;
	TPMT_SIGNATURE *sig = NULL;
	TPML_DIGEST chunks[EWA_MAX_PCR_CHUNKS];
	uint8_t digest[EWA_SHA256_LEN];
	struct ew_buf ima_after = { 0 };
	TPML_PCR_SELECTION sel;
	bool ima_present;
	TPMS_ATTEST att;
	size_t n, i, off;
	uint8_t buf[sizeof(TPM2B_ATTEST)];
	int ret = -1;

	ew_buf_free(&ev->ima_log);
	if (read_log(ima_log, IMA_LOG_PATH, &ev->has_ima_log, &ev->ima_log))
		return -1;
	if (ewa_tpm_pcr_read(t, pcrs, chunks, &n))
		return -1;
	ewa_pcr_selection(pcrs, &sel);
	if (ewa_tpm_quote(t, ak, qdata, &sel, &quoted, &sig))
		return -1;
	off = 0;
	if (Tss2_MU_TPMS_ATTEST_Unmarshal(quoted->attestationData, quoted->size, &off, &att) ||
	    att.type != TPM2_ST_ATTEST_QUOTE) {
		ew_err("TPM2_Quote: the TPM returned no quote structure");
		goto out;
	}
	pcr_digest(chunks, n, digest);
	if (att.attested.quote.pcrDigest.size != EWA_SHA256_LEN ||
	    memcmp(att.attested.quote.pcrDigest.buffer, digest, EWA_SHA256_LEN)) {
		ret = 1;	/* a PCR was extended between the read and the quote */
		goto out;
	}
	if (read_log(ima_log, IMA_LOG_PATH, &ima_present, &ima_after))
		goto out;
	if (ima_present != ev->has_ima_log || ima_after.len != ev->ima_log.len ||
	    (ima_after.len && memcmp(ima_after.data, ev->ima_log.data, ima_after.len))) {
		ret = 1;	/* IMA measured something meanwhile */
		goto out;
	}
	off = 0;
	Tss2_MU_TPM2B_ATTEST_Marshal(quoted, buf, sizeof(buf), &off);
	ev->attest.len = 0;
	ew_buf_add(&ev->attest, buf, off);
	off = 0;
	Tss2_MU_TPMT_SIGNATURE_Marshal(sig, buf, sizeof(buf), &off);
	ev->signature.len = 0;
	ew_buf_add(&ev->signature, buf, off);
	off = 0;
	Tss2_MU_TPML_PCR_SELECTION_Marshal(&sel, buf, sizeof(buf), &off);
	ev->pcr_selection.len = 0;
	ew_buf_add(&ev->pcr_selection, buf, off);
	for (i = 0; i < n; i++) {
		off = 0;
		Tss2_MU_TPML_DIGEST_Marshal(&chunks[i], buf, sizeof(buf), &off);
		ev->pcr_values[i].len = 0;
		ew_buf_add(&ev->pcr_values[i], buf, off);
	}
	ev->n_pcr_values = n;
	ret = 0;
out:
	ew_buf_free(&ima_after);
	free(quoted);
	free(sig);
	return ret;
}

int ewa_node_evidence(const struct ewa_quote_opts *o, const uint8_t *nonce, size_t nonce_len,
		      struct ewa_evidence *ev, int *attempts, char *why, size_t whylen)
{
	struct ewa_key ak = { .handle = ESYS_TR_NONE };
	TPM2B_DATA qdata = { 0 };
	char tcti_buf[512];
	struct ewa_tpm t;
	int ret, attempt;

	memset(ev, 0, sizeof(*ev));
	memcpy(ev->nonce, nonce, nonce_len);
	ev->nonce_len = nonce_len;
	*attempts = 0;
	ewa_report_build(o->root ? o->root : "", &ev->report);
	ewa_qualifying_data(ev->nonce, ev->nonce_len, ev->report.data, ev->report.len,
			    qdata.buffer);
	qdata.size = EWA_SHA256_LEN;

	if (ewa_tpm_open(ewa_tcti_choose(o->tcti, tcti_buf, sizeof(tcti_buf)), &t, why,
			 whylen)) {
		/* Fail closed, and say so: the verifier reports "no TPM on node". */
		ev->tpm = false;
		ev->no_tpm_reason = ew_strdup(why);
		return 1;
	}
	ev->tpm = true;
	ret = -1;
	if (ewa_tpm_load_ak(&t, &ak))
		goto out;
	memcpy(ev->ak_name, ak.name->name, ak.name->size);
	ev->ak_name_len = ak.name->size;
	if (read_log(o->uefi_log, UEFI_LOG_PATH, &ev->has_uefi_log, &ev->uefi_log))
		goto out;
	for (attempt = 1; attempt <= QUOTE_ATTEMPTS; attempt++) {
		int r = quote_once(&t, &ak, o->pcrs, &qdata, o->ima_log, ev);

		if (r < 0)
			goto out;
		if (r == 0)
			break;
	}
	if (attempt > QUOTE_ATTEMPTS) {
		ew_err("attest quote: PCRs kept changing during %d attempts", QUOTE_ATTEMPTS);
		goto out;
	}
	*attempts = attempt;
	ret = 0;
out:
	if (ret)
		snprintf(why, whylen, "%s", ew_last_error());
	ewa_tpm_release(&t, &ak);
	ewa_tpm_close(&t);
	return ret;
}
