// SPDX-License-Identifier: GPL-2.0
/*
 * Path protection: is the traffic of a RoCE path encrypted by MACsec or
 * IPsec, or carried by a netdev the operator declared a dedicated fabric?
 * A job with an encrypt requirement may only connect over such a path.
 *
 * MACsec protects a path when every frame the source GID's netdev sends
 * goes through an encrypting MACsec netdev (encrypt and protect on): the
 * GID's netdev is one, or each of its lower devices is protected so, down
 * the stack. A VLAN or macvlan has one lower device; a bridge, bond or team
 * sends through any of its ports, so one plain port (or one that is not
 * protected below) leaves it plain. A MACsec netdev *above* the GID's
 * netdev does not count (its frames bypass it). A declared fabric likewise.
 *
 * IPsec protects a path when the route the provider takes carries an ESP
 * transform that encrypts. We repeat rxe's own route lookup (oif = the GID's
 * netdev, its address to the destination, protocol UDP, no ports: rxe puts
 * none in the flow, which is also why port selectors never match its
 * traffic) and look at the transforms of the resulting bundle.
 *
 * Which protections apply depends on the provider. Software providers (rxe,
 * siw) send through the kernel's stack, so software MACsec and IPsec
 * protect them. Hardware providers send from the NIC, past the stack: only
 * MACsec offloaded to the device and ESP packet (full) offload apply to
 * their traffic; crypto-offload ESP and software MACsec do not.
 *
 * The operator may declare netdevs a dedicated, physically isolated fabric
 * (fabric-set); the declaration is kept by ifindex in the initial netns and
 * ends when the netdev goes away.
 *
 * Protection can change under live QPs (a MACsec link deleted or switched to
 * integrity only, an XFRM policy or state removed, a declaration withdrawn):
 * a netdev notifier and an XFRM key manager (which the XFRM core tells about
 * every state and policy change) schedule a work item that calls the chain
 * ew_protect_register_notifier() subscribes to, from process context: the
 * QP records (qptrack.c) re-check the live QPs of jobs that require
 * protection there and revoke those no longer protected.
 */

#include <linux/eastwest.h>
#include <linux/if_link.h>
#include <linux/notifier.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/netlink.h>
#include <net/route.h>
#include <net/xfrm.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "protect.h"
#include "srccache.h"

/* ifindex (initial netns) -> declared a dedicated fabric */
static DEFINE_XARRAY(ew_physical);
static struct work_struct ew_protect_work;
static bool ew_protect_live;

/* Room for macsec_fill_info()'s attributes (about 100 bytes). */
#define EW_MACSEC_INFO_SIZE	512

static bool ew_provider_is_soft(const struct ib_device *ibdev)
{
	return ibdev->ops.driver_id == RDMA_DRIVER_RXE ||
	       ibdev->ops.driver_id == RDMA_DRIVER_SIW;
}

struct ew_macsec_state {
	bool encrypt;
	bool protect;
	u8 offload;	/* enum macsec_offload */
};

/*
 * The macsec driver keeps its configuration private; read it the way
 * rtnetlink does, through the link's fill_info(), which only reads plain
 * fields (no lock, no sleep) in 6.1 and 6.12.
 */
static bool ew_macsec_read(struct net_device *dev, struct ew_macsec_state *st)
{
	const struct rtnl_link_ops *ops = dev->rtnl_link_ops;
	struct sk_buff *skb;
	struct nlattr *a;
	bool ok = false;
	int rem;

	if (!ops || !ops->fill_info)
		return false;
	skb = alloc_skb(EW_MACSEC_INFO_SIZE, GFP_ATOMIC);
	if (!skb)
		return false;
	if (!ops->fill_info(skb, dev)) {
		ok = true;
		nla_for_each_attr(a, (struct nlattr *)skb->data, skb->len, rem) {
			if (nla_len(a) < 1)
				continue;
			switch (nla_type(a)) {
			case IFLA_MACSEC_ENCRYPT:
				st->encrypt = nla_get_u8(a);
				break;
			case IFLA_MACSEC_PROTECT:
				st->protect = nla_get_u8(a);
				break;
			case IFLA_MACSEC_OFFLOAD:
				st->offload = nla_get_u8(a);
				break;
			}
		}
	}
	kfree_skb(skb);
	return ok;
}

static u32 ew_macsec_offload_attr(u8 offload)
{
	switch (offload) {
	case MACSEC_OFFLOAD_PHY:
		return EASTWEST_MACSEC_OFFLOAD_PHY;
	case MACSEC_OFFLOAD_MAC:
		return EASTWEST_MACSEC_OFFLOAD_MAC;
	default:
		return EASTWEST_MACSEC_OFFLOAD_OFF;
	}
}

struct ew_stack_walk {
	bool soft;
	struct ew_protection *prot;
};

/* What @dev itself is: an encrypting MACsec netdev, a declared fabric. */
static u32 ew_netdev_own_flags(struct net_device *dev, struct ew_stack_walk *w)
{
	struct ew_protection *prot = w->prot;
	struct ew_macsec_state st = {};
	u32 flags = 0;

	if (net_eq(dev_net(dev), &init_net) && xa_load(&ew_physical, dev->ifindex))
		flags |= EASTWEST_PROTECTION_PHYSICAL;
	if (!netif_is_macsec(dev))
		return flags;
	if (!ew_macsec_read(dev, &st) || !st.encrypt || !st.protect)
		return flags;
	if (!w->soft && st.offload == MACSEC_OFFLOAD_OFF)
		return flags;
	/* The first one found (the nearest, down the first lowers). */
	if (!prot->macsec_ifindex) {
		prot->macsec_ifindex = dev->ifindex;
		prot->macsec_offload = ew_macsec_offload_attr(st.offload);
	}
	return flags | EASTWEST_PROTECTION_MACSEC;
}

/*
 * The link-level protection every frame @dev sends passes through: its
 * own, or what all its lower devices have. @depth bounds the walk (the
 * core nests at most MAX_NEST_DEV devices).
 */
static u32 ew_netdev_stack_flags(struct net_device *dev,
				 struct ew_stack_walk *w, int depth)
{
	u32 all = EASTWEST_PROTECTION_MACSEC | EASTWEST_PROTECTION_PHYSICAL;
	u32 own = ew_netdev_own_flags(dev, w);
	struct list_head *iter = &dev->adj_list.lower;
	struct net_device *lower;
	bool any = false;

	if (depth >= MAX_NEST_DEV)
		return own;
	while ((lower = netdev_next_lower_dev_rcu(dev, &iter))) {
		any = true;
		all &= ew_netdev_stack_flags(lower, w, depth + 1);
	}
	return own | (any ? all : 0);
}

/**
 * ew_netdev_protection() - link-level protection of a GID's netdev
 * @ibdev: the RDMA device the netdev carries (decides what counts)
 * @ndev: the netdev behind the GID
 * @prot: MACsec and physical bits are added here
 *
 * Context: RCU read side.
 */
void ew_netdev_protection(const struct ib_device *ibdev,
			  struct net_device *ndev, struct ew_protection *prot)
{
	struct ew_stack_walk w = {
		.soft = ew_provider_is_soft(ibdev),
		.prot = prot,
	};
	u32 flags;

	flags = ew_netdev_stack_flags(ndev, &w, 0);
	prot->flags |= flags;
	/* A MACsec netdev on some paths down the stack but not all. */
	if (!(flags & EASTWEST_PROTECTION_MACSEC)) {
		prot->macsec_ifindex = 0;
		prot->macsec_offload = 0;
	}
}

static u32 ew_dev_offload_caps(struct net_device *dev)
{
	u32 caps = 0;

#if IS_ENABLED(CONFIG_MACSEC)
	if ((dev->features & NETIF_F_HW_MACSEC) && dev->macsec_ops)
		caps |= EASTWEST_OFFLOAD_CAPS_MACSEC;
#endif
#ifdef CONFIG_XFRM_OFFLOAD
	if ((dev->features & NETIF_F_HW_ESP) && dev->xfrmdev_ops) {
		caps |= EASTWEST_OFFLOAD_CAPS_ESP_CRYPTO;
		if (ew_xfrmdev_packet_offload(dev))
			caps |= EASTWEST_OFFLOAD_CAPS_ESP_PACKET;
	}
#endif
	return caps;
}

static int ew_caps_lower(struct net_device *lower,
			 struct netdev_nested_priv *priv)
{
	*(u32 *)priv->data |= ew_dev_offload_caps(lower);
	return 0;
}

/**
 * ew_netdev_offload_caps() - crypto offloads of a netdev and its lowers
 * @ndev: the netdev behind a GID
 *
 * Context: RCU read side.
 * Return: enum eastwest_offload_caps bits.
 */
u32 ew_netdev_offload_caps(struct net_device *ndev)
{
	u32 caps = ew_dev_offload_caps(ndev);
	struct netdev_nested_priv priv = { .data = &caps };

	netdev_walk_all_lower_dev_rcu(ndev, ew_caps_lower, &priv);
	return caps;
}

#ifdef CONFIG_XFRM
/*
 * The AEADs that encrypt. Not every AEAD does: rfc4543(gcm(aes)) (GMAC,
 * the "null encryption with AES-GMAC" of RFC 4543) only authenticates, and
 * a path under it carries the payload in clear text.
 */
static const char * const ew_encrypting_aeads[] = {
	"rfc4106(gcm(aes))",
	"rfc4309(ccm(aes))",
	"rfc7539esp(chacha20,poly1305)",
};

static bool ew_xfrm_encrypts(const struct xfrm_state *x)
{
	unsigned int i;

	if (x->aead) {
		for (i = 0; i < ARRAY_SIZE(ew_encrypting_aeads); i++)
			if (!strcmp(x->aead->alg_name, ew_encrypting_aeads[i]))
				return true;
		return false;
	}
	return x->ealg && strcmp(x->ealg->alg_name, "ecb(cipher_null)");
}
#endif

/* Does an XFRM bundle encrypt with ESP, in a way that reaches the wire? */
static void ew_dst_protection(struct dst_entry *dst, bool soft,
			      struct ew_protection *prot)
{
#ifdef CONFIG_XFRM
	for (; dst && dst->xfrm; dst = xfrm_dst_child(dst)) {
		const struct xfrm_state *x = dst->xfrm;

		if (x->id.proto != IPPROTO_ESP || x->km.state != XFRM_STATE_VALID)
			continue;
		if (!ew_xfrm_encrypts(x))
			continue;
		if (!soft && x->xso.type != XFRM_DEV_OFFLOAD_PACKET)
			continue;
		prot->flags |= EASTWEST_PROTECTION_IPSEC;
		prot->ipsec_spi = ntohl(x->id.spi);
		return;
	}
#endif
}

/* The route rxe takes from @sgid on @ndev to @dgid, and its transforms. */
static void ew_route_protection(struct net_device *ndev, bool soft,
				const struct in6_addr *sgid,
				const struct in6_addr *dgid,
				struct ew_protection *prot)
{
	struct dst_entry *dst;

	if (ipv6_addr_v4mapped(sgid) != ipv6_addr_v4mapped(dgid))
		return;
	if (ipv6_addr_v4mapped(sgid)) {
		struct flowi4 fl = {
			.flowi4_oif = ndev->ifindex,
			.flowi4_proto = IPPROTO_UDP,
			.saddr = sgid->s6_addr32[3],
			.daddr = dgid->s6_addr32[3],
		};
		struct rtable *rt = ip_route_output_key(dev_net(ndev), &fl);

		if (IS_ERR(rt))
			return;
		dst = &rt->dst;
	} else {
#if IS_ENABLED(CONFIG_IPV6)
		struct flowi6 fl6 = {
			.flowi6_oif = ndev->ifindex,
			.flowi6_proto = IPPROTO_UDP,
			.saddr = *sgid,
			.daddr = *dgid,
		};

		dst = ipv6_stub->ipv6_dst_lookup_flow(dev_net(ndev), NULL, &fl6,
						      NULL);
		if (IS_ERR(dst))
			return;
#else
		return;
#endif
	}
	ew_dst_protection(dst, soft, prot);
	dst_release(dst);
}

/**
 * ew_path_protection() - how a path from a source GID is protected
 * @ibdev: the RDMA device
 * @port: its port
 * @sgid_index: the source GID's index
 * @dgid: the destination GID (16 bytes, network order)
 * @prot: result
 * @ifindex: the source GID's netdev (0 if it has none)
 *
 * Context: any; takes the RCU read lock itself.
 * Return: 0, -ENODEV if the GID has no netdev (InfiniBand: nothing protects
 * it here), or the GID lookup's error.
 */
int ew_path_protection(struct ib_device *ibdev, u32 port, u32 sgid_index,
		       const u8 *dgid, struct ew_protection *prot,
		       u32 *ifindex)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	int ret = 0;

	memset(prot, 0, sizeof(*prot));
	*ifindex = 0;
	if (!rdma_is_port_valid(ibdev, port))
		return -EINVAL;
	attr = rdma_get_gid_attr(ibdev, port, sgid_index);
	if (IS_ERR(attr))
		return PTR_ERR(attr);

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (IS_ERR(ndev)) {
		ret = -ENODEV;
	} else {
		*ifindex = ndev->ifindex;
		ew_netdev_protection(ibdev, ndev, prot);
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP)
			ew_route_protection(ndev, ew_provider_is_soft(ibdev),
					    (const struct in6_addr *)attr->gid.raw,
					    (const struct in6_addr *)dgid, prot);
	}
	rcu_read_unlock();
	rdma_put_gid_attr(attr);
	return ret;
}

static void ew_protect_changed(void)
{
	if (READ_ONCE(ew_protect_live))
		schedule_work(&ew_protect_work);
}

/**
 * ew_fabric_set() - declare a netdev a dedicated fabric, or withdraw it
 * @ifindex: the netdev, in the initial network namespace
 * @physical: declare (true) or withdraw (false; withdrawing what is not
 *	declared is not an error)
 * @extack: error reporting
 *
 * RTNL makes the existence check and the store atomic against the netdev's
 * unregistration (whose notifier drops the declaration).
 * Context: process context, sleeps.
 */
int ew_fabric_set(u32 ifindex, bool physical, struct netlink_ext_ack *extack)
{
	int ret = 0;

	rtnl_lock();
	if (!__dev_get_by_index(&init_net, ifindex)) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "no netdev with ifindex %u in the initial netns",
				       ifindex);
		ret = -ENODEV;
	} else if (physical) {
		ret = xa_err(xa_store(&ew_physical, ifindex, xa_mk_value(1),
				      GFP_KERNEL));
	} else {
		xa_erase(&ew_physical, ifindex);
	}
	rtnl_unlock();
	if (!ret && !physical)
		ew_protect_changed();
	return ret;
}

/**
 * ew_fabric_put_physical() - put the declared netdevs' ifindexes
 * @skb: message
 * @attrtype: attribute type of each ifindex
 */
int ew_fabric_put_physical(struct sk_buff *skb, int attrtype)
{
	unsigned long ifindex;
	void *entry;

	xa_for_each(&ew_physical, ifindex, entry)
		if (nla_put_u32(skb, attrtype, ifindex))
			return -EMSGSIZE;
	return 0;
}

static BLOCKING_NOTIFIER_HEAD(ew_protect_chain);

/**
 * ew_protect_register_notifier() - be told, in process context, that the
 * protection of paths may have changed
 * @nb: called with no event data; may sleep
 */
int ew_protect_register_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&ew_protect_chain, nb);
}

/**
 * ew_protect_unregister_notifier() - stop telling @nb
 * @nb: a registered block
 */
void ew_protect_unregister_notifier(struct notifier_block *nb)
{
	blocking_notifier_chain_unregister(&ew_protect_chain, nb);
}

static void ew_protect_worker(struct work_struct *work)
{
	blocking_notifier_call_chain(&ew_protect_chain, 0, NULL);
}

static int ew_protect_netdev_event(struct notifier_block *nb,
				   unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	/* A namespace no GID's netdev is in: see ew_src_net_has_gids(). */
	if (!ew_src_net_has_gids(dev_net(dev)))
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_UNREGISTER:
		if (net_eq(dev_net(dev), &init_net))
			xa_erase(&ew_physical, dev->ifindex);
		fallthrough;
	case NETDEV_CHANGE:		/* also sent after a link's changelink */
	case NETDEV_CHANGEUPPER:
	case NETDEV_DOWN:
		ew_protect_changed();
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block ew_protect_netdev_nb = {
	.notifier_call = ew_protect_netdev_event,
};

/*
 * An XFRM key manager that manages no keys: it exists to be told about
 * every state and policy change (the same notifications IKE daemons get).
 * Called in atomic context.
 */
static int ew_km_notify_state(struct xfrm_state *x, const struct km_event *c)
{
	/* A flush names no state, only its namespace. */
	if (ew_src_net_has_gids(x ? xs_net(x) : c->net))
		ew_protect_changed();
	return 0;
}

static int ew_km_notify_policy(struct xfrm_policy *xp, int dir,
			       const struct km_event *c)
{
	if (ew_src_net_has_gids(xp ? xp_net(xp) : c->net))
		ew_protect_changed();
	return 0;
}

/* Not ours to answer: acquires go to the real key managers. */
static int ew_km_acquire(struct xfrm_state *x, struct xfrm_tmpl *t,
			 struct xfrm_policy *xp)
{
	return -EOPNOTSUPP;
}

static struct xfrm_policy *ew_km_compile_policy(struct sock *sk, int opt,
						u8 *data, int len, int *dir)
{
	*dir = -EOPNOTSUPP;
	return NULL;
}

static struct xfrm_mgr ew_xfrm_mgr = {
	.notify		= ew_km_notify_state,
	.acquire	= ew_km_acquire,
	.compile_policy	= ew_km_compile_policy,
	.notify_policy	= ew_km_notify_policy,
};

/**
 * ew_protect_init() - start watching netdevs and XFRM for protection changes
 */
int ew_protect_init(void)
{
	int ret;

	INIT_WORK(&ew_protect_work, ew_protect_worker);
	ret = register_netdevice_notifier(&ew_protect_netdev_nb);
	if (ret)
		return ret;
	xfrm_register_km(&ew_xfrm_mgr);
	WRITE_ONCE(ew_protect_live, true);
	return 0;
}

/**
 * ew_protect_exit() - stop watching; no re-check runs after this returns
 */
void ew_protect_exit(void)
{
	WRITE_ONCE(ew_protect_live, false);
	/* Both wait for callers in flight (synchronize_rcu / RTNL). */
	xfrm_unregister_km(&ew_xfrm_mgr);
	unregister_netdevice_notifier(&ew_protect_netdev_nb);
	cancel_work_sync(&ew_protect_work);
	xa_destroy(&ew_physical);
}
