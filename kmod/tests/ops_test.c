// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: eastwest-ops -- what a configuration change does to the QPs that
 * live under it (ops.c), with the QP records replaced by recorders: a
 * deleted job's QPs are revoked by its id once it is gone from the tables;
 * a changed job, or one that lost peers, is judged again by the rules just
 * published, and not after a refused change; added peers judge nothing;
 * revoking nodes judges every QP, admitting them again does not; enforce
 * mode after audit mode judges every QP; the settings that make processes
 * in no job refused (default deny under enforce) revoke their QPs, no
 * other global setting touches a QP; a new job has its processes' QPs
 * that no rule of it judged revoked.
 */
#include "ops.h"
#include "qptrack.h"
#include "test_util.h"

static struct {
	unsigned int revoke_job, revalidate_job, revalidate_all;
	unsigned int revoke_unrecorded;
	u32 revoked_id;
	bool revoked_id_named_a_job;
	u32 mode_judged;
} ew_ops_seen;

/* The QP records' side (qptrack.o is not in the KUnit build), recorded. */
unsigned int ew_qp_revoke_job(u32 job_id)
{
	ew_ops_seen.revoke_job++;
	ew_ops_seen.revoked_id = job_id;
	ew_ops_seen.revoked_id_named_a_job = ew_job_find(job_id);
	return 0;
}

unsigned int ew_qp_revalidate_job(struct ew_job *job)
{
	ew_ops_seen.revalidate_job++;
	rcu_read_lock();
	ew_ops_seen.mode_judged = ew_job_policy(job)->mode;
	rcu_read_unlock();
	return 0;
}

#define EW_OPS_TEST_REVOKED 3

unsigned int ew_qp_revalidate_all(void)
{
	ew_ops_seen.revalidate_all++;
	return EW_OPS_TEST_REVOKED;
}

#define EW_OPS_TEST_UNRECORDED 2

unsigned int ew_qp_revoke_unrecorded(void)
{
	ew_ops_seen.revoke_unrecorded++;
	return EW_OPS_TEST_UNRECORDED;
}

static const u8 ew_ops_peer[16] = V4(192, 0, 2, 7);

static u32 ew_ops_job_add(struct kunit *test, const char *name)
{
	struct ew_job_spec spec;
	u32 id = 0;
	int ret;

	ew_job_spec_init(&spec);
	spec.has_name = true;
	strscpy(spec.name, name, sizeof(spec.name));
	spec.has_mode = true;
	spec.mode = EASTWEST_MODE_ENFORCE;
	mutex_lock(&ew_config_lock);
	ret = ew_op_job_add(&spec, NULL, &id);
	mutex_unlock(&ew_config_lock);
	ew_job_spec_release(&spec);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return id;
}

static void ew_ops_job_del(u32 id)
{
	mutex_lock(&ew_config_lock);
	if (ew_job_find(id))
		ew_op_job_delete(ew_job_find(id));
	mutex_unlock(&ew_config_lock);
}

static int ew_ops_test_init(struct kunit *test)
{
	memset(&ew_ops_seen, 0, sizeof(ew_ops_seen));
	return 0;
}

static void ew_test_ops_job_delete(struct kunit *test)
{
	u32 id = ew_ops_job_add(test, "ops-del");

	KUNIT_EXPECT_EQ(test, ew_ops_seen.revoke_job, 0u);
	mutex_lock(&ew_config_lock);
	ew_op_job_delete(ew_job_find(id));
	KUNIT_EXPECT_NULL(test, ew_job_find(id));
	mutex_unlock(&ew_config_lock);
	/* Revoked once, by its id, when no lookup finds the job any more. */
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revoke_job, 1u);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revoked_id, id);
	KUNIT_EXPECT_FALSE(test, ew_ops_seen.revoked_id_named_a_job);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revalidate_job, 0u);
}

static void ew_test_ops_job_change(struct kunit *test)
{
	u32 id = ew_ops_job_add(test, "ops-change");
	u32 other = ew_ops_job_add(test, "ops-other");
	struct ew_job_spec spec;
	int ret;

	/* Each new job: the connected QPs without records are swept. */
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revoke_unrecorded, 2u);

	/* Judged once, by the rules just published. */
	ew_job_spec_init(&spec);
	spec.has_mode = true;
	spec.mode = EASTWEST_MODE_AUDIT;
	mutex_lock(&ew_config_lock);
	ret = ew_op_job_change(ew_job_find(id), &spec, NULL);
	mutex_unlock(&ew_config_lock);
	ew_job_spec_release(&spec);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revalidate_job, 1u);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.mode_judged, (u32)EASTWEST_MODE_AUDIT);
	/* Neither its cgroups changed nor did it become enforced: no sweep. */
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revoke_unrecorded, 2u);

	/* Refused (the other job's name): nothing changed, nothing judged. */
	ew_job_spec_init(&spec);
	spec.has_name = true;
	strscpy(spec.name, "ops-other", sizeof(spec.name));
	spec.has_mode = true;
	spec.mode = EASTWEST_MODE_ENFORCE;
	mutex_lock(&ew_config_lock);
	ret = ew_op_job_change(ew_job_find(id), &spec, NULL);
	rcu_read_lock();
	KUNIT_EXPECT_EQ(test, ew_job_policy(ew_job_find(id))->mode,
			(u32)EASTWEST_MODE_AUDIT);
	rcu_read_unlock();
	mutex_unlock(&ew_config_lock);
	ew_job_spec_release(&spec);
	KUNIT_EXPECT_EQ(test, ret, -EEXIST);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revalidate_job, 1u);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revoke_unrecorded, 2u);

	/* Set to enforce: judged again, and swept. */
	ew_job_spec_init(&spec);
	spec.has_mode = true;
	spec.mode = EASTWEST_MODE_ENFORCE;
	mutex_lock(&ew_config_lock);
	ret = ew_op_job_change(ew_job_find(id), &spec, NULL);
	mutex_unlock(&ew_config_lock);
	ew_job_spec_release(&spec);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revalidate_job, 2u);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revoke_unrecorded, 3u);

	ew_ops_job_del(other);
	ew_ops_job_del(id);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revoke_job, 2u);
}

static void ew_test_ops_peers(struct kunit *test)
{
	u32 id = ew_ops_job_add(test, "ops-peers");
	struct ew_peer_key key;
	struct ew_peer_batch batch = { .keys = &key, .n = 1 };
	unsigned int failed_at = 0;
	struct ew_job *job;
	int ret;

	ew_peer_key_gid(&key, id, ew_ops_peer, 128);
	mutex_lock(&ew_config_lock);
	job = ew_job_find(id);
	/* More peers only allow more: nothing to judge. */
	ret = ew_op_peers_add(job, &batch, &failed_at);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, job->n_peers, 1u);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revalidate_job, 0u);
	/* A peer gone: the job's QPs are judged again. */
	ret = ew_op_peers_del(job, &batch, &failed_at);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, job->n_peers, 0u);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revalidate_job, 1u);
	/* Not a peer (any more): refused, nothing judged. */
	ret = ew_op_peers_del(job, &batch, &failed_at);
	KUNIT_EXPECT_NE(test, ret, 0);
	KUNIT_EXPECT_EQ(test, failed_at, 0u);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revalidate_job, 1u);
	mutex_unlock(&ew_config_lock);
	ew_ops_job_del(id);
}

static void ew_test_ops_nodes(struct kunit *test)
{
	unsigned int revoked = 99;
	int ret;

	mutex_lock(&ew_config_lock);
	ret = ew_op_nodes_change(ew_ops_peer, 1, true, NULL, &revoked);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, revoked, (unsigned int)EW_OPS_TEST_REVOKED);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revalidate_all, 1u);
	/* Admitted again: allows more, judges nothing. */
	ret = ew_op_nodes_change(ew_ops_peer, 1, false, NULL, &revoked);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, revoked, 0u);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revalidate_all, 1u);
	mutex_unlock(&ew_config_lock);
}

static void ew_test_ops_config(struct kunit *test)
{
	struct ew_global saved;
	unsigned int revoked;
	bool changed;

	mutex_lock(&ew_config_lock);
	ew_global_snapshot(&saved);
	ew_op_config_set(EASTWEST_MODE_ENFORCE, EASTWEST_DEFAULT_ACTION_DENY,
			 &changed);
	ew_ops_seen.revalidate_all = 0;
	ew_ops_seen.revoke_unrecorded = 0;
	/* Audit mode, default allow: they allow more, nothing judged. */
	revoked = ew_op_config_set(EASTWEST_MODE_AUDIT,
				   EASTWEST_DEFAULT_ACTION_ALLOW, &changed);
	KUNIT_EXPECT_TRUE(test, changed);
	KUNIT_EXPECT_EQ(test, revoked, 0u);
	KUNIT_EXPECT_EQ(test, ew_global.mode, (u32)EASTWEST_MODE_AUDIT);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revalidate_all, 0u);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revoke_unrecorded, 0u);
	/* The same again: no change. */
	revoked = ew_op_config_set(EASTWEST_MODE_AUDIT,
				   EASTWEST_DEFAULT_ACTION_ALLOW, &changed);
	KUNIT_EXPECT_FALSE(test, changed);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revalidate_all, 0u);
	/*
	 * Enforce after audit: every live QP judged again, once published,
	 * and the connected QPs without records swept.
	 */
	revoked = ew_op_config_set(EASTWEST_MODE_ENFORCE,
				   EASTWEST_DEFAULT_ACTION_ALLOW, &changed);
	KUNIT_EXPECT_TRUE(test, changed);
	KUNIT_EXPECT_EQ(test, revoked, (unsigned int)(EW_OPS_TEST_REVOKED +
						      EW_OPS_TEST_UNRECORDED));
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revalidate_all, 1u);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revoke_unrecorded, 1u);
	/* Default deny under enforce: processes in no job are refused now. */
	revoked = ew_op_config_set(EASTWEST_MODE_ENFORCE,
				   EASTWEST_DEFAULT_ACTION_DENY, &changed);
	KUNIT_EXPECT_TRUE(test, changed);
	KUNIT_EXPECT_EQ(test, revoked, (unsigned int)EW_OPS_TEST_UNRECORDED);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revalidate_all, 1u);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revoke_unrecorded, 2u);
	/* Audit mode keeps default deny: nothing touched. */
	revoked = ew_op_config_set(EASTWEST_MODE_AUDIT,
				   EASTWEST_DEFAULT_ACTION_DENY, &changed);
	KUNIT_EXPECT_EQ(test, revoked, 0u);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revoke_unrecorded, 2u);
	/* Enforce again under default deny: both. */
	revoked = ew_op_config_set(EASTWEST_MODE_ENFORCE,
				   EASTWEST_DEFAULT_ACTION_DENY, &changed);
	KUNIT_EXPECT_EQ(test, revoked, (unsigned int)(EW_OPS_TEST_REVOKED +
						      EW_OPS_TEST_UNRECORDED));
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revalidate_all, 2u);
	KUNIT_EXPECT_EQ(test, ew_ops_seen.revoke_unrecorded, 3u);
	ew_op_config_set(saved.mode, saved.default_action, &changed);
	mutex_unlock(&ew_config_lock);
}

static struct kunit_case ew_ops_test_cases[] = {
	KUNIT_CASE(ew_test_ops_job_delete),
	KUNIT_CASE(ew_test_ops_job_change),
	KUNIT_CASE(ew_test_ops_peers),
	KUNIT_CASE(ew_test_ops_nodes),
	KUNIT_CASE(ew_test_ops_config),
	{}
};

static struct kunit_suite ew_ops_suite = {
	.name = "eastwest-ops",
	.init = ew_ops_test_init,
	.suite_init = ew_suite_init,
	.suite_exit = ew_suite_exit,
	.test_cases = ew_ops_test_cases,
};

kunit_test_suites(&ew_ops_suite);
