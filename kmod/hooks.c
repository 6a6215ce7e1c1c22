// SPDX-License-Identifier: GPL-2.0
/*
 * Interception of the user-space RDMA control path.
 *
 * ib_modify_qp_with_udata() and ib_create_qp_user() are reached only from
 * uverbs, rdma_create_user_ah() from uverbs and umad (so MAD tools are
 * policed too); kernel ULPs use ib_modify_qp() and friends, which bypass
 * them. ib_attach_mcast() and ib_detach_mcast() are called by uverbs and by
 * kernel ULPs (IPoIB): only QPs with a user object are judged. So every
 * call we judge comes from a user process, in its own context: current is
 * the caller. ib_destroy_qp_user() is hooked as well, for every QP destroy,
 * to drop tracking records, and ib_detach_mcast() to drop a group from one.
 *
 * Shape: an ftrace handler at the function's entry builds the request
 * (request.c), decides, and to deny points the saved instruction pointer
 * at a notrace stub that returns -EACCES in place of the function. The
 * handlers may run in atomic context: they never sleep and allocate only
 * with GFP_ATOMIC. The handler never calls the hooked function, so it
 * cannot recurse. Some calls are redirected on purpose to a wrapper that
 * calls the function again, from process context, and is recognised by its
 * caller address (never by a tail call, which would hide it), as are the
 * revoker's own ib_modify_qp() and ib_detach_mcast():
 * ew_destroy_qp_serialised(), which destroys a user QP under its modify
 * lock and drops its record only if the driver destroyed it;
 * ew_modify_qp_serialised(), where every modify of a user QP (a revoker
 * could meet any of them on the same QP) is judged, its tracking record
 * created or updated, and the modify applied under the QP's modify lock
 * (qptrack.c, "Modify locks");
 * and ew_attach_mcast_serialised() and ew_detach_mcast_serialised(), which
 * do the same for a user QP's multicast groups.
 * rdma_cm's messages are hooked where ucma sends them: rdma_connect_ece()
 * and rdma_accept_ece() (ucma is their only caller) and rdma_reject()
 * (kernel ULPs call it too, from their CM handlers, in kernel threads:
 * those are left alone); rdma_listen(), where a process's listener on an
 * AF_IB address is refused (cmlisten.c); and rdma_cm's static
 * cma_cm_event_handler(), by name, where a connect request reaches a
 * process's listener before the process sees it.
 * The ops are IPMODIFY (one owner per function: a second owner such as a
 * livepatch makes our load fail) and PERMANENT (ftrace cannot be switched
 * off while we are registered, and registration fails if it is off), so
 * enforcement cannot silently vanish.
 */

#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_counter.h>
#include <rdma/restrack.h>

#include "cmlisten.h"
#include "cmpriv.h"
#include "config.h"
#include "events.h"
#include "fault.h"
#include "hooks.h"
#include "job.h"
#include "localgid.h"
#include "nlreader.h"
#include "policy.h"
#include "protect.h"
#include "qptrack.h"
#include "registry.h"
#include "request.h"

/*
 * Exported by ib_core but declared only in its private core_priv.h
 * (identical in 6.1 and 6.12); we only take its address.
 */
struct ib_uqp_object;
struct ib_qp *ib_create_qp_user(struct ib_device *dev, struct ib_pd *pd,
				struct ib_qp_init_attr *attr,
				struct ib_udata *udata,
				struct ib_uqp_object *uobj, const char *caller);

/* Stand-ins for a denied call: same calling convention, nothing done. */
static noinline notrace int ew_deny_int(void)
{
	return -EACCES;
}

static noinline notrace void *ew_deny_ptr(void)
{
	return ERR_PTR(-EACCES);
}

/*
 * The hooked call's argument @n. The ops do not ask for saved registers:
 * with DYNAMIC_FTRACE_WITH_ARGS ftrace passes the argument registers and
 * takes back the instruction pointer that a handler sets, which is all a
 * hook needs, without the full pt_regs that ftrace_regs_caller() saves
 * and restores at every entry. Without it a hook could neither read its
 * call nor refuse it: no build.
 */
#ifndef CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS
#error "eastwest's hooks need ftrace to pass arguments (HAVE_DYNAMIC_FTRACE_WITH_ARGS)"
#endif
#define ew_hook_arg(fregs, n)	ftrace_regs_get_argument(fregs, n)

/* Point the hooked call at @fn in its place (a stand-in or a wrapper). */
static void notrace ew_hook_divert(struct ftrace_regs *fregs, void *fn)
{
	ftrace_regs_set_instruction_pointer(fregs, (unsigned long)fn);
}

/*
 * Whether a call to a hook that redirects to a wrapper comes from this
 * module: a wrapper's own call, already judged, left alone.
 */
static bool notrace ew_hook_from_us(unsigned long parent_ip)
{
	return ew_within_module_text(parent_ip, THIS_MODULE);
}

/*
 * Point the hooked call at @wrapper, which calls the function again from
 * this module (the hook lets that through) and may sleep: the module is
 * held from here, so that it cannot go while a task is in the wrapper's
 * text, and the wrapper puts it. While the module is going, the call is
 * pointed at @going instead, or left alone if @going is NULL.
 */
static void notrace ew_hook_redirect(struct ftrace_regs *fregs, void *wrapper,
				     void *going)
{
	if (try_module_get(THIS_MODULE))
		ew_hook_divert(fregs, wrapper);
	else if (going)
		ew_hook_divert(fregs, going);
}

/* What the caller is and which job it belongs to, for one decision. */
struct ew_caller {
	struct ew_global global;
	struct task_struct *task;
	struct ew_job *job;
	struct ew_job_policy *pol;
	u64 cgid;
};

/* @task's job: current's, or the owner of a listener a request reached. */
static void ew_caller_of(struct ew_caller *c, struct task_struct *task)
{
	ew_global_snapshot(&c->global);
	c->task = task;
	c->job = ew_job_lookup_by_cgroup(task_dfl_cgroup(task), &c->cgid);
	c->pol = c->job ? ew_job_policy(c->job) : NULL;
}

static void ew_caller_get(struct ew_caller *c)
{
	ew_caller_of(c, current);
}

/* Does the caller's job require a protected path (so it must be evaluated)? */
static bool ew_caller_wants_protection(const struct ew_caller *c)
{
	return c->pol && c->pol->encrypt != EASTWEST_ENCRYPT_NONE;
}

/* Processes in no job under a default of allow are not policed at all. */
static bool ew_caller_unpoliced(const struct ew_caller *c)
{
	return !c->job &&
	       c->global.default_action == EASTWEST_DEFAULT_ACTION_ALLOW;
}

/*
 * ew_caller_get(), then whether the caller is policed: false means there
 * is nothing to judge. Context: under rcu_read_lock().
 */
static bool ew_caller_get_policed(struct ew_caller *c)
{
	ew_caller_get(c);
	return !ew_caller_unpoliced(c);
}

/*
 * The event a refused or audited @op reports, as far as the hook knows
 * it: on port @port of device @dev_name. The verdict fills in the rest.
 *
 * The hooks declare their events (and the modify wrapper its change)
 * __uninitialized: kernels built with CONFIG_INIT_STACK_ALL_ZERO (Debian's)
 * would otherwise clear a structure of 168 or 256 bytes at every hooked
 * call, though an event is written in full here before it is read and a
 * change by ew_qp_change_start().
 */
static void ew_deny_event(struct ew_event *ev, u32 op, const char *dev_name,
			  u32 port)
{
	*ev = (struct ew_event) { .cmd = EASTWEST_CMD_DENY_NTF, .op = op,
				  .port = port };
	strscpy(ev->dev_name, dev_name, sizeof(ev->dev_name));
}

static void ew_event_from_path(struct ew_event *ev, const struct ew_path *p)
{
	if (p->has_grh) {
		ev->has_dgid = true;
		memcpy(ev->dgid, p->dgid, sizeof(ev->dgid));
	} else {
		ev->has_dlid = true;
		ev->dlid = p->dlid;
	}
}

/*
 * The verdict on @req, or on a request that failed for @internal_reason.
 * A job's audit mode lets its own refusals through, but not qp-owner: that
 * rule keeps the caller off another job's QP (a modify of it, a multicast
 * join, a connection manager message naming it, which ends its connection
 * at once), and what the other job loses no later enforcement gives back.
 */
static struct ew_verdict ew_verdict_of(const struct ew_caller *c,
				       const struct ew_request *req,
				       u32 internal_reason)
{
	struct ew_verdict v;

	if (!internal_reason)
		return ew_decide(&c->global, c->job, c->pol, req);
	v.reason = internal_reason;
	v.deny = c->global.mode == EASTWEST_MODE_ENFORCE &&
		 (!(c->pol && c->pol->mode == EASTWEST_MODE_AUDIT) ||
		  internal_reason == EASTWEST_REASON_QP_OWNER);
	return v;
}

/*
 * Count and report verdict @v. Returns true if the operation must be
 * refused. @ev is pre-filled by the caller with what it knows of the object.
 */
static bool ew_judge_report(struct ew_caller *c, struct ew_request *req,
			    struct ew_verdict v, struct ew_event *ev)
{
	if (!v.reason) {
		ew_counter_inc(c->job, EW_CTR_ALLOWED);
		return false;
	}
	ew_counter_inc(c->job, v.deny ? EW_CTR_DENIED_BASE + v.reason :
			       EW_CTR_AUDITED);

	ev->reason = v.reason;
	ev->mode = v.deny ? EASTWEST_MODE_ENFORCE : EASTWEST_MODE_AUDIT;
	ev->job_id = c->job ? c->job->id : 0;
	ev->pid = task_tgid_nr(c->task);
	if (c->task == current) {
		ev->uid = from_kuid_munged(&init_user_ns, current_uid());
	} else {
		rcu_read_lock();
		ev->uid = from_kuid_munged(&init_user_ns, task_uid(c->task));
		rcu_read_unlock();
	}
	get_task_comm(ev->comm, c->task);
	ev->cgroup_id = c->cgid;
	if (req->n_paths)
		ew_event_from_path(ev, &req->paths[0]);
	if (!ew_event_report(ev))
		ew_counter_inc(c->job, EW_CTR_EVENTS_DROPPED);
	return v.deny;
}

/* Decide, count and report: ew_verdict_of() then ew_judge_report(). */
static bool ew_judge(struct ew_caller *c, struct ew_request *req,
		     u32 internal_reason, struct ew_event *ev)
{
	return ew_judge_report(c, req, ew_verdict_of(c, req, internal_reason), ev);
}

/*
 * Keyed PSNs (job option psn keyed): the PSNs this allowed modify sets are
 * replaced by the keyed hash of the connection's two ends, from the
 * record's whole configuration (source GID, destination GID and QPN).
 * Paths without a GRH (InfiniBand by LID) keep the application's PSNs.
 */
static void ew_keyed_psns(const struct ew_job_policy *pol,
			  const struct ib_qp *real, int mask,
			  struct ew_qp_change *chg)
{
	const struct ew_request *req = &chg->req;
	const struct ew_path *p = &req->paths[0];

	if (pol->psn != EASTWEST_PSN_KEYED || !req->has_av || !p->has_grh ||
	    !req->has_dest_qpn)
		return;
	switch (real->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		break;
	default:
		return;
	}
	if (mask & IB_QP_RQ_PSN) {
		chg->set_rq_psn = true;
		chg->rq_psn = ew_keyed_psn(&pol->psn_key, p->dgid,
					   req->dest_qpn, p->sgid,
					   real->qp_num);
	}
	if (mask & IB_QP_SQ_PSN) {
		chg->set_sq_psn = true;
		chg->sq_psn = ew_keyed_psn(&pol->psn_key, p->sgid,
					   real->qp_num, p->dgid,
					   req->dest_qpn);
	}
}

/* What a refused or audited modify's event says of the QP. */
static void ew_modify_event(struct ew_event *ev, const struct ib_qp *real,
			    const struct ib_qp_attr *attr, int mask)
{
	ew_deny_event(ev, EASTWEST_OP_MODIFY_QP, dev_name(&real->device->dev),
		      (mask & IB_QP_PORT) ? attr->port_num : real->port);
	ev->has_qpn = true;
	ev->qpn = real->qp_num;
	if (mask & IB_QP_DEST_QPN) {
		ev->has_dest_qpn = true;
		ev->dest_qpn = attr->dest_qp_num;
	}
}

/*
 * Whether a caller that is not policed may make this modify's destinations
 * (see ew_dest_open_to_unpoliced()). The destination QPN is set only with
 * the primary path (INIT->RTR: the state table allows it nowhere else, and
 * a modify that names no state is checked against that table, see
 * ew_modify_breaks_table()); a path changed later (SQD, or the alternate
 * path) to a GID of this node is refused, since the QPN it would reach is
 * not in the modify. Context: rcu_read_lock().
 */
static bool ew_unpoliced_dests_ok(const struct ib_qp *real,
				  const struct ib_qp_attr *attr, int mask)
{
	bool has_qpn = mask & IB_QP_DEST_QPN;

	if ((mask & IB_QP_AV) &&
	    (rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH) &&
	    !ew_dest_open_to_unpoliced(real->device,
				       attr->ah_attr.grh.dgid.raw, has_qpn,
				       attr->dest_qp_num))
		return false;
	return !((mask & IB_QP_ALT_PATH) &&
		 (rdma_ah_get_ah_flags(&attr->alt_ah_attr) & IB_AH_GRH) &&
		 !ew_dest_open_to_unpoliced(real->device,
					    attr->alt_ah_attr.grh.dgid.raw,
					    has_qpn, attr->dest_qp_num));
}

/*
 * Judge a modify of @real (see "QP state gate" in qpgate.c) and fill @chg
 * with what the record must become once the driver applied it. Returns
 * true if the modify must be refused.
 * Context: ew_modify_qp_serialised(), under the QP's modify lock.
 */
static bool ew_check_modify_qp(struct ib_qp *real, const struct ib_qp_attr *attr,
			       int mask, bool breaks_table,
			       struct ew_qp_change *chg)
{
	struct ib_device *dev = real->device;
	struct ew_event ev __uninitialized;
	struct ew_qp_modify m = {
		.qp_type = real->qp_type,
		.mask = mask,
		.next_state = attr->qp_state,
		.breaks_table = breaks_table,
	};
	u32 internal = 0;
	enum ew_gate_verdict gate;
	struct ew_verdict v;
	struct ew_caller c;
	bool deny;

	/* Hot path: a reset or a move to ERR needs no caller lookup. */
	if (!(mask & (IB_QP_RQ_PSN | IB_QP_SQ_PSN)) &&
	    ew_qp_gate_passes_anyone(&chg->view, &m))
		return false;
	rcu_read_lock();
	if ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_INIT &&
	    (mask & IB_QP_PKEY_INDEX))
		ew_registry_observe_qpn(dev, real->qp_num);
	ew_caller_get(&c);
	if (c.job && (((mask & IB_QP_RQ_PSN) && !attr->rq_psn) ||
		      ((mask & IB_QP_SQ_PSN) && !attr->sq_psn)))
		ew_counter_inc(c.job, EW_CTR_PSN_ZERO);
	m.policed = !ew_caller_unpoliced(&c);
	m.job_id = c.job ? c.job->id : 0;
	gate = ew_qp_gate(&chg->view, &m, &internal);
	if (gate == EW_GATE_PASS && !m.policed &&
	    (mask & (IB_QP_AV | IB_QP_ALT_PATH)) &&
	    !ew_unpoliced_dests_ok(real, attr, mask)) {
		gate = EW_GATE_REFUSE;
		internal = EASTWEST_REASON_FOREIGN_QP;
	}
	if (gate == EW_GATE_PASS) {
		/* RTR->RTS of a tracked QP: its send PSN, from the record. */
		if (c.job && chg->view.tracked)
			ew_keyed_psns(c.pol, real, mask, chg);
		rcu_read_unlock();
		return false;
	}

	if (gate == EW_GATE_JUDGE) {
		/* The whole configuration: the record's, this modify folded in. */
		chg->req.op = EASTWEST_OP_MODIFY_QP;
		internal = ew_request_from_modify(dev, real, attr, mask,
						  ew_caller_wants_protection(&c),
						  &chg->req);
		/*
		 * The core counts a QP's multicast groups in usecnt (and an
		 * XRC target's openers, and flow-steering rules, which need
		 * CAP_NET_RAW): more than the record holds were joined while
		 * nobody judged them (its process not yet policed), and could
		 * not be judged or left now. A job's QP with a flow rule is
		 * refused too (fail-closed).
		 */
		if (!internal && real->qp_type != IB_QPT_XRC_TGT &&
		    atomic_read(&real->usecnt) > chg->view.n_groups)
			internal = EASTWEST_REASON_INTERNAL;
		/*
		 * A new port alone changes what the recorded P_Key index
		 * names: resolve it on the new port.
		 */
		if ((mask & IB_QP_PORT) && !(mask & IB_QP_PKEY_INDEX) &&
		    chg->req.has_pkey) {
			chg->req.port = attr->port_num;
			if (ew_request_resolve_pkeys(dev, &chg->req))
				internal = EASTWEST_REASON_INTERNAL;
		}
	}
	v = ew_verdict_of(&c, &chg->req, internal);
	/*
	 * What audit mode lets through for another reason is recorded with
	 * its destination's locality too: once that reason is gone, enforce
	 * judges the destination on this node against its owner.
	 */
	if (gate == EW_GATE_JUDGE && !v.deny && c.job &&
	    ew_dest_is_foreign(c.job, dev, &chg->req, &chg->local) && !v.reason)
		v = ew_verdict_of(&c, &chg->req, EASTWEST_REASON_FOREIGN_QP);
	/*
	 * The record an allowed modify starts is allocated now, before the
	 * driver runs, and hashed only once the driver applied the modify. A
	 * job's QP that cannot be tracked could not be revoked: refuse it,
	 * before anything is counted or reported, so that it is counted once
	 * and its event names the caller like any other denial.
	 */
	if (gate == EW_GATE_JUDGE && !v.deny && c.job && !chg->view.tracked)
		ew_qp_prealloc(chg);
	if (gate == EW_GATE_JUDGE && !v.deny && c.job && !internal &&
	    !chg->view.tracked && !chg->fresh &&
	    c.global.mode == EASTWEST_MODE_ENFORCE &&
	    c.pol->mode == EASTWEST_MODE_ENFORCE) {
		v.reason = EASTWEST_REASON_INTERNAL;
		v.deny = true;
	}
	chg->judged = gate == EW_GATE_JUDGE && !internal;
	chg->job_id = m.job_id;
	if (chg->judged && !v.deny && c.job)
		ew_keyed_psns(c.pol, real, mask, chg);
	/* The event of a denial or an audit; an allowed modify has none. */
	if (v.reason)
		ew_modify_event(&ev, real, attr, mask);
	deny = ew_judge_report(&c, &chg->req, v, &ev);
	rcu_read_unlock();
	return deny;
}

static bool ew_check_create_ah(struct ib_pd *pd, struct rdma_ah_attr *ah)
{
	struct ew_request req = { .op = EASTWEST_OP_CREATE_AH, .n_paths = 1 };
	struct ib_device *dev = pd->device;
	struct ew_event ev __uninitialized;
	struct ew_verdict v;
	struct ew_caller c;
	u32 internal = 0;
	bool deny;

	rcu_read_lock();
	if (!ew_caller_get_policed(&c)) {
		rcu_read_unlock();
		return false;
	}
	if (!ew_path_from_ah(dev, ah, &req.paths[0],
			     ew_caller_wants_protection(&c)))
		internal = EASTWEST_REASON_INTERNAL;
	ew_deny_event(&ev, EASTWEST_OP_CREATE_AH, dev_name(&dev->dev),
		      rdma_ah_get_port_num(ah));
	v = ew_verdict_of(&c, &req, internal);
	/* A UD address handle names no QP: it could reach any on this node. */
	if (!v.reason && c.job && ew_dest_is_foreign(c.job, dev, &req, NULL))
		v = ew_verdict_of(&c, &req, EASTWEST_REASON_FOREIGN_QP);
	deny = ew_judge_report(&c, &req, v, &ev);
	rcu_read_unlock();
	return deny;
}

/*
 * Why a connect request of a caller that is not policed is refused, or 0:
 * it must not reach a job's listener on this node. One whose destination
 * cannot be read is refused: rdma_connect() fails such a request anyway,
 * unless its route became final between this check and rdma_cm's own (a
 * kernel worker finishes a RoCE route after rdma_resolve_route() returned).
 * iWARP is not policed for it (A26). Context: rcu_read_lock().
 */
static u32 ew_cm_unpoliced_reason(struct rdma_cm_id *id, struct ew_request *req)
{
	u32 reason = ew_request_from_cm_id(id, true, false, req);

	if (reason == EASTWEST_REASON_IWARP)
		return 0;
	if (reason)
		return reason;
	return ew_cm_dest_is_foreign(id, req, NULL) ?
	       EASTWEST_REASON_FOREIGN_QP : 0;
}

/* The event of a refused connection manager message; the QP it names. */
static void ew_cm_message_event(struct ew_event *ev, const struct rdma_cm_id *id,
				const struct rdma_conn_param *param)
{
	ew_deny_event(ev, EASTWEST_OP_CM_MESSAGE, dev_name(&id->device->dev),
		      id->port_num);
	if (param) {
		ev->has_qpn = true;
		ev->qpn = param->qp_num & 0xffffff;
	}
}

/*
 * The QP a connect or an accept names (@param's qp_num: ucma passes any
 * number). The IB CM of the receiving node looks this device's GUID and
 * that number up among its live connections and, on a match, tears that
 * connection down and answers "stale connection": naming another job's QP
 * would end its connection. Nor may the answer tell another job's QP from
 * a number no QP has, or a scan of the numbers finds every job's QPs. So
 * a caller in a job must name a QP of its job on the ID's device, as
 * applications do (librdmacm names the ID's QP, UCX one it makes for the
 * purpose; mlx5's reserved QP numbers need DEVX, which jobs do not get),
 * and a caller in no job a QP that a process in no job made: not one of
 * the kernel's, whose connections (storage, RDS) a stale-connection
 * answer would end as well, nor an XRC target, which the core keeps as
 * the kernel's whichever job asked for it. mlx5's reserved numbers belong
 * to no QP, so there a caller in no job may still name a number no QP
 * has, and still tell it from a job's QP (threat-model.md, A28).
 *
 * Another node's CM knows the sending device only by its node GUID, which
 * twins share (ew_registry_next_twin(): soft-RoCE on a netdev and on its
 * MACsec or VLAN link): the number must also be, on every twin with
 * connections of the IB CM, no QP's or one the caller could name there.
 * Context: rcu_read_lock().
 */
static u32 ew_cm_named_qp_reason(const struct rdma_cm_id *id,
				 const struct rdma_conn_param *param,
				 const struct ew_job *job)
{
	struct ib_device *dev = id->device;
	struct ew_dev *twin = NULL;
	u32 qpn;

	if (!param || id->qp_type == IB_QPT_UD ||
	    !rdma_cap_ib_cm(dev, id->port_num))
		return 0;
	qpn = param->qp_num & 0xffffff;
	if (!(job ? ew_restrack_qp_is_jobs(dev, qpn, job) :
		    ew_restrack_qp_is_no_jobs(dev, qpn, true)) &&
	    (job || dev->ops.driver_id != RDMA_DRIVER_MLX5 ||
	     ew_restrack_qp_exists(dev, qpn)))
		return EASTWEST_REASON_QP_OWNER;
	while ((twin = ew_registry_next_twin(dev, twin)))
		if (rdma_cap_ib_cm(twin->ibdev, rdma_start_port(twin->ibdev)) &&
		    !ew_restrack_qp_none_or_callers(twin->ibdev, qpn, job))
			return EASTWEST_REASON_QP_OWNER;
	return 0;
}

/*
 * A connection manager message of a process (@connect: a connect request;
 * else an accept or a reject; @param: a connect's or an accept's, else
 * NULL): its private data goes to the route's destination on the kernel's
 * GSI QP, which no QP of the process's carries, so its path is judged as
 * an address handle's would be (peer, source netdev, P_Key, protection, a
 * process in no job). A connect request to this node must also reach a
 * listener of the caller's job, or for a caller that is not policed one of
 * no job's (cmlisten.c); an answer goes back to a request that passed that
 * rule. The QP it names must be the caller's job's (ew_cm_named_qp_reason()).
 */
static bool ew_check_cm_message(struct rdma_cm_id *id, bool connect,
				const struct rdma_conn_param *param)
{
	struct ew_request req = { .op = EASTWEST_OP_CM_MESSAGE };
	struct ew_event ev __uninitialized;
	struct ew_verdict v;
	struct ew_caller c;
	u32 internal;
	bool deny;

	/* Kernel ULPs' handlers; an ID not bound to a device fails anyway. */
	if ((current->flags & PF_KTHREAD) || !id->device)
		return false;
	rcu_read_lock();
	ew_caller_get(&c);
	if (ew_caller_unpoliced(&c)) {
		/* Not judged, but kept off jobs' listeners and QPs. */
		internal = connect ? ew_cm_unpoliced_reason(id, &req) : 0;
		if (!internal)
			internal = ew_cm_named_qp_reason(id, param, NULL);
		deny = internal;
		if (deny) {
			ew_cm_message_event(&ev, id, param);
			deny = ew_judge(&c, &req, internal, &ev);
		}
		rcu_read_unlock();
		return deny;
	}
	internal = ew_request_from_cm_id(id, connect,
					 ew_caller_wants_protection(&c), &req);
	ew_cm_message_event(&ev, id, param);
	v = ew_verdict_of(&c, &req, internal);
	if (connect && !v.reason && c.job &&
	    ew_cm_dest_is_foreign(id, &req, c.job))
		v = ew_verdict_of(&c, &req, EASTWEST_REASON_FOREIGN_QP);
	if (!v.reason && c.job) {
		internal = ew_cm_named_qp_reason(id, param, c.job);
		if (internal)
			v = ew_verdict_of(&c, &req, internal);
	}
	deny = ew_judge_report(&c, &req, v, &ev);
	rcu_read_unlock();
	return deny;
}

/*
 * A listener of a process on an AF_IB address: rdma_cm gives such a
 * listener the requests of every address on its port, so it would take
 * those meant for another job's listener there (one restricted to AF_IB
 * shares the port with any IP listener, and the newest listener is asked
 * first); refused to every process (cmlisten.c). An ID's family is known
 * once it is bound, before it may listen. Kernel ULPs' listeners pass.
 */
static bool ew_check_cm_listen(struct rdma_cm_id *id)
{
	const struct ew_rdma_id_private *priv = ew_cm_priv(id);
	struct ew_event ev __uninitialized;
	struct ew_request req = { .op = EASTWEST_OP_CM_LISTEN };
	struct ew_caller c;
	bool deny;

	if ((current->flags & PF_KTHREAD) ||
	    id->route.addr.src_addr.ss_family != AF_IB)
		return false;
	/* Made by ucma for a process; a layout not as mirrored: refused. */
	if (priv->res.type == RDMA_RESTRACK_CM_ID && !priv->res.user)
		return false;
	rcu_read_lock();
	ew_caller_get(&c);
	ew_deny_event(&ev, EASTWEST_OP_CM_LISTEN,
		      id->device ? dev_name(&id->device->dev) : "",
		      id->port_num);
	deny = ew_judge(&c, &req, EASTWEST_REASON_FOREIGN_QP, &ev);
	rcu_read_unlock();
	return deny;
}

/* int rdma_listen(id, backlog): ucma's, and rdma_cm's own for the devices */
static void notrace ew_hook_cm_listen(unsigned long ip,
				      unsigned long parent_ip,
				      struct ftrace_ops *ops,
				      struct ftrace_regs *fregs)
{
	if (ew_check_cm_listen((struct rdma_cm_id *)ew_hook_arg(fregs, 0)))
		ew_hook_divert(fregs, ew_deny_int);
}

/*
 * A connect request that reached a listener of a process: rdma_cm hands
 * the listener's new ID to its owner's handler (ucma's) with the request's
 * private data, and the owner reads it, and the request's QPN and PSN,
 * before it may answer. The owner of the listener (the task that made it,
 * which the new ID inherits in the RDMA core's table) is judged as if it
 * answered: its job must be allowed the request's source (the path record
 * the request made, or a UD request's source address). Otherwise the
 * request is refused before its owner sees it, and the sender is rejected.
 * So a listener of another job, or of no job under default deny, that
 * holds a port on this node takes nothing from a request meant for a job's
 * server here, from this node or any other. Kernel ULPs' listeners pass.
 * Context: the CM's work queue, the new ID's handler mutex held.
 */
static bool ew_check_cm_request(struct rdma_cm_id *id)
{
	struct ew_rdma_id_private *priv = ew_cm_priv(id);
	struct ew_request req = { .op = EASTWEST_OP_CM_REQUEST };
	struct ew_event ev __uninitialized;
	struct ew_caller c;
	u32 internal;
	bool deny;

	if (rdma_is_kernel_res(&priv->res) || !id->device)
		return false;
	rcu_read_lock();
	/*
	 * The owner is in the ID's restrack entry, mirrored (cmpriv.h); it is
	 * set even if the entry could not be added to the table.
	 */
	if (priv->res.type != RDMA_RESTRACK_CM_ID || !priv->res.task) {
		ew_caller_get(&c);
		internal = EASTWEST_REASON_INTERNAL;
	} else {
		ew_caller_of(&c, priv->res.task);
		if (ew_caller_unpoliced(&c)) {
			rcu_read_unlock();
			return false;
		}
		internal = ew_request_from_cm_id(id, false,
						 ew_caller_wants_protection(&c),
						 &req);
	}
	ew_deny_event(&ev, EASTWEST_OP_CM_REQUEST, dev_name(&id->device->dev),
		      id->port_num);
	deny = ew_judge(&c, &req, internal, &ev);
	rcu_read_unlock();
	return deny;
}

/*
 * int cma_cm_event_handler(id_priv, event): rdma_cm's, static, the one
 * place every event of an ID reaches its owner's handler; the ID is the
 * first member of rdma_cm's private ID.
 */
static void notrace ew_hook_cm_event(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *ops,
				     struct ftrace_regs *fregs)
{
	const struct rdma_cm_event *event =
		(const struct rdma_cm_event *)ew_hook_arg(fregs, 1);

	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST &&
	    ew_check_cm_request((struct rdma_cm_id *)ew_hook_arg(fregs, 0)))
		ew_hook_divert(fregs, ew_deny_int);
}

/*
 * Argument 0 of each hooked rdma_cm function is the ID; argument 1 of a
 * connect and of an accept their parameters (@param).
 */
static void notrace ew_hook_cm(struct ftrace_regs *fregs, bool connect,
			       bool param)
{
	if (ew_check_cm_message((struct rdma_cm_id *)ew_hook_arg(fregs, 0),
				connect, param ?
				(struct rdma_conn_param *)ew_hook_arg(fregs, 1) :
				NULL))
		ew_hook_divert(fregs, ew_deny_int);
}

/* int rdma_connect_ece(id, conn_param, ece): from ucma only */
static void notrace ew_hook_cm_connect(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *ops,
				       struct ftrace_regs *fregs)
{
	ew_hook_cm(fregs, true, true);
}

/* int rdma_accept_ece(id, conn_param, ece): from ucma only */
static void notrace ew_hook_cm_accept(unsigned long ip,
				      unsigned long parent_ip,
				      struct ftrace_ops *ops,
				      struct ftrace_regs *fregs)
{
	ew_hook_cm(fregs, false, true);
}

/* int rdma_reject(id, private_data, private_data_len, reason) */
static void notrace ew_hook_cm_reject(unsigned long ip,
				      unsigned long parent_ip,
				      struct ftrace_ops *ops,
				      struct ftrace_regs *fregs)
{
	ew_hook_cm(fregs, false, false);
}

/* The hooks armed as their modules come (ew_late_hooks[]). */
enum { EW_LATE_DEVX, EW_LATE_RDS };

static bool ew_late_hook_armed(unsigned int i);

/*
 * An mlx5 device while the DEVX hook is not armed (ew_late_hook_arm() could not
 * find its function when a device appeared later): QPs there are refused
 * to policed callers, since DEVX could drive them unseen.
 */
static bool ew_devx_blind(const struct ib_device *dev)
{
	return dev->ops.driver_id == RDMA_DRIVER_MLX5 &&
	       !ew_late_hook_armed(EW_LATE_DEVX);
}

/*
 * An iWARP device (siw, irdma in iWARP mode, cxgb4): the core's iWARP
 * connection manager takes a connection's QP by the number the caller
 * gives rdma_connect() or rdma_accept() (iw_cm_connect(), ops.iw_get_qp(),
 * no owner check), and the device moves it to RTS itself: no modify of a
 * policed caller's QP there ever carries its destination, and another
 * process could connect a job's QP by its number. Such QPs are refused to
 * policed callers, so that no job has one.
 */
static bool ew_dev_iwarp(const struct ib_device *dev)
{
	return dev->node_type == RDMA_NODE_RNIC;
}

/*
 * A QP that sends with a source QPN of its choosing (IPoIB's underlay QP)
 * passes for any QP of its node: refused (reason qp-type) to every policed
 * caller, as a raw packet QP is, whatever its capabilities, and to a
 * process in no job under default allow without CAP_NET_RAW, which uverbs'
 * write command asks for and its ioctl command (6.1, 6.12) does not.
 * Context: the ftrace handler (atomic).
 */
static bool ew_check_source_qpn(struct ib_device *dev,
				const struct ib_qp_init_attr *init)
{
	struct ew_request req = { .op = EASTWEST_OP_CREATE_QP,
				  .has_qp_type = true,
				  .qp_type = init->qp_type,
				  .driver_id = dev->ops.driver_id };
	struct ew_event ev __uninitialized;
	struct ew_caller c;
	bool deny;

	rcu_read_lock();
	ew_caller_get(&c);
	if (ew_caller_unpoliced(&c) &&
	    ns_capable_noaudit(&init_user_ns, CAP_NET_RAW)) {
		rcu_read_unlock();
		return false;
	}
	ew_deny_event(&ev, EASTWEST_OP_CREATE_QP, dev_name(&dev->dev),
		      init->port_num);
	deny = ew_judge(&c, &req, EASTWEST_REASON_QP_TYPE, &ev);
	rcu_read_unlock();
	return deny;
}

static bool ew_check_create_qp(struct ib_device *dev,
			       const struct ib_qp_init_attr *init)
{
	struct ew_request req = { .op = EASTWEST_OP_CREATE_QP };
	u32 driver_id = dev->ops.driver_id;
	struct ew_event ev __uninitialized;
	struct ew_caller c;
	u32 internal = 0;
	bool deny;

	if (unlikely(init->create_flags & IB_QP_CREATE_SOURCE_QPN))
		return ew_check_source_qpn(dev, init);
	/*
	 * Types whose destinations the other hooks judge pass without a
	 * caller lookup; the rest (raw packet, and UD or driver QPs whose
	 * destinations can bypass the kernel) need the caller's job, and so
	 * does every QP of an mlx5 device whose DEVX contexts go unpoliced
	 * and of an iWARP device.
	 */
	if (!ew_qp_type_policed(init->qp_type, driver_id) &&
	    !ew_devx_blind(dev) && !ew_dev_iwarp(dev))
		return false;

	rcu_read_lock();
	if (!ew_caller_get_policed(&c)) {
		rcu_read_unlock();
		return false;
	}
	req.has_qp_type = true;
	req.qp_type = init->qp_type;
	req.driver_id = driver_id;
	ew_deny_event(&ev, EASTWEST_OP_CREATE_QP, dev_name(&dev->dev),
		      init->port_num);
	/* A process in no job is refused for that (default deny). */
	if (c.job && ew_dev_iwarp(dev))
		internal = EASTWEST_REASON_IWARP;
	else if (c.job && ew_devx_blind(dev))
		internal = EASTWEST_REASON_DEVX;
	deny = ew_judge(&c, &req, internal, &ev);
	rcu_read_unlock();
	return deny;
}

/*
 * Whether a modify must go through the gate, under the QP's modify lock:
 * every modify of a user QP does. One that may change a destination or
 * claim a state is judged there; a tracked QP's record follows every state
 * change; and even a RESET or ERR of an untracked QP must not reach the
 * driver beside a revoker's move to the error state (the sweep of QPs
 * without records revokes untracked QPs), which rxe in 6.1 does not
 * serialise (Documentation/hardening.md, R2). Context: the ftrace handler
 * (atomic).
 */
static bool ew_modify_qp_needs_gate(const struct ib_qp *qp)
{
	const struct ib_qp *real = qp->real_qp ? qp->real_qp : qp;

	return real->qp_type != IB_QPT_SMI && real->qp_type != IB_QPT_GSI;
}

/*
 * Whether a modify that names no state, or claims the QP's current state,
 * breaks the IB specification's QP state table from the QP's real state
 * (see "QP state gate"): the driver is asked for the state, since a record
 * knows only what eastwest let through and a QP of a process in no job has
 * none. A claim must be that state. Driver QPs (mlx5 DC) have their
 * driver's own table, and iWARP QPs another state machine: librdmacm
 * moves an iWARP QP "to RTS" with IB_QP_PORT alone (the iWARP connection
 * manager gives no state for it), and jobs get no iWARP QPs (A26). Out of
 * line: the query's attributes on the stack.
 * Context: process context, under the QP's modify lock; the query may
 * sleep.
 */
static noinline bool ew_modify_breaks_table(struct ib_qp *real,
					    const struct ib_qp_attr *attr,
					    int mask)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr now;
	u8 cur, next;

	if (real->qp_type >= IB_QPT_MAX || ew_dev_iwarp(real->device))
		return false;
	/* A state that cannot be read cannot be checked: refused. */
	if (ib_query_qp(real, &now, IB_QP_STATE, &init) ||
	    now.qp_state > IB_QPS_ERR)
		return true;
	cur = now.qp_state;
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur)
		return true;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	return !ib_modify_qp_is_ok(cur, next, real->qp_type, mask);
}

/**
 * ew_modify_qp_serialised() - ib_modify_qp_with_udata() through the gate
 * @qp: as passed to ib_modify_qp_with_udata()
 * @attr: likewise
 * @mask: likewise
 * @udata: likewise
 *
 * The modify hook points such a modify here, with a module reference taken
 * for it. The check, the driver's modify and the record's update run under
 * the QP's modify lock: a modify judged before a revocation must not land
 * after it, and the record follows only what the driver applied. The call
 * back into ib_modify_qp_with_udata() comes from this module, which the
 * hook lets through.
 *
 * Return: -EACCES if refused, else what ib_modify_qp_with_udata() returns.
 */
static int ew_modify_qp_serialised(struct ib_qp *qp, struct ib_qp_attr *attr,
				   int mask, struct ib_udata *udata)
{
	struct ib_qp *real = qp->real_qp ? qp->real_qp : qp;
	struct ew_qp_change chg __uninitialized;
	/* Serialises this modify with a revoker's on the same QP. */
	struct ew_qp_modify_ticket t;
	bool breaks_table = false;
	int ret;

	/*
	 * A QP brought to INIT may carry the number of a destroyed one: first
	 * revoke what other jobs aimed at that one, and wait until it is in
	 * the error state (a tracked QP skips it).
	 */
	if ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_INIT) {
		ret = ew_qp_revalidate_local(real);
		if (ret)
			goto out;
	}
	ew_qp_modify_lock(real, &t);
	if (unlikely(!(mask & IB_QP_STATE) || (mask & IB_QP_CUR_STATE)))
		breaks_table = ew_modify_breaks_table(real, attr, mask);
	ew_qp_change_start(real, &chg, mask, attr->qp_state);
	if (ew_check_modify_qp(real, attr, mask, breaks_table, &chg)) {
		ret = -EACCES;
	} else {
		/* uverbs' own copy of the attributes: the caller's stay. */
		if (chg.set_rq_psn)
			attr->rq_psn = chg.rq_psn;
		if (chg.set_sq_psn)
			attr->sq_psn = chg.sq_psn;
		/* Tests hold a connect here (the fault build only). */
		if (mask & IB_QP_AV)
			ew_fault_delay();
		ret = ib_modify_qp_with_udata(qp, attr, mask, udata);
		if (!ret)
			ew_qp_commit(real, &chg);
	}
	ew_qp_change_release(&chg);
	ew_qp_modify_unlock(&t);
out:
	/* Taken by the hook; not a tail call: the hook must see us as caller. */
	module_put(THIS_MODULE);
	return ret;
}

static void notrace ew_hook_modify_qp(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *ops,
				      struct ftrace_regs *fregs)
{
	/* Our own call from ew_modify_qp_serialised(): already judged. */
	if (ew_hook_from_us(parent_ip))
		return;
	/* int ib_modify_qp_with_udata(qp, attr, attr_mask, udata) */
	if (!ew_modify_qp_needs_gate((struct ib_qp *)ew_hook_arg(fregs, 0)))
		return;
	/* While the module is going, refuse. */
	ew_hook_redirect(fregs, ew_modify_qp_serialised, ew_deny_int);
}

static void notrace ew_hook_create_ah(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *ops,
				      struct ftrace_regs *fregs)
{
	/* struct ib_ah *rdma_create_user_ah(pd, ah_attr, udata) */
	if (ew_check_create_ah((struct ib_pd *)ew_hook_arg(fregs, 0),
			       (struct rdma_ah_attr *)ew_hook_arg(fregs, 1)))
		ew_hook_divert(fregs, ew_deny_ptr);
}

static void notrace ew_hook_create_qp(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *ops,
				      struct ftrace_regs *fregs)
{
	/* struct ib_qp *ib_create_qp_user(dev, pd, attr, udata, uobj, caller) */
	if (ew_check_create_qp((struct ib_device *)ew_hook_arg(fregs, 0),
			       (struct ib_qp_init_attr *)ew_hook_arg(fregs, 2)))
		ew_hook_divert(fregs, ew_deny_ptr);
}

/*
 * A user QP joining a multicast group receives what anyone sends to it:
 * the group is judged like a destination (one of the job's peers, never a
 * revoked node, the job's protection), and, like a modify, a join of
 * another job's QP or of a revoked one is refused to anyone. Returns true
 * if the join must be refused; sets @mem->job_id for the record.
 * Context: ew_attach_mcast_serialised(), under the QP's modify lock.
 */
static bool ew_check_attach_mcast(struct ib_qp *real, const union ib_gid *gid,
				  u16 lid, struct ew_qp_member *mem)
{
	struct ew_request req;
	struct ew_qp_view view;
	struct ew_event ev __uninitialized;
	struct ew_verdict v;
	struct ew_caller c;
	u32 internal = 0;
	bool deny;

	ew_qp_lookup(real, &view, NULL);
	rcu_read_lock();
	ew_caller_get(&c);
	mem->job_id = c.job ? c.job->id : 0;
	if (view.revoked)
		internal = EASTWEST_REASON_REVOKED;
	else if (view.tracked && view.job_id != mem->job_id)
		internal = EASTWEST_REASON_QP_OWNER;
	else if (ew_caller_unpoliced(&c))
		goto pass;
	/* A job's membership that cannot be recorded could not be revoked. */
	else if (c.job && (!mem->group || (!view.tracked && !mem->fresh)))
		internal = EASTWEST_REASON_INTERNAL;
	ew_request_from_mcast(real, gid, lid, &req);
	ew_deny_event(&ev, EASTWEST_OP_ATTACH_MCAST, dev_name(&real->device->dev),
		      real->port);
	ev.has_qpn = true;
	ev.qpn = real->qp_num;
	v = ew_verdict_of(&c, &req, internal);
	deny = ew_judge_report(&c, &req, v, &ev);
	rcu_read_unlock();
	return deny;
pass:
	rcu_read_unlock();
	return false;
}

/**
 * ew_attach_mcast_serialised() - ib_attach_mcast() of a user QP, judged
 * @qp: as passed to ib_attach_mcast()
 * @gid: likewise
 * @lid: likewise
 *
 * The attach hook points the join of every user QP here, with a module
 * reference taken for it. The check, the driver's join and the record's
 * update run under the QP's modify lock, as a modify's do: a revoker
 * either finds the group in the record or its pass is seen by the commit.
 *
 * Return: -EACCES if refused, else what ib_attach_mcast() returns.
 */
static int ew_attach_mcast_serialised(struct ib_qp *qp, union ib_gid *gid,
				      u16 lid)
{
	struct ib_qp *real = qp->real_qp ? qp->real_qp : qp;
	struct ew_qp_member mem = { };
	struct ew_qp_modify_ticket t;
	int ret;

	ew_qp_member_prealloc(&mem);
	ew_qp_modify_lock(real, &t);
	mem.seq = ew_qp_policy_seq_read();
	if (ew_check_attach_mcast(real, gid, lid, &mem)) {
		ret = -EACCES;
	} else {
		ret = ib_attach_mcast(qp, gid, lid);
		if (!ret)
			ew_qp_member_commit(real, &mem, gid, lid);
	}
	ew_qp_modify_unlock(&t);
	ew_qp_member_release(&mem);
	/* Taken by the hook; not a tail call: the hook must see us as caller. */
	module_put(THIS_MODULE);
	return ret;
}

/**
 * ew_detach_mcast_serialised() - ib_detach_mcast() of a user QP
 * @qp: as passed to ib_detach_mcast()
 * @gid: likewise
 * @lid: likewise
 *
 * Leaving a group is never refused; the record drops the group once the
 * driver has let the QP go, under the QP's modify lock.
 *
 * Return: what ib_detach_mcast() returns.
 */
static int ew_detach_mcast_serialised(struct ib_qp *qp, union ib_gid *gid,
				      u16 lid)
{
	struct ib_qp *real = qp->real_qp ? qp->real_qp : qp;
	struct ew_qp_modify_ticket t;
	int ret;

	ew_qp_modify_lock(real, &t);
	ret = ib_detach_mcast(qp, gid, lid);
	if (!ret)
		ew_qp_member_forget(real, gid, lid);
	ew_qp_modify_unlock(&t);
	/* Taken by the hook; not a tail call: the hook must see us as caller. */
	module_put(THIS_MODULE);
	return ret;
}

/*
 * int ib_attach_mcast(qp, gid, lid) and ib_detach_mcast(): a user QP's
 * call goes to @wrapper; kernel QPs (IPoIB: no uobject) and this module's
 * own calls pass. While the module is going, a join is refused and a
 * leave passes untouched.
 */
static void notrace ew_hook_mcast(unsigned long parent_ip,
				  struct ftrace_regs *fregs, void *wrapper,
				  void *going)
{
	struct ib_qp *qp;

	if (ew_hook_from_us(parent_ip))
		return;
	qp = (struct ib_qp *)ew_hook_arg(fregs, 0);
	if (!(qp->real_qp ? qp->real_qp : qp)->uobject)
		return;
	ew_hook_redirect(fregs, wrapper, going);
}

static void notrace ew_hook_attach_mcast(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *ops,
					 struct ftrace_regs *fregs)
{
	ew_hook_mcast(parent_ip, fregs, ew_attach_mcast_serialised, ew_deny_int);
}

static void notrace ew_hook_detach_mcast(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *ops,
					 struct ftrace_regs *fregs)
{
	ew_hook_mcast(parent_ip, fregs, ew_detach_mcast_serialised, NULL);
}

/*
 * An operation refused to every policed caller, whatever it asks: with
 * @reason to a job's process, as a process in no job to one under default
 * deny. @dev names what it was asked of, for the event. Unless
 * @report_denial, a refusal is neither counted nor reported; what audit
 * mode lets through always is (as audited).
 */
static bool ew_check_refused_to_policed(u32 op, const char *dev, u32 reason,
					bool report_denial)
{
	struct ew_request req = { .op = op };
	struct ew_event ev __uninitialized;
	struct ew_verdict v;
	struct ew_caller c;

	rcu_read_lock();
	if (!ew_caller_get_policed(&c)) {
		rcu_read_unlock();
		return false;
	}
	v = ew_verdict_of(&c, &req, c.job ? reason : 0);
	if (report_denial || !v.deny) {
		ew_deny_event(&ev, op, dev, 0);
		ew_judge_report(&c, &req, v, &ev);
	}
	rcu_read_unlock();
	return v.deny;
}

static void notrace ew_hook_devx_create(unsigned long ip, unsigned long parent_ip,
					struct ftrace_ops *ops,
					struct ftrace_regs *fregs)
{
	/*
	 * int mlx5_ib_devx_create(dev, is_user): only user contexts. mlx5
	 * DEVX drives QPs with raw firmware commands (INIT2RTR and friends)
	 * that never reach the verbs control path, so a job could connect
	 * anywhere; UCX falls back to verbs.
	 */
	if ((bool)ew_hook_arg(fregs, 1) &&
	    ew_check_refused_to_policed(EASTWEST_OP_DEVX_CONTEXT, "mlx5",
					EASTWEST_REASON_DEVX, true))
		ew_hook_divert(fregs, ew_deny_int);
}

/*
 * RDS over RDMA (rds_rdma): any process opens an AF_RDS socket, binds it on
 * the InfiniBand transport (SO_RDS_TRANSPORT loads rds_rdma on demand) and
 * sends to any address; the kernel's workers connect their own QPs there
 * with rdma_cm, past every rule of the process's job. The transport's
 * local address check runs in the process's bind (rds_bind(), whether the
 * process chose the transport or RDS picks one): it fails for policed
 * callers, so that a job's socket never gets the RDMA transport (RDS may
 * then pick TCP, which the network's own rules judge).
 *
 * RDS also asks every transport whether an address is its own in
 * rds_trans_get_preferred(): at a bind that names no transport, to pick
 * one, and at a socket's first send to an address, whether that is this
 * node. Those probes are refused alike but are no request for RDMA: they
 * are not counted or reported, or RDS over TCP would show as refusals.
 * In audit mode a probe that passes is reported (audited): the socket may
 * then get the RDMA transport, which enforce would refuse it.
 */
static bool ew_rds_transport_probe(unsigned long parent_ip)
{
	static const char probe[] = "rds_trans_get_preferred";
	char sym[sizeof(probe) + 1];

	/*
	 * The caller's name, " [rds]" cut off (or a ".part" the compiler
	 * split off); its address without kallsyms, which is no probe.
	 */
	snprintf(sym, sizeof(sym), "%ps", (void *)parent_ip);
	return !strncmp(sym, probe, sizeof(probe) - 1) &&
	       strchr(" .", sym[sizeof(probe) - 1]);
}

static void notrace ew_hook_rds_laddr_check(unsigned long ip,
					    unsigned long parent_ip,
					    struct ftrace_ops *ops,
					    struct ftrace_regs *fregs)
{
	/* int rds_ib_laddr_check(net, addr, scope_id) */
	if (!(current->flags & PF_KTHREAD) &&
	    ew_check_refused_to_policed(EASTWEST_OP_ULP_BIND, "rds",
					EASTWEST_REASON_KERNEL_ULP,
					!ew_rds_transport_probe(parent_ip)))
		ew_hook_divert(fregs, ew_deny_int);
}

static void notrace ew_hook_destroy_qp(unsigned long ip, unsigned long parent_ip,
				       struct ftrace_ops *ops,
				       struct ftrace_regs *fregs)
{
	struct ib_qp *qp;

	/* Our own call from ew_destroy_qp_serialised(): let it through. */
	if (ew_hook_from_us(parent_ip))
		return;
	/*
	 * int ib_destroy_qp_user(qp, udata). Kernel QPs, and a process's
	 * handle on an XRC target QP (not the QP itself), are never revoked.
	 * The XRC target QP itself has no uobject: the core creates it as its
	 * own and destroys it when the last handle goes, but a job configured
	 * it through those handles, so it may have a record.
	 */
	qp = (struct ib_qp *)ew_hook_arg(fregs, 0);
	if (qp->real_qp != qp ||
	    (!qp->uobject && qp->qp_type != IB_QPT_XRC_TGT))
		return;
	if (try_module_get(THIS_MODULE)) {
		ew_hook_divert(fregs, ew_destroy_qp_serialised);
		return;
	}
	/*
	 * A module on its way out has no job (jobs pin it), so no record a
	 * revoker would take, only tombstones, and no sweep runs: the plain
	 * destroy is safe once the tombstone is marked dying (the hooks still
	 * armed look records up), and the module's exit frees it.
	 */
	ew_qp_forget_going(qp);
}

/*
 * DOC: Resource visibility - who may read the RDMA core's objects
 *
 * The RDMA netlink resource dumps and gets (`rdma res show qp|cm_id|cq|pd|
 * mr|ctx|srq`) show every user's objects to any process of the PID
 * namespace, 6.12 to any process at all: local and remote QPNs, PSNs, MR
 * keys, pids and commands, all an attacker of another job needs to aim at
 * a connection. A user object is shown only to processes of the job whose
 * process created it (processes in no job see those of processes in no
 * job) and to administrators (CAP_NET_ADMIN in the initial user
 * namespace); kernel objects are shown as before. The dumps
 * take each object with rdma_restrack_get() and a get by number goes
 * through rdma_restrack_get_byid(): both are hooked, and a hidden object
 * looks like one being freed (the get fails) or a number nobody has
 * (-ENOENT). The core's own callers run in kernel threads, or for
 * administrators, and see everything.
 *
 * A per-QP statistics counter (`rdma statistic qp show`) lists the number
 * of every QP bound to it, whoever created it: the core's dump walks its
 * QP table itself, past these hooks. Auto mode by QP type puts every
 * user's QPs of a type on one counter, and an administrator binds any QP
 * by hand; only auto mode by process (RDMA_COUNTER_MASK_PID) keeps a
 * counter to the QPs of the one task its entry names. So a counter is
 * shown like its task's objects if auto mode keeps it per process, and
 * to administrators only otherwise. The core matches that task by its pid
 * number, which another job's task can get once the task is gone (a
 * thread that made the counter's first QP and ended): then its QPs would
 * join the counter too, so a counter whose task is gone is shown to
 * administrators only as well.
 */
static bool ew_counter_per_task(const struct rdma_restrack_entry *res)
{
	const struct rdma_counter *counter =
		container_of(res, struct rdma_counter, res);

	return counter->mode.mode == RDMA_COUNTER_MODE_AUTO &&
	       (counter->mode.mask & RDMA_COUNTER_MASK_PID) &&
	       pid_alive(res->task);
}

/* Who may see an object of the RDMA core. */
enum ew_res_audience {
	EW_RES_ANYONE,		/* a kernel object */
	EW_RES_JOB,		/* its creator's job, and administrators */
	EW_RES_ADMIN,		/* administrators only */
};

static enum ew_res_audience ew_res_audience(const struct rdma_restrack_entry *res)
{
	/* A counter that may hold several tasks' QPs names any job's. */
	if (res->type == RDMA_RESTRACK_COUNTER &&
	    (!res->user || !res->task || !ew_counter_per_task(res)))
		return EW_RES_ADMIN;
	if (!res->user || !res->task)
		return EW_RES_ANYONE;
	return EW_RES_JOB;
}

/*
 * Whether a reader in cgroup @cgrp sees an object of @owner's job (NULL:
 * of a process in no job) that @aud names. The capability is asked last,
 * and only if the job does not already decide: @admin is that of the
 * reading task if @sock is NULL, else that of @sock's opener.
 * Context: rcu_read_lock().
 */
static bool ew_res_visible_to(enum ew_res_audience aud,
			      const struct ew_job *owner, struct cgroup *cgrp,
			      const struct ew_nl_reader *sock)
{
	u64 cgid;

	if (aud == EW_RES_JOB &&
	    owner == ew_job_lookup_by_cgroup(cgrp, &cgid))
		return true;
	return sock ? file_ns_capable(sock->file, &init_user_ns, CAP_NET_ADMIN) :
		      ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN);
}

/*
 * Visible to the reader, and to the RDMA netlink sockets its system call is
 * on (DOC "Dumps resumed by another reader"). A kernel
 * object is visible to all without either question.
 */
static bool ew_res_visible(const struct rdma_restrack_entry *res)
{
	struct ew_nl_reader socks[EW_NL_READERS_MAX];
	enum ew_res_audience aud;
	const struct ew_job *owner;
	unsigned int i, n;
	bool visible;

	if ((current->flags & PF_KTHREAD) || ew_restrack_own_lookup())
		return true;
	aud = ew_res_audience(res);
	if (aud == EW_RES_ANYONE)
		return true;
	rcu_read_lock();
	owner = aud == EW_RES_JOB ? ew_res_job(res) : NULL;
	visible = ew_res_visible_to(aud, owner, task_dfl_cgroup(current), NULL);
	n = visible ? ew_nl_readers_get(socks) : 0;
	for (i = 0; i < n; i++) {
		visible = visible &&
			  ew_res_visible_to(aud, owner, socks[i].cgrp, &socks[i]);
		ew_nl_reader_put(&socks[i]);
	}
	rcu_read_unlock();
	return visible;
}

/* Stand-ins for a get of a hidden object. */
static noinline notrace int ew_hidden_int(void)
{
	return 0;
}

static noinline notrace void *ew_hidden_ptr(void)
{
	return ERR_PTR(-ENOENT);
}

static void notrace ew_hook_restrack_get(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *ops,
					 struct ftrace_regs *fregs)
{
	/* int rdma_restrack_get(res) */
	if (!ew_res_visible((struct rdma_restrack_entry *)ew_hook_arg(fregs, 0)))
		ew_hook_divert(fregs, ew_hidden_int);
}

/*
 * rdma_restrack_get_byid() through the visibility rule: the hook points a
 * get by number here, with a module reference taken for it.
 */
static struct rdma_restrack_entry *
ew_restrack_get_byid_visible(struct ib_device *dev,
			     enum rdma_restrack_type type, u32 id)
{
	struct rdma_restrack_entry *res = rdma_restrack_get_byid(dev, type, id);

	if (!IS_ERR(res) && !ew_res_visible(res)) {
		rdma_restrack_put(res);
		res = ERR_PTR(-ENOENT);
	}
	/* Taken by the hook; not a tail call: the hook must see us as caller. */
	module_put(THIS_MODULE);
	return res;
}

static void notrace ew_hook_restrack_get_byid(unsigned long ip,
					      unsigned long parent_ip,
					      struct ftrace_ops *ops,
					      struct ftrace_regs *fregs)
{
	/* Our own calls: ew_restrack_get_byid_visible(), ew_restrack_qp_is_jobs(). */
	if (ew_hook_from_us(parent_ip))
		return;
	ew_hook_redirect(fregs, ew_restrack_get_byid_visible, ew_hidden_ptr);
}

/*
 * A port's P_Key and Q_Key violation counters (ibv_query_port()) count
 * the packets it dropped for a wrong key, whoever they were meant for.
 * soft-RoCE looks a packet's destination QP up before its Q_Key and
 * counts nothing for a number no UD QP has, so one datagram with a wrong
 * Q_Key per number, and the counter read around it, tell which numbers
 * are live UD QPs of any job (mlx5 reports its vport's counter too). They
 * are shown only to administrators (CAP_NET_ADMIN in the initial user
 * namespace); others, and the uverbs query made for them, read 0.
 */
static int ew_query_port_hidden(struct ib_device *dev, u32 port,
				struct ib_port_attr *attr)
{
	int ret = ib_query_port(dev, port, attr);

	if (!ret && !ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN)) {
		attr->bad_pkey_cntr = 0;
		attr->qkey_viol_cntr = 0;
	}
	/* Taken by the hook; not a tail call: the hook must see us as caller. */
	module_put(THIS_MODULE);
	return ret;
}

static void notrace ew_hook_query_port(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *ops,
				       struct ftrace_regs *fregs)
{
	/* int ib_query_port(dev, port, attr); kernel threads see all. */
	if ((current->flags & PF_KTHREAD) || ew_hook_from_us(parent_ip))
		return;
	ew_hook_redirect(fregs, ew_query_port_hidden, NULL);
}

struct ew_hook {
	const char *name;
	unsigned long addr;
	struct ftrace_ops ops;
	bool registered;
};

/*
 * Every hook redirects the call (IPMODIFY: its registration fails if
 * another owner redirects the function already) and keeps ftrace from
 * being switched off while it is registered (PERMANENT).
 */
#define EW_HOOK_OPS(handler) {						\
	.func = handler,						\
	.flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_PERMANENT,	\
}

#define EW_HOOK(fn, handler) {						\
	.name = #fn,							\
	.addr = (unsigned long)fn,					\
	.ops = EW_HOOK_OPS(handler),					\
}

static struct ew_hook ew_hooks[] = {
	EW_HOOK(ib_modify_qp_with_udata, ew_hook_modify_qp),
	EW_HOOK(rdma_create_user_ah, ew_hook_create_ah),
	EW_HOOK(ib_create_qp_user, ew_hook_create_qp),
	EW_HOOK(ib_destroy_qp_user, ew_hook_destroy_qp),
	EW_HOOK(ib_attach_mcast, ew_hook_attach_mcast),
	EW_HOOK(ib_detach_mcast, ew_hook_detach_mcast),
	EW_HOOK(rdma_restrack_get, ew_hook_restrack_get),
	EW_HOOK(rdma_restrack_get_byid, ew_hook_restrack_get_byid),
	EW_HOOK(ib_query_port, ew_hook_query_port),
	EW_HOOK(rdma_connect_ece, ew_hook_cm_connect),
	EW_HOOK(rdma_listen, ew_hook_cm_listen),
	EW_HOOK(rdma_accept_ece, ew_hook_cm_accept),
	EW_HOOK(rdma_reject, ew_hook_cm_reject),
};

/*
 * rdma_cm's event handler is static: hooked by name. rdma_cm is loaded
 * before us (we use its exports) and stays while we are loaded, so the
 * hook is armed with the others, or the load fails.
 */
#define EW_CM_EVENT_FUNC	"cma_cm_event_handler"

static struct ftrace_ops ew_cm_event_ops = {
	.func = ew_hook_cm_event,
	.flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_PERMANENT,
};

/* Why a hook could not be registered, for the log. */
static void ew_hook_register_failed(const char *name, int ret)
{
	pr_err("cannot hook %s: %d%s\n", name, ret,
	       ret == -EBUSY ?
	       " (another IPMODIFY owner, e.g. a livepatch, or kernel.ftrace_enabled=0)" :
	       "");
}

/*
 * Hook the function named @func (a string literal: ftrace may write into
 * a pattern, never into a plain name). Returns -ENOENT if no function has
 * that name, else register_ftrace_function()'s error.
 */
static int ew_hook_by_name(struct ftrace_ops *ops, char *func)
{
	int ret;

	if (ftrace_set_filter(ops, func, strlen(func), 1))
		return -ENOENT;
	ret = register_ftrace_function(ops);
	if (ret) {
		ew_hook_register_failed(func, ret);
		ftrace_set_filter(ops, NULL, 0, 1);
	}
	return ret;
}

static void ew_unhook_by_name(struct ftrace_ops *ops)
{
	unregister_ftrace_function(ops);
	/* Drop the filter so that a later load of the module matches afresh. */
	ftrace_set_filter(ops, NULL, 0, 1);
}

static int ew_cm_event_arm(void)
{
	int ret = ew_hook_by_name(&ew_cm_event_ops, EW_CM_EVENT_FUNC);

	if (ret == -ENOENT)
		pr_err("rdma_cm has no %s: connect requests reaching listeners could not be judged, load refused\n",
		       EW_CM_EVENT_FUNC);
	return ret;
}

/* Whether an mlx5 device is registered: its users could ask for DEVX. */
static bool ew_mlx5_present(void)
{
	bool found = false;
	struct ew_dev *d;
	unsigned int n;

	ew_registry_lock();
	for (n = 0; !found && (d = ew_registry_nth(n)); n++)
		found = d->ibdev->ops.driver_id == RDMA_DRIVER_MLX5;
	ew_registry_unlock();
	return found;
}

/*
 * Hooks in modules that may load and unload while we run, on functions
 * they do not export: hooked by name (ftrace_set_filter()), armed when we
 * load if the module is there, else from a module notifier as it comes,
 * before its init runs (its ftrace sites exist from COMING on), and
 * disarmed as it goes. A module that comes without its function (a kernel
 * that renamed it) is refused its load rather than run unpoliced (fail
 * closed); so is our own load if @present says the module is there.
 */
struct ew_late_hook {
	const char *module;
	char *func;		/* a string literal: see ew_hook_by_name() */
	const char *what;	/* what is policed once armed, for the log */
	bool (*present)(void);	/* may be NULL: absent if not found */
	struct ftrace_ops ops;
	bool armed;		/* under ew_late_hook_lock; read locklessly */
};

#define EW_LATE_HOOK(mod, fn, handler, policed, is_present) {		\
	.module = mod,							\
	.func = fn,							\
	.what = policed,						\
	.present = is_present,						\
	.ops = EW_HOOK_OPS(handler),					\
}

static struct ew_late_hook ew_late_hooks[] = {
	/* Compile-tested only: no ConnectX hardware here. */
	[EW_LATE_DEVX] = EW_LATE_HOOK("mlx5_ib", "mlx5_ib_devx_create",
				      ew_hook_devx_create,
				      "DEVX user contexts", ew_mlx5_present),
	[EW_LATE_RDS] = EW_LATE_HOOK("rds_rdma", "rds_ib_laddr_check",
				     ew_hook_rds_laddr_check,
				     "RDS sockets on RDMA", NULL),
};

/* Serialises arming and disarming (module notifier) against our unload. */
static DEFINE_MUTEX(ew_late_hook_lock);

static bool ew_late_hook_armed(unsigned int i)
{
	return READ_ONCE(ew_late_hooks[i].armed);
}

/*
 * Returns 0 if armed or if there is nothing to arm (the module absent),
 * else the error: what the hook polices would go unpoliced. @coming: the
 * module is loading now.
 */
static int ew_late_hook_arm(struct ew_late_hook *h, bool coming)
{
	int ret = 0;

	mutex_lock(&ew_late_hook_lock);
	if (h->armed)
		goto out;
	ret = ew_hook_by_name(&h->ops, h->func);
	if (ret == -ENOENT) {
		ret = 0;
		if (coming || (h->present && h->present())) {
			pr_err("%s is present but has no %s: %s cannot be policed, load refused\n",
			       h->module, h->func, h->what);
			ret = -ENOENT;
		}
		goto out;
	}
	if (ret)
		goto out;
	WRITE_ONCE(h->armed, true);
	pr_info("%s hooked: %s are policed\n", h->func, h->what);
out:
	mutex_unlock(&ew_late_hook_lock);
	return ret;
}

static void ew_late_hook_disarm(struct ew_late_hook *h)
{
	mutex_lock(&ew_late_hook_lock);
	if (h->armed) {
		ew_unhook_by_name(&h->ops);
		WRITE_ONCE(h->armed, false);
	}
	mutex_unlock(&ew_late_hook_lock);
}

static int ew_late_hook_module_event(struct notifier_block *nb,
				     unsigned long state, void *data)
{
	struct module *mod = data;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ew_late_hooks); i++) {
		if (strcmp(mod->name, ew_late_hooks[i].module))
			continue;
		if (state == MODULE_STATE_COMING)
			return notifier_from_errno(ew_late_hook_arm(&ew_late_hooks[i],
								    true));
		if (state == MODULE_STATE_GOING)
			ew_late_hook_disarm(&ew_late_hooks[i]);
		return NOTIFY_OK;
	}
	return NOTIFY_DONE;
}

static struct notifier_block ew_late_hook_nb = {
	.notifier_call = ew_late_hook_module_event,
};

static void ew_late_hooks_disarm(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ew_late_hooks); i++)
		ew_late_hook_disarm(&ew_late_hooks[i]);
}

/*
 * Proof that a hook is armed: the function's ftrace site (after an ENDBR64
 * on IBT kernels) must now be a call (0xe8) into an ftrace trampoline
 * rather than the 5-byte NOP it is when nobody traces it.
 */
static bool ew_hook_armed(const struct ew_hook *hook)
{
	static const u8 endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	const u8 *site = (const u8 *)hook->addr;

	if (!memcmp(site, endbr64, sizeof(endbr64)))
		site += sizeof(endbr64);
	return site[0] == 0xe8;
}

static void ew_hook_remove(struct ew_hook *hook)
{
	if (!hook->registered)
		return;
	unregister_ftrace_function(&hook->ops);
	ftrace_set_filter_ip(&hook->ops, hook->addr, 1, 0);
	hook->registered = false;
}

static int ew_hook_install(struct ew_hook *hook)
{
	int ret;

	ret = ftrace_set_filter_ip(&hook->ops, hook->addr, 0, 0);
	if (ret) {
		pr_err("cannot filter %s: %d\n", hook->name, ret);
		return ret;
	}
	ret = register_ftrace_function(&hook->ops);
	if (ret) {
		ew_hook_register_failed(hook->name, ret);
		ftrace_set_filter_ip(&hook->ops, hook->addr, 1, 0);
		return ret;
	}
	hook->registered = true;
	if (!ew_hook_armed(hook)) {
		pr_err("self-test: %s is not patched after registration\n",
		       hook->name);
		ew_hook_remove(hook);
		return -EFAULT;
	}
	return 0;
}

/**
 * ew_hooks_init() - arm every hook, or none (fail closed: the load fails)
 */
int ew_hooks_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(ew_hooks); i++) {
		ret = ew_hook_install(&ew_hooks[i]);
		if (ret) {
			while (i--)
				ew_hook_remove(&ew_hooks[i]);
			return ret;
		}
	}
	ret = ew_cm_event_arm();
	if (ret)
		goto err_hooks;
	ret = register_module_notifier(&ew_late_hook_nb);
	if (ret)
		goto err_cm_event;
	for (i = 0; i < ARRAY_SIZE(ew_late_hooks); i++) {
		ret = ew_late_hook_arm(&ew_late_hooks[i], false);
		if (ret)
			goto err_notifier;
	}
	pr_info("control-path hooks armed (%zu)\n", ARRAY_SIZE(ew_hooks) + 1);
	return 0;

err_notifier:
	unregister_module_notifier(&ew_late_hook_nb);
	ew_late_hooks_disarm();
err_cm_event:
	ew_unhook_by_name(&ew_cm_event_ops);
err_hooks:
	i = ARRAY_SIZE(ew_hooks);
	while (i--)
		ew_hook_remove(&ew_hooks[i]);
	return ret;
}

/**
 * ew_hooks_exit() - disarm; ftrace waits for handlers and stubs in flight
 */
void ew_hooks_exit(void)
{
	unsigned int i = ARRAY_SIZE(ew_hooks);

	unregister_module_notifier(&ew_late_hook_nb);
	ew_late_hooks_disarm();
	ew_unhook_by_name(&ew_cm_event_ops);
	while (i--)
		ew_hook_remove(&ew_hooks[i]);
}
