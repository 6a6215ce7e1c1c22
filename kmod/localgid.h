/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_LOCALGID_H
#define _EW_LOCALGID_H

#include <linux/types.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

struct ib_qp;
struct ew_job;

/**
 * struct ew_core_qp - a user QP as the RDMA core's table listed it
 * @qp: its pointer (no reference held)
 * @qpn: its number
 */
struct ew_core_qp {
	struct ib_qp *qp;
	u32 qpn;
};

/*
 * The RDMA core's per-device table of one resource type. Its type is
 * declared only in the core's private restrack.h (identical in 6.1 and
 * 6.12); ib_device.res points at an array of them, by type.
 */
struct ew_restrack_root {
	struct xarray xa;
	u32 next_id;
};

/* @dev's restrack table of @type: its entries by ID, under xa_lock(). */
static inline struct xarray *ew_restrack_xa(struct ib_device *dev,
					    enum rdma_restrack_type type)
{
	return &((struct ew_restrack_root *)dev->res)[type].xa;
}

int ew_local_gids_refresh(struct ib_device *dev);
void ew_local_gids_incomplete_set(void);
void ew_local_gids_forget(struct ib_device *dev);
struct ew_job *ew_res_job(const struct rdma_restrack_entry *res);
bool ew_restrack_own_lookup(void);
const struct ib_gid_attr *ew_gid_attr_find(struct ib_device *dev,
					   const u8 *gid);
struct ib_device *ew_local_dest_dev(struct ib_device *dev, const u8 *gid,
				    bool *ambiguous);
bool ew_res_is_jobs(const struct rdma_restrack_entry *res,
		    const struct ew_job *job);
bool ew_res_is_no_jobs(const struct rdma_restrack_entry *res);
bool ew_restrack_qp_is_jobs(struct ib_device *dev, u32 qpn,
			    const struct ew_job *job);
bool ew_restrack_qp_is_no_jobs(struct ib_device *dev, u32 qpn, bool user);
bool ew_restrack_qp_exists(struct ib_device *dev, u32 qpn);
bool ew_restrack_qp_none_or_callers(struct ib_device *dev, u32 qpn,
				    const struct ew_job *job);
unsigned int ew_restrack_user_qps(struct ib_device *dev, unsigned long *next,
				  struct ew_core_qp *out, unsigned int max);
struct ib_qp *ew_restrack_qp_hold(struct ib_device *dev, u32 qpn);

#endif /* _EW_LOCALGID_H */
