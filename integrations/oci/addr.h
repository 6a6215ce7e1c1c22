/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A container's own address on the fabric: the template's per-node prefix
 * and the 48 bits of the job name's id, on the template's netdev (a VLAN
 * netdev on the RoCE NIC). Its GID is the container's identity.
 */
#ifndef EWOCI_ADDR_H
#define EWOCI_ADDR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

/* Bits of the container id in the address: the EWOCI_ID_CHARS hex digits. */
#define EWOCI_ADDR_ID_BITS	48
/*
 * The address record of job JOB is STATE_DIR/JOB@addr: '@' is in no
 * container id, so no job name (no claim) is ever that.
 */
#define EWOCI_ADDR_SUFFIX	"@addr"
/* How long to wait for the address's GID to appear or go, in seconds. */
#define EWOCI_GID_TIMEOUT	10

struct ewoci_jobaddr {
	bool set;		/* the template gives containers their own address */
	char netdev[16];	/* where the address goes: the job's source netdev */
	struct in6_addr prefix;	/* this node's prefix, low 48 bits zero */
	unsigned int len;	/* the on-link prefix length it is added with */
};

int ewoci_jobaddr_prefix(const char *text, struct ewoci_jobaddr *ja,
			 char *why, size_t whylen);
int ewoci_jobaddr_of(const struct ewoci_jobaddr *ja, const char *id,
		     struct in6_addr *out);
void ewoci_gid_text(const struct in6_addr *a, char *out, size_t len);
int ewoci_jobaddr_up(const struct ewoci_jobaddr *ja, const char *state_dir,
		     const char *job, const char *id);
int ewoci_jobaddr_down(const char *state_dir, const char *job);

#endif /* EWOCI_ADDR_H */
