// SPDX-License-Identifier: GPL-2.0
/*
 * modify_cost: time ibv_modify_qp through a whole connection cycle
 * (RESET->INIT->RTR->RTS->RESET) of two RC QPs on one device connected to
 * each other, looped.
 * Prints the mean, median and lower quartile cost of a modify in ns, and
 * of the policed INIT->RTR step alone, as "key value" lines a script can
 * read. The lower quartile is there because under TCG on a busy host some
 * modifies wait milliseconds for the vCPU: when more than half of them do,
 * the median measures the host, the quartile still the code.
 *
 *   modify_cost DEV GID_INDEX DGID CYCLES
 */

#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rc_attr.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, double *ns)
{
	double t0 = now_ns();
	int ret = ibv_modify_qp(qp, a, mask);

	*ns = now_ns() - t0;
	if (ret)
		fprintf(stderr, "modify_cost: ibv_modify_qp: %s\n", strerror(ret));
	return ret;
}

/* Step @step (0 INIT, 1 RTR, 2 RTS, 3 RESET) of @qp's connection to @peer. */
static int cycle_step(struct ibv_qp *qp, struct ibv_qp *peer, int step,
		      int gid_index, const union ibv_gid *dgid, double *ns)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	switch (step) {
	case 0:
		rc_init_attr(&a);
		return modify(qp, &a, RC_INIT_MASK, ns);
	case 1:
		rc_rtr_attr(&a, peer->qp_num, gid_index, dgid);
		return modify(qp, &a, RC_RTR_MASK, ns);
	case 2:
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.sq_psn = 1;
		a.max_rd_atomic = 1;
		return modify(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			      IBV_QP_MAX_QP_RD_ATOMIC, ns);
	default:
		a.qp_state = IBV_QPS_RESET;
		return modify(qp, &a, IBV_QP_STATE, ns);
	}
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init;
	struct ibv_context *ctx;
	double *all, *rtr, *reset, ns;
	union ibv_gid dgid;
	struct ibv_qp *qp[2];
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	long cycles, c, n_all = 0, n_rtr = 0, n_reset = 0;
	int i, step, gid_index;

	if (argc != 5) {
		fprintf(stderr, "usage: modify_cost DEV GID_INDEX DGID CYCLES\n");
		return 2;
	}
	gid_index = atoi(argv[2]);
	cycles = atol(argv[4]);
	if (rc_parse_gid(argv[3], &dgid)) {
		fprintf(stderr, "modify_cost: bad GID %s\n", argv[3]);
		return 2;
	}
	ctx = rc_open_device("modify_cost", argv[1]);
	if (!ctx)
		return 1;
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	if (!pd || !cq)
		return 1;
	rc_qp_init_attr(&init, cq);
	for (i = 0; i < 2; i++) {
		qp[i] = ibv_create_qp(pd, &init);
		if (!qp[i]) {
			perror("modify_cost: ibv_create_qp");
			return 1;
		}
	}
	all = calloc(cycles * 8, sizeof(*all));
	rtr = calloc(cycles * 2, sizeof(*rtr));
	reset = calloc(cycles * 2, sizeof(*reset));
	if (!all || !rtr || !reset)
		return 1;

	/*
	 * A connection as applications make it: both QPs to INIT (their
	 * numbers are then exchanged), each to RTR aimed at the other, both
	 * to RTS, both reset. So when a QP goes to RTR, its destination is a
	 * QP already configured, as in ibv_rc_pingpong, NCCL and rdma_cm.
	 */
	for (c = 0; c < cycles; c++) {
		for (step = 0; step < 4; step++) {
			for (i = 0; i < 2; i++) {
				if (cycle_step(qp[i], qp[!i], step, gid_index,
					       &dgid, &ns))
					return 1;
				all[n_all++] = ns;
				if (step == 1)
					rtr[n_rtr++] = ns;
				else if (step == 3)
					reset[n_reset++] = ns;
			}
		}
	}
	qsort(all, n_all, sizeof(*all), cmp);
	qsort(rtr, n_rtr, sizeof(*rtr), cmp);
	qsort(reset, n_reset, sizeof(*reset), cmp);
	{
		double sum = 0, sum_rtr = 0;

		for (c = 0; c < n_all; c++)
			sum += all[c];
		for (c = 0; c < n_rtr; c++)
			sum_rtr += rtr[c];
		printf("modifies %ld\n", n_all);
		printf("modify_mean_ns %.0f\n", sum / n_all);
		printf("modify_median_ns %.0f\n", all[n_all / 2]);
		printf("rtr_mean_ns %.0f\n", sum_rtr / n_rtr);
		printf("rtr_median_ns %.0f\n", rtr[n_rtr / 2]);
		printf("modify_p25_ns %.0f\n", all[n_all / 4]);
		printf("rtr_p25_ns %.0f\n", rtr[n_rtr / 4]);
		printf("reset_median_ns %.0f\n", reset[n_reset / 2]);
	}
	return 0;
}
