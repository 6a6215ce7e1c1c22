/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_QPGATE_H
#define _EW_QPGATE_H

#include <linux/types.h>
#include <linux/eastwest.h>

/*
 * The attribute bits that change who a QP talks to or how. Any of them in a
 * modify of a policed caller gets the QP's whole configuration judged.
 */
#define EW_QP_POLICED_MASK (IB_QP_AV | IB_QP_ALT_PATH | IB_QP_PKEY_INDEX | \
			    IB_QP_PORT | IB_QP_QKEY | IB_QP_DEST_QPN)

/**
 * struct ew_qp_view - what eastwest knows of a QP before a modify
 * @tracked: it has a tracking record
 * @revoked: the record is a revoked QP's (or one being revoked)
 * @state: enum ib_qp_state the last allowed and applied modify left it in
 *	(IB_QPS_RESET when untracked)
 * @job_id: the job the record answers to
 * @n_groups: the multicast groups the record holds
 */
struct ew_qp_view {
	bool tracked;
	bool revoked;
	u8 state;
	u32 job_id;
	u32 n_groups;
};

/**
 * struct ew_qp_modify - one modify as the caller asks for it
 * @qp_type: enum ib_qp_type of the real QP
 * @mask: enum ib_qp_attr_mask bits
 * @next_state: attr->qp_state (meaningful with IB_QP_STATE)
 * @policed: the caller is policed (in a job, or in no job under deny)
 * @job_id: the caller's job, 0 if none
 * @breaks_table: the modify names no state or claims one (IB_QP_CUR_STATE),
 *	and the QP's real state, as its driver reports it, does not allow it:
 *	the claim is not that state, or the IB specification's state table
 *	(ib_modify_qp_is_ok()) has no such edge with these attributes
 */
struct ew_qp_modify {
	u32 qp_type;
	u32 mask;
	u8 next_state;
	bool policed;
	u32 job_id;
	bool breaks_table;
};

/**
 * enum ew_gate_verdict - what a modify needs before it may reach the driver
 * @EW_GATE_PASS: nothing a destination depends on changes: no judgement
 * @EW_GATE_JUDGE: judge the QP's whole configuration after this modify
 * @EW_GATE_REFUSE: refused for the reason returned beside it
 */
enum ew_gate_verdict {
	EW_GATE_PASS,
	EW_GATE_JUDGE,
	EW_GATE_REFUSE,
};

bool ew_qp_state_live(u8 state);
bool ew_qp_transition_ok(u8 cur, u8 next);
bool ew_qp_gate_passes_anyone(const struct ew_qp_view *qp,
			      const struct ew_qp_modify *m);
enum ew_gate_verdict ew_qp_gate(const struct ew_qp_view *qp,
				const struct ew_qp_modify *m, u32 *reason);

#endif /* _EW_QPGATE_H */
