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

/* A kernel module, by the path IMA recorded (.ko, .ko.xz, .ko.zst, .ko.gz). */
bool ewa_is_module_path(const char *path);
/*
 * An entry that measured a kernel module: a module file (MODULE_CHECK,
 * finit_module), or an init_module buffer (ima-buf "init_module", logged by
 * 6.6+ kernels under "measure func=CRITICAL_DATA label=modules": that is how
 * Debian 12's kmod 30 loads 6.12's .ko.xz; its digest covers the SHA-256 of
 * the decompressed image, so only a reference node's log gives golden values).
 */
bool ewa_ima_is_module(const struct ewa_ima_entry *e);

#endif /* EWA_IMALOG_H */
