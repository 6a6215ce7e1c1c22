/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _FAKE_COUNTER_RESTRACK_PRIV_H
#define _FAKE_COUNTER_RESTRACK_PRIV_H

#include <rdma/restrack.h>

/*
 * Exported by ib_core but declared only in its private restrack.h
 * (identical in 6.1 and 6.12).
 */
void rdma_restrack_new(struct rdma_restrack_entry *res,
		       enum rdma_restrack_type type);
void rdma_restrack_parent_name(struct rdma_restrack_entry *dst,
			       const struct rdma_restrack_entry *parent);
void rdma_restrack_add(struct rdma_restrack_entry *res);
void rdma_restrack_del(struct rdma_restrack_entry *res);

#endif
