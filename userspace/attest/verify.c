// SPDX-License-Identifier: GPL-2.0
/*
 * The verifier: evidence + nonce + node record + signed manifest ->
 * admit or deny with every reason.
 *
 * Order matters only where a later check needs an earlier result: the
 * PCR values are trusted once their digest matches the signed quote, the
 * logs once their replay matches those values, and only then are the
 * logs' contents (modules, boot applications, Secure Boot) judged.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <tss2/tss2_mu.h>

#include "enroll.h"
#include "eventlog.h"
#include "imalog.h"
#include "manifest.h"
#include "report.h"
#include "tpmcheck.h"
#include "verify.h"

/* PCRs the UEFI log explains: boot chain, loader (8, 9), MokList (14). */
#define UEFI_PCRS	(0x3ffU | 1U << 14)
#define IMA_PCR		10

static void deny(struct ewa_verdict *v, const char *check, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void deny(struct ewa_verdict *v, const char *check, const char *fmt, ...)
{
	struct ewa_reason *r;
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	v->reasons = ew_reallocarray(v->reasons, v->n_reasons + 1, sizeof(*v->reasons));
	r = &v->reasons[v->n_reasons++];
	r->check = ew_strdup(check);
	r->detail = s ? s : ew_strdup("");
}

bool ewa_verdict_has(const struct ewa_verdict *v, const char *check)
{
	size_t i;

	for (i = 0; i < v->n_reasons; i++)
		if (!strcmp(v->reasons[i].check, check))
			return true;
	return false;
}

/* Everything the checks share. */
struct ctx {
	const struct ewa_verify_input *in;
	struct ewa_verdict *v;
	struct ewa_evidence ev;
	bool have_manifest;
	struct ewa_manifest m;
	TPM2B_PUBLIC ak;
	bool have_ak;
	char *hostname;			/* from enrollment */
	char *enrolled_ak;		/* hex name of the enrolled AK */
	TPMS_ATTEST att;
	uint32_t quoted;		/* PCR mask */
	uint8_t pcr[EWA_PCR_COUNT][EWA_SHA256_LEN];
	bool pcrs_trusted;
	struct ewa_pcrbank replay;
	struct ewa_ima_log ima;
	bool have_ima;
	struct ewa_uefi_log uefi;
	bool have_uefi;
	struct ewa_report report;
	bool have_report;
};

static const char *hex32(const uint8_t *p, char buf[2 * EWA_SHA256_LEN + 1])
{
	return ewa_hex(p, EWA_SHA256_LEN, buf);
}

static void check_manifest(struct ctx *c)
{
	char why[512];

	switch (ewa_manifest_load(c->in->manifest, c->in->pubkey, &c->m, why, sizeof(why))) {
	case EWA_MANIFEST_OK:
		c->have_manifest = true;
		c->v->have_manifest = true;
		c->v->manifest_serial = c->m.serial;
		break;
	case EWA_MANIFEST_UNREADABLE:
		deny(c->v, "manifest-unreadable", "%s", why);
		return;
	case EWA_MANIFEST_BAD_SIGNATURE:
		deny(c->v, "manifest-signature", "%s", why);
		return;
	case EWA_MANIFEST_INVALID:
		deny(c->v, "manifest-invalid", "%s", why);
		return;
	}
}

/* Under the state's lock: the manifest is not older than one accepted. */
static void check_serial(struct ctx *c)
{
	uint64_t last;
	int found;

	if (!c->have_manifest)
		return;
	found = ewa_vstate_get_serial(c->in->state, &last);
	if (found < 0)
		deny(c->v, "state-error", "cannot read the last manifest serial");
	else if (found && c->m.serial < last)
		deny(c->v, "manifest-rollback",
		     "manifest serial %llu is older than the last accepted serial %llu",
		     (unsigned long long)c->m.serial, (unsigned long long)last);
}

static void check_enrollment(struct ctx *c)
{
	char why[512], *node;

	if (ewa_node_record_load(c->in->enrollment, &c->ak, &node, &c->hostname, why,
				 sizeof(why))) {
		deny(c->v, "ak-not-bound", "%s", why);
		return;
	}
	c->have_ak = true;
	c->v->node = node;
	{
		uint8_t name[EWA_NAME_MAX];
		size_t len;

		if (!ewa_public_name(&c->ak, name, &len))
			c->enrolled_ak = ewa_hex_dup(name, len);
	}
}

static void check_ak_name(struct ctx *c)
{
	uint8_t name[EWA_NAME_MAX];
	size_t len;

	if (!c->have_ak)
		return;
	if (ewa_public_name(&c->ak, name, &len)) {
		deny(c->v, "ak-not-bound", "the enrolled AK has no SHA-256 name");
		c->have_ak = false;
		return;
	}
	if (len != c->ev.ak_name_len || memcmp(name, c->ev.ak_name, len)) {
		char *want = ewa_hex_dup(name, len);

		deny(c->v, "ak-mismatch", "the evidence is signed by AK %s, node %s enrolled AK %s",
		     c->v->ak_name, c->v->node, want);
		free(want);
		c->have_ak = false;
	}
}

/* Signature, magic, type, nonce binding. 0 when the attest structure is readable. */
static int check_quote(struct ctx *c)
{
	TPM2B_ATTEST quoted;
	TPMT_SIGNATURE sig;
	uint8_t qd[EWA_SHA256_LEN];
	EVP_PKEY *key;
	size_t off = 0;
	char why[256];

	if (Tss2_MU_TPM2B_ATTEST_Unmarshal(c->ev.attest.data, c->ev.attest.len, &off, &quoted) ||
	    off != c->ev.attest.len) {
		deny(c->v, "quote-invalid", "quote.attest is not a TPM2B_ATTEST");
		return -1;
	}
	off = 0;
	if (Tss2_MU_TPMS_ATTEST_Unmarshal(quoted.attestationData, quoted.size, &off, &c->att) ||
	    off != quoted.size) {
		deny(c->v, "quote-invalid", "quote.attest does not hold a TPMS_ATTEST");
		return -1;
	}
	off = 0;
	if (Tss2_MU_TPMT_SIGNATURE_Unmarshal(c->ev.signature.data, c->ev.signature.len, &off,
					     &sig) || off != c->ev.signature.len) {
		deny(c->v, "quote-invalid", "quote.signature is not a TPMT_SIGNATURE");
		return -1;
	}
	if (c->have_ak) {
		key = ewa_public_to_pkey(&c->ak, why, sizeof(why));
		if (!key)
			deny(c->v, "quote-signature", "enrolled AK: %s", why);
		else if (ewa_verify_signature(key, &sig, quoted.attestationData, quoted.size, why,
					      sizeof(why)))
			deny(c->v, "quote-signature", "%s", why);
		EVP_PKEY_free(key);
	} else {
		deny(c->v, "quote-signature", "not checked: no bound AK");
	}
	if (c->att.magic != TPM2_GENERATED_VALUE)
		deny(c->v, "quote-magic", "magic is 0x%08x, not TPM_GENERATED_VALUE (0x%08x)",
		     c->att.magic, TPM2_GENERATED_VALUE);
	if (c->att.type != TPM2_ST_ATTEST_QUOTE) {
		deny(c->v, "quote-type", "type is 0x%04x, not TPM_ST_ATTEST_QUOTE", c->att.type);
		return -1;
	}
	/* Which input is wrong: the nonce the verifier asked for, or the report. */
	ewa_qualifying_data(c->in->nonce, c->in->nonce_len, c->ev.report.data, c->ev.report.len, qd);
	if (c->att.extraData.size != EWA_SHA256_LEN ||
	    CRYPTO_memcmp(c->att.extraData.buffer, qd, EWA_SHA256_LEN)) {
		ewa_qualifying_data(c->ev.nonce, c->ev.nonce_len, c->ev.report.data,
				    c->ev.report.len, qd);
		if (c->ev.nonce_len != c->in->nonce_len ||
		    memcmp(c->ev.nonce, c->in->nonce, c->in->nonce_len)) {
			if (c->att.extraData.size == EWA_SHA256_LEN &&
			    !memcmp(c->att.extraData.buffer, qd, EWA_SHA256_LEN))
				deny(c->v, "nonce-mismatch",
				     "the quote answers another nonce (stale or replayed evidence)");
			else
				deny(c->v, "nonce-mismatch",
				     "the quote answers neither this nonce nor the evidence's");
		} else {
			deny(c->v, "report-binding",
			     "qualifyingData is not SHA256(nonce || SHA256(report)): "
			     "the report was changed after the quote");
		}
	}
	return 0;
}

static void check_clock(struct ctx *c)
{
	const TPMS_CLOCK_INFO *ci = &c->att.clockInfo;

	c->v->have_clock = true;
	c->v->clock.clock = ci->clock;
	c->v->clock.reset_count = ci->resetCount;
	c->v->clock.restart_count = ci->restartCount;
	if (ci->safe != 1)
		deny(c->v, "clock-unsafe", "clockInfo.safe is 0: the TPM clock may have "
		     "gone back (unorderly shutdown)");
}

/* Under the state's lock: the quote is newer than the AK's last accepted one. */
static void check_replayed(struct ctx *c)
{
	const TPMS_CLOCK_INFO *ci = &c->att.clockInfo;
	struct ewa_clock last;
	int found;

	if (!c->v->have_clock)
		return;
	found = ewa_vstate_get_clock(c->in->state, c->v->ak_name, &last);
	if (found < 0) {
		deny(c->v, "state-error", "cannot read the last quote of AK %s", c->v->ak_name);
		return;
	}
	if (!found)
		return;
	if (ci->resetCount < last.reset_count)
		deny(c->v, "reset-rollback", "resetCount %u < %u of the last accepted quote",
		     ci->resetCount, last.reset_count);
	else if (ci->resetCount == last.reset_count && ci->restartCount < last.restart_count)
		deny(c->v, "restart-rollback", "restartCount %u < %u of the last accepted quote",
		     ci->restartCount, last.restart_count);
	if (ci->clock <= last.clock)
		deny(c->v, "clock-rollback", "clock %llu is not after %llu of the last accepted "
		     "quote (replayed quote?)", (unsigned long long)ci->clock,
		     (unsigned long long)last.clock);
}

static uint32_t selection_mask(const TPMS_PCR_SELECTION *s)
{
	uint32_t m = 0;
	int i;

	for (i = 0; i < s->sizeofSelect && i < 3; i++)
		m |= (uint32_t)s->pcrSelect[i] << (8 * i);
	return m;
}

/* The PCR values: as many as selected, and hashing to the quoted digest. */
static void check_pcrs(struct ctx *c)
{
	const TPML_PCR_SELECTION *qs = &c->att.attested.quote.pcrSelect;
	TPML_PCR_SELECTION es;
	uint8_t digest[EWA_SHA256_LEN];
	struct ew_buf all = { 0 };
	size_t off = 0, i, j;
	unsigned int pcr = 0;

	if (qs->count != 1 || qs->pcrSelections[0].hash != TPM2_ALG_SHA256 ||
	    qs->pcrSelections[0].sizeofSelect > 3) {
		deny(c->v, "pcr-selection", "the quote is not over one SHA-256 PCR bank");
		return;
	}
	c->quoted = selection_mask(&qs->pcrSelections[0]);
	if (Tss2_MU_TPML_PCR_SELECTION_Unmarshal(c->ev.pcr_selection.data, c->ev.pcr_selection.len,
						 &off, &es) || off != c->ev.pcr_selection.len ||
	    es.count != 1 || selection_mask(&es.pcrSelections[0]) != c->quoted) {
		deny(c->v, "pcr-selection", "quote.pcr_selection is not the selection the TPM quoted");
		return;
	}
	for (i = 0; i < c->ev.n_pcr_values; i++) {
		TPML_DIGEST d;

		off = 0;
		if (Tss2_MU_TPML_DIGEST_Unmarshal(c->ev.pcr_values[i].data, c->ev.pcr_values[i].len,
						  &off, &d) || off != c->ev.pcr_values[i].len) {
			deny(c->v, "pcr-digest-mismatch", "pcr_values[%zu] is not a TPML_DIGEST", i);
			goto out;
		}
		for (j = 0; j < d.count; j++) {
			while (pcr < EWA_PCR_COUNT && !(c->quoted & (1U << pcr)))
				pcr++;
			if (pcr == EWA_PCR_COUNT || d.digests[j].size != EWA_SHA256_LEN) {
				deny(c->v, "pcr-digest-mismatch",
				     "more PCR values than selected PCRs, or not SHA-256");
				goto out;
			}
			memcpy(c->pcr[pcr], d.digests[j].buffer, EWA_SHA256_LEN);
			ew_buf_add(&all, d.digests[j].buffer, EWA_SHA256_LEN);
			pcr++;
		}
	}
	if (all.len != (size_t)__builtin_popcount(c->quoted) * EWA_SHA256_LEN) {
		deny(c->v, "pcr-digest-mismatch", "%zu PCR values for %d selected PCRs",
		     all.len / EWA_SHA256_LEN, __builtin_popcount(c->quoted));
		goto out;
	}
	ewa_sha256(all.data, all.len, digest);
	if (c->att.attested.quote.pcrDigest.size != EWA_SHA256_LEN ||
	    CRYPTO_memcmp(digest, c->att.attested.quote.pcrDigest.buffer, EWA_SHA256_LEN)) {
		deny(c->v, "pcr-digest-mismatch",
		     "the PCR values in the evidence do not hash to the quoted pcrDigest");
		goto out;
	}
	c->pcrs_trusted = true;
out:
	ew_buf_free(&all);
}

static void check_required_and_golden(struct ctx *c)
{
	char a[65], b[65];
	unsigned int i;

	if (!c->have_manifest)
		return;
	for (i = 0; i < EWA_PCR_COUNT; i++) {
		if ((c->m.require_pcrs & (1U << i)) && !(c->quoted & (1U << i)))
			deny(c->v, "pcr-not-quoted", "PCR %u is required by the manifest but not quoted", i);
		if (!(c->m.golden_pcrs & (1U << i)))
			continue;
		if (!(c->quoted & (1U << i)))
			deny(c->v, "pcr-not-quoted", "PCR %u has a golden value but is not quoted", i);
		else if (memcmp(c->pcr[i], c->m.golden[i], EWA_SHA256_LEN))
			deny(c->v, "pcr-mismatch", "PCR %u is %s, the manifest says %s", i,
			     hex32(c->pcr[i], a), hex32(c->m.golden[i], b));
	}
}

static void parse_logs(struct ctx *c)
{
	char why[256];

	if (c->ev.has_uefi_log) {
		if (ewa_uefi_parse(c->ev.uefi_log.data, c->ev.uefi_log.len, &c->uefi, why,
				   sizeof(why)))
			deny(c->v, "uefi-log-invalid", "%s", why);
		else
			c->have_uefi = true;
		c->v->uefi_events = c->uefi.n;
	} else if (!c->have_manifest || c->m.require_uefi_log) {
		deny(c->v, "uefi-log-missing", "no UEFI event log: the boot chain is unproven");
	}
	if (c->ev.has_ima_log) {
		if (ewa_ima_parse(c->ev.ima_log.data, c->ev.ima_log.len, &c->ima, why, sizeof(why)))
			deny(c->v, "ima-log-invalid", "%s", why);
		else
			c->have_ima = true;
		c->v->ima_entries = c->ima.n;
	} else if (!c->have_manifest || c->m.require_ima) {
		deny(c->v, "ima-log-missing", "no IMA measurement list: loaded modules are unproven");
	}
}

/* Both logs into one bank, compared with every quoted PCR they explain. */
static void check_replay(struct ctx *c)
{
	uint32_t explain = 0;
	char a[65], b[65];
	unsigned int i;

	memset(&c->replay, 0, sizeof(c->replay));
	if (c->have_uefi) {
		ewa_uefi_replay(&c->uefi, &c->replay);
		explain |= UEFI_PCRS;
	}
	if (c->have_ima) {
		ewa_ima_replay(&c->ima, &c->replay);
		explain |= 1U << IMA_PCR;
		if (!(c->quoted & (1U << IMA_PCR)))
			deny(c->v, "pcr-not-quoted", "the node sent an IMA log but PCR 10 is not quoted");
	}
	explain |= c->replay.touched;
	for (i = 0; i < EWA_PCR_COUNT; i++) {
		if (!(explain & c->quoted & (1U << i)))
			continue;
		if (!memcmp(c->replay.v[i], c->pcr[i], EWA_SHA256_LEN))
			continue;
		deny(c->v, i == IMA_PCR ? "ima-replay-mismatch" : "uefi-replay-mismatch",
		     "PCR %u: the %s log replays to %s, the quote has %s", i,
		     i == IMA_PCR ? "IMA" : "UEFI event", hex32(c->replay.v[i], a),
		     hex32(c->pcr[i], b));
		if (i == IMA_PCR)
			c->have_ima = false;	/* its contents are not what was measured */
		else
			c->have_uefi = false;
	}
}

/*
 * What the UEFI log says about @pcr is believed only if @pcr was quoted and
 * the log replays to it (check_replay drops a log that does not): a PCR
 * left out of the quote is compared with nothing, and its events could be
 * anything.
 */
static bool uefi_pcr_proven(const struct ctx *c, unsigned int pcr)
{
	return c->have_uefi && (c->quoted & (1U << pcr));
}

/* A fact the manifest needs from @pcr, which the node left out of its quote. */
static void deny_unquoted(struct ctx *c, unsigned int pcr, const char *what)
{
	if (c->have_manifest && (c->m.require_pcrs & (1U << pcr)))
		return;		/* check_required_and_golden said so */
	deny(c->v, "pcr-not-quoted", "PCR %u is not quoted: %s in the UEFI event log are unproven",
	     pcr, what);
}

/*
 * The expected db: every certificate the manifest lists must be in the
 * signature database the firmware measured into PCR 7 (PCR 7 proven and
 * its configuration checked by the caller; the db's data must hash to its
 * digest).
 */
static void check_db(struct ctx *c)
{
	uint8_t (*certs)[EWA_SHA256_LEN] = NULL;
	size_t i, j, n = 0;
	char why[256], hex[65];
	bool found = false;

	if (ewa_uefi_db_certs(&c->uefi, &found, &certs, &n, why, sizeof(why))) {
		deny(c->v, "uefi-log-invalid", "%s", why);
		return;
	}
	c->v->db_certs = found ? n : 0;
	for (i = 0; c->have_manifest && i < c->m.n_db_certs; i++) {
		for (j = 0; j < n; j++)
			if (!memcmp(certs[j], c->m.db_certs[i], EWA_SHA256_LEN))
				break;
		if (j < n)
			continue;
		if (!found)
			deny(c->v, "secure-boot-db",
			     "the UEFI event log measures no db, manifest serial %llu expects %zu certificates",
			     (unsigned long long)c->m.serial, c->m.n_db_certs);
		else
			deny(c->v, "secure-boot-db",
			     "db (%zu certificates) lacks certificate %s of manifest serial %llu",
			     n, hex32(c->m.db_certs[i], hex), (unsigned long long)c->m.serial);
		if (!found)
			break;
	}
	free(certs);
}

static void check_uefi_contents(struct ctx *c)
{
	bool need_sb = !c->have_manifest || c->m.require_secure_boot;
	bool need_db = c->have_manifest && c->m.n_db_certs;
	bool need_boot = c->have_manifest && (c->m.require_uefi_log || c->m.n_boot_digests);
	bool pcr7 = uefi_pcr_proven(c, 7);
	enum ewa_secure_boot sb = EWA_SB_UNKNOWN;
	char why[256], hex[65];
	size_t i;

	if (c->have_uefi && !pcr7 && (need_sb || need_db))
		deny_unquoted(c, 7, "Secure Boot and db");
	if (pcr7 && ewa_uefi_sb_config_check(&c->uefi, why, sizeof(why))) {
		deny(c->v, "secure-boot-config-invalid", "%s", why);
		pcr7 = false;
	}
	if (pcr7 && ewa_uefi_secure_boot(&c->uefi, &sb, why, sizeof(why))) {
		deny(c->v, "uefi-log-invalid", "%s", why);
		sb = EWA_SB_UNKNOWN;
	}
	if (c->have_uefi && c->have_manifest && !uefi_pcr_proven(c, 4)) {
		if (need_boot)
			deny_unquoted(c, 4, "the boot applications");
	} else if (c->have_uefi && c->have_manifest) {
		for (i = 0; i < c->uefi.n; i++) {
			const struct ewa_uefi_event *e = &c->uefi.v[i];

			if (e->pcr == 4 && e->type == EWA_EV_EFI_BOOT_SERVICES_APPLICATION &&
			    !ewa_manifest_boot_digest(&c->m, e->sha256))
				deny(c->v, "unknown-boot-digest",
				     "boot application %s (PCR 4, event %zu) is not in manifest serial %llu",
				     hex32(e->sha256, hex), i + 1,
				     (unsigned long long)c->m.serial);
		}
	}
	c->v->secure_boot = sb == EWA_SB_ON ? "on" : sb == EWA_SB_OFF ? "off" : "unknown";
	if (pcr7)
		check_db(c);
	if (!need_sb)
		return;
	if (sb == EWA_SB_OFF)
		deny(c->v, "secure-boot-off", "the UEFI event log measures SecureBoot = 0");
	else if (sb == EWA_SB_UNKNOWN)
		deny(c->v, "secure-boot-unproven",
		     "no verified SecureBoot measurement in PCR 7 (the node report says %s)",
		     c->report.secure_boot == 1 ? "on" :
		     c->report.secure_boot == 0 ? "off" : "nothing");
}

/* SHA256(PCR 0 || ... || PCR 9): binds the IMA log to this boot. */
static void check_boot_aggregate(struct ctx *c, const struct ewa_ima_entry *e)
{
	uint8_t agg[EWA_SHA256_LEN];
	char hex[65], hex2[65];

	if (strcmp(e->hash_algo, "sha256") || (c->quoted & 0x3ff) != 0x3ff)
		return;
	ewa_sha256(c->pcr, 10 * EWA_SHA256_LEN, agg);
	if (e->file_digest_len != EWA_SHA256_LEN || memcmp(agg, e->file_digest, EWA_SHA256_LEN))
		deny(c->v, "boot-aggregate-mismatch", "boot_aggregate is %s, PCRs 0-9 give %s",
		     e->file_digest_len == EWA_SHA256_LEN ? hex32(e->file_digest, hex) :
		     "not SHA-256", hex32(agg, hex2));
}

/*
 * Every entry but IMA's own boot_aggregate must be in the manifest, whatever
 * its path: the list does not say which hook measured a file, and under the
 * modules-only policy (imalog.h) every measured file is a module load. An
 * ima-buf entry other than init_module is no module, but that policy never
 * makes one: it too must be known, under its own reason.
 */
static void check_ima_contents(struct ctx *c)
{
	size_t i, violations = 0;
	char hex[65];

	if (!c->have_ima)
		return;
	for (i = 0; i < c->ima.n; i++) {
		const struct ewa_ima_entry *e = &c->ima.v[i];
		enum ewa_ima_kind kind = ewa_ima_kind(&c->ima, i);
		const char *check = "unknown-module", *what = "";

		if (kind == EWA_IMA_VIOLATION) {
			violations++;
			continue;
		}
		if (kind == EWA_IMA_BOOT_AGGREGATE) {
			check_boot_aggregate(c, e);
			continue;
		}
		if (!c->have_manifest)
			continue;
		c->v->modules_measured++;
		if (kind == EWA_IMA_BUFFER) {
			check = "unknown-measurement";
			what = " (an ima-buf entry the modules-only IMA policy does not make)";
		}
		if (strcmp(e->hash_algo, "sha256") || e->file_digest_len != EWA_SHA256_LEN)
			deny(c->v, check, "%s (IMA entry %zu)%s: measured with %s, the manifest "
			     "holds SHA-256", e->path, i + 1, what, e->hash_algo);
		else if (!ewa_manifest_module(&c->m, e->file_digest))
			deny(c->v, check, "%s (IMA entry %zu)%s: sha256 %s is not in manifest "
			     "serial %llu", e->path, i + 1, what, hex32(e->file_digest, hex),
			     (unsigned long long)c->m.serial);
	}
	if (violations)
		deny(c->v, "ima-violation", "%zu IMA violation entries (a file changed while "
		     "it was measured)", violations);
}

static void check_report(struct ctx *c)
{
	char why[256], hex[65];
	size_t i;

	if (ewa_report_parse(c->ev.report.data, c->ev.report.len, &c->report, why, sizeof(why))) {
		deny(c->v, "report-invalid", "%s", why);
		c->report.secure_boot = -1;
		return;
	}
	c->have_report = true;
	if (c->hostname && (!c->report.hostname || strcmp(c->hostname, c->report.hostname)))
		deny(c->v, "hostname-mismatch", "the report says host \"%s\", the AK was enrolled "
		     "by \"%s\"", c->report.hostname ? c->report.hostname : "", c->hostname);
	if (!c->have_manifest)
		return;
	if (!ewa_manifest_kernel(&c->m, c->report.kernel_release))
		deny(c->v, "unknown-kernel", "kernel %s is not in manifest serial %llu",
		     c->report.kernel_release ? c->report.kernel_release : "(none reported)",
		     (unsigned long long)c->m.serial);
	for (i = 0; i < c->report.n_modules; i++) {
		const struct ewa_report_module *rm = &c->report.modules[i];

		c->v->modules_reported++;
		if (!rm->hashed)
			deny(c->v, "unknown-module", "%s: loaded, but no file %s to hash",
			     rm->name, rm->path ? rm->path : "under /lib/modules");
		else if (!ewa_manifest_module(&c->m, rm->sha256))
			deny(c->v, "unknown-module", "%s (%s, node report): sha256 %s is not in "
			     "manifest serial %llu", rm->name, rm->path, hex32(rm->sha256, hex),
			     (unsigned long long)c->m.serial);
	}
}

/*
 * Under the state's lock: an operator's revocation of the enrolled AK holds
 * until the operator lifts it, however good the evidence; a revocation
 * that cannot be read denies as well.
 */
static void check_revoked(struct ctx *c)
{
	struct ewa_revoked_rec rv;
	int found;

	if (!c->enrolled_ak)
		return;
	found = ewa_vstate_get_revoked(c->in->state, c->enrolled_ak, &rv);
	if (found < 0)
		deny(c->v, "state-error", "cannot read whether AK %s is revoked", c->enrolled_ak);
	else if (found)
		deny(c->v, "operator-revoked", "node %s was revoked by the operator at %s (%s); "
		     "\"eastwest-verifier unrevoke\" lifts it", c->v->node, rv.at_utc, rv.reason);
}

/* The verdict, under the enrolled AK's name, for key release. */
static void record_verdict(struct ctx *c)
{
	struct ew_buf checks = { 0 };
	size_t i;

	if (!c->in->state || !c->enrolled_ak)
		return;
	for (i = 0; i < c->v->n_reasons; i++) {
		if (i)
			ew_buf_add(&checks, ",", 1);
		ew_buf_add(&checks, c->v->reasons[i].check, strlen(c->v->reasons[i].check));
	}
	ew_buf_add(&checks, "", 1);
	if (ewa_vstate_put_verdict(c->in->state, c->enrolled_ak, c->v->node, c->v->admit,
				   (const char *)checks.data) && c->v->admit) {
		deny(c->v, "state-error", "cannot record the verdict: not admitted");
		c->v->admit = false;
		/* Best effort: a stale admit must not outlive this failure. */
		ewa_vstate_put_verdict(c->in->state, c->enrolled_ak, c->v->node, false,
				       "state-error");
	}
	ew_buf_free(&checks);
}

/* An admitted quote becomes the bar for the next one; the serial only rises. */
static void remember(struct ctx *c)
{
	uint64_t last = 0;
	int found;

	if (!c->in->state || !c->v->admit)
		return;
	found = ewa_vstate_get_serial(c->in->state, &last);
	if (ewa_vstate_put_clock(c->in->state, c->v->ak_name, &c->v->clock) || found < 0 ||
	    ((!found || last < c->m.serial) && ewa_vstate_put_serial(c->in->state, c->m.serial))) {
		deny(c->v, "state-error", "cannot record this quote: not admitted");
		c->v->admit = false;
	}
}

/*
 * What depends on earlier verdicts, last and under the state's lock, held
 * for this alone: the operator's revocation is read (a revoke or unrevoke
 * lands either wholly before or wholly after), the manifest serial and the
 * AK's last quote are compared and, on an admit, replaced in one go (two
 * verifications of one AK cannot both accept a quote older than the
 * other's); then the verdict is recorded.
 * Without the lock nothing is compared: a deny, recorded all the same.
 */
static void commit(struct ctx *c)
{
	struct ewa_vstate *st = c->in->state;
	bool locked = false;

	if (st) {
		locked = !ewa_vstate_lock(st);
		if (locked) {
			check_revoked(c);
			check_serial(c);
			check_replayed(c);
		} else {
			deny(c->v, "state-error", "%s", ew_last_error());
		}
	}
	c->v->admit = c->v->n_reasons == 0;
	if (c->v->admit)
		remember(c);
	record_verdict(c);
	if (locked)
		ewa_vstate_unlock(st);
}

void ewa_verify(const struct ewa_verify_input *in, struct ewa_verdict *v)
{
	struct ctx *c = ew_calloc(1, sizeof(*c));
	struct ew_buf file = { 0 };
	char why[512];
	int err;

	memset(v, 0, sizeof(*v));
	v->secure_boot = "unknown";
	c->in = in;
	c->v = v;
	c->report.secure_boot = -1;
	check_manifest(c);
	check_enrollment(c);
	if (in->evidence_data) {
		ew_buf_add(&file, in->evidence_data, in->evidence_len);
		ew_buf_add(&file, "", 0);
		err = 0;
	} else {
		err = ewa_read_file(in->evidence, &file);
	}
	if (err) {
		deny(v, "evidence-invalid", "%s: %s", in->evidence, strerror(-err));
		goto out;
	}
	if (ewa_evidence_parse((const char *)file.data, file.len, &c->ev, why, sizeof(why))) {
		deny(v, "evidence-invalid", "%s: %s", in->evidence, why);
		goto out;
	}
	if (!c->ev.tpm) {
		deny(v, "no-tpm", "no TPM on node: %s", c->ev.no_tpm_reason);
		goto out;
	}
	v->ak_name = ewa_hex_dup(c->ev.ak_name, c->ev.ak_name_len);
	check_ak_name(c);
	check_report(c);
	if (check_quote(c))
		goto out;
	check_clock(c);
	check_pcrs(c);
	check_required_and_golden(c);
	parse_logs(c);
	if (c->pcrs_trusted)
		check_replay(c);
	else
		c->have_ima = c->have_uefi = false;
	check_uefi_contents(c);
	check_ima_contents(c);
out:
	commit(c);
	ew_buf_free(&file);
	ewa_evidence_free(&c->ev);
	if (c->have_manifest)
		ewa_manifest_free(&c->m);
	ewa_ima_free(&c->ima);
	ewa_uefi_free(&c->uefi);
	ewa_report_free(&c->report);
	free(c->hostname);
	free(c->enrolled_ak);
	free(c);
}

struct json_object *ewa_verdict_json(const struct ewa_verdict *v)
{
	struct json_object *o = json_object_new_object(), *a, *q;
	size_t i;

	json_object_object_add(o, "decision", json_object_new_string(v->admit ? "admit" : "deny"));
	/* What a re-attestation daemon passes to "eastwestctl config set admission". */
	json_object_object_add(o, "admission",
			       json_object_new_string(v->admit ? "admitted" : "revoked"));
	json_object_object_add(o, "node", v->node ? json_object_new_string(v->node) : NULL);
	json_object_object_add(o, "ak_name",
			       v->ak_name ? json_object_new_string(v->ak_name) : NULL);
	json_object_object_add(o, "manifest_serial", v->have_manifest ?
			       json_object_new_uint64(v->manifest_serial) : NULL);
	a = json_object_new_array();
	for (i = 0; i < v->n_reasons; i++) {
		struct json_object *r = json_object_new_object();

		json_object_object_add(r, "check", json_object_new_string(v->reasons[i].check));
		json_object_object_add(r, "detail", json_object_new_string(v->reasons[i].detail));
		json_object_array_add(a, r);
	}
	json_object_object_add(o, "reasons", a);
	json_object_object_add(o, "secure_boot", json_object_new_string(v->secure_boot));
	if (v->have_clock) {
		q = json_object_new_object();
		json_object_object_add(q, "clock", json_object_new_uint64(v->clock.clock));
		json_object_object_add(q, "reset_count", json_object_new_uint64(v->clock.reset_count));
		json_object_object_add(q, "restart_count",
				       json_object_new_uint64(v->clock.restart_count));
		json_object_object_add(o, "quote", q);
	}
	json_object_object_add(o, "uefi_events", json_object_new_uint64(v->uefi_events));
	json_object_object_add(o, "db_certs", json_object_new_uint64(v->db_certs));
	json_object_object_add(o, "ima_entries", json_object_new_uint64(v->ima_entries));
	json_object_object_add(o, "modules_measured", json_object_new_uint64(v->modules_measured));
	json_object_object_add(o, "modules_reported", json_object_new_uint64(v->modules_reported));
	return o;
}

void ewa_verdict_print(const struct ewa_verdict *v, FILE *f)
{
	size_t i;

	fprintf(f, "%s node %s ak %s", v->admit ? "admit" : "deny", v->node ? v->node : "-",
		v->ak_name ? v->ak_name : "-");
	if (v->have_manifest)
		fprintf(f, " manifest %llu", (unsigned long long)v->manifest_serial);
	fprintf(f, " secure-boot %s db-certs %zu ima-entries %zu modules %zu\n", v->secure_boot,
		v->db_certs, v->ima_entries, v->modules_measured + v->modules_reported);
	for (i = 0; i < v->n_reasons; i++)
		fprintf(f, "\t%s: %s\n", v->reasons[i].check, v->reasons[i].detail);
}

void ewa_verdict_free(struct ewa_verdict *v)
{
	size_t i;

	for (i = 0; i < v->n_reasons; i++) {
		free(v->reasons[i].check);
		free(v->reasons[i].detail);
	}
	free(v->reasons);
	free(v->node);
	free(v->ak_name);
	memset(v, 0, sizeof(*v));
}
