/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_CMPRIV_H
#define _EW_CMPRIV_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/rdma_cm.h>
#include <rdma/restrack.h>

/*
 * rdma_cm's private ID, up to its restrack entry: struct rdma_id_private of
 * drivers/infiniband/core/cma_priv.h, which no installed header declares.
 * Its fields up to @res are the same in 6.1 and 6.12, and so is enum
 * rdma_cm_state; the locks and the completion are the kernel's own types,
 * so their sizes follow the kernel's configuration. The route's state says
 * whether the route is final (request.c); the state and the bound address
 * of the IDs in a device's restrack table say which of them listen where
 * (cmlisten.c). ew_cm_priv_sane() checks the layout on the caller's own ID
 * before anything is read through @res.
 */
#define EW_RDMA_CM_ROUTE_RESOLVED	4
#define EW_RDMA_CM_LISTEN		8

struct ew_rdma_id_private {
	struct rdma_cm_id id;
	void *bind_list;
	struct hlist_node node;
	struct list_head device_item;
	struct list_head listen_item;
	struct list_head id_list_entry;
	void *cma_dev;
	struct list_head mc_list;
	int internal_id;
	int state;
	spinlock_t lock;		/* rdma_cm's; never taken here */
	struct mutex qp_mutex;		/* likewise */
	struct completion comp;
	refcount_t refcount;
	struct mutex handler_mutex;	/* likewise */
	int backlog;
	int timeout_ms;
	void *query;
	int query_id;
	void *cm_id;
	u32 seq_num;
	u32 qkey;
	u32 qp_num;
	u32 options;
	u8 srq;
	u8 tos;
	u8 tos_set:1;
	u8 timeout_set:1;
	u8 min_rnr_timer_set:1;
	u8 reuseaddr;
	u8 afonly;
	u8 timeout;
	u8 min_rnr_timer;
	u8 used_resolve_ip;
	enum ib_gid_type gid_type;
	struct rdma_restrack_entry res;
};

static inline struct ew_rdma_id_private *ew_cm_priv(const struct rdma_cm_id *id)
{
	return container_of((struct rdma_cm_id *)id, struct ew_rdma_id_private,
			    id);
}

/*
 * Whether @priv's restrack entry sits where the mirror says: an ID bound to
 * a device is in that device's table of rdma_cm IDs.
 */
static inline bool ew_cm_priv_sane(const struct ew_rdma_id_private *priv)
{
	return priv->res.type == RDMA_RESTRACK_CM_ID && priv->res.valid;
}

#endif /* _EW_CMPRIV_H */
