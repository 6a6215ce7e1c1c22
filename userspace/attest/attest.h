/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eastwestctl attest: the entry points userspace/cmd/main.c dispatches to.
 */
#ifndef EWA_ATTEST_H
#define EWA_ATTEST_H

#include <stdint.h>
#include <stdio.h>

int attest_main(int argc, char *argv[]);
void attest_usage(FILE *f);

/* "0-7,10,14" -> bit mask of PCRs; -1 when malformed or empty. */
int ewa_parse_pcr_list(const char *s, uint32_t *mask);

#endif /* EWA_ATTEST_H */
