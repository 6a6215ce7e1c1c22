/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_QPTRACK_H
#define _EW_QPTRACK_H

#include <linux/types.h>
#include "policy.h"

struct ib_qp;
struct ew_job;

int ew_qp_track(struct ew_job *job, struct ib_qp *qp,
		const struct ew_request *req);
bool ew_qp_untrack(struct ib_qp *qp);
bool ew_qp_is_tracked(struct ib_qp *qp);
struct mutex;
struct mutex *ew_qp_modify_lock(struct ib_qp *qp);
struct ib_udata;
int ew_destroy_qp_after_revoke(struct ib_qp *qp, struct ib_udata *udata);
unsigned int ew_qp_revoke_job(u32 job_id);
unsigned int ew_qp_revalidate_job(struct ew_job *job);
struct ib_device;
unsigned int ew_qp_revalidate_dev(struct ib_device *dev);
unsigned int ew_qp_revalidate_protection(void);
unsigned int ew_qp_revalidate_all(void);
int ew_qptrack_init(void);
void ew_qptrack_exit(void);

#endif /* _EW_QPTRACK_H */
