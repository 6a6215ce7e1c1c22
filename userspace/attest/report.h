/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The node report: what the node says about itself, as JSON. The quote
 * binds its exact bytes (qualifyingData = SHA256(nonce || SHA256(report))),
 * so it cannot be swapped, but it is the node's claim: the verifier trusts
 * the TPM-backed logs over it.
 *
 *   {"version": 1, "hostname", "kernel_release", "boot_id", "timestamp",
 *    "efi": bool, "secure_boot": true | false | null,
 *    "modules": [{"name", "path" | null, "sha256" | null}, ...]}
 *
 * Every path is read below @root ("" on a real node; a fixture tree in
 * the tests): proc/sys/kernel/{hostname,osrelease,random/boot_id},
 * proc/modules, lib/modules/RELEASE/modules.dep, sys/firmware/efi.
 */
#ifndef EWA_REPORT_H
#define EWA_REPORT_H

#include <json-c/json.h>

#include "ewa.h"

#define EWA_REPORT_VERSION	1

int ewa_report_build(const char *root, struct ew_buf *out);

/* The report's parsed form, for the verifier. */
struct ewa_report_module {
	char *name;
	char *path;			/* NULL: no file on disk */
	uint8_t sha256[EWA_SHA256_LEN];
	bool hashed;
};

struct ewa_report {
	char *hostname;
	char *kernel_release;
	char *boot_id;
	char *timestamp;
	int secure_boot;		/* 1, 0, -1 (unknown) */
	struct ewa_report_module *modules;
	size_t n_modules;
};

int ewa_report_parse(const uint8_t *p, size_t len, struct ewa_report *r,
		     char *why, size_t whylen);
void ewa_report_free(struct ewa_report *r);

#endif /* EWA_REPORT_H */
