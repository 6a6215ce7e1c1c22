// SPDX-License-Identifier: GPL-2.0
/*
 * cm_rate: the rdma_cm connect rate. One process is both the server (a
 * listening id) and the client, on one event channel, and performs CONNECTS
 * full cycles: create id, resolve address and route, create the QP, connect,
 * accept, until both sides are ESTABLISHED; then disconnect (both sides
 * DISCONNECTED), destroy both QPs and ids. The QPs are user QPs created by
 * librdmacm, so each side's INIT, RTR and RTS goes through ibv_modify_qp
 * and uverbs, which is where eastwest hooks.
 *
 * Prints "key value" lines: the cycles done, connects per second over the
 * whole run (teardown included), and the lower quartile, median and 90th
 * percentile of the connect time (create id to both ESTABLISHED) and of the
 * whole cycle, in us. The lower quartile is there because under TCG on a busy
 * host many connects wait milliseconds for a vCPU: it still measures the code
 * when the median and the rate measure the host.
 *
 *   cm_rate ADDR PORT CONNECTS
 *
 * Exit status: 0 done, 2 bad usage, 13 an operation was refused (EACCES or
 * EPERM, or the connection was rejected: what eastwest does), 1 anything else.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXIT_REFUSED 13
/* Under TCG on a shared host a single CM step can take seconds. */
#define EVENT_TIMEOUT_MS 60000
#define RESOLVE_TIMEOUT_MS 10000

struct bench {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	struct ibv_context *verbs;	/* the one device every id must be on */
	struct ibv_pd *pd;
	struct ibv_cq *cq;		/* shared: no work is posted */
	struct cycle_state {
		struct rdma_cm_id *cid, *sid;	/* client, server side */
		bool addr, route, c_est, s_est, c_disc, s_disc;
	} cur;
	int rc;				/* exit status of the first failure */
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Record a failure of WHAT (errno set by librdmacm); returns -1. */
static int fail(struct bench *b, const char *what)
{
	int err = errno;

	if (b->rc)
		return -1;
	b->rc = (err == EACCES || err == EPERM) ? EXIT_REFUSED : 1;
	fprintf(stderr, "cm_rate: %s%s: %s\n",
		b->rc == EXIT_REFUSED ? "refused: " : "", what, strerror(err));
	return -1;
}

/* The PD and CQ, on the device of the first id that has one. */
static int setup_device(struct bench *b, struct rdma_cm_id *id)
{
	if (b->verbs) {
		if (id->verbs != b->verbs) {
			errno = EXDEV;
			return fail(b, "ids on different devices");
		}
		return 0;
	}
	b->verbs = id->verbs;
	b->pd = ibv_alloc_pd(b->verbs);
	if (!b->pd)
		return fail(b, "ibv_alloc_pd");
	b->cq = ibv_create_cq(b->verbs, 16, NULL, NULL, 0);
	if (!b->cq)
		return fail(b, "ibv_create_cq");
	return 0;
}

static int create_qp(struct bench *b, struct rdma_cm_id *id, const char *side)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	char what[64];

	if (setup_device(b, id))
		return -1;
	attr.send_cq = b->cq;
	attr.recv_cq = b->cq;
	if (rdma_create_qp(id, b->pd, &attr)) {
		snprintf(what, sizeof(what), "rdma_create_qp (%s)", side);
		return fail(b, what);
	}
	return 0;
}

static struct rdma_conn_param conn_param(void)
{
	struct rdma_conn_param p = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};

	return p;
}

/* The server's side of a connection request: a QP, then accept. */
static int on_request(struct bench *b, struct rdma_cm_id *id)
{
	struct rdma_conn_param p = conn_param();

	if (b->cur.sid) {
		errno = EBUSY;
		rdma_reject(id, NULL, 0);
		return fail(b, "a second connection request in one cycle");
	}
	b->cur.sid = id;
	if (create_qp(b, id, "server")) {
		rdma_reject(id, NULL, 0);
		return -1;
	}
	if (rdma_accept(id, &p))
		return fail(b, "rdma_accept");
	return 0;
}

static int on_client_event(struct bench *b, struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		b->cur.addr = true;
		return 0;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		b->cur.route = true;
		return 0;
	case RDMA_CM_EVENT_ESTABLISHED:
		b->cur.c_est = true;
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
		b->cur.c_disc = true;
		return 0;
	case RDMA_CM_EVENT_REJECTED:
		/* The server could not accept: its RTR was refused. */
		errno = EACCES;
		return fail(b, "connection rejected by the server");
	default:
		errno = ev->status < 0 ? -ev->status : EPROTO;
		return fail(b, rdma_event_str(ev->event));
	}
}

static int on_server_event(struct bench *b, struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		b->cur.s_est = true;
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
		/* Answer the client's request (DREP), which completes its side. */
		b->cur.s_disc = true;
		if (rdma_disconnect(ev->id))
			return fail(b, "rdma_disconnect (server)");
		return 0;
	default:
		errno = ev->status < 0 ? -ev->status : EPROTO;
		return fail(b, rdma_event_str(ev->event));
	}
}

static int unexpected(struct bench *b, struct rdma_cm_event *ev)
{
	errno = EPROTO;
	return fail(b, rdma_event_str(ev->event));
}

/* Wait for one event and handle it. */
static int step(struct bench *b)
{
	struct pollfd pfd = { .fd = b->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int ret;

	ret = poll(&pfd, 1, EVENT_TIMEOUT_MS);
	if (ret <= 0) {
		errno = ret ? errno : ETIMEDOUT;
		return fail(b, "waiting for a CM event");
	}
	if (rdma_get_cm_event(b->ch, &ev))
		return fail(b, "rdma_get_cm_event");
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && ev->listen_id == b->listen)
		ret = on_request(b, ev->id);
	else if (ev->event == RDMA_CM_EVENT_TIMEWAIT_EXIT)
		ret = 0;
	else if (ev->id == b->cur.cid)
		ret = on_client_event(b, ev);
	else if (ev->id == b->cur.sid)
		ret = on_server_event(b, ev);
	else
		ret = unexpected(b, ev);
	rdma_ack_cm_event(ev);
	return ret;
}

/* Handle events until *x and *y (the same flag twice for one). */
static int wait_for(struct bench *b, const bool *x, const bool *y)
{
	while (!*x || !*y)
		if (step(b))
			return -1;
	return 0;
}

/* Release whatever the cycle holds (after a failure too). */
static void teardown(struct bench *b)
{
	if (b->cur.sid) {
		if (b->cur.sid->qp)
			rdma_destroy_qp(b->cur.sid);
		rdma_destroy_id(b->cur.sid);
	}
	if (b->cur.cid) {
		if (b->cur.cid->qp)
			rdma_destroy_qp(b->cur.cid);
		rdma_destroy_id(b->cur.cid);
	}
	memset(&b->cur, 0, sizeof(b->cur));
}

/* One cycle; *connect_us is the time to both sides ESTABLISHED. */
static int cycle(struct bench *b, struct sockaddr *dst, double *connect_us)
{
	struct rdma_conn_param p = conn_param();
	double t0 = now_us();

	if (rdma_create_id(b->ch, &b->cur.cid, NULL, RDMA_PS_TCP))
		return fail(b, "rdma_create_id");
	if (rdma_resolve_addr(b->cur.cid, NULL, dst, RESOLVE_TIMEOUT_MS))
		return fail(b, "rdma_resolve_addr");
	if (wait_for(b, &b->cur.addr, &b->cur.addr))
		return -1;
	if (rdma_resolve_route(b->cur.cid, RESOLVE_TIMEOUT_MS))
		return fail(b, "rdma_resolve_route");
	if (wait_for(b, &b->cur.route, &b->cur.route))
		return -1;
	if (create_qp(b, b->cur.cid, "client"))
		return -1;
	if (rdma_connect(b->cur.cid, &p))
		return fail(b, "rdma_connect");
	if (wait_for(b, &b->cur.c_est, &b->cur.s_est))
		return -1;
	*connect_us = now_us() - t0;
	if (rdma_disconnect(b->cur.cid))
		return fail(b, "rdma_disconnect (client)");
	return wait_for(b, &b->cur.c_disc, &b->cur.s_disc);
}

static int listen_on(struct bench *b, struct sockaddr *addr)
{
	if (rdma_create_id(b->ch, &b->listen, NULL, RDMA_PS_TCP))
		return fail(b, "rdma_create_id (listen)");
	if (rdma_bind_addr(b->listen, addr))
		return fail(b, "rdma_bind_addr");
	if (rdma_listen(b->listen, 16))
		return fail(b, "rdma_listen");
	return 0;
}

static void print_stats(const char *name, double *v, long n)
{
	qsort(v, n, sizeof(*v), cmp);
	printf("%s_p25_us %.0f\n", name, v[n / 4]);
	printf("%s_median_us %.0f\n", name, v[n / 2]);
	printf("%s_p90_us %.0f\n", name, v[n * 9 / 10]);
}

int main(int argc, char **argv)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	struct bench b = { 0 };
	double *conn, *cyc, t0, t1, total;
	long n, i;
	char *end;

	if (argc != 4) {
		fprintf(stderr, "usage: cm_rate ADDR PORT CONNECTS\n");
		return 2;
	}
	if (inet_pton(AF_INET, argv[1], &addr.sin_addr) != 1) {
		fprintf(stderr, "cm_rate: bad IPv4 address %s\n", argv[1]);
		return 2;
	}
	n = strtol(argv[2], &end, 10);
	if (*end || n < 1 || n > 65535) {
		fprintf(stderr, "cm_rate: bad port %s\n", argv[2]);
		return 2;
	}
	addr.sin_port = htons(n);
	n = strtol(argv[3], &end, 10);
	if (*end || n < 1 || n > 1000000) {
		fprintf(stderr, "cm_rate: bad number of connects %s\n", argv[3]);
		return 2;
	}
	conn = calloc(n, sizeof(*conn));
	cyc = calloc(n, sizeof(*cyc));
	if (!conn || !cyc)
		return 1;

	b.ch = rdma_create_event_channel();
	if (!b.ch) {
		fail(&b, "rdma_create_event_channel");
		return b.rc;
	}
	if (listen_on(&b, (struct sockaddr *)&addr))
		return b.rc;
	t0 = now_us();
	for (i = 0; i < n; i++) {
		double c0 = now_us();

		if (cycle(&b, (struct sockaddr *)&addr, &conn[i])) {
			fprintf(stderr, "cm_rate: cycle %ld of %ld failed\n", i + 1, n);
			teardown(&b);
			break;
		}
		teardown(&b);
		cyc[i] = now_us() - c0;
	}
	t1 = now_us();
	printf("cycles %ld\n", i);
	if (i == n) {
		total = t1 - t0;
		printf("connects_per_s %.2f\n", n * 1e6 / total);
		print_stats("connect", conn, n);
		print_stats("cycle", cyc, n);
	}
	/* The PD and CQ first: they live on the listening id's device. */
	if (b.cq)
		ibv_destroy_cq(b.cq);
	if (b.pd)
		ibv_dealloc_pd(b.pd);
	rdma_destroy_id(b.listen);
	rdma_destroy_event_channel(b.ch);
	free(conn);
	free(cyc);
	return b.rc;
}
