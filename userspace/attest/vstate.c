// SPDX-License-Identifier: GPL-2.0
/*
 * Verifier state: small JSON files replaced atomically, under one flock()
 * so that two verifications of the same AK cannot both accept a quote
 * older than the other's. A verification holds it only while it compares
 * with the state and writes its outcome, never while it parses evidence.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jsonfile.h"
#include "vstate.h"

static int mkdir_p(const char *path)
{
	char *p = ew_strdup(path), *s;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	free(p);
	return mkdir(path, 0700) && errno != EEXIST ? -1 : 0;
}

int ewa_vstate_open_unlocked(const char *dir, struct ewa_vstate *s)
{
	static const char *const subs[] = { "ak", "pending", "nodes", "verdicts", "sessions",
					    "revoked" };
	char *p;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->lock_fd = -1;
	if (mkdir_p(dir)) {
		ew_err("state %s: %s", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		p = ew_asprintf("%s/%s", dir, subs[i]);
		if (mkdir(p, 0700) && errno != EEXIST) {
			ew_err("state %s: %s", p, strerror(errno));
			free(p);
			return -1;
		}
		free(p);
	}
	p = ew_asprintf("%s/lock", dir);
	s->lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (s->lock_fd < 0) {
		ew_err("state %s: %s", p, strerror(errno));
		free(p);
		return -1;
	}
	free(p);
	s->dir = ew_strdup(dir);
	return 0;
}

int ewa_vstate_lock(struct ewa_vstate *s)
{
	int err;

	if (s->locked++)
		return 0;
	while ((err = flock(s->lock_fd, LOCK_EX)) && errno == EINTR)
		;
	if (err) {
		s->locked = 0;
		ew_err("state %s/lock: %s", s->dir, strerror(errno));
		return -1;
	}
	return 0;
}

void ewa_vstate_unlock(struct ewa_vstate *s)
{
	if (s->locked && !--s->locked)
		flock(s->lock_fd, LOCK_UN);
}

int ewa_vstate_open(const char *dir, struct ewa_vstate *s)
{
	if (ewa_vstate_open_unlocked(dir, s))
		return -1;
	if (ewa_vstate_lock(s)) {
		ewa_vstate_close(s);
		return -1;
	}
	return 0;
}

void ewa_vstate_close(struct ewa_vstate *s)
{
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	free(s->dir);
	memset(s, 0, sizeof(*s));
	s->lock_fd = -1;
}

int ewa_vstate_session(const struct ewa_vstate *s, const char *node)
{
	char *p = ew_asprintf("%s/sessions/%s.lock", s->dir, node);
	int fd, err;

	fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	free(p);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

char *ewa_vstate_path(const struct ewa_vstate *s, const char *sub, const char *name)
{
	return sub ? ew_asprintf("%s/%s/%s.json", s->dir, sub, name) :
		     ew_asprintf("%s/%s", s->dir, name);
}

static struct json_object *load_if_any(const char *path, int *found)
{
	struct ew_buf b = { 0 };
	struct json_object *o;
	char why[256];
	int err;

	*found = 0;
	err = ewa_read_file(path, &b);
	if (err == -ENOENT) {
		ew_buf_free(&b);
		return NULL;
	}
	if (err) {
		ew_err("%s: %s", path, strerror(-err));
		*found = -1;
		ew_buf_free(&b);
		return NULL;
	}
	o = ewa_json_parse((const char *)b.data, b.len, why, sizeof(why));
	ew_buf_free(&b);
	if (!o) {
		ew_err("%s: %s", path, why);
		*found = -1;
		return NULL;
	}
	*found = 1;
	return o;
}

int ewa_vstate_get_clock(const struct ewa_vstate *s, const char *ak_hex, struct ewa_clock *c)
{
	char *path = ewa_vstate_path(s, "ak", ak_hex), why[128];
	uint64_t reset, restart;
	struct json_object *o;
	int found;

	o = load_if_any(path, &found);
	if (found == 1 &&
	    (ewa_json_u64(o, "clock", &c->clock, why, sizeof(why)) ||
	     ewa_json_u64(o, "reset_count", &reset, why, sizeof(why)) ||
	     ewa_json_u64(o, "restart_count", &restart, why, sizeof(why)))) {
		ew_err("%s: %s", path, why);
		found = -1;
	} else if (found == 1) {
		c->reset_count = (uint32_t)reset;
		c->restart_count = (uint32_t)restart;
	}
	json_object_put(o);
	free(path);
	return found;
}

int ewa_vstate_put_clock(const struct ewa_vstate *s, const char *ak_hex, const struct ewa_clock *c)
{
	struct json_object *o = json_object_new_object();
	char *path = ewa_vstate_path(s, "ak", ak_hex), now[32];
	int ret;

	json_object_object_add(o, "clock", json_object_new_uint64(c->clock));
	json_object_object_add(o, "reset_count", json_object_new_uint64(c->reset_count));
	json_object_object_add(o, "restart_count", json_object_new_uint64(c->restart_count));
	ewa_utc_now(now, sizeof(now));
	ewa_json_add_str(o, "accepted_at", now);
	ret = ewa_json_save(o, path, 0600);
	json_object_put(o);
	free(path);
	return ret;
}

int ewa_vstate_get_serial(const struct ewa_vstate *s, uint64_t *serial)
{
	char *path = ewa_vstate_path(s, NULL, "manifest-serial"), why[128];
	struct json_object *o;
	int found;

	o = load_if_any(path, &found);
	if (found == 1 && ewa_json_u64(o, "serial", serial, why, sizeof(why))) {
		ew_err("%s: %s", path, why);
		found = -1;
	}
	json_object_put(o);
	free(path);
	return found;
}

int ewa_vstate_put_serial(const struct ewa_vstate *s, uint64_t serial)
{
	struct json_object *o = json_object_new_object();
	char *path = ewa_vstate_path(s, NULL, "manifest-serial");
	int ret;

	json_object_object_add(o, "serial", json_object_new_uint64(serial));
	ret = ewa_json_save(o, path, 0600);
	json_object_put(o);
	free(path);
	return ret;
}

int ewa_vstate_put_verdict(const struct ewa_vstate *s, const char *ak_hex, const char *node,
			   bool admit, const char *reasons)
{
	struct json_object *o = json_object_new_object();
	char *path = ewa_vstate_path(s, "verdicts", ak_hex), now[32];
	int ret;

	ewa_json_add_str(o, "decision", admit ? "admit" : "deny");
	json_object_object_add(o, "at", json_object_new_uint64((uint64_t)time(NULL)));
	ewa_utc_now(now, sizeof(now));
	ewa_json_add_str(o, "at_utc", now);
	json_object_object_add(o, "node", node ? json_object_new_string(node) : NULL);
	ewa_json_add_str(o, "reasons", reasons ? reasons : "");
	ret = ewa_json_save(o, path, 0600);
	json_object_put(o);
	free(path);
	return ret;
}

int ewa_vstate_get_verdict(const struct ewa_vstate *s, const char *ak_hex,
			   struct ewa_verdict_rec *r)
{
	char *path = ewa_vstate_path(s, "verdicts", ak_hex), why[128];
	const char *d, *utc, *reasons;
	struct json_object *o;
	int found;

	memset(r, 0, sizeof(*r));
	o = load_if_any(path, &found);
	if (found == 1) {
		d = ewa_json_str(o, "decision");
		utc = ewa_json_str(o, "at_utc");
		reasons = ewa_json_str(o, "reasons");
		if (!d || (strcmp(d, "admit") && strcmp(d, "deny")) ||
		    ewa_json_u64(o, "at", &r->at, why, sizeof(why))) {
			ew_err("%s: not a verdict record", path);
			found = -1;
		} else {
			r->admit = !strcmp(d, "admit");
			snprintf(r->at_utc, sizeof(r->at_utc), "%s", utc ? utc : "?");
			snprintf(r->reasons, sizeof(r->reasons), "%s", reasons ? reasons : "");
		}
	}
	json_object_put(o);
	free(path);
	return found;
}

int ewa_vstate_put_revoked(const struct ewa_vstate *s, const char *ak_hex, const char *node,
			   const char *reason)
{
	struct json_object *o = json_object_new_object();
	char *path = ewa_vstate_path(s, "revoked", ak_hex), now[32];
	int ret;

	json_object_object_add(o, "node", node ? json_object_new_string(node) : NULL);
	ewa_json_add_str(o, "reason", reason);
	json_object_object_add(o, "at", json_object_new_uint64((uint64_t)time(NULL)));
	ewa_utc_now(now, sizeof(now));
	ewa_json_add_str(o, "at_utc", now);
	ret = ewa_json_save(o, path, 0600);
	json_object_put(o);
	free(path);
	return ret;
}

int ewa_vstate_get_revoked(const struct ewa_vstate *s, const char *ak_hex,
			   struct ewa_revoked_rec *r)
{
	char *path = ewa_vstate_path(s, "revoked", ak_hex);
	const char *utc, *reason;
	struct json_object *o;
	int found;

	memset(r, 0, sizeof(*r));
	o = load_if_any(path, &found);
	if (found == 1) {
		/* Whatever else the file holds, its presence is the revocation. */
		utc = ewa_json_str(o, "at_utc");
		reason = ewa_json_str(o, "reason");
		snprintf(r->at_utc, sizeof(r->at_utc), "%s", utc ? utc : "?");
		snprintf(r->reason, sizeof(r->reason), "%s", reason ? reason : "operator-revoked");
	}
	json_object_put(o);
	free(path);
	return found;
}

int ewa_vstate_del_revoked(const struct ewa_vstate *s, const char *ak_hex)
{
	char *path = ewa_vstate_path(s, "revoked", ak_hex);
	int ret = 1;

	if (unlink(path)) {
		ret = errno == ENOENT ? 0 : -1;
		if (ret)
			ew_err("%s: %s", path, strerror(errno));
	}
	free(path);
	return ret;
}
