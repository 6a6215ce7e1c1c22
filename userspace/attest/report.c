// SPDX-License-Identifier: GPL-2.0
/*
 * The node report: built on the node, parsed by the verifier.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "jsonfile.h"
#include "report.h"

#define EFI_SECURE_BOOT_VAR \
	"sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

static char *root_path(const char *root, const char *rel)
{
	return ew_asprintf("%s/%s", *root ? root : "", rel);
}

/* The first line of a small file, or NULL. */
static char *read_line(const char *root, const char *rel)
{
	char *path = root_path(root, rel), *s = NULL;
	struct ew_buf b = { 0 };

	if (!ewa_read_file(path, &b)) {
		b.data[strcspn((char *)b.data, "\n")] = '\0';
		s = ew_strdup((char *)b.data);
	}
	ew_buf_free(&b);
	free(path);
	return s;
}

static int hash_file(const char *path, uint8_t out[EWA_SHA256_LEN])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char buf[65536];
	int fd, ret = -1;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		goto out;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (!EVP_DigestUpdate(ctx, buf, (size_t)n))
			goto out;
	if (n == 0 && EVP_DigestFinal_ex(ctx, out, NULL))
		ret = 0;
out:
	if (fd >= 0)
		close(fd);
	EVP_MD_CTX_free(ctx);
	return ret;
}

/* "foo-bar.ko.xz" -> "foo_bar": the name /proc/modules uses. */
static void module_name(const char *path, char *out, size_t len)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	i = strnlen(base, len - 1);
	memcpy(out, base, i);
	out[i] = '\0';
	out[strcspn(out, ".")] = '\0';
	for (i = 0; out[i]; i++)
		if (out[i] == '-')
			out[i] = '_';
}

/* The on-disk path of module @name from modules.dep, or NULL. */
static char *module_path(const char *root, const char *release, const char *name,
			 const struct ew_buf *dep)
{
	const char *line = dep ? (const char *)dep->data : NULL;
	char mname[256];

	while (line && *line) {
		const char *colon = strchr(line, ':'), *nl = strchr(line, '\n');
		char file[4096];

		if (colon && (!nl || colon < nl) && (size_t)(colon - line) < sizeof(file)) {
			memcpy(file, line, (size_t)(colon - line));
			file[colon - line] = '\0';
			module_name(file, mname, sizeof(mname));
			if (!strcmp(mname, name))
				return file[0] == '/' ? ew_strdup(file) :
					ew_asprintf("/lib/modules/%s/%s", release, file);
		}
		line = nl ? nl + 1 : NULL;
	}
	(void)root;
	return NULL;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static struct json_object *modules_json(const char *root, const char *release)
{
	struct json_object *a = json_object_new_array();
	char *path = root_path(root, "proc/modules"), *dep_rel;
	struct ew_buf mods = { 0 }, dep = { 0 };
	char **names = NULL, *line, *save;
	size_t n = 0, i;

	if (ewa_read_file(path, &mods)) {
		free(path);
		return a;	/* no loadable modules (or no /proc/modules) */
	}
	free(path);
	dep_rel = ew_asprintf("lib/modules/%s/modules.dep", release);
	path = root_path(root, dep_rel);
	if (ewa_read_file(path, &dep))
		ew_buf_free(&dep);
	free(path);
	free(dep_rel);
	for (line = strtok_r((char *)mods.data, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, " ")] = '\0';
		if (!*line)
			continue;
		names = ew_reallocarray(names, n + 1, sizeof(*names));
		names[n++] = line;
	}
	/* qsort()'s base must not be NULL, even with nothing to sort. */
	if (n)
		qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i++) {
		struct json_object *m = json_object_new_object();
		char *mpath = module_path(root, release, names[i], dep.data ? &dep : NULL);
		uint8_t digest[EWA_SHA256_LEN];
		char *full;

		ewa_json_add_str(m, "name", names[i]);
		if (mpath) {
			full = root_path(root, mpath + 1);
			json_object_object_add(m, "path", json_object_new_string(mpath));
			if (!hash_file(full, digest))
				ewa_json_add_hex(m, "sha256", digest, sizeof(digest));
			else
				json_object_object_add(m, "sha256", NULL);
			free(full);
			free(mpath);
		} else {
			json_object_object_add(m, "path", NULL);
			json_object_object_add(m, "sha256", NULL);
		}
		json_object_array_add(a, m);
	}
	free(names);
	ew_buf_free(&mods);
	ew_buf_free(&dep);
	return a;
}

/* efivarfs: 4 bytes of attributes, then the value. */
static struct json_object *secure_boot_json(const char *root)
{
	char *path = root_path(root, EFI_SECURE_BOOT_VAR);
	struct json_object *v = NULL;
	struct ew_buf b = { 0 };

	if (!ewa_read_file(path, &b) && b.len >= 5)
		v = json_object_new_boolean(b.data[4] == 1);
	ew_buf_free(&b);
	free(path);
	return v;
}

static void add_line(struct json_object *o, const char *key, const char *root,
		     const char *rel)
{
	char *s = read_line(root, rel);

	json_object_object_add(o, key, s ? json_object_new_string(s) : NULL);
	free(s);
}

int ewa_report_build(const char *root, struct ew_buf *out)
{
	struct json_object *o = json_object_new_object();
	char *release = read_line(root, "proc/sys/kernel/osrelease"), *efi;
	char now[32];
	const char *s;

	json_object_object_add(o, "version", json_object_new_int(EWA_REPORT_VERSION));
	add_line(o, "hostname", root, "proc/sys/kernel/hostname");
	json_object_object_add(o, "kernel_release",
			       release ? json_object_new_string(release) : NULL);
	add_line(o, "boot_id", root, "proc/sys/kernel/random/boot_id");
	ewa_utc_now(now, sizeof(now));
	ewa_json_add_str(o, "timestamp", now);
	efi = root_path(root, "sys/firmware/efi");
	json_object_object_add(o, "efi", json_object_new_boolean(access(efi, F_OK) == 0));
	free(efi);
	json_object_object_add(o, "secure_boot", secure_boot_json(root));
	json_object_object_add(o, "modules", modules_json(root, release ? release : ""));
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	out->len = 0;
	ew_buf_add(out, s, strlen(s));
	json_object_put(o);
	free(release);
	return 0;
}

static char *dup_member(struct json_object *o, const char *key)
{
	const char *s = ewa_json_str(o, key);

	return s ? ew_strdup(s) : NULL;
}

int ewa_report_parse(const uint8_t *p, size_t len, struct ewa_report *r,
		     char *why, size_t whylen)
{
	struct json_object *o, *v, *a;
	size_t i, n;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	r->secure_boot = -1;
	o = ewa_json_parse((const char *)p, len, why, whylen);
	if (!o)
		return -1;
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "version", &v) ||
	    json_object_get_int(v) != EWA_REPORT_VERSION) {
		snprintf(why, whylen, "report version is not %d", EWA_REPORT_VERSION);
		goto out;
	}
	r->hostname = dup_member(o, "hostname");
	r->kernel_release = dup_member(o, "kernel_release");
	r->boot_id = dup_member(o, "boot_id");
	r->timestamp = dup_member(o, "timestamp");
	if (json_object_object_get_ex(o, "secure_boot", &v) &&
	    json_object_is_type(v, json_type_boolean))
		r->secure_boot = json_object_get_boolean(v);
	if (!json_object_object_get_ex(o, "modules", &a) ||
	    !json_object_is_type(a, json_type_array)) {
		snprintf(why, whylen, "report: \"modules\" is not an array");
		goto out;
	}
	n = json_object_array_length(a);
	r->modules = ew_calloc(n, sizeof(*r->modules));
	for (i = 0; i < n; i++) {
		struct json_object *m = json_object_array_get_idx(a, i);
		struct ewa_report_module *rm = &r->modules[r->n_modules];
		const char *hex = ewa_json_str(m, "sha256");
		size_t dlen;

		rm->name = dup_member(m, "name");
		if (!rm->name) {
			snprintf(why, whylen, "report: module %zu has no name", i);
			goto out;
		}
		r->n_modules++;
		rm->path = dup_member(m, "path");
		if (hex) {
			if (ew_unhex(hex, rm->sha256, sizeof(rm->sha256), &dlen) ||
			    dlen != EWA_SHA256_LEN) {
				snprintf(why, whylen, "report: module %s: bad sha256", rm->name);
				goto out;
			}
			rm->hashed = true;
		}
	}
	ret = 0;
out:
	json_object_put(o);
	if (ret)
		ewa_report_free(r);
	return ret;
}

void ewa_report_free(struct ewa_report *r)
{
	size_t i;

	free(r->hostname);
	free(r->kernel_release);
	free(r->boot_id);
	free(r->timestamp);
	for (i = 0; i < r->n_modules; i++) {
		free(r->modules[i].name);
		free(r->modules[i].path);
	}
	free(r->modules);
	memset(r, 0, sizeof(*r));
}
