// SPDX-License-Identifier: GPL-2.0
/*
 * JSON file helpers shared by the node side and the verifier.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsonfile.h"

struct json_object *ewa_json_parse(const char *text, size_t len, char *why, size_t whylen)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *o;
	char keywhy[256];
	size_t end;

	if (!tok) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if (len > (size_t)INT32_MAX) {
		json_tokener_free(tok);
		snprintf(why, whylen, "too large");
		return NULL;
	}
	o = json_tokener_parse_ex(tok, text, (int)len);
	end = json_tokener_get_parse_end(tok);
	while (o && end < len && strchr(" \t\r\n", text[end]) && text[end])
		end++;
	if (!o || end != len) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		snprintf(why, whylen, "not JSON: %s at offset %zu",
			 o ? "trailing data" : json_tokener_error_desc(e), end);
		json_object_put(o);
		o = NULL;
	} else if (ew_json_key_check(text, len, &end, keywhy, sizeof(keywhy))) {
		snprintf(why, whylen, "not JSON: %s at offset %zu", keywhy, end);
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

struct json_object *ewa_json_load(const char *path)
{
	struct ew_buf b = { 0 };
	struct json_object *o;
	char why[256];
	int ret;

	ret = ewa_read_file(path, &b);
	if (ret) {
		ew_err("%s: %s", path, strerror(-ret));
		ew_buf_free(&b);
		return NULL;
	}
	o = ewa_json_parse((const char *)b.data, b.len, why, sizeof(why));
	if (!o)
		ew_err("%s: %s", path, why);
	ew_buf_free(&b);
	return o;
}

int ewa_json_check_format(struct json_object *o, const char *format, int version,
			  char *why, size_t whylen)
{
	const char *f = ewa_json_str(o, "format");
	struct json_object *v;

	if (!f || strcmp(f, format)) {
		snprintf(why, whylen, "not an %s file (format \"%s\")", format, f ? f : "");
		return -1;
	}
	if (!json_object_object_get_ex(o, "version", &v) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int(v) != version) {
		snprintf(why, whylen, "%s version %s is not supported (this build reads %d)",
			 format, v ? json_object_to_json_string(v) : "missing", version);
		return -1;
	}
	return 0;
}

int ewa_json_save(struct json_object *o, const char *path, unsigned int mode)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_SPACED |
						       JSON_C_TO_STRING_NOSLASHESCAPE);
	char *text = ew_asprintf("%s\n", s);
	int ret = ew_write_file(path, text, strlen(text), mode);

	free(text);
	if (ret)
		ew_err("%s: %s", path, strerror(-ret));
	return ret ? -1 : 0;
}

const char *ewa_json_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

int ewa_json_b64(struct json_object *o, const char *key, struct ew_buf *out,
		 char *why, size_t whylen)
{
	const char *s = ewa_json_str(o, key);
	uint8_t *p;
	size_t n;

	if (!s) {
		snprintf(why, whylen, "\"%s\" is missing or not a string", key);
		return -1;
	}
	if (ewa_unbase64(s, &p, &n)) {
		snprintf(why, whylen, "\"%s\" is not base64", key);
		return -1;
	}
	ew_buf_free(out);
	out->data = p;
	out->len = n;
	out->cap = n + 1;
	return 0;
}

int ewa_json_hex(struct json_object *o, const char *key, uint8_t *out, size_t max,
		 size_t *len, char *why, size_t whylen)
{
	const char *s = ewa_json_str(o, key);

	if (!s) {
		snprintf(why, whylen, "\"%s\" is missing or not a string", key);
		return -1;
	}
	if (ew_unhex(s, out, max, len)) {
		snprintf(why, whylen, "\"%s\" is not hex of at most %zu bytes", key, max);
		return -1;
	}
	return 0;
}

int ewa_json_u64(struct json_object *o, const char *key, uint64_t *out,
		 char *why, size_t whylen)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int)) {
		snprintf(why, whylen, "\"%s\" is missing or not an integer", key);
		return -1;
	}
	errno = 0;
	*out = json_object_get_uint64(v);
	if (errno || (json_object_get_int64(v) < 0 && *out == 0)) {
		snprintf(why, whylen, "\"%s\" is out of range", key);
		return -1;
	}
	return 0;
}

void ewa_json_add_b64(struct json_object *o, const char *key, const void *p, size_t n)
{
	char *s = ewa_base64(p, n);

	json_object_object_add(o, key, json_object_new_string(s));
	free(s);
}

void ewa_json_add_hex(struct json_object *o, const char *key, const void *p, size_t n)
{
	char *s = ewa_hex_dup(p, n);

	json_object_object_add(o, key, json_object_new_string(s));
	free(s);
}

void ewa_json_add_str(struct json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, json_object_new_string(s));
}
