// SPDX-License-Identifier: GPL-2.0
/*
 * The keys of a JSON document that json-c hides (see ewlib.h): of two equal
 * keys in one object it keeps the last, and it cuts a key at a NUL. A file
 * that says "jobs" twice, or "mode" twice in one job, would be read as its
 * last word; every reader of JSON files refuses it instead.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "ewlib.h"

struct json_key {
	const char *s;		/* the key's decoded text */
	size_t len;
	size_t off;		/* of its opening quote */
	bool owned;		/* s was decoded into memory of its own */
};

struct key_scan {
	struct json_key *keys;	/* those of the open objects, innermost last */
	size_t n, cap;
	size_t *frames;		/* per open object or array: its first key's index */
	bool *is_object;
	size_t depth, frames_cap;
	struct json_tokener *tok;
	size_t bad;		/* the offending key's offset; SIZE_MAX: none yet */
	bool bad_is_nul;
	char *bad_key;
	size_t bad_len;
};

static int key_cmp(const void *a, const void *b)
{
	const struct json_key *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->s, y->s, n);

	if (r)
		return r;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

/* Keeps @k as what is wrong if it comes before what was found so far. */
static void note_bad(struct key_scan *ks, const struct json_key *k, bool nul)
{
	if (k->off >= ks->bad)
		return;
	ks->bad = k->off;
	ks->bad_is_nul = nul;
	free(ks->bad_key);
	ks->bad_key = ew_malloc(k->len + 1);
	memcpy(ks->bad_key, k->s, k->len);
	ks->bad_key[k->len] = '\0';
	ks->bad_len = k->len;
}

/*
 * The keys of the object that ends: sorted, the second of a run of equal
 * keys is the first one repeated. The whole document is scanned, so the
 * one reported is the first in the file, not in the first object to end.
 */
static void close_frame(struct key_scan *ks)
{
	size_t first = ks->frames[--ks->depth], i;

	/* An empty object may come before any key: keys is still NULL. */
	if (!ks->is_object[ks->depth] || ks->n == first)
		return;
	qsort(ks->keys + first, ks->n - first, sizeof(*ks->keys), key_cmp);
	for (i = first + 1; i < ks->n; i++)
		if (ks->keys[i].len == ks->keys[i - 1].len &&
		    !memcmp(ks->keys[i].s, ks->keys[i - 1].s, ks->keys[i].len))
			note_bad(ks, &ks->keys[i], false);
	for (i = first; i < ks->n; i++)
		if (ks->keys[i].owned)
			free((char *)ks->keys[i].s);
	ks->n = first;
}

static void open_frame(struct key_scan *ks, bool object)
{
	if (ks->depth == ks->frames_cap) {
		ks->frames_cap = ks->frames_cap ? 2 * ks->frames_cap : 16;
		ks->frames = ew_reallocarray(ks->frames, ks->frames_cap, sizeof(*ks->frames));
		ks->is_object = ew_reallocarray(ks->is_object, ks->frames_cap,
						sizeof(*ks->is_object));
	}
	ks->frames[ks->depth] = ks->n;
	ks->is_object[ks->depth++] = object;
}

/*
 * The key whose quotes are at @start and @end. Without a backslash its bytes
 * are its text; with escapes, json-c decodes it, so that "a" and "\u0061"
 * are one key as they are to json-c.
 */
static int add_key(struct key_scan *ks, const char *text, size_t start, size_t end)
{
	struct json_key k = { .s = text + start + 1, .len = end - start - 1, .off = start };
	struct json_object *o;

	if (memchr(k.s, '\\', k.len)) {
		json_tokener_reset(ks->tok);
		o = json_tokener_parse_ex(ks->tok, text + start, (int)(end - start + 1));
		if (!o || !json_object_is_type(o, json_type_string)) {
			json_object_put(o);
			return -EINVAL;
		}
		k.len = (size_t)json_object_get_string_len(o);
		k.s = ew_malloc(k.len + 1);
		memcpy((char *)k.s, json_object_get_string(o), k.len + 1);
		k.owned = true;
		json_object_put(o);
		if (memchr(k.s, '\0', k.len))
			note_bad(ks, &k, true);
	}
	if (ks->n == ks->cap) {
		ks->cap = ks->cap ? 2 * ks->cap : 64;
		ks->keys = ew_reallocarray(ks->keys, ks->cap, sizeof(*ks->keys));
	}
	ks->keys[ks->n++] = k;
	return 0;
}

/*
 * The closing quote of the string that opens at @start, or @len: most of a
 * large document is strings (a policy's peers), found with memchr().
 */
static size_t string_end(const char *text, size_t len, size_t start)
{
	const char *q;
	size_t i = start + 1, bs;

	while ((q = memchr(text + i, '"', len - i))) {
		i = (size_t)(q - text);
		/* Escaped if an odd number of backslashes comes before it. */
		for (bs = 0; i - bs > start + 1 && text[i - bs - 1] == '\\'; bs++)
			;
		if (!(bs & 1))
			return i;
		i++;
	}
	return len;
}

/* @key for a message: quoted, control characters as \uXXXX, cut at 64 bytes. */
static void quote_key(const char *key, size_t len, char *buf, size_t buflen)
{
	size_t i, o = 0;

	for (i = 0; i < len && i < 64 && o + 8 < buflen; i++) {
		unsigned char ch = (unsigned char)key[i];

		if (ch < 0x20 || ch == 0x7f || ch == '"' || ch == '\\')
			o += (size_t)snprintf(buf + o, buflen - o, "\\u%04x", ch);
		else
			buf[o++] = (char)ch;
	}
	snprintf(buf + o, buflen - o, "%s", i < len ? "..." : "");
}

int ew_json_key_check(const char *text, size_t len, size_t *off, char *why, size_t whylen)
{
	struct key_scan ks = { .bad = SIZE_MAX };
	bool expect_key = false;
	char quoted[600];
	size_t i, start;
	int ret = 0;

	ks.tok = json_tokener_new();
	if (!ks.tok)
		return ew_bad(why, whylen, "out of memory");
	for (i = 0; i < len && !ret; i++) {
		switch (text[i]) {
		case '{':
			open_frame(&ks, true);
			expect_key = true;
			break;
		case '[':
			open_frame(&ks, false);
			expect_key = false;
			break;
		case '}':
		case ']':
			if (ks.depth)
				close_frame(&ks);
			expect_key = false;
			break;
		case ',':
			expect_key = ks.depth && ks.is_object[ks.depth - 1];
			break;
		case '"':
			start = i;
			i = string_end(text, len, i);
			if (i >= len)
				ret = -EINVAL;
			else if (expect_key)
				ret = add_key(&ks, text, start, i);
			expect_key = false;
			break;
		}
	}
	while (ks.depth)
		close_frame(&ks);
	if (ret) {
		ret = ew_bad(why, whylen, "not JSON");
	} else if (ks.bad != SIZE_MAX) {
		quote_key(ks.bad_key, ks.bad_len, quoted, sizeof(quoted));
		*off = ks.bad;
		if (ks.bad_is_nul)
			ret = ew_bad(why, whylen, "key \"%s\" holds a NUL character", quoted);
		else
			ret = ew_bad(why, whylen, "duplicate key \"%s\"", quoted);
	}
	free(ks.bad_key);
	free(ks.keys);
	free(ks.frames);
	free(ks.is_object);
	json_tokener_free(ks.tok);
	return ret;
}
