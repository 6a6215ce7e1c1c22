/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_LOCALGID_H
#define _EW_LOCALGID_H

#include <linux/types.h>

struct ib_device;
struct ib_qp;
struct ew_job;
struct rdma_restrack_entry;

/**
 * struct ew_core_qp - a user QP as the RDMA core's table listed it
 * @qp: its pointer (no reference held)
 * @qpn: its number
 */
struct ew_core_qp {
	struct ib_qp *qp;
	u32 qpn;
};

int ew_local_gids_refresh(struct ib_device *dev);
void ew_local_gids_forget(struct ib_device *dev);
struct ew_job *ew_res_job(const struct rdma_restrack_entry *res);
bool ew_restrack_own_lookup(void);
struct ib_device *ew_local_dest_dev(struct ib_device *dev, const u8 *gid,
				    bool *ambiguous);
bool ew_res_is_jobs(const struct rdma_restrack_entry *res,
		    const struct ew_job *job);
bool ew_restrack_qp_is_jobs(struct ib_device *dev, u32 qpn,
			    const struct ew_job *job);
bool ew_restrack_qp_is_no_jobs(struct ib_device *dev, u32 qpn);
unsigned int ew_restrack_user_qps(struct ib_device *dev, unsigned long *next,
				  struct ew_core_qp *out, unsigned int max);
struct ib_qp *ew_restrack_qp_hold(struct ib_device *dev, u32 qpn);

#endif /* _EW_LOCALGID_H */
