/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eastwestctl's one print path, after iproute2's json_print: each field is
 * printed by one call, which writes its text form or, with -j, adds it to
 * the JSON document (json-c) that the outermost ew_close_object() or
 * ew_close_array() prints, on one line or, with -p, pretty.
 *
 *   ew_open_object(NULL);
 *   ew_print_uint(EW_JSON, "id", NULL, job->id);
 *   ew_print_string(EW_ANY, "name", "job %s", job->name);
 *   ew_print_enum(EW_ANY, "mode", " mode %s", &ew_mode_names, job->mode);
 *   ew_print_text(" id %u\n", job->id);
 *   ew_close_object();
 *
 * prints "job a mode audit id 1" or {"id":1,"name":"a","mode":"audit"}.
 * A key is NULL for an element of an array. EW_JSON (and a NULL format)
 * where a field has no text form or the two forms place it differently;
 * ew_print_text() for text alone. ew_print_only() masks every call, for an
 * object printed in one form only.
 */
#ifndef EW_OUTPUT_H
#define EW_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/parse.h"

enum ew_to {
	EW_TEXT = 1U << 0,		/* the text form only */
	EW_JSON = 1U << 1,		/* the JSON member only */
	EW_ANY = EW_TEXT | EW_JSON,	/* the one -j selects */
};

/* EW_TEXT if @text, EW_JSON if @json: a field whose forms have conditions of their own. */
static inline enum ew_to ew_when(bool text, bool json)
{
	return (text ? EW_TEXT : 0) | (json ? EW_JSON : 0);
}

void ew_output_file(FILE *f);
enum ew_to ew_print_only(enum ew_to to);
void ew_print_only_end(enum ew_to prev);
/*
 * Whether a field for @to would be printed now: a caller that must format
 * many values first (a million peers) skips that when nothing would be.
 */
bool ew_print_wanted(enum ew_to to);

void ew_open_object(const char *key);
void ew_close_object(void);
void ew_open_array(const char *key);
void ew_close_array(void);

void ew_print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ew_print_string(enum ew_to to, const char *key, const char *fmt, const char *s);
void ew_print_uint(enum ew_to to, const char *key, const char *fmt, unsigned int v);
void ew_print_u64(enum ew_to to, const char *key, const char *fmt, uint64_t v);
void ew_print_double(enum ew_to to, const char *key, const char *fmt, double v);
void ew_print_on_off(enum ew_to to, const char *key, const char *fmt, bool v);
void ew_print_enum(enum ew_to to, const char *key, const char *fmt,
		   const struct ew_names *names, uint32_t v);
void ew_print_flags(enum ew_to to, const char *key, const char *fmt,
		    const struct ew_names *names, uint32_t v);

#endif /* EW_OUTPUT_H */
