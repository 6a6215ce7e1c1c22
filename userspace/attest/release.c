// SPDX-License-Identifier: GPL-2.0
/*
 * eastwest-verifier release: a key file, wrapped to an admitted node's TPM
 * (release.h, keyrel.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <tss2/tss2_mu.h>

#include "credential.h"
#include "enroll.h"
#include "keyrel.h"
#include "release.h"
#include "tpmcheck.h"

static int refuse(struct ewa_release_result *r, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(struct ewa_release_result *r, const char *reason, const char *fmt, ...)
{
	va_list ap;

	r->released = false;
	r->reason = reason;
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	va_end(ap);
	return 1;
}

/* The key file's bytes, if only its owner can read it. */
static int read_key(const char *path, uint8_t *buf, size_t *len, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	ssize_t n;

	if (fd < 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s: not a regular file", path);
		goto bad;
	}
	if (st.st_mode & 077) {
		snprintf(why, whylen, "%s: mode %04o is too open (want 0600 or stricter)", path,
			 (unsigned int)(st.st_mode & 07777));
		goto bad;
	}
	if (st.st_size <= 0 || st.st_size > EWA_KEYREL_KEY_MAX) {
		snprintf(why, whylen, "%s: %lld bytes (1 to %d)", path, (long long)st.st_size,
			 EWA_KEYREL_KEY_MAX);
		goto bad;
	}
	*len = 0;
	while (*len < (size_t)st.st_size) {
		n = read(fd, buf + *len, (size_t)st.st_size - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(why, whylen, "%s: %s", path, n ? strerror(errno) : "short read");
			goto bad;
		}
		*len += (size_t)n;
	}
	close(fd);
	return 0;
bad:
	close(fd);
	return -1;
}

int ewa_release_key(const struct ewa_vstate *s, const struct ewa_release_args *a,
		    struct ewa_release_result *r)
{
	uint8_t name[EWA_NAME_MAX], kek[EWA_KEYREL_KEK_LEN], key[EWA_KEYREL_KEY_MAX];
	uint8_t buf[sizeof(TPM2B_ID_OBJECT) + sizeof(TPM2B_ENCRYPTED_SECRET)];
	struct ewa_keyrel rel = { 0 };
	struct ewa_verdict_rec vr;
	struct ewa_revoked_rec rv;
	TPM2B_ENCRYPTED_SECRET enc;
	TPM2B_PUBLIC ak, ek;
	TPM2B_ID_OBJECT blob;
	char why[512], *hostname = NULL;
	size_t name_len, key_len = 0, off;
	time_t now = time(NULL);
	int found, ret;

	memset(r, 0, sizeof(*r));
	if (ewa_node_record_load(a->enrollment, &ak, &r->node, &hostname, why, sizeof(why)))
		return refuse(r, "not-bound", "%s", why);
	free(hostname);
	if (ewa_node_record_ek(a->enrollment, &ek, why, sizeof(why)))
		return refuse(r, "not-bound", "%s: EK: %s", a->enrollment, why);
	if (ewa_public_name(&ak, name, &name_len))
		return refuse(r, "not-bound", "%s: the AK has no SHA-256 name", a->enrollment);
	r->ak_name = ewa_hex_dup(name, name_len);

	/*
	 * The revocation first: it holds whatever verdict followed it, so that
	 * a stale or forged admit in verdicts/ cannot outlast the operator.
	 */
	found = ewa_vstate_get_revoked(s, r->ak_name, &rv);
	if (found < 0)
		return refuse(r, "state-error", "%s", ew_last_error());
	if (found)
		return refuse(r, "denied", "node %s was revoked by the operator at %s (%s); "
			      "\"eastwest-verifier unrevoke\" lifts it", r->node, rv.at_utc,
			      rv.reason);

	found = ewa_vstate_get_verdict(s, r->ak_name, &vr);
	if (found < 0)
		return refuse(r, "state-error", "%s", ew_last_error());
	if (found == 0)
		return refuse(r, "not-admitted", "no verdict for node %s (AK %s): attest it first",
			      r->node, r->ak_name);
	if (!vr.admit)
		return refuse(r, "denied", "the last verdict for node %s, at %s, was deny (%s)",
			      r->node, vr.at_utc, vr.reasons[0] ? vr.reasons : "no reason recorded");
	if ((uint64_t)now < vr.at)
		return refuse(r, "stale", "the admit verdict of node %s is dated %s, in the future",
			      r->node, vr.at_utc);
	r->verdict_age = (uint64_t)now - vr.at;
	if (r->verdict_age > a->max_age)
		return refuse(r, "stale", "the admit verdict of node %s is %llu s old (%s), "
			      "max-age %llu s: attest it again", r->node,
			      (unsigned long long)r->verdict_age, vr.at_utc,
			      (unsigned long long)a->max_age);

	if (read_key(a->key, key, &key_len, why, sizeof(why)))
		return refuse(r, "key-invalid", "%s", why);
	r->key_len = key_len;
	ret = refuse(r, "wrap-failed", "no randomness");
	if (RAND_bytes(kek, sizeof(kek)) != 1)
		goto out;
	if (ewa_make_credential(&ek, name, name_len, kek, sizeof(kek), &blob, &enc, why,
				sizeof(why))) {
		ret = refuse(r, "wrap-failed", "MakeCredential: %s", why);
		goto out;
	}
	memcpy(rel.ak_name, name, name_len);
	rel.ak_name_len = name_len;
	rel.node = r->node;
	ewa_utc_now(rel.released_at, sizeof(rel.released_at));
	snprintf(rel.verdict_at, sizeof(rel.verdict_at), "%s", vr.at_utc);
	off = 0;
	Tss2_MU_TPM2B_ID_OBJECT_Marshal(&blob, buf, sizeof(buf), &off);
	ew_buf_add(&rel.credential_blob, buf, off);
	off = 0;
	Tss2_MU_TPM2B_ENCRYPTED_SECRET_Marshal(&enc, buf, sizeof(buf), &off);
	ew_buf_add(&rel.encrypted_secret, buf, off);
	if (ewa_keyrel_seal(kek, key, key_len, &rel)) {
		ret = refuse(r, "wrap-failed", "AES-256-GCM failed");
		goto out;
	}
	if (ewa_keyrel_save(&rel, a->out)) {
		ret = refuse(r, "wrap-failed", "%s", ew_last_error());
		goto out;
	}
	r->released = true;
	r->reason = NULL;
	r->detail[0] = '\0';
	ret = 0;
out:
	rel.node = NULL;	/* r->node's */
	ewa_keyrel_free(&rel);
	OPENSSL_cleanse(kek, sizeof(kek));
	OPENSSL_cleanse(key, sizeof(key));
	OPENSSL_cleanse(&blob, sizeof(blob));
	return ret;
}

void ewa_release_result_free(struct ewa_release_result *r)
{
	free(r->node);
	free(r->ak_name);
	memset(r, 0, sizeof(*r));
}

/* The hex name of the AK of the node record @enrollment, and its node. */
static int record_ak(const char *cmd, const char *enrollment, char **ak_hex, char **node)
{
	uint8_t name[EWA_NAME_MAX];
	char why[512], *hostname = NULL;
	TPM2B_PUBLIC ak;
	size_t len;

	*ak_hex = *node = NULL;
	if (ewa_node_record_load(enrollment, &ak, node, &hostname, why, sizeof(why))) {
		ew_err("%s: %s", cmd, why);
		return -1;
	}
	free(hostname);
	if (ewa_public_name(&ak, name, &len)) {
		ew_err("%s: %s: the AK has no SHA-256 name", cmd, enrollment);
		return -1;
	}
	*ak_hex = ewa_hex_dup(name, len);
	return 0;
}

int ewa_revoke_node(const struct ewa_vstate *s, const char *enrollment, const char *why_opt,
		    char **ak_hex, char **node)
{
	char *reason;
	int ret;

	if (record_ak("revoke", enrollment, ak_hex, node))
		return -1;
	reason = why_opt ? ew_asprintf("operator-revoked: %s", why_opt) :
			   ew_strdup("operator-revoked");
	/*
	 * The revocation itself, which every later verification reads, and a
	 * deny in place of the last verdict for what reads only verdicts.
	 */
	ret = ewa_vstate_put_revoked(s, *ak_hex, *node, reason) ||
	      ewa_vstate_put_verdict(s, *ak_hex, *node, false, reason);
	free(reason);
	return ret ? -1 : 0;
}

int ewa_unrevoke_node(const struct ewa_vstate *s, const char *enrollment, char **ak_hex,
		      char **node)
{
	int ret;

	if (record_ak("unrevoke", enrollment, ak_hex, node))
		return -1;
	ret = ewa_vstate_del_revoked(s, *ak_hex);
	if (ret == 0)
		ew_err("unrevoke: node %s (AK %s) is not revoked", *node, *ak_hex);
	return ret == 1 ? 0 : -1;
}
