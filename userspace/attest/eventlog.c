// SPDX-License-Identifier: GPL-2.0
/*
 * UEFI TCG2 event log parser. Untrusted input until the replay matches
 * the quoted PCRs: every length is checked against what is left.
 */
#include <stdlib.h>
#include <string.h>

#include "eventlog.h"
#include "logread.h"

#define TPM2_ALG_SHA256	0x000b
#define SPEC_ID_SIG	"Spec ID Event03"
#define MAX_ALGS	8

struct alg_size {
	uint16_t alg;
	uint16_t size;
};

/* The first event: SHA-1 layout, EV_NO_ACTION, TCG_EfiSpecIDEvent. */
static int parse_spec_id(struct ewa_cursor *c, struct alg_size *algs, uint32_t *nalg,
			 const char **why)
{
	const uint8_t *hdr, *ev, *a;
	struct ewa_cursor e;
	uint32_t size, i;

	if (ewa_take(c, 4 + 4 + 20, &hdr) || ewa_take_u32(c, &size) || ewa_take(c, size, &ev)) {
		*why = "truncated Spec ID event";
		return -1;
	}
	if (ewa_le32(hdr + 4) != EWA_EV_NO_ACTION || size < 16 + 4 + 4 + 4 ||
	    memcmp(ev, SPEC_ID_SIG, sizeof(SPEC_ID_SIG))) {
		*why = "not a crypto-agile log (no \"Spec ID Event03\" header)";
		return -1;
	}
	e.p = ev + 16 + 4 + 4;	/* signature, platform class, versions, uintn size */
	e.left = size - 24;
	if (ewa_take_u32(&e, nalg) || *nalg == 0 || *nalg > MAX_ALGS) {
		*why = "bad algorithm count in the Spec ID event";
		return -1;
	}
	for (i = 0; i < *nalg; i++) {
		if (ewa_take(&e, 4, &a)) {
			*why = "truncated algorithm list";
			return -1;
		}
		algs[i].alg = ewa_le16(a);
		algs[i].size = ewa_le16(a + 2);
		if (algs[i].size == 0 || algs[i].size > 64) {
			*why = "bad digest size in the Spec ID event";
			return -1;
		}
	}
	return 0;
}

static int parse_event(struct ewa_cursor *c, const struct alg_size *algs, uint32_t nalg,
		       struct ewa_uefi_event *ev, const char **why)
{
	uint32_t count, size, i, j;
	bool have_sha256 = false;
	const uint8_t *p;

	if (ewa_take_u32(c, &ev->pcr) || ewa_take_u32(c, &ev->type) || ewa_take_u32(c, &count)) {
		*why = "truncated header";
		return -1;
	}
	if (ev->pcr >= EWA_PCR_COUNT) {
		*why = "PCR index out of range";
		return -1;
	}
	if (count > nalg) {
		*why = "more digests than the header declares";
		return -1;
	}
	for (i = 0; i < count; i++) {
		uint16_t alg;

		if (ewa_take(c, 2, &p)) {
			*why = "truncated digest list";
			return -1;
		}
		alg = ewa_le16(p);
		for (j = 0; j < nalg && algs[j].alg != alg; j++)
			;
		if (j == nalg) {
			*why = "digest of an algorithm the header does not declare";
			return -1;
		}
		if (ewa_take(c, algs[j].size, &p)) {
			*why = "truncated digest";
			return -1;
		}
		if (alg == TPM2_ALG_SHA256) {
			if (algs[j].size != EWA_SHA256_LEN) {
				*why = "SHA-256 digest size is not 32";
				return -1;
			}
			memcpy(ev->sha256, p, EWA_SHA256_LEN);
			have_sha256 = true;
		}
	}
	if (ewa_take_u32(c, &size) || size > EWA_UEFI_MAX_EVENT_DATA || ewa_take(c, size, &p)) {
		*why = "bad event size";
		return -1;
	}
	ev->data = p;
	ev->data_len = size;
	if (!have_sha256 && ev->type != EWA_EV_NO_ACTION) {
		*why = "no SHA-256 digest";
		return -1;
	}
	return 0;
}

int ewa_uefi_parse(const uint8_t *p, size_t len, struct ewa_uefi_log *log,
		   char *why, size_t whylen)
{
	static const char locality_sig[] = "StartupLocality";
	struct alg_size algs[MAX_ALGS];
	struct ewa_cursor c = { p, len };
	const char *reason;
	uint32_t nalg;
	size_t cap = 0;

	memset(log, 0, sizeof(*log));
	if (parse_spec_id(&c, algs, &nalg, &reason)) {
		snprintf(why, whylen, "header: %s", reason);
		return -1;
	}
	while (c.left > 0) {
		struct ewa_uefi_event *ev, *v;

		v = ewa_log_add(log->v, log->n, &cap, sizeof(*log->v), EWA_UEFI_MAX_EVENTS,
				"events", why, whylen);
		if (!v)
			goto fail;
		log->v = v;
		ev = &log->v[log->n];
		if (parse_event(&c, algs, nalg, ev, &reason)) {
			snprintf(why, whylen, "event %zu (offset %zu): %s", log->n + 1,
				 len - c.left, reason);
			goto fail;
		}
		/* H-CRTM-less platforms start PCR 0 at their locality (3 or 0). */
		if (ev->type == EWA_EV_NO_ACTION && ev->pcr == 0 &&
		    ev->data_len == sizeof(locality_sig) + 1 &&
		    !memcmp(ev->data, locality_sig, sizeof(locality_sig)))
			log->startup_locality = ev->data[sizeof(locality_sig)];
		log->n++;
	}
	return 0;
fail:
	ewa_uefi_free(log);
	return -1;
}

void ewa_uefi_replay(const struct ewa_uefi_log *log, struct ewa_pcrbank *bank)
{
	size_t i;

	bank->v[0][EWA_SHA256_LEN - 1] = log->startup_locality;
	for (i = 0; i < log->n; i++)
		if (log->v[i].type != EWA_EV_NO_ACTION)
			ewa_pcr_extend(bank, log->v[i].pcr, log->v[i].sha256);
}

/* EFI_GLOBAL_VARIABLE 8be4df61-93ca-11d2-aa0d-00e098032b8c, as stored. */
static const uint8_t efi_global_guid[16] = {
	0x61, 0xdf, 0xe4, 0x8b, 0xca, 0x93, 0xd2, 0x11,
	0xaa, 0x0d, 0x00, 0xe0, 0x98, 0x03, 0x2b, 0x8c,
};

/* EFI_IMAGE_SECURITY_DATABASE_GUID d719b2cb-3d3a-4596-a3bc-dad00e67656f: db, dbx. */
static const uint8_t efi_image_security_guid[16] = {
	0xcb, 0xb2, 0x19, 0xd7, 0x3a, 0x3d, 0x96, 0x45,
	0xa3, 0xbc, 0xda, 0xd0, 0x0e, 0x67, 0x65, 0x6f,
};

/* EFI_CERT_X509_GUID a5c059a1-94e4-4aa7-87b5-ab155c2bf072. */
static const uint8_t efi_cert_x509_guid[16] = {
	0xa1, 0x59, 0xc0, 0xa5, 0xe4, 0x94, 0xa7, 0x4a,
	0x87, 0xb5, 0xab, 0x15, 0x5c, 0x2b, 0xf0, 0x72,
};

/*
 * UEFI_VARIABLE_DATA: GUID, u64 name length (in CHAR16), u64 data length,
 * CHAR16 name[], data[]. True if @ev measures the variable @name of @guid.
 */
static bool is_var(const struct ewa_uefi_event *ev, const uint8_t guid[16], const char *name,
		   const uint8_t **val, uint64_t *val_len)
{
	uint64_t nlen, dlen;
	size_t i;

	if (ev->pcr != 7 || ev->type != EWA_EV_EFI_VARIABLE_DRIVER_CONFIG ||
	    ev->data_len < 32 || memcmp(ev->data, guid, 16))
		return false;
	nlen = ewa_le64(ev->data + 16);
	dlen = ewa_le64(ev->data + 24);
	if (nlen != strlen(name) || nlen > ev->data_len || dlen > ev->data_len ||
	    32 + 2 * nlen + dlen != ev->data_len)
		return false;
	for (i = 0; i < nlen; i++)
		if (ewa_le16(ev->data + 32 + 2 * i) != (uint8_t)name[i])
			return false;
	*val = ev->data + 32 + 2 * nlen;
	*val_len = dlen;
	return true;
}

/*
 * The Secure Boot configuration the firmware measures into PCR 7 (TCG PC
 * Client PFP): each of these once, as EV_EFI_VARIABLE_DRIVER_CONFIG,
 * before PCR 7's EV_SEPARATOR. After the separator the firmware and shim
 * measure only image verification (EV_EFI_VARIABLE_AUTHORITY: the db
 * entry that verified an image, shim's SbatLevel and certificates), which
 * no fact is read from.
 */
static const struct {
	const uint8_t *guid;
	const char *name;
} sb_vars[] = {
	{ efi_global_guid, "SecureBoot" },
	{ efi_global_guid, "PK" },
	{ efi_global_guid, "KEK" },
	{ efi_image_security_guid, "db" },
	{ efi_image_security_guid, "dbx" },
};

#define N_SB_VARS	(sizeof(sb_vars) / sizeof(sb_vars[0]))

int ewa_uefi_sb_config_check(const struct ewa_uefi_log *log, char *why, size_t whylen)
{
	bool seen[N_SB_VARS] = { false }, separated = false, any = false;
	const uint8_t *v;
	uint64_t vlen;
	size_t i, j;

	for (i = 0; i < log->n; i++) {
		const struct ewa_uefi_event *ev = &log->v[i];

		if (ev->pcr != 7 || ev->type == EWA_EV_NO_ACTION)
			continue;
		any = true;
		if (ev->type == EWA_EV_SEPARATOR) {
			separated = true;
			continue;
		}
		if (ev->type != EWA_EV_EFI_VARIABLE_DRIVER_CONFIG)
			continue;
		/*
		 * The boot's policy is fixed at the separator: a variable
		 * event after it was extended later, by anyone with the TPM
		 * (locality 0 may extend PCR 7), whatever its name.
		 */
		if (separated) {
			snprintf(why, whylen,
				 "event %zu: a Secure Boot variable event in PCR 7 after its "
				 "separator (extended after the firmware's measurement)", i + 1);
			return -1;
		}
		for (j = 0; j < N_SB_VARS; j++) {
			if (!is_var(ev, sb_vars[j].guid, sb_vars[j].name, &v, &vlen))
				continue;
			if (seen[j]) {
				snprintf(why, whylen,
					 "event %zu: %s measured twice before PCR 7's separator",
					 i + 1, sb_vars[j].name);
				return -1;
			}
			seen[j] = true;
		}
	}
	if (any && !separated) {
		snprintf(why, whylen, "PCR 7 has no separator: its Secure Boot configuration "
			 "cannot be told from later extends");
		return -1;
	}
	return 0;
}

/*
 * The measurement of a PCR 7 variable before PCR 7's separator (the only
 * one: ewa_uefi_sb_config_check), its data checked against its digest:
 * 1 found, 0 not measured, -1 (and @why) the log's PCR 7 is not as the
 * firmware measures it, or the data is not what was extended.
 */
static int config_var(const struct ewa_uefi_log *log, const uint8_t guid[16], const char *name,
		      const uint8_t **val, uint64_t *val_len, char *why, size_t whylen)
{
	uint8_t digest[EWA_SHA256_LEN];
	size_t i;

	if (ewa_uefi_sb_config_check(log, why, whylen))
		return -1;
	for (i = 0; i < log->n; i++) {
		const struct ewa_uefi_event *ev = &log->v[i];

		if (ev->pcr == 7 && ev->type == EWA_EV_SEPARATOR)
			break;
		if (!is_var(ev, guid, name, val, val_len))
			continue;
		ewa_sha256(ev->data, ev->data_len, digest);
		if (memcmp(digest, ev->sha256, EWA_SHA256_LEN)) {
			snprintf(why, whylen,
				 "event %zu: %s variable data does not hash to its digest",
				 i + 1, name);
			return -1;
		}
		return 1;
	}
	return 0;
}

int ewa_uefi_secure_boot(const struct ewa_uefi_log *log, enum ewa_secure_boot *sb,
			 char *why, size_t whylen)
{
	const uint8_t *val = NULL;
	uint64_t val_len = 0;
	int found;

	*sb = EWA_SB_UNKNOWN;
	found = config_var(log, efi_global_guid, "SecureBoot", &val, &val_len, why, whylen);
	if (found < 0)
		return -1;
	if (found)
		*sb = val_len >= 1 && val[0] == 1 ? EWA_SB_ON : EWA_SB_OFF;
	return 0;
}

int ewa_uefi_db_certs(const struct ewa_uefi_log *log, bool *found,
		      uint8_t (**certs)[EWA_SHA256_LEN], size_t *n, char *why, size_t whylen)
{
	const uint8_t *p = NULL;
	uint64_t left = 0;
	size_t cap = 0;
	int got;

	*found = false;
	*certs = NULL;
	*n = 0;
	got = config_var(log, efi_image_security_guid, "db", &p, &left, why, whylen);
	if (got <= 0)
		return got;
	*found = true;
	/*
	 * EFI_SIGNATURE_LIST: GUID type, u32 list size, u32 header size, u32
	 * signature size, header, then EFI_SIGNATURE_DATA (owner GUID, data).
	 */
	while (left) {
		uint32_t lsize, hsize, ssize, off;

		if (left < 28) {
			snprintf(why, whylen, "db: %llu trailing bytes, not a signature list",
				 (unsigned long long)left);
			goto fail;
		}
		lsize = ewa_le32(p + 16);
		hsize = ewa_le32(p + 20);
		ssize = ewa_le32(p + 24);
		if (lsize > left || lsize < 28 || hsize > lsize - 28 || ssize <= 16 ||
		    (lsize - 28 - hsize) % ssize) {
			snprintf(why, whylen,
				 "db: malformed signature list (size %u, header %u, entry %u)",
				 lsize, hsize, ssize);
			goto fail;
		}
		for (off = 28 + hsize; off < lsize && !memcmp(p, efi_cert_x509_guid, 16);
		     off += ssize) {
			if (*n == cap) {
				cap = cap ? 2 * cap : 4;
				*certs = ew_reallocarray(*certs, cap, sizeof(**certs));
			}
			ewa_sha256(p + off + 16, ssize - 16, (*certs)[(*n)++]);
		}
		p += lsize;
		left -= lsize;
	}
	return 0;
fail:
	free(*certs);
	*certs = NULL;
	*n = 0;
	return -1;
}

void ewa_uefi_free(struct ewa_uefi_log *log)
{
	free(log->v);
	memset(log, 0, sizeof(*log));
}
