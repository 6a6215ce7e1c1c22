/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the bench programs share (and the test tools ew_verbs and
 * ew_qpfuzz): opening a device by name, a destination GID from an IPv4 or
 * IPv6 address, the RC QPs they create, and the attributes of an RC QP's
 * steps to INIT and RTR on port 1 of a RoCE device (the policed ones: pkey
 * index, address vector, destination QPN, receive PSN).
 */
#ifndef BENCH_RC_ATTR_H
#define BENCH_RC_ATTR_H

#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define RC_INIT_MASK	(IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | \
			 IBV_QP_ACCESS_FLAGS)
#define RC_RTR_MASK	(IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | \
			 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | \
			 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)

/* The device named @name, opened; NULL after a message naming @prog. */
static inline struct ibv_context *rc_open_device(const char *prog, const char *name)
{
	struct ibv_context *opened = NULL;
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			opened = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!opened)
		fprintf(stderr, "%s: cannot open %s\n", prog, name);
	return opened;
}

/* An RC QP of one send and one receive WR of one SGE each, both on @cq. */
static inline void rc_qp_init_attr(struct ibv_qp_init_attr *init, struct ibv_cq *cq)
{
	memset(init, 0, sizeof(*init));
	init->cap.max_send_wr = 1;
	init->cap.max_recv_wr = 1;
	init->cap.max_send_sge = 1;
	init->cap.max_recv_sge = 1;
	init->qp_type = IBV_QPT_RC;
	init->send_cq = init->recv_cq = cq;
}

/* @s as a GID: an IPv6 address, or an IPv4 one mapped. 0, or -1 if neither. */
static inline int rc_parse_gid(const char *s, union ibv_gid *gid)
{
	struct in_addr v4;

	memset(gid, 0, sizeof(*gid));
	if (inet_pton(AF_INET6, s, gid->raw) == 1)
		return 0;
	if (inet_pton(AF_INET, s, &v4) != 1)
		return -1;
	gid->raw[10] = gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], &v4, 4);
	return 0;
}

static inline void rc_init_attr(struct ibv_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_INIT;
	a->port_num = 1;
	a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
}

static inline void rc_rtr_attr(struct ibv_qp_attr *a, uint32_t dest_qpn,
			       int gid_index, const union ibv_gid *dgid)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTR;
	a->path_mtu = IBV_MTU_1024;
	a->dest_qp_num = dest_qpn;
	a->rq_psn = 1;
	a->max_dest_rd_atomic = 1;
	a->min_rnr_timer = 12;
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = 1;
	a->ah_attr.grh.hop_limit = 1;
	a->ah_attr.grh.sgid_index = gid_index;
	a->ah_attr.grh.dgid = *dgid;
}

#endif /* BENCH_RC_ATTR_H */
