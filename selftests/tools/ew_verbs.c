// SPDX-License-Identifier: GPL-2.0
/*
 * ew_verbs: single verbs operations for eastwest's tests, with the outcome
 * as an exit code, so a test can assert exactly which call the module
 * refused. Unlike ibv_rc_pingpong it exchanges nothing with the peer: it
 * plays the NeVerMore attacker, who already knows (or guesses) the victim's
 * GID, QPN and PSN.
 *
 *   ew_verbs rc-connect DEV GID_INDEX DGID DQPN [PSN]
 *       create an RC QP, RESET->INIT->RTR towards DGID/DQPN
 *   ew_verbs ud-qkey DEV QKEY    create a UD QP, RESET->INIT with QKEY
 *   ew_verbs raw-qp DEV          create a RAW_PACKET QP
 *   ew_verbs create-ah DEV GID_INDEX DGID
 *   ew_verbs rc-hold DEV GID_INDEX DGID DQPN SECONDS
 *       rc-connect, then on to RTS, print "connected", and wait up to
 *       SECONDS for the QP to be revoked (a QP_FATAL async event): prints
 *       "revoked" and exits 0, or exits 3 if it was still alive
 *
 * Exit: 0 done, 13 (EACCES) refused with EACCES, 1 other failure, 2 usage,
 * 3 (rc-hold) not revoked in time.
 * The failing step and errno are printed on stderr.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_REFUSED 13

struct ctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;	/* the last RC QP created */
};

static int fail(const char *step, int err)
{
	fprintf(stderr, "ew_verbs: %s: %s\n", step, strerror(err));
	return err == EACCES ? EXIT_REFUSED : 1;
}

static int open_dev(const char *name, struct ctx *c)
{
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return fail("ibv_get_device_list", errno);
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (i == n) {
		fprintf(stderr, "ew_verbs: no RDMA device %s\n", name);
		ibv_free_device_list(list);
		return 1;
	}
	c->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!c->ctx)
		return fail("ibv_open_device", errno);
	c->pd = ibv_alloc_pd(c->ctx);
	if (!c->pd)
		return fail("ibv_alloc_pd", errno);
	c->cq = ibv_create_cq(c->ctx, 16, NULL, NULL, 0);
	if (!c->cq)
		return fail("ibv_create_cq", errno);
	return 0;
}

static struct ibv_qp *create_qp(struct ctx *c, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
	};

	return ibv_create_qp(c->pd, &init);
}

static int parse_gid(const char *s, union ibv_gid *gid)
{
	struct in_addr v4;

	memset(gid, 0, sizeof(*gid));
	if (inet_pton(AF_INET6, s, gid->raw) == 1)
		return 0;
	if (inet_pton(AF_INET, s, &v4) == 1) {
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		memcpy(&gid->raw[12], &v4, 4);
		return 0;
	}
	fprintf(stderr, "ew_verbs: bad GID %s\n", s);
	return -1;
}

static int to_init(struct ibv_qp *qp, int extra_mask, uint32_t qkey)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		.qkey = qkey,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | extra_mask;

	if (!(extra_mask & IBV_QP_QKEY))
		mask |= IBV_QP_ACCESS_FLAGS;
	return ibv_modify_qp(qp, &attr, mask);
}

static int rc_connect(struct ctx *c, int gid_index, const char *dgid_s,
		      uint32_t dqpn, uint32_t psn)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn,
		.rq_psn = psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.port_num = 1,
			.grh = { .hop_limit = 1, .sgid_index = gid_index },
		},
	};
	struct ibv_qp *qp;
	int ret;

	if (parse_gid(dgid_s, &attr.ah_attr.grh.dgid))
		return 2;
	qp = create_qp(c, IBV_QPT_RC);
	if (!qp)
		return fail("ibv_create_qp(RC)", errno);
	c->qp = qp;
	printf("qpn 0x%x\n", qp->qp_num);
	ret = to_init(qp, 0, 0);
	if (ret)
		return fail("modify RESET->INIT", ret);
	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return fail("modify INIT->RTR", ret);
	return 0;
}

/* Connect, go to RTS, then wait for the module to revoke the QP. */
static int rc_hold(struct ctx *c, int gid_index, const char *dgid_s,
		   uint32_t dqpn, int seconds)
{
	struct ibv_qp_attr rts = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 1,
	};
	struct ibv_async_event ev;
	struct pollfd pfd = { .fd = c->ctx->async_fd, .events = POLLIN };
	struct ibv_qp *qp;
	int ret;

	ret = rc_connect(c, gid_index, dgid_s, dqpn, 0);
	if (ret)
		return ret;
	/* rc_connect() created the only QP of this context. */
	qp = c->qp;
	ret = ibv_modify_qp(qp, &rts, IBV_QP_STATE | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			    IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		return fail("modify RTR->RTS", ret);
	printf("connected\n");
	fflush(stdout);
	for (;;) {
		ret = poll(&pfd, 1, seconds * 1000);
		if (ret < 0)
			return fail("poll", errno);
		if (ret == 0) {
			printf("not revoked after %d s\n", seconds);
			return 3;
		}
		if (ibv_get_async_event(c->ctx, &ev))
			return fail("ibv_get_async_event", errno);
		ret = ev.event_type;
		ibv_ack_async_event(&ev);
		if (ret == IBV_EVENT_QP_FATAL) {
			printf("revoked\n");
			return 0;
		}
	}
}

static int ud_qkey(struct ctx *c, uint32_t qkey)
{
	struct ibv_qp *qp = create_qp(c, IBV_QPT_UD);
	int ret;

	if (!qp)
		return fail("ibv_create_qp(UD)", errno);
	ret = to_init(qp, IBV_QP_QKEY, qkey);
	if (ret)
		return fail("modify RESET->INIT (qkey)", ret);
	return 0;
}

static int raw_qp(struct ctx *c)
{
	if (!create_qp(c, IBV_QPT_RAW_PACKET))
		return fail("ibv_create_qp(RAW_PACKET)", errno);
	return 0;
}

static int create_ah(struct ctx *c, int gid_index, const char *dgid_s)
{
	struct ibv_ah_attr attr = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .hop_limit = 1, .sgid_index = gid_index },
	};

	if (parse_gid(dgid_s, &attr.grh.dgid))
		return 2;
	if (!ibv_create_ah(c->pd, &attr))
		return fail("ibv_create_ah", errno);
	return 0;
}

static unsigned long num(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*s == '\0' || *end != '\0') {
		fprintf(stderr, "ew_verbs: bad number %s\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct ctx c = {};
	int ret;

	if (argc < 3) {
		fprintf(stderr, "usage: ew_verbs rc-connect|rc-hold|ud-qkey|raw-qp|create-ah DEV ...\n");
		return 2;
	}
	ret = open_dev(argv[2], &c);
	if (ret)
		return ret;
	if (!strcmp(argv[1], "rc-connect") && (argc == 6 || argc == 7))
		return rc_connect(&c, num(argv[3]), argv[4], num(argv[5]),
				  argc == 7 ? num(argv[6]) : 0);
	if (!strcmp(argv[1], "rc-hold") && argc == 7)
		return rc_hold(&c, num(argv[3]), argv[4], num(argv[5]),
			       num(argv[6]));
	if (!strcmp(argv[1], "ud-qkey") && argc == 4)
		return ud_qkey(&c, num(argv[3]));
	if (!strcmp(argv[1], "raw-qp") && argc == 3)
		return raw_qp(&c);
	if (!strcmp(argv[1], "create-ah") && argc == 5)
		return create_ah(&c, num(argv[3]), argv[4]);
	fprintf(stderr, "ew_verbs: bad arguments\n");
	return 2;
}
