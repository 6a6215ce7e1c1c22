/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One generic netlink socket and one exchange per request: send the request
 * followed by a NLMSG_NOOP with NLM_F_ACK (in the same datagram when the
 * request's framing allows it, else in a second one), then read until the
 * NOOP's ack and the end of any dump the request started. Requests the
 * kernel drops silently (a truncated frame, no NLM_F_ACK) still end there,
 * so no request ever waits for a timeout unless the kernel stopped answering.
 */
#ifndef EW_NLFUZZ_WIRE_H
#define EW_NLFUZZ_WIRE_H

#include <stddef.h>
#include <stdint.h>

struct nlmsghdr;

struct nf_sock {
	struct mnl_socket *nl;
	int fd;
	uint16_t family;
	uint8_t *rbuf;
	size_t rbuf_len;
};

struct nf_result {
	int send_errno;		/* sendmsg refused the request (e.g. EMSGSIZE) */
	int has_error;		/* an NLMSG_ERROR came for it */
	int error;		/* its errno, 0 for a plain ack */
	unsigned int n_data;	/* reply messages of the family */
	int dump_done;		/* NLMSG_DONE came */
	char extack[160];	/* the kernel's message, if any */
};

typedef void (*nf_data_cb)(const struct nlmsghdr *nlh, void *arg);

/* Open, bind and resolve the eastwest family; 0 or -1 with a message. */
int nf_open(struct nf_sock *s);
void nf_close(struct nf_sock *s);

/*
 * Send @len bytes of @buf as request @seq (seq + 1 is used for the NOOP)
 * and collect what comes back; @cb sees every data message for @seq.
 * Returns 0, or -1 when nothing came within @timeout_ms (message printed).
 */
int nf_exchange(struct nf_sock *s, const void *buf, size_t len, uint32_t seq,
		struct nf_result *res, nf_data_cb cb, void *arg, int timeout_ms);

#endif
