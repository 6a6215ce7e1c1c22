// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a JSON document and checking it: one message naming the file and
 * where in it the first error is (json_err.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/ewlib.h"
#include "io/json_err.h"

int ew_json_fail(struct ew_json_err *c, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!c->fname)
		snprintf(c->err, c->errlen, "%s%s%s", path, *path ? ": " : "", msg);
	else if (*path)
		snprintf(c->err, c->errlen, "%s: %s: %s", c->fname, path, msg);
	else
		snprintf(c->err, c->errlen, "%s: %s", c->fname, msg);
	return -EINVAL;
}

const char *ew_json_type_name(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_double:
		return "a number with a fraction";
	case json_type_int:
		return "an integer";
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		return "a string";
	}
	return "something else";
}

int ew_json_want(struct ew_json_err *c, const char *path, struct json_object *v,
		 enum json_type type, const char *what)
{
	if (json_object_is_type(v, type))
		return 0;
	return ew_json_fail(c, path, "expected %s, got %s", what,
			    ew_json_type_name(v));
}

int ew_json_string(struct ew_json_err *c, const char *path, struct json_object *v,
		   const char *what, const char **out)
{
	const char *s;

	if (ew_json_want(c, path, v, json_type_string, what))
		return -EINVAL;
	s = json_object_get_string(v);
	if (strlen(s) != (size_t)json_object_get_string_len(v))
		return ew_json_fail(c, path, "the string holds a NUL character (\\u0000)");
	*out = s;
	return 0;
}

/* Line and column (from 1) of byte @off, for messages. */
static void line_col(const char *text, size_t off, unsigned int *line,
		     unsigned int *col)
{
	size_t i, start = 0;

	*line = 1;
	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			start = i + 1;
		}
	}
	*col = (unsigned int)(off - start + 1);
}

/*
 * json-c's strict mode still takes 'single-quoted' strings, which are not
 * JSON: the offset of the first single quote outside a string, else @len.
 */
static size_t single_quote(const char *text, size_t len)
{
	bool in_string = false;
	size_t i;

	/* Most documents have none at all: one memchr, not a loop per byte. */
	if (!memchr(text, '\'', len))
		return len;
	for (i = 0; i < len; i++) {
		if (in_string && text[i] == '\\')
			i++;
		else if (text[i] == '"')
			in_string = !in_string;
		else if (!in_string && text[i] == '\'')
			return i;
	}
	return len;
}

/* Only 7-bit bytes: a text that cannot hold a UTF-8 sequence at all. */
static bool is_ascii(const char *text, size_t len)
{
	uint64_t acc = 0, w;
	size_t i = 0;

	for (; i + sizeof(w) <= len; i += sizeof(w)) {
		memcpy(&w, text + i, sizeof(w));
		acc |= w;
	}
	for (; i < len; i++)
		acc |= (unsigned char)text[i];
	return !(acc & 0x8080808080808080ULL);
}

static int syntax_error(struct ew_json_err *c, const char *text, size_t off,
			const char *what)
{
	unsigned int line, col;

	line_col(text, off, &line, &col);
	snprintf(c->err, c->errlen, "%s:%u:%u: %s", c->fname, line, col, what);
	return -EINVAL;
}

int ew_json_parse_text(struct ew_json_err *c, const char *text, size_t len,
		       struct json_object **root)
{
	enum json_tokener_error jerr;
	struct json_tokener *tok;
	const char *what = NULL;
	char keywhy[256];
	size_t end;

	*root = NULL;
	if (len > INT32_MAX)
		return ew_json_fail(c, "", "the file is too large");
	tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	if (!tok)
		return ew_json_fail(c, "", "out of memory");
	/*
	 * UTF-8 validation costs json-c a check per byte (a fifth of a large
	 * policy's parse) and can only fail on bytes above 0x7f: a text with
	 * none has nothing to validate.
	 */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
			       (is_ascii(text, len) ? 0 : JSON_TOKENER_VALIDATE_UTF8));
	*root = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);

	if (jerr == json_tokener_continue) {
		what = "unexpected end of input";
		end = len;
	} else if (jerr == json_tokener_success && single_quote(text, end) < end) {
		what = json_tokener_error_desc(json_tokener_error_parse_unexpected);
		end = single_quote(text, end);
	} else if (jerr != json_tokener_success) {
		what = json_tokener_error_desc(jerr);
	} else {
		while (end < len && text[end] && strchr(" \t\r\n", text[end]))
			end++;
		if (end < len)
			what = "unexpected data after the JSON document";
		else if (ew_json_key_check(text, len, &end, keywhy, sizeof(keywhy)))
			what = keywhy;
	}
	if (!what)
		return 0;
	json_object_put(*root);
	*root = NULL;
	return syntax_error(c, text, end, what);
}
