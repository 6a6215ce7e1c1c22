// SPDX-License-Identifier: GPL-2.0
/*
 * The evidence container: written by "eastwestctl attest quote", read by
 * the verifier. The TPM structures stay in their marshalled form so the
 * verifier checks the very bytes the TPM signed.
 */
#include <string.h>

#include "evidence.h"
#include "jsonfile.h"

void ewa_qualifying_data(const uint8_t *nonce, size_t nonce_len, const uint8_t *report,
			 size_t report_len, uint8_t out[EWA_SHA256_LEN])
{
	uint8_t buf[EWA_NONCE_MAX + EWA_SHA256_LEN];

	memcpy(buf, nonce, nonce_len);
	ewa_sha256(report, report_len, buf + nonce_len);
	ewa_sha256(buf, nonce_len + EWA_SHA256_LEN, out);
}

int ewa_parse_nonce(const char *hex, uint8_t *out, size_t *len)
{
	if (ew_unhex(hex, out, EWA_NONCE_MAX, len) || *len < EWA_NONCE_MIN)
		return -1;
	return 0;
}

static struct json_object *evidence_json(const struct ewa_evidence *ev)
{
	struct json_object *o = json_object_new_object(), *q, *a;
	size_t i;

	ewa_json_add_str(o, "format", EWA_EVIDENCE_FORMAT);
	json_object_object_add(o, "version", json_object_new_int(EWA_EVIDENCE_VERSION));
	json_object_object_add(o, "tpm", json_object_new_boolean(ev->tpm));
	if (!ev->tpm)
		ewa_json_add_str(o, "no_tpm_reason", ev->no_tpm_reason);
	ewa_json_add_hex(o, "nonce", ev->nonce, ev->nonce_len);
	ewa_json_add_b64(o, "report", ev->report.data, ev->report.len);
	if (ev->tpm) {
		ewa_json_add_hex(o, "ak_name", ev->ak_name, ev->ak_name_len);
		q = json_object_new_object();
		ewa_json_add_b64(q, "attest", ev->attest.data, ev->attest.len);
		ewa_json_add_b64(q, "signature", ev->signature.data, ev->signature.len);
		ewa_json_add_b64(q, "pcr_selection", ev->pcr_selection.data,
				 ev->pcr_selection.len);
		a = json_object_new_array();
		for (i = 0; i < ev->n_pcr_values; i++) {
			char *s = ewa_base64(ev->pcr_values[i].data, ev->pcr_values[i].len);

			json_object_array_add(a, json_object_new_string(s));
			free(s);
		}
		json_object_object_add(q, "pcr_values", a);
		json_object_object_add(o, "quote", q);
	}
	if (ev->has_uefi_log)
		ewa_json_add_b64(o, "uefi_event_log", ev->uefi_log.data, ev->uefi_log.len);
	if (ev->has_ima_log)
		ewa_json_add_b64(o, "ima_log", ev->ima_log.data, ev->ima_log.len);
	return o;
}

int ewa_evidence_save(const struct ewa_evidence *ev, const char *path)
{
	struct json_object *o = evidence_json(ev);
	int ret;

	ret = ewa_json_save(o, path, 0644);
	json_object_put(o);
	return ret;
}

char *ewa_evidence_text(const struct ewa_evidence *ev)
{
	struct json_object *o = evidence_json(ev);
	char *s;

	s = ew_strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

static int parse_quote(struct json_object *q, struct ewa_evidence *ev, char *why,
		       size_t whylen)
{
	struct json_object *a;
	size_t i;

	if (ewa_json_b64(q, "attest", &ev->attest, why, whylen) ||
	    ewa_json_b64(q, "signature", &ev->signature, why, whylen) ||
	    ewa_json_b64(q, "pcr_selection", &ev->pcr_selection, why, whylen))
		return -1;
	if (!json_object_object_get_ex(q, "pcr_values", &a) ||
	    !json_object_is_type(a, json_type_array) ||
	    json_object_array_length(a) > EWA_MAX_PCR_CHUNKS) {
		snprintf(why, whylen, "\"pcr_values\" is not an array of at most %d",
			 EWA_MAX_PCR_CHUNKS);
		return -1;
	}
	ev->n_pcr_values = json_object_array_length(a);
	for (i = 0; i < ev->n_pcr_values; i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(a, i));
		uint8_t *p;
		size_t n;

		if (!json_object_is_type(json_object_array_get_idx(a, i), json_type_string) ||
		    ewa_unbase64(s, &p, &n)) {
			snprintf(why, whylen, "\"pcr_values\"[%zu] is not base64", i);
			return -1;
		}
		ev->pcr_values[i].data = p;
		ev->pcr_values[i].len = n;
	}
	return 0;
}

int ewa_evidence_parse(const char *text, size_t len, struct ewa_evidence *ev,
		       char *why, size_t whylen)
{
	struct json_object *o, *v, *q;
	const char *s;
	int ret = -1;

	memset(ev, 0, sizeof(*ev));
	o = ewa_json_parse(text, len, why, whylen);
	if (!o)
		return -1;
	if (ewa_json_check_format(o, EWA_EVIDENCE_FORMAT, EWA_EVIDENCE_VERSION, why, whylen))
		goto out;
	if (!json_object_object_get_ex(o, "tpm", &v) || !json_object_is_type(v, json_type_boolean)) {
		snprintf(why, whylen, "\"tpm\" is missing or not a boolean");
		goto out;
	}
	ev->tpm = json_object_get_boolean(v);
	if (ewa_json_hex(o, "nonce", ev->nonce, sizeof(ev->nonce), &ev->nonce_len, why, whylen) ||
	    ewa_json_b64(o, "report", &ev->report, why, whylen))
		goto out;
	if (!ev->tpm) {
		s = ewa_json_str(o, "no_tpm_reason");
		ev->no_tpm_reason = ew_strdup(s ? s : "no reason given");
		ret = 0;
		goto out;
	}
	if (ewa_json_hex(o, "ak_name", ev->ak_name, sizeof(ev->ak_name), &ev->ak_name_len,
			 why, whylen))
		goto out;
	if (!json_object_object_get_ex(o, "quote", &q) || !json_object_is_type(q, json_type_object)) {
		snprintf(why, whylen, "\"quote\" is missing");
		goto out;
	}
	if (parse_quote(q, ev, why, whylen))
		goto out;
	if (json_object_object_get_ex(o, "uefi_event_log", &v)) {
		if (ewa_json_b64(o, "uefi_event_log", &ev->uefi_log, why, whylen))
			goto out;
		ev->has_uefi_log = true;
	}
	if (json_object_object_get_ex(o, "ima_log", &v)) {
		if (ewa_json_b64(o, "ima_log", &ev->ima_log, why, whylen))
			goto out;
		ev->has_ima_log = true;
	}
	ret = 0;
out:
	json_object_put(o);
	if (ret)
		ewa_evidence_free(ev);	/* a half-read file keeps nothing */
	return ret;
}

void ewa_evidence_free(struct ewa_evidence *ev)
{
	size_t i;

	free(ev->no_tpm_reason);
	ew_buf_free(&ev->report);
	ew_buf_free(&ev->attest);
	ew_buf_free(&ev->signature);
	ew_buf_free(&ev->pcr_selection);
	for (i = 0; i < EWA_MAX_PCR_CHUNKS; i++)
		ew_buf_free(&ev->pcr_values[i]);
	ew_buf_free(&ev->uefi_log);
	ew_buf_free(&ev->ima_log);
	memset(ev, 0, sizeof(*ev));
}
