// SPDX-License-Identifier: GPL-2.0
/*
 * The print path of output.h. The JSON document is a json-c tree: the open
 * objects and arrays are a stack, each new member goes into the top one,
 * and closing the last prints the tree.
 */
#include <stdarg.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "ewctl.h"
#include "io/output.h"

/* The formats are the callers' (iproute2's json_print does the same). */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

#define EW_OUTPUT_DEPTH 8

static struct {
	FILE *f;				/* NULL: stdout */
	enum ew_to only;			/* ew_print_only() */
	struct json_object *open[EW_OUTPUT_DEPTH];
	int depth;
} output = { .only = EW_ANY };

/* Where the output goes (a test's memory stream); NULL: stdout. */
void ew_output_file(FILE *f)
{
	output.f = f;
}

/*
 * Until ew_print_only_end(), only the @to form of what is printed (EW_JSON:
 * an object whose text form is printed elsewhere). Nests: returns what to
 * pass to ew_print_only_end().
 */
enum ew_to ew_print_only(enum ew_to to)
{
	enum ew_to prev = output.only;

	output.only &= to;
	return prev;
}

void ew_print_only_end(enum ew_to prev)
{
	output.only = prev;
}

static FILE *out(void)
{
	return output.f ? output.f : stdout;
}

static bool text(enum ew_to to, const char *fmt)
{
	return !ew_opts.json && (to & output.only & EW_TEXT) && fmt;
}

static bool json(enum ew_to to)
{
	return ew_opts.json && (to & output.only & EW_JSON);
}

bool ew_print_wanted(enum ew_to to)
{
	return text(to, "") || json(to);
}

/* Adds @v to the open object (as @key) or array; takes the reference. */
static void add(const char *key, struct json_object *v)
{
	struct json_object *top = output.depth ? output.open[output.depth - 1] : NULL;

	if (top && json_object_is_type(top, json_type_array))
		json_object_array_add(top, v);
	else if (top)
		json_object_object_add(top, key, v);
	else
		json_object_put(v);
}

static void open_container(const char *key, struct json_object *o)
{
	if (output.depth == EW_OUTPUT_DEPTH)
		abort();
	if (output.depth)
		add(key, json_object_get(o));
	output.open[output.depth++] = o;
}

static void close_container(void)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;
	struct json_object *o;

	if (!json(EW_JSON) || !output.depth)
		return;
	o = output.open[--output.depth];
	if (!output.depth) {
		flags |= ew_opts.pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
					  JSON_C_TO_STRING_PLAIN;
		fprintf(out(), "%s\n", json_object_to_json_string_ext(o, flags));
	}
	json_object_put(o);
}

void ew_open_object(const char *key)
{
	if (json(EW_JSON))
		open_container(key, json_object_new_object());
}

void ew_close_object(void)
{
	close_container();
}

void ew_open_array(const char *key)
{
	if (json(EW_JSON))
		open_container(key, json_object_new_array());
}

void ew_close_array(void)
{
	close_container();
}

void ew_print_text(const char *fmt, ...)
{
	va_list ap;

	if (!text(EW_TEXT, fmt))
		return;
	va_start(ap, fmt);
	vfprintf(out(), fmt, ap);
	va_end(ap);
}

void ew_print_string(enum ew_to to, const char *key, const char *fmt, const char *s)
{
	if (text(to, fmt))
		fprintf(out(), fmt, s);
	if (json(to))
		add(key, json_object_new_string(s));
}

void ew_print_uint(enum ew_to to, const char *key, const char *fmt, unsigned int v)
{
	if (text(to, fmt))
		fprintf(out(), fmt, v);
	if (json(to))
		add(key, json_object_new_int64(v));
}

/* The text format takes an unsigned long long (%llu). */
void ew_print_u64(enum ew_to to, const char *key, const char *fmt, uint64_t v)
{
	if (text(to, fmt))
		fprintf(out(), fmt, (unsigned long long)v);
	if (json(to))
		add(key, json_object_new_uint64(v));
}

void ew_print_double(enum ew_to to, const char *key, const char *fmt, double v)
{
	if (text(to, fmt))
		fprintf(out(), fmt, v);
	if (json(to))
		add(key, json_object_new_double(v));
}

/* JSON true or false; the text format takes "on" or "off" (%s). */
void ew_print_on_off(enum ew_to to, const char *key, const char *fmt, bool v)
{
	if (text(to, fmt))
		fprintf(out(), fmt, v ? "on" : "off");
	if (json(to))
		add(key, json_object_new_boolean(v));
}

/* The name of value @v (ew_enum_name()), in both forms. */
void ew_print_enum(enum ew_to to, const char *key, const char *fmt,
		   const struct ew_names *names, uint32_t v)
{
	ew_print_string(to, key, fmt, ew_enum_name(names, v));
}

/*
 * A flag set: the text form as ew_flags_str() writes it ("macsec,ipsec",
 * "none"), the JSON member an array of names (["macsec", "ipsec"], []).
 */
void ew_print_flags(enum ew_to to, const char *key, const char *fmt,
		    const struct ew_names *names, uint32_t v)
{
	char buf[128];
	size_t i;

	if (text(to, fmt))
		fprintf(out(), fmt, ew_flags_str(names, v, buf, sizeof(buf)));
	if (!json(to))
		return;
	ew_open_array(key);
	for (i = 0; i < 32; i++) {
		if (!(v & (1U << i)))
			continue;
		if (i < names->n && names->names[i]) {
			ew_print_string(EW_JSON, NULL, NULL, names->names[i]);
		} else {
			snprintf(buf, sizeof(buf), "bit%zu", i);
			ew_print_string(EW_JSON, NULL, NULL, buf);
		}
	}
	ew_close_array();
}
