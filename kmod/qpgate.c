// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: QP state gate - what a modify may do, judged on the QP, not the claim
 *
 * A QP reaches a destination by entering a live state (RTR, then RTS, SQD,
 * SQE) with the attributes it was given on the way. The gate decides, from
 * what eastwest recorded of the QP (its state after the last modify that
 * was allowed and that the driver applied, its job, whether it was revoked)
 * and from the modify asked for, whether the modify passes untouched, needs
 * the QP's whole configuration judged, or is refused:
 *
 * - A revoked QP (or one being revoked) may only go to RESET, whoever asks;
 *   RESET wipes its configuration and its record.
 * - A modify that names no state, or claims the QP's current state, must
 *   be allowed by the IB specification's state table from the QP's real
 *   state (its driver's word, @breaks_table), whoever asks: most drivers
 *   check the table on every modify, but rxe of 6.12 (like bnxt_re and
 *   irdma) only when a state is named, so that a modify of the destination
 *   QPN alone re-aimed a connected QP of a process in no job at a job's QP
 *   on this node, and attributes set in RESET configured a QP that then
 *   left RESET without the INIT that runs the QPN reuse pass. (Driver and
 *   iWARP QPs have their drivers' own state machines: not checked.)
 * - A policed caller may not name the QP's current state (IB_QP_CUR_STATE):
 *   drivers believe the claim (rxe lets an ERR QP "in RTR" go to RTS, and a
 *   RESET QP reach RTS without INIT).
 * - A QP answers to the job that configured it: another job's process, or
 *   a process in no job, may only move it to RESET or ERR.
 * - A policed caller's state change must be an edge of the QP state machine
 *   from the recorded state (an untracked QP is taken to be in RESET, so a
 *   QP that was never judged into INIT cannot be raised to RTR). A caller
 *   in no job has no records: every raise of its untracked QPs is judged.
 * - Entering a live state from a state that is not, or changing any
 *   attribute of EW_QP_POLICED_MASK, is judged on the recorded
 *   configuration with this modify's attributes folded in. Moving to RESET
 *   or ERR, and changes within the live states that touch no policed
 *   attribute (RTR->RTS, RTS->SQD, timeouts), pass.
 *
 * Callers that are not policed (no job, default allow) pass, except on a
 * job's QP or a revoked one; so do the kernel's special QPs (SMI, GSI).
 * Pure logic, no RDMA calls: KUnit runs it.
 */

#include <linux/export.h>
#include <rdma/ib_verbs.h>

#include "qpgate.h"

/**
 * ew_qp_state_live() - may a QP in @state carry traffic?
 * @state: enum ib_qp_state
 */
bool ew_qp_state_live(u8 state)
{
	return state == IB_QPS_RTR || state == IB_QPS_RTS ||
	       state == IB_QPS_SQD || state == IB_QPS_SQE;
}

/**
 * ew_qp_transition_ok() - is @cur -> @next an edge of the QP state machine?
 * @cur: the recorded state
 * @next: the state asked for
 *
 * The edges of the IB specification's QP state machine (the table in the
 * core's ib_modify_qp_is_ok()): every state may go to RESET or ERR;
 * RESET->INIT, INIT->INIT, INIT->RTR, RTR->RTS, RTS->RTS, RTS->SQD,
 * SQD->SQD, SQD->RTS and SQE->RTS. SQE is entered by the device, never
 * asked for. A recorded RTS may really be SQE or ERR (the device moved
 * it): the driver still checks the real state, this only forbids what no
 * real state allows.
 */
bool ew_qp_transition_ok(u8 cur, u8 next)
{
	if (next == IB_QPS_RESET || next == IB_QPS_ERR)
		return cur <= IB_QPS_ERR;
	switch (cur) {
	case IB_QPS_RESET:
		return next == IB_QPS_INIT;
	case IB_QPS_INIT:
		return next == IB_QPS_INIT || next == IB_QPS_RTR;
	case IB_QPS_RTR:
		return next == IB_QPS_RTS;
	case IB_QPS_RTS:
		return next == IB_QPS_RTS || next == IB_QPS_SQD;
	case IB_QPS_SQD:
		return next == IB_QPS_SQD || next == IB_QPS_RTS;
	case IB_QPS_SQE:
		return next == IB_QPS_RTS;
	}
	return false;
}

/**
 * ew_qp_gate_passes_anyone() - does the gate pass @m whoever the caller is?
 * @qp: what eastwest recorded of the QP
 * @m: the modify (its caller fields are not read)
 *
 * Moving a QP that is not revoked to RESET or ERR (a revoked one to RESET),
 * with no policed attribute and no state claim, passes for every caller,
 * as do the special QPs: the hook then need not look the caller up.
 */
bool ew_qp_gate_passes_anyone(const struct ew_qp_view *qp,
			      const struct ew_qp_modify *m)
{
	if (m->qp_type == IB_QPT_SMI || m->qp_type == IB_QPT_GSI)
		return true;
	if (!(m->mask & IB_QP_STATE) ||
	    (m->mask & (EW_QP_POLICED_MASK | IB_QP_CUR_STATE)))
		return false;
	if (m->next_state == IB_QPS_RESET)
		return true;
	return m->next_state == IB_QPS_ERR && !qp->revoked;
}

/**
 * ew_qp_gate() - what a modify needs before it may reach the driver
 * @qp: what eastwest recorded of the QP
 * @m: the modify and its caller
 * @reason: set to an enum eastwest_reason when the verdict is EW_GATE_REFUSE
 *
 * See "QP state gate".
 */
enum ew_gate_verdict ew_qp_gate(const struct ew_qp_view *qp,
				const struct ew_qp_modify *m, u32 *reason)
{
	bool to_state = m->mask & IB_QP_STATE;
	u8 next = to_state ? m->next_state : qp->state;
	bool lowering = to_state &&
			(next == IB_QPS_RESET || next == IB_QPS_ERR);

	/* The special QPs are the kernel's (MADs), never a job's. */
	if (m->qp_type == IB_QPT_SMI || m->qp_type == IB_QPT_GSI)
		return EW_GATE_PASS;
	if (qp->revoked) {
		if (to_state && next == IB_QPS_RESET)
			return EW_GATE_PASS;
		*reason = EASTWEST_REASON_REVOKED;
		return EW_GATE_REFUSE;
	}
	if (qp->tracked && qp->job_id != m->job_id && !lowering) {
		*reason = EASTWEST_REASON_QP_OWNER;
		return EW_GATE_REFUSE;
	}
	if (m->breaks_table) {
		*reason = EASTWEST_REASON_QP_STATE;
		return EW_GATE_REFUSE;
	}
	if (!m->policed)
		return EW_GATE_PASS;
	if (m->mask & IB_QP_CUR_STATE) {
		*reason = EASTWEST_REASON_QP_STATE;
		return EW_GATE_REFUSE;
	}
	if (lowering)
		return EW_GATE_PASS;
	/*
	 * A caller in no job has no record of its QPs: its state is unknown,
	 * and any raise is judged (and refused for being in no job).
	 */
	if (!qp->tracked && !m->job_id)
		return to_state || (m->mask & EW_QP_POLICED_MASK) ?
		       EW_GATE_JUDGE : EW_GATE_PASS;
	if (to_state && !ew_qp_transition_ok(qp->state, next)) {
		*reason = EASTWEST_REASON_QP_STATE;
		return EW_GATE_REFUSE;
	}
	if (m->mask & EW_QP_POLICED_MASK)
		return EW_GATE_JUDGE;
	if (ew_qp_state_live(next) && !ew_qp_state_live(qp->state))
		return EW_GATE_JUDGE;
	return EW_GATE_PASS;
}
