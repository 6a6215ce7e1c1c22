// SPDX-License-Identifier: GPL-2.0
/*
 * qp_revoke: revocation latency. Creates NQPS RC QPs on one device, each
 * connected (RESET->INIT->RTR) towards DGID, so that eastwest tracks them
 * all; prints "ready NQPS" and waits. Whoever deletes the caller's job then
 * measures how long until every one of these QPs is in the error state:
 * this program counts the QP-fatal async events and, when all arrived,
 * prints "all_error_realtime_ns T" (CLOCK_REALTIME, comparable with
 * `date +%s%N`) and checks with ibv_query_qp that each QP is in ERR.
 *
 *   qp_revoke DEV GID_INDEX DGID NQPS TIMEOUT_S
 *
 * Exit: 0 all revoked, 1 setup failure, 2 usage, 3 not all revoked in time.
 */

#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rc_attr.h"

static long long realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "qp_revoke: %s: %s\n", what, strerror(err));
	return 1;
}

static int connect_qp(struct ibv_qp *qp, int gid_index, const union ibv_gid *dgid)
{
	struct ibv_qp_attr a;
	int ret;

	rc_init_attr(&a);
	ret = ibv_modify_qp(qp, &a, RC_INIT_MASK);
	if (ret)
		return ret;
	/* Aimed at itself: loopback on the one device. */
	rc_rtr_attr(&a, qp->qp_num, gid_index, dgid);
	return ibv_modify_qp(qp, &a, RC_RTR_MASK);
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init;
	struct ibv_async_event ev;
	struct ibv_context *ctx;
	long nqps, i, fatal = 0, in_err = 0;
	long long deadline, done_ns = 0;
	struct ibv_qp **qps;
	union ibv_gid dgid;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct pollfd pfd;
	int gid_index, ret;

	if (argc != 6) {
		fprintf(stderr, "usage: qp_revoke DEV GID_INDEX DGID NQPS TIMEOUT_S\n");
		return 2;
	}
	gid_index = atoi(argv[2]);
	nqps = atol(argv[4]);
	if (rc_parse_gid(argv[3], &dgid) || nqps <= 0) {
		fprintf(stderr, "qp_revoke: bad DGID or NQPS\n");
		return 2;
	}
	ctx = rc_open_device("qp_revoke", argv[1]);
	if (!ctx)
		return 1;
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		return fail("ibv_alloc_pd", errno);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	qps = calloc(nqps, sizeof(*qps));
	if (!cq || !qps)
		return fail("ibv_create_cq", errno);
	rc_qp_init_attr(&init, cq);
	for (i = 0; i < nqps; i++) {
		qps[i] = ibv_create_qp(pd, &init);
		if (!qps[i])
			return fail("ibv_create_qp", errno);
		ret = connect_qp(qps[i], gid_index, &dgid);
		if (ret)
			return fail("ibv_modify_qp", ret);
	}
	printf("ready %ld\n", nqps);
	fflush(stdout);

	/*
	 * Non-blocking: drain every queued event, poll only when none is left.
	 * Under TCG a poll per event made this reader, not the revocation,
	 * the last to finish.
	 */
	if (fcntl(ctx->async_fd, F_SETFL,
		  fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK))
		return fail("fcntl O_NONBLOCK", errno);
	pfd.fd = ctx->async_fd;
	pfd.events = POLLIN;
	deadline = realtime_ns() + atol(argv[5]) * 1000000000LL;
	while (fatal < nqps) {
		long long left = (deadline - realtime_ns()) / 1000000;

		if (ibv_get_async_event(ctx, &ev)) {
			if (errno != EAGAIN)
				return fail("ibv_get_async_event", errno);
			if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
				break;
			continue;
		}
		if (ev.event_type == IBV_EVENT_QP_FATAL)
			fatal++;
		ibv_ack_async_event(&ev);
		if (fatal == nqps)
			done_ns = realtime_ns();
	}
	for (i = 0; i < nqps; i++) {
		struct ibv_qp_init_attr ia;
		struct ibv_qp_attr qa;

		if (!ibv_query_qp(qps[i], &qa, IBV_QP_STATE, &ia) &&
		    qa.qp_state == IBV_QPS_ERR)
			in_err++;
	}
	printf("fatal_events %ld in_error %ld of %ld\n", fatal, in_err, nqps);
	if (!done_ns)
		return 3;
	printf("all_error_realtime_ns %lld\n", done_ns);
	return in_err == nqps ? 0 : 3;
}
