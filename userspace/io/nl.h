/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic netlink transport for the eastwest family (libmnl).
 */
#ifndef EW_NL_H
#define EW_NL_H

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>

/* What the kernel said about the last failed request. */
struct ewnl_err {
	int code;		/* positive errno; 0: no error */
	char msg[256];		/* extack message, "" if none */
	char attr[128];		/* the attribute at OFFS (or missing), "" */
	int top_type;		/* top-level attribute holding OFFS, or 0 */
	int top_index;		/* its index among its type's occurrences */
};

struct ewnl {
	struct mnl_socket *sock;
	uint32_t portid;
	uint32_t seq;
	uint16_t family;	/* eastwest family id */
	uint32_t version;	/* its version */
	uint32_t grp_events;	/* "events" multicast group, 0 if none */
	uint32_t grp_ctrl;	/* nlctrl "notify" group, 0 if none */
	char *sbuf;		/* the request being built (one at a time) */
	size_t slen;
	char *rbuf;
	size_t rlen;
	uint8_t cmd;		/* command of the last request */
	struct ewnl_err err;
};

/* Reply callback: MNL_CB_OK, or MNL_CB_ERROR with errno set. */
typedef int (*ewnl_cb)(const struct nlmsghdr *nlh, void *data);

int ewnl_open(struct ewnl **nlp);
int ewnl_open_family(struct ewnl **nlp, const char *name);
void ewnl_close(struct ewnl *nl);
struct nlmsghdr *ewnl_req(struct ewnl *nl, uint8_t cmd, uint16_t flags);
struct nlmsghdr *ewnl_genl_req(struct ewnl *nl, uint8_t cmd, uint8_t version,
			       uint16_t flags);
int ewnl_do(struct ewnl *nl, struct nlmsghdr *req, ewnl_cb cb, void *data);
int ewnl_dump(struct ewnl *nl, struct nlmsghdr *req, ewnl_cb cb, void *data,
	      void (*reset)(void *data));
int ewnl_report(struct ewnl *nl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int ewnl_exit_code(int err);
int ewnl_subscribe(struct ewnl *nl, uint32_t group);
int ewnl_recv_ntf(struct ewnl *nl, ewnl_cb cb, void *data);

/* The payload of a generic netlink message, after struct genlmsghdr. */
#define EWNL_HDRLEN	GENL_HDRLEN

#endif /* EW_NL_H */
