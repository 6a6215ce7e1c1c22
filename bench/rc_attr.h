/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the bench programs share: a destination GID from an IPv4 or IPv6
 * address, and the attributes of an RC QP's steps to INIT and RTR on port 1
 * of a RoCE device (the policed ones: pkey index, address vector,
 * destination QPN, receive PSN).
 */
#ifndef BENCH_RC_ATTR_H
#define BENCH_RC_ATTR_H

#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <string.h>

#define RC_INIT_MASK	(IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | \
			 IBV_QP_ACCESS_FLAGS)
#define RC_RTR_MASK	(IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | \
			 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | \
			 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)

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
