// SPDX-License-Identifier: GPL-2.0
/*
 * A template is DIR/NAME.json: a JSON object with the keys of a job in a
 * policy file (Documentation/policy.schema.json) except those the hook sets
 * itself for each container ("name", "id", "cgroups"):
 *
 *   {"peers": ["10.100.0.0/24"], "netdevs": [{"vlan": 100}], "qkey": 4660,
 *    "encrypt": "macsec", "mode": "enforce", "pkeys": ["0x8001"], "ud": true}
 *
 * "jobaddr" gives each container its own address on the fabric:
 * {"netdev": "eth0.100", "prefix": "fd00:a:0:1::/64"} (this node's prefix,
 * low 48 bits zero; the container's address is the prefix and the 48 bits
 * of its job name's id), which also becomes its source-netdev rule, so
 * "netdevs" is refused with it; "shared", or no "jobaddr", keeps the
 * node's addresses.
 *
 * It is checked as a job by eastwestctl's own policy parser
 * (ew_policy_parse_job(), linked from userspace/libew.a), so that templates
 * and policy files follow one set of rules and a mistake (a bad address, a
 * VLAN out of range) names the template and the key when the template is
 * read; the hook adds only what a template may not say (the per-container
 * keys, interface indexes, names that are not one word). It then becomes the
 * attribute words of "eastwestctl job add" (peer ADDR vlan 100 ...), spelt as
 * the template writes them.
 *
 * Whoever can write a template decides what containers selecting it may
 * reach, so the file and its directory must be the administrator's: owned by
 * root (or the user running the hook), writable by nobody else, a regular
 * file and not a symbolic link.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "model/policy_file.h"
#include "hook.h"
#include "template.h"

/**
 * ewoci_template_name_check() - is this a template name (a file name, not a path)
 * @name: the annotation's value
 * @why: what is wrong, on failure
 *
 * Return: 0 or -EINVAL.
 */
int ewoci_template_name_check(const char *name, const char **why)
{
	size_t n = strlen(name), i;

	if (!n) {
		*why = "the name is empty";
		return -EINVAL;
	}
	if (n > EWOCI_TEMPLATE_NAME_MAX) {
		*why = "the name is longer than 64 characters";
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		char c = name[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9');

		/* The first character alone rules out ".", ".." and "-x". */
		if (!alnum && (i == 0 || (c != '_' && c != '.' && c != '-'))) {
			*why = "the name must be [A-Za-z0-9][A-Za-z0-9_.-]*";
			return -EINVAL;
		}
	}
	return 0;
}

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/* A string value that is safe to pass on as one word: printable, no blanks. */
static bool word_ok(struct json_object *o, size_t max)
{
	const char *s, *c;

	if (!json_object_is_type(o, json_type_string))
		return false;
	s = json_object_get_string(o);
	if (!*s || strlen(s) > max)
		return false;
	for (c = s; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return false;
	return true;
}

/* Keys of a policy job that a template must not have: the hook sets them. */
static const char *const per_container[] = { "name", "id", "cgroups", NULL };
/* Keys that are only notes for people. */
static const char *const notes[] = { "$schema", "description", NULL };
/* Every other key a template may have, in the order their words are emitted. */
static const char *const attributes[] = {
	"mode", "encrypt", "qkey", "ud", "dc", "peers", "netdevs", "pkeys", "jobaddr", NULL
};

/*
 * The words of key @key (@o), once eastwestctl's policy parser has accepted
 * the template as a job: every value is valid, so this only spells it.
 * Strings go on as they are written, so "check" shows the template's own
 * spelling.
 */
static void key_words(const char *key, struct json_object *o, struct ew_strv *words)
{
	struct json_object *e;
	size_t i;

	if (!strcmp(key, "ud") || !strcmp(key, "dc")) {
		ew_strv_add(words, key);
		ew_strv_add(words, json_object_get_boolean(o) ? "on" : "off");
	} else if (!strcmp(key, "mode") || !strcmp(key, "encrypt") || !strcmp(key, "qkey")) {
		ew_strv_add(words, key);
		ew_strv_add(words, json_object_get_string(o));
	} else if (!strcmp(key, "peers")) {
		for (i = 0; i < json_object_array_length(o); i++) {
			ew_strv_add(words, "peer");
			ew_strv_add(words, json_object_get_string(json_object_array_get_idx(o, i)));
		}
	} else if (!strcmp(key, "pkeys")) {
		for (i = 0; i < json_object_array_length(o); i++) {
			e = json_object_array_get_idx(o, i);
			ew_strv_add(words, "pkey");
			if (json_object_is_type(e, json_type_int))
				ew_strv_addf(words, "0x%04llx", (long long)json_object_get_int64(e));
			else
				ew_strv_add(words, json_object_get_string(e));
		}
	} else if (!strcmp(key, "netdevs")) {
		for (i = 0; i < json_object_array_length(o); i++) {
			json_object_object_foreach(json_object_array_get_idx(o, i), k, v) {
				ew_strv_add(words, !strcmp(k, "ifname") ? "netdev" : k);
				ew_strv_add(words, json_object_get_string(v));
			}
		}
	}
}

/*
 * What a template may not say though a policy file may: interface indexes
 * (they differ between nodes), and names that are not one word on the
 * command line.
 */
static int template_netdevs(struct json_object *o, char *why, size_t len)
{
	struct json_object *e, *v;
	size_t i;

	for (i = 0; i < json_object_array_length(o); i++) {
		e = json_object_array_get_idx(o, i);
		if (json_object_object_get_ex(e, "ifindex", &v))
			return ew_bad(why, len, "template.netdevs[%zu]: ifindex is not allowed in a template (it differs between nodes): use ifname", i);
		if (json_object_object_get_ex(e, "vrf", &v) && !json_object_is_type(v, json_type_string))
			return ew_bad(why, len, "template.netdevs[%zu].vrf: expected an interface name (an ifindex differs between nodes)", i);
		if ((json_object_object_get_ex(e, "vrf", &v) ||
		     json_object_object_get_ex(e, "ifname", &v)) && !word_ok(v, IF_NAMESIZE - 1))
			return ew_bad(why, len, "template.netdevs[%zu]: bad interface name \"%s\": blanks or control characters",
				      i, json_object_get_string(v));
	}
	return 0;
}

/*
 * The template as a job of a policy file, checked by eastwestctl's own
 * parser (userspace/model/policy_file.c): the hook's per-container keys are refused
 * before, the notes and "jobaddr" are not part of a job, and the name is a
 * stand-in for the container's.
 */
static int check_as_job(struct json_object *root, char *why, size_t len)
{
	struct json_object *job = json_object_new_object();
	struct ew_job_desc parsed;
	int ret;

	if (!job)
		return ew_bad(why, len, "out of memory");
	json_object_object_foreach(root, key, val) {
		if (!in_list(key, notes) && strcmp(key, "jobaddr"))
			json_object_object_add(job, key, json_object_get(val));
	}
	json_object_object_add(job, "name", json_object_new_string(EWOCI_JOB_PREFIX "template"));
	ew_job_init(&parsed);
	ret = ew_policy_parse_job(job, "template", &parsed, why, len);
	ew_job_free(&parsed);
	json_object_put(job);
	return ret ? -EINVAL : 0;
}

/* "jobaddr": "shared", or {"netdev": IFNAME, "prefix": "IPV6/LEN"}. */
static int jobaddr_key(struct json_object *o, struct json_object *root,
		       struct ew_strv *words, struct ewoci_jobaddr *ja,
		       char *why, size_t len)
{
	struct json_object *dev, *pfx;
	struct ewoci_jobaddr tmp = { 0 };
	int ret;

	if (json_object_is_type(o, json_type_string) &&
	    !strcmp(json_object_get_string(o), "shared"))
		return 0;
	if (!json_object_is_type(o, json_type_object) ||
	    json_object_object_length(o) != 2 ||
	    !json_object_object_get_ex(o, "netdev", &dev) ||
	    !json_object_object_get_ex(o, "prefix", &pfx))
		return ew_bad(why, len, "\"jobaddr\" must be \"shared\" or {\"netdev\": IFNAME, \"prefix\": \"IPV6/LEN\"}");
	if (!word_ok(dev, 15))
		return ew_bad(why, len, "\"jobaddr\".netdev must be an interface name");
	if (!json_object_is_type(pfx, json_type_string))
		return ew_bad(why, len, "\"jobaddr\".prefix must be IPV6/LEN");
	ret = ewoci_jobaddr_prefix(json_object_get_string(pfx), &tmp, why, len);
	if (ret)
		return ret;
	/* The container's source netdev is the one that carries its address. */
	if (json_object_object_get_ex(root, "netdevs", &dev))
		return ew_bad(why, len, "\"netdevs\" cannot be combined with \"jobaddr\" (its netdev is the source netdev)");
	json_object_object_get_ex(o, "netdev", &dev);
	snprintf(tmp.netdev, sizeof(tmp.netdev), "%s", json_object_get_string(dev));
	tmp.set = true;
	ew_strv_add(words, "netdev");
	ew_strv_add(words, tmp.netdev);
	if (ja)
		*ja = tmp;
	return 0;
}

/**
 * ewoci_template_words() - the "eastwestctl job add" attribute words of a template
 * @text: the template's JSON text
 * @len: its length
 * @words: the words are appended here
 * @why: what is wrong, on failure
 * @whylen: size of @why
 *
 * Return: 0, or -EINVAL with @why set (words may have been appended).
 */
int ewoci_template_words(const char *text, size_t len, struct ew_strv *words,
			 char *why, size_t whylen)
{
	return ewoci_template_parse(text, len, words, NULL, why, whylen);
}

/**
 * ewoci_template_parse() - ewoci_template_words(), and the template's jobaddr
 * @text: the template's JSON text
 * @len: its length
 * @words: the words are appended here
 * @ja: if not NULL, set from "jobaddr" (ja->set false: shared addresses)
 * @why: what is wrong, on failure
 * @whylen: size of @why
 *
 * Return: 0, or -EINVAL with @why set (words may have been appended).
 */
int ewoci_template_parse(const char *text, size_t len, struct ew_strv *words,
			 struct ewoci_jobaddr *ja, char *why, size_t whylen)
{
	struct json_tokener *tok;
	struct json_object *root, *o;
	char keywhy[256];
	size_t k, end;
	int ret;

	tok = json_tokener_new();
	if (!tok)
		return ew_bad(why, whylen, "out of memory");
	root = json_tokener_parse_ex(tok, text, (int)len);
	if (!root || (json_tokener_get_parse_end(tok) < len &&
		      strspn(text + json_tokener_get_parse_end(tok), " \t\r\n") !=
		      len - json_tokener_get_parse_end(tok))) {
		ret = ew_bad(why, whylen, "not one JSON object: %s",
			  root ? "text after the object" :
			  json_tokener_error_desc(json_tokener_get_error(tok)));
		goto out;
	}
	if (ew_json_key_check(text, len, &end, keywhy, sizeof(keywhy))) {
		ret = ew_bad(why, whylen, "%s at offset %zu", keywhy, end);
		goto out;
	}
	if (!json_object_is_type(root, json_type_object)) {
		ret = ew_bad(why, whylen, "not a JSON object");
		goto out;
	}

	json_object_object_foreach(root, key, val) {
		(void)val;
		if (in_list(key, per_container)) {
			ret = ew_bad(why, whylen, "\"%s\" is set for each container by the hook, not by a template", key);
			goto out;
		}
		if (!in_list(key, notes) && !in_list(key, attributes)) {
			ret = ew_bad(why, whylen, "unknown key \"%.40s\"", key);
			goto out;
		}
	}

	ret = check_as_job(root, why, whylen);
	if (!ret && json_object_object_get_ex(root, "netdevs", &o))
		ret = template_netdevs(o, why, whylen);
	if (ret)
		goto out;
	for (k = 0; attributes[k]; k++) {
		if (!json_object_object_get_ex(root, attributes[k], &o))
			continue;
		if (!strcmp(attributes[k], "jobaddr")) {
			ret = jobaddr_key(o, root, words, ja, why, whylen);
			if (ret)
				goto out;
		} else {
			key_words(attributes[k], o, words);
		}
	}
	ret = 0;
out:
	json_object_put(root);
	json_tokener_free(tok);
	return ret;
}

/* Owned by root or by us, and nobody else may write to it. */
static const char *trust_problem(const struct stat *st)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return "is not owned by root";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "is writable by group or others";
	return NULL;
}

/**
 * ewoci_template_load() - read, check and translate template @name of @dir
 * @dir: the template directory
 * @name: the template's name (the annotation's value)
 * @words: the attribute words are appended here
 *
 * Return: EWOCI_OK, or EWOCI_BAD_TEMPLATE with the reason printed.
 */
int ewoci_template_load(const char *dir, const char *name, struct ew_strv *words)
{
	return ewoci_template_load_addr(dir, name, words, NULL);
}

/**
 * ewoci_template_load_addr() - ewoci_template_load(), and the template's jobaddr
 * @dir: the template directory
 * @name: the template's name (the annotation's value)
 * @words: the attribute words are appended here
 * @ja: if not NULL, the template's jobaddr
 *
 * Return: EWOCI_OK, or EWOCI_BAD_TEMPLATE with the reason printed.
 */
int ewoci_template_load_addr(const char *dir, const char *name,
			     struct ew_strv *words, struct ewoci_jobaddr *ja)
{
	const char *why, *problem;
	char path[4096], msg[256];
	struct ew_buf text = { 0 };
	struct stat st;
	int fd, ret;
	FILE *f;

	if (ewoci_template_name_check(name, &why)) {
		ew_err("annotation %s=\"%.64s\": %s", EWOCI_ANNOTATION, name, why);
		return EWOCI_BAD_TEMPLATE;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		ew_err("template %s: no template directory %s", name, dir);
		return EWOCI_BAD_TEMPLATE;
	}
	problem = trust_problem(&st);
	if (problem) {
		ew_err("template %s: directory %s %s: refusing its templates", name, dir, problem);
		return EWOCI_BAD_TEMPLATE;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s.json", dir, name) >= sizeof(path)) {
		ew_err("template %s: path too long", name);
		return EWOCI_BAD_TEMPLATE;
	}
	/* O_NONBLOCK: a FIFO planted here must not hang the container start. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			ew_err("no template %s (no file %s)", name, path);
		else if (errno == ELOOP)
			ew_err("template %s: %s is a symbolic link", name, path);
		else
			ew_err("template %s: cannot open %s: %s", name, path, strerror(errno));
		return EWOCI_BAD_TEMPLATE;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ew_err("template %s: %s is not a regular file", name, path);
		close(fd);
		return EWOCI_BAD_TEMPLATE;
	}
	problem = trust_problem(&st);
	if (problem) {
		ew_err("template %s: %s %s: refusing it", name, path, problem);
		close(fd);
		return EWOCI_BAD_TEMPLATE;
	}
	f = fdopen(fd, "r");
	if (!f) {
		ew_err("template %s: cannot read %s: %s", name, path, strerror(errno));
		close(fd);
		return EWOCI_BAD_TEMPLATE;
	}
	errno = 0;
	ret = ew_read_stream(f, EWOCI_TEMPLATE_MAX, &text);
	fclose(f);
	if (ret) {
		ew_err("template %s: cannot read %s: %s", name, path,
		    ret == -EFBIG ? "larger than 1 MiB" : strerror(-ret));
		ew_buf_free(&text);
		return EWOCI_BAD_TEMPLATE;
	}
	ret = ewoci_template_parse((const char *)text.data, text.len, words, ja, msg, sizeof(msg));
	ew_buf_free(&text);
	if (ret) {
		ew_err("template %s (%s): %s", name, path, msg);
		return EWOCI_BAD_TEMPLATE;
	}
	return EWOCI_OK;
}
