/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verifier's state directory:
 *
 *   DIR/lock                 flock()ed while a command reads and updates state
 *   DIR/sessions/NODE.lock   flock()ed by the one serve session of that node
 *   DIR/ak/AKNAME.json       clock, resetCount, restartCount of the last
 *                            accepted quote of that AK (replay detection)
 *   DIR/manifest-serial      the highest manifest serial accepted (rollback)
 *   DIR/pending/AKNAME.json  enrollments waiting for their activation
 *   DIR/nodes/NODE.json      the inventory: AKs bound to their EK and node
 *   DIR/verdicts/AKNAME.json the last verdict (admit or deny) for that AK,
 *                            with its time: key release needs a recent admit
 *   DIR/revoked/AKNAME.json  the operator's revocation of that AK: every
 *                            verification denies it and release refuses it
 *                            until "unrevoke" removes the file
 */
#ifndef EWA_VSTATE_H
#define EWA_VSTATE_H

#include <stdbool.h>

#include "ewa.h"

#define EWA_DEFAULT_STATE_DIR	"/var/lib/eastwest-verifier"

struct ewa_vstate {
	char *dir;
	int lock_fd;
	unsigned int locked;	/* nested ewa_vstate_lock() calls */
};

struct ewa_clock {
	uint64_t clock;
	uint32_t reset_count;
	uint32_t restart_count;
};

/* Creates the directories and takes the lock; ew_err() on failure. */
int ewa_vstate_open(const char *dir, struct ewa_vstate *s);
/*
 * The same without the lock: ewa_vstate_lock() takes it (nested calls
 * count) around what reads and writes the state, ewa_vstate_unlock()
 * lets it go, so that a long verification holds up no other node.
 */
int ewa_vstate_open_unlocked(const char *dir, struct ewa_vstate *s);
int ewa_vstate_lock(struct ewa_vstate *s);
void ewa_vstate_unlock(struct ewa_vstate *s);
void ewa_vstate_close(struct ewa_vstate *s);
/*
 * The session lock of @node (a checked node name), taken without waiting:
 * its fd, to close when the session ends, or -EWOULDBLOCK while another
 * session of that node holds it, or another -errno.
 */
int ewa_vstate_session(const struct ewa_vstate *s, const char *node);
char *ewa_vstate_path(const struct ewa_vstate *s, const char *sub, const char *name);

/* 1 found, 0 none yet, -1 unreadable. */
int ewa_vstate_get_clock(const struct ewa_vstate *s, const char *ak_hex, struct ewa_clock *c);
int ewa_vstate_put_clock(const struct ewa_vstate *s, const char *ak_hex, const struct ewa_clock *c);
/* The last verdict of an AK: what key release is allowed on. */
struct ewa_verdict_rec {
	bool admit;
	uint64_t at;		/* seconds since the epoch, the verifier's clock */
	char at_utc[32];
	char reasons[512];	/* the failed checks, comma-separated ("" for admit) */
};

int ewa_vstate_put_verdict(const struct ewa_vstate *s, const char *ak_hex, const char *node,
			   bool admit, const char *reasons);
/* 1 found, 0 none yet, -1 unreadable. */
int ewa_vstate_get_verdict(const struct ewa_vstate *s, const char *ak_hex,
			   struct ewa_verdict_rec *r);
/* An operator's revocation: it outlasts any verdict. */
struct ewa_revoked_rec {
	char at_utc[32];
	char reason[512];	/* "operator-revoked" or "operator-revoked: TEXT" */
};

int ewa_vstate_put_revoked(const struct ewa_vstate *s, const char *ak_hex, const char *node,
			   const char *reason);
/* 1 revoked, 0 not, -1 unreadable (callers deny: fail closed). */
int ewa_vstate_get_revoked(const struct ewa_vstate *s, const char *ak_hex,
			   struct ewa_revoked_rec *r);
/* 1 lifted, 0 was not revoked, -1 error. */
int ewa_vstate_del_revoked(const struct ewa_vstate *s, const char *ak_hex);
int ewa_vstate_get_serial(const struct ewa_vstate *s, uint64_t *serial);
int ewa_vstate_put_serial(const struct ewa_vstate *s, uint64_t serial);

#endif /* EWA_VSTATE_H */
