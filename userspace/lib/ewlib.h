/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The helpers every user-space binary shares (eastwestctl, the attestation
 * code, eastwest-verifier, the OCI hook): messages, allocation, buffers,
 * string vectors, hex, whole-file reads and atomic writes, running another
 * program, the keys of JSON documents. Built as libewbase.a by
 * userspace/lib/Makefile.
 */
#ifndef EWLIB_H
#define EWLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Messages (msg.c). Every error is one line on stderr, "PROG: what is
 * wrong", with the batch file and line in front while a batch runs
 * (ew_set_location()). The last error is kept for the unit tests.
 */
extern const char *ew_prog;	/* "eastwestctl" unless the program says otherwise */
extern bool ew_quiet;		/* the tests silence messages */
/* A batch reads its commands from standard input: no command may read it. */
extern bool ew_batch_stdin;
/* If set, every message also goes to syslog under this identity (LOG_DAEMON). */
extern const char *ew_syslog_ident;

void ew_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ew_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *ew_last_error(void);
void ew_set_location(const char *file, unsigned long line);
/* The batch file (NULL outside a batch) and its line. */
const char *ew_location(unsigned long *line);
/* Formats a refusal into @why (for the caller's message); returns -EINVAL. */
int ew_bad(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/*
 * The option getopt_long() just refused (with opterr = 0), as "unknown
 * option -X" or "unknown option "--NAME"", pointing at "PROG help".
 */
void ew_unknown_option(char *const argv[]);
/*
 * At the end of main(): flushes stdout; a write error (a full disk, a
 * closed pipe) is reported and turns a successful @ret into @fail.
 */
int ew_flush_stdout(int ret, int fail);

/* Allocation: on failure "PROG: out of memory" and exit status 1. */
void *ew_malloc(size_t size);
void *ew_calloc(size_t n, size_t size);
void *ew_reallocarray(void *p, size_t n, size_t size);
char *ew_strdup(const char *s);
char *ew_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable byte buffer, always NUL-terminated past len once used. */
struct ew_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

void ew_buf_add(struct ew_buf *b, const void *p, size_t n);
void ew_buf_free(struct ew_buf *b);

/* A NULL-terminated vector of owned strings (an argv under construction). */
struct ew_strv {
	char **v;
	size_t n;
	size_t cap;
};

void ew_strv_add(struct ew_strv *sv, const char *s);
void ew_strv_addf(struct ew_strv *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ew_strv_free(struct ew_strv *sv);

/* Hexadecimal (hex.c). */
int ew_hexval(int c);
/* @n digits into at most @max bytes (*@len of them): -1 on a bad digit,
 * an odd number of digits or more than @max bytes. */
int ew_unhex_n(const char *s, size_t n, uint8_t *out, size_t max, size_t *len);
/* The same for the NUL-terminated string @s. */
int ew_unhex(const char *s, uint8_t *out, size_t max, size_t *len);

/*
 * Files (file.c). Readers fill @b (its len reset first) and NUL-terminate
 * it; they return 0, -EFBIG if the input has more than @max bytes, or the
 * -errno of the failed open or read. They print nothing.
 */
int ew_read_stream(FILE *f, size_t max, struct ew_buf *b);
int ew_read_path(const char *path, size_t max, struct ew_buf *b);

/*
 * Atomic writes: a temporary file beside @path (".NAME.XXXXXX", created
 * 0600, then given @mode) filled by @fill, flushed, synced and renamed over
 * @path, so that readers see the old file or the whole new one. @fill
 * returns 0, or nonzero after its own message. With @who, failures are
 * reported as "WHO: cannot create|writing|renaming ..."; without, silently.
 * Return: 0, -errno, or -EIO when @fill failed.
 */
typedef int (*ew_fill_fn)(FILE *f, const void *arg);
int ew_write_atomic(const char *path, unsigned int mode, ew_fill_fn fill, const void *arg,
		    const char *who);
/* ew_write_atomic() of @n bytes at @p, silently. */
int ew_write_file(const char *path, const void *p, size_t n, unsigned int mode);

/*
 * Programs (run.c). ew_run() runs @prog (a path if it has a '/', else
 * searched in $PATH, or in the usual system directories without one) with
 * @argv and waits for it; with @out, its standard output is returned there
 * (NUL-terminated, free() it). ew_ctl_run() runs eastwestctl with @args
 * (after the program name): $EW_CTL (an absolute path) if set, else the
 * first one in $PATH. Messages go to our stderr, as the program wrote them.
 * Return: its exit status, 128 + N if signal N killed it, EW_RUN_NOT_FOUND
 * if it could not be run, or -1 if it could not be started (message printed).
 */
#define EW_RUN_STDIN_NULL	0x1	/* its stdin is /dev/null */
#define EW_RUN_STDOUT_TO_STDERR	0x2	/* without @out: its stdout joins stderr */
#define EW_RUN_NOT_FOUND	127
int ew_run(const char *prog, char *const argv[], unsigned int flags, char **out);
int ew_ctl_run(char *const args[], unsigned int flags, char **out);

/*
 * JSON (jsonkey.c). json-c keeps the last of two equal keys in one object
 * and cuts a key at a NUL, so a document can say two things and be read as
 * one. ew_json_key_check() scans @len bytes of @text, a document json-c has
 * accepted, for keys as json-c decodes them: 0 if every object's keys are
 * distinct and free of NULs, else -EINVAL with the offset of the first
 * offending key's opening quote in *@off and @why set ("duplicate key
 * \"mode\"", "key \"a\\u0000b\" holds a NUL character").
 */
int ew_json_key_check(const char *text, size_t len, size_t *off, char *why, size_t whylen);

/*
 * The output options, -j[son] and -p[retty]: eastwestctl passes its own on
 * to eastwest-attest, so both take them from here (ew_opts is defined once,
 * in opts.c). EW_OPTS_LONGOPTS are their getopt_long() entries;
 * ew_opts_set() sets ew_opts from the option getopt_long() returned, true
 * if it was one of them.
 */
struct ew_opts {
	bool json;
	bool pretty;
};

extern struct ew_opts ew_opts;

#define EW_OPTS_LONGOPTS \
	{ "json",	no_argument,		NULL, 'j' }, \
	{ "pretty",	no_argument,		NULL, 'p' }

static inline bool ew_opts_set(int opt)
{
	if (opt == 'j')
		ew_opts.json = true;
	else if (opt == 'p')
		ew_opts.pretty = true;
	else
		return false;
	return true;
}

#endif /* EWLIB_H */
