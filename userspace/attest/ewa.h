/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attestation (eastwestctl attest, eastwest-verifier): the helpers every
 * file shares -- messages, allocation, hex and base64, SHA-256, whole-file
 * reads and atomic writes.
 */
#ifndef EWA_H
#define EWA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes of both tools (eastwestctl's 0/1/2 keep their meaning). */
enum ewa_exit {
	EWA_OK = 0,		/* success; for the verifier: admit */
	EWA_FAIL = 1,		/* the operation failed; for the verifier: deny */
	EWA_USAGE = 2,		/* usage or parse error */
};

#define EWA_SHA256_LEN	32

/* Evidence, enrollment and manifest files larger than this are refused. */
#define EWA_FILE_MAX	(256U << 20)

/* A growable byte buffer. */
struct ewa_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

extern const char *ewa_prog;	/* "eastwestctl" or "eastwest-verifier" */
extern bool ewa_quiet;		/* the tests silence messages */

void ewa_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ewa_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *ewa_last_error(void);

void *ewa_malloc(size_t size);
void *ewa_calloc(size_t n, size_t size);
void *ewa_realloc(void *p, size_t size);
char *ewa_strdup(const char *s);
char *ewa_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void ewa_buf_add(struct ewa_buf *b, const void *p, size_t n);
void ewa_buf_free(struct ewa_buf *b);

/* Lower-case hex; @out needs 2 * n + 1 bytes. */
char *ewa_hex(const uint8_t *p, size_t n, char *out);
/* A malloc'ed hex string. */
char *ewa_hex_dup(const uint8_t *p, size_t n);
/* Parses exactly @max or fewer bytes of hex; -1 on a bad digit or odd length. */
int ewa_unhex(const char *s, uint8_t *out, size_t max, size_t *len);

char *ewa_base64(const uint8_t *p, size_t n);
/* Strict: no white space, padding required; -1 on anything else. */
int ewa_unbase64(const char *s, uint8_t **out, size_t *len);

void ewa_sha256(const void *p, size_t n, uint8_t out[EWA_SHA256_LEN]);

/* Reads a whole file (at most EWA_FILE_MAX bytes, plus a NUL not counted). */
int ewa_read_file(const char *path, struct ewa_buf *b);
/* Writes through a temporary file and rename(): readers never see half a file. */
int ewa_write_file(const char *path, const void *p, size_t n, unsigned int mode);

/* "2026-11-30T01:23:03Z" */
void ewa_utc_now(char *out, size_t len);

#endif /* EWA_H */
