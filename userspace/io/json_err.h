/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a JSON document and checking it (policy_file.c, mgmt.c): the first
 * error goes into the caller's buffer, with the file and the line and
 * column of a syntax error ("policy.json:3:12: unexpected character") or
 * the JSON path of a bad value ("policy.json: jobs[2].peers[5]: bad
 * address \"10.0.0.300\"").
 */
#ifndef EW_JSON_ERR_H
#define EW_JSON_ERR_H

#include <json-c/json.h>
#include <stddef.h>

struct ew_json_err {
	const char *fname;	/* the file, for the message; NULL: none */
	char *err;		/* the caller's message buffer */
	size_t errlen;
};

/* Writes "FNAME: PATH: MSG" ("FNAME: MSG" for the empty path, "PATH: MSG"
 * without a file name); -EINVAL. */
int ew_json_fail(struct ew_json_err *c, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The type of v in words, for "expected ..., got a string". */
const char *ew_json_type_name(struct json_object *v);

/*
 * Parses @text (@len bytes, need not be NUL-terminated) as one strict JSON
 * document: 0 and *@root (json_object_put() it), or -EINVAL with
 * "FNAME:LINE:COL: what is wrong" and *@root NULL.
 */
int ew_json_parse_text(struct ew_json_err *c, const char *text, size_t len,
		       struct json_object **root);

/* 0 if v is of that type, else fails with "expected WHAT, got ...". */
int ew_json_want(struct ew_json_err *c, const char *path, struct json_object *v,
		 enum json_type type, const char *what);

/*
 * The string @v in *@out, else fails with "expected WHAT, got ...". C reads
 * a string up to its first NUL: one that holds a "\u0000" is refused, not
 * cut there ("lo\u0000xx" would name the interface lo).
 */
int ew_json_string(struct ew_json_err *c, const char *path, struct json_object *v,
		   const char *what, const char **out);

#endif
