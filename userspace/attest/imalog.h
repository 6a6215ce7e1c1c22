/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The IMA binary measurement list
 * (/sys/kernel/security/ima/binary_runtime_measurements): parser and
 * replay into the SHA-256 bank.
 *
 * Each record, little endian: u32 pcr, u8 sha1_template_digest[20],
 * u32 name_len, char template_name[name_len], u32 data_len,
 * u8 template_data[data_len]. For ima-ng, ima-sig, ima-buf and ima-modsig
 * the template data is a list of (u32 len, bytes) fields starting with
 * d-ng ("sha256:\0" + file digest) and n-ng (path + NUL). The list only
 * logs the SHA-1 template digest: the SHA-256 bank was extended with
 * SHA256(template_data), which the replay recomputes. A violation (file
 * changed while measured) is logged with a zero digest and extended as
 * all ones.
 */
#ifndef EWA_IMALOG_H
#define EWA_IMALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcrbank.h"

#define EWA_IMA_MAX_ENTRIES	(1U << 22)
#define EWA_IMA_MAX_DATA	(1U << 20)
#define EWA_IMA_MAX_DIGEST	64

struct ewa_ima_entry {
	uint32_t pcr;
	bool violation;
	char template_name[16];
	uint8_t template_sha256[EWA_SHA256_LEN];	/* what was extended */
	char hash_algo[16];				/* of the file digest */
	uint8_t file_digest[EWA_IMA_MAX_DIGEST];
	size_t file_digest_len;
	char *path;					/* n-ng, NUL-terminated */
};

struct ewa_ima_log {
	struct ewa_ima_entry *v;
	size_t n;
};

/* 0, or -1 with a one-line reason in @why naming the record. */
int ewa_ima_parse(const uint8_t *p, size_t len, struct ewa_ima_log *log,
		  char *why, size_t whylen);
void ewa_ima_replay(const struct ewa_ima_log *log, struct ewa_pcrbank *bank);
void ewa_ima_free(struct ewa_ima_log *log);

/*
 * What an entry is, from what the kernel recorded: its place in the list
 * and its template, never its path, which whoever loads a file chooses
 * (finit_module() takes any file, a memfd included, and IMA records the
 * path it was opened by, or only the file's own name when that path cannot
 * be resolved).
 */
enum ewa_ima_kind {
	EWA_IMA_BOOT_AGGREGATE,	/* entry 0, "boot_aggregate": IMA's own at its init */
	EWA_IMA_VIOLATION,	/* all-zero template digest */
	EWA_IMA_FILE,		/* ima-ng, ima-sig, ima-modsig: a file a hook measured */
	EWA_IMA_MODULE_BUFFER,	/* ima-buf "init_module" */
	EWA_IMA_BUFFER,		/* any other ima-buf */
};

/*
 * Under the IMA policy eastwest documents ("measure func=MODULE_CHECK",
 * "measure func=CRITICAL_DATA label=modules", nothing else), every FILE
 * entry is a module file (MODULE_CHECK, finit_module), and every
 * MODULE_BUFFER an init_module buffer (logged by 6.6+ kernels: that is how
 * Debian 12's kmod 30 loads 6.12's .ko.xz; its digest covers the SHA-256
 * of the decompressed image, so only a reference node's log gives golden
 * values). Such a policy makes no other BUFFER.
 */
enum ewa_ima_kind ewa_ima_kind(const struct ewa_ima_log *log, size_t i);

/*
 * A path that looks like a kernel module's (.ko, .ko.xz, .ko.zst, .ko.gz):
 * a hint for people reading a reference node's log, never a decision.
 */
bool ewa_is_module_path(const char *path);

#endif /* EWA_IMALOG_H */
