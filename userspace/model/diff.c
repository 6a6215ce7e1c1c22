// SPDX-License-Identifier: GPL-2.0
/*
 * The diff engine of "apply": desired state + current state -> plan.
 *
 * Both states must be normalized (ew_job_normalize(): sorted, duplicate-free
 * lists) and complete (ew_job_fill_defaults()). No I/O here.
 *
 * Jobs are matched first by id (when the desired job has one), then by
 * name. A desired job whose name matches a current job with another id is
 * recreated (ids cannot change); an unmatched current job is deleted, an
 * unmatched desired one created.
 *
 * Order of the steps: narrow before widening. Every state between two
 * steps lets a process (by its cgroup) reach at most the peers the state
 * before lets it reach, or at most those the desired state lets it: never
 * the union, and never what neither lets it, wherever a run stops.
 *   1. config-set   of what makes the node stricter (mode enforce,
 *                   default deny);
 *   2. peer-del     of every job that loses peers;
 *   3. job-set      of jobs that lose cgroups, with only the cgroups they
 *                   keep (and their other changes but a rename), so that a
 *                   cgroup moving between two jobs is released before it is
 *                   bound again;
 *   4. job-del      of jobs whose name or cgroups a desired job takes;
 *   5. job-set      of the other changes and the cgroups gained, then
 *                   peer-add, per job: a job changes its settings and gains
 *                   cgroups holding only the peers both lists have;
 *   6. job-new      with all peers;
 *   7. job-del      of the jobs that free nothing (but keyed ones): until
 *                   then their processes keep the rights they had, and a
 *                   run refused before this step revokes none of their QPs;
 *   8. config-set   of what makes the node looser (mode audit, default
 *                   allow), once the jobs are in place;
 *   9. job-set      of keyed jobs to other PSNs, then job-del of jobs with
 *                   keyed PSNs that free nothing: the kernel never reports
 *                   a PSN key, so such a job cannot be keyed again, nor
 *                   created again, and a plan refused before this step can
 *                   be undone whole. Steps 3 and 5 leave their PSNs keyed.
 * What no order can avoid: between steps 3 and 5 a cgroup that moves to
 * another job, and between steps 4 and 6 the cgroups of a job deleted to
 * free its name or cgroups for a new job, are in no job, and get the
 * default action. Under default allow they may then reach any peer. The
 * two steps are as close as the kernel's one-cgroup-one-job rule allows;
 * a policy that needs no such window gives every job its own name and
 * cgroups, or runs under default deny.
 * Applying the plan and diffing again gives an empty plan. The plan from
 * the state after some of its steps back to the state before undoes them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <string.h>

#include "ewctl.h"
#include "model/diff.h"

/**
 * ew_peers_diff() - peers to add and to remove
 * @want: the desired peers, sorted
 * @have: the current peers, sorted
 * @add: in @want, not in @have (appended)
 * @del: in @have, not in @want (appended)
 */
void ew_peers_diff(const struct ew_peers *want, const struct ew_peers *have,
		   struct ew_peers *add, struct ew_peers *del)
{
	size_t i = 0, j = 0;

	while (i < want->n || j < have->n) {
		int d;

		if (i == want->n)
			d = 1;
		else if (j == have->n)
			d = -1;
		else
			d = ew_peer_cmp(&want->v[i], &have->v[j]);
		if (d < 0) {
			ew_peers_add(add, &want->v[i++]);
		} else if (d > 0) {
			ew_peers_add(del, &have->v[j++]);
		} else {
			i++;
			j++;
		}
	}
}

static bool cgroups_equal(const struct ew_job_desc *a, const struct ew_job_desc *b)
{
	size_t i;

	if (a->n_cgroups != b->n_cgroups)
		return false;
	for (i = 0; i < a->n_cgroups; i++)
		if (strcmp(a->cgroups[i].path, b->cgroups[i].path))
			return false;
	return true;
}

static bool has_cgroup(const struct ew_job_desc *job, const char *path)
{
	struct ew_cgroup key = { .path = (char *)path };

	return job->n_cgroups &&
	       bsearch(&key, job->cgroups, job->n_cgroups, sizeof(key), ew_cgroup_cmp);
}

/* Does @a have a cgroup that @b has not? */
static bool cgroups_beyond(const struct ew_job_desc *a, const struct ew_job_desc *b)
{
	size_t i;

	for (i = 0; i < a->n_cgroups; i++)
		if (!has_cgroup(b, a->cgroups[i].path))
			return true;
	return false;
}

/**
 * ew_job_diff() - which settable attributes differ
 * @want: the desired job
 * @have: the current job
 *
 * Return: EW_JOB_* bits of the attributes job-set must send (peers are not
 * included: see ew_peers_diff()).
 */
uint32_t ew_job_diff(const struct ew_job_desc *want, const struct ew_job_desc *have)
{
	uint32_t mask = 0;
	size_t i;

	if (strcmp(want->name, have->name))
		mask |= EW_JOB_NAME;
	if (want->mode != have->mode)
		mask |= EW_JOB_MODE;
	if (want->encrypt != have->encrypt)
		mask |= EW_JOB_ENCRYPT;
	if (want->qkey_auto ? !have->qkey : want->qkey != have->qkey)
		mask |= EW_JOB_QKEY;
	if (want->ud != have->ud)
		mask |= EW_JOB_UD;
	if (want->dc != have->dc)
		mask |= EW_JOB_DC;
	/*
	 * The kernel never reports the key, so whether it changed (a new
	 * psn_key, a rotated psn_keyfile, a rename the key is bound to)
	 * cannot be told: a key given is always sent.
	 */
	if (want->psn != have->psn || (want->present & EW_JOB_PSN_KEY))
		mask |= EW_JOB_PSN | (want->present & EW_JOB_PSN_KEY);
	/* A run goes with the key it was derived for, never alone. */
	if (mask & EW_JOB_PSN_KEY)
		mask |= want->present & EW_JOB_PSN_RUN;
	if (!cgroups_equal(want, have))
		mask |= EW_JOB_CGROUPS;
	if (want->n_netdevs != have->n_netdevs) {
		mask |= EW_JOB_NETDEVS;
	} else {
		for (i = 0; i < want->n_netdevs; i++)
			if (ew_netdev_cmp(&want->netdevs[i], &have->netdevs[i]))
				mask |= EW_JOB_NETDEVS;
	}
	if (want->n_pkeys != have->n_pkeys ||
	    (want->n_pkeys && memcmp(want->pkeys, have->pkeys,
				     want->n_pkeys * sizeof(*want->pkeys))))
		mask |= EW_JOB_PKEYS;
	return mask;
}

static struct ew_step *add_step(struct ew_plan *plan, enum ew_step_op op,
				uint32_t id, const char *name)
{
	struct ew_step *s;

	EW_GROW(plan->steps, plan->n, plan->cap);
	s = &plan->steps[plan->n++];
	memset(s, 0, sizeof(*s));
	s->op = op;
	s->id = id;
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

/* A job-set step: @want's attributes in @mask; cgroups only those of @keep. */
static void add_set(struct ew_plan *plan, const struct ew_job_desc *want,
		    const struct ew_job_desc *have, uint32_t mask,
		    const struct ew_job_desc *keep)
{
	struct ew_step *s = add_step(plan, EW_STEP_JOB_SET, have->id, want->name);
	struct ew_job_desc *j = &s->job;
	size_t i;

	s->mask = mask;
	snprintf(j->name, sizeof(j->name), "%s", want->name);
	j->mode = want->mode;
	j->encrypt = want->encrypt;
	j->qkey = want->qkey;
	j->ud = want->ud;
	j->dc = want->dc;
	j->psn = want->psn;
	memcpy(j->psn_key, want->psn_key, sizeof(j->psn_key));
	memcpy(j->psn_run, want->psn_run, sizeof(j->psn_run));
	for (i = 0; i < want->n_cgroups; i++)
		if (!keep || has_cgroup(keep, want->cgroups[i].path))
			ew_job_add_cgroup(j, want->cgroups[i].path, 0);
	for (i = 0; i < want->n_netdevs; i++)
		ew_job_add_netdev(j, want->netdevs[i].kind, want->netdevs[i].value,
				  want->netdevs[i].name);
	for (i = 0; i < want->n_pkeys; i++)
		ew_job_add_pkey(j, want->pkeys[i]);
	j->present = mask;
}

static void add_peers(struct ew_plan *plan, enum ew_step_op op,
		      const struct ew_job_desc *want, uint32_t id, struct ew_peers *peers)
{
	struct ew_step *s;

	if (!peers->n) {
		ew_peers_free(peers);
		return;
	}
	s = add_step(plan, op, id, want->name);
	s->peers = *peers;
	memset(peers, 0, sizeof(*peers));
}

/*
 * The node's jobs have unique ids and names (the module refuses
 * duplicates): pairing a policy's jobs with them is a binary search in a
 * sorted index, not a scan per job (10k jobs would cost 100M compares).
 */
static int have_cmp_id(const struct ew_job_desc *a, const struct ew_job_desc *b)
{
	return (a->id > b->id) - (a->id < b->id);
}

static int have_cmp_name(const struct ew_job_desc *a, const struct ew_job_desc *b)
{
	return strcmp(a->name, b->name);
}

struct have_order {
	const struct ew_state *have;
	int (*cmp)(const struct ew_job_desc *, const struct ew_job_desc *);
};

static int sort_have_cmp(const void *a, const void *b, void *arg)
{
	const struct have_order *o = arg;

	return o->cmp(&o->have->jobs[*(const size_t *)a], &o->have->jobs[*(const size_t *)b]);
}

static size_t *sorted_have(const struct ew_state *have,
			   int (*cmp)(const struct ew_job_desc *, const struct ew_job_desc *))
{
	size_t *idx = ew_calloc(have->n_jobs ? have->n_jobs : 1, sizeof(*idx));
	size_t i;
	struct have_order o = { .have = have, .cmp = cmp };

	for (i = 0; i < have->n_jobs; i++)
		idx[i] = i;
	qsort_r(idx, have->n_jobs, sizeof(*idx), sort_have_cmp, &o);
	return idx;
}

/* The index in @have of the job equal to @key under @cmp, or n_jobs. */
static size_t find_have(const struct ew_state *have, const size_t *idx,
			const struct ew_job_desc *key,
			int (*cmp)(const struct ew_job_desc *, const struct ew_job_desc *))
{
	size_t lo = 0, hi = have->n_jobs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = cmp(&have->jobs[idx[mid]], key);

		if (!r)
			return idx[mid];
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return have->n_jobs;
}

/*
 * Whether the unmatched job @h must be deleted early, to make room: a
 * desired job takes its name (in @want_by_name) or a cgroup of it (in
 * @cgroups, every desired job's).
 */
static bool makes_room(const struct ew_state *want, const size_t *want_by_name,
		       const struct ew_job_desc *cgroups, const struct ew_job_desc *h)
{
	size_t k;

	if (find_have(want, want_by_name, h, have_cmp_name) < want->n_jobs)
		return true;
	for (k = 0; k < h->n_cgroups; k++)
		if (has_cgroup(cgroups, h->cgroups[k].path))
			return true;
	return false;
}

/* The unmatched jobs of @have that makes_room() deletes early. */
static bool *room_deletions(const struct ew_state *want, const struct ew_state *have,
			    const bool *taken)
{
	struct ew_job_desc cgroups;
	size_t i, k, *by_name;
	bool *room;

	ew_job_init(&cgroups);
	for (i = 0; i < want->n_jobs; i++)
		for (k = 0; k < want->jobs[i].n_cgroups; k++)
			ew_job_add_cgroup(&cgroups, want->jobs[i].cgroups[k].path, 0);
	ew_job_normalize(&cgroups);
	by_name = sorted_have(want, have_cmp_name);
	room = ew_calloc(have->n_jobs ? have->n_jobs : 1, sizeof(*room));
	for (i = 0; i < have->n_jobs; i++)
		room[i] = !taken[i] && makes_room(want, by_name, &cgroups, &have->jobs[i]);
	free(by_name);
	ew_job_free(&cgroups);
	return room;
}

/*
 * What a job-set of step 3 leaves to step 5: the cgroups gained, and a
 * rename with the PSN settings (a key is bound to the job's name).
 */
static uint32_t late_bits(const struct ew_job_desc *w, const struct ew_job_desc *h)
{
	uint32_t mask = EW_JOB_CGROUPS;

	if (strcmp(w->name, h->name))
		mask |= EW_JOB_NAME | EW_JOB_PSN | EW_JOB_PSN_KEY | EW_JOB_PSN_RUN;
	return mask;
}

/*
 * Whether @w takes keyed PSNs from @h: the key is never reported, so the
 * change cannot be undone, and goes last (step 9).
 */
static bool psn_unkeyed(const struct ew_job_desc *w, const struct ew_job_desc *h)
{
	return h->psn == EASTWEST_PSN_KEYED && w->psn != EASTWEST_PSN_KEYED;
}

/*
 * The configuration step: of the attributes that change, those that make
 * the node stricter (@stricter: mode enforce, default deny) or the others.
 */
static void add_config(const struct ew_state *want, const struct ew_state *have,
		       struct ew_plan *plan, bool stricter)
{
	const struct ew_config *w = &want->config, *h = &have->config;
	uint32_t mask = 0;
	struct ew_step *s;

	if (!want->has_config)
		return;
	if ((w->present & EW_CFG_MODE) &&
	    (!(h->present & EW_CFG_MODE) || w->mode != h->mode) &&
	    (w->mode == EASTWEST_MODE_ENFORCE) == stricter)
		mask |= EW_CFG_MODE;
	if ((w->present & EW_CFG_DEFAULT) &&
	    (!(h->present & EW_CFG_DEFAULT) || w->default_action != h->default_action) &&
	    (w->default_action == EASTWEST_DEFAULT_ACTION_DENY) == stricter)
		mask |= EW_CFG_DEFAULT;
	if (!mask)
		return;
	s = add_step(plan, EW_STEP_CONFIG_SET, 0, "");
	s->mask = mask;
	s->config = *w;
}

/* The unmatched jobs of @have in @which that are (not) @keyed. */
static void add_deletions(const struct ew_state *have, const bool *taken, const bool *room,
			  bool early, int keyed, struct ew_plan *plan)
{
	size_t j;

	for (j = 0; j < have->n_jobs; j++) {
		if (taken[j] || room[j] != early)
			continue;
		if (keyed >= 0 && (have->jobs[j].psn == EASTWEST_PSN_KEYED) != keyed)
			continue;
		add_step(plan, EW_STEP_JOB_DEL, have->jobs[j].id, have->jobs[j].name);
	}
}

/**
 * ew_plan_build() - the steps from @have to @want
 * @want: the desired state (from a policy file)
 * @have: the current state (from the kernel, with peers)
 * @plan: the steps, appended
 *
 * Only what @want manages is compared: the jobs if want->has_jobs, the
 * configuration attributes present in want->config if want->has_config.
 */
void ew_plan_build(const struct ew_state *want, const struct ew_state *have,
		   struct ew_plan *plan)
{
	ssize_t *pair = NULL;		/* want index -> have index, or -1 */
	bool *taken = NULL;		/* have index is paired */
	bool *room = NULL;		/* have index is deleted in step 4 */
	struct ew_peers *adds = NULL;	/* want index -> peers to add */
	size_t *by_id, *by_name;	/* have indexes sorted by id, by name */
	size_t i, j;

	/* 1. A stricter configuration. */
	add_config(want, have, plan, true);
	if (!want->has_jobs)
		goto config;

	pair = ew_calloc(want->n_jobs ? want->n_jobs : 1, sizeof(*pair));
	taken = ew_calloc(have->n_jobs ? have->n_jobs : 1, sizeof(*taken));
	adds = ew_calloc(want->n_jobs ? want->n_jobs : 1, sizeof(*adds));
	by_id = sorted_have(have, have_cmp_id);
	by_name = sorted_have(have, have_cmp_name);
	for (i = 0; i < want->n_jobs; i++) {
		pair[i] = -1;
		if (!(want->jobs[i].present & EW_JOB_ID))
			continue;
		j = find_have(have, by_id, &want->jobs[i], have_cmp_id);
		if (j < have->n_jobs && !taken[j]) {
			pair[i] = (ssize_t)j;
			taken[j] = true;
		}
	}
	for (i = 0; i < want->n_jobs; i++) {
		if (pair[i] >= 0)
			continue;
		j = find_have(have, by_name, &want->jobs[i], have_cmp_name);
		if (j >= have->n_jobs || taken[j])
			continue;
		/* Same name, another id: recreate (delete, then new). */
		if (!(want->jobs[i].present & EW_JOB_ID))
			pair[i] = (ssize_t)j;
		taken[j] = !(want->jobs[i].present & EW_JOB_ID);
	}
	free(by_id);
	free(by_name);
	room = room_deletions(want, have, taken);

	/* 2. Peers that jobs lose. */
	for (i = 0; i < want->n_jobs; i++) {
		struct ew_peers del = { 0 };

		if (pair[i] < 0)
			continue;
		ew_peers_diff(&want->jobs[i].peers, &have->jobs[pair[i]].peers, &adds[i], &del);
		add_peers(plan, EW_STEP_PEER_DEL, &want->jobs[i], have->jobs[pair[i]].id, &del);
	}

	/*
	 * 3. Jobs that lose cgroups: only the cgroups they keep, and the
	 * other settings (their peers are now those both lists have) but a
	 * new name, which a job deleted in step 4 may hold, and the PSN key
	 * that goes with it.
	 */
	for (i = 0; i < want->n_jobs; i++) {
		const struct ew_job_desc *w = &want->jobs[i], *h;
		uint32_t mask;

		if (pair[i] < 0)
			continue;
		h = &have->jobs[pair[i]];
		mask = (ew_job_diff(w, h) & ~late_bits(w, h)) | EW_JOB_CGROUPS;
		if (psn_unkeyed(w, h))
			mask &= ~EW_JOB_PSN;
		if (cgroups_beyond(h, w))
			add_set(plan, w, h, mask, h);
	}

	/* 4. Deletions that free a name or a cgroup a desired job takes. */
	add_deletions(have, taken, room, true, -1, plan);

	/* 5. The other changes and the cgroups gained, then the peers gained. */
	for (i = 0; i < want->n_jobs; i++) {
		const struct ew_job_desc *w = &want->jobs[i], *h;
		uint32_t mask;

		if (pair[i] < 0)
			continue;
		h = &have->jobs[pair[i]];
		mask = ew_job_diff(w, h);
		if (cgroups_beyond(h, w))
			mask &= late_bits(w, h);
		if (!cgroups_beyond(w, h))
			mask &= ~EW_JOB_CGROUPS;
		if (psn_unkeyed(w, h))
			mask &= ~EW_JOB_PSN;
		if (mask)
			add_set(plan, w, h, mask, NULL);
		add_peers(plan, EW_STEP_PEER_ADD, w, h->id, &adds[i]);
	}

	/* 6. New jobs. */
	for (i = 0; i < want->n_jobs; i++) {
		struct ew_step *s;

		if (pair[i] >= 0)
			continue;
		s = add_step(plan, EW_STEP_JOB_NEW, want->jobs[i].id, want->jobs[i].name);
		s->src = &want->jobs[i];
	}

	/* 7. Deletions that free nothing, but of keyed jobs. */
	add_deletions(have, taken, room, false, false, plan);

config:
	/* 8. A looser configuration. */
	add_config(want, have, plan, false);

	/* 9. The changes that cannot be undone: keyed PSNs given up, keyed jobs deleted. */
	if (!want->has_jobs)
		goto out;
	for (i = 0; i < want->n_jobs; i++)
		if (pair[i] >= 0 && psn_unkeyed(&want->jobs[i], &have->jobs[pair[i]]))
			add_set(plan, &want->jobs[i], &have->jobs[pair[i]], EW_JOB_PSN, NULL);
	add_deletions(have, taken, room, false, true, plan);
out:
	free(pair);
	free(taken);
	free(room);
	free(adds);
}

/**
 * ew_step_refused() - why the kernel would refuse a step, if it surely would
 * @s: the step
 *
 * Keyed PSNs need a key (given now, or held by the job), and a key needs
 * keyed PSNs: the module's own check, made before the first request. A
 * step that sets PSNs keyed without a key is one that restores a job the
 * kernel reported, which never includes the key.
 *
 * Return: the reason, or NULL.
 */
const char *ew_step_refused(const struct ew_step *s)
{
	const struct ew_job_desc *j = s->op == EW_STEP_JOB_NEW ? s->src : &s->job;
	uint32_t mask = s->op == EW_STEP_JOB_NEW ? s->src->present : s->mask;

	if (s->op != EW_STEP_JOB_NEW && s->op != EW_STEP_JOB_SET)
		return NULL;
	if ((mask & EW_JOB_PSN) && j->psn == EASTWEST_PSN_KEYED && !(mask & EW_JOB_PSN_KEY))
		return "keyed PSNs need a psn-key";
	if ((mask & EW_JOB_PSN_KEY) && j->psn != EASTWEST_PSN_KEYED)
		return "a psn-key needs psn keyed";
	return NULL;
}

/*
 * Whether the node's state @have is still @seen (read earlier): the plan
 * from one to the other is empty. Jobs match by id, so a job deleted and
 * made again under its name is a change too.
 */
bool ew_state_unchanged(const struct ew_state *seen, const struct ew_state *have)
{
	struct ew_plan plan = { 0 };
	bool same;

	ew_plan_build(seen, have, &plan);
	same = !plan.n;
	ew_plan_free(&plan);
	return same;
}

void ew_plan_free(struct ew_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->n; i++) {
		ew_job_free(&plan->steps[i].job);
		ew_peers_free(&plan->steps[i].peers);
	}
	free(plan->steps);
	memset(plan, 0, sizeof(*plan));
}
