// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the QP types a job may create (ew_qp_type_check()): every
 * type user space can ask for on each provider whose UD sends are at stake,
 * under each combination of the job's ud and dc settings, as explicit
 * rows; then the create-qp hook's no-lookup shortcut against the check for
 * every type and driver id, and the decision a job's setting leads to
 * (enforce, audit, no job).
 */

#include <kunit/test.h>
#include <rdma/ib_verbs.h>

#include "config.h"
#include "job.h"
#include "policy.h"
#include "test_util.h"

#define R	EASTWEST_REASON_QP_TYPE

/* The four settings, in the order of ew_qptype_case.reason[]. */
static const struct {
	bool ud, dc;
	const char *name;
} ew_qptype_settings[] = {
	{ false, false, "ud off dc off" },
	{ true, false, "ud on dc off" },
	{ false, true, "ud off dc on" },
	{ true, true, "ud on dc on" },
};

struct ew_qptype_case {
	const char *desc;
	u32 type;		/* enum ib_qp_type */
	u32 driver;		/* enum rdma_driver_id */
	u32 reason[4];		/* per ew_qptype_settings[] */
};

static const struct ew_qptype_case ew_qptype_cases[] = {
	/* UD: the destination is in the work request, or the WQE. */
	{ "UD on rxe (ah_num 0: AV from user memory)", IB_QPT_UD,
	  RDMA_DRIVER_RXE, { R, 0, R, 0 } },
	{ "UD on mlx4 (AV in the WQE)", IB_QPT_UD, RDMA_DRIVER_MLX4,
	  { R, 0, R, 0 } },
	{ "UD on mlx5 (AV in the WQE)", IB_QPT_UD, RDMA_DRIVER_MLX5,
	  { R, 0, R, 0 } },
	{ "UD on hns (AV in the WQE)", IB_QPT_UD, RDMA_DRIVER_HNS,
	  { R, 0, R, 0 } },
	{ "UD on efa (kernel AH numbers)", IB_QPT_UD, RDMA_DRIVER_EFA,
	  { 0, 0, 0, 0 } },
	/* Driver QPs: mlx5 DC, EFA SRD. */
	{ "DRIVER on rxe", IB_QPT_DRIVER, RDMA_DRIVER_RXE, { R, R, 0, 0 } },
	{ "DRIVER on mlx4", IB_QPT_DRIVER, RDMA_DRIVER_MLX4, { R, R, 0, 0 } },
	{ "DRIVER on mlx5 (DC)", IB_QPT_DRIVER, RDMA_DRIVER_MLX5,
	  { R, R, 0, 0 } },
	{ "DRIVER on hns", IB_QPT_DRIVER, RDMA_DRIVER_HNS, { R, R, 0, 0 } },
	{ "DRIVER on efa (SRD, kernel AH numbers)", IB_QPT_DRIVER,
	  RDMA_DRIVER_EFA, { 0, 0, 0, 0 } },
	/* Raw packet QPs forge frames: never, whatever the settings. */
	{ "RAW_PACKET on rxe", IB_QPT_RAW_PACKET, RDMA_DRIVER_RXE,
	  { R, R, R, R } },
	{ "RAW_PACKET on mlx4", IB_QPT_RAW_PACKET, RDMA_DRIVER_MLX4,
	  { R, R, R, R } },
	{ "RAW_PACKET on mlx5", IB_QPT_RAW_PACKET, RDMA_DRIVER_MLX5,
	  { R, R, R, R } },
	{ "RAW_PACKET on hns", IB_QPT_RAW_PACKET, RDMA_DRIVER_HNS,
	  { R, R, R, R } },
	{ "RAW_PACKET on efa", IB_QPT_RAW_PACKET, RDMA_DRIVER_EFA,
	  { R, R, R, R } },
	/* Connected types: judged at their modifies, allowed at creation. */
	{ "RC on rxe", IB_QPT_RC, RDMA_DRIVER_RXE, { 0, 0, 0, 0 } },
	{ "RC on mlx4", IB_QPT_RC, RDMA_DRIVER_MLX4, { 0, 0, 0, 0 } },
	{ "RC on mlx5", IB_QPT_RC, RDMA_DRIVER_MLX5, { 0, 0, 0, 0 } },
	{ "RC on hns", IB_QPT_RC, RDMA_DRIVER_HNS, { 0, 0, 0, 0 } },
	{ "RC on efa", IB_QPT_RC, RDMA_DRIVER_EFA, { 0, 0, 0, 0 } },
	{ "UC on rxe", IB_QPT_UC, RDMA_DRIVER_RXE, { 0, 0, 0, 0 } },
	{ "UC on mlx4", IB_QPT_UC, RDMA_DRIVER_MLX4, { 0, 0, 0, 0 } },
	{ "UC on mlx5", IB_QPT_UC, RDMA_DRIVER_MLX5, { 0, 0, 0, 0 } },
	{ "UC on hns", IB_QPT_UC, RDMA_DRIVER_HNS, { 0, 0, 0, 0 } },
	{ "UC on efa", IB_QPT_UC, RDMA_DRIVER_EFA, { 0, 0, 0, 0 } },
	{ "XRC_INI on rxe", IB_QPT_XRC_INI, RDMA_DRIVER_RXE, { 0, 0, 0, 0 } },
	{ "XRC_INI on mlx4", IB_QPT_XRC_INI, RDMA_DRIVER_MLX4, { 0, 0, 0, 0 } },
	{ "XRC_INI on mlx5", IB_QPT_XRC_INI, RDMA_DRIVER_MLX5, { 0, 0, 0, 0 } },
	{ "XRC_INI on hns", IB_QPT_XRC_INI, RDMA_DRIVER_HNS, { 0, 0, 0, 0 } },
	{ "XRC_INI on efa", IB_QPT_XRC_INI, RDMA_DRIVER_EFA, { 0, 0, 0, 0 } },
	{ "XRC_TGT on rxe", IB_QPT_XRC_TGT, RDMA_DRIVER_RXE, { 0, 0, 0, 0 } },
	{ "XRC_TGT on mlx4", IB_QPT_XRC_TGT, RDMA_DRIVER_MLX4, { 0, 0, 0, 0 } },
	{ "XRC_TGT on mlx5", IB_QPT_XRC_TGT, RDMA_DRIVER_MLX5, { 0, 0, 0, 0 } },
	{ "XRC_TGT on hns", IB_QPT_XRC_TGT, RDMA_DRIVER_HNS, { 0, 0, 0, 0 } },
	{ "XRC_TGT on efa", IB_QPT_XRC_TGT, RDMA_DRIVER_EFA, { 0, 0, 0, 0 } },
	/* No user QP of these types exists: refused if one ever appears. */
	{ "RAW_ETHERTYPE on mlx5", IB_QPT_RAW_ETHERTYPE, RDMA_DRIVER_MLX5,
	  { R, R, R, R } },
	{ "an unknown type on efa", IB_QPT_RESERVED1, RDMA_DRIVER_EFA,
	  { R, R, R, R } },
	{ "UD on an unknown driver", IB_QPT_UD, RDMA_DRIVER_UNKNOWN,
	  { R, 0, R, 0 } },
};

static void ew_qptype_case_desc(const struct ew_qptype_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ew_qptype, ew_qptype_cases, ew_qptype_case_desc);

static void ew_test_qp_type_cases(struct kunit *test)
{
	const struct ew_qptype_case *c = test->param_value;
	struct ew_job_policy pol = {};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ew_qptype_settings); i++) {
		pol.ud = ew_qptype_settings[i].ud;
		pol.dc = ew_qptype_settings[i].dc;
		KUNIT_EXPECT_EQ_MSG(test,
				    ew_qp_type_check(&pol, c->type, c->driver),
				    c->reason[i], "%s", ew_qptype_settings[i].name);
	}
	/* The hook skips its caller lookup only where nothing is refused. */
	KUNIT_EXPECT_EQ(test, ew_qp_type_policed(c->type, c->driver),
			c->reason[0] != 0);
}

/*
 * Every type and driver id: where the hook skips the lookup, no setting
 * refuses; where it looks, the job without settings is refused.
 */
static void ew_test_qp_type_shortcut(struct kunit *test)
{
	static const u32 types[] = {
		IB_QPT_SMI, IB_QPT_GSI, IB_QPT_RC, IB_QPT_UC, IB_QPT_UD,
		IB_QPT_RAW_IPV6, IB_QPT_RAW_ETHERTYPE, IB_QPT_RAW_PACKET,
		IB_QPT_XRC_INI, IB_QPT_XRC_TGT, IB_QPT_MAX, IB_QPT_DRIVER,
		IB_QPT_RESERVED1, IB_QPT_RESERVED10,
	};
	struct ew_job_policy none = {}, all = { .ud = true, .dc = true };
	unsigned int t, d, n = 0;

	for (t = 0; t < ARRAY_SIZE(types); t++) {
		for (d = RDMA_DRIVER_UNKNOWN; d <= RDMA_DRIVER_ERDMA + 1; d++) {
			bool policed = ew_qp_type_policed(types[t], d);

			if (!policed)
				KUNIT_EXPECT_EQ_MSG(test,
						    ew_qp_type_check(&all, types[t], d) |
						    ew_qp_type_check(&none, types[t], d),
						    0u, "type %u driver %u", types[t], d);
			else
				KUNIT_EXPECT_EQ_MSG(test,
						    ew_qp_type_check(&none, types[t], d),
						    (u32)R, "type %u driver %u", types[t], d);
			n++;
		}
	}
	KUNIT_EXPECT_GT(test, n, 200u);
}

/* A job made through the job store, with or without the UD setting. */
static struct ew_job *ew_qptype_job(struct kunit *test, u32 id, u32 mode,
				    bool ud)
{
	struct ew_job_spec spec;
	struct ew_job *job;
	u32 got;
	int ret;

	ew_job_spec_init(&spec);
	spec.id = id;
	spec.has_name = true;
	snprintf(spec.name, sizeof(spec.name), "qptype-%u", id);
	spec.has_mode = true;
	spec.mode = mode;
	spec.has_ud = true;
	spec.ud = ud;
	mutex_lock(&ew_config_lock);
	ret = ew_job_create(&spec, NULL, &got);
	job = ret ? NULL : ew_job_find(got);
	mutex_unlock(&ew_config_lock);
	ew_job_spec_release(&spec);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_NOT_NULL(test, job);
	return job;
}

static struct ew_verdict ew_qptype_decide(const struct ew_global *g,
					  struct ew_job *job, u32 type)
{
	struct ew_request req = {
		.op = EASTWEST_OP_CREATE_QP,
		.has_qp_type = true,
		.qp_type = type,
		.driver_id = RDMA_DRIVER_RXE,
	};
	struct ew_verdict v;

	rcu_read_lock();
	v = ew_decide(g, job, job ? ew_job_policy(job) : NULL, &req);
	rcu_read_unlock();
	return v;
}

/*
 * The setting through the job store (job-new, job-set) to the verdict:
 * enforce refuses, audit reports the same reason and allows, a job-set
 * changes the next decision, and a process in no job gets the default.
 */
static void ew_test_qp_type_decide(struct kunit *test)
{
	struct ew_global enforce = { EASTWEST_MODE_ENFORCE,
				     EASTWEST_DEFAULT_ACTION_DENY };
	struct ew_global allow = { EASTWEST_MODE_ENFORCE,
				   EASTWEST_DEFAULT_ACTION_ALLOW };
	struct ew_global audit = { EASTWEST_MODE_AUDIT,
				   EASTWEST_DEFAULT_ACTION_DENY };
	struct ew_job *off = ew_qptype_job(test, 41, EASTWEST_MODE_ENFORCE, false);
	struct ew_job *on = ew_qptype_job(test, 42, EASTWEST_MODE_ENFORCE, true);
	struct ew_job *aud = ew_qptype_job(test, 43, EASTWEST_MODE_AUDIT, false);
	struct ew_job_spec spec;
	struct ew_verdict v;
	int ret;

	v = ew_qptype_decide(&enforce, off, IB_QPT_UD);
	KUNIT_EXPECT_EQ(test, v.reason, (u32)R);
	KUNIT_EXPECT_TRUE(test, v.deny);
	v = ew_qptype_decide(&enforce, off, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, v.reason, 0u);
	v = ew_qptype_decide(&enforce, on, IB_QPT_UD);
	KUNIT_EXPECT_EQ(test, v.reason, 0u);
	KUNIT_EXPECT_FALSE(test, v.deny);
	v = ew_qptype_decide(&enforce, on, IB_QPT_DRIVER);
	KUNIT_EXPECT_EQ(test, v.reason, (u32)R);
	v = ew_qptype_decide(&enforce, on, IB_QPT_RAW_PACKET);
	KUNIT_EXPECT_EQ(test, v.reason, (u32)R);

	/* Audit, the job's or the node's: reported, allowed. */
	v = ew_qptype_decide(&enforce, aud, IB_QPT_UD);
	KUNIT_EXPECT_EQ(test, v.reason, (u32)R);
	KUNIT_EXPECT_FALSE(test, v.deny);
	v = ew_qptype_decide(&audit, off, IB_QPT_UD);
	KUNIT_EXPECT_EQ(test, v.reason, (u32)R);
	KUNIT_EXPECT_FALSE(test, v.deny);

	/* job-set ud 0 applies to the next creation; other settings stay. */
	ew_job_spec_init(&spec);
	spec.has_ud = true;
	spec.ud = false;
	spec.has_dc = true;
	spec.dc = true;
	mutex_lock(&ew_config_lock);
	ret = ew_job_change(on, &spec, NULL);
	mutex_unlock(&ew_config_lock);
	ew_job_spec_release(&spec);
	KUNIT_ASSERT_EQ(test, ret, 0);
	v = ew_qptype_decide(&enforce, on, IB_QPT_UD);
	KUNIT_EXPECT_EQ(test, v.reason, (u32)R);
	KUNIT_EXPECT_TRUE(test, v.deny);
	v = ew_qptype_decide(&enforce, on, IB_QPT_DRIVER);
	KUNIT_EXPECT_EQ(test, v.reason, 0u);
	rcu_read_lock();
	KUNIT_EXPECT_EQ(test, ew_job_policy(on)->mode, (u32)EASTWEST_MODE_ENFORCE);
	rcu_read_unlock();

	/* No job: the default action, as for every policed operation. */
	v = ew_qptype_decide(&enforce, NULL, IB_QPT_UD);
	KUNIT_EXPECT_EQ(test, v.reason, (u32)EASTWEST_REASON_NO_JOB);
	KUNIT_EXPECT_TRUE(test, v.deny);
	v = ew_qptype_decide(&allow, NULL, IB_QPT_UD);
	KUNIT_EXPECT_EQ(test, v.reason, 0u);
	KUNIT_EXPECT_FALSE(test, v.deny);
}

static struct kunit_case ew_qptype_test_cases[] = {
	KUNIT_CASE_PARAM(ew_test_qp_type_cases, ew_qptype_gen_params),
	KUNIT_CASE(ew_test_qp_type_shortcut),
	KUNIT_CASE(ew_test_qp_type_decide),
	{}
};

static struct kunit_suite ew_qptype_suite = {
	.name = "eastwest-policy-qp-type",
	.suite_init = ew_suite_init,
	.suite_exit = ew_suite_exit,
	.test_cases = ew_qptype_test_cases,
};

kunit_test_suites(&ew_qptype_suite);
