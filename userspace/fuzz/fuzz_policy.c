// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the policy (JSON) parser and checker. A document it
 * accepts must print (as "show -j" would) and parse back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ewctl.h"
#include "io/output.h"
#include "model/policy_file.h"
#include "model/print.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ew_state st, back;
	char err[1024], *text;
	size_t i, len;
	FILE *f;

	ew_quiet = true;
	if (!ew_policy_parse((const char *)data, size, "fuzz", &st, err, sizeof(err))) {
		for (i = 0; i < st.n_jobs; i++)
			ew_job_normalize(&st.jobs[i]);
		f = open_memstream(&text, &len);
		if (!f)
			abort();
		ew_opts.json = true;
		ew_output_file(f);
		ew_print_state(&st);
		ew_output_file(NULL);
		fclose(f);
		if (ew_policy_parse(text, len, "fuzz", &back, err, sizeof(err)))
			abort();
		if (back.n_jobs != st.n_jobs)
			abort();
		ew_state_free(&back);
		free(text);
	} else if (!err[0]) {
		abort();
	}
	ew_state_free(&st);
	return 0;
}
