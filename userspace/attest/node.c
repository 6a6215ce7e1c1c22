// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl attest: the node side of attestation.
 *
 *   attest enroll [out FILE] [tcti SPEC]
 *   attest activate challenge FILE [out FILE] [tcti SPEC]
 *   attest quote nonce HEX out FILE [pcrs LIST] [tcti SPEC]
 *                [ima-log FILE|none] [event-log FILE|none] [root DIR]
 *   attest handles [tcti SPEC]
 *   attest unwrap in FILE out FILE [tcti SPEC]
 *   attest watch ... (watch.c)
 *
 * Arguments are parsed in full before the TPM is opened.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <tss2/tss2_mu.h>

#include "../ewctl.h"
#include "attest.h"
#include "enrollment.h"
#include "evidence.h"
#include "jsonfile.h"
#include "keyrel.h"
#include "nodeside.h"
#include "report.h"
#include "tpm.h"

void attest_usage(FILE *f)
{
	fprintf(f,
		"Usage: eastwestctl attest enroll [out FILE] [tcti SPEC]\n"
		"       eastwestctl attest activate challenge FILE [out FILE] [tcti SPEC]\n"
		"       eastwestctl attest quote nonce HEX out FILE [pcrs LIST] [tcti SPEC]\n"
		"                   [ima-log FILE|none] [event-log FILE|none] [root DIR]\n"
		"       eastwestctl attest handles [tcti SPEC]\n"
		"       eastwestctl attest unwrap in FILE out FILE [tcti SPEC]\n"
		"       eastwestctl attest watch [interval SEC] [timeout SEC] [rounds N]\n"
		"                   [apply kernel|none] [pcrs LIST] [tcti SPEC]\n"
		"                   [verifier COMMAND [ARG...]]\n"
		"SPEC := { device:/dev/tpmrm0 | swtpm:host=HOST,port=PORT | ... }\n"
		"        (default: $EW_TCTI, else \"tcti\" in " EWA_CONF_FILE ", else "
		EWA_DEFAULT_TCTI ")\n"
		"LIST := PCR[-PCR][,...] (default " EWA_DEFAULT_PCRS ")\n");
}

struct node_args {
	const char *tcti;
	const char *out;
	const char *challenge;
	const char *nonce;
	const char *pcrs;
	const char *ima_log;
	const char *uefi_log;
	const char *root;
	const char *in;
};

/* KEY VALUE pairs; @allowed lists the keywords this verb takes. */
static int parse_args(int argc, char *argv[], const char *verb, const char *const *allowed,
		      struct node_args *a)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "tcti", offsetof(struct node_args, tcti) },
		{ "out", offsetof(struct node_args, out) },
		{ "challenge", offsetof(struct node_args, challenge) },
		{ "nonce", offsetof(struct node_args, nonce) },
		{ "pcrs", offsetof(struct node_args, pcrs) },
		{ "ima-log", offsetof(struct node_args, ima_log) },
		{ "event-log", offsetof(struct node_args, uefi_log) },
		{ "root", offsetof(struct node_args, root) },
		{ "in", offsetof(struct node_args, in) },
	};
	size_t i, j;

	memset(a, 0, sizeof(*a));
	for (; argc > 0; argc -= 2, argv += 2) {
		const char **slot = NULL;

		for (i = 0; allowed[i]; i++) {
			if (strcmp(argv[0], allowed[i]))
				continue;
			for (j = 0; j < EW_ARRAY_SIZE(keys); j++)
				if (!strcmp(keys[j].key, argv[0]))
					slot = (const char **)((char *)a + keys[j].off);
		}
		if (!slot) {
			ew_err("attest %s: unknown keyword \"%s\" (try \"eastwestctl attest help\")",
			       verb, argv[0]);
			return EWA_USAGE;
		}
		if (argc < 2) {
			ew_err("attest %s: \"%s\" needs an argument", verb, argv[0]);
			return EWA_USAGE;
		}
		if (*slot) {
			ew_err("attest %s: \"%s\" is given twice", verb, argv[0]);
			return EWA_USAGE;
		}
		*slot = argv[1];
	}
	return EWA_OK;
}

static int save_json(struct json_object *o, const char *out)
{
	if (!out || !strcmp(out, "-")) {
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_SPACED |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
		return 0;
	}
	return ewa_json_save(o, out, 0644);
}

static void add_public(struct json_object *o, const char *key, const TPM2B_PUBLIC *pub)
{
	uint8_t buf[sizeof(TPM2B_PUBLIC)];
	size_t off = 0;

	if (Tss2_MU_TPM2B_PUBLIC_Marshal(pub, buf, sizeof(buf), &off))
		off = 0;
	ewa_json_add_b64(o, key, buf, off);
}

static int open_tpm(const char *tcti_opt, struct ewa_tpm *t)
{
	char buf[512], why[512];
	const char *tcti = ewa_tcti_choose(tcti_opt, buf, sizeof(buf));

	if (ewa_tpm_open(tcti, t, why, sizeof(why))) {
		ew_err("no TPM on node: %s", why);
		return -1;
	}
	return 0;
}

static int cmd_enroll(int argc, char *argv[])
{
	static const char *const allowed[] = { "out", "tcti", NULL };
	struct ewa_key ek = { .handle = ESYS_TR_NONE }, ak = { .handle = ESYS_TR_NONE };
	struct ew_buf cert = { 0 };
	struct json_object *o;
	struct node_args a;
	struct ewa_tpm t;
	char *host;
	int ret, rc;

	ret = parse_args(argc, argv, "enroll", allowed, &a);
	if (ret)
		return ret;
	if (open_tpm(a.tcti, &t))
		return EWA_FAIL;
	ret = EWA_FAIL;
	if (ewa_tpm_load_ek(&t, &ek) || ewa_tpm_load_ak(&t, &ak))
		goto out;
	rc = ewa_tpm_read_ek_cert(&t, &cert);
	if (rc < 0)
		goto out;
	o = json_object_new_object();
	ewa_json_add_str(o, "format", EWA_ENROLLMENT_FORMAT);
	json_object_object_add(o, "version", json_object_new_int(EWA_ENROLL_VERSION));
	host = NULL;
	{
		struct ew_buf h = { 0 };

		if (!ewa_read_file("/proc/sys/kernel/hostname", &h)) {
			h.data[strcspn((char *)h.data, "\n")] = '\0';
			host = ew_strdup((char *)h.data);
		}
		ew_buf_free(&h);
	}
	json_object_object_add(o, "hostname", host ? json_object_new_string(host) : NULL);
	free(host);
	add_public(o, "ek_public", ek.pub);
	json_object_object_add(o, "ek_persistent", ek.persistent ?
			       json_object_new_string("0x81010001") : NULL);
	if (rc == 0)
		ewa_json_add_b64(o, "ek_certificate", cert.data, cert.len);
	add_public(o, "ak_public", ak.pub);
	ewa_json_add_hex(o, "ak_name", ak.name->name, ak.name->size);
	ret = save_json(o, a.out) ? EWA_FAIL : EWA_OK;
	json_object_put(o);
	if (!ret && a.out && strcmp(a.out, "-") && !ew_quiet) {
		char name[2 * sizeof(ak.name->name) + 1];

		if (ew_opts.json)
			printf("{\"enrollment\":\"%s\",\"ak_name\":\"%s\",\"ek_certificate\":%s}\n",
			       a.out, ewa_hex(ak.name->name, ak.name->size, name),
			       rc == 0 ? "true" : "false");
		else
			printf("enrollment %s ak %s ek %s%s\n", a.out,
			       ewa_hex(ak.name->name, ak.name->size, name),
			       ek.persistent ? "0x81010001" : "created",
			       rc == 0 ? " certificate" : "");
	}
out:
	ew_buf_free(&cert);
	ewa_tpm_release(&t, &ak);
	ewa_tpm_release(&t, &ek);
	ewa_tpm_close(&t);
	return ret;
}

static int load_challenge(const char *path, uint8_t *ak_name, size_t *ak_name_len,
			  TPM2B_ID_OBJECT *blob, TPM2B_ENCRYPTED_SECRET *secret)
{
	struct ew_buf b1 = { 0 }, b2 = { 0 };
	struct json_object *o = ewa_json_load(path);
	char why[256];
	int ret = -1;

	if (!o)
		return -1;
	if (ewa_json_check_format(o, EWA_CHALLENGE_FORMAT, EWA_ENROLL_VERSION, why, sizeof(why)) ||
	    ewa_json_hex(o, "ak_name", ak_name, EWA_NAME_MAX, ak_name_len, why, sizeof(why)) ||
	    ewa_json_b64(o, "credential_blob", &b1, why, sizeof(why)) ||
	    ewa_json_b64(o, "encrypted_secret", &b2, why, sizeof(why))) {
		ew_err("%s: %s", path, why);
		goto out;
	}
	if (Tss2_MU_TPM2B_ID_OBJECT_Unmarshal(b1.data, b1.len, NULL, blob) ||
	    Tss2_MU_TPM2B_ENCRYPTED_SECRET_Unmarshal(b2.data, b2.len, NULL, secret)) {
		ew_err("%s: credential_blob or encrypted_secret is not a TPM structure", path);
		goto out;
	}
	ret = 0;
out:
	ew_buf_free(&b1);
	ew_buf_free(&b2);
	json_object_put(o);
	return ret;
}

static int cmd_activate(int argc, char *argv[])
{
	static const char *const allowed[] = { "challenge", "out", "tcti", NULL };
	struct ewa_key ek = { .handle = ESYS_TR_NONE }, ak = { .handle = ESYS_TR_NONE };
	TPM2B_ENCRYPTED_SECRET secret;
	uint8_t want[EWA_NAME_MAX];
	TPM2B_DIGEST *cred = NULL;
	TPM2B_ID_OBJECT blob;
	struct json_object *o;
	struct node_args a;
	struct ewa_tpm t;
	size_t want_len;
	int ret;

	ret = parse_args(argc, argv, "activate", allowed, &a);
	if (ret)
		return ret;
	if (!a.challenge) {
		ew_err("attest activate: \"challenge FILE\" is required");
		return EWA_USAGE;
	}
	if (load_challenge(a.challenge, want, &want_len, &blob, &secret))
		return EWA_FAIL;
	if (open_tpm(a.tcti, &t))
		return EWA_FAIL;
	ret = EWA_FAIL;
	if (ewa_tpm_load_ek(&t, &ek) || ewa_tpm_load_ak(&t, &ak))
		goto out;
	if (want_len != ak.name->size || memcmp(want, ak.name->name, want_len)) {
		char have[2 * EWA_NAME_MAX + 1];

		ew_err("%s: the challenge is for another AK (this TPM's AK is %s)",
		       a.challenge, ewa_hex(ak.name->name, ak.name->size, have));
		goto out;
	}
	if (ewa_tpm_activate(&t, &ek, &ak, &blob, &secret, &cred))
		goto out;
	o = json_object_new_object();
	ewa_json_add_str(o, "format", EWA_ACTIVATION_FORMAT);
	json_object_object_add(o, "version", json_object_new_int(EWA_ENROLL_VERSION));
	ewa_json_add_hex(o, "ak_name", ak.name->name, ak.name->size);
	ewa_json_add_hex(o, "secret", cred->buffer, cred->size);
	ret = save_json(o, a.out) ? EWA_FAIL : EWA_OK;
	json_object_put(o);
	free(cred);
out:
	ewa_tpm_release(&t, &ak);
	ewa_tpm_release(&t, &ek);
	ewa_tpm_close(&t);
	return ret;
}

static int cmd_quote(int argc, char *argv[])
{
	static const char *const allowed[] = { "nonce", "out", "pcrs", "tcti", "ima-log",
					       "event-log", "root", NULL };
	uint8_t nonce[EWA_NONCE_MAX];
	struct ewa_evidence ev = { 0 };
	struct ewa_quote_opts o;
	struct node_args a;
	size_t nonce_len;
	char why[512];
	int ret, attempts;

	ret = parse_args(argc, argv, "quote", allowed, &a);
	if (ret)
		return ret;
	if (!a.nonce || !a.out) {
		ew_err("attest quote: \"nonce HEX\" and \"out FILE\" are required");
		return EWA_USAGE;
	}
	if (ewa_parse_nonce(a.nonce, nonce, &nonce_len)) {
		ew_err("attest quote: nonce \"%s\": expected %d to %d bytes of hex", a.nonce,
		       EWA_NONCE_MIN, EWA_NONCE_MAX);
		return EWA_USAGE;
	}
	memset(&o, 0, sizeof(o));
	if (ewa_parse_pcr_list(a.pcrs ? a.pcrs : EWA_DEFAULT_PCRS, &o.pcrs)) {
		ew_err("attest quote: pcrs \"%s\": expected PCR[-PCR][,...], PCRs 0 to 23",
		       a.pcrs);
		return EWA_USAGE;
	}
	o.tcti = a.tcti;
	o.ima_log = a.ima_log;
	o.uefi_log = a.uefi_log;
	o.root = a.root;
	ret = ewa_node_evidence(&o, nonce, nonce_len, &ev, &attempts, why, sizeof(why));
	if (ret == 1) {
		ewa_evidence_save(&ev, a.out);
		ew_err("no TPM on node: %s (wrote no-TPM evidence to %s)", why, a.out);
		ewa_evidence_free(&ev);
		return EWA_FAIL;
	}
	if (ret || ewa_evidence_save(&ev, a.out)) {
		ewa_evidence_free(&ev);
		return EWA_FAIL;
	}
	if (ew_opts.json && !ew_quiet)
		printf("{\"evidence\":\"%s\",\"attempts\":%d,\"ima_log\":%s,\"uefi_event_log\":%s}\n",
		       a.out, attempts, ev.has_ima_log ? "true" : "false",
		       ev.has_uefi_log ? "true" : "false");
	ewa_evidence_free(&ev);
	return EWA_OK;
}

/*
 * The key release of "eastwest-verifier release", unwrapped by this TPM
 * (TPM2_ActivateCredential gives the KEK) and written to @out, mode 0600.
 * The key is never printed.
 */
static int cmd_unwrap(int argc, char *argv[])
{
	static const char *const allowed[] = { "in", "out", "tcti", NULL };
	struct ewa_key ek = { .handle = ESYS_TR_NONE }, ak = { .handle = ESYS_TR_NONE };
	uint8_t key[EWA_KEYREL_KEY_MAX];
	TPM2B_ENCRYPTED_SECRET secret;
	TPM2B_DIGEST *cred = NULL;
	struct ewa_keyrel rel;
	TPM2B_ID_OBJECT blob;
	struct node_args a;
	struct ewa_tpm t;
	char why[512];
	int ret, err;

	ret = parse_args(argc, argv, "unwrap", allowed, &a);
	if (ret)
		return ret;
	if (!a.in || !a.out) {
		ew_err("attest unwrap: \"in FILE\" and \"out FILE\" are required");
		return EWA_USAGE;
	}
	if (!strcmp(a.out, "-")) {
		ew_err("attest unwrap: the key is never printed: \"out\" must be a file");
		return EWA_USAGE;
	}
	if (ewa_keyrel_load(a.in, &rel, why, sizeof(why))) {
		ew_err("attest unwrap: %s: %s", a.in, why);
		return EWA_FAIL;
	}
	if (Tss2_MU_TPM2B_ID_OBJECT_Unmarshal(rel.credential_blob.data, rel.credential_blob.len,
					      NULL, &blob) ||
	    Tss2_MU_TPM2B_ENCRYPTED_SECRET_Unmarshal(rel.encrypted_secret.data,
						     rel.encrypted_secret.len, NULL, &secret)) {
		ew_err("attest unwrap: %s: credential_blob or encrypted_secret is not a TPM "
		       "structure", a.in);
		ewa_keyrel_free(&rel);
		return EWA_FAIL;
	}
	if (open_tpm(a.tcti, &t)) {
		ewa_keyrel_free(&rel);
		return EWA_FAIL;
	}
	ret = EWA_FAIL;
	if (ewa_tpm_load_ek(&t, &ek) || ewa_tpm_load_ak(&t, &ak))
		goto out;
	if (rel.ak_name_len != ak.name->size || memcmp(rel.ak_name, ak.name->name,
							rel.ak_name_len)) {
		char have[2 * EWA_NAME_MAX + 1];

		ew_err("attest unwrap: %s is for another TPM (node %s; this TPM's AK is %s)",
		       a.in, rel.node ? rel.node : "?",
		       ewa_hex(ak.name->name, ak.name->size, have));
		goto out;
	}
	if (ewa_tpm_activate(&t, &ek, &ak, &blob, &secret, &cred))
		goto out;
	if (cred->size != EWA_KEYREL_KEK_LEN || ewa_keyrel_open(cred->buffer, &rel, key)) {
		ew_err("attest unwrap: %s: the wrapped key does not decrypt (altered, or not "
		       "for this TPM)", a.in);
		goto out;
	}
	err = ew_write_file(a.out, key, rel.ciphertext.len, 0600);
	OPENSSL_cleanse(key, sizeof(key));
	if (err) {
		ew_err("attest unwrap: %s: %s", a.out, strerror(-err));
		goto out;
	}
	if (!ew_quiet) {
		if (ew_opts.json)
			printf("{\"unwrapped\":\"%s\",\"key_bytes\":%zu,\"node\":%s%s%s}\n",
			       a.out, rel.ciphertext.len, rel.node ? "\"" : "",
			       rel.node ? rel.node : "null", rel.node ? "\"" : "");
		else
			printf("unwrapped %zu bytes to %s (mode 0600)\n", rel.ciphertext.len,
			       a.out);
	}
	ret = EWA_OK;
out:
	if (cred)
		OPENSSL_cleanse(cred, sizeof(*cred));
	free(cred);
	ewa_keyrel_free(&rel);
	ewa_tpm_release(&t, &ak);
	ewa_tpm_release(&t, &ek);
	ewa_tpm_close(&t);
	return ret;
}

static int cmd_handles(int argc, char *argv[])
{
	static const char *const allowed[] = { "tcti", NULL };
	uint32_t objects, sessions;
	struct node_args a;
	struct ewa_tpm t;
	int ret;

	ret = parse_args(argc, argv, "handles", allowed, &a);
	if (ret)
		return ret;
	if (open_tpm(a.tcti, &t))
		return EWA_FAIL;
	ret = ewa_tpm_count_handles(&t, &objects, &sessions) ? EWA_FAIL : EWA_OK;
	ewa_tpm_close(&t);
	if (ret)
		return ret;
	if (ew_opts.json)
		printf("{\"transient_objects\":%u,\"sessions\":%u}\n", objects, sessions);
	else
		printf("transient-objects %u sessions %u\n", objects, sessions);
	return EWA_OK;
}

int attest_main(int argc, char *argv[])
{
	/* tpm2-tss logs every failed attempt to stderr: our one line says it. */
	setenv("TSS2_LOG", "all+NONE", 0);
	if (argc > 0 && !strcmp(argv[0], "enroll"))
		return cmd_enroll(argc - 1, argv + 1);
	if (argc > 0 && !strcmp(argv[0], "activate"))
		return cmd_activate(argc - 1, argv + 1);
	if (argc > 0 && !strcmp(argv[0], "quote"))
		return cmd_quote(argc - 1, argv + 1);
	if (argc > 0 && !strcmp(argv[0], "handles"))
		return cmd_handles(argc - 1, argv + 1);
	if (argc > 0 && !strcmp(argv[0], "unwrap"))
		return cmd_unwrap(argc - 1, argv + 1);
	if (argc > 0 && !strcmp(argv[0], "watch"))
		return ewa_watch_main(argc - 1, argv + 1);
	if (argc > 0 && !strcmp(argv[0], "help")) {
		attest_usage(stdout);
		return EWA_OK;
	}
	if (argc == 0)
		ew_err("attest: missing command (try \"eastwestctl attest help\")");
	else
		ew_err("attest: unknown command \"%s\" (try \"eastwestctl attest help\")",
		       argv[0]);
	return EWA_USAGE;
}
