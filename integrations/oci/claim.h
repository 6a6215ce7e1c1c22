/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Claims: a file per job the hook created, naming the container it belongs to.
 */
#ifndef EWOCI_CLAIM_H
#define EWOCI_CLAIM_H

#include <stddef.h>

int ewoci_claim_take(const char *dir, const char *job, const char *id,
		     char *owner, size_t len);
int ewoci_claim_owner(const char *dir, const char *job, char *owner, size_t len);
int ewoci_claim_drop(const char *dir, const char *job);

#endif /* EWOCI_CLAIM_H */
