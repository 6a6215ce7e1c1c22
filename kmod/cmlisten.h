/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_CMLISTEN_H
#define _EW_CMLISTEN_H

#include <linux/types.h>

struct rdma_cm_id;
struct ew_job;
struct ew_request;

bool ew_cm_dest_is_foreign(struct rdma_cm_id *id, const struct ew_request *req,
			   const struct ew_job *job);

#endif /* _EW_CMLISTEN_H */
