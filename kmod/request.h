/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_REQUEST_H
#define _EW_REQUEST_H

#include <linux/types.h>

struct ib_device;
struct ib_qp;
struct ib_qp_attr;
struct rdma_ah_attr;
struct ew_path;
struct ew_request;
union ib_gid;

int ew_request_resolve_pkeys(struct ib_device *dev, struct ew_request *req);
int ew_request_refresh(struct ib_device *dev, struct ew_request *req);
bool ew_path_from_ah(struct ib_device *dev, const struct rdma_ah_attr *ah,
		     struct ew_path *path, bool want_protection);
struct rdma_cm_id;
u32 ew_request_from_cm_id(const struct rdma_cm_id *id, bool connect,
			  bool want_protection, struct ew_request *req);
u32 ew_request_from_modify(struct ib_device *dev, struct ib_qp *real,
			   const struct ib_qp_attr *attr, int mask,
			   bool want_protection, struct ew_request *req);
void ew_request_from_mcast(const struct ib_qp *real, const union ib_gid *gid,
			   u16 lid, struct ew_request *req);

#endif /* _EW_REQUEST_H */
