// SPDX-License-Identifier: GPL-2.0
/*
 * Translation of RDMA objects into a request (policy.h's struct
 * ew_request): what a modify's attributes or an address vector ask for,
 * with the indices they carry resolved to values (source GID and its
 * netdev, VLAN and VRF through srccache.c; P_Keys through the core's cache)
 * and, where the caller's job requires it, the protection of each path
 * (protect.c). The hooks build requests here, from the source cache; the QP
 * records (qptrack.c) resolve a recorded request again after a GID or P_Key
 * table change, from the core itself.
 *
 * Context: any; cached lookups and route lookups only, no sleeping.
 */

#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "cmpriv.h"
#include "policy.h"
#include "protect.h"
#include "request.h"
#include "srccache.h"

/* How the path is protected now (GRH paths; atomic-safe). */
static void ew_path_resolve_protection(struct ib_device *dev,
				       struct ew_path *path)
{
	struct ew_protection prot;
	u32 ifindex;

	path->protection = 0;
	if (!ew_path_protection(dev, path->port, path->sgid_index, path->dgid,
				&prot, &ifindex))
		path->protection = prot.flags;
	path->has_protection = true;
}

/* P_Key indices to values, through the core's cache (atomic-safe). */
int ew_request_resolve_pkeys(struct ib_device *dev, struct ew_request *req)
{
	if (req->has_pkey &&
	    ib_get_cached_pkey(dev, req->port, req->pkey_index, &req->pkey))
		return -EINVAL;
	if (req->has_alt_pkey &&
	    ib_get_cached_pkey(dev, req->alt_port, req->alt_pkey_index,
			       &req->alt_pkey))
		return -EINVAL;
	return 0;
}

/**
 * ew_request_refresh() - resolve a tracked request's indices again
 * @dev: the QP's device
 * @req: a request recorded by the modify hook; its values are updated
 *
 * After a GID or P_Key table change the same indices may name other
 * values (or nothing); the protection of each path is evaluated again.
 * Context: any (cached lookups and route lookups only).
 * Return: 0, or an error if an index no longer resolves.
 */
int ew_request_refresh(struct ib_device *dev, struct ew_request *req)
{
	unsigned int i;
	int ret;

	if (ew_request_resolve_pkeys(dev, req))
		return -EINVAL;
	for (i = 0; i < req->n_paths && i < ARRAY_SIZE(req->paths); i++) {
		struct ew_path *path = &req->paths[i];

		if (!path->has_grh)
			continue;
		ret = ew_src_resolve(dev, path->port, path->sgid_index,
				     &path->src, path->sgid);
		if (ret && ret != -ENODEV)
			return ret;
		path->has_src = !ret;
		ew_path_resolve_protection(dev, path);
	}
	return 0;
}

/* A GRH path from @port's source GID @sgid_index to @dgid. */
static bool ew_path_set_grh(struct ib_device *dev, u32 port, u32 sgid_index,
			    const u8 *dgid, struct ew_path *path,
			    bool want_protection)
{
	int ret;

	path->has_grh = true;
	path->port = port;
	path->sgid_index = sgid_index;
	memcpy(path->dgid, dgid, sizeof(path->dgid));
	ret = ew_src_lookup(dev, port, sgid_index, &path->src, path->sgid);
	if (!ret)
		path->has_src = true;
	else if (ret != -ENODEV)
		return false;
	if (want_protection)
		ew_path_resolve_protection(dev, path);
	return true;
}

/*
 * Translate an address vector; false if it cannot be evaluated. The path's
 * protection costs route lookups: only evaluated when @want_protection.
 */
bool ew_path_from_ah(struct ib_device *dev, const struct rdma_ah_attr *ah,
		     struct ew_path *path, bool want_protection)
{
	memset(path, 0, sizeof(*path));
	path->dlid = rdma_ah_get_dlid(ah);
	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return true;
	return ew_path_set_grh(dev, rdma_ah_get_port_num(ah),
			       rdma_ah_read_grh(ah)->sgid_index,
			       rdma_ah_read_grh(ah)->dgid.raw, path,
			       want_protection);
}

/**
 * ew_request_from_cm_id() - what an rdma_cm ID's message asks for
 * @id: the ID
 * @connect: the message is a connect request (else an answer to one)
 * @want_protection: evaluate the paths' protection
 * @req: filled in (n_paths set)
 *
 * A connect request goes where the route's path record says, and only once
 * the route is resolved: before that the record may still be written (an
 * InfiniBand SA query answers asynchronously), and the state becomes final
 * without the lock our caller holds; after it, nothing changes the route
 * while ucma holds the ID. A process may set the record itself
 * (RDMA_OPTION_IB_PATH): on RoCE the frame then goes to the neighbour of the
 * destination address, and the packet to the record's GID, so both are
 * judged; the record's source GID, which the request carries as its sender's,
 * must be the ID's own. An answer goes back the way the request came: the
 * record the request made (its source GID), or, for an ID made by a UD
 * request (SIDR), which has none, the request's source address. InfiniBand:
 * the record's destination LID and P_Key. iWARP is refused to policed callers
 * (Documentation/threat-model.md, A26).
 *
 * Return: 0, or the reason the message cannot be judged
 * (EASTWEST_REASON_IWARP, EASTWEST_REASON_INTERNAL).
 */
u32 ew_request_from_cm_id(const struct rdma_cm_id *id, bool connect,
			  bool want_protection, struct ew_request *req)
{
	const struct ew_rdma_id_private *priv = ew_cm_priv(id);
	const struct ib_gid_attr *sgid = id->route.addr.dev_addr.sgid_attr;
	struct sa_path_rec *rec = id->route.path_rec;
	union ib_gid addr_gid;
	bool has_addr_gid;

	req->n_paths = 1;
	if (!rdma_is_port_valid(id->device, id->port_num))
		return EASTWEST_REASON_INTERNAL;
	if (rdma_protocol_iwarp(id->device, id->port_num))
		return EASTWEST_REASON_IWARP;
	if (connect &&
	    (READ_ONCE(priv->state) != EW_RDMA_CM_ROUTE_RESOLVED || !rec))
		return EASTWEST_REASON_INTERNAL;
	/*
	 * The record's source GID goes into the request as its sender, and
	 * the listener's answer goes back to it; the kernel never compares a
	 * record the process set with the ID's own source. A claim of another
	 * address cannot be judged.
	 */
	if (connect && sgid && memcmp(&rec->sgid, &sgid->gid, sizeof(rec->sgid)))
		return EASTWEST_REASON_INTERNAL;
	if (rec) {
		req->has_pkey = true;
		req->pkey = be16_to_cpu(rec->pkey);
		req->port = id->port_num;
	}
	if (rdma_protocol_roce(id->device, id->port_num)) {
		has_addr_gid = !rdma_ip2gid((struct sockaddr *)
					    &id->route.addr.dst_addr,
					    &addr_gid);
		if (!sgid || (!rec && !has_addr_gid))
			return EASTWEST_REASON_INTERNAL;
		if (!ew_path_set_grh(id->device, id->port_num, sgid->index,
				     rec ? rec->dgid.raw : addr_gid.raw,
				     &req->paths[0], want_protection))
			return EASTWEST_REASON_INTERNAL;
		if (!connect || !rec || !has_addr_gid ||
		    !memcmp(&addr_gid, &rec->dgid, sizeof(addr_gid)))
			return 0;
		req->n_paths = 2;
		return ew_path_set_grh(id->device, id->port_num, sgid->index,
				       addr_gid.raw, &req->paths[1],
				       want_protection) ?
		       0 : EASTWEST_REASON_INTERNAL;
	}
	if (!rec || !rdma_protocol_ib(id->device, id->port_num))
		return EASTWEST_REASON_INTERNAL;
	req->paths[0].dlid = be32_to_cpu(sa_path_get_dlid(rec));
	return 0;
}

/**
 * ew_request_from_modify() - fold what a modify asks for into a QP's
 * configuration
 * @dev: the QP's device
 * @real: the real QP
 * @attr: the modify's attributes
 * @mask: its enum ib_qp_attr_mask bits
 * @want_protection: evaluate the protection of the paths it sets
 * @req: the QP's configuration so far (the record's, or zeroed); updated in
 *	place (ew_request_fold()), with what this modify set resolved
 *
 * Return: 0, or EASTWEST_REASON_INTERNAL if what it set cannot be
 * resolved (then @req may hold part of it).
 */
u32 ew_request_from_modify(struct ib_device *dev, struct ib_qp *real,
			   const struct ib_qp_attr *attr, int mask,
			   bool want_protection, struct ew_request *req)
{
	u32 port = (mask & IB_QP_PORT) ? attr->port_num : real->port;
	struct ew_path *av, *alt;
	u32 internal = 0;

	/*
	 * The QP type too: a UD or driver QP is judged (and, recorded,
	 * revoked) against the job's current ud and dc settings.
	 */
	req->has_qp_type = true;
	req->qp_type = real->qp_type;
	req->driver_id = dev->ops.driver_id;

	ew_request_fold(req, attr, mask, port, &av, &alt);
	if (((mask & IB_QP_PKEY_INDEX) &&
	     ib_get_cached_pkey(dev, req->port, req->pkey_index, &req->pkey)) ||
	    ((mask & IB_QP_ALT_PATH) &&
	     ib_get_cached_pkey(dev, req->alt_port, req->alt_pkey_index,
				&req->alt_pkey)))
		internal = EASTWEST_REASON_INTERNAL;
	if (av && !ew_path_from_ah(dev, &attr->ah_attr, av, want_protection))
		internal = EASTWEST_REASON_INTERNAL;
	if (alt && !ew_path_from_ah(dev, &attr->alt_ah_attr, alt,
				    want_protection))
		internal = EASTWEST_REASON_INTERNAL;
	return internal;
}

/**
 * ew_request_from_mcast() - a multicast group joined, as a destination
 * @real: the real QP that joins
 * @gid: the group
 * @lid: its LID (InfiniBand)
 * @req: filled in: a path to the group's GID and, on InfiniBand with a
 *	LID, one to its LID, with no source (a group has none)
 */
void ew_request_from_mcast(const struct ib_qp *real, const union ib_gid *gid,
			   u16 lid, struct ew_request *req)
{
	struct ew_path *path = &req->paths[0];

	memset(req, 0, sizeof(*req));
	req->op = EASTWEST_OP_ATTACH_MCAST;
	req->n_paths = 1;
	path->mcast = true;
	path->has_grh = true;
	memcpy(path->dgid, gid->raw, sizeof(path->dgid));
	if (rdma_protocol_roce(real->device, real->port ? real->port : 1) ||
	    !lid)
		return;
	/*
	 * InfiniBand: mlx4 and mlx5 join by the GID, other drivers by the
	 * LID; both must be allowed, or a job allowed one group's LID could
	 * name it with another group's GID.
	 */
	req->n_paths = 2;
	req->paths[1].mcast = true;
	req->paths[1].dlid = lid;
}
