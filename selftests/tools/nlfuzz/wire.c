// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink side of the fuzzer (see wire.h): libmnl for the socket and
 * the family lookup, plain sendmsg/recv for requests that are malformed on
 * purpose.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <linux/eastwest.h>

#include "../genl.h"
#include "wire.h"

#define NF_RBUF ((size_t)1024 * 1024)
#define NF_SOCKBUF (4 * 1024 * 1024)	/* an int: setsockopt() takes one */

static int resolve_family(struct nf_sock *s)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = genl_put_request(buf, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 1);
	uint32_t seq = 1;
	ssize_t n;
	int ret;

	nlh->nlmsg_seq = seq;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, EASTWEST_FAMILY_NAME);
	if (mnl_socket_sendto(s->nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		n = mnl_socket_recvfrom(s->nl, buf, sizeof(buf));
		if (n < 0)
			return -1;
		ret = mnl_cb_run(buf, n, seq, mnl_socket_get_portid(s->nl),
				 genl_family_id_cb, &s->family);
	} while (ret > 0);
	return ret < 0 ? -1 : 0;
}

int nf_open(struct nf_sock *s)
{
	int one = 1, size = NF_SOCKBUF;

	memset(s, 0, sizeof(*s));
	s->nl = mnl_socket_open(NETLINK_GENERIC);
	if (!s->nl) {
		perror("ew_nlfuzz: socket");
		return -1;
	}
	if (mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("ew_nlfuzz: bind");
		return -1;
	}
	s->fd = mnl_socket_get_fd(s->nl);
	/* Errors carry the kernel's message but not the (huge) request. */
	mnl_socket_setsockopt(s->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(s->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	/* Big buffers: dumps must not overrun, oversized requests must go out.
	 * The FORCE variants need CAP_NET_ADMIN; the plain ones are capped. */
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (setsockopt(s->fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)))
		setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	s->rbuf_len = NF_RBUF;
	s->rbuf = malloc(s->rbuf_len);
	if (!s->rbuf) {
		perror("ew_nlfuzz: malloc");
		return -1;
	}
	if (resolve_family(s) || !s->family) {
		fprintf(stderr, "ew_nlfuzz: generic netlink family %s not found "
			"(is eastwest loaded?)\n", EASTWEST_FAMILY_NAME);
		return -1;
	}
	return 0;
}

void nf_close(struct nf_sock *s)
{
	if (s->nl)
		mnl_socket_close(s->nl);
	free(s->rbuf);
	s->nl = NULL;
	s->rbuf = NULL;
}

/* The extack TLVs of an NLMSG_ERROR or NLMSG_DONE, after @off bytes. */
static void read_extack(const struct nlmsghdr *nlh, size_t off,
			struct nf_result *res)
{
	const struct nlattr *attr;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    off > mnl_nlmsg_get_payload_len(nlh))
		return;
	mnl_attr_for_each(attr, nlh, off) {
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
			snprintf(res->extack, sizeof(res->extack), "%s",
				 mnl_attr_get_str(attr));
	}
}

int nf_exchange(struct nf_sock *s, const void *buf, size_t len, uint32_t seq,
		struct nf_result *res, nf_data_cb cb, void *arg, int timeout_ms)
{
	static const uint8_t pad[4] = { 0 };	/* alignment after the request */
	struct nlmsghdr noop = {
		.nlmsg_len = sizeof(noop),
		.nlmsg_type = NLMSG_NOOP,
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.nlmsg_seq = seq + 1,
	};
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct iovec iov[3];
	struct msghdr mh = {
		.msg_name = &kernel, .msg_namelen = sizeof(kernel), .msg_iov = iov,
	};
	uint32_t nlmsg_len = 0;
	int synced = 0, dump_open = 0, together;

	memset(res, 0, sizeof(*res));
	if (len >= sizeof(nlmsg_len))
		memcpy(&nlmsg_len, buf, sizeof(nlmsg_len));
	/* The kernel walks a datagram by NLMSG_ALIGN(nlmsg_len): the NOOP can
	 * follow only a request framed exactly (plus alignment padding). */
	together = len >= NLMSG_HDRLEN && nlmsg_len == len;
	iov[0].iov_base = (void *)buf;
	iov[0].iov_len = len;
	if (together) {
		iov[1].iov_base = (void *)pad;
		iov[1].iov_len = NLMSG_ALIGN(len) - len;
		iov[2].iov_base = &noop;
		iov[2].iov_len = sizeof(noop);
		mh.msg_iovlen = 3;
	} else {
		mh.msg_iovlen = 1;
	}
	if (sendmsg(s->fd, &mh, 0) < 0) {
		res->send_errno = errno;
		together = 0;	/* the NOOP did not go either */
	}
	if (!together) {
		iov[0].iov_base = &noop;
		iov[0].iov_len = sizeof(noop);
		mh.msg_iovlen = 1;
		if (sendmsg(s->fd, &mh, 0) < 0) {
			perror("ew_nlfuzz: sendmsg (NOOP)");
			return -1;
		}
	}

	while (!synced || dump_open) {
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
		const struct nlmsghdr *nlh;
		ssize_t n;
		int left;

		n = poll(&pfd, 1, timeout_ms);
		if (n == 0) {
			fprintf(stderr, "ew_nlfuzz: no answer for request %u within %d ms%s\n",
				seq, timeout_ms, dump_open ? " (dump unfinished)" : "");
			return -1;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("ew_nlfuzz: poll");
			return -1;
		}
		n = recv(s->fd, s->rbuf, s->rbuf_len, MSG_TRUNC);
		if (n < 0) {
			perror("ew_nlfuzz: recv");
			return -1;
		}
		if ((size_t)n > s->rbuf_len) {
			fprintf(stderr, "ew_nlfuzz: reply of %zd bytes truncated\n", n);
			return -1;
		}
		left = (int)n;
		for (nlh = (const struct nlmsghdr *)s->rbuf; mnl_nlmsg_ok(nlh, left);
		     nlh = mnl_nlmsg_next(nlh, &left)) {
			if (nlh->nlmsg_seq == seq + 1 && nlh->nlmsg_type == NLMSG_ERROR) {
				synced = 1;
				continue;
			}
			if (nlh->nlmsg_seq != seq)
				continue;	/* not ours (cannot happen: one at a time) */
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

				size_t off = sizeof(*e);

				res->has_error = 1;
				res->error = -e->error;
				/* NETLINK_CAP_ACK: the echoed request is only its
				 * header, unless the kernel could not cap it. */
				if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
					off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
				read_extack(nlh, off, res);
				dump_open = 0;
			} else if (nlh->nlmsg_type == NLMSG_DONE) {
				res->dump_done = 1;
				if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(int)) {
					int e;

					memcpy(&e, mnl_nlmsg_get_payload(nlh), sizeof(e));
					res->error = -e;
				}
				read_extack(nlh, sizeof(int), res);
				dump_open = 0;
			} else {
				res->n_data++;
				if (nlh->nlmsg_flags & NLM_F_MULTI)
					dump_open = 1;
				if (cb)
					cb(nlh, arg);
			}
		}
	}
	return 0;
}
