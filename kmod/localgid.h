/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_LOCALGID_H
#define _EW_LOCALGID_H

#include <linux/types.h>

struct ib_device;
struct ew_job;
struct ew_request;
struct rdma_restrack_entry;

struct ib_device *ew_local_gid_dev(const u8 *gid);
int ew_local_gids_refresh(struct ib_device *dev);
void ew_local_gids_forget(struct ib_device *dev);
struct ew_job *ew_res_job(const struct rdma_restrack_entry *res);
bool ew_restrack_own_lookup(void);
bool ew_dest_is_foreign(const struct ew_job *job, struct ib_device *dev,
			const struct ew_request *req, bool *local);

#endif /* _EW_LOCALGID_H */
