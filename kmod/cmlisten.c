// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: Same-node listeners - whose listener a connect request reaches
 *
 * An rdma_cm connect request carries the caller's private data to the
 * listener that its destination address and port (the service ID) name on
 * the device the request ends on. When that device is one of this node's
 * (localgid.c), the peer rules cannot tell two jobs apart that may both
 * reach the node's address, as for QPs ("Same-node destinations" in
 * qptrack.c): so the request must reach a listener of the caller's own
 * job. A caller that is not policed (a process in no job under a default
 * of allow) may reach only listeners that no job's process made.
 *
 * rdma_cm keeps its listeners by port in tables of its own, one per network
 * namespace. They are found here in the RDMA core's table of the device's
 * rdma_cm IDs (restrack), which holds every ID bound to the device with the
 * task that made it: a listener bound to an address, and each per-device
 * child of a listener on every address, named after its parent's task.
 * Every one that could take the request must pass (in LISTEN, the
 * request's service ID, in the namespace of the destination GID's netdev,
 * bound to the destination address or to every address, as rdma_cm
 * matches them), and there must be one: with none, a listener made after
 * this check could take the request. rdma_cm lets no second listener of a
 * namespace bind an address and port that a listener holds, except one of
 * another address family restricted to it, and AF_IB listeners take every
 * address: processes may not listen on AF_IB (the listen hook). So a
 * listener found here keeps its place until it is destroyed.
 *
 * The table is walked under its lock, once per connect request whose
 * destination is this node: the cost grows with the device's rdma_cm IDs
 * (a connect to another node only pays the local GID probe).
 */

#include <net/net_namespace.h>
#include <rdma/ib_cache.h>
#include <rdma/rdma_cm.h>

#include "cmlisten.h"
#include "cmpriv.h"
#include "localgid.h"
#include "policy.h"

/*
 * The network namespace whose listeners rdma_cm asks for a request to @gid
 * on @ldev: its netdev's (roce_get_net_dev_by_cm_event()), or NULL if it is
 * not known (then every namespace's listeners count). Only compared.
 * Context: rcu_read_lock().
 */
static const struct net *ew_cm_dest_net(struct ib_device *ldev, const u8 *gid)
{
	const struct ib_gid_attr *attr = ew_gid_attr_find(ldev, gid);
	const struct net *net = NULL;
	struct net_device *ndev;

	if (IS_ERR(attr))
		return NULL;
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (!IS_ERR(ndev))
		net = dev_net(ndev);
	rdma_put_gid_attr(attr);
	return net;
}

/*
 * Whether @l, an ID of the destination device, could take the request: in
 * LISTEN, of the request's service ID, in namespace @net (if known), and
 * rdma_cm's own match on the request's header (cma_match_private_data()).
 */
static bool ew_cm_listener_takes(struct ew_rdma_id_private *l, __be64 sid,
				 const struct sockaddr *dst,
				 const struct net *net)
{
	struct sockaddr *src = (struct sockaddr *)&l->id.route.addr.src_addr;

	return READ_ONCE(l->state) == EW_RDMA_CM_LISTEN &&
	       (!net || net_eq(l->id.route.addr.dev_addr.net, net)) &&
	       rdma_get_service_id(&l->id, src) == sid &&
	       ew_cm_listen_addr_takes(src, l->afonly, dst);
}

/*
 * Whether the listeners of @ldev that @id's request to @gid could reach
 * are all @job's (@job NULL: no job's), and there is one.
 */
static bool ew_cm_listeners_ok(struct ib_device *ldev, struct rdma_cm_id *id,
			       const u8 *gid, const struct ew_job *job)
{
	struct xarray *xa = ew_restrack_xa(ldev, RDMA_RESTRACK_CM_ID);
	struct sockaddr *dst = (struct sockaddr *)&id->route.addr.dst_addr;
	const struct net *net = ew_cm_dest_net(ldev, gid);
	__be64 sid = rdma_get_service_id(id, dst);
	struct rdma_restrack_entry *res;
	struct ew_rdma_id_private *l;
	bool found = false, ok = true;
	unsigned long i;

	/* An entry in the table is not freed before it left it (its lock). */
	xa_lock(xa);
	xa_for_each(xa, i, res) {
		l = container_of(res, struct ew_rdma_id_private, res);
		if (!ew_cm_listener_takes(l, sid, dst, net))
			continue;
		found = true;
		if (job ? !ew_res_is_jobs(res, job) : !ew_res_is_no_jobs(res)) {
			ok = false;
			break;
		}
	}
	xa_unlock(xa);
	return found && ok;
}

/**
 * ew_cm_dest_is_foreign() - whether a connect request of @id reaches this
 * node elsewhere than a listener of @job
 * @id: the connecting ID, its route resolved
 * @req: its request (ew_request_from_cm_id()): the paths' destinations
 * @job: the caller's job, or NULL for a caller that is not policed (then
 *	 only listeners of no job's are open to it)
 *
 * See "Same-node listeners". A destination GID of several other devices is
 * foreign (ew_local_dest_dev()); so is every local destination if @id's
 * layout is not the one cmpriv.h mirrors.
 *
 * Context: rcu_read_lock(); atomic-safe (takes the restrack table's lock).
 */
bool ew_cm_dest_is_foreign(struct rdma_cm_id *id, const struct ew_request *req,
			   const struct ew_job *job)
{
	struct ib_device *ldev;
	bool ambiguous;
	unsigned int i;

	for (i = 0; i < req->n_paths && i < ARRAY_SIZE(req->paths); i++) {
		if (!req->paths[i].has_grh)
			continue;
		ldev = ew_local_dest_dev(id->device, req->paths[i].dgid,
					 &ambiguous);
		if (!ldev)
			continue;
		if (ambiguous || !ew_cm_priv_sane(ew_cm_priv(id)) ||
		    !ew_cm_listeners_ok(ldev, id, req->paths[i].dgid, job))
			return true;
	}
	return false;
}
