// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: Operations
 *
 * What a change of the configuration does to the QPs that live under it,
 * in one place. The netlink handlers parse a request, call one of these
 * with ew_config_lock held and reply; the KUnit suite eastwest-ops runs
 * them against the job store with the QP records stubbed out.
 *
 * - A deleted job's QPs die: its processes are in no job from the moment
 *   the job is gone from the tables, so its live QPs are moved to the error
 *   state after the delete (ew_qp_revoke_job() by the id, the job itself
 *   may already be waiting for its RCU grace period), and the module's
 *   pin follows the number of jobs.
 * - A job whose rules were changed, or that lost peers, has each of its
 *   live QPs judged again by the new rules (ew_qp_revalidate_job()), after
 *   they are published; a refused change or removal judges nothing.
 *   Added peers only allow more: nothing to re-judge, unless the add
 *   failed: a batch's peers are published one by one, so a decision may
 *   have read one that the failure then took back.
 * - Revoking other nodes re-judges every live QP (ew_qp_revalidate_all());
 *   admitting them again allows more.
 * - Setting the global mode from audit to enforce re-judges every live QP
 *   too: what audit mode let through (a connect to a stranger, onto
 *   another job's QP) was recorded, and must not outlive it.
 * - Connected QPs without records (made by processes in no job, which
 *   nothing judged) are revoked once their owners are policed and
 *   enforced: after enforce mode begins, default deny begins under it, a
 *   job is created, or a job's cgroups change or it is set to enforce
 *   (ew_qp_revoke_unrecorded(); threat-model.md, A9). Other changes of
 *   the global settings allow more.
 *
 * The admission gate's own transitions are admission.c's.
 */

#include <linux/lockdep.h>
#include <linux/mutex.h>

#include "config.h"
#include "job.h"
#include "nodes.h"
#include "ops.h"
#include "peers.h"
#include "qptrack.h"

/**
 * ew_op_job_add() - create a job; revoke what its processes connected
 * before it existed
 * @spec: the parsed job (its peers in @spec->peers)
 * @extack: where a refusal is explained
 * @id: the new job's id
 *
 * Context: ew_config_lock held.
 * Return: 0, or ew_job_create()'s error (nothing created).
 */
int ew_op_job_add(struct ew_job_spec *spec, struct netlink_ext_ack *extack,
		  u32 *id)
{
	int ret;

	lockdep_assert_held(&ew_config_lock);
	ret = ew_job_create(spec, extack, id);
	if (ret)
		return ret;
	ew_jobs_pin_update();
	ew_qp_revoke_unrecorded();
	return 0;
}

/**
 * ew_op_job_change() - change a job's rules, then re-judge its live QPs
 * @job: the job
 * @spec: the attributes to change
 * @extack: where a refusal is explained
 *
 * Context: ew_config_lock held.
 * Return: 0, or ew_job_change()'s error (nothing changed, nothing judged).
 */
int ew_op_job_change(struct ew_job *job, struct ew_job_spec *spec,
		     struct netlink_ext_ack *extack)
{
	int ret;

	lockdep_assert_held(&ew_config_lock);
	ret = ew_job_change(job, spec, extack);
	if (ret)
		return ret;
	ew_qp_revalidate_job(job);
	if (spec->has_cgroups ||
	    (spec->has_mode && spec->mode == EASTWEST_MODE_ENFORCE))
		ew_qp_revoke_unrecorded();
	return 0;
}

/**
 * ew_op_job_delete() - delete a job; its live QPs die
 * @job: the job (found under ew_config_lock)
 *
 * Context: ew_config_lock held.
 */
void ew_op_job_delete(struct ew_job *job)
{
	u32 id = job->id;

	lockdep_assert_held(&ew_config_lock);
	ew_job_delete(job);
	ew_qp_revoke_job(id);
	ew_jobs_pin_update();
}

/**
 * ew_op_peers_add() - add peers to a job (all or none); a failed add
 * re-judges the job's live QPs
 * @job: the job
 * @batch: the parsed peers
 * @failed_at: the index of the peer that could not be added
 *
 * Context: ew_config_lock held.
 * Return: 0, or ew_peers_add()'s error (nothing added, and nothing that a
 * decision read of the batch in the meantime stays).
 */
int ew_op_peers_add(struct ew_job *job, const struct ew_peer_batch *batch,
		    unsigned int *failed_at)
{
	int ret;

	lockdep_assert_held(&ew_config_lock);
	ew_jobs_changed();
	ret = ew_peers_add(job, batch, failed_at);
	if (ret)
		ew_qp_revalidate_job(job);
	return ret;
}

/**
 * ew_op_peers_del() - remove peers from a job (all or none), then re-judge
 * its live QPs
 * @job: the job
 * @batch: the parsed peers
 * @failed_at: the index of the peer that is not the job's
 *
 * Context: ew_config_lock held.
 * Return: 0, or ew_peers_del()'s error (nothing removed, nothing judged).
 */
int ew_op_peers_del(struct ew_job *job, const struct ew_peer_batch *batch,
		    unsigned int *failed_at)
{
	int ret;

	lockdep_assert_held(&ew_config_lock);
	ew_jobs_changed();
	ret = ew_peers_del(job, batch, failed_at);
	if (!ret)
		ew_qp_revalidate_job(job);
	return ret;
}

/* Whether a process in no job is refused under these settings. */
static bool ew_no_job_refused(u32 mode, u32 action)
{
	return mode == EASTWEST_MODE_ENFORCE &&
	       action == EASTWEST_DEFAULT_ACTION_DENY;
}

/**
 * ew_op_config_set() - set the global mode and default action, then
 * re-judge every live QP if enforcement began
 * @mode: enum eastwest_mode
 * @action: enum eastwest_default_action
 * @changed: set to whether either setting changed
 *
 * When enforcement begins every record is judged again; when it begins or
 * processes in no job become refused (default deny under enforce), the
 * connected QPs without records of owners now enforced are revoked too.
 *
 * Context: ew_config_lock held.
 * Return: the number of live QPs revoked.
 */
unsigned int ew_op_config_set(u32 mode, u32 action, bool *changed)
{
	bool enforce = mode == EASTWEST_MODE_ENFORCE &&
		       ew_global.mode == EASTWEST_MODE_AUDIT;
	bool refuse_no_job = ew_no_job_refused(mode, action) &&
			     !ew_no_job_refused(ew_global.mode,
						ew_global.default_action);
	unsigned int revoked = 0;

	lockdep_assert_held(&ew_config_lock);
	*changed = mode != ew_global.mode || action != ew_global.default_action;
	WRITE_ONCE(ew_global.mode, mode);
	WRITE_ONCE(ew_global.default_action, action);
	if (enforce)
		revoked += ew_qp_revalidate_all();
	if (enforce || refuse_no_job)
		revoked += ew_qp_revoke_unrecorded();
	return revoked;
}

/**
 * ew_op_nodes_change() - revoke or admit other nodes' addresses
 * @addrs: @n addresses of 16 bytes
 * @n: how many
 * @revoke: revoke them (else admit them again)
 * @extack: where a refusal is explained
 * @revoked: the number of live QPs revoked
 *
 * Context: ew_config_lock held.
 * Return: 0, or ew_nodes_change()'s error (nothing changed).
 */
int ew_op_nodes_change(const u8 *addrs, unsigned int n, bool revoke,
		       struct netlink_ext_ack *extack, unsigned int *revoked)
{
	int ret;

	lockdep_assert_held(&ew_config_lock);
	*revoked = 0;
	ret = ew_nodes_change(addrs, n, revoke, extack);
	if (!ret && revoke)
		*revoked = ew_qp_revalidate_all();
	return ret;
}
