// SPDX-License-Identifier: GPL-2.0
/*
 * The decision engine: given a job's rules and a request whose RDMA indices
 * have already been resolved to values, say whether it is allowed and why
 * not. Pure logic, no RDMA calls, so KUnit runs it on UML.
 *
 * Rules: the destination of every path must be one of the job's peers
 * (an empty peer list admits nothing); the source netdev must match one of
 * the job's netdev rules and the P_Key one of its P_Keys (empty lists do not
 * restrict); a UD Q_Key must never be privileged and must equal the job's
 * Q_Key when it has one; jobs may not create RAW_PACKET QPs, nor UD or
 * driver QPs (whose destinations can bypass the kernel) unless they opted
 * in; a job that requires encryption may only use paths with that
 * protection; nobody may reach a revoked node; and when admission is
 * required, jobs may do nothing policed until this node is admitted.
 */

#include <linux/export.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>

#include "job.h"
#include "nodes.h"
#include "peers.h"
#include "policy.h"

#define EW_PKEY_FULL_MEMBER	0x8000
#define EW_PKEY_BASE_MASK	0x7fff

/**
 * ew_pkey_allowed() - may a QP use the table entry holding @pkey?
 * @pol: the job's rules
 * @pkey: the P_Key value behind the requested index
 *
 * The low 15 bits name the partition. A job granted full membership may use
 * a full or a limited entry of the partition; a job granted only limited
 * membership may not use a full-member entry.
 */
bool ew_pkey_allowed(const struct ew_job_policy *pol, u16 pkey)
{
	unsigned int i;

	if (!pol->n_pkeys)
		return true;
	/* The invalid P_Keys 0x0000 and 0x8000 are never a partition. */
	if (!(pkey & EW_PKEY_BASE_MASK))
		return false;
	for (i = 0; i < pol->n_pkeys; i++) {
		u16 grant = pol->pkeys[i];

		if ((grant & EW_PKEY_BASE_MASK) != (pkey & EW_PKEY_BASE_MASK))
			continue;
		if ((grant & EW_PKEY_FULL_MEMBER) || !(pkey & EW_PKEY_FULL_MEMBER))
			return true;
	}
	return false;
}

/**
 * ew_src_allowed() - does the source netdev match one of the job's rules?
 * @pol: the job's rules
 * @src: the netdev behind the source GID
 */
bool ew_src_allowed(const struct ew_job_policy *pol, const struct ew_src *src)
{
	unsigned int i;

	if (!pol->n_netdevs)
		return true;
	for (i = 0; i < pol->n_netdevs; i++) {
		const struct ew_netdev_rule *rule = &pol->netdevs[i];

		switch (rule->kind) {
		case EW_NETDEV_IFINDEX:
			if (src->ifindex == rule->value)
				return true;
			break;
		case EW_NETDEV_VLAN:
			if (src->vlan && src->vlan == rule->value)
				return true;
			break;
		case EW_NETDEV_VRF:
			if (src->vrf && src->vrf == rule->value)
				return true;
			break;
		}
	}
	return false;
}

/**
 * ew_encrypt_satisfied() - does a path's protection meet a job's requirement?
 * @encrypt: enum eastwest_encrypt of the job
 * @protection: enum eastwest_protection bits of the path
 *
 * "any" accepts MACsec, IPsec or a declared dedicated fabric; "macsec" and
 * "ipsec" accept only that protection. An unknown requirement is not met.
 */
bool ew_encrypt_satisfied(u32 encrypt, u32 protection)
{
	switch (encrypt) {
	case EASTWEST_ENCRYPT_NONE:
		return true;
	case EASTWEST_ENCRYPT_ANY:
		return protection & (EASTWEST_PROTECTION_MACSEC |
				     EASTWEST_PROTECTION_IPSEC |
				     EASTWEST_PROTECTION_PHYSICAL);
	case EASTWEST_ENCRYPT_MACSEC:
		return protection & EASTWEST_PROTECTION_MACSEC;
	case EASTWEST_ENCRYPT_IPSEC:
		return protection & EASTWEST_PROTECTION_IPSEC;
	}
	return false;
}

/**
 * ew_qp_type_policed() - may creating a QP of @qp_type be refused at all?
 * @qp_type: enum ib_qp_type asked for
 * @driver_id: enum rdma_driver_id of the device
 *
 * False for the types whose every destination the other hooks judge (RC,
 * UC, XRC: an address vector in a modify), and for UD and driver QPs on
 * EFA: the create-qp hook then need not look up the caller, since
 * ew_qp_type_check() allows them to every job.
 */
bool ew_qp_type_policed(u32 qp_type, u32 driver_id)
{
	switch (qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		return false;
	case IB_QPT_UD:
	case IB_QPT_DRIVER:
		return driver_id != RDMA_DRIVER_EFA;
	}
	return true;
}

/**
 * ew_qp_type_check() - may a job create a QP of @qp_type on this device?
 * @pol: the job's rules
 * @qp_type: enum ib_qp_type asked for
 * @driver_id: enum rdma_driver_id of the device
 *
 * A RAW_PACKET QP forges any frame: never. A UD send names its destination
 * per work request, and on most providers that destination need not pass
 * the kernel: rxe reads an address vector from user memory when the work
 * request carries no kernel AH number, mlx4, mlx5 and hns take it from the
 * WQE; a driver QP (IB_QPT_DRIVER, mlx5 DC) likewise. Those need the job's
 * opt-in (@pol->ud, @pol->dc), after which only the P_Key and Q_Key rules
 * police them. EFA's UD and SRD sends name kernel AH numbers, made by
 * rdma_create_user_ah(), which create-ah judges: allowed. RC, UC and XRC
 * are judged at their modifies; any other type is refused (fail closed).
 *
 * Return: 0 if allowed, else EASTWEST_REASON_QP_TYPE.
 */
u32 ew_qp_type_check(const struct ew_job_policy *pol, u32 qp_type,
		     u32 driver_id)
{
	if (!ew_qp_type_policed(qp_type, driver_id))
		return 0;
	if (qp_type == IB_QPT_UD && pol->ud)
		return 0;
	if (qp_type == IB_QPT_DRIVER && pol->dc)
		return 0;
	return EASTWEST_REASON_QP_TYPE;
}

static u32 ew_path_check(const struct ew_job *job,
			 const struct ew_job_policy *pol,
			 const struct ew_path *path)
{
	if (path->has_src) {
		if (!ew_src_allowed(pol, &path->src))
			return EASTWEST_REASON_SRC_NETDEV;
	} else if (pol->n_netdevs && !path->mcast) {
		/* A netdev rule cannot be met by a path without a netdev. */
		return EASTWEST_REASON_SRC_NETDEV;
	}

	if (path->has_grh) {
		/* Revocation wins over any peer entry (prefixes included). */
		if (ew_node_revoked(path->dgid))
			return EASTWEST_REASON_NOT_ADMITTED;
		if (!ew_peer_match_gid(job, path->dgid, NULL))
			return EASTWEST_REASON_PEER;
	} else if (!ew_peer_match_lid(job, path->dlid)) {
		return EASTWEST_REASON_PEER;
	}

	/* Not evaluated (or a LID-only path): nothing is known to protect it. */
	if (!ew_encrypt_satisfied(pol->encrypt, path->has_protection ?
				  path->protection : 0))
		return EASTWEST_REASON_UNPROTECTED_PATH;
	return 0;
}

/**
 * ew_policy_check() - check a request against a job's rules
 * @job: the caller's job
 * @pol: the job's current rules
 * @req: the request
 *
 * Context: RCU read side (peer lookups).
 * Return: 0 if allowed, else the first enum eastwest_reason that refuses it.
 */
u32 ew_policy_check(const struct ew_job *job, const struct ew_job_policy *pol,
		    const struct ew_request *req)
{
	unsigned int i;
	u32 reason;

	if (req->has_qp_type) {
		reason = ew_qp_type_check(pol, req->qp_type, req->driver_id);
		if (reason)
			return reason;
	}

	if (req->has_qkey) {
		if (req->qkey & EW_QKEY_PRIVILEGED)
			return EASTWEST_REASON_QKEY;
		if (pol->qkey && req->qkey != pol->qkey)
			return EASTWEST_REASON_QKEY;
	}

	if (req->has_pkey && !ew_pkey_allowed(pol, req->pkey))
		return EASTWEST_REASON_PKEY;
	if (req->has_alt_pkey && !ew_pkey_allowed(pol, req->alt_pkey))
		return EASTWEST_REASON_PKEY;

	for (i = 0; i < req->n_paths && i < ARRAY_SIZE(req->paths); i++) {
		reason = ew_path_check(job, pol, &req->paths[i]);
		if (reason)
			return reason;
	}
	return 0;
}

/*
 * Whether rdma_cm takes @addr for every address (its cma_any_addr()): the
 * unspecified and the loopback addresses, IPv4 (all of 127/8) and IPv6,
 * bind no device and listen on all of them.
 */
static bool ew_cm_addr_any(const struct sockaddr *addr)
{
	const struct in6_addr *a6;
	__be32 a4;

	switch (addr->sa_family) {
	case AF_INET:
		a4 = ((const struct sockaddr_in *)addr)->sin_addr.s_addr;
		return ipv4_is_zeronet(a4) || ipv4_is_loopback(a4);
	case AF_INET6:
		a6 = &((const struct sockaddr_in6 *)addr)->sin6_addr;
		return ipv6_addr_any(a6) || ipv6_addr_loopback(a6);
	}
	return false;
}

/**
 * ew_cm_listen_addr_takes() - may an rdma_cm listener on @listen take a
 * connect request to @dst?
 * @listen: the address the listener is bound to
 * @afonly: the listener takes only its own address family
 * @dst: the request's destination address
 *
 * rdma_cm's own match on the request's header (cma_match_private_data()):
 * a listener on every address (rdma_cm counts the loopback addresses as
 * such) that is not restricted to its family takes
 * any request; otherwise the families must agree and the listener's
 * address must be every address or @dst's. An AF_IB listener takes every
 * request. Ports are not compared.
 */
bool ew_cm_listen_addr_takes(const struct sockaddr *listen, bool afonly,
			     const struct sockaddr *dst)
{
	bool any = ew_cm_addr_any(listen);

	if (any && !afonly)
		return true;
	switch (listen->sa_family) {
	case AF_INET:
		return dst->sa_family == AF_INET &&
		       (any || ((const struct sockaddr_in *)listen)->sin_addr.s_addr ==
			       ((const struct sockaddr_in *)dst)->sin_addr.s_addr);
	case AF_INET6:
		return dst->sa_family == AF_INET6 &&
		       (any || ipv6_addr_equal(&((const struct sockaddr_in6 *)listen)->sin6_addr,
					       &((const struct sockaddr_in6 *)dst)->sin6_addr));
	}
	return true;
}

/**
 * ew_admission_closed() - is the fabric closed to jobs on this node?
 * @global: global settings
 *
 * Only when admission is required and this node is not (or no longer)
 * admitted.
 */
bool ew_admission_closed(const struct ew_global *global)
{
	return global->admission_required &&
	       global->admission != EASTWEST_ADMISSION_ADMITTED;
}

/**
 * ew_decide() - the verdict for a request
 * @global: global mode and default action
 * @job: the caller's job, or NULL if it belongs to none
 * @pol: @job's rules (ignored when @job is NULL)
 * @req: the request
 *
 * Audit mode (global or the job's) allows what enforce would refuse, but
 * the reason is still reported so it can be counted and logged.
 *
 * Context: RCU read side.
 */
struct ew_verdict ew_decide(const struct ew_global *global,
			    const struct ew_job *job,
			    const struct ew_job_policy *pol,
			    const struct ew_request *req)
{
	struct ew_verdict v = {};
	bool audit = global->mode == EASTWEST_MODE_AUDIT;

	if (!job) {
		if (global->default_action == EASTWEST_DEFAULT_ACTION_ALLOW)
			return v;
		v.reason = EASTWEST_REASON_NO_JOB;
	} else {
		v.reason = ew_admission_closed(global) ?
			   EASTWEST_REASON_NOT_ADMITTED :
			   ew_policy_check(job, pol, req);
		audit |= pol->mode == EASTWEST_MODE_AUDIT;
	}
	v.deny = v.reason && !audit;
	return v;
}

/*
 * Where a path a modify sets goes in @rec: paths[] holds the primary path
 * (IB_QP_AV) first, then the alternate (IB_QP_ALT_PATH); a primary added
 * beside a recorded alternate moves it up. Returns the slot to fill.
 */
static struct ew_path *ew_request_path_slot(struct ew_request *rec, bool alt)
{
	if (!alt) {
		if (rec->has_alt && !rec->has_av)
			rec->paths[1] = rec->paths[0];
		rec->has_av = true;
	} else {
		rec->has_alt = true;
	}
	rec->n_paths = rec->has_av + rec->has_alt;
	return &rec->paths[alt && rec->has_av ? 1 : 0];
}

/**
 * ew_request_fold() - fold a modify's attributes into a QP's configuration
 * @rec: what the QP was configured with so far; updated in place
 * @attr: the modify's attributes
 * @mask: enum ib_qp_attr_mask bits of the modify
 * @port: the port its P_Key index is on (IB_QP_PORT's, else the QP's)
 * @av: set to the slot of the primary path it sets, NULL if none
 * @alt: likewise for the alternate path
 *
 * The latest value of each attribute wins, with the indices it came from;
 * the primary and the alternate path are kept apart, since a modify may set
 * either alone. The caller resolves what this modify set, in place: the
 * P_Key values behind the indices, and the paths into *@av and *@alt (their
 * old contents are stale). Folding in place spares the hooks a second
 * request and its copy on every judged modify.
 */
void ew_request_fold(struct ew_request *rec, const struct ib_qp_attr *attr,
		     int mask, u32 port, struct ew_path **av,
		     struct ew_path **alt)
{
	if (mask & IB_QP_PKEY_INDEX) {
		rec->has_pkey = true;
		rec->port = port;
		rec->pkey_index = attr->pkey_index;
	}
	if (mask & IB_QP_ALT_PATH) {
		rec->has_alt_pkey = true;
		rec->alt_port = attr->alt_port_num;
		rec->alt_pkey_index = attr->alt_pkey_index;
	}
	if (mask & IB_QP_QKEY) {
		rec->has_qkey = true;
		rec->qkey = attr->qkey;
	}
	if (mask & IB_QP_DEST_QPN) {
		rec->has_dest_qpn = true;
		rec->dest_qpn = attr->dest_qp_num;
	}
	*av = (mask & IB_QP_AV) ? ew_request_path_slot(rec, false) : NULL;
	*alt = (mask & IB_QP_ALT_PATH) ? ew_request_path_slot(rec, true) : NULL;
}

/**
 * ew_psn_key_check() - the check value of a PSN key (the spec's psn-key-check)
 * @key: the key
 *
 * Reported with the job, so that whoever derives the key again after a
 * module reload can tell it is the same key without either being shown.
 *
 * Return: the low 32 bits of SipHash-2-4 under @key of "eastwest psn key
 * check" (22 bytes, no NUL).
 */
u32 ew_psn_key_check(const siphash_key_t *key)
{
	static const char msg[] = "eastwest psn key check";

	return (u32)siphash(msg, sizeof(msg) - 1, key);
}

/* The little-endian word at @p, wherever it lies (one load on x86). */
static __always_inline u64 ew_le64_at(const u8 *p)
{
	__le64 w;

	memcpy(&w, p, sizeof(w));
	return le64_to_cpu(w);
}

/*
 * One SipHash-2-4 compression of message word @m into state @v (inlined:
 * the four words stay in registers).
 */
static __always_inline void ew_siphash_word(u64 *v, u64 m)
{
	v[3] ^= m;
	SIPHASH_PERMUTATION(v[0], v[1], v[2], v[3]);
	SIPHASH_PERMUTATION(v[0], v[1], v[2], v[3]);
	v[0] ^= m;
}

/**
 * ew_keyed_psn() - the PSN of one direction of a connection under keyed PSNs
 * @key: the job's PSN key
 * @from_gid: the sender's GID (16 bytes, network order)
 * @from_qpn: the sender's QPN
 * @to_gid: the receiver's GID
 * @to_qpn: the receiver's QPN
 *
 * The sender's send PSN and the receiver's receive PSN of a direction are
 * the same function of the same four values, so both ends compute it alone:
 * a QP's receive PSN is ew_keyed_psn(peer, peer QPN, self, own QPN), its
 * send PSN ew_keyed_psn(self, own QPN, peer, peer QPN).
 *
 * The function is siphash() of the 40 bytes from_gid, to_gid, from_qpn and
 * to_qpn (both big-endian), written out for that one length: the message's
 * five words are read where they are, not gathered into a buffer first, and
 * no loop or tail is left (a policed modify pays for every instruction). The
 * output is siphash()'s to the bit (KUnit compares the two), so nodes agree
 * whatever build they run.
 *
 * Return: a 24-bit PSN.
 */
u32 ew_keyed_psn(const siphash_key_t *key, const u8 *from_gid, u32 from_qpn,
		 const u8 *to_gid, u32 to_qpn)
{
	/* The 40-byte length, in the last byte of the final block. */
	const u64 b = 40ULL << 56;
	/* Bytes 32-39 read little-endian: each QPN's big-endian bytes. */
	const u64 qpns = swab32(from_qpn) | (u64)swab32(to_qpn) << 32;
	u64 v[4] = {
		SIPHASH_CONST_0 ^ key->key[0],
		SIPHASH_CONST_1 ^ key->key[1],
		SIPHASH_CONST_2 ^ key->key[0],
		SIPHASH_CONST_3 ^ key->key[1],
	};

	ew_siphash_word(v, ew_le64_at(from_gid));
	ew_siphash_word(v, ew_le64_at(from_gid + 8));
	ew_siphash_word(v, ew_le64_at(to_gid));
	ew_siphash_word(v, ew_le64_at(to_gid + 8));
	ew_siphash_word(v, qpns);
	ew_siphash_word(v, b);
	v[2] ^= 0xff;
	SIPHASH_PERMUTATION(v[0], v[1], v[2], v[3]);
	SIPHASH_PERMUTATION(v[0], v[1], v[2], v[3]);
	SIPHASH_PERMUTATION(v[0], v[1], v[2], v[3]);
	SIPHASH_PERMUTATION(v[0], v[1], v[2], v[3]);
	return (v[0] ^ v[1] ^ v[2] ^ v[3]) & 0xffffff;
}
