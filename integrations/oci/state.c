// SPDX-License-Identifier: GPL-2.0
/*
 * The OCI state on stdin: {"ociVersion", "id", "status", "pid", "bundle",
 * "annotations"}. Only "id", "pid" and one annotation matter here. The
 * container id becomes part of a job name and of a file name in the state
 * dir, so it is held to the characters runc allows in ids.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "hook.h"
#include "state.h"

/* runc's rule for ids, ^[\w+\-.]+$, minus "." and ".."; at most 1024 bytes. */
static bool id_ok(const char *id)
{
	const char *c;

	if (!*id || strlen(id) > 1024 || !strcmp(id, ".") || !strcmp(id, ".."))
		return false;
	for (c = id; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '+' ||
		      *c == '-' || *c == '.'))
			return false;
	return true;
}

/**
 * ewoci_state_parse() - read the fields the hook needs from an OCI state
 * @text: the JSON text (need not be NUL-terminated)
 * @len: its length
 * @st: filled on success (free with ewoci_state_free())
 * @why: what is wrong, on failure
 * @whylen: size of @why
 *
 * Return: 0, or -EINVAL with @why set.
 */
int ewoci_state_parse(const char *text, size_t len, struct ewoci_state *st,
		      char *why, size_t whylen)
{
	struct json_object *root, *o, *ann;
	struct json_tokener *tok;
	char keywhy[256];
	int64_t pid;
	size_t end;
	int ret;

	memset(st, 0, sizeof(*st));
	tok = json_tokener_new();
	if (!tok)
		return ew_bad(why, whylen, "out of memory");
	if (len > EWOCI_STATE_MAX) {
		ret = ew_bad(why, whylen, "larger than %d bytes", EWOCI_STATE_MAX);
		goto out_tok;
	}
	root = json_tokener_parse_ex(tok, text, (int)len);
	if (!root) {
		if (json_tokener_get_error(tok) == json_tokener_continue)
			ret = ew_bad(why, whylen, "incomplete JSON");
		else
			ret = ew_bad(why, whylen, "not JSON: %s",
				  json_tokener_error_desc(json_tokener_get_error(tok)));
		goto out_tok;
	}
	if (json_tokener_get_parse_end(tok) < len &&
	    strspn(text + json_tokener_get_parse_end(tok), " \t\r\n") !=
	    len - json_tokener_get_parse_end(tok)) {
		ret = ew_bad(why, whylen, "text after the JSON object");
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

	if (!json_object_object_get_ex(root, "id", &o) ||
	    !json_object_is_type(o, json_type_string)) {
		ret = ew_bad(why, whylen, "no \"id\" string");
		goto out;
	}
	if (!id_ok(json_object_get_string(o))) {
		ret = ew_bad(why, whylen, "container id \"%.64s\" is not 1-1024 of [A-Za-z0-9_+.-]",
			  json_object_get_string(o));
		goto out;
	}
	st->id = ew_strdup(json_object_get_string(o));

	if (json_object_object_get_ex(root, "pid", &o)) {
		pid = json_object_is_type(o, json_type_int) ?
		      json_object_get_int64(o) : -1;
		if (pid < 0 || pid > 0x3fffffff) {
			ret = ew_bad(why, whylen, "\"pid\" is not a process id");
			goto out;
		}
		st->pid = (int)pid;
	}

	if (json_object_object_get_ex(root, "annotations", &ann)) {
		if (!json_object_is_type(ann, json_type_object)) {
			ret = ew_bad(why, whylen, "\"annotations\" is not an object");
			goto out;
		}
		if (json_object_object_get_ex(ann, EWOCI_ANNOTATION, &o)) {
			if (!json_object_is_type(o, json_type_string)) {
				ret = ew_bad(why, whylen, "annotation %s is not a string",
					  EWOCI_ANNOTATION);
				goto out;
			}
			st->template = ew_strdup(json_object_get_string(o));
		}
	}
	ret = 0;
out:
	if (ret)
		ewoci_state_free(st);
	json_object_put(root);
out_tok:
	json_tokener_free(tok);
	return ret;
}

/**
 * ewoci_state_read() - read and parse the OCI state from a stream
 * @in: the stream (the hook's stdin)
 * @st: filled on success
 *
 * Return: EWOCI_OK, or an exit code with the message printed.
 */
int ewoci_state_read(FILE *in, struct ewoci_state *st)
{
	struct ew_buf buf = { 0 };
	char why[160];
	int ret;

	errno = 0;
	ret = ew_read_stream(in, EWOCI_STATE_MAX, &buf);
	if (ret == -EFBIG)
		ew_err("the OCI state on stdin is larger than %d bytes", EWOCI_STATE_MAX);
	else if (ret)
		ew_err("cannot read the OCI state from stdin: %s", strerror(-ret));
	if (ret) {
		ew_buf_free(&buf);
		return EWOCI_BAD_STATE;
	}
	ret = ewoci_state_parse((const char *)buf.data, buf.len, st, why, sizeof(why));
	ew_buf_free(&buf);
	if (ret) {
		ew_err("bad OCI state on stdin: %s", why);
		return EWOCI_BAD_STATE;
	}
	return EWOCI_OK;
}

void ewoci_state_free(struct ewoci_state *st)
{
	free(st->id);
	free(st->template);
	memset(st, 0, sizeof(*st));
}

/**
 * ewoci_job_name() - the job name of a container: "oci-" and the first 12
 * characters of its id (what "crictl ps" and "docker ps" show)
 * @id: the container id (checked by ewoci_state_parse())
 * @out: the name
 * @len: size of @out
 *
 * Two ids with the same 12 first characters give the same name: the second
 * container's claim fails (ewoci_claim_take()) and its start with it.
 *
 * Return: 0, or -ENOSPC.
 */
int ewoci_job_name(const char *id, char *out, size_t len)
{
	int n;

	n = snprintf(out, len, "%s%.*s", EWOCI_JOB_PREFIX, EWOCI_ID_CHARS, id);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}
