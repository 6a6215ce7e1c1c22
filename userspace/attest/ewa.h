/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attestation (eastwestctl attest, eastwest-verifier): the helpers every
 * file shares -- hex and base64, SHA-256, whole-file reads. Messages,
 * allocation, buffers and atomic writes are those of every binary
 * (../lib/ewlib.h; ew_prog is "eastwest-verifier" in the verifier).
 */
#ifndef EWA_H
#define EWA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../lib/ewlib.h"

/* Exit codes of both tools (eastwestctl's 0/1/2 keep their meaning). */
enum ewa_exit {
	EWA_OK = 0,		/* success; for the verifier: admit */
	EWA_FAIL = 1,		/* the operation failed; for the verifier: deny */
	EWA_USAGE = 2,		/* usage or parse error */
};

#define EWA_SHA256_LEN	32

/* Evidence, enrollment and manifest files larger than this are refused. */
#define EWA_FILE_MAX	(256U << 20)

/* Lower-case hex; @out needs 2 * n + 1 bytes. */
char *ewa_hex(const uint8_t *p, size_t n, char *out);
/* A malloc'ed hex string. */
char *ewa_hex_dup(const uint8_t *p, size_t n);

char *ewa_base64(const uint8_t *p, size_t n);
/* Strict: no white space, padding required; -1 on anything else. */
int ewa_unbase64(const char *s, uint8_t **out, size_t *len);

void ewa_sha256(const void *p, size_t n, uint8_t out[EWA_SHA256_LEN]);

/*
 * Reads a whole file (at most EWA_FILE_MAX bytes, plus a NUL not counted);
 * writes go through ew_write_file() (atomic).
 */
static inline int ewa_read_file(const char *path, struct ew_buf *b)
{
	return ew_read_path(path, EWA_FILE_MAX, b);
}

/* "2026-11-30T01:23:03Z" */
void ewa_utc_now(char *out, size_t len);

#endif /* EWA_H */
