// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite eastwest-concurrency: writer threads churn jobs, peers and
 * revoked nodes under ew_config_lock while reader threads decide under
 * rcu_read_lock() exactly as the hooks do (global snapshot, job lookup by
 * cgroup or id, its policy, ew_decide(), the counters), and an oracle
 * checks every decision:
 *
 * - a permanent peer of the permanent job is never refused;
 * - an address no job ever had is never allowed;
 * - a peer, job, Q_Key or revocation that changes is decided as the state
 *   it had, whenever that state held for the whole decision.
 *
 * Each writer brackets its changes with a sequence count (odd while a
 * change is in flight); a reader reads it before and after a decision, and
 * a decision that overlapped a change is counted "in flight" and checked
 * only against the permanent rules.
 *
 * `scripts/kunit-run --debug` runs this with lockdep, PROVE_RCU, KASAN and
 * debugobjects, which is what checks the module's locking and the lifetimes
 * of jobs, policies, peer entries and revoked sets (freed after grace
 * periods while readers run). UML in 6.1 has one CPU and no preemption:
 * threads switch only where one sleeps or calls cond_resched(). Writers
 * sleep between changes and reschedule inside bulk changes (every 256
 * peers), so readers see changes half done too; true parallelism is what
 * selftests/eastwest/churn.sh covers in SMP guests.
 */

#include <kunit/test.h>
#include <linux/cgroup.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <asm/unaligned.h>

#include "config.h"
#include "job.h"
#include "nodes.h"
#include "peers.h"
#include "policy.h"
#include "test_util.h"

/* How long the threads run (UML with KASAN and lockdep is ~5x slower). */
#define EW_CC_RUN_MS		4000
#define EW_CC_READERS		2

/* The permanent job: never deleted; its peer 10.0.0.0/24 never removed. */
#define EW_CC_PERM_ID		100
/* The churned job: created, changed and deleted; bound to cgroup "/". */
#define EW_CC_CHURN_ID		200
/* Short-lived jobs found by id. */
#define EW_CC_EPH_ID		300
#define EW_CC_EPH_N		4
#define EW_CC_QKEY_A		0x1111
#define EW_CC_QKEY_B		0x2222
/* Filler peers of a bulk change, and where the toggled peer sits in it. */
#define EW_CC_BULK_N		400
#define EW_CC_BULK_TOGGLED	300
#define EW_CC_CHURN_FILLER	300
#define EW_CC_NODES_N		64

static const u8 ew_cc_perm_net[16] = V4(10, 0, 0, 0);
static const u8 ew_cc_perm_addr[16] = V4(10, 0, 0, 5);
/* Inside the permanent /24: allowed unless revoked. */
static const u8 ew_cc_node_addr[16] = V4(10, 0, 0, 99);
static const u8 ew_cc_toggled1[16] = V4(192, 0, 2, 77);
/* The only /48 of the job: its prefix length comes and goes with it. */
static const u8 ew_cc_toggled2[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x77 };
static const u8 ew_cc_toggled2_addr[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x77,
					    [15] = 5 };
static const u8 ew_cc_churn_net[16] = V4(10, 1, 0, 0);
static const u8 ew_cc_churn_addr[16] = V4(10, 1, 2, 3);
static const u8 ew_cc_eph_net[16] = V4(10, 3, 0, 0);
static const u8 ew_cc_eph_addr[16] = V4(10, 3, 1, 1);
/* Never a peer of any job. */
static const u8 ew_cc_stranger4[16] = V4(198, 51, 100, 7);
static const u8 ew_cc_stranger6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xde, 0xad,
					[15] = 1 };

/* Oracle classes, one per kind of check. */
enum ew_cc_class {
	EW_CC_PERM,		/* permanent peer: always allowed */
	EW_CC_STRANGER,		/* never added: never allowed */
	EW_CC_TOGGLED1,		/* toggled /128, alone or in a bulk change */
	EW_CC_TOGGLED2,		/* toggled /48 */
	EW_CC_NODE,		/* revoked and lifted address */
	EW_CC_CHURN,		/* churned job via its cgroup, Q_Key toggled */
	EW_CC_EPH,		/* short-lived jobs via their ids */
	EW_CC_NCLASS,
};

static const char *const ew_cc_class_name[EW_CC_NCLASS] = {
	"perm", "stranger", "toggled128", "toggled48", "node", "churn", "eph",
};

struct ew_cc_stats {
	atomic_long_t decisions;
	atomic_long_t wrong_allow;
	atomic_long_t wrong_deny;
	atomic_long_t wrong_reason;	/* refused, but not for the right reason */
	atomic_long_t inflight;
	/* Decisions in a settled window, per expected outcome. */
	atomic_long_t settled_allow;
	atomic_long_t settled_deny;
};

struct ew_cc {
	/* Writers: odd while one of their changes is in flight. */
	seqcount_t peer_seq, job_seq, node_seq;
	/* The state each writer last published, inside its sequence. */
	bool toggled1, toggled2, bulk, node_revoked, churn, churn_qkey_a;
	bool eph[EW_CC_EPH_N];
	struct ew_cc_stats stats[EW_CC_NCLASS];
	atomic_long_t writes, writer_errors;
	struct ew_job *perm;
};

static void ew_cc_writer_error(struct ew_cc *cc, const char *what, int ret)
{
	pr_err("ew-concurrency: %s: unexpected %d\n", what, ret);
	atomic_long_inc(&cc->writer_errors);
}

/*
 * The writers' sequence counts: plain seqcount_t with the raw_ helpers,
 * because a write section sleeps (allocations, cond_resched() in bulk
 * changes) and readers only sample the count, never spin on it.
 */
static void ew_cc_write_begin(seqcount_t *s)
{
	lockdep_assert_held(&ew_config_lock);
	raw_write_seqcount_begin(s);
}

static void ew_cc_write_end(seqcount_t *s)
{
	raw_write_seqcount_end(s);
}

static void ew_cc_pause(unsigned int n)
{
	/* Readers run between changes, writers between each other. */
	if (n % 4)
		cond_resched();
	else
		usleep_range(20, 60);
}

/* ---- writers ------------------------------------------------------------ */

/* Add or remove @n peers of the permanent job, all or nothing. */
static int ew_cc_peers(struct ew_cc *cc, struct ew_peer_key *keys,
		       unsigned int n, bool add)
{
	struct ew_peer_batch batch = { .keys = keys, .n = n };
	unsigned int failed_at;

	return add ? ew_peers_add(cc->perm, &batch, &failed_at) :
		     ew_peers_del(cc->perm, &batch, &failed_at);
}

/* Fill @keys with the bulk batch: filler /128s and the toggled /128. */
static void ew_cc_bulk_keys(struct ew_peer_key *keys)
{
	u8 gid[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01 };
	unsigned int i;

	for (i = 0; i < EW_CC_BULK_N; i++) {
		put_unaligned_be32(i, &gid[12]);
		ew_peer_key_gid(&keys[i], EW_CC_PERM_ID, gid, 128);
	}
	ew_peer_key_gid(&keys[EW_CC_BULK_TOGGLED], EW_CC_PERM_ID,
			ew_cc_toggled1, 128);
}

/* One change of the permanent job's peers; the state is in @cc. */
static void ew_cc_peer_change(struct ew_cc *cc, struct rnd_state *rnd,
			      struct ew_peer_key *bulk)
{
	struct ew_peer_key key;
	int ret;

	mutex_lock(&ew_config_lock);
	ew_cc_write_begin(&cc->peer_seq);
	switch (prandom_u32_state(rnd) % 4) {
	case 0:
		ew_peer_key_gid(&key, EW_CC_PERM_ID, ew_cc_toggled1, 128);
		ret = ew_cc_peers(cc, &key, 1, !cc->toggled1);
		if (ret)
			ew_cc_writer_error(cc, "toggle /128", ret);
		else
			WRITE_ONCE(cc->toggled1, !cc->toggled1);
		break;
	case 1:
		ew_peer_key_gid(&key, EW_CC_PERM_ID, ew_cc_toggled2, 48);
		ret = ew_cc_peers(cc, &key, 1, !cc->toggled2);
		if (ret)
			ew_cc_writer_error(cc, "toggle /48", ret);
		else
			WRITE_ONCE(cc->toggled2, !cc->toggled2);
		break;
	default:
		/*
		 * Bulk add (the toggled /128 at index 300 is added after the
		 * writer rescheduled at 256) or bulk delete, which must fail
		 * whole when the toggled /128 was removed on its own since.
		 */
		ret = ew_cc_peers(cc, bulk, EW_CC_BULK_N, !cc->bulk);
		if (!cc->bulk) {
			if (ret) {
				ew_cc_writer_error(cc, "bulk add", ret);
				break;
			}
			cc->bulk = true;
			WRITE_ONCE(cc->toggled1, true);
		} else if (!cc->toggled1) {
			if (ret != -ENOENT)
				ew_cc_writer_error(cc, "bulk del without /128", ret);
			/* Put it back so that the next bulk delete succeeds. */
			ret = ew_cc_peers(cc, &bulk[EW_CC_BULK_TOGGLED], 1, true);
			if (ret)
				ew_cc_writer_error(cc, "re-add /128", ret);
			else
				WRITE_ONCE(cc->toggled1, true);
		} else {
			if (ret) {
				ew_cc_writer_error(cc, "bulk del", ret);
				break;
			}
			cc->bulk = false;
			WRITE_ONCE(cc->toggled1, false);
		}
		break;
	}
	ew_cc_write_end(&cc->peer_seq);
	mutex_unlock(&ew_config_lock);
}

static int ew_cc_peer_writer(void *data)
{
	struct ew_cc *cc = data;
	struct ew_peer_key *bulk;
	struct rnd_state rnd;
	unsigned int n = 0;

	prandom_seed_state(&rnd, 1);
	bulk = kcalloc(EW_CC_BULK_N, sizeof(*bulk), GFP_KERNEL);
	if (!bulk)
		ew_cc_writer_error(cc, "peer writer", -ENOMEM);
	else
		ew_cc_bulk_keys(bulk);
	while (!kthread_should_stop()) {
		if (bulk) {
			ew_cc_peer_change(cc, &rnd, bulk);
			atomic_long_inc(&cc->writes);
		}
		ew_cc_pause(++n);
	}
	kfree(bulk);
	return 0;
}

/* A job bound to cgroup "/", with its /16 and filler peers. */
static int ew_cc_churn_create(struct ew_cc *cc, struct ew_peer_key *keys)
{
	struct ew_peer_batch batch = { .keys = keys, .n = EW_CC_CHURN_FILLER };
	struct ew_job_spec spec;
	u32 id;
	int ret;

	ew_job_spec_init(&spec);
	spec.id = EW_CC_CHURN_ID;
	spec.has_name = true;
	strscpy(spec.name, "cc-churn", sizeof(spec.name));
	spec.has_qkey = true;
	spec.qkey = EW_CC_QKEY_A;
	spec.peers = &batch;
	ret = ew_job_spec_add_cgroup(&spec, "/", NULL);
	if (!ret)
		ret = ew_job_create(&spec, NULL, &id);
	ew_job_spec_release(&spec);
	return ret;
}

static int ew_cc_eph_create(unsigned int k)
{
	struct ew_peer_key key;
	struct ew_peer_batch batch = { .keys = &key, .n = 1 };
	struct ew_job_spec spec;
	u32 id;

	ew_peer_key_gid(&key, 0, ew_cc_eph_net, 96 + 16);
	ew_job_spec_init(&spec);
	spec.id = EW_CC_EPH_ID + k;
	spec.has_name = true;
	snprintf(spec.name, sizeof(spec.name), "cc-eph-%u", k);
	spec.peers = &batch;
	return ew_job_create(&spec, NULL, &id);
}

/* A new Q_Key (the policy is replaced under readers), maybe a rebinding. */
static int ew_cc_job_set(struct ew_job *job, u32 qkey, bool rebind)
{
	struct ew_job_spec spec;
	int ret = 0;

	ew_job_spec_init(&spec);
	spec.has_qkey = true;
	spec.qkey = qkey;
	if (rebind) {
		spec.has_cgroups = true;
		ret = ew_job_spec_add_cgroup(&spec, "/", NULL);
	}
	if (!ret)
		ret = ew_job_change(job, &spec, NULL);
	ew_job_spec_release(&spec);
	return ret;
}

static void ew_cc_job_change(struct ew_cc *cc, struct rnd_state *rnd,
			     struct ew_peer_key *filler)
{
	u32 op = prandom_u32_state(rnd) % 8;
	unsigned int k = op % EW_CC_EPH_N;
	struct ew_job *job;
	int ret;

	mutex_lock(&ew_config_lock);
	ew_cc_write_begin(&cc->job_seq);
	if (op < 4) {
		/* A short-lived job: created or deleted. */
		job = ew_job_find(EW_CC_EPH_ID + k);
		if (!!job != cc->eph[k]) {
			ew_cc_writer_error(cc, "eph job lookup", -EINVAL);
		} else if (job) {
			ew_job_delete(job);
			WRITE_ONCE(cc->eph[k], false);
		} else {
			ret = ew_cc_eph_create(k);
			if (ret)
				ew_cc_writer_error(cc, "eph job create", ret);
			else
				WRITE_ONCE(cc->eph[k], true);
		}
	} else if (op == 4) {
		/* The permanent job's policy replaced; its peers stay. */
		ret = ew_cc_job_set(cc->perm, EW_CC_QKEY_A + k, false);
		if (ret)
			ew_cc_writer_error(cc, "perm job set", ret);
	} else if (!cc->churn) {
		ret = ew_cc_churn_create(cc, filler);
		if (ret) {
			ew_cc_writer_error(cc, "churn job create", ret);
		} else {
			WRITE_ONCE(cc->churn_qkey_a, true);
			WRITE_ONCE(cc->churn, true);
		}
	} else if (op == 5) {
		/* Deleting flushes its 301 peers, rescheduling midway. */
		ew_job_delete(ew_job_find(EW_CC_CHURN_ID));
		WRITE_ONCE(cc->churn, false);
	} else {
		ret = ew_cc_job_set(ew_job_find(EW_CC_CHURN_ID),
				    cc->churn_qkey_a ? EW_CC_QKEY_B : EW_CC_QKEY_A,
				    op == 7);
		if (ret)
			ew_cc_writer_error(cc, "churn job set", ret);
		else
			WRITE_ONCE(cc->churn_qkey_a, !cc->churn_qkey_a);
	}
	ew_cc_write_end(&cc->job_seq);
	mutex_unlock(&ew_config_lock);
}

static int ew_cc_job_writer(void *data)
{
	struct ew_cc *cc = data;
	struct ew_peer_key *filler;
	u8 gid[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x02 };
	struct rnd_state rnd;
	unsigned int i, n = 0;

	prandom_seed_state(&rnd, 2);
	filler = kcalloc(EW_CC_CHURN_FILLER, sizeof(*filler), GFP_KERNEL);
	if (!filler)
		ew_cc_writer_error(cc, "job writer", -ENOMEM);
	for (i = 0; filler && i < EW_CC_CHURN_FILLER; i++) {
		put_unaligned_be32(i, &gid[12]);
		ew_peer_key_gid(&filler[i], 0, gid, 128);
	}
	if (filler)
		ew_peer_key_gid(&filler[0], 0, ew_cc_churn_net, 96 + 16);
	while (!kthread_should_stop()) {
		if (filler) {
			ew_cc_job_change(cc, &rnd, filler);
			atomic_long_inc(&cc->writes);
		}
		ew_cc_pause(++n);
	}
	kfree(filler);
	return 0;
}

/* Revoke the watched address with 63 others, or lift some or all. */
static int ew_cc_node_writer(void *data)
{
	struct ew_cc *cc = data;
	struct rnd_state rnd;
	unsigned int i, n = 0;
	u8 (*addrs)[16];
	int ret;

	prandom_seed_state(&rnd, 3);
	addrs = kcalloc(EW_CC_NODES_N, 16, GFP_KERNEL);
	if (!addrs)
		ew_cc_writer_error(cc, "node writer", -ENOMEM);
	for (i = 1; addrs && i < EW_CC_NODES_N; i++) {
		u8 other[16] = V4(203, 0, 113, 0);

		other[15] = i;
		memcpy(addrs[i], other, 16);
	}
	if (addrs)
		memcpy(addrs[0], ew_cc_node_addr, 16);
	while (addrs && !kthread_should_stop()) {
		u32 op = prandom_u32_state(&rnd) % 3;

		mutex_lock(&ew_config_lock);
		ew_cc_write_begin(&cc->node_seq);
		if (op == 0) {
			/* Only the others: the watched address keeps its state. */
			ret = ew_nodes_change(addrs[1], EW_CC_NODES_N - 1,
					      prandom_u32_state(&rnd) & 1, NULL);
		} else {
			ret = ew_nodes_change(addrs[0], EW_CC_NODES_N,
					      !cc->node_revoked, NULL);
			if (!ret)
				WRITE_ONCE(cc->node_revoked, !cc->node_revoked);
		}
		ew_cc_write_end(&cc->node_seq);
		mutex_unlock(&ew_config_lock);
		if (ret)
			ew_cc_writer_error(cc, "nodes change", ret);
		atomic_long_inc(&cc->writes);
		ew_cc_pause(++n);
	}
	kfree(addrs);
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

/* ---- readers ------------------------------------------------------------ */

enum ew_cc_lookup { EW_CC_BY_ID, EW_CC_BY_CGROUP };

struct ew_cc_outcome {
	struct ew_verdict v;
	u32 job_id;	/* the job the decision found, 0: none */
};

/* One decision, as the hooks make it (hooks.c: ew_caller_get, ew_judge). */
static struct ew_cc_outcome ew_cc_decide(enum ew_cc_lookup how, u32 id,
					 const u8 *dgid, bool qkey)
{
	struct ew_request req = MODIFY(.n_paths = 1, .has_av = true,
				       .paths = { PATH_GID({}, 3, 0) });
	struct ew_cc_outcome out = {};
	struct ew_job_policy *pol;
	struct ew_global global;
	struct ew_job *job;
	u64 cgid;

	memcpy(req.paths[0].dgid, dgid, 16);
	if (qkey) {
		req.has_qkey = true;
		req.qkey = EW_CC_QKEY_A;
	}
	rcu_read_lock();
	ew_global_snapshot(&global);
	if (how == EW_CC_BY_CGROUP)
		job = ew_job_lookup_by_cgroup(task_dfl_cgroup(current), &cgid);
	else
		job = ew_job_find(id);
	pol = job ? ew_job_policy(job) : NULL;
	out.v = ew_decide(&global, job, pol, &req);
	if (!out.v.reason)
		ew_counter_inc(job, EW_CTR_ALLOWED);
	else
		ew_counter_inc(job, out.v.deny ?
			       EW_CTR_DENIED_BASE + out.v.reason : EW_CTR_AUDITED);
	out.job_id = job ? job->id : 0;
	rcu_read_unlock();
	return out;
}

/*
 * Judge a decision. @settled: the state sampled before it held throughout;
 * @now: the reason that state implies (0: allowed); @plausible: the reasons
 * (BIT(0): allowed) any state during a change may imply.
 */
static void ew_cc_judge(struct ew_cc *cc, enum ew_cc_class class, bool settled,
			u32 now, u32 plausible, const struct ew_cc_outcome *o)
{
	struct ew_cc_stats *st = &cc->stats[class];
	bool may_allow = settled ? !now : plausible & BIT(0);
	bool must_allow = settled ? !now : plausible == BIT(0);
	bool ok;

	atomic_long_inc(&st->decisions);
	if (settled)
		atomic_long_inc(now ? &st->settled_deny : &st->settled_allow);
	else
		atomic_long_inc(&st->inflight);

	ok = settled ? o->v.reason == now : BIT(o->v.reason) & plausible;
	/* No job here audits: every reason refuses. */
	ok = ok && o->v.deny == !!o->v.reason;
	if (ok)
		return;
	if (!o->v.deny && !may_allow)
		atomic_long_inc(&st->wrong_allow);
	else if (o->v.deny && must_allow)
		atomic_long_inc(&st->wrong_deny);
	else
		atomic_long_inc(&st->wrong_reason);
	pr_err_ratelimited("ew-concurrency: %s: reason %u deny %d (job %u), want reason %u (%s)\n",
			   ew_cc_class_name[class], o->v.reason, o->v.deny,
			   o->job_id, now, settled ? "settled" : "in flight");
}

static bool ew_cc_sample(seqcount_t *seq, const bool *flag, unsigned int *start)
{
	*start = raw_read_seqcount(seq);
	return READ_ONCE(*flag);
}

static bool ew_cc_settled(seqcount_t *seq, unsigned int start)
{
	return !(start & 1) && !read_seqcount_retry(seq, start);
}

#define R(reason)	BIT(EASTWEST_REASON_##reason)

static void ew_cc_check(struct ew_cc *cc, enum ew_cc_class class,
			unsigned int k)
{
	struct ew_cc_outcome o;
	bool present, qkey_a;
	unsigned int s;
	u32 now;

	switch (class) {
	case EW_CC_PERM:
		o = ew_cc_decide(EW_CC_BY_ID, EW_CC_PERM_ID, ew_cc_perm_addr, false);
		ew_cc_judge(cc, class, true, 0, 0, &o);
		break;
	case EW_CC_STRANGER:
		/* A job refuses it as no peer, no job as no job. */
		o = ew_cc_decide(EW_CC_BY_ID, k & 1 ? EW_CC_PERM_ID : EW_CC_EPH_ID,
				 ew_cc_stranger4, false);
		now = o.job_id ? EASTWEST_REASON_PEER : EASTWEST_REASON_NO_JOB;
		ew_cc_judge(cc, class, true, now, 0, &o);
		o = ew_cc_decide(EW_CC_BY_CGROUP, 0, ew_cc_stranger6, false);
		now = o.job_id ? EASTWEST_REASON_PEER : EASTWEST_REASON_NO_JOB;
		ew_cc_judge(cc, class, true, now, 0, &o);
		break;
	case EW_CC_TOGGLED1:
		present = ew_cc_sample(&cc->peer_seq, &cc->toggled1, &s);
		o = ew_cc_decide(EW_CC_BY_ID, EW_CC_PERM_ID, ew_cc_toggled1, false);
		ew_cc_judge(cc, class, ew_cc_settled(&cc->peer_seq, s),
			    present ? 0 : EASTWEST_REASON_PEER, BIT(0) | R(PEER), &o);
		break;
	case EW_CC_TOGGLED2:
		present = ew_cc_sample(&cc->peer_seq, &cc->toggled2, &s);
		o = ew_cc_decide(EW_CC_BY_ID, EW_CC_PERM_ID, ew_cc_toggled2_addr,
				 false);
		ew_cc_judge(cc, class, ew_cc_settled(&cc->peer_seq, s),
			    present ? 0 : EASTWEST_REASON_PEER, BIT(0) | R(PEER), &o);
		break;
	case EW_CC_NODE:
		present = ew_cc_sample(&cc->node_seq, &cc->node_revoked, &s);
		o = ew_cc_decide(EW_CC_BY_ID, EW_CC_PERM_ID, ew_cc_node_addr, false);
		ew_cc_judge(cc, class, ew_cc_settled(&cc->node_seq, s),
			    present ? EASTWEST_REASON_NOT_ADMITTED : 0,
			    BIT(0) | R(NOT_ADMITTED), &o);
		break;
	case EW_CC_CHURN:
		/* The hooks' path: the caller's cgroup ("/" here) to its job. */
		present = ew_cc_sample(&cc->job_seq, &cc->churn, &s);
		qkey_a = READ_ONCE(cc->churn_qkey_a);
		o = ew_cc_decide(EW_CC_BY_CGROUP, 0, ew_cc_churn_addr, true);
		if (o.job_id && o.job_id != EW_CC_CHURN_ID)
			o.v.reason = EASTWEST_REASON_MAX + 1;	/* a wrong job */
		now = !present ? EASTWEST_REASON_NO_JOB :
		      qkey_a ? 0 : EASTWEST_REASON_QKEY;
		/* A job being deleted may have lost its peers already. */
		ew_cc_judge(cc, class, ew_cc_settled(&cc->job_seq, s), now,
			    BIT(0) | R(QKEY) | R(NO_JOB) | R(PEER), &o);
		break;
	case EW_CC_EPH:
		k %= EW_CC_EPH_N;
		present = ew_cc_sample(&cc->job_seq, &cc->eph[k], &s);
		o = ew_cc_decide(EW_CC_BY_ID, EW_CC_EPH_ID + k, ew_cc_eph_addr,
				 false);
		ew_cc_judge(cc, class, ew_cc_settled(&cc->job_seq, s),
			    present ? 0 : EASTWEST_REASON_NO_JOB,
			    BIT(0) | R(NO_JOB) | R(PEER), &o);
		break;
	default:
		break;
	}
}

static int ew_cc_reader(void *data)
{
	struct ew_cc *cc = data;
	unsigned int n = 0;

	while (!kthread_should_stop()) {
		ew_cc_check(cc, n % EW_CC_NCLASS, n / EW_CC_NCLASS);
		n++;
		cond_resched();
	}
	return 0;
}

/* ---- the test ------------------------------------------------------------ */

static struct ew_job *ew_cc_perm_create(struct kunit *test)
{
	struct ew_peer_key key;
	struct ew_peer_batch batch = { .keys = &key, .n = 1 };
	struct ew_job_spec spec;
	struct ew_job *job;
	u32 id;
	int ret;

	ew_peer_key_gid(&key, 0, ew_cc_perm_net, 96 + 24);
	ew_job_spec_init(&spec);
	spec.id = EW_CC_PERM_ID;
	spec.has_name = true;
	strscpy(spec.name, "cc-perm", sizeof(spec.name));
	spec.peers = &batch;
	mutex_lock(&ew_config_lock);
	ret = ew_job_create(&spec, NULL, &id);
	job = ret ? NULL : ew_job_find(id);
	mutex_unlock(&ew_config_lock);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_NOT_NULL(test, job);
	return job;
}

/* After the threads: the tables hold exactly what the writers say. */
static void ew_cc_check_final(struct kunit *test, struct ew_cc *cc)
{
	u32 want = 1 + cc->toggled1 + cc->toggled2 +
		   (cc->bulk ? EW_CC_BULK_N - 1 : 0);
	unsigned long total = want;
	struct ew_job *churn;
	unsigned int k;

	mutex_lock(&ew_config_lock);
	KUNIT_EXPECT_EQ(test, cc->perm->n_peers, want);
	churn = ew_job_find(EW_CC_CHURN_ID);
	KUNIT_EXPECT_EQ(test, !!churn, cc->churn);
	if (churn) {
		KUNIT_EXPECT_EQ(test, churn->n_peers, (u32)EW_CC_CHURN_FILLER);
		KUNIT_EXPECT_EQ(test, ew_job_policy(churn)->qkey,
				cc->churn_qkey_a ? (u32)EW_CC_QKEY_A : (u32)EW_CC_QKEY_B);
		total += EW_CC_CHURN_FILLER;
	}
	for (k = 0; k < EW_CC_EPH_N; k++) {
		KUNIT_EXPECT_EQ(test, !!ew_job_find(EW_CC_EPH_ID + k), cc->eph[k]);
		total += cc->eph[k];
	}
	KUNIT_EXPECT_EQ(test, ew_peers_total(), total);
	mutex_unlock(&ew_config_lock);
	rcu_read_lock();
	KUNIT_EXPECT_EQ(test, ew_node_revoked(ew_cc_node_addr), cc->node_revoked);
	rcu_read_unlock();
}

static void ew_cc_churn(struct kunit *test)
{
	int (*const writers[])(void *) = {
		ew_cc_peer_writer, ew_cc_job_writer, ew_cc_node_writer,
	};
	struct task_struct *threads[ARRAY_SIZE(writers) + EW_CC_READERS];
	long sum_wrong = 0, sum = 0;
	unsigned int i, n = 0;
	struct ew_cc *cc;

	cc = kunit_kzalloc(test, sizeof(*cc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cc);
	seqcount_init(&cc->peer_seq);
	seqcount_init(&cc->job_seq);
	seqcount_init(&cc->node_seq);
	cc->perm = ew_cc_perm_create(test);

	for (i = 0; i < ARRAY_SIZE(threads); i++) {
		struct task_struct *t;

		if (i < ARRAY_SIZE(writers))
			t = kthread_run(writers[i], cc, "ew-cc-w%u", i);
		else
			t = kthread_run(ew_cc_reader, cc, "ew-cc-r%u", i);
		if (IS_ERR(t))
			break;
		threads[n++] = t;
	}
	if (n == ARRAY_SIZE(threads))
		msleep(EW_CC_RUN_MS);
	while (n)
		kthread_stop(threads[--n]);
	KUNIT_ASSERT_EQ(test, i, (unsigned int)ARRAY_SIZE(threads));

	for (i = 0; i < EW_CC_NCLASS; i++) {
		struct ew_cc_stats *st = &cc->stats[i];
		long wrong = atomic_long_read(&st->wrong_allow) +
			     atomic_long_read(&st->wrong_deny) +
			     atomic_long_read(&st->wrong_reason);

		kunit_info(test,
			   "ew-concurrency: %s decisions %ld wrong_allow %ld wrong_deny %ld wrong_reason %ld inflight %ld settled_allow %ld settled_deny %ld\n",
			   ew_cc_class_name[i], atomic_long_read(&st->decisions),
			   atomic_long_read(&st->wrong_allow),
			   atomic_long_read(&st->wrong_deny),
			   atomic_long_read(&st->wrong_reason),
			   atomic_long_read(&st->inflight),
			   atomic_long_read(&st->settled_allow),
			   atomic_long_read(&st->settled_deny));
		sum += atomic_long_read(&st->decisions);
		sum_wrong += wrong;
		KUNIT_EXPECT_EQ_MSG(test, wrong, 0L, "class %s",
				    ew_cc_class_name[i]);
	}
	kunit_info(test, "ew-concurrency: decisions %ld wrong %ld writes %ld writer_errors %ld\n",
		   sum, sum_wrong, atomic_long_read(&cc->writes),
		   atomic_long_read(&cc->writer_errors));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&cc->writer_errors), 0L);

	/* Each changing state was seen settled both ways, or nothing was tested. */
	for (i = EW_CC_TOGGLED1; i < EW_CC_NCLASS; i++) {
		KUNIT_EXPECT_GT_MSG(test, atomic_long_read(&cc->stats[i].settled_allow),
				    0L, "class %s", ew_cc_class_name[i]);
		KUNIT_EXPECT_GT_MSG(test, atomic_long_read(&cc->stats[i].settled_deny),
				    0L, "class %s", ew_cc_class_name[i]);
	}
	ew_cc_check_final(test, cc);

	/* Lift what is still revoked; the suite exit frees the rest. */
	mutex_lock(&ew_config_lock);
	KUNIT_EXPECT_EQ(test, ew_nodes_change(ew_cc_node_addr, 1, false, NULL), 0);
	mutex_unlock(&ew_config_lock);
}

static struct kunit_case ew_cc_cases[] = {
	KUNIT_CASE(ew_cc_churn),
	{}
};

static struct kunit_suite ew_cc_suite = {
	.name = "eastwest-concurrency",
	.suite_init = ew_suite_init,
	.suite_exit = ew_suite_exit,
	.test_cases = ew_cc_cases,
};

#ifdef CONFIG_EASTWEST_KUNIT_SPLAT
/*
 * Negative controls for `scripts/kunit-run --splat-selftest`: each case
 * passes as a KUnit test, and the run must still fail on the report it
 * provokes. In this order: lockdep stops checking after its first report
 * and after any report that taints the kernel (KASAN's does); PROVE_RCU's
 * report does neither.
 */
static DEFINE_MUTEX(ew_splat_a);
static DEFINE_MUTEX(ew_splat_b);

/* PROVE_RCU: a context switch inside an RCU read-side critical section. */
static void ew_splat_sleep_in_rcu(struct kunit *test)
{
	rcu_read_lock();
	usleep_range(1000, 2000);
	rcu_read_unlock();
	kunit_info(test, "ew-splat: slept under rcu_read_lock()\n");
}

static int ew_splat_uaf_thread(void *data)
{
	u8 *p = kmalloc(64, GFP_KERNEL);

	kfree(p);
	if (p)
		*(int *)data = READ_ONCE(p[8]);
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

/* KASAN: a read of freed memory, in a thread KUnit does not watch. */
static void ew_splat_use_after_free(struct kunit *test)
{
	struct task_struct *t;
	int v = -2;

	t = kthread_run(ew_splat_uaf_thread, &v, "ew-splat-uaf");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	msleep(200);
	kthread_stop(t);
	kunit_info(test, "ew-splat: read a freed object (%d)\n", v);
}

/* Lockdep: A then B, later B then A (never deadlocks: one thread). */
static void ew_splat_abba(struct kunit *test)
{
	mutex_lock(&ew_splat_a);
	mutex_lock(&ew_splat_b);
	mutex_unlock(&ew_splat_b);
	mutex_unlock(&ew_splat_a);

	mutex_lock(&ew_splat_b);
	mutex_lock(&ew_splat_a);
	mutex_unlock(&ew_splat_a);
	mutex_unlock(&ew_splat_b);
	kunit_info(test, "ew-splat: took two mutexes in ABBA order\n");
}

static struct kunit_case ew_splat_cases[] = {
	KUNIT_CASE(ew_splat_sleep_in_rcu),
	KUNIT_CASE(ew_splat_abba),
	KUNIT_CASE(ew_splat_use_after_free),
	{}
};

static struct kunit_suite ew_splat_suite = {
	.name = "eastwest-splat",
	.test_cases = ew_splat_cases,
};

kunit_test_suites(&ew_cc_suite, &ew_splat_suite);
#else
kunit_test_suites(&ew_cc_suite);
#endif

MODULE_LICENSE("GPL");
