// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: metrics -- the Prometheus text exposition of a node (exact
 * output, label values escaped), the "down" exposition, rates between two
 * samples (with a counter reset) and the ranking of jobs by denials.
 */
#include "helpers.h"

#include "model/metrics.h"
#include "model/parse.h"

/* What @fn writes for @st (malloc'd). */
static char *capture(void (*fn)(const struct ew_state *st, FILE *f),
		     const struct ew_state *st)
{
	struct test_out o;

	fn(st, test_out_open(&o));
	return test_out_close(&o);
}

static void counters(struct ew_counter_set *c, uint64_t base)
{
	size_t i;

	for (i = 0; i < EW_N_COUNTERS; i++)
		c->v[i] = base + i;
}

static struct ew_job_desc *add_job(struct ew_state *st, uint32_t id, const char *name,
			      uint64_t denied)
{
	struct ew_job_desc *job = ew_state_add_job(st);

	job->id = id;
	snprintf(job->name, sizeof(job->name), "%s", name);
	job->present = EW_JOB_ID | EW_JOB_NAME | EW_JOB_COUNTERS;
	job->counters.v[EASTWEST_A_COUNTERS_DENIED] = denied;
	return job;
}

static void test_exposition(void **state)
{
	struct ew_state st = { 0 };
	struct ew_job_desc *job;
	char *out;

	(void)state;
	st.config.present = EW_CFG_MODE | EW_CFG_DEFAULT | EW_CFG_VERSION |
			    EW_CFG_JOB_COUNT | EW_CFG_PEER_COUNT | EW_CFG_ADMISSION |
			    EW_CFG_ADMISSION_REQUIRED | EW_CFG_ADMISSION_TTL;
	st.config.mode = EASTWEST_MODE_AUDIT;
	st.config.default_action = EASTWEST_DEFAULT_ACTION_DENY;
	/* Not what the module says today, but a label value must survive it. */
	snprintf(st.config.version, sizeof(st.config.version), "0.1\"x\\y\nz");
	st.config.job_count = 1;
	st.config.peer_count = 3;
	st.config.admission = EASTWEST_ADMISSION_ADMITTED;
	st.config.admission_required = 1;
	st.config.admission_ttl = 300;
	counters(&st.config.counters, 0);
	job = add_job(&st, 7, "train.42", 0);
	job->present |= EW_JOB_QP_COUNT | EW_JOB_PEER_COUNT;
	job->mode = EASTWEST_MODE_ENFORCE;
	job->encrypt = EASTWEST_ENCRYPT_MACSEC;
	job->qp_count = 4;
	job->peer_count = 3;
	counters(&job->counters, 100);

	out = capture(ew_prom_write, &st);
	assert_string_equal(out,
		"# HELP eastwest_up 1 if eastwestctl read the eastwest module, 0 if it could not (not loaded, no permission).\n"
		"# TYPE eastwest_up gauge\n"
		"eastwest_up 1\n"
		"# HELP eastwest_info The eastwest module's version (the value is 1).\n"
		"# TYPE eastwest_info gauge\n"
		"eastwest_info{version=\"0.1\\\"x\\\\y\\nz\"} 1\n"
		"# HELP eastwest_mode Global mode: enforce refuses violations, audit only reports them.\n"
		"# TYPE eastwest_mode gauge\n"
		"eastwest_mode{mode=\"enforce\"} 0\n"
		"eastwest_mode{mode=\"audit\"} 1\n"
		"# HELP eastwest_default_action Verdict for processes of no job.\n"
		"# TYPE eastwest_default_action gauge\n"
		"eastwest_default_action{action=\"deny\"} 1\n"
		"eastwest_default_action{action=\"allow\"} 0\n"
		"# HELP eastwest_admission This node's admission to the fabric (attestation).\n"
		"# TYPE eastwest_admission gauge\n"
		"eastwest_admission{state=\"unattested\"} 0\n"
		"eastwest_admission{state=\"admitted\"} 1\n"
		"eastwest_admission{state=\"revoked\"} 0\n"
		"# HELP eastwest_revoked_nodes Other nodes revoked on this node.\n"
		"# TYPE eastwest_revoked_nodes gauge\n"
		"eastwest_revoked_nodes 0\n"
		"# HELP eastwest_admission_required 1 if jobs may use the fabric only while the node is admitted.\n"
		"# TYPE eastwest_admission_required gauge\n"
		"eastwest_admission_required 1\n"
		"# HELP eastwest_admission_lease_seconds Seconds left of the admission lease (0: no lease).\n"
		"# TYPE eastwest_admission_lease_seconds gauge\n"
		"eastwest_admission_lease_seconds 300\n"
		"# HELP eastwest_jobs Jobs defined on the node.\n"
		"# TYPE eastwest_jobs gauge\n"
		"eastwest_jobs 1\n"
		"# HELP eastwest_peers Peers of all jobs.\n"
		"# TYPE eastwest_peers gauge\n"
		"eastwest_peers 3\n"
		"# HELP eastwest_decisions_total Policed RDMA control-path operations, by verdict (audited: allowed by audit mode).\n"
		"# TYPE eastwest_decisions_total counter\n"
		"eastwest_decisions_total{verdict=\"allowed\"} 2\n"
		"eastwest_decisions_total{verdict=\"audited\"} 3\n"
		"eastwest_decisions_total{verdict=\"denied\"} 4\n"
		"# HELP eastwest_denied_total Operations refused, by reason.\n"
		"# TYPE eastwest_denied_total counter\n"
		"eastwest_denied_total{reason=\"no-job\"} 5\n"
		"eastwest_denied_total{reason=\"peer\"} 6\n"
		"eastwest_denied_total{reason=\"src-netdev\"} 7\n"
		"eastwest_denied_total{reason=\"pkey\"} 8\n"
		"eastwest_denied_total{reason=\"qkey\"} 9\n"
		"eastwest_denied_total{reason=\"qp-type\"} 10\n"
		"eastwest_denied_total{reason=\"unprotected-path\"} 11\n"
		"eastwest_denied_total{reason=\"not-admitted\"} 12\n"
		"eastwest_denied_total{reason=\"internal\"} 13\n"
		"eastwest_denied_total{reason=\"devx\"} 15\n"
		"eastwest_denied_total{reason=\"qp-state\"} 16\n"
		"eastwest_denied_total{reason=\"revoked\"} 17\n"
		"eastwest_denied_total{reason=\"qp-owner\"} 18\n"
		"eastwest_denied_total{reason=\"foreign-qp\"} 19\n"
		"eastwest_denied_total{reason=\"iwarp\"} 20\n"
		"eastwest_denied_total{reason=\"kernel-ulp\"} 21\n"
		"# HELP eastwest_psn_zero_total QP modifies that set a PSN of 0.\n"
		"# TYPE eastwest_psn_zero_total counter\n"
		"eastwest_psn_zero_total 14\n"
		"# HELP eastwest_events_dropped_total Denial reports neither logged nor sent to listeners (the report ring full, or their source over its share).\n"
		"# TYPE eastwest_events_dropped_total counter\n"
		"eastwest_events_dropped_total 22\n"
		"# HELP eastwest_job_info A job and its settings (the value is 1).\n"
		"# TYPE eastwest_job_info gauge\n"
		"eastwest_job_info{job_name=\"train.42\",job_id=\"7\",mode=\"enforce\",encrypt=\"macsec\"} 1\n"
		"# HELP eastwest_job_qps Live QPs of a job.\n"
		"# TYPE eastwest_job_qps gauge\n"
		"eastwest_job_qps{job_name=\"train.42\",job_id=\"7\"} 4\n"
		"# HELP eastwest_job_peers Peers (addresses, prefixes, LIDs) of a job.\n"
		"# TYPE eastwest_job_peers gauge\n"
		"eastwest_job_peers{job_name=\"train.42\",job_id=\"7\"} 3\n"
		"# HELP eastwest_job_decisions_total Policed operations of a job's processes, by verdict.\n"
		"# TYPE eastwest_job_decisions_total counter\n"
		"eastwest_job_decisions_total{job_name=\"train.42\",job_id=\"7\",verdict=\"allowed\"} 102\n"
		"eastwest_job_decisions_total{job_name=\"train.42\",job_id=\"7\",verdict=\"audited\"} 103\n"
		"eastwest_job_decisions_total{job_name=\"train.42\",job_id=\"7\",verdict=\"denied\"} 104\n"
		"# HELP eastwest_job_denied_total Operations of a job's processes refused, by reason.\n"
		"# TYPE eastwest_job_denied_total counter\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"no-job\"} 105\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"peer\"} 106\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"src-netdev\"} 107\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"pkey\"} 108\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"qkey\"} 109\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"qp-type\"} 110\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"unprotected-path\"} 111\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"not-admitted\"} 112\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"internal\"} 113\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"devx\"} 115\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"qp-state\"} 116\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"revoked\"} 117\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"qp-owner\"} 118\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"foreign-qp\"} 119\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"iwarp\"} 120\n"
		"eastwest_job_denied_total{job_name=\"train.42\",job_id=\"7\",reason=\"kernel-ulp\"} 121\n"
		"# HELP eastwest_job_psn_zero_total QP modifies of a job's processes that set a PSN of 0.\n"
		"# TYPE eastwest_job_psn_zero_total counter\n"
		"eastwest_job_psn_zero_total{job_name=\"train.42\",job_id=\"7\"} 114\n");
	free(out);
	ew_state_free(&st);
}

/* Without jobs or optional config attributes: no empty families. */
static void test_minimal(void **state)
{
	struct ew_state st = { 0 };
	char *out;

	(void)state;
	st.config.present = EW_CFG_MODE;
	out = capture(ew_prom_write, &st);
	assert_null(strstr(out, "eastwest_job_"));
	assert_null(strstr(out, "eastwest_info"));
	assert_null(strstr(out, "eastwest_admission"));
	assert_non_null(strstr(out, "\neastwest_mode{mode=\"enforce\"} 1\n"));
	assert_non_null(strstr(out, "\neastwest_denied_total{reason=\"peer\"} 0\n"));
	free(out);
}

static void write_down(const struct ew_state *st, FILE *f)
{
	(void)st;
	ew_prom_write_down(f);
}

static void test_down(void **state)
{
	char *out;

	(void)state;
	out = capture(write_down, NULL);
	assert_string_equal(out,
		"# HELP eastwest_up 1 if eastwestctl read the eastwest module, 0 if it could not (not loaded, no permission).\n"
		"# TYPE eastwest_up gauge\n"
		"eastwest_up 0\n");
	free(out);
}

static void test_label_escape(void **state)
{
	struct test_out o;
	char *buf;

	(void)state;
	ew_prom_label_value("a\\b\"c\nd=e,f{g}", test_out_open(&o));
	buf = test_out_close(&o);
	assert_string_equal(buf, "a\\\\b\\\"c\\nd=e,f{g}");
	free(buf);
}

static void test_rates(void **state)
{
	struct ew_counter_set now = { 0 }, prev = { 0 };
	double r[EW_N_COUNTERS];

	(void)state;
	prev.v[EASTWEST_A_COUNTERS_ALLOWED] = 100;
	now.v[EASTWEST_A_COUNTERS_ALLOWED] = 150;
	/* Reset (module reloaded): counts from zero. */
	prev.v[EASTWEST_A_COUNTERS_DENIED] = 40;
	now.v[EASTWEST_A_COUNTERS_DENIED] = 10;
	ew_counters_rate(&now, &prev, 5.0, r);
	assert_true(r[EASTWEST_A_COUNTERS_ALLOWED] == 10.0);
	assert_true(r[EASTWEST_A_COUNTERS_DENIED] == 2.0);
	assert_true(r[EASTWEST_A_COUNTERS_AUDITED] == 0.0);
	ew_counters_rate(&now, &prev, 0, r);
	assert_true(r[EASTWEST_A_COUNTERS_ALLOWED] == 0.0);
}

static void test_ranking(void **state)
{
	struct ew_state st = { 0 }, prev = { 0 };
	size_t n, *order;

	(void)state;
	add_job(&st, 1, "quiet", 0);
	add_job(&st, 2, "noisy", 50);
	add_job(&st, 3, "also-quiet", 0);
	add_job(&st, 4, "bad", 9);
	n = ew_jobs_by_denials(&st, &order);
	assert_int_equal(n, 4);
	assert_int_equal(st.jobs[order[0]].id, 2);
	assert_int_equal(st.jobs[order[1]].id, 4);
	assert_int_equal(st.jobs[order[2]].id, 1);
	assert_int_equal(st.jobs[order[3]].id, 3);
	free(order);

	/* The same job in an earlier sample: same id and name. */
	add_job(&prev, 2, "noisy", 40);
	add_job(&prev, 4, "renamed", 1);
	assert_ptr_equal(ew_job_previous(&prev, &st.jobs[1]), &prev.jobs[0]);
	assert_null(ew_job_previous(&prev, &st.jobs[3]));
	assert_null(ew_job_previous(&prev, &st.jobs[0]));
	ew_state_free(&st);
	ew_state_free(&prev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exposition),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_down),
		cmocka_unit_test(test_label_escape),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_ranking),
	};

	return cmocka_run_group_tests_name("metrics", tests, NULL, NULL);
}
