// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the diff engine. Each case builds a desired and a current
 * state, checks the plan, then plays the plan on the current state with a
 * model of the kernel's semantics (ids and names unique, a cgroup bound to
 * one job at a time, peer-del of a missing peer refused) and checks that
 * diffing again gives an empty plan.
 */
#include <errno.h>

#include "helpers.h"

#include "model/diff.h"
#include "model/parse.h"

static struct ew_job_desc *job(struct ew_state *st, uint32_t id, const char *name)
{
	struct ew_job_desc *j = ew_state_add_job(st);

	st->has_jobs = true;
	j->id = id;
	if (id)
		j->present |= EW_JOB_ID;
	snprintf(j->name, sizeof(j->name), "%s", name);
	j->present |= EW_JOB_NAME | EW_JOB_PEERS;
	ew_job_fill_defaults(j);
	return j;
}

static void peer(struct ew_job_desc *j, const char *s)
{
	struct ew_peer_addr p;
	const char *why;

	assert_int_equal(ew_peer_parse(s, &p, &why), 0);
	ew_peers_add(&j->peers, &p);
}

static void normalize(struct ew_state *st)
{
	size_t i;

	for (i = 0; i < st->n_jobs; i++)
		ew_job_normalize(&st->jobs[i]);
}

/* The kernel, as far as the plan is concerned. */

static void copy_lists(struct ew_job_desc *dst, const struct ew_job_desc *src, uint32_t mask)
{
	size_t i;

	if (mask & EW_JOB_CGROUPS) {
		for (i = 0; i < dst->n_cgroups; i++)
			free(dst->cgroups[i].path);
		dst->n_cgroups = 0;
		for (i = 0; i < src->n_cgroups; i++)
			ew_job_add_cgroup(dst, src->cgroups[i].path, 0);
	}
	if (mask & EW_JOB_NETDEVS) {
		dst->n_netdevs = 0;
		for (i = 0; i < src->n_netdevs; i++)
			ew_job_add_netdev(dst, src->netdevs[i].kind, src->netdevs[i].value,
					  src->netdevs[i].name);
	}
	if (mask & EW_JOB_PKEYS) {
		dst->n_pkeys = 0;
		for (i = 0; i < src->n_pkeys; i++)
			ew_job_add_pkey(dst, src->pkeys[i]);
	}
}

static void check_unique(const struct ew_state *st)
{
	size_t i, k, a, b;

	for (i = 0; i < st->n_jobs; i++) {
		for (k = i + 1; k < st->n_jobs; k++) {
			if (st->jobs[i].id == st->jobs[k].id)
				fail_msg("two jobs with id %u", st->jobs[i].id);
			if (!strcmp(st->jobs[i].name, st->jobs[k].name))
				fail_msg("two jobs named %s", st->jobs[i].name);
			for (a = 0; a < st->jobs[i].n_cgroups; a++)
				for (b = 0; b < st->jobs[k].n_cgroups; b++)
					if (!strcmp(st->jobs[i].cgroups[a].path,
						    st->jobs[k].cgroups[b].path))
						fail_msg("cgroup %s bound twice",
							 st->jobs[i].cgroups[a].path);
		}
	}
}

static struct ew_job_desc *by_id(struct ew_state *st, uint32_t id)
{
	struct ew_job_desc *j = ew_state_find_id(st, id);

	if (!j)
		fail_msg("no job %u", id);
	return j;
}

/*
 * Narrow before widening: after every step, what a process (by its cgroup)
 * may reach is at most what the state before the plan lets it, or at most
 * what the desired state lets it: never the union. Audit (of the node or of the job) lets it reach every peer, a cgroup
 * in no job gets the default action. Set by run(); NULL: not checked.
 */
static const struct ew_state *narrow_old, *narrow_want;
static struct ew_config narrow_want_cfg;

static bool reaches(const struct ew_state *st, const struct ew_config *cfg, const char *cg,
		    const struct ew_peer_addr *p)
{
	size_t i, k;

	if (cfg->mode == EASTWEST_MODE_AUDIT)
		return true;
	for (i = 0; i < st->n_jobs; i++) {
		const struct ew_job_desc *j = &st->jobs[i];

		for (k = 0; k < j->n_cgroups; k++)
			if (!strcmp(j->cgroups[k].path, cg))
				break;
		if (k == j->n_cgroups)
			continue;
		if (j->mode == EASTWEST_MODE_AUDIT)
			return true;
		for (k = 0; k < j->peers.n; k++)
			if (!ew_peer_cmp(&j->peers.v[k], p))
				return true;
		return false;
	}
	return cfg->default_action == EASTWEST_DEFAULT_ACTION_ALLOW;
}

static void check_cgroup_narrow(const struct ew_state *mid, const char *cg, size_t step)
{
	const struct ew_state *states[] = { narrow_old, narrow_want, mid };
	const struct ew_state *want = narrow_want->has_jobs ? narrow_want : narrow_old;
	const struct ew_peer_addr *beyond_old = NULL, *beyond_new = NULL;
	char buf[EW_PEER_STRLEN], buf2[EW_PEER_STRLEN];
	struct ew_peer_addr other;
	const char *why;
	size_t s, i, k;

	assert_int_equal(ew_peer_parse("203.0.113.99", &other, &why), 0);
	for (s = 0; s < EW_ARRAY_SIZE(states); s++) {
		for (i = 0; i <= states[s]->n_jobs; i++) {
			const struct ew_peers *ps = i < states[s]->n_jobs ?
				&states[s]->jobs[i].peers : NULL;

			for (k = 0; k < (ps ? ps->n : 1); k++) {
				const struct ew_peer_addr *p = ps ? &ps->v[k] : &other;

				if (!reaches(mid, &mid->config, cg, p))
					continue;
				if (!reaches(narrow_old, &narrow_old->config, cg, p))
					beyond_old = p;
				if (!reaches(want, &narrow_want_cfg, cg, p))
					beyond_new = p;
			}
		}
	}
	if (beyond_old && beyond_new)
		fail_msg("after step %zu, cgroup %s reaches %s, which the old policy does not "
			 "let it, and %s, which the new one does not", step + 1, cg,
			 ew_peer_format(beyond_old, buf, sizeof(buf)),
			 ew_peer_format(beyond_new, buf2, sizeof(buf2)));
}

static void check_narrow(const struct ew_state *mid, size_t step)
{
	const struct ew_state *states[] = { narrow_old, narrow_want, mid };
	size_t s, i, k;

	if (!narrow_old)
		return;
	check_cgroup_narrow(mid, "/nojob", step);
	for (s = 0; s < EW_ARRAY_SIZE(states); s++)
		for (i = 0; i < states[s]->n_jobs; i++)
			for (k = 0; k < states[s]->jobs[i].n_cgroups; k++)
				check_cgroup_narrow(mid, states[s]->jobs[i].cgroups[k].path, step);
}

/* A copy of @src's jobs (names, ids, modes, cgroups, peers) and config. */
static void copy_state(struct ew_state *dst, const struct ew_state *src)
{
	size_t i, k;

	memset(dst, 0, sizeof(*dst));
	dst->has_jobs = src->has_jobs;
	dst->has_config = src->has_config;
	dst->config = src->config;
	for (i = 0; i < src->n_jobs; i++) {
		struct ew_job_desc *j = ew_state_add_job(dst);

		j->id = src->jobs[i].id;
		strcpy(j->name, src->jobs[i].name);
		j->mode = src->jobs[i].mode;
		for (k = 0; k < src->jobs[i].n_cgroups; k++)
			ew_job_add_cgroup(j, src->jobs[i].cgroups[k].path, 0);
		for (k = 0; k < src->jobs[i].peers.n; k++)
			ew_peers_add(&j->peers, &src->jobs[i].peers.v[k]);
	}
}

static void kernel(struct ew_state *have, const struct ew_plan *plan)
{
	uint32_t next_id = 1000;
	struct ew_job_desc *j;
	size_t s, i;

	for (s = 0; s < plan->n; s++) {
		const struct ew_step *st = &plan->steps[s];

		switch (st->op) {
		case EW_STEP_JOB_DEL:
			j = by_id(have, st->id);
			ew_job_free(j);
			*j = have->jobs[--have->n_jobs];
			break;
		case EW_STEP_JOB_SET:
			j = by_id(have, st->id);
			if (st->mask & EW_JOB_NAME)
				strcpy(j->name, st->job.name);
			if (st->mask & EW_JOB_MODE)
				j->mode = st->job.mode;
			if (st->mask & EW_JOB_ENCRYPT)
				j->encrypt = st->job.encrypt;
			if (st->mask & EW_JOB_QKEY)
				j->qkey = st->job.qkey;
			if (st->mask & EW_JOB_UD)
				j->ud = st->job.ud;
			if (st->mask & EW_JOB_DC)
				j->dc = st->job.dc;
			if (st->mask & EW_JOB_PSN)
				j->psn = st->job.psn;
			copy_lists(j, &st->job, st->mask);
			break;
		case EW_STEP_PEER_ADD:
			j = by_id(have, st->id);
			for (i = 0; i < st->peers.n; i++)
				ew_peers_add(&j->peers, &st->peers.v[i]);
			break;
		case EW_STEP_PEER_DEL:
			j = by_id(have, st->id);
			ew_job_normalize(j);
			for (i = 0; i < st->peers.n; i++) {
				struct ew_peer_addr *p = bsearch(&st->peers.v[i], j->peers.v,
							    j->peers.n, sizeof(*p),
							    ew_peer_cmp);

				if (!p)
					fail_msg("peer-del of a missing peer");
				memmove(p, p + 1, (size_t)(j->peers.v + j->peers.n - p - 1) *
					sizeof(*p));
				j->peers.n--;
			}
			break;
		case EW_STEP_JOB_NEW:
			j = ew_state_add_job(have);
			j->id = (st->src->present & EW_JOB_ID) ? st->src->id : next_id++;
			strcpy(j->name, st->src->name);
			j->mode = st->src->mode;
			j->encrypt = st->src->encrypt;
			j->qkey = st->src->qkey;
			j->ud = st->src->ud;
			j->dc = st->src->dc;
			j->psn = st->src->psn;
			copy_lists(j, st->src, EW_JOB_SETTABLE);
			for (i = 0; i < st->src->peers.n; i++)
				ew_peers_add(&j->peers, &st->src->peers.v[i]);
			break;
		case EW_STEP_CONFIG_SET:
			if (st->mask & EW_CFG_MODE)
				have->config.mode = st->config.mode;
			if (st->mask & EW_CFG_DEFAULT)
				have->config.default_action = st->config.default_action;
			break;
		}
		check_unique(have);
		check_narrow(have, s);
	}
	normalize(have);
}

/* Plans @want against @have, checks the step ops, applies, re-plans. */
static void run(struct ew_state *want, struct ew_state *have, struct ew_plan *plan,
		const enum ew_step_op *ops, size_t n_ops)
{
	struct ew_plan again = { 0 };
	size_t i;

	struct ew_state old;

	normalize(want);
	normalize(have);
	ew_plan_build(want, have, plan);
	if (plan->n != n_ops)
		fail_msg("%zu steps, wanted %zu", plan->n, n_ops);
	for (i = 0; i < n_ops; i++)
		if (plan->steps[i].op != ops[i])
			fail_msg("step %zu is op %d, wanted %d", i, plan->steps[i].op, ops[i]);
	copy_state(&old, have);
	narrow_old = &old;
	narrow_want = want;
	narrow_want_cfg = have->config;
	if (want->has_config && (want->config.present & EW_CFG_MODE))
		narrow_want_cfg.mode = want->config.mode;
	if (want->has_config && (want->config.present & EW_CFG_DEFAULT))
		narrow_want_cfg.default_action = want->config.default_action;
	kernel(have, plan);
	narrow_old = narrow_want = NULL;
	ew_state_free(&old);
	ew_plan_build(want, have, &again);
	/* A key given is sent again (the kernel never reports it): no change. */
	for (i = 0; i < again.n; i++)
		if (again.steps[i].op != EW_STEP_JOB_SET ||
		    again.steps[i].mask != (EW_JOB_PSN | EW_JOB_PSN_KEY))
			break;
	if (i < again.n)
		fail_msg("not idempotent: %zu more steps (first op %d)", again.n,
			 again.steps[0].op);
	ew_plan_free(&again);
}

#define OPS(...) ((const enum ew_step_op[]){ __VA_ARGS__ }), \
	(sizeof((const enum ew_step_op[]){ __VA_ARGS__ }) / sizeof(enum ew_step_op))

static void test_empty(void **state)
{
	struct ew_state want = { 0 }, have = { 0 };
	struct ew_plan plan = { 0 };

	(void)state;
	want.has_jobs = have.has_jobs = true;
	ew_plan_build(&want, &have, &plan);
	assert_int_equal(plan.n, 0);
	ew_plan_free(&plan);
}

static void test_create_and_delete(void **state)
{
	struct ew_state want = { 0 }, have = { 0 };
	struct ew_plan plan = { 0 };
	struct ew_job_desc *a;

	(void)state;
	a = job(&want, 0, "a");
	peer(a, "192.0.2.0/24");
	ew_job_add_cgroup(a, "/x", 0);
	job(&want, 7, "b");
	job(&have, 3, "old");
	have.has_jobs = true;
	run(&want, &have, &plan, OPS(EW_STEP_JOB_NEW, EW_STEP_JOB_NEW, EW_STEP_JOB_DEL));
	assert_int_equal(plan.steps[2].id, 3);
	assert_string_equal(plan.steps[2].name, "old");
	assert_ptr_equal(plan.steps[0].src, &want.jobs[0]);
	assert_int_equal(have.n_jobs, 2);
	assert_non_null(ew_state_find_id(&have, 7));
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);
}

static void test_set_attributes(void **state)
{
	struct ew_state want = { 0 }, have = { 0 };
	struct ew_plan plan = { 0 };
	struct ew_job_desc *w, *h;

	(void)state;
	w = job(&want, 0, "a");
	w->mode = EASTWEST_MODE_AUDIT;
	w->qkey = 0x1234;
	ew_job_add_cgroup(w, "/y", 0);
	ew_job_add_cgroup(w, "/x", 0);
	ew_job_add_netdev(w, EW_NETDEV_VLAN, 100, NULL);
	ew_job_add_pkey(w, 0x8001);
	h = job(&have, 4, "a");
	ew_job_add_cgroup(h, "/x", 0);
	ew_job_add_cgroup(h, "/y", 0);
	ew_job_add_pkey(h, 0x8001);
	run(&want, &have, &plan, OPS(EW_STEP_JOB_SET));
	assert_int_equal(plan.steps[0].id, 4);
	assert_int_equal(plan.steps[0].mask, EW_JOB_MODE | EW_JOB_QKEY | EW_JOB_NETDEVS);
	assert_int_equal(plan.steps[0].job.mode, EASTWEST_MODE_AUDIT);
	ew_plan_free(&plan);

	/* The UD and DC settings, each alone, and both back off. */
	w->ud = true;
	run(&want, &have, &plan, OPS(EW_STEP_JOB_SET));
	assert_int_equal(plan.steps[0].mask, EW_JOB_UD);
	assert_true(plan.steps[0].job.ud);
	assert_true(have.jobs[0].ud);
	ew_plan_free(&plan);
	w->dc = true;
	run(&want, &have, &plan, OPS(EW_STEP_JOB_SET));
	assert_int_equal(plan.steps[0].mask, EW_JOB_DC);
	ew_plan_free(&plan);
	w->ud = false;
	w->dc = false;
	run(&want, &have, &plan, OPS(EW_STEP_JOB_SET));
	assert_int_equal(plan.steps[0].mask, EW_JOB_UD | EW_JOB_DC);
	assert_false(plan.steps[0].job.ud || plan.steps[0].job.dc);
	assert_false(have.jobs[0].ud || have.jobs[0].dc);
	ew_plan_free(&plan);

	/* Emptying a list is a change too. */
	w->n_pkeys = 0;
	run(&want, &have, &plan, OPS(EW_STEP_JOB_SET));
	assert_int_equal(plan.steps[0].mask, EW_JOB_PKEYS);
	assert_int_equal(plan.steps[0].job.n_pkeys, 0);
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);
}

static void test_peers(void **state)
{
	struct ew_state want = { 0 }, have = { 0 };
	struct ew_plan plan = { 0 };
	struct ew_job_desc *w, *h;
	char buf[EW_PEER_STRLEN];

	(void)state;
	w = job(&want, 0, "a");
	peer(w, "10.0.0.1");
	peer(w, "10.0.0.2");
	peer(w, "lid:5");
	peer(w, "fe80::/64");
	h = job(&have, 1, "a");
	peer(h, "10.0.0.1");
	peer(h, "10.0.0.3");
	peer(h, "fe80::/64");
	run(&want, &have, &plan, OPS(EW_STEP_PEER_DEL, EW_STEP_PEER_ADD));
	assert_int_equal(plan.steps[1].peers.n, 2);
	assert_string_equal(ew_peer_format(&plan.steps[1].peers.v[0], buf, sizeof(buf)),
			    "10.0.0.2/32");
	assert_string_equal(ew_peer_format(&plan.steps[1].peers.v[1], buf, sizeof(buf)),
			    "lid:5");
	assert_int_equal(plan.steps[0].peers.n, 1);
	assert_string_equal(ew_peer_format(&plan.steps[0].peers.v[0], buf, sizeof(buf)),
			    "10.0.0.3/32");
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);
}

static void test_many_peers(void **state)
{
	struct ew_state want = { 0 }, have = { 0 };
	struct ew_plan plan = { 0 };
	struct ew_job_desc *w, *h;
	struct ew_peer_addr p;
	uint32_t i;

	(void)state;
	w = job(&want, 0, "big");
	h = job(&have, 1, "big");
	memset(&p, 0, sizeof(p));
	p.plen = 128;
	p.addr[0] = 0x20;
	for (i = 0; i < 150000; i++) {
		p.addr[12] = (uint8_t)(i >> 24);
		p.addr[13] = (uint8_t)(i >> 16);
		p.addr[14] = (uint8_t)(i >> 8);
		p.addr[15] = (uint8_t)i;
		if (i >= 1000)
			ew_peers_add(&w->peers, &p);
		if (i < 149000)
			ew_peers_add(&h->peers, &p);
	}
	run(&want, &have, &plan, OPS(EW_STEP_PEER_DEL, EW_STEP_PEER_ADD));
	assert_int_equal(plan.steps[0].peers.n, 1000);
	assert_int_equal(plan.steps[1].peers.n, 1000);
	assert_int_equal(have.jobs[0].peers.n, 149000);
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);
}

static void test_rename_and_recreate(void **state)
{
	struct ew_state want = { 0 }, have = { 0 };
	struct ew_plan plan = { 0 };

	(void)state;
	/* Same id, new name: renamed in place. */
	job(&want, 5, "new");
	job(&have, 5, "old");
	run(&want, &have, &plan, OPS(EW_STEP_JOB_SET));
	assert_int_equal(plan.steps[0].mask, EW_JOB_NAME);
	assert_string_equal(plan.steps[0].job.name, "new");
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);

	/* Same name, another id: ids do not change, so delete and create. */
	job(&want, 9, "a");
	job(&have, 5, "a");
	run(&want, &have, &plan, OPS(EW_STEP_JOB_DEL, EW_STEP_JOB_NEW));
	assert_int_equal(plan.steps[0].id, 5);
	assert_int_equal(have.jobs[0].id, 9);
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);

	/* No id in the file: matched by name, the id is kept. */
	job(&want, 0, "a");
	job(&have, 5, "a");
	run(&want, &have, &plan, OPS());
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);

	/* Id match wins over a name held by another (deleted) job. */
	job(&want, 5, "a");
	job(&have, 5, "b");
	job(&have, 6, "a");
	run(&want, &have, &plan, OPS(EW_STEP_JOB_DEL, EW_STEP_JOB_SET));
	assert_int_equal(plan.steps[0].id, 6);
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);
}

static void test_cgroup_moves(void **state)
{
	struct ew_state want = { 0 }, have = { 0 };
	struct ew_plan plan = { 0 };
	struct ew_job_desc *j;

	(void)state;
	/* /x moves from a to b: a releases it before b binds it. */
	j = job(&want, 0, "b");
	ew_job_add_cgroup(j, "/x", 0);
	job(&want, 0, "a");
	j = job(&have, 1, "a");
	ew_job_add_cgroup(j, "/x", 0);
	job(&have, 2, "b");
	run(&want, &have, &plan, OPS(EW_STEP_JOB_SET, EW_STEP_JOB_SET));
	assert_int_equal(plan.steps[0].id, 1);
	assert_int_equal(plan.steps[1].id, 2);
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);

	/* a and b swap cgroups: both shrink, then both grow. */
	j = job(&want, 0, "a");
	ew_job_add_cgroup(j, "/y", 0);
	ew_job_add_cgroup(j, "/keep", 0);
	j->mode = EASTWEST_MODE_AUDIT;
	j = job(&want, 0, "b");
	ew_job_add_cgroup(j, "/x", 0);
	j = job(&have, 1, "a");
	ew_job_add_cgroup(j, "/x", 0);
	ew_job_add_cgroup(j, "/keep", 0);
	j = job(&have, 2, "b");
	ew_job_add_cgroup(j, "/y", 0);
	run(&want, &have, &plan, OPS(EW_STEP_JOB_SET, EW_STEP_JOB_SET,
				     EW_STEP_JOB_SET, EW_STEP_JOB_SET));
	assert_int_equal(plan.steps[0].mask, EW_JOB_MODE | EW_JOB_CGROUPS);
	assert_int_equal(plan.steps[0].job.n_cgroups, 1);
	assert_string_equal(plan.steps[0].job.cgroups[0].path, "/keep");
	assert_int_equal(plan.steps[1].job.n_cgroups, 0);
	assert_int_equal(plan.steps[2].mask, EW_JOB_CGROUPS);
	assert_int_equal(plan.steps[2].job.n_cgroups, 2);
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);

	/* A new job takes the cgroup of a deleted one. */
	j = job(&want, 0, "new");
	ew_job_add_cgroup(j, "/x", 0);
	j = job(&have, 1, "old");
	ew_job_add_cgroup(j, "/x", 0);
	run(&want, &have, &plan, OPS(EW_STEP_JOB_DEL, EW_STEP_JOB_NEW));
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);
}

static void test_qkey_auto(void **state)
{
	struct ew_state want = { 0 }, have = { 0 };
	struct ew_plan plan = { 0 };
	struct ew_job_desc *w, *h;

	(void)state;
	w = job(&want, 0, "a");
	w->qkey_auto = true;
	w->qkey = 77;
	h = job(&have, 1, "a");
	h->qkey = 5;
	run(&want, &have, &plan, OPS());	/* keeps 5 */
	ew_plan_free(&plan);
	h->qkey = 0;
	run(&want, &have, &plan, OPS(EW_STEP_JOB_SET));
	assert_int_equal(plan.steps[0].mask, EW_JOB_QKEY);
	assert_int_equal(have.jobs[0].qkey, 77);
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);
}

static void test_config_and_scope(void **state)
{
	struct ew_state want = { 0 }, have = { 0 };
	struct ew_plan plan = { 0 };

	(void)state;
	/* Only what the file manages: here the mode, not the jobs. */
	want.has_config = true;
	want.config.present = EW_CFG_MODE;
	want.config.mode = EASTWEST_MODE_AUDIT;
	have.has_config = true;
	have.config.present = EW_CFG_MODE | EW_CFG_DEFAULT;
	have.config.default_action = EASTWEST_DEFAULT_ACTION_ALLOW;
	job(&have, 1, "untouched");
	run(&want, &have, &plan, OPS(EW_STEP_CONFIG_SET));
	assert_int_equal(plan.steps[0].mask, EW_CFG_MODE);
	assert_int_equal(have.config.default_action, EASTWEST_DEFAULT_ACTION_ALLOW);
	assert_int_equal(have.n_jobs, 1);
	ew_plan_free(&plan);

	/* A stricter default comes first; the job freeing nothing goes last. */
	want.config.present |= EW_CFG_DEFAULT;
	job(&want, 0, "a");
	run(&want, &have, &plan, OPS(EW_STEP_CONFIG_SET, EW_STEP_JOB_NEW,
				     EW_STEP_JOB_DEL));
	assert_int_equal(plan.steps[0].mask, EW_CFG_DEFAULT);
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);
}

/* The node of test_keyed_last(), before its plan. */
static void keyed_node(struct ew_state *have)
{
	struct ew_job_desc *j;

	have->has_jobs = have->has_config = true;
	have->config.present = EW_CFG_MODE | EW_CFG_DEFAULT;
	j = job(have, 1, "k1");
	j->psn = EASTWEST_PSN_KEYED;
	ew_job_add_cgroup(j, "/a", 0);
	job(have, 2, "k2")->psn = EASTWEST_PSN_KEYED;
	j = job(have, 3, "k3");
	j->psn = EASTWEST_PSN_KEYED;
	ew_job_add_cgroup(j, "/b", 0);
	j = job(have, 4, "x");
	peer(j, "192.0.2.1");
}

/*
 * A keyed job cannot be created again (the kernel never reports its key):
 * it is deleted after every other step unless a desired job needs its name
 * (k2, recreated with another id) or its cgroup (k3's /b). The plan back
 * from the state after is the undo; it creates k2 and k3 with keyed PSNs
 * and no key, which ew_step_refused() tells.
 */
static void test_keyed_last(void **state)
{
	struct ew_state want = { 0 }, have = { 0 }, before = { 0 };
	struct ew_plan plan = { 0 }, undo = { 0 };
	struct ew_job_desc *j;
	size_t i, refused = 0;

	(void)state;
	keyed_node(&have);
	keyed_node(&before);
	normalize(&before);
	j = job(&want, 50, "k2");
	j->psn = EASTWEST_PSN_KEYED;
	j->present |= EW_JOB_PSN_KEY;
	ew_job_add_cgroup(job(&want, 0, "n"), "/b", 0);
	want.has_config = true;
	want.config.present = EW_CFG_MODE;
	want.config.mode = EASTWEST_MODE_AUDIT;
	run(&want, &have, &plan, OPS(EW_STEP_JOB_DEL, EW_STEP_JOB_DEL, EW_STEP_JOB_NEW,
				      EW_STEP_JOB_NEW, EW_STEP_JOB_DEL, EW_STEP_CONFIG_SET,
				      EW_STEP_JOB_DEL));
	assert_string_equal(plan.steps[0].name, "k2");
	assert_string_equal(plan.steps[1].name, "k3");
	assert_string_equal(plan.steps[4].name, "x");
	assert_string_equal(plan.steps[6].name, "k1");
	for (i = 0; i < plan.n; i++)
		assert_null(ew_step_refused(&plan.steps[i]));

	ew_plan_build(&before, &have, &undo);
	for (i = 0; i < undo.n; i++) {
		const char *why = ew_step_refused(&undo.steps[i]);

		if (why) {
			assert_int_equal(undo.steps[i].op, EW_STEP_JOB_NEW);
			assert_string_equal(why, "keyed PSNs need a psn-key");
			refused++;
		}
	}
	assert_int_equal(refused, 3);
	kernel(&have, &undo);
	ew_plan_free(&undo);
	ew_plan_build(&before, &have, &undo);
	assert_int_equal(undo.n, 0);
	ew_plan_free(&undo);
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);
	ew_state_free(&before);
}

/*
 * Narrow before widening (run() checks every state between the steps): a
 * job loses peers before it gains any, and gains a cgroup only once it
 * lost them; a stricter configuration comes first, a looser one last.
 */
static void test_narrow_first(void **state)
{
	struct ew_state want = { 0 }, have = { 0 };
	struct ew_plan plan = { 0 };
	struct ew_job_desc *j;

	(void)state;
	/* One job's peers replaced. */
	j = job(&want, 0, "a");
	ew_job_add_cgroup(j, "/x", 0);
	peer(j, "10.0.0.2");
	j = job(&have, 1, "a");
	ew_job_add_cgroup(j, "/x", 0);
	peer(j, "10.0.0.1");
	run(&want, &have, &plan, OPS(EW_STEP_PEER_DEL, EW_STEP_PEER_ADD));
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);

	/* A job gains a cgroup and changes peers. */
	j = job(&want, 0, "a");
	ew_job_add_cgroup(j, "/x", 0);
	ew_job_add_cgroup(j, "/y", 0);
	peer(j, "10.0.0.2");
	j = job(&have, 1, "a");
	ew_job_add_cgroup(j, "/x", 0);
	peer(j, "10.0.0.1");
	run(&want, &have, &plan, OPS(EW_STEP_PEER_DEL, EW_STEP_JOB_SET, EW_STEP_PEER_ADD));
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);

	/* a and b swap cgroups and peers: the same rights before and after. */
	j = job(&want, 0, "a");
	ew_job_add_cgroup(j, "/y", 0);
	peer(j, "10.0.0.2");
	j = job(&want, 0, "b");
	ew_job_add_cgroup(j, "/x", 0);
	peer(j, "10.0.0.1");
	j = job(&have, 1, "a");
	ew_job_add_cgroup(j, "/x", 0);
	peer(j, "10.0.0.1");
	j = job(&have, 2, "b");
	ew_job_add_cgroup(j, "/y", 0);
	peer(j, "10.0.0.2");
	run(&want, &have, &plan, OPS(EW_STEP_PEER_DEL, EW_STEP_PEER_DEL, EW_STEP_JOB_SET,
				     EW_STEP_JOB_SET, EW_STEP_JOB_SET, EW_STEP_PEER_ADD,
				     EW_STEP_JOB_SET, EW_STEP_PEER_ADD));
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);

	/*
	 * Default allow to deny, a job deleted: the default changes first,
	 * so the deleted job's cgroup never reaches every peer; a job the
	 * plan needs no room from is deleted after the other changes.
	 */
	have.has_config = true;
	have.config.present = EW_CFG_MODE | EW_CFG_DEFAULT;
	have.config.default_action = EASTWEST_DEFAULT_ACTION_ALLOW;
	j = job(&have, 1, "old");
	ew_job_add_cgroup(j, "/z", 0);
	peer(j, "10.0.0.3");
	peer(job(&have, 2, "a"), "10.0.0.1");
	peer(job(&want, 0, "a"), "10.0.0.2");
	want.has_config = true;
	want.config.present = EW_CFG_DEFAULT;
	want.config.default_action = EASTWEST_DEFAULT_ACTION_DENY;
	run(&want, &have, &plan, OPS(EW_STEP_CONFIG_SET, EW_STEP_PEER_DEL, EW_STEP_PEER_ADD,
				     EW_STEP_JOB_DEL));
	ew_plan_free(&plan);

	/* And back: deny to allow comes after every job change. */
	ew_state_free(&want);
	j = job(&want, 0, "old");
	ew_job_add_cgroup(j, "/z", 0);
	peer(j, "10.0.0.3");
	want.has_config = true;
	want.config.present = EW_CFG_DEFAULT;
	want.config.default_action = EASTWEST_DEFAULT_ACTION_ALLOW;
	run(&want, &have, &plan, OPS(EW_STEP_JOB_NEW, EW_STEP_JOB_DEL, EW_STEP_CONFIG_SET));
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);
}

/*
 * A key given for a keyed job is sent, though the PSN setting is the
 * same: the kernel never reports the key, so it may be new (a rotated key
 * file); and with a rename, whose key the kernel derives from the name.
 */
static void test_rekey(void **state)
{
	struct ew_state want = { 0 }, have = { 0 };
	struct ew_plan plan = { 0 };
	struct ew_job_desc *w;

	(void)state;
	w = job(&want, 0, "k");
	w->psn = EASTWEST_PSN_KEYED;
	w->present |= EW_JOB_PSN | EW_JOB_PSN_KEY;
	memset(w->psn_key, 0xaa, sizeof(w->psn_key));
	job(&have, 1, "k")->psn = EASTWEST_PSN_KEYED;
	normalize(&want);
	normalize(&have);
	ew_plan_build(&want, &have, &plan);
	assert_int_equal(plan.n, 1);
	assert_int_equal(plan.steps[0].op, EW_STEP_JOB_SET);
	assert_int_equal(plan.steps[0].mask, EW_JOB_PSN | EW_JOB_PSN_KEY);
	assert_int_equal(plan.steps[0].job.psn_key[0], 0xaa);
	assert_null(ew_step_refused(&plan.steps[0]));
	ew_plan_free(&plan);

	/* Renamed (matched by id): the new name and the key in one job-set. */
	w->id = 1;
	w->present |= EW_JOB_ID;
	snprintf(w->name, sizeof(w->name), "k2");
	ew_plan_build(&want, &have, &plan);
	assert_int_equal(plan.n, 1);
	assert_int_equal(plan.steps[0].mask, EW_JOB_NAME | EW_JOB_PSN | EW_JOB_PSN_KEY);
	ew_plan_free(&plan);

	/* No key given: nothing to send. */
	w->present &= ~EW_JOB_PSN_KEY;
	snprintf(w->name, sizeof(w->name), "k");
	ew_plan_build(&want, &have, &plan);
	assert_int_equal(plan.n, 0);
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);
}

static void test_peers_diff(void **state)
{
	struct ew_peers a = { 0 }, b = { 0 }, add = { 0 }, del = { 0 };
	struct ew_peer_addr p;
	const char *why;

	(void)state;
	ew_peers_diff(&a, &b, &add, &del);
	assert_int_equal(add.n + del.n, 0);
	ew_peer_parse("10.0.0.1", &p, &why);
	ew_peers_add(&a, &p);
	ew_peers_diff(&a, &b, &add, &del);
	assert_int_equal(add.n, 1);
	assert_int_equal(del.n, 0);
	ew_peers_diff(&b, &a, &add, &del);
	assert_int_equal(del.n, 1);
	ew_peers_free(&a);
	ew_peers_free(&add);
	ew_peers_free(&del);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_create_and_delete),
		cmocka_unit_test(test_set_attributes),
		cmocka_unit_test(test_peers),
		cmocka_unit_test(test_many_peers),
		cmocka_unit_test(test_rename_and_recreate),
		cmocka_unit_test(test_cgroup_moves),
		cmocka_unit_test(test_qkey_auto),
		cmocka_unit_test(test_config_and_scope),
		cmocka_unit_test(test_keyed_last),
		cmocka_unit_test(test_peers_diff),
		cmocka_unit_test(test_narrow_first),
		cmocka_unit_test(test_rekey),
	};

	ew_quiet = true;
	return cmocka_run_group_tests_name("diff", tests, NULL, NULL);
}
