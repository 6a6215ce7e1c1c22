// SPDX-License-Identifier: GPL-2.0
/*
 * ew_iwconn: an rdma_cm connection whose QP is handed over by number, as
 * the iWARP connection manager allows: the QP is created with plain
 * ibv_create_qp() and never modified by the caller (no rdma_create_qp(),
 * so librdmacm makes no modify either); rdma_connect() and rdma_accept()
 * name it in conn_param.qp_num, and the device connects it itself.
 *
 *   ew_iwconn server ADDR PORT     accept one connection, print the message
 *   ew_iwconn client ADDR PORT MSG connect, send MSG (up to 63 bytes)
 *
 * Prints "qp created: OK" or "qp created: <errno text>", then for the
 * client "sent: OK" and for the server "received: MSG". Exit status: 0
 * done, 13 QP creation refused with EACCES, 1 anything else.
 *
 * The client disconnects once its send has completed, and the server stays
 * until it sees that: a server that closed its end as soon as the message
 * had arrived could fail the client's send completion on siw (its
 * transmit path still running when the connection went).
 */
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

#define MSG_LEN 64

struct conn {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char buf[MSG_LEN];
};

static int fail(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, strerror(errno));
	return 1;
}

/* The next CM event, which must be @want. */
static int expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
		  struct rdma_cm_id **id)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev))
		return fail("rdma_get_cm_event");
	if (ev->event != want) {
		fprintf(stderr, "cm event %s (status %d), wanted %s\n",
			rdma_event_str(ev->event), ev->status,
			rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return 1;
	}
	if (id)
		*id = ev->id;
	rdma_ack_cm_event(ev);
	return 0;
}

/* A QP of @verbs by ibv_create_qp(): 13 if refused with EACCES. */
static int make_qp(struct ibv_context *verbs, struct conn *c)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	c->pd = ibv_alloc_pd(verbs);
	c->cq = c->pd ? ibv_create_cq(verbs, 8, NULL, NULL, 0) : NULL;
	if (!c->cq)
		return fail("pd/cq");
	c->mr = ibv_reg_mr(c->pd, c->buf, sizeof(c->buf), IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr)
		return fail("ibv_reg_mr");
	init.send_cq = c->cq;
	init.recv_cq = c->cq;
	c->qp = ibv_create_qp(c->pd, &init);
	if (!c->qp) {
		int err = errno;

		printf("qp created: %s\n", strerror(err));
		return err == EACCES ? 13 : 1;
	}
	printf("qp created: OK\n");
	fflush(stdout);
	return 0;
}

/* Post the buffer: to receive into (@send false), or to send. */
static int post(struct conn *c, bool send)
{
	struct ibv_sge sge = { .addr = (uintptr_t)c->buf, .length = MSG_LEN,
			       .lkey = c->mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *bad_r;
	struct ibv_send_wr swr = { .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *bad_s;

	return send ? ibv_post_send(c->qp, &swr, &bad_s) :
		      ibv_post_recv(c->qp, &rwr, &bad_r);
}

static int wait_wc(struct conn *c)
{
	struct ibv_wc wc;
	int n;

	do {
		n = ibv_poll_cq(c->cq, 1, &wc);
	} while (n == 0);
	if (n < 0 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "completion: %s\n",
			n < 0 ? "poll failed" : ibv_wc_status_str(wc.status));
		return 1;
	}
	return 0;
}

static int run(int server, const char *addr, const char *port, const char *msg)
{
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1 };
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id, *conn_id;
	struct addrinfo *ai;
	struct conn c = { 0 };
	int ret;

	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return fail("rdma_create_id");
	if (getaddrinfo(addr, port, NULL, &ai))
		return fail("getaddrinfo");
	if (server) {
		if (rdma_bind_addr(id, ai->ai_addr) || rdma_listen(id, 1))
			return fail("rdma_listen");
		printf("listening\n");
		fflush(stdout);
		if (expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST, &conn_id))
			return 1;
		ret = make_qp(conn_id->verbs, &c);
		if (ret)
			return ret;
		if (post(&c, false))
			return fail("ibv_post_recv");
		param.qp_num = c.qp->qp_num;
		if (rdma_accept(conn_id, &param))
			return fail("rdma_accept");
		if (expect(ch, RDMA_CM_EVENT_ESTABLISHED, NULL) || wait_wc(&c))
			return 1;
		c.buf[MSG_LEN - 1] = '\0';
		printf("received: %s\n", c.buf);
		fflush(stdout);
		return expect(ch, RDMA_CM_EVENT_DISCONNECTED, NULL);
	}
	if (rdma_resolve_addr(id, NULL, ai->ai_addr, 5000) ||
	    expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL) ||
	    rdma_resolve_route(id, 5000) ||
	    expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL))
		return fail("resolve");
	ret = make_qp(id->verbs, &c);
	if (ret)
		return ret;
	param.qp_num = c.qp->qp_num;
	if (rdma_connect(id, &param))
		return fail("rdma_connect");
	if (expect(ch, RDMA_CM_EVENT_ESTABLISHED, NULL))
		return 1;
	snprintf(c.buf, sizeof(c.buf), "%s", msg);
	if (post(&c, true))
		return fail("ibv_post_send");
	if (wait_wc(&c))
		return 1;
	printf("sent: OK\n");
	fflush(stdout);
	if (rdma_disconnect(id))
		return fail("rdma_disconnect");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "server"))
		return run(1, argv[2], argv[3], NULL);
	if (argc == 5 && !strcmp(argv[1], "client"))
		return run(0, argv[2], argv[3], argv[4]);
	fprintf(stderr, "usage: ew_iwconn server ADDR PORT | client ADDR PORT MSG\n");
	return 2;
}
