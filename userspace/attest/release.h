/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Key release bound to admission (the verifier's side): a path-protection
 * key file is wrapped to a node's TPM only if the state records an admit
 * verdict for the node's enrolled AK that is at most @max_age seconds old
 * and that no deny followed (the record holds the last verdict only), and
 * the operator has not revoked that AK.
 *
 * Refusal reasons (stable): not-bound (no usable node record), not-admitted
 * (no verdict yet), denied (the operator revoked the node, or the last
 * verdict was a deny), stale (the admit is older than
 * max-age, or from the future), key-invalid (the key file is unusable:
 * not a regular file, readable by group or other, empty or > 4096 bytes),
 * state-error, wrap-failed.
 */
#ifndef EWA_RELEASE_H
#define EWA_RELEASE_H

#include <stdbool.h>

#include "vstate.h"

#define EWA_RELEASE_MAX_AGE	300	/* seconds; eastwest-verifier release max-age */

struct ewa_release_args {
	const char *key;		/* the key file (mode 0600 or stricter) */
	const char *enrollment;		/* the node record */
	const char *out;		/* the key release file */
	uint64_t max_age;		/* seconds */
};

struct ewa_release_result {
	bool released;
	const char *reason;		/* a refusal reason above, NULL when released */
	char detail[512];
	char *node;
	char *ak_name;			/* hex */
	size_t key_len;
	uint64_t verdict_age;		/* seconds */
};

/* 0 when released; 1 refused (@r says why); never prints the key. */
int ewa_release_key(const struct ewa_vstate *s, const struct ewa_release_args *a,
		    struct ewa_release_result *r);
void ewa_release_result_free(struct ewa_release_result *r);

/*
 * Revokes a node's AK ("operator-revoked: @why"): every verification of it
 * denies (operator-revoked) and release refuses it until ewa_unrevoke_node().
 */
int ewa_revoke_node(const struct ewa_vstate *s, const char *enrollment, const char *why,
		    char **ak_hex, char **node);
/* Lifts that; the node is admitted again at its next passing verification. */
int ewa_unrevoke_node(const struct ewa_vstate *s, const char *enrollment, char **ak_hex,
		      char **node);

#endif /* EWA_RELEASE_H */
