/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading and writing the JSON files of attestation (evidence,
 * enrollment, challenge, manifest, verifier state): typed member access
 * that says which member was missing or malformed.
 */
#ifndef EWA_JSONFILE_H
#define EWA_JSONFILE_H

#include <json-c/json.h>

#include "ewa.h"

/* Parses a whole file; NULL with ew_err() naming the file on failure. */
struct json_object *ewa_json_load(const char *path);
struct json_object *ewa_json_parse(const char *text, size_t len, char *why, size_t whylen);
/* Checks "format" and "version"; -1 with @why set otherwise. */
int ewa_json_check_format(struct json_object *o, const char *format, int version,
			  char *why, size_t whylen);
/* Pretty JSON plus a newline, written atomically; ew_err() on failure. */
int ewa_json_save(struct json_object *o, const char *path, unsigned int mode);

/* NULL when absent or not a string. */
const char *ewa_json_str(struct json_object *o, const char *key);
/* -1 when absent or not base64 (@why names @key). */
int ewa_json_b64(struct json_object *o, const char *key, struct ew_buf *out,
		 char *why, size_t whylen);
int ewa_json_hex(struct json_object *o, const char *key, uint8_t *out, size_t max,
		 size_t *len, char *why, size_t whylen);
int ewa_json_u64(struct json_object *o, const char *key, uint64_t *out,
		 char *why, size_t whylen);
void ewa_json_add_b64(struct json_object *o, const char *key, const void *p, size_t n);
void ewa_json_add_hex(struct json_object *o, const char *key, const void *p, size_t n);
void ewa_json_add_str(struct json_object *o, const char *key, const char *s);

#endif /* EWA_JSONFILE_H */
