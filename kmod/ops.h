/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_OPS_H
#define _EW_OPS_H

#include <linux/types.h>

struct ew_job;
struct ew_job_spec;
struct ew_peer_batch;
struct netlink_ext_ack;

int ew_op_job_add(struct ew_job_spec *spec, struct netlink_ext_ack *extack,
		  u32 *id);
int ew_op_job_change(struct ew_job *job, struct ew_job_spec *spec,
		     struct netlink_ext_ack *extack);
void ew_op_job_delete(struct ew_job *job);
int ew_op_peers_add(struct ew_job *job, const struct ew_peer_batch *batch,
		    unsigned int *failed_at);
int ew_op_peers_del(struct ew_job *job, const struct ew_peer_batch *batch,
		    unsigned int *failed_at);
unsigned int ew_op_config_set(u32 mode, u32 action, bool *changed);
int ew_op_nodes_change(const u8 *addrs, unsigned int n, bool revoke,
		       struct netlink_ext_ack *extack, unsigned int *revoked);

#endif /* _EW_OPS_H */
