/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Path keys: the secret of a key file, and the keys both ends of a path
 * derive from it with HKDF-SHA256 (Documentation/admin-guide.md, "Path key
 * derivation", version 1). Nothing here is ever printed.
 */
#ifndef EW_KEYS_H
#define EW_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/eastwest.h>

#define EW_SECRET_MIN		32	/* bytes, after hex decoding */
#define EW_KEYFILE_MAX		4096	/* bytes on disk */

#define EW_MACSEC_KEY_LEN	32	/* GCM-AES-256 and GCM-AES-XPN-256 */
#define EW_MACSEC_KI_LEN	16	/* MACSEC_KEYID_LEN */
#define EW_MACSEC_SALT_LEN	12	/* MACSEC_SALT_LEN (XPN) */
#define EW_ESP_KEY_LEN		32	/* AES-256 */
#define EW_ESP_SALT_LEN		4	/* rfc4106 nonce salt */
#define EW_SPI_MIN		0x100	/* SPIs 1..255 are reserved (RFC 4303) */
#define EW_PSN_KEY_LEN		16	/* SipHash-2-4 */
#define EW_JOB_SECRET_LEN	32	/* a job's own secret, from the cluster's */
#define EW_RUN_MAX		EASTWEST_PSN_RUN_LEN	/* the longest run of a job */

struct ew_secret {
	uint8_t *buf;		/* locked, zeroed when freed */
	size_t len;
};

struct ew_macsec_keys {
	uint8_t sak[EW_MACSEC_KEY_LEN];
	uint8_t ki[EW_MACSEC_KI_LEN];
	uint8_t salt[EW_MACSEC_SALT_LEN];
	uint32_t ssci;
};

struct ew_esp_keys {
	uint8_t key[EW_ESP_KEY_LEN + EW_ESP_SALT_LEN];	/* rfc4106: key || salt */
	uint32_t spi;
};

int ew_secret_load(const char *path, uid_t caller, struct ew_secret *s,
		   char *why, size_t why_len);
int ew_secret_parse(const uint8_t *data, size_t len, struct ew_secret *s,
		    char *why, size_t why_len);
void ew_secret_free(struct ew_secret *s);
void ew_wipe(void *p, size_t len);

int ew_hkdf_sha256(const uint8_t *ikm, size_t ikm_len, const uint8_t *salt,
		   size_t salt_len, const uint8_t *info, size_t info_len,
		   uint8_t *out, size_t out_len);
int ew_kdf_macsec(const struct ew_secret *s, const uint8_t sci[8],
		  uint32_t epoch, struct ew_macsec_keys *k);
int ew_kdf_esp(const struct ew_secret *s, const uint8_t src[16],
	       const uint8_t dst[16], uint32_t epoch, struct ew_esp_keys *k);
int ew_kdf_job_secret(const struct ew_secret *cluster, const char *job,
		      const char *run, struct ew_secret *out);
int ew_kdf_psn(const struct ew_secret *cluster, const char *job,
	       const char *run, uint8_t key[EW_PSN_KEY_LEN]);
int ew_psn_key_check(const uint8_t key[EW_PSN_KEY_LEN], uint32_t *check);
bool ew_run_ok(const char *run);

#endif /* EW_KEYS_H */
