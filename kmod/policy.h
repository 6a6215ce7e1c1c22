/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_POLICY_H
#define _EW_POLICY_H

#include <linux/siphash.h>
#include <linux/types.h>
#include <linux/eastwest.h>

struct ew_job;
struct ew_job_policy;
struct ib_qp_attr;

/* The source side of a path: the netdev behind the source GID (RoCE). */
struct ew_src {
	u32 ifindex;
	u16 vlan;	/* 0: not a VLAN netdev */
	u32 vrf;	/* ifindex of the VRF master, 0: none */
};

/**
 * struct ew_path - one address vector (primary or alternate path)
 * @has_grh: @dgid is meaningful (RoCE always, IB when routed)
 * @dgid: destination GID, network order
 * @dlid: destination LID (IB without GRH)
 * @has_src: @src was resolved (RoCE: the source GID has a netdev)
 * @src: source netdev
 * @has_protection: @protection was evaluated (only when a rule needs it)
 * @protection: enum eastwest_protection bits of the path
 * @mcast: @dgid is a multicast group joined (no source GID: the source
 *	netdev rules do not apply)
 */
struct ew_path {
	bool has_grh;
	u8 dgid[16];
	u16 dlid;
	bool has_src;
	struct ew_src src;
	bool has_protection;
	u32 protection;
	bool mcast;
	/* Where @src came from, to resolve it again after GID changes. */
	u32 port;
	u32 sgid_index;
	/* The source GID itself (keyed PSNs), network order. */
	u8 sgid[16];
};

/**
 * struct ew_request - what a control-path operation asks for, already
 * translated from RDMA objects by the hooks (indices resolved to values)
 */
struct ew_request {
	u32 op;			/* enum eastwest_op */
	/* Creating a QP: its type and its device's driver. */
	bool has_qp_type;
	u32 qp_type;		/* enum ib_qp_type */
	u32 driver_id;		/* enum rdma_driver_id */
	bool has_pkey;
	u16 pkey;		/* P_Key value behind the pkey index */
	bool has_alt_pkey;
	u16 alt_pkey;
	bool has_qkey;
	u32 qkey;
	/* Where the P_Keys came from, to resolve them again. */
	u32 port;
	u16 pkey_index;
	u32 alt_port;
	u16 alt_pkey_index;
	/* RC, UC, XRC: the QP on the far end (IB_QP_DEST_QPN). */
	bool has_dest_qpn;
	u32 dest_qpn;
	u8 n_paths;
	struct ew_path paths[2];
	/* paths[] holds the primary path (IB_QP_AV) and/or the alternate. */
	bool has_av;
	bool has_alt;
};

/* Global settings a decision depends on. */
struct ew_global {
	u32 mode;		/* enum eastwest_mode */
	u32 default_action;	/* enum eastwest_default_action */
	u32 admission;		/* enum eastwest_admission of this node */
	bool admission_required;
};

/**
 * struct ew_verdict - outcome of a decision
 * @reason: 0 if the policy allows it, else enum eastwest_reason
 * @deny: the operation must fail (reason set and the effective mode enforces)
 */
struct ew_verdict {
	u32 reason;
	bool deny;
};

#define EW_QKEY_PRIVILEGED	0x80000000u

bool ew_pkey_allowed(const struct ew_job_policy *pol, u16 pkey);
bool ew_encrypt_satisfied(u32 encrypt, u32 protection);
bool ew_admission_closed(const struct ew_global *global);
bool ew_src_allowed(const struct ew_job_policy *pol, const struct ew_src *src);
bool ew_qp_type_policed(u32 qp_type, u32 driver_id);
u32 ew_qp_type_check(const struct ew_job_policy *pol, u32 qp_type,
		     u32 driver_id);
u32 ew_policy_check(const struct ew_job *job, const struct ew_job_policy *pol,
		    const struct ew_request *req);
void ew_request_fold(struct ew_request *rec, const struct ib_qp_attr *attr,
		     int mask, u32 port, struct ew_path **av,
		     struct ew_path **alt);
struct ew_verdict ew_decide(const struct ew_global *global,
			    const struct ew_job *job,
			    const struct ew_job_policy *pol,
			    const struct ew_request *req);
struct sockaddr;
bool ew_cm_listen_addr_takes(const struct sockaddr *listen, bool afonly,
			     const struct sockaddr *dst);
u32 ew_psn_key_check(const siphash_key_t *key);
u32 ew_keyed_psn(const siphash_key_t *key, const u8 *from_gid, u32 from_qpn,
		 const u8 *to_gid, u32 to_qpn);

#endif /* _EW_POLICY_H */
