// SPDX-License-Identifier: GPL-2.0
/*
 * ew_verbs: single verbs operations for eastwest's tests, with the outcome
 * as an exit code, so a test can assert exactly which call the module
 * refused. Unlike ibv_rc_pingpong it exchanges nothing with the peer: it
 * plays the NeVerMore attacker, who already knows (or guesses) the victim's
 * GID, QPN and PSN.
 *
 *   ew_verbs rc-connect DEV GID_INDEX DGID DQPN [PSN]
 *       create an RC QP, RESET->INIT->RTR towards DGID/DQPN; a DQPN of
 *       "self" (every command that takes one) names the QP itself: on
 *       this node a connect must end in a QP of the caller's job
 *   ew_verbs ud-qkey DEV QKEY    create a UD QP, RESET->INIT with QKEY
 *   ew_verbs ud-source-qpn DEV QPN
 *       create a UD QP that sends as QPN (IB_QP_CREATE_SOURCE_QPN, which
 *       uverbs' ioctl command takes without CAP_NET_RAW), by that ioctl:
 *       "create: OK|ERRNO" (soft-RoCE devices only; soft-RoCE itself has no
 *       such QPs: EINVAL)
 *   ew_verbs ud-hold DEV QKEY SECONDS
 *       ud-qkey, then on to RTS, print "ready", and wait up to SECONDS for
 *       the QP to be revoked (QP_FATAL): prints "revoked" and exits 0, or
 *       exits 3 if it was still alive
 *   ew_verbs ud-probe DEV GID_INDEX DGID QKEY QPN...
 *       a UD QP in RTS and an address handle to DGID; for each QPN, one
 *       datagram with remote Q_Key QKEY, and the port's Q_Key violation
 *       counter as this process reads it (ibv_query_port()) before and
 *       half a second after: "qpn 0x...: qkey-viol N -> M"
 *   ew_verbs port-counters DEV
 *       "qkey-viol N bad-pkey M", port 1's counters as ibv_query_port()
 *       gives them to this process
 *   ew_verbs raw-qp DEV          create a RAW_PACKET QP
 *   ew_verbs thread-qp DEV
 *       a thread creates an RC QP, prints "qpn 0x...", and exits; then
 *       "thread gone", and the QP is held until standard input ends
 *       (counters.sh: a per-process counter whose task is gone)
 *   ew_verbs qpn-list DEV COUNT ROUNDS
 *       ROUNDS times: create COUNT RC QPs, all alive at once, and destroy
 *       them; the QPNs of the last round are printed in creation order,
 *       one "qpn 0x..." line each (qpn.sh: are they predictable?)
 *   ew_verbs create-ah DEV GID_INDEX DGID
 *   ew_verbs rc-hold DEV GID_INDEX DGID DQPN SECONDS
 *       rc-connect, then on to RTS, print "connected", and wait up to
 *       SECONDS for the QP to be revoked (a QP_FATAL async event): prints
 *       "revoked" and exits 0, or exits 3 if it was still alive
 *   ew_verbs rc-destroy-hold DEV GID_INDEX DGID DQPN SECONDS
 *       connect to RTS, print "connected qpn 0x...", wait for a line on
 *       stdin, destroy the QP ("destroy: OK|ERRNO"; exit 1 if it went);
 *       if the destroy was refused, wait as rc-hold does, then for a
 *       second line before exiting
 *
 * Attacks on the QP state machine (gate.sh):
 *
 *   ew_verbs rc-pair-revive DEV GID_INDEX SECONDS
 *       two RC QPs of this process connected to each other over the GID at
 *       GID_INDEX (PSN 0); one message QP1->QP2 is verified, then "connected"
 *       is printed. Waits up to SECONDS for QP_FATAL on both (exit 3 if not;
 *       prints "revoked"), then tries to bring them back, on both QPs, one
 *       line "attempt NAME: OK|ERRNO" each ("(qp2: ERRNO)" appended when
 *       QP2's answer differs): rts-claim-rtr, rts-claim-rts, rts-claim-sqd
 *       (to RTS naming IBV_QP_CUR_STATE RTR, RTS, SQD), rtr-claim-init (to
 *       RTR naming INIT, with the full RTR attributes and AV), rts-plain (to
 *       RTS, no claim), then the chain chain-reset, chain-init, chain-rtr,
 *       chain-rts (stops at the first refusal: "skipped"). After an attempt
 *       that brought either QP back, the state each QP reports is printed
 *       ("state NAME: qp1 rts, qp2 rts"), a probe sends one message each way
 *       and polls up to 5 s for the four completions ("probe NAME: qpN send:
 *       STATUS; recv: STATUS", "probe NAME: carried N bytes"), then both QPs
 *       are put back in ERR ("re-error NAME: ...") so that each attempt
 *       starts from the revoked state. If the chain reached RTR, a probe
 *       "chain" follows. Last line "carried N bytes" (all probes). Exit 0
 *       only if nothing was carried, no attempt rts-claim-rtr .. rts-plain
 *       succeeded and the chain did not reach RTR; else 1.
 *   ew_verbs claim-state DEV ud|rc FROM TO
 *       create a QP and make ONE modify from its fresh RESET state to TO
 *       naming IBV_QP_CUR_STATE=FROM (states: reset init rtr rts sqd sqe err)
 *       with only the attributes the core's state table requires for
 *       FROM->TO (RTR->RTS: SQ_PSN, plus the RC timers; RC to RTR is not
 *       supported: use rc-connect). Prints "claim ...: OK|ERRNO" and, if it
 *       succeeded, the state the QP reports ("state now: RTS").
 *   ew_verbs rts-av-change DEV GID_INDEX DGID DQPN DGID2 SECONDS [wait]
 *       rc-hold's connection, "connected", then (with "wait", after a line
 *       from stdin) one RTS->RTS modify with IBV_QP_AV towards DGID2:
 *       "av-change: OK|ERRNO"; then waits like rc-hold: "revoked" (exit 0)
 *       or exit 3
 *   ew_verbs rc-stepwise DEV GID_INDEX DGID DQPN [reset]
 *       create an RC QP, RESET->INIT, print "init: OK"; read a line from
 *       stdin (or EOF), INIT->RTR towards DGID/DQPN (PSN 0), "rtr: OK|ERRNO";
 *       read another line, RTR->RTS, "rts: OK|ERRNO"; with "reset", read
 *       another, then ->RESET, "reset: OK|ERRNO". Output is flushed after
 *       every line, so that a test can move the process to another cgroup
 *       between the steps. Exit 0, or that of the failing step.
 *   ew_verbs qp-storm DEV GID_INDEX DGID N SECONDS
 *       create N RC QPs, each RESET->INIT->RTR towards DGID (QPN 0x11),
 *       print "ready", then for SECONDS pick QPs at random and reset and
 *       reconnect them, destroy and recreate them, or move them to ERR.
 *       Refusals and driver errors are counted, not fatal (the test
 *       revokes, deletes jobs and unloads the module meanwhile); prints
 *       "storm: ok N refused N failed N destroyed N". Exit 0, or 1 if a QP
 *       could not be created or destroyed.
 *   ew_verbs qpn-claim DEV QPN [TRIES [pre]]
 *       QPN reuse (qpn-reuse.sh): create one RC QP; unless it got number
 *       QPN, print "got qpn 0x... not 0x..." and exit 1; with "pre", first
 *       one modify of IBV_QP_PKEY_INDEX and IBV_QP_PORT (index 0, port 1)
 *       alone in RESET, no state named
 *       ("pre-record: OK|ERRNO", whatever the answer, on to INIT); else try
 *       RESET->INIT up to TRIES times (default 1) until one succeeds, print
 *       "claimed qpn 0x..., init: OK|ERRNO (N tries)", wait for a line on
 *       stdin (or EOF), then one INIT->INIT modify ("init again: OK|ERRNO")
 *   ew_verbs mcast-attach DEV MGID[,MGID...]
 *       create a UD QP, RESET->INIT (Q_Key 0x1234), and attach it to the
 *       multicast groups MGID (IPv6 or IPv4 addresses, as for DGIDs)
 *   ew_verbs mcast-hold DEV MGID[,MGID...] SECONDS
 *       mcast-attach, print "attached", and wait up to SECONDS for the QP
 *       to be revoked (QP_FATAL): prints "revoked", then leaves each group
 *       ("detach MGID: OK|ERRNO") and exits 0; or exits 3
 *   ew_verbs mcast-stepwise DEV MGID
 *       a UD QP to INIT ("init: OK"), then after a line on stdin joined to
 *       MGID ("attach: OK|ERRNO")
 *   ew_verbs mcast-reset DEV MGID
 *       a UD QP to INIT, joined to MGID ("attach: OK|ERRNO"); after a line
 *       on stdin (the process became policed meanwhile) RESET ("reset:
 *       OK|ERRNO"), RESET->INIT ("init again: OK|ERRNO") and, if that
 *       passed, INIT->RTR ("rtr: OK|ERRNO"): the way back to receiving
 *
 *   ew_verbs rc-stall DEV GID_INDEX DGID SILENT NSTALL NHOLD SECONDS
 *       modify locks kept busy (revoke-stall.sh): NHOLD RC QPs, each
 *       connected to itself at DGID (this node's GID at GID_INDEX), in
 *       RTS; NSTALL RC QPs in INIT. One INIT->RTR of the first of those
 *       towards SILENT, an address nobody answers, which the core resolves
 *       under the QP's modify lock for up to a second before it fails:
 *       "stall: ERRNO after N ms". Then one thread per such QP repeats
 *       that modify until it is refused with EACCES, and "ready" is
 *       printed. After a line on stdin, waits up to SECONDS for QP_FATAL on
 *       every held QP: "revoked N of N after T ms" (exit 0) or "revoked K
 *       of N after SECONDS s" (exit 3); then (if it has threads) waits for
 *       another line, stops them and prints "stopped".
 *
 * Co-located jobs on one node (colocated.sh):
 *
 *   ew_verbs rc-pair-hold DEV GID_INDEX MESSAGES
 *       the victim: two RC QPs of this process connected to each other over
 *       the GID at GID_INDEX with random PSNs, a receive posted on each;
 *       prints "qpN qpn 0xQPN sq-psn 0xPSN rq-psn 0xPSN" for both and
 *       "connected", then waits for a line on stdin (or EOF) and carries
 *       MESSAGES numbered messages each way (QP1->QP2, then back), checking
 *       every byte. The first wrong message or error completion is printed
 *       ("message K: ...") and exits 1; else "verified K messages each way",
 *       exit 0. Anything injected into either QP while it waited fails it.
 *   ew_verbs rc-inject DEV GID_INDEX DGID DQPN PSN
 *       the injection itself: rc-connect towards DGID/DQPN, RTR->RTS with
 *       SQ PSN = PSN (the victim's next expected PSN) and one SEND of the
 *       text "ew_verbs: injected"; prints "injected" once it is posted, then
 *       the send's completion status after up to 3 s (the victim acks its
 *       real peer, not this QP: a retry error does not mean it was missed).
 *       Exit 0 once posted.
 *   ew_verbs rc-retarget DEV GID_INDEX DGID DQPN PSN
 *       the same injection by a QP first connected to itself at DGID (a
 *       connect nobody refuses), then re-aimed at DQPN by a modify of
 *       IBV_QP_DEST_QPN alone, no state named (which the state table
 *       forbids, but rxe of 6.12 applied): "retarget: OK|ERRNO"; if it
 *       passed, one SEND as rc-inject does. Exit 0 once posted, 13 if the
 *       modify was refused with EACCES, 1 if otherwise.
 *
 * Connections across nodes (two-node-psn.sh):
 *
 *   ew_verbs rc-peer DEV GID_INDEX DGID MESSAGES
 *       one end of a connection with the application's PSNs at 0 (as NCCL
 *       and UCX do): one RC QP, prints "qpn 0xQPN", reads the far QP's
 *       number from a line on stdin, connects towards DGID with receive
 *       and send PSN 0, posts a receive, prints "connected", waits for a
 *       line on stdin, then sends MESSAGES numbered messages and receives
 *       the far end's, checking every byte. The first wrong message or
 *       error completion is printed ("message K: ...") and exits 1; else
 *       "verified K messages each way", exit 0.
 *   ew_verbs deny-flood DEV GID_INDEX DGID SECONDS
 *       an RC QP aimed at DGID, then for SECONDS as many INIT->RTR
 *       modifies towards it as the module answers (RESET->INIT ones if INIT
 *       itself is refused), each expected to be refused with EACCES: every
 *       refusal is one denial report. Prints "refused N"; exits 1 if one
 *       was let through or failed otherwise
 *
 * Exit: 0 done, 13 (EACCES) refused with EACCES, 1 other failure, 2 usage,
 * 3 (rc-hold, rts-av-change, rc-pair-revive) not revoked in time.
 * The failing step and errno are printed on stderr.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl.h>
#include <sys/ioctl.h>
#include <infiniband/verbs.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../bench/rc_attr.h"

#define EXIT_REFUSED 13
/* A destination QPN argument of "self": the QP's own number. */
#define EW_SELF_QPN UINT32_MAX
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct ctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;	/* the last QP created by rc-connect or ud_init() */
};

/*
 * Print a line the driving script waits for (a state, a result) and flush
 * it at once: stdout is a pipe, and the script reacts to each line as it
 * comes.
 */
__attribute__((format(printf, 1, 2)))
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

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

/* Every QP's queues: a few work requests of one entry each. */
#define QP_CAP { .max_send_wr = 4, .max_recv_wr = 4, \
		 .max_send_sge = 1, .max_recv_sge = 1 }

static struct ibv_qp *create_qp(struct ctx *c, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.cap = QP_CAP,
		.qp_type = type,
	};

	return ibv_create_qp(c->pd, &init);
}

static int parse_gid(const char *s, union ibv_gid *gid)
{
	if (!rc_parse_gid(s, gid))
		return 0;
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

/*
 * INIT->RTR towards @dgid/@dqpn with the RC attributes; @extra_mask adds
 * e.g. IBV_QP_CUR_STATE (naming @cur).
 */
static int rc_to_rtr(struct ibv_qp *qp, int gid_index, const union ibv_gid *dgid,
		     uint32_t dqpn, uint32_t psn, int extra_mask,
		     enum ibv_qp_state cur)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.cur_qp_state = cur,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn == EW_SELF_QPN ? qp->qp_num : dqpn,
		.rq_psn = psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.port_num = 1,
			.grh = { .dgid = *dgid, .hop_limit = 1,
				 .sgid_index = gid_index },
		},
	};

	return ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER |
			     extra_mask);
}

/*
 * An RC QP aimed at @dgid_s (parsed into @dgid), its number printed.
 * 0, 2 for a bad GID, or 1 if it cannot be created.
 */
static int rc_create(struct ctx *c, const char *dgid_s, union ibv_gid *dgid,
		     struct ibv_qp **qp)
{
	if (parse_gid(dgid_s, dgid))
		return 2;
	*qp = create_qp(c, IBV_QPT_RC);
	if (!*qp)
		return fail("ibv_create_qp(RC)", errno);
	printf("qpn 0x%x\n", (*qp)->qp_num);
	return 0;
}

static int rc_connect(struct ctx *c, int gid_index, const char *dgid_s,
		      uint32_t dqpn, uint32_t psn)
{
	union ibv_gid dgid;
	struct ibv_qp *qp;
	int ret;

	ret = rc_create(c, dgid_s, &dgid, &qp);
	if (ret)
		return ret;
	c->qp = qp;
	ret = to_init(qp, 0, 0);
	if (ret)
		return fail("modify RESET->INIT", ret);
	ret = rc_to_rtr(qp, gid_index, &dgid, dqpn, psn, 0, IBV_QPS_INIT);
	if (ret)
		return fail("modify INIT->RTR", ret);
	return 0;
}

/* The RC attributes of RTR->RTS; @extra_mask adds e.g. IBV_QP_CUR_STATE. */
static int rc_to_rts(struct ibv_qp *qp, uint32_t sq_psn, int extra_mask,
		     enum ibv_qp_state cur)
{
	struct ibv_qp_attr rts = {
		.qp_state = IBV_QPS_RTS,
		.cur_qp_state = cur,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 1,
		.sq_psn = sq_psn,
	};

	return ibv_modify_qp(qp, &rts, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC |
			     extra_mask);
}

/* rc_connect(), then on to RTS with @sq_psn, in c->qp; an exit code. */
static int rc_connect_rts(struct ctx *c, int gid_index, const char *dgid_s,
			  uint32_t dqpn, uint32_t sq_psn)
{
	int ret;

	ret = rc_connect(c, gid_index, dgid_s, dqpn, 0);
	if (ret)
		return ret;
	ret = rc_to_rts(c->qp, sq_psn, 0, IBV_QPS_RTR);
	return ret ? fail("modify RTR->RTS", ret) : 0;
}

/* rc_connect_rts() with PSN 0, then "connected" for the script. */
static int rc_connect_say(struct ctx *c, int gid_index, const char *dgid_s,
			  uint32_t dqpn)
{
	int ret = rc_connect_rts(c, gid_index, dgid_s, dqpn, 0);

	if (!ret)
		say("connected\n");
	return ret;
}

/*
 * Wait up to @seconds for a QP_FATAL event on each of the @n QPs. Returns
 * 0 once all had one, 3 on timeout, else a fail() code.
 */
static int wait_revoked(struct ctx *c, struct ibv_qp **qps, int n,
			int seconds)
{
	struct pollfd pfd = { .fd = c->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	struct timespec t0, t;
	int seen = 0, left, i, ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (seen != (1 << n) - 1) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = seconds * 1000 - (int)((t.tv_sec - t0.tv_sec) * 1000 +
					      (t.tv_nsec - t0.tv_nsec) / 1000000);
		ret = left > 0 ? poll(&pfd, 1, left) : 0;
		if (ret < 0)
			return fail("poll", errno);
		if (ret == 0) {
			printf("not revoked after %d s\n", seconds);
			return 3;
		}
		if (ibv_get_async_event(c->ctx, &ev))
			return fail("ibv_get_async_event", errno);
		if (ev.event_type == IBV_EVENT_QP_FATAL)
			for (i = 0; i < n; i++)
				if (ev.element.qp == qps[i])
					seen |= 1 << i;
		ibv_ack_async_event(&ev);
	}
	say("revoked\n");
	return 0;
}

/* Connect, go to RTS, then wait for the module to revoke the QP. */
static int rc_hold(struct ctx *c, int gid_index, const char *dgid_s,
		   uint32_t dqpn, int seconds)
{
	/* rc_connect() creates the only QP of this context. */
	int ret = rc_connect_say(c, gid_index, dgid_s, dqpn);

	return ret ? ret : wait_revoked(c, &c->qp, 1, seconds);
}

/* A UD QP taken RESET->INIT with @qkey, in c->qp; an exit code. */
static int ud_init(struct ctx *c, uint32_t qkey)
{
	int ret;

	c->qp = create_qp(c, IBV_QPT_UD);
	if (!c->qp)
		return fail("ibv_create_qp(UD)", errno);
	ret = to_init(c->qp, IBV_QP_QKEY, qkey);
	if (ret)
		return fail("modify RESET->INIT (qkey)", ret);
	return 0;
}

/* ud_init(), then RTR and RTS; an exit code. */
static int ud_rts(struct ctx *c, uint32_t qkey)
{
	struct ibv_qp_attr rtr = { .qp_state = IBV_QPS_RTR };
	struct ibv_qp_attr rts = { .qp_state = IBV_QPS_RTS };
	int ret;

	ret = ud_init(c, qkey);
	if (ret)
		return ret;
	ret = ibv_modify_qp(c->qp, &rtr, IBV_QP_STATE);
	if (ret)
		return fail("modify INIT->RTR (UD)", ret);
	ret = ibv_modify_qp(c->qp, &rts, IBV_QP_STATE | IBV_QP_SQ_PSN);
	if (ret)
		return fail("modify RTR->RTS (UD)", ret);
	return 0;
}

/* ud_rts(), then wait for the module to revoke the QP. */
static int ud_hold(struct ctx *c, uint32_t qkey, int seconds)
{
	int ret = ud_rts(c, qkey);

	if (ret)
		return ret;
	say("ready\n");
	return wait_revoked(c, &c->qp, 1, seconds);
}

static unsigned long num(const char *s);

/* Port 1's Q_Key violation counter as this process reads it; -1 on error. */
static long qkey_viol(struct ctx *c)
{
	struct ibv_port_attr a;

	return ibv_query_port(c->ctx, 1, &a) ? -1L : (long)a.qkey_viol_cntr;
}

static int port_counters(struct ctx *c)
{
	struct ibv_port_attr a;
	int ret = ibv_query_port(c->ctx, 1, &a);

	if (ret)
		return fail("ibv_query_port", ret);
	say("qkey-viol %u bad-pkey %u\n", a.qkey_viol_cntr, a.bad_pkey_cntr);
	return 0;
}

/*
 * One empty datagram to each of @qpns with remote Q_Key @qkey, and the
 * Q_Key violation counter around it: does a UD QP of that number exist?
 */
static int ud_probe(struct ctx *c, int gid_index, const char *dgid_s,
		    uint32_t qkey, char **qpns, int n)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .hop_limit = 1, .sgid_index = gid_index },
	};
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	long before, after;
	int i, k, ret;

	if (parse_gid(dgid_s, &aa.grh.dgid))
		return 2;
	ret = ud_rts(c, 0x99);
	if (ret)
		return ret;
	ah = ibv_create_ah(c->pd, &aa);
	if (!ah)
		return fail("ibv_create_ah", errno);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qkey = qkey;
	for (i = 0; i < n; i++) {
		wr.wr.ud.remote_qpn = (uint32_t)num(qpns[i]);
		before = qkey_viol(c);
		ret = ibv_post_send(c->qp, &wr, &bad);
		if (ret)
			return fail("ibv_post_send", ret);
		for (k = 0; k < 1000 && ibv_poll_cq(c->cq, 1, &wc) == 0; k++)
			usleep(1000);
		usleep(500000);
		after = qkey_viol(c);
		say("qpn 0x%x: qkey-viol %ld -> %ld\n", wr.wr.ud.remote_qpn,
		    before, after);
	}
	return 0;
}

/* One QP of the storm back to RTR; counts the outcome. */
static void storm_connect(struct ibv_qp *qp, int gid_index,
			  const union ibv_gid *dgid, unsigned long *n)
{
	int ret = to_init(qp, 0, 0);

	if (!ret)
		ret = rc_to_rtr(qp, gid_index, dgid, 0x11, 0, 0, IBV_QPS_RESET);
	n[ret == 0 ? 0 : ret == EACCES ? 1 : 2]++;
}

static int qp_storm(struct ctx *c, int gid_index, const char *dgid_s,
		    unsigned int nqps, unsigned int seconds)
{
	struct ibv_qp_attr attr = {};
	unsigned long n[4] = {};	/* ok, refused, failed, destroyed */
	struct ibv_qp **qps;
	union ibv_gid dgid;
	unsigned int i;
	int action, ret = 0;
	time_t end;

	if (parse_gid(dgid_s, &dgid) || !nqps)
		return 2;
	qps = calloc(nqps, sizeof(*qps));
	if (!qps)
		return fail("calloc", errno);
	for (i = 0; i < nqps; i++) {
		qps[i] = create_qp(c, IBV_QPT_RC);
		if (!qps[i]) {
			ret = fail("ibv_create_qp(RC)", errno);
			goto out;
		}
		storm_connect(qps[i], gid_index, &dgid, n);
	}
	say("ready %lu/%u connected\n", n[0], nqps);
	srand(getpid());
	end = time(NULL) + seconds;
	while (time(NULL) < end) {
		i = (unsigned int)rand() % nqps;
		action = rand() % 4;
		if (action == 0) {
			if (ibv_destroy_qp(qps[i])) {
				ret = fail("ibv_destroy_qp", errno);
				goto out;
			}
			n[3]++;
			qps[i] = create_qp(c, IBV_QPT_RC);
			if (!qps[i]) {
				ret = fail("ibv_create_qp(RC)", errno);
				goto out;
			}
		}
		switch (action) {
		case 0:
		case 1:
			attr.qp_state = IBV_QPS_RESET;
			ibv_modify_qp(qps[i], &attr, IBV_QP_STATE);
			storm_connect(qps[i], gid_index, &dgid, n);
			break;
		case 2:
			attr.qp_state = IBV_QPS_ERR;
			n[ibv_modify_qp(qps[i], &attr, IBV_QP_STATE) ? 2 : 0]++;
			break;
		default:
			storm_connect(qps[i], gid_index, &dgid, n);
			break;
		}
	}
	for (i = 0; i < nqps; i++) {
		if (ibv_destroy_qp(qps[i])) {
			ret = fail("ibv_destroy_qp", errno);
			goto out;
		}
		n[3]++;
	}
	printf("storm: ok %lu refused %lu failed %lu destroyed %lu\n",
	       n[0], n[1], n[2], n[3]);
out:
	/* On a failure the process exits: its QPs go with its context. */
	free(qps);
	return ret;
}

/* MGIDS: one group, or several separated by commas, joined in order. */
static int mcast_attach(struct ctx *c, const char *mgids)
{
	char buf[256], *mgid_s, *save;
	union ibv_gid mgid;
	int ret;

	if (strlen(mgids) >= sizeof(buf)) {
		fprintf(stderr, "ew_verbs: too many groups\n");
		return 2;
	}
	strcpy(buf, mgids);
	ret = ud_init(c, 0x1234);
	if (ret)
		return ret;
	for (mgid_s = strtok_r(buf, ",", &save); mgid_s;
	     mgid_s = strtok_r(NULL, ",", &save)) {
		if (parse_gid(mgid_s, &mgid))
			return 2;
		ret = ibv_attach_mcast(c->qp, &mgid, 0);
		if (ret)
			return fail("ibv_attach_mcast", ret);
	}
	return 0;
}

static const char *err_name(int err);

/*
 * mcast_attach(), "attached", then wait for the module to revoke the QP;
 * once revoked, leave each group and print "detach MGID: OK|ERRNO": a
 * group the QP is no longer a member of fails (EINVAL from the driver).
 */
static int mcast_hold(struct ctx *c, const char *mgids, int seconds)
{
	char buf[256], *mgid_s, *save;
	union ibv_gid mgid;
	int ret = mcast_attach(c, mgids);

	if (ret)
		return ret;
	say("attached\n");
	ret = wait_revoked(c, &c->qp, 1, seconds);
	if (ret)
		return ret;
	strcpy(buf, mgids);
	for (mgid_s = strtok_r(buf, ",", &save); mgid_s;
	     mgid_s = strtok_r(NULL, ",", &save)) {
		if (parse_gid(mgid_s, &mgid))
			return 2;
		printf("detach %s: %s\n", mgid_s,
		       err_name(ibv_detach_mcast(c->qp, &mgid, 0)));
	}
	fflush(stdout);
	return 0;
}

static int raw_qp(struct ctx *c)
{
	if (!create_qp(c, IBV_QPT_RAW_PACKET))
		return fail("ibv_create_qp(RAW_PACKET)", errno);
	return 0;
}

static void *thread_qp_create(void *arg)
{
	struct ibv_qp *qp = create_qp(arg, IBV_QPT_RC);

	if (qp)
		printf("qpn 0x%x\n", qp->qp_num);
	else
		fail("ibv_create_qp(RC)", errno);
	fflush(stdout);
	return qp;
}

static int thread_qp(struct ctx *c)
{
	void *qp = NULL;
	char buf[64];
	pthread_t t;

	if (pthread_create(&t, NULL, thread_qp_create, c))
		return fail("pthread_create", errno);
	if (pthread_join(t, &qp) || !qp)
		return 1;
	printf("thread gone\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	if (ibv_destroy_qp(qp))
		return fail("ibv_destroy_qp", errno);
	return 0;
}

static int qpn_list(struct ctx *c, unsigned long count, unsigned long rounds)
{
	struct ibv_qp **qps;
	unsigned long i, n, r;
	int ret = 0;

	if (!count || !rounds || count > 4096) {
		fprintf(stderr, "ew_verbs: qpn-list: COUNT 1-4096, ROUNDS > 0\n");
		return 2;
	}
	qps = calloc(count, sizeof(*qps));
	if (!qps)
		return fail("calloc", errno);
	for (r = 0; r < rounds && !ret; r++) {
		for (i = 0; i < count; i++) {
			qps[i] = create_qp(c, IBV_QPT_RC);
			if (!qps[i]) {
				fprintf(stderr, "ew_verbs: round %lu, QP %lu: ", r, i);
				ret = fail("ibv_create_qp(RC)", errno);
				break;
			}
		}
		/* Destroy what this round created, also after a failed create. */
		for (n = i, i = 0; i < n; i++) {
			if (!ret && r == rounds - 1)
				printf("qpn 0x%x\n", qps[i]->qp_num);
			if (ibv_destroy_qp(qps[i]) && !ret)
				ret = fail("ibv_destroy_qp", errno);
		}
	}
	free(qps);
	return ret;
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

/* "OK" for 0, else the errno's name (EACCES, EINVAL, ...). */
static const char *err_name(int err)
{
	const char *name = err ? strerrorname_np(err) : "OK";

	return name ? name : "unknown errno";
}

static const char *const state_names[] = {
	[IBV_QPS_RESET] = "reset", [IBV_QPS_INIT] = "init",
	[IBV_QPS_RTR] = "rtr", [IBV_QPS_RTS] = "rts", [IBV_QPS_SQD] = "sqd",
	[IBV_QPS_SQE] = "sqe", [IBV_QPS_ERR] = "err",
};

static int parse_state(const char *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(state_names); i++)
		if (state_names[i] && !strcmp(s, state_names[i]))
			return i;
	fprintf(stderr, "ew_verbs: bad QP state %s\n", s);
	return -1;
}

/* One modify from a fresh QP's RESET to @to_s, naming @from_s as current. */
static int claim_state(struct ctx *c, const char *type_s, const char *from_s,
		       const char *to_s)
{
	struct ibv_qp_attr attr = {}, qattr;
	struct ibv_qp_init_attr qinit;
	int from, to, mask, ret;
	enum ibv_qp_type type;
	struct ibv_qp *qp;

	if (!strcmp(type_s, "ud")) {
		type = IBV_QPT_UD;
	} else if (!strcmp(type_s, "rc")) {
		type = IBV_QPT_RC;
	} else {
		fprintf(stderr, "ew_verbs: QP type must be ud or rc\n");
		return 2;
	}
	from = parse_state(from_s);
	to = parse_state(to_s);
	if (from < 0 || to < 0)
		return 2;
	attr.qp_state = to;
	attr.cur_qp_state = from;
	mask = IBV_QP_STATE | IBV_QP_CUR_STATE;
	/* Only what the core's state table requires for FROM->TO. */
	switch (to) {
	case IBV_QPS_INIT:
		attr.port_num = 1;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		mask |= type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
		break;
	case IBV_QPS_RTR:
		if (type == IBV_QPT_RC) {
			fprintf(stderr, "ew_verbs: rc to rtr needs an address: use rc-connect\n");
			return 2;
		}
		break;
	case IBV_QPS_RTS:
		if (from != IBV_QPS_RTR)
			break;
		mask |= IBV_QP_SQ_PSN;
		if (type == IBV_QPT_RC) {
			attr.timeout = 14;
			attr.retry_cnt = 7;
			attr.rnr_retry = 7;
			attr.max_rd_atomic = 1;
			mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		}
		break;
	default:
		break;
	}
	qp = create_qp(c, type);
	if (!qp)
		return fail("ibv_create_qp", errno);
	printf("qpn 0x%x\n", qp->qp_num);
	ret = ibv_modify_qp(qp, &attr, mask);
	printf("claim %s %s->%s from reset: %s\n", type_s, from_s, to_s,
	       err_name(ret));
	if (!ret && !ibv_query_qp(qp, &qattr, IBV_QP_STATE, &qinit) &&
	    qattr.qp_state < ARRAY_SIZE(state_names))
		printf("state now: %s\n", state_names[qattr.qp_state]);
	if (!ret)
		return 0;
	return ret == EACCES ? EXIT_REFUSED : 1;
}

/* Block until a line (or EOF) arrives on stdin. */
static void wait_line(void)
{
	char line[64];

	if (!fgets(line, sizeof(line), stdin))
		clearerr(stdin);
}

/*
 * Connect, go to RTS, then (after a line on stdin if @wait) ask for
 * RTS->RTS with a new address vector to @dgid2_s ("av-change: OK|ERRNO"),
 * then wait for the module to revoke the QP.
 */
static int rts_av_change(struct ctx *c, int gid_index, const char *dgid_s,
			 uint32_t dqpn, const char *dgid2_s, int seconds,
			 bool wait)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTS,
		.ah_attr = {
			.is_global = 1,
			.port_num = 1,
			.grh = { .hop_limit = 1, .sgid_index = gid_index },
		},
	};
	int ret;

	if (parse_gid(dgid2_s, &attr.ah_attr.grh.dgid))
		return 2;
	ret = rc_connect_say(c, gid_index, dgid_s, dqpn);
	if (ret)
		return ret;
	if (wait)
		wait_line();
	ret = ibv_modify_qp(c->qp, &attr, IBV_QP_STATE | IBV_QP_AV);
	say("av-change: %s\n", err_name(ret));
	return wait_revoked(c, &c->qp, 1, seconds);
}

/*
 * Another job's QP (gate.sh d): a UD QP taken to INIT ("init: OK|ERRNO"),
 * then, after a line on stdin (the process moved meanwhile), joined to
 * MGID ("attach: OK|ERRNO").
 */
static int mcast_stepwise(struct ctx *c, const char *mgid_s)
{
	union ibv_gid mgid;
	int ret;

	if (parse_gid(mgid_s, &mgid))
		return 2;
	ret = ud_init(c, 0x1234);
	say("init: %s\n", ret ? "failed" : "OK");
	if (ret)
		return ret;
	wait_line();
	say("attach: %s\n", err_name(ibv_attach_mcast(c->qp, &mgid, 0)));
	return 0;
}

/* One attribute of a uverbs ioctl: @data inline (8 bytes or less) or a pointer. */
static struct ib_uverbs_attr uattr(__u16 id, __u16 len, __u64 data)
{
	return (struct ib_uverbs_attr){ .attr_id = id, .len = len, .data = data };
}

/*
 * A UD QP that would send as @qpn (see ud-source-qpn above), by uverbs'
 * ioctl command itself, as a provider that supports the flag sends it:
 * rdma-core's soft-RoCE provider refuses it before the kernel sees it
 * (ibv_create_qp_ex(): EOPNOTSUPP).
 */
static int ud_source_qpn(struct ctx *c, uint32_t qpn)
{
	enum { N_ATTRS = 10 };
	struct ib_uverbs_qp_cap cap = { .max_send_wr = 4, .max_recv_wr = 4,
					.max_send_sge = 1, .max_recv_sge = 1 };
	struct ib_uverbs_qp_cap resp_cap;
	__u32 resp_qpn = 0;
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[N_ATTRS];
	} cmd = {
		.hdr = { .length = sizeof(cmd), .object_id = UVERBS_OBJECT_QP,
			 .method_id = UVERBS_METHOD_QP_CREATE,
			 .num_attrs = N_ATTRS,
			 /* The command names the driver: soft-RoCE's. */
			 .driver_id = RDMA_DRIVER_RXE },
		.attrs = {
			uattr(UVERBS_ATTR_CREATE_QP_HANDLE, 0, 0),
			uattr(UVERBS_ATTR_CREATE_QP_PD_HANDLE, 0, c->pd->handle),
			uattr(UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, 0, c->cq->handle),
			uattr(UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE, 0, c->cq->handle),
			uattr(UVERBS_ATTR_CREATE_QP_USER_HANDLE, sizeof(__u64), 0),
			uattr(UVERBS_ATTR_CREATE_QP_CAP, sizeof(cap), (uintptr_t)&cap),
			uattr(UVERBS_ATTR_CREATE_QP_TYPE, sizeof(__u64), IB_UVERBS_QPT_UD),
			uattr(UVERBS_ATTR_CREATE_QP_SOURCE_QPN, sizeof(__u32), qpn),
			uattr(UVERBS_ATTR_CREATE_QP_RESP_CAP, sizeof(resp_cap),
			      (uintptr_t)&resp_cap),
			uattr(UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, sizeof(resp_qpn),
			      (uintptr_t)&resp_qpn),
		},
	};
	int err = 0;

	if (ioctl(c->ctx->cmd_fd, RDMA_VERBS_IOCTL, &cmd))
		err = errno;
	say("create: %s\n", err_name(err));
	if (!err)
		return 0;
	return err == EACCES ? EXIT_REFUSED : 1;
}

/*
 * A group joined while the process was not policed (gate.sh e): once it
 * is, the QP must not come back to receive from it by a reset.
 */
static int mcast_reset(struct ctx *c, const char *mgid_s)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RESET };
	union ibv_gid mgid;
	int ret;

	if (parse_gid(mgid_s, &mgid))
		return 2;
	ret = ud_init(c, 0x1234);
	if (ret)
		return ret;
	ret = ibv_attach_mcast(c->qp, &mgid, 0);
	say("attach: %s\n", err_name(ret));
	if (ret)
		return 1;
	wait_line();
	say("reset: %s\n", err_name(ibv_modify_qp(c->qp, &attr, IBV_QP_STATE)));
	ret = to_init(c->qp, IBV_QP_QKEY, 0x1234);
	say("init again: %s\n", err_name(ret));
	if (ret)
		return 0;
	attr.qp_state = IBV_QPS_RTR;
	say("rtr: %s\n", err_name(ibv_modify_qp(c->qp, &attr, IBV_QP_STATE)));
	return 0;
}

/*
 * A destroy refused after it reached the core leaves the QP connected: the
 * module must still be able to revoke it. The second line lets whoever
 * refused the destroy let go before the QP goes with this process.
 */
static int rc_destroy_hold(struct ctx *c, int gid_index, const char *dgid_s,
			   uint32_t dqpn, int seconds)
{
	int ret;

	ret = rc_connect_rts(c, gid_index, dgid_s, dqpn, 0);
	if (ret)
		return ret;
	say("connected qpn 0x%x\n", c->qp->qp_num);
	wait_line();
	ret = ibv_destroy_qp(c->qp);
	say("destroy: %s\n", err_name(ret));
	if (!ret) {
		c->qp = NULL;
		return 1;
	}
	ret = wait_revoked(c, &c->qp, 1, seconds);
	wait_line();
	return ret;
}

static int step(const char *name, int ret)
{
	say("%s: %s\n", name, err_name(ret));
	if (!ret)
		return 0;
	return ret == EACCES ? EXIT_REFUSED : 1;
}

/* RESET->INIT, then INIT->RTR and RTR->RTS each after a line on stdin. */
static int qpn_claim(struct ctx *c, uint32_t qpn, unsigned long tries,
		     bool pre)
{
	struct ibv_qp *qp = create_qp(c, IBV_QPT_RC);
	struct ibv_qp_attr attr = { .pkey_index = 0, .port_num = 1 };
	unsigned long n = 0;
	int ret;

	if (!qp)
		return fail("ibv_create_qp(RC)", errno);
	if (qp->qp_num != qpn) {
		printf("got qpn 0x%x not 0x%x\n", qp->qp_num, qpn);
		return 1;
	}
	if (pre) {
		ret = ibv_modify_qp(qp, &attr, IBV_QP_PKEY_INDEX | IBV_QP_PORT);
		printf("pre-record: %s\n", ret ? strerror(ret) : "OK");
	}
	do
		ret = to_init(qp, 0, 0);
	while (ret && ++n < tries);
	printf("claimed qpn 0x%x, init: %s (%lu tries)\n", qpn,
	       ret ? strerror(ret) : "OK", ret ? n : n + 1);
	if (ret)
		return fail("modify to INIT", ret);
	fflush(stdout);
	wait_line();
	ret = to_init(qp, 0, 0);
	printf("init again: %s\n", ret ? strerror(ret) : "OK");
	return ret ? fail("modify INIT->INIT", ret) : 0;
}

static int rc_stepwise(struct ctx *c, int gid_index, const char *dgid_s,
		       uint32_t dqpn, bool reset)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RESET };
	union ibv_gid dgid;
	struct ibv_qp *qp;
	int ret;

	ret = rc_create(c, dgid_s, &dgid, &qp);
	if (ret)
		return ret;
	ret = step("init", to_init(qp, 0, 0));
	if (ret)
		return ret;
	wait_line();
	ret = step("rtr", rc_to_rtr(qp, gid_index, &dgid, dqpn, 0, 0,
				    IBV_QPS_INIT));
	if (ret)
		return ret;
	wait_line();
	ret = step("rts", rc_to_rts(qp, 0, 0, IBV_QPS_RTR));
	if (ret || !reset)
		return ret;
	wait_line();
	return step("reset", ibv_modify_qp(qp, &attr, IBV_QP_STATE));
}

/* rc-pair-revive: two RC QPs of one process, connected to each other. */
#define PAIR_MSG	64
#define PAIR_SLOT	1024	/* per QP: send slot, then receive slot */
#define PAIR_WR_RECV	0x100
#define PAIR_WR_SEND	0x200

struct pair {
	struct ibv_qp *qp[2];
	struct ibv_cq *cq[2];
	struct ibv_mr *mr;
	char *buf;
	int gid_index;
	union ibv_gid gid;
	unsigned long carried;
};

static char *pair_slot(struct pair *p, int i, bool recv)
{
	return p->buf + (2 * i + recv) * PAIR_SLOT;
}

static int pair_post_recv(struct pair *p, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)pair_slot(p, i, true),
		.length = PAIR_SLOT,
		.lkey = p->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = PAIR_WR_RECV + i, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	return ibv_post_recv(p->qp[i], &wr, &bad);
}

/* Send @text (zero-padded to PAIR_MSG bytes) from QP @i. */
static int pair_post_text(struct pair *p, int i, const char *text)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)pair_slot(p, i, false),
		.length = PAIR_MSG,
		.lkey = p->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = PAIR_WR_SEND + i, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	memset(pair_slot(p, i, false), 0, PAIR_MSG);
	snprintf(pair_slot(p, i, false), PAIR_MSG, "%s", text);
	return ibv_post_send(p->qp[i], &wr, &bad);
}

static int pair_post_send(struct pair *p, int i)
{
	char text[PAIR_MSG];

	snprintf(text, sizeof(text), "ew_verbs: qp%d says hello", i + 1);
	return pair_post_text(p, i, text);
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Poll both CQs until @want completions came, or @ms passed; each one's
 * status goes to @st[QP][0 receive, 1 send] (if @st). Returns the bytes
 * of the successful receives. Error completions carry no valid opcode:
 * receives and sends are told apart by their wr_id.
 */
static unsigned long pair_poll(struct pair *p, long ms, int want,
			       int st[2][2])
{
	unsigned long bytes = 0;
	struct timespec t0;
	struct ibv_wc wc[8];
	int i, k, n, seen = 0;
	bool recv;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		for (i = 0; i < 2; i++) {
			while ((n = ibv_poll_cq(p->cq[i], 8, wc)) > 0) {
				for (k = 0; k < n; k++) {
					recv = (wc[k].wr_id & ~0xffUL) == PAIR_WR_RECV;
					seen++;
					if (st)
						st[i][!recv] = wc[k].status;
					if (recv && wc[k].status == IBV_WC_SUCCESS)
						bytes += wc[k].byte_len;
				}
			}
		}
		if ((want && seen >= want) || ms_since(&t0) >= ms)
			return bytes;
		usleep(10000);
	}
}

static const char *wc_status(int st)
{
	return st < 0 ? "no completion" : ibv_wc_status_str(st);
}

/* One message each way; what arrived is added to p->carried. */
static void pair_probe(struct pair *p, const char *name)
{
	int st[2][2] = { { -1, -1 }, { -1, -1 } };
	int i, ret, posted = 0;
	unsigned long bytes;

	pair_poll(p, 0, 0, NULL);	/* drop older completions (flushes) */
	for (i = 0; i < 2; i++) {
		ret = pair_post_recv(p, i);
		if (ret)
			printf("probe %s: post_recv qp%d: %s\n", name, i + 1,
			       err_name(ret));
		else
			posted++;
	}
	for (i = 0; i < 2; i++) {
		ret = pair_post_send(p, i);
		if (ret)
			printf("probe %s: post_send qp%d: %s\n", name, i + 1,
			       err_name(ret));
		else
			posted++;
	}
	bytes = pair_poll(p, 5000, posted, st);
	for (i = 0; i < 2; i++)
		printf("probe %s: qp%d send: %s; recv: %s\n", name, i + 1,
		       wc_status(st[i][1]), wc_status(st[i][0]));
	say("probe %s: carried %lu bytes\n", name, bytes);
	p->carried += bytes;
}

static const char *qp_state_name(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(qp, &attr, IBV_QP_STATE, &init) ||
	    attr.qp_state >= ARRAY_SIZE(state_names))
		return "unknown";
	return state_names[attr.qp_state];
}

static uint32_t sq_psn_of(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(qp, &attr, IBV_QP_SQ_PSN, &init))
		return 0;
	return attr.sq_psn;
}

static int to_state(struct ibv_qp *qp, enum ibv_qp_state state,
		    enum ibv_qp_state cur, int extra_mask)
{
	struct ibv_qp_attr attr = { .qp_state = state, .cur_qp_state = cur };

	return ibv_modify_qp(qp, &attr, IBV_QP_STATE | extra_mask);
}

/* The revival attempts, on QP @i of the pair (the other is its peer). */
static int try_rts_claim_rtr(struct pair *p, int i)
{
	return rc_to_rts(p->qp[i], sq_psn_of(p->qp[i]), IBV_QP_CUR_STATE,
			 IBV_QPS_RTR);
}

static int try_rts_claim_rts(struct pair *p, int i)
{
	return to_state(p->qp[i], IBV_QPS_RTS, IBV_QPS_RTS, IBV_QP_CUR_STATE);
}

static int try_rts_claim_sqd(struct pair *p, int i)
{
	return to_state(p->qp[i], IBV_QPS_RTS, IBV_QPS_SQD, IBV_QP_CUR_STATE);
}

static int try_rtr_claim_init(struct pair *p, int i)
{
	return rc_to_rtr(p->qp[i], p->gid_index, &p->gid, p->qp[!i]->qp_num,
			 sq_psn_of(p->qp[!i]), IBV_QP_CUR_STATE, IBV_QPS_INIT);
}

static int try_rts_plain(struct pair *p, int i)
{
	return rc_to_rts(p->qp[i], sq_psn_of(p->qp[i]), 0, IBV_QPS_RTR);
}

static int try_reset(struct pair *p, int i)
{
	return to_state(p->qp[i], IBV_QPS_RESET, IBV_QPS_RESET, 0);
}

static int try_init(struct pair *p, int i)
{
	return to_init(p->qp[i], 0, 0);
}

static int try_rtr(struct pair *p, int i)
{
	return rc_to_rtr(p->qp[i], p->gid_index, &p->gid, p->qp[!i]->qp_num,
			 0, 0, IBV_QPS_INIT);
}

static int try_rts(struct pair *p, int i)
{
	return rc_to_rts(p->qp[i], 0, 0, IBV_QPS_RTR);
}

static int try_error(struct pair *p, int i)
{
	return to_state(p->qp[i], IBV_QPS_ERR, IBV_QPS_ERR, 0);
}

typedef int (*attempt_fn)(struct pair *p, int i);

struct attempt {
	const char *name;
	attempt_fn fn;
};

/*
 * Run @fn on both QPs and print one line. Returns a mask of the QPs it
 * succeeded on (bit 0: QP1, bit 1: QP2).
 */
static int pair_attempt(struct pair *p, const char *what, const char *name,
			attempt_fn fn)
{
	int r1 = fn(p, 0), r2 = fn(p, 1);

	if (r1 == r2)
		say("%s %s: %s\n", what, name, err_name(r1));
	else
		say("%s %s: %s (qp2: %s)\n", what, name, err_name(r1),
		    err_name(r2));
	return (r1 ? 0 : 1) | (r2 ? 0 : 2);
}

/*
 * The pair's buffer, MR, CQs and two RC QPs (in INIT); prints "qpN qpn
 * 0xQPN" for each if @print. p->gid_index must be set. An exit code.
 */
static int pair_open(struct ctx *c, struct pair *p, bool print)
{
	int i, ret;

	if (ibv_query_gid(c->ctx, 1, p->gid_index, &p->gid))
		return fail("ibv_query_gid", errno);
	p->buf = calloc(4, PAIR_SLOT);
	if (!p->buf)
		return fail("calloc", errno);
	p->mr = ibv_reg_mr(c->pd, p->buf, 4 * PAIR_SLOT, IBV_ACCESS_LOCAL_WRITE);
	if (!p->mr)
		return fail("ibv_reg_mr", errno);
	for (i = 0; i < 2; i++) {
		struct ibv_qp_init_attr init = {
			.cap = { .max_send_wr = 16, .max_recv_wr = 16,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};

		p->cq[i] = ibv_create_cq(c->ctx, 64, NULL, NULL, 0);
		if (!p->cq[i])
			return fail("ibv_create_cq", errno);
		init.send_cq = p->cq[i];
		init.recv_cq = p->cq[i];
		p->qp[i] = ibv_create_qp(c->pd, &init);
		if (!p->qp[i])
			return fail("ibv_create_qp(RC)", errno);
		if (print)
			printf("qp%d qpn 0x%x\n", i + 1, p->qp[i]->qp_num);
	}
	for (i = 0; i < 2; i++) {
		ret = to_init(p->qp[i], 0, 0);
		if (ret)
			return fail("modify RESET->INIT", ret);
	}
	return 0;
}

/* One thread of rc-stall: a QP in INIT, aimed at a silent address. */
struct stall {
	struct ibv_qp *qp;
	union ibv_gid dead;
	int gid_index;
	pthread_t thread;
};

static volatile bool stall_stop;

/* One INIT->RTR towards the silent address: an errno, after a while. */
static int stall_once(struct stall *s)
{
	return rc_to_rtr(s->qp, s->gid_index, &s->dead, s->qp->qp_num, 0, 0,
			 IBV_QPS_INIT);
}

static void *stall_loop(void *arg)
{
	struct stall *s = arg;

	while (!stall_stop && stall_once(s) != EACCES)
		;
	return NULL;
}

/* Wait up to @seconds for QP_FATAL on each of @qps; an exit code. */
static int wait_fatal(struct ctx *c, struct ibv_qp **qps, unsigned long n,
		      int seconds)
{
	struct pollfd pfd = { .fd = c->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	unsigned long i, seen = 0;
	struct timespec t0;
	bool *fatal;
	long left;
	int ret;

	fatal = calloc(n + 1, sizeof(*fatal));
	if (!fatal)
		return fail("calloc", errno);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (seen < n) {
		left = seconds * 1000L - ms_since(&t0);
		ret = left > 0 ? poll(&pfd, 1, left) : 0;
		if (ret < 0)
			return fail("poll", errno);
		if (ret == 0) {
			say("revoked %lu of %lu after %d s\n", seen, n, seconds);
			return 3;
		}
		if (ibv_get_async_event(c->ctx, &ev))
			return fail("ibv_get_async_event", errno);
		for (i = 0; i < n; i++)
			if (ev.event_type == IBV_EVENT_QP_FATAL &&
			    ev.element.qp == qps[i] && !fatal[i]) {
				fatal[i] = true;
				seen++;
			}
		ibv_ack_async_event(&ev);
	}
	say("revoked %lu of %lu after %ld ms\n", seen, n, ms_since(&t0));
	free(fatal);
	return 0;
}

static int rc_stall(struct ctx *c, int gid_index, const char *dgid_s,
		    const char *dead_s, unsigned long nstall,
		    unsigned long nhold, int seconds)
{
	struct ibv_qp **held;
	struct stall *st;
	struct timespec t0;
	long slowest = 0;
	unsigned long i;
	int ret;

	st = calloc(nstall + 1, sizeof(*st));
	held = calloc(nhold + 1, sizeof(*held));
	if (!st || !held)
		return fail("calloc", errno);
	for (i = 0; i < nhold; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = rc_connect_rts(c, gid_index, dgid_s, EW_SELF_QPN, 0);
		if (ret)
			return ret;
		if (ms_since(&t0) > slowest)
			slowest = ms_since(&t0);
		held[i] = c->qp;
	}
	if (nhold)
		say("held: %lu connected, the slowest in %ld ms\n", nhold,
		    slowest);
	for (i = 0; i < nstall; i++) {
		if (parse_gid(dead_s, &st[i].dead))
			return 2;
		st[i].gid_index = gid_index;
		st[i].qp = create_qp(c, IBV_QPT_RC);
		if (!st[i].qp)
			return fail("ibv_create_qp(RC)", errno);
		ret = to_init(st[i].qp, 0, 0);
		if (ret)
			return fail("modify RESET->INIT", ret);
	}
	if (nstall) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = stall_once(&st[0]);
		say("stall: %s after %ld ms\n", err_name(ret), ms_since(&t0));
	}
	for (i = 0; i < nstall; i++) {
		ret = pthread_create(&st[i].thread, NULL, stall_loop, &st[i]);
		if (ret)
			return fail("pthread_create", ret);
	}
	say("ready\n");
	wait_line();
	ret = wait_fatal(c, held, nhold, seconds);
	if (nstall)
		wait_line();
	stall_stop = true;
	for (i = 0; i < nstall; i++)
		pthread_join(st[i].thread, NULL);
	say("stopped\n");
	return ret;
}

static int rc_pair_revive(struct ctx *c, int gid_index, int seconds)
{
	static const struct attempt claims[] = {
		{ "rts-claim-rtr", try_rts_claim_rtr },
		{ "rts-claim-rts", try_rts_claim_rts },
		{ "rts-claim-sqd", try_rts_claim_sqd },
		{ "rtr-claim-init", try_rtr_claim_init },
		{ "rts-plain", try_rts_plain },
	};
	static const struct attempt chain[] = {
		{ "chain-reset", try_reset },
		{ "chain-init", try_init },
		{ "chain-rtr", try_rtr },
		{ "chain-rts", try_rts },
	};
	struct pair p = { .gid_index = gid_index };
	bool revived = false, reached_rtr = false, stopped = false;
	unsigned int k;
	int i, ret;

	ret = pair_open(c, &p, true);
	if (ret)
		return ret;
	for (i = 0; i < 2; i++) {
		ret = try_rtr(&p, i);
		if (ret)
			return fail("modify INIT->RTR", ret);
	}
	for (i = 0; i < 2; i++) {
		ret = try_rts(&p, i);
		if (ret)
			return fail("modify RTR->RTS", ret);
	}
	ret = pair_post_recv(&p, 1);
	if (ret)
		return fail("ibv_post_recv", ret);
	ret = pair_post_send(&p, 0);
	if (ret)
		return fail("ibv_post_send", ret);
	if (pair_poll(&p, 10000, 2, NULL) != PAIR_MSG) {
		fprintf(stderr, "ew_verbs: the first message did not arrive\n");
		return 1;
	}
	say("connected\n");

	ret = wait_revoked(c, p.qp, 2, seconds);
	if (ret)
		return ret;

	/* Each claim starts from the revoked (error) state. */
	for (k = 0; k < ARRAY_SIZE(claims); k++) {
		if (!pair_attempt(&p, "attempt", claims[k].name, claims[k].fn))
			continue;
		revived = true;
		printf("state %s: qp1 %s, qp2 %s\n", claims[k].name,
		       qp_state_name(p.qp[0]), qp_state_name(p.qp[1]));
		pair_probe(&p, claims[k].name);
		pair_attempt(&p, "re-error", claims[k].name, try_error);
	}
	/* The honest way back: RESET, then the whole connection again. */
	for (k = 0; k < ARRAY_SIZE(chain); k++) {
		if (stopped) {
			printf("attempt %s: skipped\n", chain[k].name);
			continue;
		}
		ret = pair_attempt(&p, "attempt", chain[k].name, chain[k].fn);
		if (ret && chain[k].fn == try_rtr)
			reached_rtr = true;
		stopped = ret != 3;
	}
	if (reached_rtr)
		pair_probe(&p, "chain");
	printf("carried %lu bytes\n", p.carried);
	return p.carried || revived || reached_rtr ? 1 : 0;
}

/*
 * deny-flood: refused modifies as fast as they come back, to fill the
 * module's report ring and log budget with one source's denials.
 */
static int deny_flood(struct ctx *c, int gid_index, const char *dgid_s,
		      int seconds)
{
	struct timespec t0, t;
	unsigned long refused = 0;
	union ibv_gid dgid;
	struct ibv_qp *qp;
	bool init_ok;
	int ret;

	ret = rc_create(c, dgid_s, &dgid, &qp);
	if (ret)
		return ret;
	init_ok = !to_init(qp, 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (init_ok)
			ret = rc_to_rtr(qp, gid_index, &dgid, 0x100, 0, 0,
					IBV_QPS_INIT);
		else
			ret = to_init(qp, 0, 0);
		if (!ret) {
			say("flood: a modify was let through after %lu\n", refused);
			return 1;
		}
		if (ret != EACCES)
			return fail("flood modify", ret);
		refused++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < seconds);
	say("refused %lu\n", refused);
	return 0;
}

/*
 * rc-pair-hold: wait up to 10 s for message @k from QP @s to arrive intact
 * at the other QP (and for its send completion); re-posts the receive.
 */
static int hold_step(struct pair *p, int s, int k)
{
	int r = !s, got_send = 0, got_recv = 0, i, n;
	char want[PAIR_MSG] = { 0 };
	struct timespec t0;
	struct ibv_wc wc;
	bool recv;
	int ret;

	snprintf(want, sizeof(want), "ew_verbs: qp%d message %d", s + 1, k);
	ret = pair_post_text(p, s, want);
	if (ret) {
		printf("message %d: post_send qp%d: %s\n", k, s + 1, err_name(ret));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!got_send || !got_recv) {
		for (i = 0; i < 2; i++) {
			while ((n = ibv_poll_cq(p->cq[i], 1, &wc)) > 0) {
				recv = (wc.wr_id & ~0xffUL) == PAIR_WR_RECV;
				if (wc.status != IBV_WC_SUCCESS) {
					printf("message %d: qp%d %s completion: %s\n",
					       k, i + 1, recv ? "receive" : "send",
					       ibv_wc_status_str(wc.status));
					return 1;
				}
				if (!recv) {
					got_send = 1;
					continue;
				}
				if (i != r || wc.byte_len != PAIR_MSG ||
				    memcmp(pair_slot(p, i, true), want, PAIR_MSG)) {
					printf("message %d: qp%d received '%.*s' (%u bytes), wanted '%s' at qp%d\n",
					       k, i + 1, PAIR_MSG,
					       pair_slot(p, i, true), wc.byte_len,
					       want, r + 1);
					return 1;
				}
				got_recv = 1;
				ret = pair_post_recv(p, i);
				if (ret) {
					printf("message %d: post_recv qp%d: %s\n",
					       k, i + 1, err_name(ret));
					return 1;
				}
			}
			if (n < 0)
				return fail("ibv_poll_cq", EIO);
		}
		if (ms_since(&t0) > 10000) {
			printf("message %d: qp%d->qp%d: no %s within 10 s\n", k,
			       s + 1, r + 1, got_recv ? "send completion" : "receive");
			return 1;
		}
		if (!got_send || !got_recv)
			usleep(1000);
	}
	return 0;
}

static int rc_pair_hold(struct ctx *c, int gid_index, int messages)
{
	struct pair p = { .gid_index = gid_index };
	uint32_t psn[2];
	int i, k, ret;

	ret = pair_open(c, &p, false);
	if (ret)
		return ret;
	srand48(getpid() ^ time(NULL));
	for (i = 0; i < 2; i++)
		psn[i] = lrand48() & 0xffffff;
	for (i = 0; i < 2; i++) {
		ret = rc_to_rtr(p.qp[i], gid_index, &p.gid, p.qp[!i]->qp_num,
				psn[!i], 0, IBV_QPS_INIT);
		if (ret)
			return fail("modify INIT->RTR", ret);
	}
	for (i = 0; i < 2; i++) {
		ret = rc_to_rts(p.qp[i], psn[i], 0, IBV_QPS_RTR);
		if (ret)
			return fail("modify RTR->RTS", ret);
		ret = pair_post_recv(&p, i);
		if (ret)
			return fail("ibv_post_recv", ret);
	}
	for (i = 0; i < 2; i++)
		printf("qp%d qpn 0x%x sq-psn 0x%x rq-psn 0x%x\n", i + 1,
		       p.qp[i]->qp_num, psn[i], psn[!i]);
	say("connected\n");
	wait_line();
	for (k = 1; k <= messages; k++)
		for (i = 0; i < 2; i++)
			if (hold_step(&p, i, k))
				return 1;
	printf("verified %d messages each way\n", messages);
	return 0;
}

/*
 * One SEND of the text "ew_verbs: injected" on @c's connected QP: prints
 * "injected" once it is posted, then its completion status after up to 3 s
 * (the victim acks its real peer, not this QP: a retry error does not mean
 * it was missed). Returns 0 once posted.
 */
static int send_injected(struct ctx *c)
{
	static char buf[PAIR_MSG] = "ew_verbs: injected";
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = PAIR_MSG };
	struct ibv_send_wr wr = {
		.wr_id = PAIR_WR_SEND, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct timespec t0;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	int ret, n;

	mr = ibv_reg_mr(c->pd, buf, sizeof(buf), 0);
	if (!mr)
		return fail("ibv_reg_mr", errno);
	sge.lkey = mr->lkey;
	wr.sg_list = &sge;
	ret = ibv_post_send(c->qp, &wr, &bad);
	if (ret)
		return fail("ibv_post_send", ret);
	say("injected\n");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((n = ibv_poll_cq(c->cq, 1, &wc)) == 0 && ms_since(&t0) < 3000)
		usleep(10000);
	printf("send completion: %s\n", n > 0 ? ibv_wc_status_str(wc.status) :
	       n == 0 ? "none within 3 s" : "poll error");
	return 0;
}

static int rc_inject(struct ctx *c, int gid_index, const char *dgid_s,
		     uint32_t dqpn, uint32_t psn)
{
	int ret = rc_connect_rts(c, gid_index, dgid_s, dqpn, psn);

	return ret ? ret : send_injected(c);
}

static int rc_retarget(struct ctx *c, int gid_index, const char *dgid_s,
		       uint32_t dqpn, uint32_t psn)
{
	struct ibv_qp_attr attr = { .dest_qp_num = dqpn };
	int ret;

	ret = rc_connect_rts(c, gid_index, dgid_s, EW_SELF_QPN, psn);
	if (ret)
		return ret;
	ret = ibv_modify_qp(c->qp, &attr, IBV_QP_DEST_QPN);
	say("retarget: %s\n", ret ? err_name(ret) : "OK");
	if (ret)
		return fail("modify DEST_QPN alone", ret);
	return send_injected(c);
}

/*
 * rc-peer: send message @k and wait for its completion and for the far
 * end's message @k; the far end may be one message ahead, so receives are
 * checked in order against *@next (the far end's next message number).
 * Returns 0, or 1 with the reason printed.
 */
static int peer_step(struct pair *p, int k, int *next)
{
	char want[PAIR_MSG];
	int got_send = 0, ret, n;
	struct timespec t0;
	struct ibv_wc wc;
	bool recv;

	snprintf(want, sizeof(want), "ew_verbs: peer message %d", k);
	ret = pair_post_text(p, 0, want);
	if (ret) {
		printf("message %d: post_send: %s\n", k, err_name(ret));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!got_send || *next <= k) {
		while ((n = ibv_poll_cq(p->cq[0], 1, &wc)) > 0) {
			recv = (wc.wr_id & ~0xffUL) == PAIR_WR_RECV;
			if (wc.status != IBV_WC_SUCCESS) {
				printf("message %d: %s completion: %s\n", k,
				       recv ? "receive" : "send",
				       ibv_wc_status_str(wc.status));
				return 1;
			}
			if (!recv) {
				got_send = 1;
				continue;
			}
			memset(want, 0, sizeof(want));
			snprintf(want, sizeof(want), "ew_verbs: peer message %d",
				 *next);
			if (wc.byte_len != PAIR_MSG ||
			    memcmp(pair_slot(p, 0, true), want, PAIR_MSG)) {
				printf("message %d: received '%.*s' (%u bytes), wanted '%s'\n",
				       *next, PAIR_MSG, pair_slot(p, 0, true),
				       wc.byte_len, want);
				return 1;
			}
			(*next)++;
			ret = pair_post_recv(p, 0);
			if (ret) {
				printf("message %d: post_recv: %s\n", k, err_name(ret));
				return 1;
			}
		}
		if (n < 0)
			return fail("ibv_poll_cq", EIO);
		if (ms_since(&t0) > 10000) {
			printf("message %d: no %s within 10 s\n", k,
			       got_send ? "receive" : "send completion");
			return 1;
		}
		usleep(1000);
	}
	return 0;
}

static int rc_peer(struct ctx *c, int gid_index, const char *dgid_s,
		   int messages)
{
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct pair p = { .gid_index = gid_index };
	char line[64], *end;
	union ibv_gid dgid;
	unsigned long far;
	int k, ret, next = 1;

	if (parse_gid(dgid_s, &dgid))
		return 2;
	p.buf = calloc(4, PAIR_SLOT);
	if (!p.buf)
		return fail("calloc", errno);
	p.mr = ibv_reg_mr(c->pd, p.buf, 4 * PAIR_SLOT, IBV_ACCESS_LOCAL_WRITE);
	if (!p.mr)
		return fail("ibv_reg_mr", errno);
	p.cq[0] = ibv_create_cq(c->ctx, 64, NULL, NULL, 0);
	if (!p.cq[0])
		return fail("ibv_create_cq", errno);
	init.send_cq = p.cq[0];
	init.recv_cq = p.cq[0];
	p.qp[0] = ibv_create_qp(c->pd, &init);
	if (!p.qp[0])
		return fail("ibv_create_qp(RC)", errno);
	say("qpn 0x%x\n", p.qp[0]->qp_num);
	if (!fgets(line, sizeof(line), stdin))
		return fail("reading the far QPN", EIO);
	far = strtoul(line, &end, 0);
	if (end == line || far > 0xffffff)
		return fail("the far QPN", EINVAL);
	ret = to_init(p.qp[0], 0, 0);
	if (ret)
		return fail("modify RESET->INIT", ret);
	ret = rc_to_rtr(p.qp[0], gid_index, &dgid, (uint32_t)far, 0, 0,
			IBV_QPS_INIT);
	if (ret)
		return fail("modify INIT->RTR", ret);
	ret = rc_to_rts(p.qp[0], 0, 0, IBV_QPS_RTR);
	if (ret)
		return fail("modify RTR->RTS", ret);
	ret = pair_post_recv(&p, 0);
	if (ret)
		return fail("ibv_post_recv", ret);
	say("connected\n");
	wait_line();
	for (k = 1; k <= messages; k++)
		if (peer_step(&p, k, &next))
			return 1;
	printf("verified %d messages each way\n", messages);
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

/* A destination QPN argument: a number, or "self" (EW_SELF_QPN). */
static uint32_t dqpn_arg(const char *s)
{
	return strcmp(s, "self") ? (uint32_t)num(s) : EW_SELF_QPN;
}

int main(int argc, char **argv)
{
	struct ctx c = {};
	int ret;

	if (argc < 3) {
		fprintf(stderr, "usage: ew_verbs rc-connect|rc-hold|ud-qkey|ud-probe|port-counters|raw-qp|qpn-list|create-ah|\n"
			"       rc-pair-revive|claim-state|rts-av-change|rc-stepwise|\n"
			"       mcast-attach|mcast-reset|qpn-claim|qp-storm|rc-pair-hold|rc-inject|rc-retarget|\n"
			"       rc-peer|rc-stall|deny-flood DEV ...\n");
		return 2;
	}
	ret = open_dev(argv[2], &c);
	if (ret)
		return ret;
	if (!strcmp(argv[1], "rc-connect") && (argc == 6 || argc == 7))
		return rc_connect(&c, num(argv[3]), argv[4], dqpn_arg(argv[5]),
				  argc == 7 ? num(argv[6]) : 0);
	if (!strcmp(argv[1], "rc-hold") && argc == 7)
		return rc_hold(&c, num(argv[3]), argv[4], dqpn_arg(argv[5]),
			       num(argv[6]));
	if (!strcmp(argv[1], "ud-hold") && argc == 5)
		return ud_hold(&c, num(argv[3]), num(argv[4]));
	if (!strcmp(argv[1], "ud-source-qpn") && argc == 4)
		return ud_source_qpn(&c, num(argv[3]));
	if (!strcmp(argv[1], "ud-qkey") && argc == 4)
		return ud_init(&c, num(argv[3]));
	if (!strcmp(argv[1], "ud-probe") && argc >= 7)
		return ud_probe(&c, num(argv[3]), argv[4], num(argv[5]),
				argv + 6, argc - 6);
	if (!strcmp(argv[1], "port-counters") && argc == 3)
		return port_counters(&c);
	if (!strcmp(argv[1], "raw-qp") && argc == 3)
		return raw_qp(&c);
	if (!strcmp(argv[1], "thread-qp") && argc == 3)
		return thread_qp(&c);
	if (!strcmp(argv[1], "qpn-list") && argc == 5)
		return qpn_list(&c, num(argv[3]), num(argv[4]));
	if (!strcmp(argv[1], "create-ah") && argc == 5)
		return create_ah(&c, num(argv[3]), argv[4]);
	if (!strcmp(argv[1], "rc-pair-revive") && argc == 5)
		return rc_pair_revive(&c, num(argv[3]), num(argv[4]));
	if (!strcmp(argv[1], "claim-state") && argc == 6)
		return claim_state(&c, argv[3], argv[4], argv[5]);
	if (!strcmp(argv[1], "rts-av-change") &&
	    (argc == 8 || (argc == 9 && !strcmp(argv[8], "wait"))))
		return rts_av_change(&c, num(argv[3]), argv[4], dqpn_arg(argv[5]),
				     argv[6], num(argv[7]), argc == 9);
	if (!strcmp(argv[1], "rc-stepwise") &&
	    (argc == 6 || (argc == 7 && !strcmp(argv[6], "reset"))))
		return rc_stepwise(&c, num(argv[3]), argv[4], dqpn_arg(argv[5]),
				   argc == 7);
	if (!strcmp(argv[1], "qpn-claim") && argc >= 4 && argc <= 6 &&
	    (argc < 6 || !strcmp(argv[5], "pre")))
		return qpn_claim(&c, num(argv[3]), argc >= 5 ? num(argv[4]) : 1,
				 argc == 6);
	if (!strcmp(argv[1], "mcast-attach") && argc == 4)
		return mcast_attach(&c, argv[3]);
	if (!strcmp(argv[1], "mcast-stepwise") && argc == 4)
		return mcast_stepwise(&c, argv[3]);
	if (!strcmp(argv[1], "mcast-reset") && argc == 4)
		return mcast_reset(&c, argv[3]);
	if (!strcmp(argv[1], "mcast-hold") && argc == 5)
		return mcast_hold(&c, argv[3], num(argv[4]));
	if (!strcmp(argv[1], "rc-destroy-hold") && argc == 7)
		return rc_destroy_hold(&c, num(argv[3]), argv[4],
				       dqpn_arg(argv[5]), num(argv[6]));
	if (!strcmp(argv[1], "qp-storm") && argc == 7)
		return qp_storm(&c, num(argv[3]), argv[4], dqpn_arg(argv[5]),
				num(argv[6]));
	if (!strcmp(argv[1], "rc-pair-hold") && argc == 5)
		return rc_pair_hold(&c, num(argv[3]), num(argv[4]));
	if (!strcmp(argv[1], "rc-peer") && argc == 6)
		return rc_peer(&c, num(argv[3]), argv[4], num(argv[5]));
	if (!strcmp(argv[1], "rc-stall") && argc == 9)
		return rc_stall(&c, num(argv[3]), argv[4], argv[5],
				num(argv[6]), num(argv[7]), num(argv[8]));
	if (!strcmp(argv[1], "rc-inject") && argc == 7)
		return rc_inject(&c, num(argv[3]), argv[4], num(argv[5]),
				 num(argv[6]));
	if (!strcmp(argv[1], "rc-retarget") && argc == 7)
		return rc_retarget(&c, num(argv[3]), argv[4], num(argv[5]),
				   num(argv[6]));
	if (!strcmp(argv[1], "deny-flood") && argc == 6)
		return deny_flood(&c, num(argv[3]), argv[4], num(argv[5]));
	fprintf(stderr, "ew_verbs: bad arguments\n");
	return 2;
}
