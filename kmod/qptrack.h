/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_QPTRACK_H
#define _EW_QPTRACK_H

#include <linux/list.h>
#include <linux/types.h>
#include "policy.h"
#include "qpgate.h"

struct ib_qp;
struct ib_udata;
struct ib_device;
struct mutex;
struct ew_job;
struct ew_qp;
struct ew_qp_group;
union ib_gid;

/**
 * struct ew_qp_change - what a modify will do to its QP's record
 * @view: the record before the modify (ew_qp_lookup())
 * @req: the configuration judged (the record's, this modify folded in)
 * @judged: @req was judged and allowed: the record takes it
 * @job_id: the caller's job (a new record answers to it)
 * @to_state: the modify changes the state, to @next_state
 * @next_state: enum ib_qp_state
 * @seq: ew_qp_policy_seq_read() before the rules were read
 * @local: @req's destination is on this node (a QP of the caller's job)
 * @set_rq_psn: keyed PSNs: the modify's receive PSN becomes @rq_psn
 * @set_sq_psn: likewise its send PSN, @sq_psn
 * @rq_psn: see @set_rq_psn
 * @sq_psn: see @set_sq_psn
 * @fresh: a record for an untracked QP, allocated before the decision
 */
struct ew_qp_change {
	struct ew_qp_view view;
	bool judged;
	u32 job_id;
	bool to_state;
	u8 next_state;
	unsigned int seq;
	bool local;
	bool set_rq_psn, set_sq_psn;
	u32 rq_psn, sq_psn;
	struct ew_qp *fresh;
	/* Last: ew_qp_change_start() fills it once, zeroing only the rest. */
	struct ew_request req;
};

/**
 * struct ew_qp_member - a multicast join, between its check and its record
 * @job_id: the caller's job (0: the membership is not recorded)
 * @seq: ew_qp_policy_seq_read() before the rules were read
 * @group: the membership's entry, allocated before the check
 * @fresh: a record for an untracked QP, likewise
 */
struct ew_qp_member {
	u32 job_id;
	unsigned int seq;
	struct ew_qp_group *group;
	struct ew_qp *fresh;
};

bool ew_dest_is_foreign(const struct ew_job *job, struct ib_device *dev,
			const struct ew_request *req, bool *local);
bool ew_dest_open_to_unpoliced(struct ib_device *dev, const u8 *dgid,
			       bool has_qpn, u32 qpn);
unsigned int ew_qp_policy_seq_read(void);
void ew_qp_lookup(struct ib_qp *qp, struct ew_qp_view *view,
		  struct ew_request *req);
/**
 * struct ew_qp_modify_ticket - a holder of a QP's modify lock
 * @node: in its slot's list of holders
 * @qp: the QP held
 *
 * On the holder's stack from ew_qp_modify_lock() to ew_qp_modify_unlock().
 */
struct ew_qp_modify_ticket {
	struct list_head node;
	const struct ib_qp *qp;
};

void ew_qp_change_start(struct ib_qp *qp, struct ew_qp_change *chg,
			int mask, u8 next_state);
void ew_qp_prealloc(struct ew_qp_change *chg);
void ew_qp_change_release(struct ew_qp_change *chg);
void ew_qp_commit(struct ib_qp *qp, struct ew_qp_change *chg);
void ew_qp_member_prealloc(struct ew_qp_member *mem);
void ew_qp_member_release(struct ew_qp_member *mem);
void ew_qp_member_commit(struct ib_qp *qp, struct ew_qp_member *mem,
			 const union ib_gid *gid, u16 lid);
void ew_qp_member_forget(struct ib_qp *qp, const union ib_gid *gid, u16 lid);
void ew_qp_modify_lock(struct ib_qp *qp, struct ew_qp_modify_ticket *t);
void ew_qp_modify_unlock(struct ew_qp_modify_ticket *t);
int ew_destroy_qp_serialised(struct ib_qp *qp, struct ib_udata *udata);
void ew_qp_forget_going(struct ib_qp *qp);
unsigned int ew_qp_revoke_job(u32 job_id);
unsigned int ew_qp_revalidate_job(struct ew_job *job);
unsigned int ew_qp_revalidate_all(void);
unsigned int ew_qp_revoke_unrecorded(void);
int ew_qp_revalidate_local(struct ib_qp *qp);
int ew_qptrack_init(void);
void ew_qptrack_stop(void);
void ew_qptrack_exit(void);

#endif /* _EW_QPTRACK_H */
