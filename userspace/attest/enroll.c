// SPDX-License-Identifier: GPL-2.0
/*
 * Enrollment on the verifier: MakeCredential in software, then the
 * inventory record once the node's TPM proved it holds EK and AK.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <tss2/tss2_mu.h>

#include "credential.h"
#include "enroll.h"
#include "enrollment.h"
#include "evidence.h"
#include "jsonfile.h"
#include "tpmcheck.h"

#define SECRET_LEN	32

/* The EK certificate must certify this very EK, and chain to @ca if given. */
static int check_ek_cert(const struct ew_buf *der, const TPM2B_PUBLIC *ek, const char *ca,
			 bool *verified, char *why, size_t whylen)
{
	const unsigned char *p = der->data;
	X509 *cert = d2i_X509(NULL, &p, (long)der->len);
	X509_STORE_CTX *ctx = NULL;
	X509_STORE *store = NULL;
	EVP_PKEY *want = NULL;
	int ret = -1;

	*verified = false;
	if (!cert || p != der->data + der->len) {
		snprintf(why, whylen, "ek_certificate is not a DER certificate");
		goto out;
	}
	want = ewa_public_to_pkey(ek, why, whylen);
	if (!want)
		goto out;
	if (EVP_PKEY_eq(X509_get0_pubkey(cert), want) != 1) {
		snprintf(why, whylen, "the EK certificate is for another key than ek_public");
		goto out;
	}
	if (ca) {
		store = X509_STORE_new();
		ctx = X509_STORE_CTX_new();
		if (!store || !ctx || X509_STORE_load_file(store, ca) != 1) {
			snprintf(why, whylen, "ek-ca %s: cannot load certificates", ca);
			goto out;
		}
		/* EK certificates carry TPM-specific critical extensions. */
		X509_STORE_set_flags(store, X509_V_FLAG_IGNORE_CRITICAL | X509_V_FLAG_PARTIAL_CHAIN);
		if (!X509_STORE_CTX_init(ctx, store, cert, NULL) || X509_verify_cert(ctx) != 1) {
			snprintf(why, whylen, "the EK certificate does not chain to %s: %s", ca,
				 X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
			goto out;
		}
		*verified = true;
	}
	ret = 0;
out:
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(store);
	EVP_PKEY_free(want);
	X509_free(cert);
	return ret;
}

static int load_public(struct json_object *o, const char *key, TPM2B_PUBLIC *pub,
		       struct ew_buf *raw, char *why, size_t whylen)
{
	if (ewa_json_b64(o, key, raw, why, whylen))
		return -1;
	if (ewa_unmarshal_public(raw->data, raw->len, pub)) {
		snprintf(why, whylen, "\"%s\" is not a TPM2B_PUBLIC", key);
		return -1;
	}
	return 0;
}

/* A node name becomes a file name: keep it to a safe alphabet. */
bool ewa_node_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 64 || s[0] == '.' || s[0] == '-')
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

int ewa_enroll_challenge(const struct ewa_vstate *s, const struct ewa_challenge_args *a)
{
	struct ew_buf ek_raw = { 0 }, ak_raw = { 0 }, cert = { 0 };
	struct json_object *o, *ch = NULL, *pending = NULL;
	uint8_t name[EWA_NAME_MAX], claimed[EWA_NAME_MAX], secret[SECRET_LEN];
	uint8_t secret_hash[EWA_SHA256_LEN], ek_hash[EWA_SHA256_LEN];
	TPM2B_ENCRYPTED_SECRET enc;
	size_t name_len, claimed_len, off;
	TPM2B_PUBLIC ek, ak;
	TPM2B_ID_OBJECT blob;
	uint8_t buf[sizeof(TPM2B_ID_OBJECT) + sizeof(TPM2B_ENCRYPTED_SECRET)];
	bool verified = false;
	const char *node;
	char why[512], hex[2 * EWA_NAME_MAX + 1], now[32], *path = NULL;
	int ret = -1;

	o = ewa_json_load(a->enrollment);
	if (!o)
		return -1;
	if (ewa_json_check_format(o, EWA_ENROLLMENT_FORMAT, EWA_ENROLL_VERSION, why, sizeof(why)) ||
	    load_public(o, "ek_public", &ek, &ek_raw, why, sizeof(why)) ||
	    load_public(o, "ak_public", &ak, &ak_raw, why, sizeof(why)) ||
	    ewa_json_hex(o, "ak_name", claimed, sizeof(claimed), &claimed_len, why, sizeof(why)) ||
	    ewa_check_ek_public(&ek, why, sizeof(why)) ||
	    ewa_check_ak_public(&ak, why, sizeof(why)))
		goto bad;
	if (ewa_public_name(&ak, name, &name_len) || name_len != claimed_len ||
	    memcmp(name, claimed, name_len)) {
		snprintf(why, sizeof(why), "ak_name is not the name of ak_public");
		goto bad;
	}
	if (ewa_json_str(o, "ek_certificate")) {
		if (ewa_json_b64(o, "ek_certificate", &cert, why, sizeof(why)) ||
		    check_ek_cert(&cert, &ek, a->ek_ca, &verified, why, sizeof(why)))
			goto bad;
	} else if (a->ek_ca) {
		snprintf(why, sizeof(why), "no EK certificate to check against %s", a->ek_ca);
		goto bad;
	}
	node = a->node ? a->node : ewa_json_str(o, "hostname");
	if (!node || !ewa_node_name_ok(node)) {
		snprintf(why, sizeof(why), "node name \"%s\": expected 1 to 64 of [A-Za-z0-9._-] "
			 "(give \"node NAME\")", node ? node : "");
		goto bad;
	}
	if (RAND_bytes(secret, sizeof(secret)) != 1 ||
	    ewa_make_credential(&ek, name, name_len, secret, sizeof(secret), &blob, &enc, why,
				sizeof(why)))
		goto bad;
	ewa_sha256(secret, sizeof(secret), secret_hash);
	OPENSSL_cleanse(secret, sizeof(secret));
	ewa_sha256(ek_raw.data, ek_raw.len, ek_hash);
	ewa_hex(name, name_len, hex);

	/* Pending until the node answers: what confirm will record. */
	pending = json_object_new_object();
	ewa_json_add_str(pending, "node", node);
	json_object_object_add(pending, "hostname",
			       ewa_json_str(o, "hostname") ?
			       json_object_new_string(ewa_json_str(o, "hostname")) : NULL);
	ewa_json_add_b64(pending, "ak_public", ak_raw.data, ak_raw.len);
	ewa_json_add_str(pending, "ak_name", hex);
	ewa_json_add_b64(pending, "ek_public", ek_raw.data, ek_raw.len);
	ewa_json_add_hex(pending, "ek_sha256", ek_hash, sizeof(ek_hash));
	json_object_object_add(pending, "ek_certificate_verified",
			       json_object_new_boolean(verified));
	ewa_json_add_hex(pending, "secret_sha256", secret_hash, sizeof(secret_hash));
	ewa_utc_now(now, sizeof(now));
	ewa_json_add_str(pending, "challenged_at", now);
	path = ewa_vstate_path(s, "pending", hex);
	if (ewa_json_save(pending, path, 0600))
		goto out;

	ch = json_object_new_object();
	ewa_json_add_str(ch, "format", EWA_CHALLENGE_FORMAT);
	json_object_object_add(ch, "version", json_object_new_int(EWA_ENROLL_VERSION));
	ewa_json_add_str(ch, "ak_name", hex);
	off = 0;
	Tss2_MU_TPM2B_ID_OBJECT_Marshal(&blob, buf, sizeof(buf), &off);
	ewa_json_add_b64(ch, "credential_blob", buf, off);
	off = 0;
	Tss2_MU_TPM2B_ENCRYPTED_SECRET_Marshal(&enc, buf, sizeof(buf), &off);
	ewa_json_add_b64(ch, "encrypted_secret", buf, off);
	ret = ewa_json_save(ch, a->out, 0644);
	goto out;
bad:
	ew_err("enroll challenge: %s: %s", a->enrollment, why);
out:
	free(path);
	json_object_put(ch);
	json_object_put(pending);
	json_object_put(o);
	ew_buf_free(&ek_raw);
	ew_buf_free(&ak_raw);
	ew_buf_free(&cert);
	return ret;
}

/*
 * Whether @node may be bound to AK @ak_hex and EK @ek_sha: a name that the
 * inventory binds to other keys is replaced only when the operator names it
 * (@replace), as the node may have reported another node's hostname; and
 * an AK or EK holds one name only, or verdicts earned under one name would
 * release the keys of the other. Re-binding the same keys is allowed.
 */
static int check_inventory(const struct ewa_vstate *s, const char *node, const char *ak_hex,
			   const char *ek_sha, const char *replace)
{
	char *dir = ewa_vstate_path(s, NULL, "nodes"), *path = NULL;
	struct json_object *o = NULL;
	const char *ak, *ek;
	struct dirent *de;
	DIR *d = NULL;
	size_t n;
	int ret = -1;

	path = ewa_vstate_path(s, "nodes", node);
	if (!access(path, F_OK) && !(replace && !strcmp(replace, node))) {
		o = ewa_json_load(path);
		ak = o ? ewa_json_str(o, "ak_name") : NULL;
		ek = o ? ewa_json_str(o, "ek_sha256") : NULL;
		if (!o || !ak || !ek) {
			ew_err("enroll confirm: node %s: %s is unreadable; to replace it, give "
			       "\"replace %s\"", node, path, node);
			goto out;
		}
		if (strcmp(ak, ak_hex) || strcmp(ek, ek_sha)) {
			ew_err("enroll confirm: node %s is already bound to AK %s (EK sha256 %s), "
			       "not to AK %s (EK sha256 %s); if that node really is replaced (new "
			       "TPM), give \"replace %s\"", node, ak, ek, ak_hex, ek_sha, node);
			goto out;
		}
		json_object_put(o);
		o = NULL;
	}
	d = opendir(dir);
	if (!d) {
		ew_err("enroll confirm: %s: %s", dir, strerror(errno));
		goto out;
	}
	while ((de = readdir(d))) {
		n = strlen(de->d_name);
		if (n <= 5 || strcmp(de->d_name + n - 5, ".json") ||
		    (n - 5 == strlen(node) && !strncmp(de->d_name, node, n - 5)))
			continue;
		free(path);
		path = ew_asprintf("%s/%s", dir, de->d_name);
		o = ewa_json_load(path);
		if (!o) {
			ew_err("enroll confirm: %s is unreadable: cannot tell whether it holds "
			       "this AK", path);
			goto out;
		}
		ak = ewa_json_str(o, "ak_name");
		ek = ewa_json_str(o, "ek_sha256");
		if ((ak && !strcmp(ak, ak_hex)) || (ek && !strcmp(ek, ek_sha))) {
			ew_err("enroll confirm: %s %s is already enrolled as node %.*s (%s); "
			       "one TPM, one name: to rename that node, remove its record first",
			       ak && !strcmp(ak, ak_hex) ? "AK" : "the EK of AK", ak_hex,
			       (int)(n - 5), de->d_name, path);
			goto out;
		}
		json_object_put(o);
		o = NULL;
	}
	ret = 0;
out:
	if (d)
		closedir(d);
	json_object_put(o);
	free(path);
	free(dir);
	return ret;
}

int ewa_enroll_confirm(const struct ewa_vstate *s, const char *response, const char *out,
		       const char *replace)
{
	uint8_t name[EWA_NAME_MAX], secret[64], got[EWA_SHA256_LEN], want[EWA_SHA256_LEN];
	struct json_object *r, *p = NULL, *rec = NULL;
	char why[256], hex[2 * EWA_NAME_MAX + 1], now[32], *ppath = NULL, *npath = NULL;
	size_t name_len, secret_len, want_len;
	const char *node, *ek_sha;
	int ret = -1, found;

	r = ewa_json_load(response);
	if (!r)
		return -1;
	if (ewa_json_check_format(r, EWA_ACTIVATION_FORMAT, EWA_ENROLL_VERSION, why, sizeof(why)) ||
	    ewa_json_hex(r, "ak_name", name, sizeof(name), &name_len, why, sizeof(why)) ||
	    ewa_json_hex(r, "secret", secret, sizeof(secret), &secret_len, why, sizeof(why))) {
		ew_err("enroll confirm: %s: %s", response, why);
		goto out;
	}
	ewa_hex(name, name_len, hex);
	ppath = ewa_vstate_path(s, "pending", hex);
	found = access(ppath, F_OK) == 0;
	p = found ? ewa_json_load(ppath) : NULL;
	if (!p) {
		if (!found)
			ew_err("enroll confirm: no challenge is pending for AK %s", hex);
		goto out;
	}
	ewa_sha256(secret, secret_len, got);
	if (ewa_json_hex(p, "secret_sha256", want, sizeof(want), &want_len, why, sizeof(why)) ||
	    want_len != sizeof(want) || CRYPTO_memcmp(got, want, sizeof(want))) {
		ew_err("enroll confirm: AK %s: wrong secret: the AK and the EK are not in "
		       "the same TPM", hex);
		goto out;
	}
	node = ewa_json_str(p, "node");
	ek_sha = ewa_json_str(p, "ek_sha256");
	if (!node || !ewa_node_name_ok(node) || !ek_sha) {
		ew_err("enroll confirm: %s is not a pending enrollment", ppath);
		goto out;
	}
	if (replace && strcmp(replace, node)) {
		ew_err("enroll confirm: replace %s: this response is for node %s", replace, node);
		goto out;
	}
	if (check_inventory(s, node, hex, ek_sha, replace))
		goto out;
	rec = json_object_new_object();
	ewa_json_add_str(rec, "format", EWA_NODE_FORMAT);
	json_object_object_add(rec, "version", json_object_new_int(EWA_ENROLL_VERSION));
	json_object_object_foreach(p, key, val) {
		if (strcmp(key, "secret_sha256"))
			json_object_object_add(rec, key, json_object_get(val));
	}
	ewa_json_add_str(rec, "bound_by", EWA_BOUND_BY);
	ewa_utc_now(now, sizeof(now));
	ewa_json_add_str(rec, "bound_at", now);
	npath = ewa_vstate_path(s, "nodes", node);
	if (ewa_json_save(rec, npath, 0600) || (out && ewa_json_save(rec, out, 0644)))
		goto out;
	unlink(ppath);
	if (!ew_quiet)
		printf("bound node %s ak %s\n", node, hex);
	ret = 0;
out:
	free(ppath);
	free(npath);
	json_object_put(rec);
	json_object_put(p);
	json_object_put(r);
	return ret;
}

int ewa_node_record_load(const char *path, TPM2B_PUBLIC *ak, char **node, char **hostname,
			 char *why, size_t whylen)
{
	struct json_object *o;
	struct ew_buf raw = { 0 };
	struct ew_buf file = { 0 };
	const char *s;
	int ret = -1, err;

	*node = *hostname = NULL;
	err = ewa_read_file(path, &file);
	if (err) {
		snprintf(why, whylen, "%s: %s", path, strerror(-err));
		return -1;
	}
	o = ewa_json_parse((const char *)file.data, file.len, why, whylen);
	ew_buf_free(&file);
	if (!o)
		return -1;
	if (ewa_json_check_format(o, EWA_NODE_FORMAT, EWA_ENROLL_VERSION, why, whylen)) {
		snprintf(why, whylen, "%s is not a bound node record (run \"enroll challenge\" "
			 "and \"enroll confirm\")", path);
		goto out;
	}
	s = ewa_json_str(o, "bound_by");
	if (!s || strcmp(s, EWA_BOUND_BY)) {
		snprintf(why, whylen, "%s: the AK was not bound by credential activation", path);
		goto out;
	}
	if (load_public(o, "ak_public", ak, &raw, why, whylen))
		goto out;
	s = ewa_json_str(o, "node");
	*node = ew_strdup(s ? s : "");
	s = ewa_json_str(o, "hostname");
	*hostname = s ? ew_strdup(s) : NULL;
	ret = 0;
out:
	ew_buf_free(&raw);
	json_object_put(o);
	return ret;
}

int ewa_node_record_ek(const char *path, TPM2B_PUBLIC *ek, char *why, size_t whylen)
{
	struct ew_buf raw = { 0 };
	struct json_object *o;
	int ret;

	o = ewa_json_load(path);
	if (!o) {
		snprintf(why, whylen, "%s", ew_last_error());
		return -1;
	}
	ret = load_public(o, "ek_public", ek, &raw, why, whylen);
	if (!ret)
		ret = ewa_check_ek_public(ek, why, whylen);
	ew_buf_free(&raw);
	json_object_put(o);
	return ret;
}
