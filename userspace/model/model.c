// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs, peer lists and node state: construction, canonical order, freeing.
 *
 * Lists are sets: ew_job_normalize() sorts them and drops duplicates, so two
 * jobs compare equal whatever order the kernel or a file gave them in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ewctl.h"
#include "model/model.h"
#include "model/parse.h"

void ew_peers_add(struct ew_peers *ps, const struct ew_peer_addr *p)
{
	EW_GROW(ps->v, ps->n, ps->cap);
	ps->v[ps->n++] = *p;
}

void ew_peers_sort_unique(struct ew_peers *ps)
{
	size_t i, o = 0;

	if (ps->n < 2)
		return;
	/*
	 * Already sorted and unique (a policy saved by "show -j", a generated
	 * range): one pass instead of a sort.
	 */
	for (i = 1; i < ps->n && ew_peer_cmp(&ps->v[i - 1], &ps->v[i]) < 0; i++)
		;
	if (i == ps->n)
		return;
	qsort(ps->v, ps->n, sizeof(*ps->v), ew_peer_cmp);
	for (i = 0; i < ps->n; i++)
		if (!o || ew_peer_cmp(&ps->v[o - 1], &ps->v[i]))
			ps->v[o++] = ps->v[i];
	ps->n = o;
}

void ew_peers_free(struct ew_peers *ps)
{
	free(ps->v);
	memset(ps, 0, sizeof(*ps));
}

void ew_job_init(struct ew_job_desc *job)
{
	memset(job, 0, sizeof(*job));
}

void ew_job_free(struct ew_job_desc *job)
{
	size_t i;

	for (i = 0; i < job->n_cgroups; i++)
		free(job->cgroups[i].path);
	free(job->cgroups);
	free(job->netdevs);
	free(job->pkeys);
	ew_peers_free(&job->peers);
	explicit_bzero(job->psn_key, sizeof(job->psn_key));
	free(job->psn_keyfile);
	ew_job_init(job);
}

void ew_job_add_cgroup(struct ew_job_desc *job, const char *path, uint64_t id)
{
	EW_GROW(job->cgroups, job->n_cgroups, job->cap_cgroups);
	job->cgroups[job->n_cgroups].path = ew_strdup(path);
	job->cgroups[job->n_cgroups].id = id;
	job->n_cgroups++;
}

void ew_job_add_netdev(struct ew_job_desc *job, uint32_t kind, uint32_t value,
		       const char *name)
{
	struct ew_netdev *nd;

	EW_GROW(job->netdevs, job->n_netdevs, job->cap_netdevs);
	nd = &job->netdevs[job->n_netdevs++];
	memset(nd, 0, sizeof(*nd));
	nd->kind = kind;
	nd->value = value;
	if (name)
		snprintf(nd->name, sizeof(nd->name), "%s", name);
}

void ew_job_add_pkey(struct ew_job_desc *job, uint16_t pkey)
{
	EW_GROW(job->pkeys, job->n_pkeys, job->cap_pkeys);
	job->pkeys[job->n_pkeys++] = pkey;
}

int ew_cgroup_cmp(const void *a, const void *b)
{
	const struct ew_cgroup *x = a, *y = b;

	return strcmp(x->path, y->path);
}

int ew_netdev_cmp(const void *a, const void *b)
{
	const struct ew_netdev *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return 0;
}

static int pkey_cmp(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* Sorts every list of @job and drops duplicates. */
void ew_job_normalize(struct ew_job_desc *job)
{
	size_t i, o;

	if (job->n_cgroups > 1) {
		qsort(job->cgroups, job->n_cgroups, sizeof(*job->cgroups),
		      ew_cgroup_cmp);
		for (i = 0, o = 0; i < job->n_cgroups; i++) {
			if (o && !ew_cgroup_cmp(&job->cgroups[o - 1], &job->cgroups[i]))
				free(job->cgroups[i].path);
			else
				job->cgroups[o++] = job->cgroups[i];
		}
		job->n_cgroups = o;
	}
	if (job->n_netdevs > 1) {
		qsort(job->netdevs, job->n_netdevs, sizeof(*job->netdevs),
		      ew_netdev_cmp);
		for (i = 0, o = 0; i < job->n_netdevs; i++)
			if (!o || ew_netdev_cmp(&job->netdevs[o - 1], &job->netdevs[i]))
				job->netdevs[o++] = job->netdevs[i];
		job->n_netdevs = o;
	}
	if (job->n_pkeys > 1) {
		qsort(job->pkeys, job->n_pkeys, sizeof(*job->pkeys), pkey_cmp);
		for (i = 0, o = 0; i < job->n_pkeys; i++)
			if (!o || job->pkeys[o - 1] != job->pkeys[i])
				job->pkeys[o++] = job->pkeys[i];
		job->n_pkeys = o;
	}
	ew_peers_sort_unique(&job->peers);
}

/*
 * A job as the kernel holds it: what it does not report, and what a policy
 * file leaves out, has the default value (enforce, no encryption, no Q_Key,
 * no UD or driver QPs, empty lists).
 */
void ew_job_fill_defaults(struct ew_job_desc *job)
{
	if (!(job->present & EW_JOB_MODE))
		job->mode = EASTWEST_MODE_ENFORCE;
	if (!(job->present & EW_JOB_ENCRYPT))
		job->encrypt = EASTWEST_ENCRYPT_NONE;
	if (!(job->present & EW_JOB_QKEY))
		job->qkey = 0;
	if (!(job->present & EW_JOB_UD))
		job->ud = false;
	if (!(job->present & EW_JOB_DC))
		job->dc = false;
	if (!(job->present & EW_JOB_PSN))
		job->psn = EASTWEST_PSN_APP;
	job->present |= EW_JOB_MODE | EW_JOB_ENCRYPT | EW_JOB_QKEY |
			EW_JOB_CGROUPS | EW_JOB_NETDEVS | EW_JOB_PKEYS |
			EW_JOB_UD | EW_JOB_DC | EW_JOB_PSN;
}

struct ew_job_desc *ew_state_add_job(struct ew_state *st)
{
	struct ew_job_desc *job;

	EW_GROW(st->jobs, st->n_jobs, st->cap_jobs);
	job = &st->jobs[st->n_jobs++];
	ew_job_init(job);
	return job;
}

struct ew_job_desc *ew_state_find_id(const struct ew_state *st, uint32_t id)
{
	size_t i;

	for (i = 0; i < st->n_jobs; i++)
		if (st->jobs[i].id == id)
			return &st->jobs[i];
	return NULL;
}

void ew_state_free(struct ew_state *st)
{
	size_t i;

	for (i = 0; i < st->n_jobs; i++)
		ew_job_free(&st->jobs[i]);
	free(st->jobs);
	free(st->config.revoked);
	memset(st, 0, sizeof(*st));
}

void ew_devs_free(struct ew_devs *devs)
{
	size_t i, j;

	for (i = 0; i < devs->n; i++) {
		for (j = 0; j < devs->v[i].n_ports; j++) {
			free(devs->v[i].ports[j].gids);
			free(devs->v[i].ports[j].pkeys);
		}
		free(devs->v[i].ports);
	}
	free(devs->v);
	memset(devs, 0, sizeof(*devs));
}
