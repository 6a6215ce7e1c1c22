// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the policy (JSON) parser and checker. A document it
 * accepts must print (as "show -j" would) and parse back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ewctl.h"
#include "json_out.h"
#include "policy_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ew_state st, back;
	struct json_object *o;
	char err[1024];
	const char *text;
	size_t i;

	ew_quiet = true;
	if (!ew_policy_parse((const char *)data, size, "fuzz", &st, err, sizeof(err))) {
		for (i = 0; i < st.n_jobs; i++)
			ew_job_normalize(&st.jobs[i]);
		o = ew_json_state(&st);
		text = ew_json_string(o);
		if (ew_policy_parse(text, strlen(text), "fuzz", &back, err, sizeof(err)))
			abort();
		if (back.n_jobs != st.n_jobs)
			abort();
		ew_state_free(&back);
		json_object_put(o);
	} else if (!err[0]) {
		abort();
	}
	ew_state_free(&st);
	return 0;
}
