// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs: their table (by id), their cgroup bindings (by cgroup id) and their
 * lifetimes.
 *
 * DOC: Locking - every writer holds ew_config_lock. Decisions find a job
 * from the caller's cgroup under rcu_read_lock() and read its policy with
 * rcu_dereference(). A job is published only once complete (peers first,
 * then its id, then its bindings) and unpublished in reverse before it is
 * torn down, so a decision never sees a half-built or half-freed job.
 * Jobs are freed after a grace period (call_rcu): nothing holds one beyond
 * an RCU read section, so there is no reference count.
 *
 * Jobs are indexed by id in an xarray (RCU lookups, and dumps resume from
 * the last id in O(log n)) and by name in a hash table (writers only), so
 * that creating the 10,000th job costs what creating the first did.
 */

#include <linux/cgroup.h>
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>
#include <linux/xarray.h>

#include "compat.h"
#include "config.h"
#include "fault.h"
#include "job.h"
#include "peers.h"

#define EW_JOB_NAME_HASH_BITS	12
#define EW_CGROUP_HASH_BITS	10

static DEFINE_XARRAY(ew_jobs_by_id);
static DEFINE_HASHTABLE(ew_jobs_by_name, EW_JOB_NAME_HASH_BITS);
static DEFINE_HASHTABLE(ew_bindings_by_cgid, EW_CGROUP_HASH_BITS);
static unsigned int ew_job_count;
static unsigned long ew_job_generation;
static u32 ew_job_next_id = 1;

/**
 * ew_job_spec_init() - an empty request
 * @spec: the spec
 */
void ew_job_spec_init(struct ew_job_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	INIT_LIST_HEAD(&spec->cgroups);
}

/**
 * ew_job_spec_release() - free what the spec still owns
 * @spec: the spec
 */
void ew_job_spec_release(struct ew_job_spec *spec)
{
	struct ew_binding *b, *tmp;

	list_for_each_entry_safe(b, tmp, &spec->cgroups, job_list) {
		list_del(&b->job_list);
		kfree(b);
	}
	spec->n_cgroups = 0;
	spec->cgroup_paths_len = 0;
	memzero_explicit(&spec->psn_key, sizeof(spec->psn_key));
}

/**
 * ew_job_spec_add_cgroup() - resolve a cgroup v2 path into a binding
 * @spec: the spec
 * @path: path below the cgroup v2 root
 * @extack: error report
 *
 * Context: process context, may sleep.
 */
int ew_job_spec_add_cgroup(struct ew_job_spec *spec, const char *path,
			   struct netlink_ext_ack *extack)
{
	struct ew_binding *b, *other;
	struct cgroup *cgrp;
	size_t len;

	if (spec->n_cgroups >= EW_MAX_CGROUPS) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "too many cgroups (max %d)",
				       EW_MAX_CGROUPS);
		return -E2BIG;
	}
	if (path[0] != '/') {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "cgroup path must start with '/': %s",
				       path);
		return -EINVAL;
	}
	len = strlen(path) + 1;
	if (spec->cgroup_paths_len + len > EW_MAX_CGROUP_PATHS_LEN) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "the job's cgroup paths take more than %d bytes together",
				       EW_MAX_CGROUP_PATHS_LEN);
		return -E2BIG;
	}
	cgrp = cgroup_get_from_path(path);
	if (IS_ERR(cgrp)) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "no cgroup v2 %s", path);
		return PTR_ERR(cgrp);
	}
	b = kzalloc(struct_size(b, path, len), GFP_KERNEL);
	EW_FAIL_ALLOC(b, kfree(b));
	if (!b) {
		cgroup_put(cgrp);
		return -ENOMEM;
	}
	b->cgid = cgroup_id(cgrp);
	cgroup_put(cgrp);
	memcpy(b->path, path, len);

	list_for_each_entry(other, &spec->cgroups, job_list) {
		if (other->cgid == b->cgid) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "cgroup %s given twice",
					       path);
			kfree(b);
			return -EINVAL;
		}
	}
	list_add_tail(&b->job_list, &spec->cgroups);
	spec->n_cgroups++;
	spec->cgroup_paths_len += len;
	return 0;
}

/**
 * ew_job_find() - a job by id
 * @id: job id
 *
 * Context: holds ew_config_lock or rcu_read_lock().
 */
struct ew_job *ew_job_find(u32 id)
{
	return xa_load(&ew_jobs_by_id, id);
}

/**
 * ew_job_name_check() - whether @name may name a job
 * @name: a NUL-terminated name
 *
 * The grammar eastwestctl, its policy files and the orchestrator hooks
 * read and write names in: 1..63 characters of [A-Za-z0-9_.:@+=-], not
 * starting with '-' (an option to the tools), not "id" (their "id N"
 * reference). A name outside it, made by another netlink client, could
 * not be named, deleted or saved and restored by the tools.
 *
 * Return: NULL, or what is wrong with the name.
 */
const char *ew_job_name_check(const char *name)
{
	const char *p;

	if (!*name)
		return "job name is empty";
	if (name[0] == '-')
		return "job name must not start with '-'";
	if (!strcmp(name, "id"))
		return "job name \"id\" is reserved";
	/* ASCII ranges: the kernel's isalnum() takes Latin-1 letters too. */
	for (p = name; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && !strchr("_.:@+=-", *p))
			return "job names may only contain letters, digits and _ . : @ + = -";
	return NULL;
}

static u32 ew_job_name_hash(const char *name)
{
	return full_name_hash(NULL, name, strlen(name));
}

/**
 * ew_job_find_by_name() - a job by name
 * @name: job name
 *
 * Context: holds ew_config_lock (names are a management-plane convenience,
 * never looked up by decisions).
 */
struct ew_job *ew_job_find_by_name(const char *name)
{
	struct ew_job *job;

	lockdep_assert_held(&ew_config_lock);
	hash_for_each_possible(ew_jobs_by_name, job, name_node,
			       ew_job_name_hash(name))
		if (!strcmp(job->name, name))
			return job;
	return NULL;
}

static struct ew_binding *ew_binding_find(u64 cgid)
{
	struct ew_binding *b;

	hash_for_each_possible_rcu(ew_bindings_by_cgid, b, cg_node, cgid,
				   lockdep_is_held(&ew_config_lock))
		if (b->cgid == cgid)
			return b;
	return NULL;
}

/**
 * ew_job_lookup_by_cgroup() - the job of a cgroup or of its nearest ancestor
 * @cgrp: the caller's cgroup v2 (task_dfl_cgroup(current))
 * @cgid: receives the id of @cgrp (for reports)
 *
 * Context: rcu_read_lock(). Cost: one hash probe per level of nesting.
 */
struct ew_job *ew_job_lookup_by_cgroup(struct cgroup *cgrp, u64 *cgid)
{
	struct ew_binding *b;

	*cgid = cgroup_id(cgrp);
	for (; cgrp; cgrp = cgroup_parent(cgrp)) {
		b = ew_binding_find(cgroup_id(cgrp));
		if (b)
			return READ_ONCE(b->job);
	}
	return NULL;
}

/**
 * ew_job_policy() - a job's current rules
 * @job: the job
 *
 * Context: rcu_read_lock() or ew_config_lock.
 */
struct ew_job_policy *ew_job_policy(const struct ew_job *job)
{
	return rcu_dereference_check(job->policy,
				     lockdep_is_held(&ew_config_lock));
}

/* A policy may hold the job's PSN key: never left in freed memory. */
static void ew_policy_free(struct ew_job_policy *pol)
{
	kfree_sensitive(pol);
}

static void ew_policy_free_rcu(struct rcu_head *rcu)
{
	ew_policy_free(container_of(rcu, struct ew_job_policy, rcu));
}

static void ew_job_free_rcu(struct rcu_head *rcu)
{
	struct ew_job *job = container_of(rcu, struct ew_job, rcu);

	ew_policy_free(rcu_dereference_protected(job->policy, 1));
	free_percpu(job->counters);
	kfree(job);
}

static void ew_policy_apply_spec(struct ew_job_policy *pol,
				 const struct ew_job_spec *spec)
{
	if (spec->has_mode)
		pol->mode = spec->mode;
	if (spec->has_encrypt)
		pol->encrypt = spec->encrypt;
	if (spec->has_qkey)
		pol->qkey = spec->qkey;
	if (spec->has_ud)
		pol->ud = spec->ud;
	if (spec->has_dc)
		pol->dc = spec->dc;
	if (spec->has_psn_key) {
		pol->psn_key = spec->psn_key;
		/* A key by value has no run: an earlier key's goes. */
		strscpy(pol->psn_run, spec->has_psn_run ? spec->psn_run : "",
			sizeof(pol->psn_run));
	}
	if (spec->has_psn) {
		pol->psn = spec->psn;
		if (pol->psn == EASTWEST_PSN_APP) {
			memzero_explicit(&pol->psn_key, sizeof(pol->psn_key));
			pol->psn_run[0] = '\0';
		}
	}
	if (spec->has_netdevs) {
		pol->n_netdevs = spec->n_netdevs;
		memcpy(pol->netdevs, spec->netdevs,
		       spec->n_netdevs * sizeof(spec->netdevs[0]));
	}
	if (spec->has_pkeys) {
		pol->n_pkeys = spec->n_pkeys;
		memcpy(pol->pkeys, spec->pkeys,
		       spec->n_pkeys * sizeof(spec->pkeys[0]));
	}
}

/*
 * Keyed PSNs need a key, and a key means keyed PSNs: @had_key says whether
 * the job's current rules hold one.
 */
static int ew_psn_check(const struct ew_job_spec *spec, u32 psn, bool had_key,
			struct netlink_ext_ack *extack)
{
	if (psn == EASTWEST_PSN_KEYED && !spec->has_psn_key && !had_key) {
		NL_SET_ERR_MSG_MOD(extack, "keyed PSNs need a psn-key");
		return -EINVAL;
	}
	if (psn == EASTWEST_PSN_APP && spec->has_psn_key) {
		NL_SET_ERR_MSG_MOD(extack, "a psn-key needs psn keyed");
		return -EINVAL;
	}
	if (spec->has_psn_run && !spec->has_psn_key) {
		NL_SET_ERR_MSG_MOD(extack, "a psn-run comes with the psn-key derived for it");
		return -EINVAL;
	}
	return 0;
}

/* Every cgroup of @spec must be free or already bound to @self. */
static int ew_bindings_check(const struct ew_job_spec *spec,
			     const struct ew_job *self,
			     struct netlink_ext_ack *extack)
{
	struct ew_binding *b, *other;

	list_for_each_entry(b, &spec->cgroups, job_list) {
		other = ew_binding_find(b->cgid);
		if (other && other->job != self) {
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "cgroup %s already belongs to job %u (%s)",
					       b->path, other->job->id,
					       other->job->name);
			return -EBUSY;
		}
	}
	return 0;
}

static void ew_bindings_publish(struct ew_job *job, struct ew_job_spec *spec)
{
	struct ew_binding *b, *tmp;

	list_for_each_entry_safe(b, tmp, &spec->cgroups, job_list) {
		b->job = job;
		list_move_tail(&b->job_list, &job->bindings);
		hash_add_rcu(ew_bindings_by_cgid, &b->cg_node, b->cgid);
		job->n_bindings++;
	}
	spec->n_cgroups = 0;
}

static void ew_bindings_drop(struct list_head *bindings)
{
	struct ew_binding *b, *tmp;

	list_for_each_entry_safe(b, tmp, bindings, job_list) {
		hash_del_rcu(&b->cg_node);
		list_del(&b->job_list);
		kfree_rcu(b, rcu);
	}
}

static void ew_bindings_unpublish(struct ew_job *job)
{
	ew_bindings_drop(&job->bindings);
	job->n_bindings = 0;
}

static bool ew_job_id_free(u32 id)
{
	return id && !ew_job_find(id);
}

/**
 * ew_job_create() - create and publish a job, all or nothing
 * @spec: the request; its cgroups are consumed on success
 * @extack: error report
 * @id: receives the job id
 *
 * Context: holds ew_config_lock.
 */
int ew_job_create(struct ew_job_spec *spec, struct netlink_ext_ack *extack,
		  u32 *id)
{
	struct ew_job_policy *pol;
	unsigned int failed_at;
	struct ew_job *job;
	int ret;

	lockdep_assert_held(&ew_config_lock);

	if (!spec->has_name) {
		NL_SET_ERR_MSG_MOD(extack, "a new job needs a name");
		return -EINVAL;
	}
	if (ew_job_find_by_name(spec->name)) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "job %s exists", spec->name);
		return -EEXIST;
	}
	if (spec->id && ew_job_find(spec->id)) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "job id %u exists", spec->id);
		return -EEXIST;
	}
	if (!spec->id) {
		/* Skip ids in use; the id space (2^32) cannot run out first. */
		while (!ew_job_id_free(ew_job_next_id))
			ew_job_next_id++;
		spec->id = ew_job_next_id++;
	}
	if (spec->peers) {
		unsigned int i;

		for (i = 0; i < spec->peers->n; i++)
			spec->peers->keys[i].job_id = spec->id;
	}
	ret = ew_bindings_check(spec, NULL, extack);
	if (ret)
		return ret;
	ret = ew_psn_check(spec, spec->has_psn ? spec->psn : EASTWEST_PSN_APP,
			   false, extack);
	if (ret)
		return ret;

	/* The id's slot, so that publishing the job below cannot fail. */
	ret = EW_FAIL_CALL(xa_reserve(&ew_jobs_by_id, spec->id, GFP_KERNEL));
	if (ret)
		return ret;
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	EW_FAIL_ALLOC(job, kfree(job));
	pol = kzalloc(sizeof(*pol), GFP_KERNEL);
	EW_FAIL_ALLOC(pol, kfree(pol));
	if (!job || !pol)
		goto err_nomem;
	job->counters = alloc_percpu(struct ew_counters);
	EW_FAIL_ALLOC(job->counters, free_percpu(job->counters));
	if (!job->counters)
		goto err_nomem;

	job->id = spec->id;
	strscpy(job->name, spec->name, sizeof(job->name));
	INIT_LIST_HEAD(&job->bindings);
	ew_policy_apply_spec(pol, spec);
	RCU_INIT_POINTER(job->policy, pol);

	if (spec->peers) {
		ret = ew_peers_add(job, spec->peers, &failed_at);
		if (ret) {
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "cannot add peer %u: out of memory",
					       failed_at);
			goto err_free;
		}
	}

	xa_store(&ew_jobs_by_id, job->id, job, GFP_KERNEL);
	hash_add(ew_jobs_by_name, &job->name_node, ew_job_name_hash(job->name));
	ew_bindings_publish(job, spec);
	ew_job_count++;
	ew_job_generation++;
	*id = job->id;
	return 0;

err_nomem:
	ret = -ENOMEM;
err_free:
	if (job && job->counters)
		free_percpu(job->counters);
	ew_policy_free(pol);
	kfree(job);
	xa_release(&ew_jobs_by_id, spec->id);
	return ret;
}

/**
 * ew_job_change() - apply the attributes present in @spec to a job
 * @job: the job
 * @spec: the request; its cgroups are consumed on success
 * @extack: error report
 *
 * The new rules replace the old ones in one RCU pointer swap, so no
 * decision sees a mix. Context: holds ew_config_lock.
 */
int ew_job_change(struct ew_job *job, struct ew_job_spec *spec,
		  struct netlink_ext_ack *extack)
{
	struct ew_job_policy *old, *pol;
	struct ew_job *named;
	int ret;

	lockdep_assert_held(&ew_config_lock);

	if (spec->has_name) {
		named = ew_job_find_by_name(spec->name);
		if (named && named != job) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "job %s exists",
					       spec->name);
			return -EEXIST;
		}
	}
	if (spec->has_cgroups) {
		ret = ew_bindings_check(spec, job, extack);
		if (ret)
			return ret;
	}

	old = ew_job_policy(job);
	ret = ew_psn_check(spec, spec->has_psn ? spec->psn : old->psn,
			   old->psn == EASTWEST_PSN_KEYED, extack);
	if (ret)
		return ret;
	pol = kmemdup(old, sizeof(*old), GFP_KERNEL);
	EW_FAIL_ALLOC(pol, ew_policy_free(pol));
	if (!pol)
		return -ENOMEM;
	ew_policy_apply_spec(pol, spec);
	/*
	 * A key derived for the old name is not the new name's: its run would
	 * have whoever derives the key again (a restore) derive another.
	 */
	if (spec->has_name && strcmp(job->name, spec->name) && !spec->has_psn_key)
		pol->psn_run[0] = '\0';

	/* Nothing can fail from here on. */
	if (spec->has_name && strcmp(job->name, spec->name)) {
		hash_del(&job->name_node);
		strscpy(job->name, spec->name, sizeof(job->name));
		hash_add(ew_jobs_by_name, &job->name_node,
			 ew_job_name_hash(job->name));
	}
	rcu_assign_pointer(job->policy, pol);
	call_rcu(&old->rcu, ew_policy_free_rcu);
	if (spec->has_cgroups) {
		LIST_HEAD(old_bindings);

		/*
		 * New bindings first: a cgroup on both lists is found through
		 * one or the other, never in no job.
		 */
		list_splice_init(&job->bindings, &old_bindings);
		job->n_bindings = 0;
		ew_bindings_publish(job, spec);
		ew_bindings_drop(&old_bindings);
	}
	job->generation++;
	ew_job_generation++;
	return 0;
}

/**
 * ew_job_delete() - unpublish a job and drop the table's reference
 * @job: the job
 *
 * Context: holds ew_config_lock; sleeps.
 */
void ew_job_delete(struct ew_job *job)
{
	lockdep_assert_held(&ew_config_lock);

	ew_bindings_unpublish(job);
	xa_erase(&ew_jobs_by_id, job->id);
	hash_del(&job->name_node);
	ew_peers_flush(job);
	ew_job_count--;
	ew_job_generation++;
	call_rcu(&job->rcu, ew_job_free_rcu);
}

/**
 * ew_jobs_flush() - delete every job (module unload)
 *
 * Context: holds ew_config_lock.
 */
void ew_jobs_flush(void)
{
	unsigned long id;
	struct ew_job *job;

	xa_for_each(&ew_jobs_by_id, id, job)
		ew_job_delete(job);
}

/*
 * While any job exists the module holds a reference to itself, so that
 * rmmod is refused (EBUSY) instead of silently dropping every job's
 * isolation: unloading takes deleting the jobs first, which revokes their
 * QPs and is logged.
 */
static bool ew_jobs_pinned;

/**
 * ew_jobs_pin_update() - hold the module while jobs exist, release it after
 *
 * Called after every operation that creates or deletes jobs, once their
 * QPs are revoked (a revoker must not run in a module that is going).
 * Context: holds ew_config_lock.
 */
void ew_jobs_pin_update(void)
{
	lockdep_assert_held(&ew_config_lock);
	if (ew_job_count && !ew_jobs_pinned) {
		__module_get(THIS_MODULE);
		ew_jobs_pinned = true;
	} else if (!ew_job_count && ew_jobs_pinned) {
		ew_jobs_pinned = false;
		module_put(THIS_MODULE);
	}
}

/**
 * ew_jobs_count() - number of jobs
 */
unsigned int ew_jobs_count(void)
{
	return READ_ONCE(ew_job_count);
}

/**
 * ew_jobs_generation() - changes whenever a job is created, changed or deleted
 */
unsigned long ew_jobs_generation(void)
{
	return READ_ONCE(ew_job_generation);
}

/**
 * ew_jobs_changed() - a job's dumped attributes (e.g. its peer count)
 * changed: flag job dumps in progress as inconsistent
 *
 * Context: holds ew_config_lock.
 */
void ew_jobs_changed(void)
{
	lockdep_assert_held(&ew_config_lock);
	ew_job_generation++;
}

/**
 * ew_job_next() - the job with the smallest id greater than @after_id
 * @after_id: 0 for the first
 *
 * Dumps resume from the last id they sent, so jobs created or deleted in
 * between neither repeat nor shift others, and a whole dump costs
 * O(n log n) however many rounds it takes. Context: holds ew_config_lock.
 */
struct ew_job *ew_job_next(u32 after_id)
{
	unsigned long index = after_id;

	lockdep_assert_held(&ew_config_lock);
	return xa_find_after(&ew_jobs_by_id, &index, U32_MAX, XA_PRESENT);
}
