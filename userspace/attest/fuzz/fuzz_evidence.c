// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the JSON the verifier reads from a node -- the
 * evidence container and the node report inside it -- and the manifest
 * parser (its input is signed, but parsed by the same code paths).
 */
#include <stdlib.h>

#include "evidence.h"
#include "manifest.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ewa_evidence ev;
	struct ewa_manifest m;
	struct ewa_report r;
	char why[256];

	ew_quiet = true;
	if (!ewa_evidence_parse((const char *)data, size, &ev, why, sizeof(why))) {
		if (!ewa_report_parse(ev.report.data, ev.report.len, &r, why, sizeof(why)))
			ewa_report_free(&r);
		ewa_evidence_free(&ev);
	}
	if (!ewa_report_parse(data, size, &r, why, sizeof(why)))
		ewa_report_free(&r);
	if (!ewa_manifest_parse((const char *)data, size, &m, why, sizeof(why)))
		ewa_manifest_free(&m);
	return 0;
}
