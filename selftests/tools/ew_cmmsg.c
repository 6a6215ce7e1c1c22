// SPDX-License-Identifier: GPL-2.0
/*
 * ew_cmmsg: rdma_cm messages that carry private data and use no QP. A
 * connect request, an accept (REP) and a reject (REJ) each reach the
 * other side with up to 56, 196 and 148 bytes of the caller's data, on the
 * kernel's GSI QP: a channel to any address, whatever the caller's QPs may
 * reach. A connect and an accept name an RC QP the process makes on the
 * ID's device and never configures, as UCX does for its connections.
 *
 *   ew_cmmsg listen ADDR PORT accept|reject REPLY
 *	take one connect request, print "request: DATA", answer it with an
 *	accept or a reject carrying REPLY and print "accept: OK",
 *	"reject: OK", or the error
 *   ew_cmmsg connect ADDR PORT MSG [FROM]
 *	send a connect request carrying MSG (naming a QP of its own), from
 *	address FROM if given, print "connect: OK" or the error, then the
 *	answer: "accepted: DATA", "rejected: DATA", or "no answer" after 5 s
 *   ew_cmmsg listen-ud ... | connect-ud ...
 *	the same over UD IDs (RDMA_PS_UDP): a SIDR request and its reply
 *   ew_cmmsg listen-ib PORT accept|reject REPLY
 *	listen on every AF_IB address, restricted to AF_IB (afonly), with the
 *	service ID of TCP port PORT: rdma_cm lets it share the port with an
 *	IP listener, and gives it the requests of every address
 *   ew_cmmsg connect-via ADDR PORT MSG VIA
 *	a connect request to ADDR whose path record the caller sets itself
 *	(RDMA_OPTION_IB_PATH) to the one the route to VIA has: the request
 *	goes to VIA's GID, though the ID's destination address is ADDR
 *   ew_cmmsg connect-claim ADDR PORT MSG FROM CLAIM
 *	a connect request from FROM to ADDR whose path record (set as for
 *	connect-via, from a route from FROM to ADDR) names CLAIM's GID as its
 *	source: the request claims to come from CLAIM, and the answer goes
 *	there
 *   ew_cmmsg connect-qpn ADDR PORT MSG QPN
 *	a connect request that names QP number QPN ("own": an RC QP this
 *	process creates on the ID's device); a rejection is followed by
 *	"status: N", the CM's reason (10: stale connection, the number is a
 *	live connection's)
 *   ew_cmmsg listen-qpn ADDR PORT QPN REPLY
 *	take one connect request and accept it naming QP number QPN
 *	("own": an RC QP this process creates)
 *
 * With EW_CMMSG_HOLD=FILE in the environment a listener waits, once it has
 * printed the request, until FILE exists (at most 20 s) before it answers.
 *
 * Exit status: 0 done, 13 the message was refused with EACCES, 1 anything
 * else.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/sa.h>
#include <infiniband/ib.h>
#include <rdma/rdma_cma.h>

#define DATA_MAX 56

/* Print the CM's reason after a rejection (connect-qpn). */
static int print_status;

static int fail(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, strerror(errno));
	return 1;
}

/* The error of a refused message: 13 for EACCES. */
static int refused(const char *what)
{
	int err = errno;

	printf("%s: %s\n", what, strerror(err));
	return err == EACCES ? 13 : 1;
}

/* The next CM event within @ms, or NULL (errno ETIMEDOUT). */
static struct rdma_cm_event *next_event(struct rdma_event_channel *ch, int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, ms) <= 0) {
		errno = ETIMEDOUT;
		return NULL;
	}
	return rdma_get_cm_event(ch, &ev) ? NULL : ev;
}

/* The next event, which must be @want. */
static int expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev = next_event(ch, 10000);

	if (!ev)
		return fail(rdma_event_str(want));
	if (ev->event != want) {
		fprintf(stderr, "cm event %s (status %d), wanted %s\n",
			rdma_event_str(ev->event), ev->status, rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return 1;
	}
	rdma_ack_cm_event(ev);
	return 0;
}

/* Print the private data of @ev after @what, as a string. */
static void print_data(const char *what, const struct rdma_cm_event *ev)
{
	int ud = ev->id->ps == RDMA_PS_UDP;
	const void *data = ud ? ev->param.ud.private_data : ev->param.conn.private_data;
	size_t n = ud ? ev->param.ud.private_data_len : ev->param.conn.private_data_len;
	char buf[DATA_MAX + 1] = "";

	if (data) {
		if (n > DATA_MAX)
			n = DATA_MAX;
		memcpy(buf, data, n);
	}
	printf("%s: %s\n", what, buf);
}

/* Wait for the file EW_CMMSG_HOLD names, if it names one (at most 20 s). */
static void hold(void)
{
	const char *file = getenv("EW_CMMSG_HOLD");
	int n;

	for (n = 0; file && n < 200 && access(file, F_OK); n++)
		usleep(100000);
}

/* An RC QP of this process on @verbs: its number, or 0. */
static uint32_t own_qpn(struct ibv_context *verbs)
{
	struct ibv_pd *pd = ibv_alloc_pd(verbs);
	struct ibv_cq *cq = pd ? ibv_create_cq(verbs, 1, NULL, NULL, 0) : NULL;
	struct ibv_qp_init_attr a = { .qp_type = IBV_QPT_RC,
				      .cap = { .max_send_wr = 1, .max_recv_wr = 1,
					       .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp *qp;

	a.send_cq = a.recv_cq = cq;
	qp = cq ? ibv_create_qp(pd, &a) : NULL;
	if (!qp)
		return 0;
	printf("own qpn 0x%x\n", qp->qp_num);
	return qp->qp_num;
}

static int do_listen(struct rdma_event_channel *ch, struct rdma_cm_id *id,
		     const struct addrinfo *ai, const char *how,
		     const char *reply, uint32_t qpn)
{
	struct rdma_conn_param param = { .private_data = reply,
					 .private_data_len = strlen(reply) + 1,
					 .qp_num = qpn,
					 .responder_resources = 1,
					 .initiator_depth = 1 };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *conn;

	if (rdma_bind_addr(id, ai->ai_addr))
		return fail("rdma_bind_addr");
	if (rdma_listen(id, 1))
		return refused("listen");
	printf("listening\n");
	fflush(stdout);
	ev = next_event(ch, 30000);
	if (!ev || ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		printf("no request\n");
		return 1;
	}
	print_data("request", ev);
	conn = ev->id;
	rdma_ack_cm_event(ev);
	fflush(stdout);
	hold();
	if (!strcmp(how, "reject")) {
		if (rdma_reject(conn, reply, strlen(reply) + 1))
			return refused("reject");
		printf("reject: OK\n");
		return 0;
	}
	if (!qpn && id->ps == RDMA_PS_UDP) {
		param.qp_num = 0x456;	/* the SIDR reply's QP: none */
	} else if (!qpn) {
		param.qp_num = own_qpn(conn->verbs);
		if (!param.qp_num)
			return fail("own QP");
	}
	if (rdma_accept(conn, &param))
		return refused("accept");
	printf("accept: OK\n");
	return 0;
}

/* @r in the wire format RDMA_OPTION_IB_PATH takes, as the primary path. */
static void path_data_from(const struct ibv_sa_path_rec *r, struct ibv_path_data *d)
{
	struct ibv_path_record *p = &d->path;

	memset(d, 0, sizeof(*d));
	d->flags = IBV_PATH_FLAG_GMP | IBV_PATH_FLAG_PRIMARY | IBV_PATH_FLAG_BIDIRECTIONAL;
	p->dgid = r->dgid;
	p->sgid = r->sgid;
	p->dlid = r->dlid;
	p->slid = r->slid;
	p->flowlabel_hoplimit = htobe32(be32toh(r->flow_label) << 8 | r->hop_limit);
	p->tclass = r->traffic_class;
	p->reversible_numpath = (r->reversible ? IBV_PATH_RECORD_REVERSIBLE : 0) | r->numb_path;
	p->pkey = r->pkey;
	p->qosclass_sl = htobe16(r->sl);
	p->mtu = (uint8_t)(r->mtu_selector << 6 | r->mtu);
	p->rate = (uint8_t)(r->rate_selector << 6 | r->rate);
	p->packetlifetime = (uint8_t)(r->packet_life_time_selector << 6 | r->packet_life_time);
	p->preference = r->preference;
}

/* The RoCE GID of IPv4 or IPv6 address @a. */
static void gid_of(const struct addrinfo *a, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (a->ai_family == AF_INET6) {
		memcpy(gid->raw, &((struct sockaddr_in6 *)a->ai_addr)->sin6_addr, 16);
		return;
	}
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], &((struct sockaddr_in *)a->ai_addr)->sin_addr, 4);
}

/*
 * Resolve @id's address to @ai, from @from if not NULL; with @via, set its
 * path record to the one a route (from @from) to @via has instead of
 * resolving its own route, with @claim's GID as its source if not NULL.
 */
static int resolve(struct rdma_event_channel *ch, struct rdma_cm_id *id,
		   const struct addrinfo *ai, const struct addrinfo *from,
		   const struct addrinfo *via, const struct addrinfo *claim)
{
	struct rdma_cm_id *vid;
	struct ibv_path_data d;

	if (rdma_resolve_addr(id, from ? from->ai_addr : NULL, ai->ai_addr, 5000) ||
	    expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED))
		return -1;
	if (!via)
		return rdma_resolve_route(id, 5000) ||
		       expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED) ? -1 : 0;
	if (rdma_create_id(ch, &vid, NULL, id->ps) ||
	    rdma_resolve_addr(vid, from ? from->ai_addr : NULL, via->ai_addr, 5000) ||
	    expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED) ||
	    rdma_resolve_route(vid, 5000) ||
	    expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED) || !vid->route.path_rec)
		return -1;
	path_data_from(vid->route.path_rec, &d);
	if (claim)
		gid_of(claim, &d.path.sgid);
	return rdma_set_option(id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, &d, sizeof(d));
}

static int do_connect(struct rdma_event_channel *ch, struct rdma_cm_id *id,
		      const struct addrinfo *ai, const char *msg,
		      const struct addrinfo *from, const struct addrinfo *via,
		      const struct addrinfo *claim, const char *qpn)
{
	struct rdma_conn_param param = { .private_data = msg,
					 .private_data_len = strlen(msg) + 1,
					 .qp_num = 0x123,	/* UD: no QP */
					 .responder_resources = 1,
					 .initiator_depth = 1,
					 .retry_count = 1 };
	struct rdma_cm_event *ev;
	int ret = 0;

	if (resolve(ch, id, ai, from, via, claim))
		return fail("resolve");
	if ((!qpn && id->ps != RDMA_PS_UDP) || (qpn && !strcmp(qpn, "own"))) {
		param.qp_num = own_qpn(id->verbs);
		if (!param.qp_num)
			return fail("own QP");
	} else if (qpn) {
		param.qp_num = strtoul(qpn, NULL, 0);
	}
	if (rdma_connect(id, &param))
		return refused("connect");
	printf("connect: OK\n");
	fflush(stdout);
	ev = next_event(ch, 5000);
	if (!ev) {
		printf("no answer\n");
		return 0;
	}
	/* UD (SIDR): a reply is ESTABLISHED, a rejection UNREACHABLE. */
	if (ev->event == RDMA_CM_EVENT_CONNECT_RESPONSE ||
	    (ev->event == RDMA_CM_EVENT_ESTABLISHED && id->ps == RDMA_PS_UDP))
		print_data("accepted", ev);
	else if (ev->event == RDMA_CM_EVENT_REJECTED ||
		 (ev->event == RDMA_CM_EVENT_UNREACHABLE && id->ps == RDMA_PS_UDP &&
		  ev->status != -ETIMEDOUT)) {
		print_data("rejected", ev);
		if (print_status)
			printf("status: %d\n", ev->status);
	} else
		printf("answer: %s\n", rdma_event_str(ev->event));
	rdma_ack_cm_event(ev);
	return ret;
}

int main(int argc, char **argv)
{
	enum rdma_port_space ps = RDMA_PS_TCP;
	struct addrinfo *ai, *from = NULL, *via = NULL, *claim = NULL;
	struct rdma_event_channel *ch;
	const char *verb = argc > 1 ? argv[1] : "";
	struct rdma_cm_id *id;
	int listen;

	if (!strcmp(verb, "listen-ud") || !strcmp(verb, "connect-ud")) {
		ps = RDMA_PS_UDP;
		verb = verb[0] == 'l' ? "listen" : "connect";
	}
	listen = argc == 6 && !strcmp(verb, "listen") &&
		 (!strcmp(argv[4], "accept") || !strcmp(argv[4], "reject"));
	if (argc == 6 && !strcmp(verb, "listen-qpn"))
		listen = 3;
	if (argc == 5 && !strcmp(verb, "listen-ib") &&
	    (!strcmp(argv[3], "accept") || !strcmp(argv[3], "reject")))
		listen = 2;
	if (!listen && !((argc == 5 || argc == 6) && !strcmp(verb, "connect")) &&
	    !(argc == 6 && !strcmp(verb, "connect-via")) &&
	    !(argc == 7 && !strcmp(verb, "connect-claim")) &&
	    !(argc == 6 && !strcmp(verb, "connect-qpn"))) {
		fprintf(stderr, "usage: ew_cmmsg listen[-ud] ADDR PORT accept|reject REPLY"
			" | listen-ib PORT accept|reject REPLY"
			" | listen-qpn ADDR PORT QPN REPLY"
			" | connect[-ud] ADDR PORT MSG [FROM] | connect-via ADDR PORT MSG VIA"
			" | connect-claim ADDR PORT MSG FROM CLAIM"
			" | connect-qpn ADDR PORT MSG QPN\n");
		return 2;
	}
	if (strlen(argv[listen == 1 || listen == 3 ? 5 : 4]) >= DATA_MAX) {
		fprintf(stderr, "ew_cmmsg: at most %d bytes of data\n", DATA_MAX - 1);
		return 2;
	}
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, ps))
		return fail("rdma_create_id");
	if (!strcmp(verb, "listen-ib")) {
		static struct sockaddr_ib sib = { .sib_family = AF_IB };
		static struct addrinfo ib_ai = { .ai_family = AF_IB,
						 .ai_addr = (struct sockaddr *)&sib,
						 .ai_addrlen = sizeof(sib) };
		int one = 1;

		sib.sib_sid = htobe64(RDMA_IB_IP_PS_TCP | strtoul(argv[2], NULL, 0));
		sib.sib_sid_mask = htobe64(~0ULL);
		if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY,
				    &one, sizeof(one)))
			return fail("afonly");
		return do_listen(ch, id, &ib_ai, argv[3], argv[4], 0);
	}
	if (listen == 3) {
		if (getaddrinfo(argv[2], argv[3], NULL, &ai))
			return fail("getaddrinfo");
		return do_listen(ch, id, ai, "accept", argv[5],
				 strcmp(argv[4], "own") ?
				 strtoul(argv[4], NULL, 0) : 0);
	}
	if (!strcmp(verb, "connect-qpn")) {
		if (getaddrinfo(argv[2], argv[3], NULL, &ai))
			return fail("getaddrinfo");
		print_status = 1;
		return do_connect(ch, id, ai, argv[4], NULL, NULL, NULL, argv[5]);
	}
	if (getaddrinfo(argv[2], argv[3], NULL, &ai) ||
	    (!listen && argc == 6 &&
	     getaddrinfo(argv[5], NULL, NULL,
			 strcmp(verb, "connect") ? &via : &from)) ||
	    (argc == 7 && (getaddrinfo(argv[5], NULL, NULL, &from) ||
			   getaddrinfo(argv[6], NULL, NULL, &claim))))
		return fail("getaddrinfo");
	if (claim)
		via = ai;
	return listen ? do_listen(ch, id, ai, argv[4], argv[5], 0) :
			do_connect(ch, id, ai, argv[4], from, via, claim, NULL);
}
