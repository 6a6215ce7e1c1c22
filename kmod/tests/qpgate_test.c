// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the QP state gate (qpgate.c): the attacks found against
 * the modify hook as explicit rows, then every QP type x recorded state x
 * revoked/owner x caller x next state x attribute mask, checked against
 * the rules the gate must keep, so that no modify that can make a QP carry
 * traffic to a destination goes unjudged.
 */

#include <kunit/test.h>
#include <rdma/ib_verbs.h>

#include "policy.h"
#include "qpgate.h"

#define JOB_A	7
#define JOB_B	8
#define NO_STATE 0xff	/* a row's modify carries no IB_QP_STATE */

struct ew_gate_case {
	const char *desc;
	struct ew_qp_view qp;
	u32 type;
	u32 mask;		/* IB_QP_STATE is added unless next is NO_STATE */
	u8 next;
	bool policed;
	u32 job;
	enum ew_gate_verdict verdict;
	u32 reason;		/* with EW_GATE_REFUSE */
	bool breaks_table;	/* the real state's table refuses it */
};

#define TRACKED(st, j)	{ .tracked = true, .state = (st), .job_id = (j) }
#define REVOKED(j)	{ .tracked = true, .revoked = true, \
			  .state = IB_QPS_ERR, .job_id = (j) }
#define UNTRACKED	{ .state = IB_QPS_RESET }

static const struct ew_gate_case ew_gate_cases[] = {
	/* The attacks, as they were seen to succeed against rxe. */
	{ "revoked QP back to RTS claiming RTR", REVOKED(JOB_A), IB_QPT_RC,
	  IB_QP_CUR_STATE | IB_QP_SQ_PSN, IB_QPS_RTS, true, JOB_A,
	  EW_GATE_REFUSE, EASTWEST_REASON_REVOKED },
	{ "revoked QP claim by a process now in no job", REVOKED(JOB_A),
	  IB_QPT_RC, IB_QP_CUR_STATE | IB_QP_SQ_PSN, IB_QPS_RTS, true, 0,
	  EW_GATE_REFUSE, EASTWEST_REASON_REVOKED },
	{ "revoked QP claim, default allow, no job", REVOKED(JOB_A),
	  IB_QPT_RC, IB_QP_CUR_STATE | IB_QP_SQ_PSN, IB_QPS_RTS, false, 0,
	  EW_GATE_REFUSE, EASTWEST_REASON_REVOKED },
	{ "revoked QP plain RTS", REVOKED(JOB_A), IB_QPT_RC, IB_QP_SQ_PSN,
	  IB_QPS_RTS, true, JOB_A, EW_GATE_REFUSE, EASTWEST_REASON_REVOKED },
	{ "revoked QP, attributes only", REVOKED(JOB_A), IB_QPT_RC,
	  IB_QP_TIMEOUT, NO_STATE, true, JOB_A,
	  EW_GATE_REFUSE, EASTWEST_REASON_REVOKED },
	{ "revoked QP to ERR again", REVOKED(JOB_A), IB_QPT_RC, 0, IB_QPS_ERR,
	  true, JOB_A, EW_GATE_REFUSE, EASTWEST_REASON_REVOKED },
	{ "revoked QP to RESET", REVOKED(JOB_A), IB_QPT_RC, 0, IB_QPS_RESET,
	  true, JOB_A, EW_GATE_PASS },
	{ "UD RESET->RTS claiming RTR, no job", UNTRACKED, IB_QPT_UD,
	  IB_QP_CUR_STATE | IB_QP_SQ_PSN, IB_QPS_RTS, true, 0,
	  EW_GATE_REFUSE, EASTWEST_REASON_QP_STATE },
	{ "UD RESET->RTR claiming INIT, job", UNTRACKED, IB_QPT_UD,
	  IB_QP_CUR_STATE, IB_QPS_RTR, true, JOB_A,
	  EW_GATE_REFUSE, EASTWEST_REASON_QP_STATE },
	{ "UD RESET->RTS without a claim (skips INIT)", UNTRACKED, IB_QPT_UD,
	  IB_QP_SQ_PSN, IB_QPS_RTS, true, JOB_A,
	  EW_GATE_REFUSE, EASTWEST_REASON_QP_STATE },
	{ "RC INIT->RTS (skips RTR)", TRACKED(IB_QPS_INIT, JOB_A), IB_QPT_RC,
	  IB_QP_SQ_PSN, IB_QPS_RTS, true, JOB_A,
	  EW_GATE_REFUSE, EASTWEST_REASON_QP_STATE },
	{ "claim of the true state is refused too", TRACKED(IB_QPS_RTR, JOB_A),
	  IB_QPT_RC, IB_QP_CUR_STATE | IB_QP_SQ_PSN, IB_QPS_RTS, true, JOB_A,
	  EW_GATE_REFUSE, EASTWEST_REASON_QP_STATE },
	{ "job B's INIT->RTR of job A's QP", TRACKED(IB_QPS_INIT, JOB_A),
	  IB_QPT_RC, IB_QP_AV | IB_QP_DEST_QPN, IB_QPS_RTR, true, JOB_B,
	  EW_GATE_REFUSE, EASTWEST_REASON_QP_OWNER },
	{ "no job's RTR->RTS of job A's QP", TRACKED(IB_QPS_RTR, JOB_A),
	  IB_QPT_RC, IB_QP_SQ_PSN, IB_QPS_RTS, true, 0,
	  EW_GATE_REFUSE, EASTWEST_REASON_QP_OWNER },
	{ "unpoliced RTR->RTS of job A's QP", TRACKED(IB_QPS_RTR, JOB_A),
	  IB_QPT_RC, IB_QP_SQ_PSN, IB_QPS_RTS, false, 0,
	  EW_GATE_REFUSE, EASTWEST_REASON_QP_OWNER },
	{ "XRC target of job A opened by job B", TRACKED(IB_QPS_INIT, JOB_A),
	  IB_QPT_XRC_TGT, IB_QP_AV | IB_QP_DEST_QPN, IB_QPS_RTR, true, JOB_B,
	  EW_GATE_REFUSE, EASTWEST_REASON_QP_OWNER },
	{ "another job may kill the QP it holds", TRACKED(IB_QPS_RTS, JOB_A),
	  IB_QPT_RC, 0, IB_QPS_ERR, true, JOB_B, EW_GATE_PASS },
	{ "no job, untracked: RTR->RTS is judged (no record to follow)",
	  UNTRACKED, IB_QPT_RC, IB_QP_SQ_PSN, IB_QPS_RTS, true, 0,
	  EW_GATE_JUDGE },
	{ "an untracked INIT QP cannot be raised to RTR",
	  UNTRACKED, IB_QPT_RC, IB_QP_AV | IB_QP_DEST_QPN, IB_QPS_RTR, true,
	  JOB_A, EW_GATE_REFUSE, EASTWEST_REASON_QP_STATE },
	/*
	 * Modifies that name no state or claim one, which the QP's real state
	 * does not allow (rxe of 6.12 applied them): refused whoever asks.
	 */
	{ "no job, default allow: DEST_QPN alone re-aiming an RTS QP",
	  UNTRACKED, IB_QPT_RC, IB_QP_DEST_QPN, NO_STATE, false, 0,
	  EW_GATE_REFUSE, EASTWEST_REASON_QP_STATE, true },
	{ "no job, default allow: a claim that is not the real state",
	  UNTRACKED, IB_QPT_RC, IB_QP_CUR_STATE | IB_QP_SQ_PSN, IB_QPS_RTS,
	  false, 0, EW_GATE_REFUSE, EASTWEST_REASON_QP_STATE, true },
	{ "job: PKEY_INDEX alone in RESET (a record before INIT)",
	  UNTRACKED, IB_QPT_RC, IB_QP_PKEY_INDEX, NO_STATE, true, JOB_A,
	  EW_GATE_REFUSE, EASTWEST_REASON_QP_STATE, true },
	{ "job: RQ_PSN alone in RTS", TRACKED(IB_QPS_RTS, JOB_A), IB_QPT_RC,
	  IB_QP_RQ_PSN, NO_STATE, true, JOB_A,
	  EW_GATE_REFUSE, EASTWEST_REASON_QP_STATE, true },
	{ "no job, default allow: RTS timeout change the table allows",
	  UNTRACKED, IB_QPT_RC, IB_QP_MIN_RNR_TIMER, NO_STATE, false, 0,
	  EW_GATE_PASS },
	/* What an application does. */
	{ "RC RESET->INIT", UNTRACKED, IB_QPT_RC,
	  IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS, IB_QPS_INIT,
	  true, JOB_A, EW_GATE_JUDGE },
	{ "RC INIT->RTR", TRACKED(IB_QPS_INIT, JOB_A), IB_QPT_RC,
	  IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
	  IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER, IB_QPS_RTR, true,
	  JOB_A, EW_GATE_JUDGE },
	{ "UD INIT->RTR (no attributes) is judged", TRACKED(IB_QPS_INIT, JOB_A),
	  IB_QPT_UD, 0, IB_QPS_RTR, true, JOB_A, EW_GATE_JUDGE },
	{ "RC RTR->RTS", TRACKED(IB_QPS_RTR, JOB_A), IB_QPT_RC,
	  IB_QP_SQ_PSN | IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
	  IB_QP_MAX_QP_RD_ATOMIC, IB_QPS_RTS, true, JOB_A, EW_GATE_PASS },
	{ "RTS with a new alternate path is judged", TRACKED(IB_QPS_RTS, JOB_A),
	  IB_QPT_RC, IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE, NO_STATE, true,
	  JOB_A, EW_GATE_JUDGE },
	{ "SQD->SQD with an AV is judged", TRACKED(IB_QPS_SQD, JOB_A),
	  IB_QPT_RC, IB_QP_AV, IB_QPS_SQD, true, JOB_A, EW_GATE_JUDGE },
	{ "RTS timeout change passes", TRACKED(IB_QPS_RTS, JOB_A), IB_QPT_RC,
	  IB_QP_MIN_RNR_TIMER, NO_STATE, true, JOB_A, EW_GATE_PASS },
	{ "ERR->RESET passes", TRACKED(IB_QPS_ERR, JOB_A), IB_QPT_RC, 0,
	  IB_QPS_RESET, true, JOB_A, EW_GATE_PASS },
	{ "default allow, no job: not policed", UNTRACKED, IB_QPT_RC,
	  IB_QP_PKEY_INDEX | IB_QP_PORT, IB_QPS_INIT, false, 0, EW_GATE_PASS },
	{ "GSI: the kernel's", UNTRACKED, IB_QPT_GSI,
	  IB_QP_CUR_STATE | IB_QP_QKEY, IB_QPS_RTS, true, 0, EW_GATE_PASS },
};

static void ew_gate_case_desc(const struct ew_gate_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ew_gate, ew_gate_cases, ew_gate_case_desc);

static void ew_test_gate_cases(struct kunit *test)
{
	const struct ew_gate_case *c = test->param_value;
	struct ew_qp_modify m = {
		.qp_type = c->type,
		.mask = c->mask | (c->next == NO_STATE ? 0 : IB_QP_STATE),
		.next_state = c->next == NO_STATE ? 0 : c->next,
		.policed = c->policed,
		.job_id = c->job,
		.breaks_table = c->breaks_table,
	};
	u32 reason = 0;

	KUNIT_EXPECT_EQ(test, ew_qp_gate(&c->qp, &m, &reason), c->verdict);
	if (c->verdict == EW_GATE_REFUSE)
		KUNIT_EXPECT_EQ(test, reason, c->reason);
}

/* ---- every combination, against the rules ------------------------------ */

static const u32 ew_gate_types[] = {
	IB_QPT_RC, IB_QPT_UC, IB_QPT_UD, IB_QPT_RAW_PACKET, IB_QPT_XRC_INI,
	IB_QPT_XRC_TGT, IB_QPT_DRIVER,
};

/*
 * The attribute bits a modify may carry, each tried alone and with the
 * others: those that set a destination or a partition, the state claim,
 * and two harmless ones.
 */
static const u32 ew_gate_bits[] = {
	IB_QP_CUR_STATE, IB_QP_AV, IB_QP_ALT_PATH, IB_QP_PKEY_INDEX,
	IB_QP_PORT, IB_QP_QKEY, IB_QP_DEST_QPN, IB_QP_SQ_PSN, IB_QP_TIMEOUT,
};

#define EW_N_STATES	(IB_QPS_ERR + 1)

struct ew_gate_caller {
	bool policed;
	u32 job;
};

static const struct ew_gate_caller ew_gate_callers[] = {
	{ true, JOB_A },	/* the QP's job */
	{ true, JOB_B },	/* another job */
	{ true, 0 },		/* no job, default deny */
	{ false, 0 },		/* no job, default allow */
};

/* Check one combination; returns false (and says why) on a broken rule. */
static bool ew_gate_rules_hold(struct kunit *test, const struct ew_qp_view *qp,
			       const struct ew_qp_modify *m)
{
	u32 reason = 0;
	enum ew_gate_verdict v = ew_qp_gate(qp, m, &reason);
	bool to_state = m->mask & IB_QP_STATE;
	u8 next = to_state ? m->next_state : qp->state;
	bool lowering = to_state &&
			(next == IB_QPS_RESET || next == IB_QPS_ERR);
	bool special = m->qp_type == IB_QPT_SMI || m->qp_type == IB_QPT_GSI;
	const char *broken = NULL;

	if (special)
		broken = v == EW_GATE_PASS ? NULL : "special QP not passed";
	else if (ew_qp_gate_passes_anyone(qp, m) && v != EW_GATE_PASS)
		broken = "the hook's no-lookup shortcut disagrees with the gate";
	else if (qp->revoked && !(to_state && next == IB_QPS_RESET) &&
		 (v != EW_GATE_REFUSE || reason != EASTWEST_REASON_REVOKED))
		broken = "a revoked QP left ERR for something but RESET";
	else if (!qp->revoked && qp->tracked && qp->job_id != m->job_id &&
		 !lowering &&
		 (v != EW_GATE_REFUSE || reason != EASTWEST_REASON_QP_OWNER))
		broken = "another job's QP raised or reconfigured";
	else if (m->policed && (m->mask & IB_QP_CUR_STATE) && v != EW_GATE_REFUSE &&
		 !(qp->revoked && next == IB_QPS_RESET))
		broken = "a policed caller's state claim got through";
	else if (m->policed && to_state && !lowering && !qp->revoked &&
		 (qp->tracked || m->job_id) &&
		 !ew_qp_transition_ok(qp->state, next) && v != EW_GATE_REFUSE)
		broken = "a state path outside the state machine got through";
	else if (m->policed && to_state && !lowering && !qp->tracked &&
		 !m->job_id && v == EW_GATE_PASS)
		broken = "a raise by a caller in no job passed unjudged";
	else if (m->policed && v == EW_GATE_PASS && ew_qp_state_live(next) &&
		 (!ew_qp_state_live(qp->state) ||
		  (m->mask & (EW_QP_POLICED_MASK | IB_QP_CUR_STATE))))
		broken = "a live QP got a new destination unjudged";
	else if (m->policed && v == EW_GATE_PASS &&
		 (m->mask & EW_QP_POLICED_MASK) && !lowering)
		broken = "policed attributes passed unjudged";
	else if (!m->policed && v == EW_GATE_JUDGE)
		broken = "an unpoliced caller judged";
	else if (!m->policed && !qp->tracked && v != EW_GATE_PASS)
		broken = "an unpoliced caller refused on its own QP";

	if (broken)
		kunit_err(test, "%s: type %u state %u%s%s job %u -> caller %s/%u mask 0x%x next %u: verdict %d reason %u\n",
			  broken, m->qp_type, qp->state,
			  qp->tracked ? " tracked" : "",
			  qp->revoked ? " revoked" : "", qp->job_id,
			  m->policed ? "policed" : "unpoliced", m->job_id,
			  m->mask, next, v, reason);
	return !broken;
}

/* One combination: where the index lands in every dimension. */
static void ew_gate_combination(unsigned long i, struct ew_qp_view *qp,
				struct ew_qp_modify *m)
{
	unsigned int bits, next, st, view, b;
	const struct ew_gate_caller *cl;

	/* next: each state, or no IB_QP_STATE */
	next = i % (EW_N_STATES + 1);
	i /= EW_N_STATES + 1;
	bits = i % BIT(ARRAY_SIZE(ew_gate_bits));
	i /= BIT(ARRAY_SIZE(ew_gate_bits));
	cl = &ew_gate_callers[i % ARRAY_SIZE(ew_gate_callers)];
	i /= ARRAY_SIZE(ew_gate_callers);
	/* view: untracked, job A's, job A's revoked */
	view = i % 3;
	i /= 3;
	st = i % EW_N_STATES;
	i /= EW_N_STATES;

	*qp = (struct ew_qp_view) {
		.tracked = view > 0,
		.revoked = view == 2,
		/* an untracked QP is taken as RESET */
		.state = view == 0 ? IB_QPS_RESET : st,
		.job_id = view > 0 ? JOB_A : 0,
	};
	*m = (struct ew_qp_modify) {
		.qp_type = ew_gate_types[i],
		.policed = cl->policed,
		.job_id = cl->job,
	};
	for (b = 0; b < ARRAY_SIZE(ew_gate_bits); b++)
		if (bits & BIT(b))
			m->mask |= ew_gate_bits[b];
	if (next < EW_N_STATES) {
		m->mask |= IB_QP_STATE;
		m->next_state = next;
	}
}

static void ew_test_gate_exhaustive(struct kunit *test)
{
	const unsigned long n = ARRAY_SIZE(ew_gate_types) * EW_N_STATES * 3 *
				ARRAY_SIZE(ew_gate_callers) *
				BIT(ARRAY_SIZE(ew_gate_bits)) * (EW_N_STATES + 1);
	unsigned long i, bad = 0;

	for (i = 0; i < n && bad <= 20; i++) {
		struct ew_qp_modify m;
		struct ew_qp_view qp;

		ew_gate_combination(i, &qp, &m);
		if (!ew_gate_rules_hold(test, &qp, &m))
			bad++;
	}
	kunit_info(test, "%lu combinations, %lu broke a rule\n", i, bad);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_GT(test, i, 100000);
}

/* Every live state is reached only through RTR, and RTR only from INIT. */
static void ew_test_transitions(struct kunit *test)
{
	unsigned int cur, next;

	for (cur = 0; cur < EW_N_STATES; cur++) {
		for (next = 0; next < EW_N_STATES; next++) {
			bool ok = ew_qp_transition_ok(cur, next);

			if (next == IB_QPS_RESET || next == IB_QPS_ERR)
				KUNIT_EXPECT_TRUE(test, ok);
			if (next == IB_QPS_RTR)
				KUNIT_EXPECT_EQ(test, ok, cur == IB_QPS_INIT);
			if (next == IB_QPS_INIT)
				KUNIT_EXPECT_EQ(test, ok, cur == IB_QPS_RESET ||
						cur == IB_QPS_INIT);
			if (next == IB_QPS_SQE)
				KUNIT_EXPECT_FALSE(test, ok);
			if (ok && ew_qp_state_live(next))
				KUNIT_EXPECT_TRUE(test, ew_qp_state_live(cur) ||
						  cur == IB_QPS_INIT);
		}
	}
}

/*
 * Fold @mask of @attr into @rec as the modify hook does; the paths it sets
 * get destination GIDs ending in @av_tag and @alt_tag (standing in for the
 * address vectors the hook resolves).
 */
static void ew_test_fold(struct ew_request *rec, const struct ib_qp_attr *attr,
			 int mask, u8 av_tag, u8 alt_tag)
{
	struct ew_path *av, *alt;

	ew_request_fold(rec, attr, mask, 1, &av, &alt);
	if (av) {
		memset(av, 0, sizeof(*av));
		av->has_grh = true;
		av->dgid[15] = av_tag;
	}
	if (alt) {
		memset(alt, 0, sizeof(*alt));
		alt->has_grh = true;
		alt->dgid[15] = alt_tag;
	}
}

/* The configuration judged at RTR keeps what INIT set. */
static void ew_test_request_fold(struct kunit *test)
{
	struct ew_request rec = { .op = EASTWEST_OP_MODIFY_QP };
	struct ib_qp_attr attr = { .pkey_index = 3, .qkey = 0x1234,
				   .dest_qp_num = 0x11, .alt_port_num = 1,
				   .alt_pkey_index = 4 };
	int init = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY;
	int rtr = IB_QP_STATE | IB_QP_AV | IB_QP_DEST_QPN | IB_QP_RQ_PSN;

	ew_test_fold(&rec, &attr, init, 0, 0);
	ew_test_fold(&rec, &attr, rtr, 1, 0);
	KUNIT_EXPECT_TRUE(test, rec.has_pkey);
	KUNIT_EXPECT_EQ(test, rec.pkey_index, 3);
	KUNIT_EXPECT_EQ(test, rec.port, 1U);
	KUNIT_EXPECT_EQ(test, rec.qkey, 0x1234U);
	KUNIT_EXPECT_FALSE(test, rec.has_alt_pkey);
	KUNIT_EXPECT_EQ(test, rec.n_paths, 1);
	KUNIT_EXPECT_TRUE(test, rec.has_av);
	KUNIT_EXPECT_EQ(test, rec.paths[0].dgid[15], 1);

	ew_test_fold(&rec, &attr, IB_QP_ALT_PATH, 0, 2);
	KUNIT_EXPECT_EQ(test, rec.n_paths, 2);
	KUNIT_EXPECT_TRUE(test, rec.has_alt_pkey);
	KUNIT_EXPECT_EQ(test, rec.alt_pkey_index, 4);
	KUNIT_EXPECT_EQ(test, rec.paths[0].dgid[15], 1);
	KUNIT_EXPECT_EQ(test, rec.paths[1].dgid[15], 2);

	/* A new primary path replaces the old one, the alternate stays. */
	ew_test_fold(&rec, &attr, IB_QP_AV, 3, 0);
	KUNIT_EXPECT_EQ(test, rec.n_paths, 2);
	KUNIT_EXPECT_EQ(test, rec.paths[0].dgid[15], 3);
	KUNIT_EXPECT_EQ(test, rec.paths[1].dgid[15], 2);

	/*
	 * The far QP named at RTR stays with the record: a later modify that
	 * names none is judged against it (the same-host ownership rule).
	 */
	KUNIT_EXPECT_TRUE(test, rec.has_dest_qpn);
	KUNIT_EXPECT_EQ(test, rec.dest_qpn, 0x11U);
	ew_test_fold(&rec, &attr, IB_QP_STATE | IB_QP_SQ_PSN, 0, 0);
	KUNIT_EXPECT_TRUE(test, rec.has_dest_qpn);
	KUNIT_EXPECT_EQ(test, rec.dest_qpn, 0x11U);
	KUNIT_EXPECT_EQ(test, rec.n_paths, 2);
	attr.dest_qp_num = 0x12;
	ew_test_fold(&rec, &attr, rtr, 1, 0);
	KUNIT_EXPECT_EQ(test, rec.dest_qpn, 0x12U);
}

/* An alternate path set first moves up when a primary is added. */
static void ew_test_request_fold_alt_first(struct kunit *test)
{
	struct ew_request rec = { .op = EASTWEST_OP_MODIFY_QP };
	struct ib_qp_attr attr = { .alt_port_num = 1 };

	ew_test_fold(&rec, &attr, IB_QP_ALT_PATH, 0, 2);
	KUNIT_EXPECT_EQ(test, rec.n_paths, 1);
	KUNIT_EXPECT_FALSE(test, rec.has_av);
	KUNIT_EXPECT_EQ(test, rec.paths[0].dgid[15], 2);
	ew_test_fold(&rec, &attr, IB_QP_AV, 1, 0);
	KUNIT_EXPECT_EQ(test, rec.n_paths, 2);
	KUNIT_EXPECT_EQ(test, rec.paths[0].dgid[15], 1);
	KUNIT_EXPECT_EQ(test, rec.paths[1].dgid[15], 2);
	/* Both at once: each in its place. */
	ew_test_fold(&rec, &attr, IB_QP_AV | IB_QP_ALT_PATH, 5, 6);
	KUNIT_EXPECT_EQ(test, rec.n_paths, 2);
	KUNIT_EXPECT_EQ(test, rec.paths[0].dgid[15], 5);
	KUNIT_EXPECT_EQ(test, rec.paths[1].dgid[15], 6);
}

static struct kunit_case ew_qpgate_cases[] = {
	KUNIT_CASE_PARAM(ew_test_gate_cases, ew_gate_gen_params),
	KUNIT_CASE(ew_test_gate_exhaustive),
	KUNIT_CASE(ew_test_transitions),
	KUNIT_CASE(ew_test_request_fold),
	KUNIT_CASE(ew_test_request_fold_alt_first),
	{}
};

static struct kunit_suite ew_qpgate_suite = {
	.name = "eastwest-policy-qp-gate",
	.test_cases = ew_qpgate_cases,
};

kunit_test_suites(&ew_qpgate_suite);
