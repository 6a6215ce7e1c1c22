// SPDX-License-Identifier: GPL-2.0
/*
 * Key files and key derivation for protected paths.
 *
 * A key file holds a cluster (or job) secret of at least 32 bytes, written
 * either as hexadecimal digits (nothing else but one trailing newline) or
 * as raw bytes (anything else, used exactly as stored). It must be a
 * regular file, not a symbolic link, owned by root or the caller, and
 * neither group nor other may read or write it: a secret that others can
 * read is no secret, and one they can write lets them choose the keys.
 *
 * Every node of a path derives the same keys from the secret and public
 * facts (SCIs, addresses, the epoch) with HKDF-SHA256 (RFC 5869), so no
 * key exchange runs between nodes. The inputs are fixed here and in the
 * admin guide ("Path key derivation"); changing any byte of them makes
 * nodes disagree, so a change needs a new version label.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/eastwest.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include "ewctl.h"
#include "io/keys.h"

/* HKDF salt of version 1 (RFC 5869 section 3.1: a constant is fine). */
static const char kdf_salt[] = "eastwest-kdf-v1";
static const char macsec_label[] = "eastwest v1 macsec sa";
static const char esp_label[] = "eastwest v1 esp sa";
static const char psn_label[] = "eastwest v1 psn key";
static const char job_label[] = "eastwest v1 job run secret";
/* The spec's psn-key-check: what the module hashes (no NUL). */
static const char psn_check_msg[] = "eastwest psn key check";

void ew_wipe(void *p, size_t len)
{
	if (p && len)
		OPENSSL_cleanse(p, len);
}

void ew_secret_free(struct ew_secret *s)
{
	if (!s->buf)
		return;
	ew_wipe(s->buf, EW_KEYFILE_MAX);
	munlock(s->buf, EW_KEYFILE_MAX);
	free(s->buf);
	s->buf = NULL;
	s->len = 0;
}

/**
 * ew_secret_parse() - the secret of a key file's contents
 * @data: the file's bytes
 * @len: their number
 * @s: the secret (free with ew_secret_free())
 * @why: what is wrong, on failure
 * @why_len: its size
 *
 * Return: 0 or -EINVAL.
 */
int ew_secret_parse(const uint8_t *data, size_t len, struct ew_secret *s,
		    char *why, size_t why_len)
{
	size_t i, digits = len;
	bool hex;

	memset(s, 0, sizeof(*s));
	if (len > EW_KEYFILE_MAX) {
		snprintf(why, why_len, "larger than %d bytes", EW_KEYFILE_MAX);
		return -EINVAL;
	}
	if (digits && data[digits - 1] == '\n')
		digits--;
	if (digits && data[digits - 1] == '\r')
		digits--;
	hex = digits > 0;
	for (i = 0; i < digits && hex; i++)
		hex = ew_hexval(data[i]) >= 0;
	if (hex && digits % 2) {
		snprintf(why, why_len, "odd number of hexadecimal digits (%zu)", digits);
		return -EINVAL;
	}
	s->buf = ew_calloc(1, EW_KEYFILE_MAX);
	/* Keep it out of swap; failing that (RLIMIT_MEMLOCK) is not fatal. */
	mlock(s->buf, EW_KEYFILE_MAX);
	if (hex) {
		/* Cannot fail: even, all digits, half of EW_KEYFILE_MAX at most. */
		ew_unhex_n((const char *)data, digits, s->buf, EW_KEYFILE_MAX, &s->len);
	} else {
		memcpy(s->buf, data, len);
		s->len = len;
	}
	if (s->len < EW_SECRET_MIN) {
		snprintf(why, why_len, "the secret is %zu bytes%s, need at least %d",
			 s->len, hex ? " (hex)" : "", EW_SECRET_MIN);
		ew_secret_free(s);
		return -EINVAL;
	}
	return 0;
}

/**
 * ew_secret_load() - read and check a key file
 * @path: the file
 * @caller: the uid that may own it besides root
 * @s: the secret
 * @why: what is wrong, on failure (never any of the file's bytes)
 * @why_len: its size
 *
 * Return: 0 or a negative errno.
 */
int ew_secret_load(const char *path, uid_t caller, struct ew_secret *s,
		   char *why, size_t why_len)
{
	uint8_t *data;
	struct stat st;
	ssize_t n;
	size_t len = 0;
	int fd, ret;

	memset(s, 0, sizeof(*s));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		if (errno == ELOOP)
			snprintf(why, why_len, "is a symbolic link (give the file itself)");
		else
			snprintf(why, why_len, "%s", strerror(errno));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		snprintf(why, why_len, "%s", strerror(errno));
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "not a regular file");
		close(fd);
		return -EINVAL;
	}
	if (st.st_uid != 0 && st.st_uid != caller) {
		snprintf(why, why_len, "owned by uid %u (want root or uid %u)",
			 (unsigned int)st.st_uid, (unsigned int)caller);
		close(fd);
		return -EPERM;
	}
	if (st.st_mode & 077) {
		snprintf(why, why_len, "mode %04o is too open (want 0600 or stricter)",
			 (unsigned int)(st.st_mode & 07777));
		close(fd);
		return -EPERM;
	}
	data = ew_malloc(EW_KEYFILE_MAX + 1);
	mlock(data, EW_KEYFILE_MAX + 1);
	while (len <= EW_KEYFILE_MAX) {
		n = read(fd, data + len, EW_KEYFILE_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			snprintf(why, why_len, "%s", strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	ret = ew_secret_parse(data, len, s, why, why_len);
out:
	ew_wipe(data, EW_KEYFILE_MAX + 1);
	munlock(data, EW_KEYFILE_MAX + 1);
	free(data);
	close(fd);
	return ret;
}

/**
 * ew_hkdf_sha256() - HKDF (RFC 5869) with SHA-256, extract and expand
 * @ikm: input keying material
 * @ikm_len: its length
 * @salt: the salt, or NULL (then HashLen zero bytes, as RFC 5869 says)
 * @salt_len: its length
 * @info: context, may be NULL
 * @info_len: its length
 * @out: the output keying material
 * @out_len: its length, at most 255 * 32
 *
 * Return: 0 or -EIO.
 */
int ew_hkdf_sha256(const uint8_t *ikm, size_t ikm_len, const uint8_t *salt,
		   size_t salt_len, const uint8_t *info, size_t info_len,
		   uint8_t *out, size_t out_len)
{
	OSSL_PARAM params[5], *p = params;
	EVP_KDF_CTX *ctx = NULL;
	EVP_KDF *kdf;
	int ret = -EIO;

	kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
	if (kdf)
		ctx = EVP_KDF_CTX_new(kdf);
	EVP_KDF_free(kdf);
	if (!ctx)
		return ret;
	*p++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0);
	*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)ikm, ikm_len);
	if (salt && salt_len)
		*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT,
							 (void *)salt, salt_len);
	if (info && info_len)
		*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO,
							 (void *)info, info_len);
	*p = OSSL_PARAM_construct_end();
	if (EVP_KDF_derive(ctx, out, out_len, params) == 1)
		ret = 0;
	EVP_KDF_CTX_free(ctx);
	return ret;
}

static size_t put_label(uint8_t *info, const char *label)
{
	size_t len = strlen(label) + 1;	/* with its NUL: the separator */

	memcpy(info, label, len);
	return len;
}

static size_t put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return 4;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/**
 * ew_kdf_macsec() - the SA of one MACsec transmit SC in one epoch
 * @s: the secret
 * @sci: the sender's SCI, as on the wire (MAC address, then port, big endian)
 * @epoch: the epoch (AN = epoch % 4)
 * @k: SAK, key identifier, and the XPN salt and SSCI
 *
 * OKM = HKDF-SHA256(salt "eastwest-kdf-v1", IKM secret,
 *                   info "eastwest v1 macsec sa" 0x00 || SCI(8) || epoch(4, BE), L 64)
 * SAK = OKM[0..31], KI = OKM[32..47], salt = OKM[48..59],
 * SSCI = OKM[60..63] (big endian).
 *
 * Return: 0 or -EIO.
 */
int ew_kdf_macsec(const struct ew_secret *s, const uint8_t sci[8],
		  uint32_t epoch, struct ew_macsec_keys *k)
{
	uint8_t info[64], okm[64];
	size_t n;
	int ret;

	n = put_label(info, macsec_label);
	memcpy(info + n, sci, 8);
	n += 8;
	n += put_be32(info + n, epoch);
	ret = ew_hkdf_sha256(s->buf, s->len, (const uint8_t *)kdf_salt,
			     strlen(kdf_salt), info, n, okm, sizeof(okm));
	if (!ret) {
		memcpy(k->sak, okm, 32);
		memcpy(k->ki, okm + 32, 16);
		memcpy(k->salt, okm + 48, 12);
		k->ssci = get_be32(okm + 60);
	}
	ew_wipe(okm, sizeof(okm));
	return ret;
}

/**
 * ew_kdf_esp() - the ESP SA from @src to @dst in one epoch
 * @s: the secret
 * @src: the sender's address (IPv4 as ::ffff:a.b.c.d)
 * @dst: the receiver's address
 * @epoch: the epoch
 * @k: rfc4106 key material (key then salt) and SPI
 *
 * OKM = HKDF-SHA256(salt "eastwest-kdf-v1", IKM secret,
 *                   info "eastwest v1 esp sa" 0x00 || src(16) || dst(16) || epoch(4, BE), L 40)
 * key = OKM[0..31], salt = OKM[32..35], s = OKM[36..39] (big endian),
 * SPI = s if s >= 0x100, else s + 0x100.
 *
 * Return: 0 or -EIO.
 */
int ew_kdf_esp(const struct ew_secret *s, const uint8_t src[16],
	       const uint8_t dst[16], uint32_t epoch, struct ew_esp_keys *k)
{
	uint8_t info[64], okm[40];
	uint32_t spi;
	size_t n;
	int ret;

	n = put_label(info, esp_label);
	memcpy(info + n, src, 16);
	n += 16;
	memcpy(info + n, dst, 16);
	n += 16;
	n += put_be32(info + n, epoch);
	ret = ew_hkdf_sha256(s->buf, s->len, (const uint8_t *)kdf_salt,
			     strlen(kdf_salt), info, n, okm, sizeof(okm));
	if (!ret) {
		memcpy(k->key, okm, sizeof(k->key));
		spi = get_be32(okm + 36);
		k->spi = spi >= EW_SPI_MIN ? spi : spi + EW_SPI_MIN;
	}
	ew_wipe(okm, sizeof(okm));
	return ret;
}

/**
 * ew_kdf_psn() - the PSN key of one run of a job (keyed PSNs), the same on
 *	every node of the job
 * @cluster: the cluster's secret (its key file)
 * @job: the job's name, the same on every node of the job
 * @run: which run of the job (as for ew_kdf_job_secret())
 * @key: the key
 *
 * key = HKDF-SHA256(salt "eastwest-kdf-v1", IKM the run's secret
 *                   (ew_kdf_job_secret()),
 *                   info "eastwest v1 psn key" 0x00 || job name, L 16)
 *
 * A key of the name alone would come back with the name (a requeued job, a
 * job id handed out again): whoever ran under it before could have tabulated
 * the PSNs of the connections the next run makes.
 *
 * Return: 0, -EINVAL (as ew_kdf_job_secret()) or -EIO.
 */
int ew_kdf_psn(const struct ew_secret *cluster, const char *job,
	       const char *run, uint8_t key[EW_PSN_KEY_LEN])
{
	uint8_t info[sizeof(psn_label) + EASTWEST_JOB_NAME_MAX];
	size_t n, len = strnlen(job, EASTWEST_JOB_NAME_MAX - 1);
	struct ew_secret s;
	int ret;

	ret = ew_kdf_job_secret(cluster, job, run, &s);
	if (ret)
		return ret;
	n = put_label(info, psn_label);
	memcpy(info + n, job, len);
	n += len;
	ret = ew_hkdf_sha256(s.buf, s.len, (const uint8_t *)kdf_salt,
			     strlen(kdf_salt), info, n, key, EW_PSN_KEY_LEN);
	ew_secret_free(&s);
	return ret;
}

/**
 * ew_psn_key_check() - the check value of a PSN key, as the module reports it
 * @key: the key
 * @check: the low 32 bits of SipHash-2-4 under @key of the 22 bytes
 *	"eastwest psn key check" (the spec's psn-key-check)
 *
 * Tells whether a key derived again is the one a job had, without showing
 * either.
 *
 * Return: 0 or -EIO.
 */
int ew_psn_key_check(const uint8_t key[EW_PSN_KEY_LEN], uint32_t *check)
{
	size_t size = 8;
	OSSL_PARAM params[] = {
		OSSL_PARAM_size_t(OSSL_MAC_PARAM_SIZE, &size),
		OSSL_PARAM_END
	};
	uint8_t out[8];
	EVP_MAC_CTX *ctx = NULL;
	size_t out_len = 0;
	EVP_MAC *mac;
	int ret = -EIO;

	mac = EVP_MAC_fetch(NULL, "SIPHASH", NULL);
	if (mac)
		ctx = EVP_MAC_CTX_new(mac);
	EVP_MAC_free(mac);
	/* A 64-bit output (OpenSSL's default is 128); 2-4 rounds are its default. */
	if (ctx && EVP_MAC_init(ctx, key, EW_PSN_KEY_LEN, params) == 1 &&
	    EVP_MAC_update(ctx, (const unsigned char *)psn_check_msg,
			   sizeof(psn_check_msg) - 1) == 1 &&
	    EVP_MAC_final(ctx, out, &out_len, sizeof(out)) == 1 &&
	    out_len == sizeof(out)) {
		*check = (uint32_t)out[0] | (uint32_t)out[1] << 8 |
			 (uint32_t)out[2] << 16 | (uint32_t)out[3] << 24;
		ret = 0;
	}
	EVP_MAC_CTX_free(ctx);
	return ret;
}

/**
 * ew_run_ok() - is @run a run of a job as the orchestrators write it
 * @run: the text given
 *
 * 1 to EW_RUN_MAX of 0-9 A-Z a-z . _ : - : printable alike on every node
 * and in every shell, never a NUL inside the derivation's info.
 * Return: true if it is.
 */
bool ew_run_ok(const char *run)
{
	size_t len = strnlen(run, EW_RUN_MAX + 1);

	return len && len <= EW_RUN_MAX &&
	       strspn(run, "0123456789abcdefghijklmnopqrstuvwxyz"
		      "ABCDEFGHIJKLMNOPQRSTUVWXYZ._:-") == len;
}

/**
 * ew_kdf_job_secret() - the secret of one run of a job, the same on every
 *	node of the job
 * @cluster: the cluster's secret (its key file)
 * @job: the job's name, the same on every node (Slurm: "slurm-JOBID")
 * @run: which run of the job, the same on every node and never the same
 *	for two runs of one name (Slurm: the start time and restart count
 *	from the job's credential)
 * @out: the run's secret (free with ew_secret_free()), used in place of the
 *	cluster's for the job's ESP SAs: one job's keys tell nothing of
 *	another's, and no node has to ask another for them
 *
 * A job's name comes back: Slurm requeues a job under its id (its owner may
 * ask for it), and hands an id out again once its counter wraps or its
 * state is lost. Keys of the name alone would then start again from
 * sequence number 1: the earlier run's captured packets would replay into
 * the new one, and an ESP offload that takes its IVs from the sequence
 * number would repeat AES-GCM nonces. The run keeps every run's keys apart.
 *
 * secret = HKDF-SHA256(salt "eastwest-kdf-v1", IKM cluster secret,
 *                      info "eastwest v1 job run secret" 0x00 || job name
 *                           || 0x00 || run, L 32)
 *
 * Neither a name nor a run holds a NUL, so every pair has its own info.
 *
 * Return: 0, -EINVAL (no name or run, or one longer than its maximum) or
 * -EIO.
 */
int ew_kdf_job_secret(const struct ew_secret *cluster, const char *job,
		      const char *run, struct ew_secret *out)
{
	uint8_t info[sizeof(job_label) + EASTWEST_JOB_NAME_MAX + EW_RUN_MAX + 1];
	size_t n, len = strnlen(job, EASTWEST_JOB_NAME_MAX);
	size_t rlen = strnlen(run, EW_RUN_MAX + 1);
	int ret;

	memset(out, 0, sizeof(*out));
	if (!len || len >= EASTWEST_JOB_NAME_MAX || !rlen || rlen > EW_RUN_MAX)
		return -EINVAL;
	n = put_label(info, job_label);
	memcpy(info + n, job, len);
	n += len;
	info[n++] = 0;
	memcpy(info + n, run, rlen);
	n += rlen;
	out->buf = ew_calloc(1, EW_KEYFILE_MAX);
	mlock(out->buf, EW_KEYFILE_MAX);
	ret = ew_hkdf_sha256(cluster->buf, cluster->len, (const uint8_t *)kdf_salt,
			     strlen(kdf_salt), info, n, out->buf, EW_JOB_SECRET_LEN);
	if (ret) {
		ew_secret_free(out);
		return ret;
	}
	out->len = EW_JOB_SECRET_LEN;
	return 0;
}
