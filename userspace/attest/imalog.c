// SPDX-License-Identifier: GPL-2.0
/*
 * IMA binary measurement list parser. Every length is checked against
 * what is left before it is used: the list comes from the node and is
 * untrusted until its replay matches the quoted PCR 10.
 */
#include <stdlib.h>
#include <string.h>

#include "imalog.h"
#include "logread.h"

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

bool ewa_is_module_path(const char *path)
{
	static const char *const suffixes[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };
	size_t n = strlen(path), i;

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t s = strlen(suffixes[i]);

		if (n > s && !strcmp(path + n - s, suffixes[i]))
			return true;
	}
	return false;
}

enum ewa_ima_kind ewa_ima_kind(const struct ewa_ima_log *log, size_t i)
{
	const struct ewa_ima_entry *e = &log->v[i];
	bool buf = !strcmp(e->template_name, "ima-buf");

	if (e->violation)
		return EWA_IMA_VIOLATION;
	if (i == 0 && !buf && !strcmp(e->path, "boot_aggregate"))
		return EWA_IMA_BOOT_AGGREGATE;
	if (!buf)
		return EWA_IMA_FILE;
	return !strcmp(e->path, "init_module") ? EWA_IMA_MODULE_BUFFER : EWA_IMA_BUFFER;
}

/* d-ng: "ALGO:\0" followed by the digest. */
static int parse_dng(const uint8_t *p, size_t n, struct ewa_ima_entry *e)
{
	const uint8_t *colon = memchr(p, ':', n < sizeof(e->hash_algo) ? n : sizeof(e->hash_algo));
	size_t alen;

	if (!colon)
		return -1;
	alen = (size_t)(colon - p);
	if (alen == 0 || (size_t)(colon - p) + 2 > n || colon[1] != '\0')
		return -1;
	memcpy(e->hash_algo, p, alen);
	e->hash_algo[alen] = '\0';
	n -= alen + 2;
	if (n > EWA_IMA_MAX_DIGEST)
		return -1;
	memcpy(e->file_digest, colon + 2, n);
	e->file_digest_len = n;
	return 0;
}

static int parse_entry(struct ewa_cursor *c, struct ewa_ima_entry *e, const char **why)
{
	const uint8_t *sha1, *name, *data, *f;
	uint32_t name_len, data_len, flen;
	struct ewa_cursor fields;
	int nfield = 0;

	if (ewa_take_u32(c, &e->pcr) || ewa_take(c, 20, &sha1) || ewa_take_u32(c, &name_len)) {
		*why = "truncated header";
		return -1;
	}
	if (e->pcr >= EWA_PCR_COUNT) {
		*why = "PCR index out of range";
		return -1;
	}
	if (name_len == 0 || name_len >= sizeof(e->template_name) || ewa_take(c, name_len, &name)) {
		*why = "bad template name length";
		return -1;
	}
	memcpy(e->template_name, name, name_len);
	e->template_name[name_len] = '\0';
	if (strlen(e->template_name) != name_len) {
		*why = "NUL in template name";
		return -1;
	}
	if (ewa_take_u32(c, &data_len) || data_len > EWA_IMA_MAX_DATA ||
	    ewa_take(c, data_len, &data)) {
		*why = "bad template data length";
		return -1;
	}
	if (strcmp(e->template_name, "ima-ng") && strcmp(e->template_name, "ima-sig") &&
	    strcmp(e->template_name, "ima-buf") && strcmp(e->template_name, "ima-modsig")) {
		*why = "unsupported template (ima-ng, ima-sig, ima-buf, ima-modsig are)";
		return -1;
	}
	/* Walk every field so that the data is exactly a list of fields. */
	fields.p = data;
	fields.left = data_len;
	while (fields.left > 0) {
		if (ewa_take_u32(&fields, &flen) || ewa_take(&fields, flen, &f)) {
			*why = "template field overruns the record";
			return -1;
		}
		if (nfield == 0 && parse_dng(f, flen, e)) {
			*why = "bad d-ng field";
			return -1;
		}
		if (nfield == 1) {
			if (flen == 0 || f[flen - 1] != '\0' || memchr(f, '\0', flen) != f + flen - 1) {
				*why = "bad n-ng field";
				return -1;
			}
			e->path = malloc(flen);
			if (!e->path) {
				*why = "out of memory";
				return -1;
			}
			memcpy(e->path, f, flen);
		}
		nfield++;
	}
	if (nfield < 2) {
		*why = "fewer than two template fields";
		return -1;
	}
	e->violation = all_zero(sha1, 20);
	if (e->violation)
		memset(e->template_sha256, 0xff, EWA_SHA256_LEN);
	else
		ewa_sha256(data, data_len, e->template_sha256);
	return 0;
}

int ewa_ima_parse(const uint8_t *p, size_t len, struct ewa_ima_log *log,
		  char *why, size_t whylen)
{
	struct ewa_cursor c = { p, len };
	size_t cap = 0;

	memset(log, 0, sizeof(*log));
	while (c.left > 0) {
		struct ewa_ima_entry *v;
		const char *reason;

		v = ewa_log_add(log->v, log->n, &cap, sizeof(*log->v), EWA_IMA_MAX_ENTRIES,
				"entries", why, whylen);
		if (!v)
			goto fail;
		log->v = v;
		if (parse_entry(&c, &log->v[log->n], &reason)) {
			snprintf(why, whylen, "entry %zu (offset %zu): %s", log->n,
				 len - c.left, reason);
			free(log->v[log->n].path);
			goto fail;
		}
		log->n++;
	}
	return 0;
fail:
	ewa_ima_free(log);
	return -1;
}

void ewa_ima_replay(const struct ewa_ima_log *log, struct ewa_pcrbank *bank)
{
	size_t i;

	for (i = 0; i < log->n; i++)
		ewa_pcr_extend(bank, log->v[i].pcr, log->v[i].template_sha256);
}

void ewa_ima_free(struct ewa_ima_log *log)
{
	size_t i;

	for (i = 0; i < log->n; i++)
		free(log->v[i].path);
	free(log->v);
	memset(log, 0, sizeof(*log));
}
