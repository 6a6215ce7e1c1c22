// SPDX-License-Identifier: GPL-2.0
/*
 * Golden manifests: parse, Ed25519 sign and verify, key generation, and
 * capture from a reference node's evidence.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/pem.h>

#include "eventlog.h"
#include "evidence.h"
#include "imalog.h"
#include "jsonfile.h"
#include "manifest.h"
#include "report.h"

static int cmp_digest(const void *a, const void *b)
{
	return memcmp(a, b, EWA_SHA256_LEN);
}

static int parse_digest(struct json_object *v, uint8_t out[EWA_SHA256_LEN])
{
	size_t len;

	return !json_object_is_type(v, json_type_string) ||
	       ew_unhex(json_object_get_string(v), out, EWA_SHA256_LEN, &len) ||
	       len != EWA_SHA256_LEN ? -1 : 0;
}

static int parse_require(struct json_object *r, struct ewa_manifest *m, char *why,
			 size_t whylen)
{
	static const char *const keys[] = { "ima", "uefi_event_log", "secure_boot" };
	bool *flags[] = { &m->require_ima, &m->require_uefi_log, &m->require_secure_boot };
	struct json_object *v;
	size_t i;

	for (i = 0; i < 3; i++) {
		if (!json_object_object_get_ex(r, keys[i], &v))
			continue;
		if (!json_object_is_type(v, json_type_boolean)) {
			snprintf(why, whylen, "require.%s is not a boolean", keys[i]);
			return -1;
		}
		*flags[i] = json_object_get_boolean(v);
	}
	if (json_object_object_get_ex(r, "pcrs", &v)) {
		if (!json_object_is_type(v, json_type_array)) {
			snprintf(why, whylen, "require.pcrs is not an array");
			return -1;
		}
		for (i = 0; i < json_object_array_length(v); i++) {
			struct json_object *p = json_object_array_get_idx(v, i);
			int64_t n = json_object_get_int64(p);

			if (!json_object_is_type(p, json_type_int) || n < 0 || n > 23) {
				snprintf(why, whylen, "require.pcrs[%zu] is not a PCR 0-23", i);
				return -1;
			}
			m->require_pcrs |= 1U << n;
		}
	}
	return 0;
}

int ewa_manifest_parse(const char *text, size_t len, struct ewa_manifest *m,
		       char *why, size_t whylen)
{
	struct json_object *o, *v;
	size_t i, n;
	int ret = -1;

	memset(m, 0, sizeof(*m));
	o = ewa_json_parse(text, len, why, whylen);
	if (!o)
		return -1;
	if (ewa_json_check_format(o, EWA_MANIFEST_FORMAT, EWA_MANIFEST_VERSION, why, whylen) ||
	    ewa_json_u64(o, "serial", &m->serial, why, whylen))
		goto out;
	/* Everything is required unless the manifest says otherwise. */
	m->require_ima = m->require_uefi_log = m->require_secure_boot = true;
	if (json_object_object_get_ex(o, "require", &v) && parse_require(v, m, why, whylen))
		goto out;
	if (json_object_object_get_ex(o, "kernels", &v) && json_object_is_type(v, json_type_array)) {
		n = json_object_array_length(v);
		m->kernels = ew_calloc(n, sizeof(*m->kernels));
		for (i = 0; i < n; i++) {
			struct json_object *k = json_object_array_get_idx(v, i);

			if (!json_object_is_type(k, json_type_string)) {
				snprintf(why, whylen, "kernels[%zu] is not a string", i);
				goto out;
			}
			m->kernels[m->n_kernels++] = ew_strdup(json_object_get_string(k));
		}
	}
	if (json_object_object_get_ex(o, "modules", &v) && json_object_is_type(v, json_type_array)) {
		n = json_object_array_length(v);
		m->modules = ew_calloc(n, sizeof(*m->modules));
		for (i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(v, i), *h;
			const char *name = ewa_json_str(e, "name");

			if (!json_object_object_get_ex(e, "sha256", &h) ||
			    parse_digest(h, m->modules[i].sha256)) {
				snprintf(why, whylen, "modules[%zu].sha256 is not 32 bytes of hex", i);
				goto out;
			}
			m->modules[i].name = ew_strdup(name ? name : "");
			m->n_modules++;
		}
		/* sha256 is the first member: sorting by it sorts by digest. */
		qsort(m->modules, m->n_modules, sizeof(*m->modules), cmp_digest);
	}
	if (json_object_object_get_ex(o, "boot_digests", &v) &&
	    json_object_is_type(v, json_type_array)) {
		n = json_object_array_length(v);
		m->boot_digests = ew_calloc(n, sizeof(*m->boot_digests));
		for (i = 0; i < n; i++) {
			if (parse_digest(json_object_array_get_idx(v, i), m->boot_digests[i])) {
				snprintf(why, whylen, "boot_digests[%zu] is not 32 bytes of hex", i);
				goto out;
			}
			m->n_boot_digests++;
		}
		qsort(m->boot_digests, m->n_boot_digests, EWA_SHA256_LEN, cmp_digest);
	}
	if (json_object_object_get_ex(o, "secure_boot_db", &v)) {
		if (!json_object_is_type(v, json_type_array)) {
			snprintf(why, whylen, "secure_boot_db is not an array");
			goto out;
		}
		n = json_object_array_length(v);
		m->db_certs = ew_calloc(n, sizeof(*m->db_certs));
		for (i = 0; i < n; i++) {
			if (parse_digest(json_object_array_get_idx(v, i), m->db_certs[i])) {
				snprintf(why, whylen, "secure_boot_db[%zu] is not 32 bytes of hex", i);
				goto out;
			}
			m->n_db_certs++;
		}
	}
	if (json_object_object_get_ex(o, "pcrs", &v) && json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, key, val) {
			char *end;
			unsigned long pcr = strtoul(key, &end, 10);

			if (*end || end == key || pcr > 23 || parse_digest(val, m->golden[pcr])) {
				snprintf(why, whylen, "pcrs.%s: expected PCR 0-23 and 32 bytes of hex",
					 key);
				goto out;
			}
			m->golden_pcrs |= 1U << pcr;
		}
	}
	ret = 0;
out:
	json_object_put(o);
	if (ret)
		ewa_manifest_free(m);
	return ret;
}

void ewa_manifest_free(struct ewa_manifest *m)
{
	size_t i;

	for (i = 0; i < m->n_kernels; i++)
		free(m->kernels[i]);
	free(m->kernels);
	for (i = 0; i < m->n_modules; i++)
		free(m->modules[i].name);
	free(m->modules);
	free(m->boot_digests);
	free(m->db_certs);
	memset(m, 0, sizeof(*m));
}

const struct ewa_golden_module *ewa_manifest_module(const struct ewa_manifest *m,
						     const uint8_t sha256[EWA_SHA256_LEN])
{
	/* bsearch() must not see a NULL array, even when empty. */
	return m->n_modules ? bsearch(sha256, m->modules, m->n_modules, sizeof(*m->modules),
				      cmp_digest) : NULL;
}

bool ewa_manifest_boot_digest(const struct ewa_manifest *m, const uint8_t sha256[EWA_SHA256_LEN])
{
	return m->n_boot_digests && bsearch(sha256, m->boot_digests, m->n_boot_digests,
					    EWA_SHA256_LEN, cmp_digest) != NULL;
}

bool ewa_manifest_kernel(const struct ewa_manifest *m, const char *release)
{
	size_t i;

	for (i = 0; release && i < m->n_kernels; i++)
		if (!strcmp(m->kernels[i], release))
			return true;
	return false;
}

static EVP_PKEY *load_key(const char *path, bool private, char *why, size_t whylen)
{
	FILE *f = fopen(path, "re");
	EVP_PKEY *k;

	if (!f) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	k = private ? PEM_read_PrivateKey(f, NULL, NULL, NULL) :
		      PEM_read_PUBKEY(f, NULL, NULL, NULL);
	fclose(f);
	if (k && EVP_PKEY_get_id(k) != EVP_PKEY_ED25519) {
		EVP_PKEY_free(k);
		k = NULL;
	}
	if (!k)
		snprintf(why, whylen, "%s: not an Ed25519 %s key (PEM)", path,
			 private ? "private" : "public");
	return k;
}

static void key_id(EVP_PKEY *k, uint8_t out[EWA_SHA256_LEN])
{
	unsigned char *der = NULL;
	int n = i2d_PUBKEY(k, &der);

	ewa_sha256(der, n > 0 ? (size_t)n : 0, out);
	OPENSSL_free(der);
}

enum ewa_manifest_error ewa_manifest_load(const char *signed_path, const char *pubkey_path,
					  struct ewa_manifest *m, char *why, size_t whylen)
{
	struct ew_buf body = { 0 }, sig = { 0 };
	enum ewa_manifest_error ret = EWA_MANIFEST_UNREADABLE;
	struct json_object *o = NULL;
	EVP_MD_CTX *ctx = NULL;
	struct ew_buf file = { 0 };
	EVP_PKEY *pub;
	char inner[256];
	int err;

	memset(m, 0, sizeof(*m));
	pub = load_key(pubkey_path, false, why, whylen);
	if (!pub)
		return EWA_MANIFEST_UNREADABLE;
	err = ewa_read_file(signed_path, &file);
	if (err) {
		snprintf(why, whylen, "%s: %s", signed_path, strerror(-err));
		goto out;
	}
	ret = EWA_MANIFEST_BAD_SIGNATURE;
	o = ewa_json_parse((const char *)file.data, file.len, inner, sizeof(inner));
	if (!o || ewa_json_check_format(o, EWA_SIGNED_FORMAT, EWA_MANIFEST_VERSION, inner,
					sizeof(inner)) ||
	    ewa_json_b64(o, "manifest", &body, inner, sizeof(inner)) ||
	    ewa_json_b64(o, "signature", &sig, inner, sizeof(inner))) {
		snprintf(why, whylen, "%s: %s", signed_path, inner);
		goto out;
	}
	ctx = EVP_MD_CTX_new();
	if (!ctx || EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, pub) <= 0 ||
	    EVP_DigestVerify(ctx, sig.data, sig.len, body.data, body.len) != 1) {
		snprintf(why, whylen, "%s: the signature does not verify with %s", signed_path,
			 pubkey_path);
		goto out;
	}
	ret = EWA_MANIFEST_INVALID;
	if (ewa_manifest_parse((const char *)body.data, body.len, m, inner, sizeof(inner))) {
		snprintf(why, whylen, "%s: %s", signed_path, inner);
		goto out;
	}
	ret = EWA_MANIFEST_OK;
out:
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(pub);
	json_object_put(o);
	ew_buf_free(&file);
	ew_buf_free(&body);
	ew_buf_free(&sig);
	return ret;
}

struct pem {
	EVP_PKEY *k;
	bool private;
};

static int pem_fill(FILE *f, const void *arg)
{
	const struct pem *p = arg;
	int ok;

	ok = p->private ? PEM_write_PrivateKey(f, p->k, NULL, NULL, 0, NULL, NULL) :
			  PEM_write_PUBKEY(f, p->k);
	return !ok;
}

/* The private key is 0600 from its creation (ew_write_atomic()). */
static int write_pem(const char *path, EVP_PKEY *k, bool private)
{
	const struct pem p = { k, private };

	if (ew_write_atomic(path, private ? 0600 : 0644, pem_fill, &p, NULL)) {
		ew_err("%s: cannot write the key", path);
		return -1;
	}
	return 0;
}

int ewa_manifest_keygen(const char *key_path, const char *pub_path)
{
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	int ret;

	if (!k) {
		ew_err("manifest keygen: Ed25519 key generation failed");
		return -1;
	}
	if (!access(key_path, F_OK)) {
		ew_err("manifest keygen: %s exists (not overwriting a signing key)", key_path);
		EVP_PKEY_free(k);
		return -1;
	}
	ret = write_pem(key_path, k, true) || write_pem(pub_path, k, false) ? -1 : 0;
	EVP_PKEY_free(k);
	return ret;
}

int ewa_manifest_sign(const char *in, const char *key_path, const char *out)
{
	struct ew_buf body = { 0 };
	struct json_object *o = NULL;
	uint8_t sig[64], kid[EWA_SHA256_LEN];
	size_t siglen = sizeof(sig);
	struct ewa_manifest m;
	EVP_MD_CTX *ctx = NULL;
	EVP_PKEY *key;
	char why[256];
	int ret = -1, err;

	key = load_key(key_path, true, why, sizeof(why));
	if (!key) {
		ew_err("manifest sign: %s", why);
		return -1;
	}
	err = ewa_read_file(in, &body);
	if (err) {
		ew_err("manifest sign: %s: %s", in, strerror(-err));
		goto out;
	}
	/* Never sign what the verifier would refuse to read. */
	if (ewa_manifest_parse((const char *)body.data, body.len, &m, why, sizeof(why))) {
		ew_err("manifest sign: %s: %s", in, why);
		goto out;
	}
	ewa_manifest_free(&m);
	ctx = EVP_MD_CTX_new();
	if (!ctx || EVP_DigestSignInit(ctx, NULL, NULL, NULL, key) <= 0 ||
	    EVP_DigestSign(ctx, sig, &siglen, body.data, body.len) <= 0) {
		ew_err("manifest sign: Ed25519 signing failed");
		goto out;
	}
	key_id(key, kid);
	o = json_object_new_object();
	ewa_json_add_str(o, "format", EWA_SIGNED_FORMAT);
	json_object_object_add(o, "version", json_object_new_int(EWA_MANIFEST_VERSION));
	ewa_json_add_hex(o, "key_sha256", kid, sizeof(kid));
	ewa_json_add_b64(o, "manifest", body.data, body.len);
	ewa_json_add_b64(o, "signature", sig, siglen);
	ret = ewa_json_save(o, out, 0644);
out:
	json_object_put(o);
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(key);
	ew_buf_free(&body);
	return ret;
}

/* Adds @digest once. */
static void add_digest(struct json_object *a, const uint8_t *digest, const char *name)
{
	char hex[2 * EWA_SHA256_LEN + 1];
	size_t i;

	ewa_hex(digest, EWA_SHA256_LEN, hex);
	for (i = 0; i < json_object_array_length(a); i++) {
		struct json_object *e = json_object_array_get_idx(a, i);
		const char *h = name ? ewa_json_str(e, "sha256") : json_object_get_string(e);

		if (h && !strcmp(h, hex))
			return;
	}
	if (name) {
		struct json_object *e = json_object_new_object();

		ewa_json_add_str(e, "name", name);
		ewa_json_add_str(e, "sha256", hex);
		json_object_array_add(a, e);
	} else {
		json_object_array_add(a, json_object_new_string(hex));
	}
}

/* "ib_core" from "/lib/modules/.../ib_core.ko" */
static void base_name(const char *path, char *out, size_t len)
{
	const char *b = strrchr(path, '/'), *base = b ? b + 1 : path;
	size_t n = strnlen(base, len - 1);

	memcpy(out, base, n);
	out[n] = '\0';
	out[strcspn(out, ".")] = '\0';
}

int ewa_manifest_from_node(const char *evidence_path, uint64_t serial, const char *out)
{
	struct json_object *o = json_object_new_object(), *req, *mods, *boot, *kern, *pcrs;
	struct ewa_evidence ev = { 0 };
	struct ewa_uefi_log ulog = { 0 };
	struct ewa_ima_log ilog = { 0 };
	enum ewa_secure_boot sb = EWA_SB_UNKNOWN;
	struct ew_buf file = { 0 };
	struct ewa_report r = { 0 };
	char why[256], now[32], name[256], *comment;
	int ret = -1, err;
	size_t i;

	err = ewa_read_file(evidence_path, &file);
	if (err) {
		ew_err("manifest from-node: %s: %s", evidence_path, strerror(-err));
		goto out;
	}
	if (ewa_evidence_parse((const char *)file.data, file.len, &ev, why, sizeof(why)) ||
	    ewa_report_parse(ev.report.data, ev.report.len, &r, why, sizeof(why))) {
		ew_err("manifest from-node: %s: %s", evidence_path, why);
		goto out;
	}
	if (!ev.tpm) {
		ew_err("manifest from-node: %s: the reference node has no TPM (%s)",
		       evidence_path, ev.no_tpm_reason);
		goto out;
	}
	if (ev.has_ima_log && ewa_ima_parse(ev.ima_log.data, ev.ima_log.len, &ilog, why,
					    sizeof(why))) {
		ew_err("manifest from-node: %s: IMA log: %s", evidence_path, why);
		goto out;
	}
	if (ev.has_uefi_log && (ewa_uefi_parse(ev.uefi_log.data, ev.uefi_log.len, &ulog, why,
					       sizeof(why)) ||
				ewa_uefi_secure_boot(&ulog, &sb, why, sizeof(why)))) {
		ew_err("manifest from-node: %s: UEFI event log: %s", evidence_path, why);
		goto out;
	}
	ewa_json_add_str(o, "format", EWA_MANIFEST_FORMAT);
	json_object_object_add(o, "version", json_object_new_int(EWA_MANIFEST_VERSION));
	json_object_object_add(o, "serial", json_object_new_uint64(serial));
	ewa_utc_now(now, sizeof(now));
	ewa_json_add_str(o, "created", now);
	comment = ew_asprintf("captured from %s (%s); review before signing",
			      r.hostname ? r.hostname : "?", evidence_path);
	ewa_json_add_str(o, "comment", comment);
	free(comment);
	req = json_object_new_object();
	json_object_object_add(req, "ima", json_object_new_boolean(ev.has_ima_log));
	json_object_object_add(req, "uefi_event_log", json_object_new_boolean(ev.has_uefi_log));
	json_object_object_add(req, "secure_boot", json_object_new_boolean(sb == EWA_SB_ON));
	pcrs = json_object_new_array();
	if (ev.pcr_selection.len >= 10) {
		/* TPML_PCR_SELECTION: count, hash, sizeofSelect, 3 bytes of bits */
		uint32_t mask = (uint32_t)ev.pcr_selection.data[7] |
				(uint32_t)ev.pcr_selection.data[8] << 8 |
				(uint32_t)ev.pcr_selection.data[9] << 16;

		for (i = 0; i < 24; i++)
			if (mask & (1U << i))
				json_object_array_add(pcrs, json_object_new_int((int)i));
	}
	json_object_object_add(req, "pcrs", pcrs);
	json_object_object_add(o, "require", req);
	kern = json_object_new_array();
	if (r.kernel_release)
		json_object_array_add(kern, json_object_new_string(r.kernel_release));
	json_object_object_add(o, "kernels", kern);
	mods = json_object_new_array();
	for (i = 0; i < r.n_modules; i++)
		if (r.modules[i].hashed)
			add_digest(mods, r.modules[i].sha256, r.modules[i].name);
	/* Every entry the verifier judges (verify.c), whatever its path. */
	for (i = 0; i < ilog.n; i++) {
		const struct ewa_ima_entry *e = &ilog.v[i];
		enum ewa_ima_kind kind = ewa_ima_kind(&ilog, i);

		if (kind == EWA_IMA_VIOLATION || kind == EWA_IMA_BOOT_AGGREGATE)
			continue;
		if (strcmp(e->hash_algo, "sha256") || e->file_digest_len != EWA_SHA256_LEN) {
			ew_warn("manifest from-node: IMA entry %zu (%s) is measured with %s, not "
				"listed: the verifier denies it (boot with ima_hash=sha256)",
				i + 1, e->path, e->hash_algo);
			continue;
		}
		if (kind == EWA_IMA_BUFFER ||
		    (kind == EWA_IMA_FILE && !ewa_is_module_path(e->path)))
			ew_warn("manifest from-node: IMA entry %zu (%s) does not look like a "
				"module load: is the reference node's IMA policy modules-only?",
				i + 1, e->path);
		base_name(e->path, name, sizeof(name));
		add_digest(mods, e->file_digest, name);
	}
	json_object_object_add(o, "modules", mods);
	boot = json_object_new_array();
	for (i = 0; i < ulog.n; i++)
		if (ulog.v[i].pcr == 4 && ulog.v[i].type == EWA_EV_EFI_BOOT_SERVICES_APPLICATION)
			add_digest(boot, ulog.v[i].sha256, NULL);
	json_object_object_add(o, "boot_digests", boot);
	/* The reference's db: every certificate it holds, as the expected db. */
	if (ev.has_uefi_log) {
		uint8_t (*certs)[EWA_SHA256_LEN] = NULL;
		struct json_object *db;
		size_t n_certs = 0;
		bool have_db;

		if (ewa_uefi_db_certs(&ulog, &have_db, &certs, &n_certs, why, sizeof(why))) {
			ew_err("manifest from-node: %s: UEFI event log: %s", evidence_path, why);
			goto out;
		}
		if (have_db) {
			db = json_object_new_array();
			for (i = 0; i < n_certs; i++)
				add_digest(db, certs[i], NULL);
			json_object_object_add(o, "secure_boot_db", db);
		}
		free(certs);
	}
	ret = ewa_json_save(o, out, 0644);
out:
	json_object_put(o);
	ewa_uefi_free(&ulog);
	ewa_ima_free(&ilog);
	ewa_report_free(&r);
	ewa_evidence_free(&ev);
	ew_buf_free(&file);
	return ret;
}
