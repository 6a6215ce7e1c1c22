// SPDX-License-Identifier: GPL-2.0
/*
 * ew_churn - hardening R2: policy churn while QPs connect, every decision
 * checked against the policy in force when it was made. One process, no
 * spawns, so that the decisions come at the rate the kernel allows.
 *
 *   ew_churn -d DEV -g GID_INDEX -j JOB -p PEER -o CGROUP [-o CGROUP]...
 *            [-t SECONDS] [-q QP_THREADS] [-a AH_THREADS] [-w USEC] [-s SEED] [-l]
 *
 * Run it as root and as a member of JOB's cgroup: the verbs calls are
 * checked against the caller's job. JOB must not allow PEER (an IPv4
 * address) yet; a first connect must be refused, or nothing starts.
 * Threads, released together and stopped after SECONDS (default 30):
 *   - the peer toggler adds and deletes PEER of JOB by generic netlink, back
 *     to back (-w: after half of the changes, picked at random, it holds
 *     the state a random 0..USEC, so that decisions also fall entirely
 *     inside one state), and records each change with CLOCK_MONOTONIC
 *     before and after the call;
 *   - the job churner creates and deletes jobs churn-other0.. (one per -o
 *     CGROUP, cgroups that are not this process's), each with PEER and two
 *     random 10.x.0.0/16 peers, so that the job and peer tables change under
 *     the readers;
 *   - QP_THREADS (default 2) threads each take an RC QP RESET->INIT and
 *     time INIT->RTR towards PEER's GID (the policed step), then start over
 *     from RESET; every 16th round on a new QP, so that QPs are also
 *     created and destroyed (tracked and forgotten by the module) under the
 *     churn. The module remembers a QP's address vector until it is
 *     destroyed, so a peer delete may revoke a QP (move it to the error
 *     state) while it waits in RESET or INIT: a RESET->INIT that fails
 *     because of that is counted ("revoked idle") and the round restarts;
 *   - AH_THREADS (default 1) threads time ibv_create_ah towards PEER's GID.
 *     With -l, PEER is a GID of this node: a job may never aim a UD address
 *     handle there (it names no QP), so every create_ah must be refused.
 * A decision is 0 (allowed) or EACCES (refused); any other errno, or a
 * failure of the steps around it, is an error ("other"). One exception: the
 * module refuses only with EACCES, and after it allowed an INIT->RTR, a
 * peer delete can revoke the QP (move it to the error state) before the
 * driver's own modify runs, which then fails with EINVAL. Such a modify,
 * EINVAL with the QP found in the error state, was allowed by the policy:
 * it counts as an allow ("revoked midway") and is judged as one.
 *
 * The oracle: PEER may be in force from the start of an add to the end of
 * the next delete, and surely is from the end of an add to the start of the
 * next delete. An allow that overlaps no "may" window is a wrong allow; a
 * refusal entirely inside a "surely" window is a wrong deny. "pinned" counts
 * the decisions whose answer the oracle fixed (outside every "may" window:
 * must be refused; inside a "surely" window: must be allowed); the others
 * overlapped a change, and either answer is right.
 *
 * A second oracle, on the module's revocation: right after each peer delete
 * returned (before the next add), every QP thread's QP whose INIT->RTR was
 * allowed and that has not been reset since must be in the error state,
 * whenever its decision was made; one that is not is "left connected".
 *
 * Output: detail lines, then
 *   ew_churn: decisions N allowed A refused R other O wrong_allow W
 *   wrong_deny D left_connected L peer_changes P job_ops J rate X/s
 *   (one line)
 * Exit: 0 passed (W, D, L and O zero, both outcomes seen, every peer change
 * and job operation succeeded), 1 a check failed, 2 usage, 3 setup failed
 * (no family, device or job; PEER already allowed).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <infiniband/verbs.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/eastwest.h>

#include "genl.h"

#define EXIT_CHECK	1
#define EXIT_USAGE	2
#define EXIT_SETUP	3

#define MAX_OTHERS	8	/* -o cgroups, one churned job each */
#define MAX_VERBS	16	/* QP plus AH threads */
#define NLC_RBUF	65536
#define NLC_SBUF	8192	/* the largest request is a job with 3 peers */
/* Consecutive failures of a QP thread's setup steps before it gives up. */
#define MAX_STEP_FAILURES 100
/* Rounds a QP thread makes with one QP before it takes a new one. */
#define QP_ROUNDS	16

static void die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("ew_churn: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* xorshift64*: each thread its own state, derived from the seed. */
static uint32_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (uint32_t)((*s * 0x2545F4914F6CDD1DULL) >> 32);
}

/* ---- timed events ------------------------------------------------------ */

enum ev_kind {
	EV_PEER_ADD,
	EV_PEER_DEL,
	EV_MODIFY,	/* INIT->RTR of an RC QP */
	EV_AH,		/* ibv_create_ah */
};

/* An allowed INIT->RTR whose QP a revocation moved to the error state. */
#define ERR_REVOKED_MIDWAY (-1)

struct event {
	int64_t start, end;	/* CLOCK_MONOTONIC ns around the call */
	int err;		/* 0, a positive errno or ERR_REVOKED_MIDWAY */
	int kind;		/* enum ev_kind */
};

struct log {
	struct event *v;
	size_t n, cap;
};

static void log_add(struct log *l, int kind, int64_t start, int64_t end, int err)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4096;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			die(EXIT_SETUP, "out of memory for %zu events", l->cap);
	}
	l->v[l->n++] = (struct event){ start, end, err, kind };
}

/* ---- generic netlink (libmnl): one socket per thread ------------------- */

struct nlc {
	struct mnl_socket *sock;
	uint32_t portid, seq;
	uint16_t family;
	char msg[256];		/* the kernel's message for the last error */
	char sbuf[NLC_SBUF];
	char rbuf[NLC_RBUF];
};

/* What one exchange passes to the callbacks. */
struct nlc_call {
	struct nlc *c;
	mnl_cb_t cb;
	void *data;
};

static int ext_ack_cb(const struct nlattr *a, void *data)
{
	struct nlc *c = data;

	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		snprintf(c->msg, sizeof(c->msg), "%s", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

/* An ack (error 0) ends the exchange; an error keeps its extack message. */
static int nlc_error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct nlc_call *call = data;
	unsigned int off = sizeof(*e);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!e->error)
		return MNL_CB_STOP;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(e->msg);
		mnl_attr_parse(nlh, off, ext_ack_cb, call->c);
	}
	errno = -e->error;
	return MNL_CB_ERROR;
}

static int nlc_data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlc_call *call = data;

	return call->cb ? call->cb(nlh, call->data) : MNL_CB_OK;
}

static struct nlmsghdr *ew_req(struct nlc *c, uint8_t cmd)
{
	return genl_put_request(c->sbuf, c->family, 0, cmd, EASTWEST_FAMILY_VERSION);
}

/* Send @nlh and read until its ack. Returns 0 or a positive errno. */
static int nlc_do(struct nlc *c, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	static mnl_cb_t ctl[NLMSG_ERROR + 1] = {
		[NLMSG_ERROR] = nlc_error_cb,
	};
	struct nlc_call call = { c, cb, data };
	int ret = MNL_CB_OK;

	c->msg[0] = '\0';
	nlh->nlmsg_seq = ++c->seq;
	if (mnl_socket_sendto(c->sock, nlh, nlh->nlmsg_len) < 0)
		return errno;
	do {
		ssize_t n = mnl_socket_recvfrom(c->sock, c->rbuf, sizeof(c->rbuf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		ret = mnl_cb_run2(c->rbuf, n, c->seq, c->portid, nlc_data_cb,
				  &call, ctl, MNL_ARRAY_SIZE(ctl));
	} while (ret > 0);
	return ret < 0 ? (errno ? errno : EPROTO) : 0;
}

/* A socket for the eastwest family; exits with EXIT_SETUP if there is none. */
static struct nlc *nlc_open(void)
{
	struct nlc *c = calloc(1, sizeof(*c));
	struct nlmsghdr *nlh;
	int one = 1, err;

	if (!c)
		die(EXIT_SETUP, "out of memory");
	c->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!c->sock || mnl_socket_bind(c->sock, 0, MNL_SOCKET_AUTOPID) < 0)
		die(EXIT_SETUP, "generic netlink socket: %s", strerror(errno));
	c->portid = mnl_socket_get_portid(c->sock);
	c->seq = (uint32_t)time(NULL);
	mnl_socket_setsockopt(c->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(c->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	nlh = genl_put_request(c->sbuf, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, EASTWEST_FAMILY_NAME);
	err = nlc_do(c, nlh, genl_family_id_cb, &c->family);
	if (err || !c->family)
		die(EXIT_SETUP, "no generic netlink family %s (is eastwest.ko loaded?): %s",
		    EASTWEST_FAMILY_NAME, strerror(err ? err : ENOENT));
	return c;
}

/* "strerror (the kernel's message)" of the last failed request. */
static void nl_failure(struct nlc *c, int err, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", strerror(err), c->msg[0] ? " (" : "",
		 c->msg, c->msg[0] ? ")" : "");
}

static void put_peer(struct nlmsghdr *nlh, uint16_t type,
		     const uint8_t addr[16], uint8_t plen)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);

	mnl_attr_put(nlh, EASTWEST_A_PEER_ADDR, 16, addr);
	mnl_attr_put_u8(nlh, EASTWEST_A_PEER_PREFIX_LEN, plen);
	mnl_attr_nest_end(nlh, nest);
}

static int job_id_attr_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == EASTWEST_A_JOB_ID &&
	    mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		*(uint32_t *)data = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int job_id_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, GENL_HDRLEN, job_id_attr_cb, data);
}

static uint32_t job_id(struct nlc *c, const char *name)
{
	struct nlmsghdr *nlh = ew_req(c, EASTWEST_CMD_JOB_GET);
	uint32_t id = 0;
	int err;

	mnl_attr_put_strz(nlh, EASTWEST_A_JOB_NAME, name);
	err = nlc_do(c, nlh, job_id_cb, &id);
	if (err || !id) {
		char why[320];

		nl_failure(c, err ? err : EPROTO, why, sizeof(why));
		die(EXIT_SETUP, "job %s: %s", name, why);
	}
	return id;
}

/* peer-add or peer-del of one host address. */
static int peer_change(struct nlc *c, uint8_t cmd, uint32_t job,
		       const uint8_t addr[16])
{
	struct nlmsghdr *nlh = ew_req(c, cmd);

	mnl_attr_put_u32(nlh, EASTWEST_A_PEER_LIST_JOB_ID, job);
	put_peer(nlh, EASTWEST_A_PEER_LIST_PEER, addr, 128);
	return nlc_do(c, nlh, NULL, NULL);
}

/* ---- the run ------------------------------------------------------------ */

struct churn {
	/* Options. */
	const char *dev_name, *job_name;
	int gid_index;
	union ibv_gid dgid;	/* PEER, IPv4-mapped: also its peer address */
	const char *others[MAX_OTHERS];
	unsigned int n_others, seconds, n_qp, n_ah, hold_us;
	bool peer_local;	/* -l: address handles to PEER are always refused */
	uint64_t seed;

	uint32_t job;
	struct ibv_context *ctx;
	pthread_barrier_t start;
	atomic_bool stop;
	/* The QP threads, for the toggler's check after each delete. */
	struct verbs_thread *verbs;
	unsigned int n_qp_threads;
};

static unsigned long left_connected(struct churn *ch);

/* The first failure a thread saw, for the report. */
struct first_failure {
	unsigned long count;
	char what[384];
};

static void note_failure(struct first_failure *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note_failure(struct first_failure *f, const char *fmt, ...)
{
	va_list ap;

	if (f->count++)
		return;
	va_start(ap, fmt);
	vsnprintf(f->what, sizeof(f->what), fmt, ap);
	va_end(ap);
}

struct toggler {
	struct churn *ch;
	struct nlc *nl;
	struct log changes;
	struct first_failure failed;
	unsigned long left_connected;
};

/* -w: half of the time, hold the current state a random 0..hold_us. */
static void hold(const struct churn *ch, uint64_t *rng)
{
	uint32_t r = rnd(rng);

	if (ch->hold_us && (r & 1))
		usleep((r >> 1) % (ch->hold_us + 1));
}

static void *toggle_peer(void *arg)
{
	static const uint8_t cmd[2] = { EASTWEST_CMD_PEER_ADD, EASTWEST_CMD_PEER_DEL };
	struct toggler *t = arg;
	struct churn *ch = t->ch;
	uint64_t rng = ch->seed ^ 0x70661e;
	char why[320];
	int64_t s, e;
	int i, err;

	pthread_barrier_wait(&ch->start);
	/* Add and delete in pairs: the run ends with PEER deleted. */
	while (!atomic_load(&ch->stop)) {
		for (i = 0; i < 2; i++) {
			s = now_ns();
			err = peer_change(t->nl, cmd[i], ch->job, ch->dgid.raw);
			e = now_ns();
			log_add(&t->changes, i ? EV_PEER_DEL : EV_PEER_ADD, s, e, err);
			if (i && !err)
				t->left_connected += left_connected(ch);
			if (err) {
				nl_failure(t->nl, err, why, sizeof(why));
				note_failure(&t->failed, "peer %s: %s", i ? "del" : "add", why);
			}
			hold(ch, &rng);
		}
	}
	return NULL;
}

struct job_churner {
	struct churn *ch;
	struct nlc *nl;
	unsigned long ops;
	struct first_failure failed;
};

static int other_job_new(struct nlc *c, const struct churn *ch, unsigned int k,
			 uint64_t *rng)
{
	struct nlmsghdr *nlh = ew_req(c, EASTWEST_CMD_JOB_NEW);
	uint8_t net[16] = { [10] = 0xff, [11] = 0xff, [12] = 10 };
	char name[EASTWEST_JOB_NAME_MAX];
	struct nlattr *nest;
	int i;

	snprintf(name, sizeof(name), "churn-other%u", k);
	mnl_attr_put_strz(nlh, EASTWEST_A_JOB_NAME, name);
	nest = mnl_attr_nest_start(nlh, EASTWEST_A_JOB_CGROUP);
	mnl_attr_put_strz(nlh, EASTWEST_A_CGROUP_PATH, ch->others[k]);
	mnl_attr_nest_end(nlh, nest);
	put_peer(nlh, EASTWEST_A_JOB_PEER, ch->dgid.raw, 128);
	for (i = 0; i < 2; i++) {
		net[13] = (uint8_t)rnd(rng);	/* 10.x.0.0/16 */
		put_peer(nlh, EASTWEST_A_JOB_PEER, net, 96 + 16);
	}
	return nlc_do(c, nlh, NULL, NULL);
}

static int other_job_del(struct nlc *c, unsigned int k)
{
	struct nlmsghdr *nlh = ew_req(c, EASTWEST_CMD_JOB_DEL);
	char name[EASTWEST_JOB_NAME_MAX];

	snprintf(name, sizeof(name), "churn-other%u", k);
	mnl_attr_put_strz(nlh, EASTWEST_A_JOB_NAME, name);
	return nlc_do(c, nlh, NULL, NULL);
}

/* Creates or deletes one of the other jobs at random, as fast as it can. */
static void *churn_jobs(void *arg)
{
	struct job_churner *j = arg;
	struct churn *ch = j->ch;
	bool alive[MAX_OTHERS] = { false };
	uint64_t rng = ch->seed ^ 0x10b5;
	unsigned int k;

	pthread_barrier_wait(&ch->start);
	for (;;) {
		bool stopping = atomic_load(&ch->stop);
		int err;

		/* Once stopped: delete what is left, then end. */
		for (k = 0; stopping && k < ch->n_others && !alive[k]; k++)
			;
		if (stopping && k == ch->n_others)
			break;
		if (!stopping)
			k = rnd(&rng) % ch->n_others;
		err = alive[k] ? other_job_del(j->nl, k) :
				 other_job_new(j->nl, ch, k, &rng);
		j->ops++;
		if (err) {
			char why[320];

			nl_failure(j->nl, err, why, sizeof(why));
			note_failure(&j->failed, "job %s churn-other%u: %s",
				     alive[k] ? "del" : "add", k, why);
			if (stopping)
				break;	/* not forever on a del that fails */
			continue;
		}
		alive[k] = !alive[k];
	}
	return NULL;
}

struct verbs_thread {
	struct churn *ch;
	bool ah;		/* create_ah decisions, else QP modifies */
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;	/* the QP of the current rounds */
	/* Held while @qp is reset or replaced, and by left_connected(). */
	pthread_mutex_t qp_lock;
	/* @qp's last INIT->RTR was allowed, and it was not reset since. */
	atomic_bool connected;
	unsigned long rounds, revoked_idle;
	struct log decisions;
	struct first_failure failed;	/* steps around the decisions */
	pthread_t tid;
};

static struct ibv_qp *create_rc_qp(struct verbs_thread *v)
{
	struct ibv_qp_init_attr init = {
		.send_cq = v->cq,
		.recv_cq = v->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(v->pd, &init);
}

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	return ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* The policed step, as ew_verbs rc-connect takes it: 0 or an errno. */
static int to_rtr(struct ibv_qp *qp, const struct churn *ch)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		/* Itself: on this node a job may only reach its own QPs. */
		.dest_qp_num = qp->qp_num,
		.rq_psn = 0,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.port_num = 1,
			.grh = { .dgid = ch->dgid, .hop_limit = 1,
				 .sgid_index = (uint8_t)ch->gid_index },
		},
	};

	return ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}

static int to_reset(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RESET };

	return ibv_modify_qp(qp, &attr, IBV_QP_STATE);
}

/* EINVAL from the driver because a revocation came first (see the top). */
static bool revoked(struct ibv_qp *qp, int err)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	return err == EINVAL && !ibv_query_qp(qp, &attr, IBV_QP_STATE, &init) &&
	       attr.qp_state == IBV_QPS_ERR;
}

/* A new QP every QP_ROUNDS rounds, else the current one back in RESET. */
static bool next_qp_locked(struct verbs_thread *v)
{
	int err;

	if (v->qp && v->rounds % QP_ROUNDS) {
		err = to_reset(v->qp);
		if (err)
			note_failure(&v->failed, "modify to RESET: %s", strerror(err));
		return !err;
	}
	if (v->qp) {
		err = ibv_destroy_qp(v->qp);
		v->qp = NULL;
		if (err) {
			note_failure(&v->failed, "ibv_destroy_qp: %s", strerror(err));
			return false;
		}
	}
	v->qp = create_rc_qp(v);
	if (!v->qp)
		note_failure(&v->failed, "ibv_create_qp: %s", strerror(errno));
	return v->qp;
}

static bool next_qp(struct verbs_thread *v)
{
	bool ok;

	pthread_mutex_lock(&v->qp_lock);
	atomic_store(&v->connected, false);
	ok = next_qp_locked(v);
	pthread_mutex_unlock(&v->qp_lock);
	return ok;
}

/*
 * Right after a peer delete returned, before the next add: every QP whose
 * INIT->RTR towards PEER was allowed, and that its thread has not reset
 * since, must be in the error state, whenever its decision was made (a
 * connect that read the rules before the delete and recorded its QP after
 * the revocation pass is revoked by the module itself). Returns how many
 * were found still connected.
 */
static unsigned long left_connected(struct churn *ch)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < ch->n_qp_threads; i++) {
		struct verbs_thread *v = &ch->verbs[i];

		pthread_mutex_lock(&v->qp_lock);
		if (atomic_load(&v->connected) && v->qp &&
		    !ibv_query_qp(v->qp, &attr, IBV_QP_STATE, &init) &&
		    attr.qp_state != IBV_QPS_ERR)
			n++;
		pthread_mutex_unlock(&v->qp_lock);
	}
	return n;
}

/* One round, RESET->INIT and timed INIT->RTR; false if a step failed. */
static bool modify_once(struct verbs_thread *v)
{
	int64_t s, e;
	int err;

	if (!next_qp(v))
		return false;
	v->rounds++;
	err = to_init(v->qp);
	if (revoked(v->qp, err)) {
		v->revoked_idle++;
		return true;
	}
	if (err) {
		note_failure(&v->failed, "modify RESET->INIT: %s", strerror(err));
		return false;
	}
	s = now_ns();
	err = to_rtr(v->qp, v->ch);
	e = now_ns();
	if (revoked(v->qp, err))
		err = ERR_REVOKED_MIDWAY;
	else if (!err)
		atomic_store(&v->connected, true);
	log_add(&v->decisions, EV_MODIFY, s, e, err);
	return true;
}

static int create_ah(struct verbs_thread *v, struct ibv_ah **ah)
{
	struct ibv_ah_attr attr = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = v->ch->dgid, .hop_limit = 1,
			 .sgid_index = (uint8_t)v->ch->gid_index },
	};

	*ah = ibv_create_ah(v->pd, &attr);
	return *ah ? 0 : (errno ? errno : EIO);
}

/* One timed ibv_create_ah; false if destroying the AH failed. */
static bool ah_once(struct verbs_thread *v)
{
	struct ibv_ah *ah;
	int64_t s, e;
	int err;

	s = now_ns();
	err = create_ah(v, &ah);
	e = now_ns();
	log_add(&v->decisions, EV_AH, s, e, err);
	if (ah) {
		err = ibv_destroy_ah(ah);
		if (err) {
			note_failure(&v->failed, "ibv_destroy_ah: %s", strerror(err));
			return false;
		}
	}
	return true;
}

static void *decide(void *arg)
{
	struct verbs_thread *v = arg;
	unsigned int failures = 0;
	int err;

	pthread_barrier_wait(&v->ch->start);
	while (!atomic_load(&v->ch->stop)) {
		if (v->ah ? ah_once(v) : modify_once(v))
			failures = 0;
		else if (++failures == MAX_STEP_FAILURES)
			break;	/* counted: the run fails */
	}
	pthread_mutex_lock(&v->qp_lock);
	atomic_store(&v->connected, false);
	err = v->qp ? ibv_destroy_qp(v->qp) : 0;
	v->qp = NULL;
	pthread_mutex_unlock(&v->qp_lock);
	if (err)
		note_failure(&v->failed, "ibv_destroy_qp: %s", strerror(err));
	return NULL;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		die(EXIT_SETUP, "ibv_get_device_list: %s", strerror(errno));
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		die(EXIT_SETUP, "cannot open RDMA device %s", name);
	return ctx;
}

static void verbs_setup(struct verbs_thread *v, struct churn *ch, bool ah)
{
	v->ch = ch;
	v->ah = ah;
	pthread_mutex_init(&v->qp_lock, NULL);
	v->pd = ibv_alloc_pd(ch->ctx);
	v->cq = v->pd ? ibv_create_cq(ch->ctx, 8, NULL, NULL, 0) : NULL;
	if (!v->cq)
		die(EXIT_SETUP, "ibv_alloc_pd/ibv_create_cq: %s", strerror(errno));
}

/* ---- the oracle --------------------------------------------------------- */

struct window {
	int64_t from, to;
};

struct windows {
	struct window *may, *sure;
	size_t n;
};

/*
 * From the changes, in the order the one toggler made them (each starts
 * after the previous one ended, so the windows come sorted and disjoint).
 */
static void build_windows(const struct log *changes, struct windows *w)
{
	const struct event *add = NULL;
	size_t i;

	w->may = calloc(changes->n / 2 + 1, sizeof(*w->may));
	w->sure = calloc(changes->n / 2 + 1, sizeof(*w->sure));
	if (!w->may || !w->sure)
		die(EXIT_SETUP, "out of memory for the oracle");
	w->n = 0;
	for (i = 0; i < changes->n; i++) {
		const struct event *c = &changes->v[i];

		if (c->kind == EV_PEER_ADD) {
			add = c;
		} else if (add) {
			w->may[w->n] = (struct window){ add->start, c->end };
			w->sure[w->n++] = (struct window){ add->end, c->start };
			add = NULL;
		}
	}
	if (add) {		/* never undone */
		w->may[w->n] = (struct window){ add->start, INT64_MAX };
		w->sure[w->n++] = (struct window){ add->end, INT64_MAX };
	}
}

/* The last window that starts at or before @t, or NULL. */
static const struct window *last_from(const struct window *v, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].from <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &v[lo - 1] : NULL;
}

/*
 * Windows are sorted and disjoint: if the last one starting before the
 * decision ends has ended before it started, so has every earlier one.
 */
static bool overlaps_may(const struct windows *w, const struct event *d)
{
	const struct window *m = last_from(w->may, w->n, d->end);

	return m && m->to >= d->start;
}

static bool inside_sure(const struct windows *w, const struct event *d)
{
	const struct window *s = last_from(w->sure, w->n, d->start);

	return s && d->end <= s->to;
}

struct verdict {
	unsigned long decisions, allowed, refused, other;
	unsigned long wrong_allow, wrong_deny, pinned_refuse, pinned_allow;
	unsigned long revoked_midway;
	unsigned long by_kind[2][3];	/* [modify, ah][allowed, refused, other] */
	int other_err;			/* the first other errno */
};

static void judge(const struct windows *w, const struct log *l,
		  bool peer_local, struct verdict *v)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct event *d = &l->v[i];
		int kind = d->kind == EV_AH;
		/* An AH to this node is refused whatever the peer list says. */
		bool pinned = kind && peer_local;
		bool may = !pinned && overlaps_may(w, d);
		bool sure = !pinned && inside_sure(w, d);

		v->decisions++;
		v->pinned_refuse += !may;
		v->pinned_allow += sure;
		if (d->err == 0 || d->err == ERR_REVOKED_MIDWAY) {
			v->allowed++;
			v->revoked_midway += d->err == ERR_REVOKED_MIDWAY;
			v->by_kind[kind][0]++;
			v->wrong_allow += !may;
		} else if (d->err == EACCES) {
			v->refused++;
			v->by_kind[kind][1]++;
			v->wrong_deny += sure;
		} else {
			if (!v->other)
				v->other_err = d->err;
			v->other++;
			v->by_kind[kind][2]++;
		}
	}
}

/* ---- main --------------------------------------------------------------- */

static void usage(void)
{
	fputs("usage: ew_churn -d DEV -g GID_INDEX -j JOB -p PEER -o CGROUP [-o CGROUP]...\n"
	      "                [-t SECONDS] [-q QP_THREADS] [-a AH_THREADS] [-w USEC] [-s SEED] [-l]\n",
	      stderr);
	exit(EXIT_USAGE);
}

static unsigned long num(const char *s, unsigned long min, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (*s == '\0' || *end != '\0' || errno || v < min || v > max)
		die(EXIT_USAGE, "bad number %s (%lu..%lu)", s, min, max);
	return v;
}

static void parse_args(int argc, char **argv, struct churn *ch)
{
	struct in_addr v4;
	const char *peer = NULL;
	int opt;

	ch->seconds = 30;
	ch->n_qp = 2;
	ch->n_ah = 1;
	ch->gid_index = -1;
	ch->seed = (uint64_t)now_ns();
	while ((opt = getopt(argc, argv, "d:g:j:p:o:t:q:a:w:s:lh")) != -1) {
		switch (opt) {
		case 'd': ch->dev_name = optarg; break;
		case 'g': ch->gid_index = (int)num(optarg, 0, 255); break;
		case 'j': ch->job_name = optarg; break;
		case 'p': peer = optarg; break;
		case 'o':
			if (ch->n_others == MAX_OTHERS)
				die(EXIT_USAGE, "at most %d -o cgroups", MAX_OTHERS);
			ch->others[ch->n_others++] = optarg;
			break;
		case 't': ch->seconds = (unsigned int)num(optarg, 1, 86400); break;
		case 'q': ch->n_qp = (unsigned int)num(optarg, 0, MAX_VERBS); break;
		case 'a': ch->n_ah = (unsigned int)num(optarg, 0, MAX_VERBS); break;
		case 'w': ch->hold_us = (unsigned int)num(optarg, 0, 1000000); break;
		case 's': ch->seed = num(optarg, 0, ULONG_MAX); break;
		case 'l': ch->peer_local = true; break;
		default: usage();
		}
	}
	if (optind != argc || !ch->dev_name || ch->gid_index < 0 || !ch->job_name ||
	    !peer || !ch->n_others)
		usage();
	if (!ch->n_qp && !ch->n_ah)
		die(EXIT_USAGE, "no decision threads (-q and -a are both 0)");
	if (ch->n_qp + ch->n_ah > MAX_VERBS)
		die(EXIT_USAGE, "at most %d QP and AH threads together", MAX_VERBS);
	if (inet_pton(AF_INET, peer, &v4) != 1)
		die(EXIT_USAGE, "PEER must be an IPv4 address: %s", peer);
	memset(&ch->dgid, 0, sizeof(ch->dgid));
	ch->dgid.raw[10] = 0xff;
	ch->dgid.raw[11] = 0xff;
	memcpy(&ch->dgid.raw[12], &v4, 4);
	ch->seed |= 1;		/* xorshift needs a non-zero state */
}

/* Before the churn, with no PEER in JOB, a connect must be refused. */
static void check_refused_first(struct churn *ch, struct verbs_thread *v)
{
	struct ibv_qp *qp = create_rc_qp(v);
	int err;

	if (!qp)
		die(EXIT_SETUP, "ibv_create_qp: %s", strerror(errno));
	err = to_init(qp);
	if (err)
		die(EXIT_SETUP, "modify RESET->INIT: %s", strerror(err));
	err = to_rtr(qp, ch);
	ibv_destroy_qp(qp);
	if (err != EACCES)
		die(EXIT_SETUP, "before the churn, a connect of job %s got %s, not EACCES (does the job already allow the peer? is this process in its cgroup?)",
		    ch->job_name, err ? strerror(err) : "allowed");
}

int main(int argc, char **argv)
{
	static struct churn ch;
	struct verbs_thread verbs[MAX_VERBS] = { 0 };
	struct toggler tog = { .ch = &ch };
	struct job_churner jobs = { .ch = &ch };
	pthread_t tog_tid, jobs_tid;
	struct verdict vd = { 0 };
	struct windows w;
	unsigned long other_steps = 0, revoked_idle = 0;
	unsigned int i, n_verbs;
	int64_t t0, t1;
	double secs;
	bool pass;

	parse_args(argc, argv, &ch);
	n_verbs = ch.n_qp + ch.n_ah;
	tog.nl = nlc_open();
	jobs.nl = nlc_open();
	ch.job = job_id(tog.nl, ch.job_name);
	ch.ctx = open_dev(ch.dev_name);
	for (i = 0; i < n_verbs; i++)
		verbs_setup(&verbs[i], &ch, i >= ch.n_qp);
	/* The QP threads come first. */
	ch.verbs = verbs;
	ch.n_qp_threads = ch.n_qp;
	check_refused_first(&ch, &verbs[0]);

	if (pthread_barrier_init(&ch.start, NULL, n_verbs + 3))
		die(EXIT_SETUP, "pthread_barrier_init failed");
	if (pthread_create(&tog_tid, NULL, toggle_peer, &tog) ||
	    pthread_create(&jobs_tid, NULL, churn_jobs, &jobs))
		die(EXIT_SETUP, "pthread_create failed");
	for (i = 0; i < n_verbs; i++)
		if (pthread_create(&verbs[i].tid, NULL, decide, &verbs[i]))
			die(EXIT_SETUP, "pthread_create failed");
	printf("ew_churn: job %s (id %u), %u QP and %u AH threads, %u other jobs, %u s, hold %u us, seed %llu\n",
	       ch.job_name, ch.job, ch.n_qp, ch.n_ah, ch.n_others, ch.seconds,
	       ch.hold_us, (unsigned long long)ch.seed);
	fflush(stdout);
	pthread_barrier_wait(&ch.start);
	t0 = now_ns();
	sleep(ch.seconds);
	atomic_store(&ch.stop, true);
	for (i = 0; i < n_verbs; i++)
		pthread_join(verbs[i].tid, NULL);
	t1 = now_ns();
	pthread_join(tog_tid, NULL);
	pthread_join(jobs_tid, NULL);

	build_windows(&tog.changes, &w);
	for (i = 0; i < n_verbs; i++) {
		judge(&w, &verbs[i].decisions, ch.peer_local, &vd);
		other_steps += verbs[i].failed.count;
		revoked_idle += verbs[i].revoked_idle;
		if (verbs[i].failed.count)
			printf("ew_churn: thread %u: %lu failed steps, first: %s\n",
			       i, verbs[i].failed.count, verbs[i].failed.what);
	}
	vd.other += other_steps;
	if (tog.failed.count)
		printf("ew_churn: %lu peer changes failed, first: %s\n",
		       tog.failed.count, tog.failed.what);
	if (jobs.failed.count)
		printf("ew_churn: %lu job operations failed, first: %s\n",
		       jobs.failed.count, jobs.failed.what);
	if (vd.other_err)
		printf("ew_churn: first other outcome: %s\n", strerror(vd.other_err));
	printf("ew_churn: modify allowed %lu (revoked midway %lu) refused %lu other %lu (revoked idle %lu), create_ah allowed %lu refused %lu other %lu, pinned_refuse %lu pinned_allow %lu\n",
	       vd.by_kind[0][0], vd.revoked_midway, vd.by_kind[0][1], vd.by_kind[0][2],
	       revoked_idle,
	       vd.by_kind[1][0], vd.by_kind[1][1], vd.by_kind[1][2],
	       vd.pinned_refuse, vd.pinned_allow);
	secs = (double)(t1 - t0) / 1e9;
	printf("ew_churn: decisions %lu allowed %lu refused %lu other %lu wrong_allow %lu wrong_deny %lu left_connected %lu peer_changes %zu job_ops %lu rate %.1f/s\n",
	       vd.decisions, vd.allowed, vd.refused, vd.other, vd.wrong_allow,
	       vd.wrong_deny, tog.left_connected, tog.changes.n, jobs.ops,
	       secs > 0 ? vd.decisions / secs : 0);
	pass = !vd.wrong_allow && !vd.wrong_deny && !vd.other && vd.allowed &&
	       vd.refused && !tog.left_connected && !tog.failed.count &&
	       !jobs.failed.count;
	free(w.may);
	free(w.sure);
	free(tog.changes.v);
	for (i = 0; i < n_verbs; i++)
		free(verbs[i].decisions.v);
	return pass ? 0 : EXIT_CHECK;
}
