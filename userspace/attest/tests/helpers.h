/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the attestation tests: cmocka's includes in the order it
 * needs, and the fixtures make_fixtures.py wrote ($EW_FIXTURES).
 */
#ifndef EWA_TEST_HELPERS_H
#define EWA_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ewa.h"
#include "jsonfile.h"

static inline char *fixture_path(const char *name)
{
	const char *dir = getenv("EW_FIXTURES");

	return ew_asprintf("%s/%s", dir ? dir : "fixtures", name);
}

static inline void fixture_read(const char *name, struct ew_buf *b)
{
	char *p = fixture_path(name);

	memset(b, 0, sizeof(*b));
	if (ewa_read_file(p, b))
		fail_msg("fixture %s missing (run via \"make test\")", p);
	free(p);
}

static inline struct json_object *fixture_expected(void)
{
	char *p = fixture_path("expected.json");
	struct json_object *o = ewa_json_load(p);

	free(p);
	assert_non_null(o);
	return o;
}

/* "pcrs"[@pcr] of @o (expected.json, a VM fixture's PCR file) as bytes. */
static inline void expected_pcr(struct json_object *o, unsigned int pcr, uint8_t out[32])
{
	struct json_object *pcrs, *v;
	char key[8];
	size_t len;

	snprintf(key, sizeof(key), "%u", pcr);
	assert_true(json_object_object_get_ex(o, "pcrs", &pcrs));
	assert_true(json_object_object_get_ex(pcrs, key, &v));
	assert_int_equal(ew_unhex(json_object_get_string(v), out, 32, &len), 0);
	assert_int_equal(len, 32);
}

#endif /* EWA_TEST_HELPERS_H */
