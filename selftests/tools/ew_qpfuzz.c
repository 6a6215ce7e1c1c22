// SPDX-License-Identifier: GPL-2.0
/*
 * ew_qpfuzz: random sequences of QP control operations against the real
 * driver and eastwest, with an oracle that asks the driver (ibv_query_qp),
 * not the module, where each QP can send (qpfuzz.sh).
 *
 *   ew_qpfuzz -d DEV -s SEED -a ALLOWED -l LOCAL [-x EXTRA] [-i SGIDX]
 *             [-V VICTIM_QPNS] [-q NQPS] [-v]
 *
 *   ALLOWED  the job's peers at the start (comma-separated IPv4/IPv6)
 *   LOCAL    this node's addresses (a destination among them must name one
 *            of this process's own QPs: foreign-qp)
 *   EXTRA    more destinations to try (not allowed unless in ALLOWED)
 *   SGIDX    GID indexes to use as sources (the fuzzer adds 0, 1 and
 *            out-of-range ones)
 *   VICTIM_QPNS  QPNs of another job's QPs on this node: never to be reached
 *   NQPS     QPs alive at once (default 8)
 *
 * It creates RC, UC and UD QPs and then reads rounds from stdin, one line
 * each:
 *
 *   round N ALLOWED|- UD RACERS FORKS STEPS
 *
 * ALLOWED the destinations the job may now reach ("-": none, the process is
 * in no job or its job is gone), UD 1 if its UD QPs may be live (the job has
 * `ud on`), RACERS threads that modify the same QPs at random beside the
 * main one, FORKS children forked during the round that modify the parent's
 * QPs, STEPS random operations of the main thread. Before a round's steps,
 * the QP_FATAL events that the root's change between rounds raised are read
 * (those QPs are "revoked") and every QP is checked against the new rules.
 * "end" (or EOF) ends the run. Each round ends with "round N done ...".
 *
 * Steps: ibv_modify_qp (a random target state, the attributes the state
 * table needs most of the time and random others: IBV_QP_CUR_STATE with a
 * random claim, AV and ALT_PATH towards a random destination and source GID
 * index, DEST_QPN among own, victims' and random numbers, PATH_MIG_STATE,
 * P_Key index, Q_Key, access flags, PSNs, EN_SQD_ASYNC_NOTIFY, ...), destroy
 * and re-create, ibv_create_ah, ibv_post_send on a live QP.
 *
 * Oracle (after every call that succeeded, and on every QP at each round's
 * start), from ibv_query_qp:
 *   dest     an RC/UC QP in RTR, RTS, SQD or SQE has its primary destination
 *            GID, and any alternate path's it was given, among ALLOWED; one
 *            of LOCAL must name a QPN this process created, never a victim's
 *   ud       a UD QP is live only when UD is 1
 *   revoked  a revoked QP stays in ERR (or RESET) until a RESET of its own;
 *            no modify but to RESET succeeds on it
 *   claim    no modify naming IBV_QP_CUR_STATE succeeds
 *   path     a successful modify follows an edge of the QP state machine
 *            from the state queried before it (main thread, no racers)
 *   ah       an AH is created only to a destination in ALLOWED and not of
 *            this node
 * Every violation is printed as "VIOLATION kind: ..." followed by the QP's
 * history since it was created (every call, its attributes and answer), so
 * that it can be replayed; at the end "summary: ..." and coverage counts
 * (per QP type and transition, per attribute bit: OK, EACCES, other).
 * Exit 0 if there was no violation, 1 if there was, 2 for usage errors.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../bench/rc_attr.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_GIDS 16
#define MAX_QPS 32
#define HIST_MAX 16384	/* bytes of history per QP */
#define NBITS 21	/* IBV_QP_STATE .. IBV_QP_DEST_QPN */

struct fq {
	struct ibv_qp *qp;
	enum ibv_qp_type type;
	int slot;
	unsigned int gen;	/* creations in this slot */
	bool revoked;		/* QP_FATAL after a root change; until RESET */
	bool alt_loaded;	/* a modify with IBV_QP_ALT_PATH succeeded */
	char hist[HIST_MAX];
	size_t hlen;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static char buf[256];

static struct fq qps[MAX_QPS];
static int nqps = 8;
static pthread_rwlock_t qps_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static union ibv_gid allowed[MAX_GIDS], local[MAX_GIDS], dests[MAX_GIDS * 3];
static int allowed_len[MAX_GIDS];	/* prefix bits of allowed[i] */
static int nallowed, nlocal, ndests;
static int sgidx[MAX_GIDS];
static int nsgidx;
static uint32_t victims[MAX_GIDS];
static int nvictims;
static uint32_t *own;	/* every QPN this process was given */
static int nown, own_cap;
static bool ud_ok;
static bool racing;
static int verbose;
static int round_no;

static unsigned long violations, vprinted;
static unsigned long n_ops, n_ok, n_acces, n_err;
static unsigned long n_ah_ok, n_ah_acces, n_ah_err, n_send_ok, n_send_err;
static unsigned long n_destroy, n_create_fail, n_fatal, n_checks, n_forks;
static unsigned long n_notes;
/* [type 0 RC 1 UC 2 UD][from][to][0 ok 1 EACCES 2 other] */
static unsigned long cov_tr[3][8][8][3];
static unsigned long cov_bit[3][NBITS][3];
static unsigned long cov_claim[3];

static const char *const st_name[] = {
	"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR", "UNK"
};
static const char *const bit_name[NBITS] = {
	"STATE", "CUR_STATE", "EN_SQD_ASYNC_NOTIFY", "ACCESS_FLAGS",
	"PKEY_INDEX", "PORT", "QKEY", "AV", "PATH_MTU", "TIMEOUT",
	"RETRY_CNT", "RNR_RETRY", "RQ_PSN", "MAX_QP_RD_ATOMIC", "ALT_PATH",
	"MIN_RNR_TIMER", "SQ_PSN", "MAX_DEST_RD_ATOMIC", "PATH_MIG_STATE",
	"CAP", "DEST_QPN",
};

static const char *sname(int s)
{
	return s >= 0 && s < 7 ? st_name[s] : st_name[7];
}

static int tidx(enum ibv_qp_type t)
{
	return t == IBV_QPT_RC ? 0 : t == IBV_QPT_UC ? 1 : 2;
}

static const char *tname(enum ibv_qp_type t)
{
	return t == IBV_QPT_RC ? "RC" : t == IBV_QPT_UC ? "UC" : "UD";
}

static const char *err_name(int err)
{
	const char *n;

	if (!err)
		return "OK";
	n = strerrorname_np(err);
	return n ? n : "E?";
}

/* xorshift: each thread its own state, reproducible from the seed. */
static uint32_t rnd(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return (uint32_t)(x >> 16);
}

static bool chance(uint64_t *s, int pct)
{
	return (int)(rnd(s) % 100) < pct;
}

static int parse_gid(const char *s, union ibv_gid *gid)
{
	if (!rc_parse_gid(s, gid))
		return 0;
	fprintf(stderr, "ew_qpfuzz: bad address %s\n", s);
	return -1;
}

/* ADDR[/LEN],...: prefix lengths go to @lens (128 if none given) */
static int parse_gids_len(const char *s, union ibv_gid *out, int *lens, int max)
{
	char tmp[1024], *tok, *save, *slash;
	int n = 0, len;

	if (!strcmp(s, "-"))
		return 0;
	snprintf(tmp, sizeof(tmp), "%s", s);
	for (tok = strtok_r(tmp, ",", &save); tok && n < max;
	     tok = strtok_r(NULL, ",", &save)) {
		slash = strchr(tok, '/');
		len = 128;
		if (slash) {
			*slash = 0;
			len = atoi(slash + 1) + (strchr(tok, ':') ? 0 : 96);
		}
		if (lens)
			lens[n] = len;
		if (parse_gid(tok, &out[n++]))
			return -1;
	}
	return n;
}

static int parse_gids(const char *s, union ibv_gid *out, int max)
{
	return parse_gids_len(s, out, NULL, max);
}

static void gid_str(const union ibv_gid *g, char *out, size_t len)
{
	if (!inet_ntop(AF_INET6, g->raw, out, len))
		snprintf(out, len, "?");
}

static bool gid_in(const union ibv_gid *g, const union ibv_gid *set, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!memcmp(g->raw, set[i].raw, 16))
			return true;
	return false;
}

static bool gid_allowed(const union ibv_gid *g)
{
	int i, b;

	for (i = 0; i < nallowed; i++) {
		for (b = 0; b < allowed_len[i]; b++)
			if ((g->raw[b / 8] ^ allowed[i].raw[b / 8]) &
			    (0x80 >> (b % 8)))
				break;
		if (b == allowed_len[i])
			return true;
	}
	return false;
}

static bool own_qpn(uint32_t qpn)
{
	int i;

	for (i = 0; i < nown; i++)
		if (own[i] == qpn)
			return true;
	return false;
}

static bool victim_qpn(uint32_t qpn)
{
	int i;

	for (i = 0; i < nvictims; i++)
		if (victims[i] == qpn)
			return true;
	return false;
}

/* ---- history and output -------------------------------------------------- */

__attribute__((format(printf, 2, 3)))
static void hist(struct fq *q, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	pthread_mutex_lock(&log_lock);
	if (verbose)
		printf("  qp%d.%u %s\n", q->slot, q->gen, line);
	/* keep the start and the latest lines when it overflows */
	if (q->hlen + n + 2 > HIST_MAX)
		q->hlen = HIST_MAX / 4;
	memcpy(q->hist + q->hlen, line, n);
	q->hlen += n;
	q->hist[q->hlen++] = '\n';
	pthread_mutex_unlock(&log_lock);
}

__attribute__((format(printf, 3, 4)))
static void violation(struct fq *q, const char *kind, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&log_lock);
	violations++;
	printf("VIOLATION %s: round %d qp%d.%u (%s qpn 0x%x): ", kind, round_no,
	       q ? q->slot : -1, q ? q->gen : 0, q ? tname(q->type) : "-",
	       q && q->qp ? q->qp->qp_num : 0);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (q && vprinted < 20) {
		vprinted++;
		size_t i, b = 0;

		printf("    history of qp%d.%u (replay these calls in order):\n",
		       q->slot, q->gen);
		for (i = 0; i < q->hlen; i++)
			if (q->hist[i] == '\n') {
				printf("    | %.*s\n", (int)(i - b), q->hist + b);
				b = i + 1;
			}
	}
	fflush(stdout);
	pthread_mutex_unlock(&log_lock);
}

/* ---- QPs --------------------------------------------------------------- */

static void qp_create(struct fq *q, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
	};

	q->type = type;
	q->gen++;
	q->revoked = false;
	q->alt_loaded = false;
	q->hlen = 0;
	q->qp = ibv_create_qp(pd, &init);
	if (!q->qp) {
		n_create_fail++;
		hist(q, "create %s: %s", tname(type), err_name(errno));
		return;
	}
	if (nown == own_cap) {
		uint32_t *n = realloc(own, (own_cap + 4096) * sizeof(*own));

		if (!n) {
			fprintf(stderr, "ew_qpfuzz: out of memory\n");
			exit(1);
		}
		own = n;
		own_cap += 4096;
	}
	own[nown++] = q->qp->qp_num;
	hist(q, "create %s: OK qpn 0x%x", tname(type), q->qp->qp_num);
}

static void qp_destroy(struct fq *q)
{
	int ret;

	if (!q->qp)
		return;
	ret = ibv_destroy_qp(q->qp);
	hist(q, "destroy: %s", err_name(ret));
	if (!ret) {
		q->qp = NULL;
		n_destroy++;
	}
}

/* ---- the oracle -------------------------------------------------------- */

static bool live(int s)
{
	return s == IBV_QPS_RTR || s == IBV_QPS_RTS || s == IBV_QPS_SQD ||
	       s == IBV_QPS_SQE;
}

/* May a QP move @from -> @to (the core's table; claims aside)? */
static bool edge_ok(int from, int to)
{
	if (to == IBV_QPS_RESET || to == IBV_QPS_ERR)
		return true;
	switch (from) {
	case IBV_QPS_RESET: return to == IBV_QPS_INIT;
	case IBV_QPS_INIT: return to == IBV_QPS_INIT || to == IBV_QPS_RTR;
	case IBV_QPS_RTR: return to == IBV_QPS_RTS;
	case IBV_QPS_RTS: return to == IBV_QPS_RTS || to == IBV_QPS_SQD;
	case IBV_QPS_SQD: return to == IBV_QPS_SQD || to == IBV_QPS_RTS;
	case IBV_QPS_SQE: return to == IBV_QPS_RTS;
	}
	return false;
}

static int query_state(struct fq *q, struct ibv_qp_attr *a)
{
	struct ibv_qp_init_attr init;

	memset(a, 0, sizeof(*a));
	if (ibv_query_qp(q->qp, a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_ALT_PATH |
			 IBV_QP_DEST_QPN | IBV_QP_PATH_MIG_STATE, &init))
		return -1;
	return a->qp_state;
}

/* Is @ah's destination one the job may reach now? "" if so, else why. */
static const char *dest_bad(const struct ibv_ah_attr *ah, uint32_t dqpn)
{
	if (!ah->is_global)
		return "no GRH";
	if (!gid_allowed(&ah->grh.dgid))
		return "destination not allowed";
	if (gid_in(&ah->grh.dgid, local, nlocal)) {
		if (victim_qpn(dqpn))
			return "onto a victim's QP";
		if (!own_qpn(dqpn))
			return "local destination QPN not this process's";
	}
	return "";
}

/*
 * Check @q as the driver reports it; @why names the call just made.
 * Returns the state (or -1).
 */
static int check(struct fq *q, const char *why)
{
	struct ibv_qp_attr a;
	char g[64], g2[64];
	const char *bad;
	int s;

	if (!q->qp)
		return -1;
	n_checks++;
	s = query_state(q, &a);
	if (s < 0) {
		hist(q, "  query: %s", err_name(errno));
		return -1;
	}
	gid_str(&a.ah_attr.grh.dgid, g, sizeof(g));
	gid_str(&a.alt_ah_attr.grh.dgid, g2, sizeof(g2));
	hist(q, "  query: %s dgid %s dqpn 0x%x alt %s mig %d", sname(s), g,
	     a.dest_qp_num, q->alt_loaded ? g2 : "-", a.path_mig_state);
	if (q->revoked && s != IBV_QPS_ERR && s != IBV_QPS_RESET)
		violation(q, "revoked", "after %s: revoked QP is in %s (dgid %s)",
			  why, sname(s), g);
	if (!live(s))
		return s;
	if (q->type == IBV_QPT_UD) {
		if (!ud_ok)
			violation(q, "ud", "after %s: UD QP live (%s) though UD is not allowed",
				  why, sname(s));
		return s;
	}
	bad = dest_bad(&a.ah_attr, a.dest_qp_num);
	if (*bad)
		violation(q, "dest", "after %s: %s in %s: dgid %s dqpn 0x%x",
			  why, bad, sname(s), g, a.dest_qp_num);
	if (q->alt_loaded) {
		bad = dest_bad(&a.alt_ah_attr, a.dest_qp_num);
		if (*bad)
			violation(q, "alt-dest", "after %s: alternate path %s in %s: dgid %s (mig %d)",
				  why, bad, sname(s), g2, a.path_mig_state);
	}
	return s;
}

/* ---- random attributes ------------------------------------------------- */

static void rand_gid(uint64_t *r, union ibv_gid *g)
{
	int k = rnd(r) % 10;

	if (k < 8 && ndests) {
		*g = dests[rnd(r) % ndests];
		return;
	}
	memset(g, 0, sizeof(*g));
	if (k == 8) {		/* a random IPv4-mapped address */
		g->raw[10] = g->raw[11] = 0xff;
		g->raw[12] = 10;
		g->raw[13] = 85;
		g->raw[14] = 0;
		/* only addresses that resolve at once (no ARP stall) */
		g->raw[15] = (uint8_t[]){ 1, 2, 9, 10, 255 }[rnd(r) % 5];
	} else {		/* anything at all */
		uint32_t *w = (uint32_t *)g->raw;
		int i;

		for (i = 0; i < 4; i++)
			w[i] = rnd(r) ^ (rnd(r) << 16);
	}
}

static int rand_sgidx(uint64_t *r)
{
	int k = rnd(r) % 10;

	if (k < 7 && nsgidx)
		return sgidx[rnd(r) % nsgidx];
	if (k == 7)
		return rnd(r) % 4;
	if (k == 8)
		return rnd(r) % 256;
	return 0;
}

static void rand_ah(uint64_t *r, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = chance(r, 95);
	rand_gid(r, &ah->grh.dgid);
	ah->grh.sgid_index = rand_sgidx(r);
	ah->grh.hop_limit = chance(r, 80) ? 1 : rnd(r) % 256;
	ah->grh.traffic_class = chance(r, 80) ? 0 : rnd(r) % 256;
	ah->grh.flow_label = chance(r, 80) ? 0 : rnd(r) % 0x100000;
	ah->port_num = chance(r, 90) ? 1 : rnd(r) % 3;
	ah->sl = chance(r, 90) ? 0 : rnd(r) % 16;
	ah->dlid = chance(r, 90) ? 0 : rnd(r) % 0x10000;
	ah->static_rate = chance(r, 90) ? 0 : rnd(r) % 20;
}

/* Towards a destination of ALLOWED (any if there is none), GRH, port 1. */
static void good_ah(uint64_t *r, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	int i, k;

	rand_gid(r, &ah->grh.dgid);
	for (k = 0; k < 8 && nallowed; k++) {
		i = rnd(r) % nallowed;
		if (allowed_len[i] == 128) {
			ah->grh.dgid = allowed[i];
			break;
		}
		/* a prefix: one of the destinations inside it */
		i = rnd(r) % ndests;
		if (gid_allowed(&dests[i])) {
			ah->grh.dgid = dests[i];
			break;
		}
	}
	ah->grh.sgid_index = nsgidx ? sgidx[0] : 1;
	ah->grh.hop_limit = 1;
	ah->port_num = 1;
}

static uint32_t rand_dqpn(uint64_t *r, struct fq *q)
{
	int k = rnd(r) % 10;

	if (k < 5) {
		struct fq *o = &qps[rnd(r) % nqps];

		if (o->qp)
			return o->qp->qp_num;
		return q->qp->qp_num;
	}
	if (k < 7 && nvictims)
		return victims[rnd(r) % nvictims];
	if (k == 7)
		return q->qp->qp_num;
	if (k == 8)
		return (uint32_t[]){ 0, 1, 0xffffff, 0x1000000 }[rnd(r) % 4];
	return rnd(r) & 0xffffff;
}

/* Required attributes of @from -> @to (the core's table, simplified). */
static int required(enum ibv_qp_type t, int from, int to)
{
	if (from == IBV_QPS_RESET && to == IBV_QPS_INIT)
		return IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       (t == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
	if (from == IBV_QPS_INIT && to == IBV_QPS_RTR) {
		if (t == IBV_QPT_UD)
			return 0;
		return IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		       IBV_QP_RQ_PSN |
		       (t == IBV_QPT_RC ? IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER : 0);
	}
	if (from == IBV_QPS_RTR && to == IBV_QPS_RTS)
		return IBV_QP_SQ_PSN |
		       (t == IBV_QPT_RC ? IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					  IBV_QP_RNR_RETRY |
					  IBV_QP_MAX_QP_RD_ATOMIC : 0);
	return 0;
}

static void mask_str(int mask, char *out, size_t len)
{
	size_t n = 0;
	int i;

	out[0] = 0;
	for (i = 0; i < NBITS; i++)
		if (mask & (1 << i))
			n += snprintf(out + n, n < len ? len - n : 0, "%s%s",
				      n ? "|" : "", bit_name[i]);
	if (!n)
		snprintf(out, len, "0");
}

/* ---- one modify -------------------------------------------------------- */

static void do_modify(uint64_t *r, struct fq *q, bool main_thread)
{
	static const int natural[] = {
		[IBV_QPS_RESET] = IBV_QPS_INIT, [IBV_QPS_INIT] = IBV_QPS_RTR,
		[IBV_QPS_RTR] = IBV_QPS_RTS, [IBV_QPS_RTS] = IBV_QPS_RTS,
		[IBV_QPS_SQD] = IBV_QPS_RTS, [IBV_QPS_SQE] = IBV_QPS_RTS,
		[IBV_QPS_ERR] = IBV_QPS_RESET,
	};
	struct ibv_qp_attr a, before;
	char m[512], g[64], g2[64], why[64];
	int from, to, mask, ret, i, res, after;
	bool good;

	from = query_state(q, &before);
	if (from < 0 || from > IBV_QPS_ERR)
		from = 7;
	memset(&a, 0, sizeof(a));
	/* target state */
	if (from <= IBV_QPS_ERR && chance(r, 55))
		to = natural[from];
	else if (chance(r, 15))
		to = chance(r, 50) ? IBV_QPS_SQD : IBV_QPS_RESET;
	else
		to = rnd(r) % 7;
	if ((to == IBV_QPS_RTS && from == IBV_QPS_RTS && chance(r, 25)) ||
	    (from == IBV_QPS_SQD && chance(r, 40)))
		to = IBV_QPS_SQD;
	good = from <= 6 && chance(r, 45);
	/* mask */
	if (good) {
		/*
		 * What an application does: the next state with what the
		 * table needs, now and then one attribute more (no claim).
		 */
		to = natural[from];
		if ((from == IBV_QPS_RTS && chance(r, 30)) ||
		    (from == IBV_QPS_SQD && chance(r, 50)))
			to = IBV_QPS_SQD;
		if (chance(r, 3))
			to = IBV_QPS_ERR;
		mask = IBV_QP_STATE | required(q->type, from, to);
		if (from == IBV_QPS_SQD && to == IBV_QPS_SQD &&
		    q->type != IBV_QPT_UD && chance(r, 70))
			mask |= IBV_QP_AV;	/* a path change in SQD */
		if (chance(r, 30))
			mask |= 1 << (2 + rnd(r) % (NBITS - 2));
		mask &= ~(IBV_QP_CUR_STATE | IBV_QP_CAP);
	} else if (chance(r, 80)) {
		mask = IBV_QP_STATE |
		       required(q->type, from <= 6 ? from : 0, to);
		for (i = 1; i < NBITS; i++)
			if (i != 19 && chance(r, 8))
				mask |= 1 << i;
		if (chance(r, 8))
			mask &= ~IBV_QP_STATE;
	} else {
		mask = (rnd(r) | rnd(r) << 16) & ((1 << NBITS) - 1) &
		       ~IBV_QP_CAP;
	}
	if (!good && chance(r, 12))
		mask |= IBV_QP_CUR_STATE;
	if (!good && chance(r, 10))
		mask |= IBV_QP_ALT_PATH | (chance(r, 50) ? IBV_QP_PATH_MIG_STATE : 0);
	if (!good && chance(r, 1))
		mask |= IBV_QP_CAP;
	/* values */
	a.qp_state = to;
	a.cur_qp_state = chance(r, 30) && from <= 6 ? from :
			 chance(r, 95) ? (int)(rnd(r) % 7) : (int)(rnd(r) % 16);
	a.en_sqd_async_notify = rnd(r) % 2;
	a.qp_access_flags = chance(r, 70) ?
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ : rnd(r) & 0x3f;
	a.pkey_index = chance(r, 85) ? 0 : rnd(r) % 130;
	a.port_num = chance(r, 90) ? 1 : rnd(r) % 3;
	a.qkey = chance(r, 70) ? 0x1234 : chance(r, 50) ? 0x80010000 : rnd(r);
	rand_ah(r, &a.ah_attr);
	a.path_mtu = chance(r, 90) ? IBV_MTU_1024 : rnd(r) % 7;
	a.timeout = chance(r, 80) ? 14 : rnd(r) % 32;
	a.retry_cnt = chance(r, 80) ? 7 : rnd(r) % 8;
	a.rnr_retry = chance(r, 80) ? 7 : rnd(r) % 8;
	a.rq_psn = chance(r, 50) ? 0 : rnd(r) & 0xffffff;
	a.sq_psn = chance(r, 50) ? 0 : rnd(r) & 0xffffff;
	a.max_rd_atomic = chance(r, 80) ? 1 : rnd(r) % 32;
	a.max_dest_rd_atomic = chance(r, 80) ? 1 : rnd(r) % 32;
	rand_ah(r, &a.alt_ah_attr);
	a.alt_pkey_index = chance(r, 85) ? 0 : rnd(r) % 130;
	a.alt_port_num = chance(r, 90) ? 1 : rnd(r) % 3;
	a.alt_timeout = rnd(r) % 32;
	a.min_rnr_timer = chance(r, 80) ? 12 : rnd(r) % 32;
	a.path_mig_state = rnd(r) % 3;
	a.dest_qp_num = rand_dqpn(r, q);
	a.cap.max_send_wr = 1 + rnd(r) % 8;
	a.cap.max_recv_wr = 1 + rnd(r) % 8;
	if (good) {
		/* an allowed destination, from a GID of the job's */
		good_ah(r, &a.ah_attr);
		good_ah(r, &a.alt_ah_attr);
		a.alt_port_num = 1;
		a.alt_pkey_index = 0;
		a.pkey_index = 0;
		a.port_num = 1;
		a.path_mtu = IBV_MTU_1024;
		a.qkey = 0x1234;
		if (gid_in(&a.ah_attr.grh.dgid, local, nlocal)) {
			struct fq *o = &qps[rnd(r) % nqps];

			a.dest_qp_num = o->qp ? o->qp->qp_num : q->qp->qp_num;
		}
	}

	mask_str(mask, m, sizeof(m));
	gid_str(&a.ah_attr.grh.dgid, g, sizeof(g));
	gid_str(&a.alt_ah_attr.grh.dgid, g2, sizeof(g2));
	ret = ibv_modify_qp(q->qp, &a, mask);
	hist(q, "%smodify (was %s) state=%s cur=%s mask=%s av={grh %d dgid %s sgid_index %d port %d} "
	     "dqpn=0x%x alt={grh %d dgid %s sgid_index %d port %d} alt_port=%d mig=%d "
	     "pkey_index=%d port=%d qkey=0x%x access=0x%x mtu=%d rq_psn=0x%x sq_psn=0x%x -> %s",
	     main_thread ? "" : "[racer] ", sname(from), sname(to),
	     sname(a.cur_qp_state), m, a.ah_attr.is_global, g,
	     a.ah_attr.grh.sgid_index, a.ah_attr.port_num, a.dest_qp_num,
	     a.alt_ah_attr.is_global, g2, a.alt_ah_attr.grh.sgid_index,
	     a.alt_ah_attr.port_num, a.alt_port_num, a.path_mig_state,
	     a.pkey_index, a.port_num, a.qkey, a.qp_access_flags, a.path_mtu,
	     a.rq_psn, a.sq_psn, err_name(ret));

	res = ret == 0 ? 0 : ret == EACCES ? 1 : 2;
	pthread_mutex_lock(&log_lock);
	n_ops++;
	if (!ret)
		n_ok++;
	else if (ret == EACCES)
		n_acces++;
	else
		n_err++;
	cov_tr[tidx(q->type)][from][(mask & IBV_QP_STATE) ? to : 7][res]++;
	for (i = 0; i < NBITS; i++)
		if (mask & (1 << i))
			cov_bit[tidx(q->type)][i][res]++;
	if (mask & IBV_QP_CUR_STATE)
		cov_claim[res]++;
	pthread_mutex_unlock(&log_lock);

	if (ret)
		return;
	if (mask & IBV_QP_ALT_PATH)
		q->alt_loaded = true;
	snprintf(why, sizeof(why), "modify to %s", sname(to));
	if (mask & IBV_QP_CUR_STATE)
		violation(q, "claim", "a modify naming IBV_QP_CUR_STATE=%s succeeded (%s -> %s)",
			  sname(a.cur_qp_state), sname(from), sname(to));
	if (q->revoked && (mask & IBV_QP_STATE) && to == IBV_QPS_ERR) {
		/* harmless, but the gate says only RESET: noted, not counted */
		pthread_mutex_lock(&log_lock);
		n_notes++;
		printf("NOTE: round %d qp%d.%u: ERR of a revoked QP succeeded\n",
		       round_no, q->slot, q->gen);
		pthread_mutex_unlock(&log_lock);
	} else if (q->revoked && (!(mask & IBV_QP_STATE) || to != IBV_QPS_RESET)) {
		violation(q, "revoked", "a modify (to %s) of a revoked QP succeeded",
			  (mask & IBV_QP_STATE) ? sname(to) : "same state");
	}
	if ((mask & IBV_QP_STATE) && to == IBV_QPS_RESET) {
		q->revoked = false;
		q->alt_loaded = false;
	}
	if (main_thread && !racing && (mask & IBV_QP_STATE) && from <= 6 &&
	    !edge_ok(from, to))
		violation(q, "path", "modify %s -> %s succeeded", sname(from),
			  sname(to));
	after = check(q, why);
	(void)after;
}

/* ---- AH and send ------------------------------------------------------- */

static void do_ah_send(uint64_t *r, struct fq *q)
{
	struct ibv_ah_attr aa;
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 16,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_ah *ah;
	char g[64];
	int ret;

	if (chance(r, 40))
		good_ah(r, &aa);
	else
		rand_ah(r, &aa);
	gid_str(&aa.grh.dgid, g, sizeof(g));
	ah = ibv_create_ah(pd, &aa);
	ret = ah ? 0 : errno;
	hist(q, "create_ah {grh %d dgid %s sgid_index %d port %d}: %s",
	     aa.is_global, g, aa.grh.sgid_index, aa.port_num, err_name(ret));
	pthread_mutex_lock(&log_lock);
	if (!ret)
		n_ah_ok++;
	else if (ret == EACCES)
		n_ah_acces++;
	else
		n_ah_err++;
	pthread_mutex_unlock(&log_lock);
	if (ah && (!aa.is_global || !gid_allowed(&aa.grh.dgid) ||
		   gid_in(&aa.grh.dgid, local, nlocal)))
		violation(q, "ah", "an AH to %s (grh %d) was created", g,
			  aa.is_global);
	if (ah && q->type == IBV_QPT_UD) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = rand_dqpn(r, q);
		wr.wr.ud.remote_qkey = 0x1234;
		ret = ibv_post_send(q->qp, &wr, &bad);
		hist(q, "post_send UD via that AH to qpn 0x%x: %s",
		     wr.wr.ud.remote_qpn, err_name(ret));
		pthread_mutex_lock(&log_lock);
		ret ? n_send_err++ : n_send_ok++;
		pthread_mutex_unlock(&log_lock);
	}
	if (ah) {
		/* the send may still hold it: let it go out first */
		struct ibv_wc wc[16];

		usleep(2000);
		while (ibv_poll_cq(cq, 16, wc) > 0)
			;
		ibv_destroy_ah(ah);
	}
}

static void do_send(struct fq *q)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 16,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND }, *bad;
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *rbad;
	int ret;

	if (q->type == IBV_QPT_UD)
		return;
	ibv_post_recv(q->qp, &rwr, &rbad);
	ret = ibv_post_send(q->qp, &wr, &bad);
	hist(q, "post_send: %s", err_name(ret));
	pthread_mutex_lock(&log_lock);
	ret ? n_send_err++ : n_send_ok++;
	pthread_mutex_unlock(&log_lock);
}

static void drain_cq(void)
{
	struct ibv_wc wc[16];

	while (ibv_poll_cq(cq, 16, wc) > 0)
		;
}

/* ---- steps --------------------------------------------------------------- */

static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };

static void step(uint64_t *r)
{
	struct fq *q = &qps[rnd(r) % nqps];
	int k = rnd(r) % 100;

	if (!q->qp || k < 3) {
		pthread_rwlock_wrlock(&qps_lock);
		qp_destroy(q);
		if (!q->qp)
			qp_create(q, types[rnd(r) % 3]);
		pthread_rwlock_unlock(&qps_lock);
		return;
	}
	pthread_rwlock_rdlock(&qps_lock);
	if (k < 88)
		do_modify(r, q, true);
	else if (k < 94)
		do_ah_send(r, q);
	else
		do_send(q);
	pthread_rwlock_unlock(&qps_lock);
	drain_cq();
}

static volatile int stop_racers;
/* modifies the racers may still make: each main step grants one each */
static int racer_budget;

static void *racer(void *arg)
{
	uint64_t r = (uintptr_t)arg;

	while (!stop_racers) {
		struct fq *q;

		if (__atomic_fetch_sub(&racer_budget, 1, __ATOMIC_SEQ_CST) <= 0) {
			__atomic_fetch_add(&racer_budget, 1, __ATOMIC_SEQ_CST);
			usleep(200);
			continue;
		}

		pthread_rwlock_rdlock(&qps_lock);
		q = &qps[rnd(&r) % nqps];
		if (q->qp)
			do_modify(&r, q, false);
		pthread_rwlock_unlock(&qps_lock);
	}
	return NULL;
}

/*
 * A child that uses the parent's QPs (same uverbs file) for @steps
 * modifies, checking what it does; its violations are printed by itself
 * and counted in its exit status.
 */
static void fork_child(uint64_t seed, int steps)
{
	pid_t pid;
	int st, i;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		uint64_t r = seed;

		violations = 0;
		racing = true;	/* the parent's state view is not ours */
		for (i = 0; i < steps; i++) {
			struct fq *q = &qps[rnd(&r) % nqps];

			if (q->qp)
				do_modify(&r, q, false);
		}
		fflush(stdout);
		_exit(violations ? 1 : 0);
	}
	n_forks++;
	if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st)) {
		pthread_mutex_lock(&log_lock);
		violations++;	/* the child printed what it was */
		pthread_mutex_unlock(&log_lock);
	}
}

/* Read the async events: QP_FATAL marks a QP revoked when @mark. */
static void read_events(int ms, bool mark)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int i;

	while (poll(&pfd, 1, ms) > 0) {
		if (ibv_get_async_event(ctx, &ev))
			break;
		if (ev.event_type == IBV_EVENT_QP_FATAL) {
			n_fatal++;
			for (i = 0; i < nqps; i++)
				if (qps[i].qp && ev.element.qp == qps[i].qp) {
					struct ibv_qp_attr a;
					/*
					 * Revoked, unless it was reset (and
					 * maybe raised again) since: only a
					 * QP still in ERR is taken as revoked.
					 */
					int st = query_state(&qps[i], &a);

					hist(&qps[i], "event QP_FATAL, now %s%s",
					     sname(st), mark && st == IBV_QPS_ERR ?
					     ": revoked" : "");
					if (mark && st == IBV_QPS_ERR)
						qps[i].revoked = true;
				}
		}
		ibv_ack_async_event(&ev);
		ms = ms > 0 ? 300 : 0;	/* at a round's start only */
	}
}

static void print_coverage(void)
{
	int t, f, s, b;

	printf("coverage: transitions (type from->to: ok/EACCES/other)\n");
	for (t = 0; t < 3; t++)
		for (f = 0; f < 8; f++)
			for (s = 0; s < 8; s++) {
				unsigned long *c = cov_tr[t][f][s];

				if (c[0] + c[1] + c[2])
					printf("  %s %s->%s: %lu/%lu/%lu\n",
					       tname(types[t]), sname(f),
					       s == 7 ? "(no state)" : sname(s),
					       c[0], c[1], c[2]);
			}
	printf("coverage: attribute bits (type bit: ok/EACCES/other)\n");
	for (t = 0; t < 3; t++)
		for (b = 0; b < NBITS; b++) {
			unsigned long *c = cov_bit[t][b];

			printf("  %s %s: %lu/%lu/%lu\n", tname(types[t]),
			       bit_name[b], c[0], c[1], c[2]);
		}
	printf("coverage: CUR_STATE claims: %lu/%lu/%lu\n", cov_claim[0],
	       cov_claim[1], cov_claim[2]);
}

static int usage(void)
{
	fprintf(stderr, "usage: ew_qpfuzz -d DEV -s SEED -a ALLOWED -l LOCAL "
		"[-x EXTRA] [-i SGIDX,...] [-V QPN,...] [-q NQPS] [-v]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *allowed_s = "-", *local_s = "-", *extra_s = "-";
	char line[1024], tok[16][256];
	struct ibv_device **list;
	uint64_t seed = 1, seed0, r;
	int i, n, opt;

	while ((opt = getopt(argc, argv, "d:s:a:l:x:i:V:q:v")) != -1) {
		char *p, *save;

		switch (opt) {
		case 'd': dev = optarg; break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'a': allowed_s = optarg; break;
		case 'l': local_s = optarg; break;
		case 'x': extra_s = optarg; break;
		case 'i':
			for (p = strtok_r(optarg, ",", &save); p && nsgidx < MAX_GIDS;
			     p = strtok_r(NULL, ",", &save))
				sgidx[nsgidx++] = atoi(p);
			break;
		case 'V':
			for (p = strtok_r(optarg, ",", &save); p && nvictims < MAX_GIDS;
			     p = strtok_r(NULL, ",", &save))
				victims[nvictims++] = strtoul(p, NULL, 0);
			break;
		case 'q': nqps = atoi(optarg); break;
		case 'v': verbose = 1; break;
		default: return usage();
		}
	}
	if (!dev || nqps < 1 || nqps > MAX_QPS)
		return usage();
	nallowed = parse_gids_len(allowed_s, allowed, allowed_len, MAX_GIDS);
	nlocal = parse_gids(local_s, local, MAX_GIDS);
	if (nallowed < 0 || nlocal < 0)
		return 2;
	/* destinations to try: allowed, local, extra, a multicast group */
	for (i = 0; i < nallowed; i++)
		dests[ndests++] = allowed[i];
	for (i = 0; i < nlocal; i++)
		dests[ndests++] = local[i];
	n = parse_gids(extra_s, dests + ndests, MAX_GIDS);
	if (n < 0)
		return 2;
	ndests += n;
	parse_gid("ff0e::ee:9", &dests[ndests++]);
	seed0 = seed;
	seed = seed * 0x9e3779b97f4a7c15ULL + 1;
	r = seed;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			break;
	if (!list || i == n) {
		fprintf(stderr, "ew_qpfuzz: no RDMA device %s\n", dev);
		return 1;
	}
	ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		return 1;
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 1024, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!mr) {
		fprintf(stderr, "ew_qpfuzz: setup: %s\n", strerror(errno));
		return 1;
	}
	fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	for (i = 0; i < nqps; i++) {
		qps[i].slot = i;
		qp_create(&qps[i], types[i % 3]);
	}
	printf("ready: %d QPs, seed %llu\n", nqps, (unsigned long long)seed0);
	fflush(stdout);

	while (fgets(line, sizeof(line), stdin)) {
		int steps, racers, forks, ud, s, nt, nlive = 0, nrev = 0;
		struct timespec t0, t1;
		pthread_t th[8];
		unsigned long v0 = violations, o0 = n_ops, ok0 = n_ok,
			      a0 = n_acces;

		nt = sscanf(line, "%15s %255s %255s %255s %255s %255s %255s",
			    tok[0], tok[1], tok[2], tok[3], tok[4], tok[5],
			    tok[6]);
		if (nt < 1 || !strcmp(tok[0], "end"))
			break;
		if (nt != 7 || strcmp(tok[0], "round")) {
			fprintf(stderr, "ew_qpfuzz: bad line: %s", line);
			return 2;
		}
		round_no = atoi(tok[1]);
		nallowed = parse_gids_len(tok[2], allowed, allowed_len, MAX_GIDS);
		if (nallowed < 0)
			return 2;
		ud = atoi(tok[3]);
		racers = atoi(tok[4]);
		forks = atoi(tok[5]);
		steps = atoi(tok[6]);
		if (racers > 8)
			racers = 8;
		if (racers)	/* no fork() beside threads (their locks) */
			forks = 0;
		ud_ok = ud;
		/* what the root's change did, then every QP under the new rules */
		read_events(round_no > 1 ? 1000 : 0, round_no > 1);
		for (i = 0; i < nqps; i++) {
			char why[32];
			int k;

			snprintf(why, sizeof(why), "round %d starts", round_no);
			/* a revocation may still be on its way: give it 2 s */
			for (k = 0; k < 10; k++) {
				struct ibv_qp_attr a;

				if (!qps[i].qp)
					break;
				s = query_state(&qps[i], &a);
				if (!live(s) ||
				    (qps[i].type == IBV_QPT_UD ? ud_ok :
				     !*dest_bad(&a.ah_attr, a.dest_qp_num)))
					break;
				usleep(200000);
				read_events(0, true);
			}
			s = check(&qps[i], why);
			if (live(s))
				nlive++;
			if (qps[i].revoked)
				nrev++;
		}
		printf("round %d start: %d of %d QPs live, %d revoked\n",
		       round_no, nlive, nqps, nrev);
		fflush(stdout);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		racing = racers > 0;
		stop_racers = 0;
		for (i = 0; i < racers; i++)
			pthread_create(&th[i], NULL, racer,
				       (void *)(uintptr_t)(seed + 1000 * round_no + i + 1));
		for (s = 0; s < steps; s++) {
			if (racers)
				__atomic_fetch_add(&racer_budget, racers,
						   __ATOMIC_SEQ_CST);
			step(&r);
			if (forks && s % (steps / forks + 1) == steps / (2 * forks))
				fork_child(r ^ (uint64_t)s, 200);
			/* eastwest revokes mid-round too (the flapping peer) */
			read_events(0, !racers);
		}
		stop_racers = 1;
		for (i = 0; i < racers; i++)
			pthread_join(th[i], NULL);
		racer_budget = 0;
		racing = false;
		read_events(0, true);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("round %d done: ops %lu ok %lu EACCES %lu in %.1f s, violations %lu\n",
		       round_no, n_ops - o0, n_ok - ok0, n_acces - a0,
		       (double)(t1.tv_sec - t0.tv_sec) +
		       (t1.tv_nsec - t0.tv_nsec) / 1e9, violations - v0);
		fflush(stdout);
	}
	print_coverage();
	printf("summary: seed %llu modifies %lu (ok %lu, EACCES %lu, other %lu), "
	       "AH ok %lu EACCES %lu other %lu, sends ok %lu failed %lu, "
	       "checks %lu, QP_FATAL %lu, destroys %lu, create failures %lu, "
	       "forks %lu, notes %lu, violations %lu\n",
	       (unsigned long long)seed0, n_ops, n_ok, n_acces, n_err, n_ah_ok,
	       n_ah_acces, n_ah_err, n_send_ok, n_send_err, n_checks, n_fatal,
	       n_destroy, n_create_fail, n_forks, n_notes, violations);
	return violations ? 1 : 0;
}
