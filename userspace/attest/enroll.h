/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verifier's half of enrollment (enrollment.h has the files):
 * challenge = check the node's keys and wrap a secret to its EK for its
 * AK; confirm = compare the secret the node's TPM unwrapped and record
 * the AK as bound to that EK and node.
 */
#ifndef EWA_ENROLL_H
#define EWA_ENROLL_H

#include <tss2/tss2_tpm2_types.h>

#include "ewa.h"
#include "vstate.h"

struct ewa_challenge_args {
	const char *enrollment;
	const char *out;
	const char *node;	/* default: the hostname in the enrollment */
	const char *ek_ca;	/* CA bundle the EK certificate must chain to */
};

int ewa_enroll_challenge(const struct ewa_vstate *s, const struct ewa_challenge_args *a);
/*
 * Writes the node record to the inventory and to @out when given. Refused
 * when the node's name is bound to another AK or EK, unless @replace names
 * that node, and when the AK or EK is enrolled under another name.
 */
int ewa_enroll_confirm(const struct ewa_vstate *s, const char *response, const char *out,
		       const char *replace);

/* The AK of a node record ("eastwest-node"); -1 with @why if not bound. */
int ewa_node_record_load(const char *path, TPM2B_PUBLIC *ak, char **node, char **hostname,
			 char *why, size_t whylen);

/* The EK of a node record (after ewa_node_record_load() accepted it). */
int ewa_node_record_ek(const char *path, TPM2B_PUBLIC *ek, char *why, size_t whylen);
/* A node name is a file name in the state dir: letters, digits, "._-". */
bool ewa_node_name_ok(const char *s);

#endif /* EWA_ENROLL_H */
