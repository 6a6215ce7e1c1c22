// SPDX-License-Identifier: GPL-2.0
/*
 * rtnetlink through libnl-route-3 (3.7): create, change and delete the
 * macsec link, add its address, find addresses and neighbours.
 *
 * libnl 3.7 models the macsec link (cipher suite, ICV length, encrypt,
 * protect, replay protection and window, validation, encoding SA), but its
 * rtnl_link_macsec_set_offload() takes the offload mode for a boolean: it
 * returns -NLE_INVAL for MACSEC_OFFLOAD_MAC (2) and leaves the attribute
 * out. The link is therefore created with offload off, and macsec.c sets
 * the mode on the macsec genetlink family (MACSEC_CMD_UPD_OFFLOAD) while
 * the link is still down and has no SA, which both kernels accept. SCs and
 * SAs are not links: macsec.c sends those too.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_macsec.h>
#include <net/if.h>
#include <string.h>

#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/macsec.h>
#include <netlink/route/neighbour.h>

#include "ewctl.h"
#include "io/rtnl.h"
#include "model/addr.h"

int ew_rtnl_open(struct nl_sock **skp)
{
	struct nl_sock *sk = nl_socket_alloc();
	int ret;

	if (!sk)
		return -NLE_NOMEM;
	ret = nl_connect(sk, NETLINK_ROUTE);
	if (ret) {
		nl_socket_free(sk);
		return ret;
	}
	*skp = sk;
	return 0;
}

void ew_rtnl_close(struct nl_sock *sk)
{
	if (sk)
		nl_socket_free(sk);
}

const char *ew_nlerr(int err)
{
	return nl_geterror(err < 0 ? -err : err);
}

static void fill_info(struct rtnl_link *link, struct ew_link_info *li)
{
	struct nl_addr *a = rtnl_link_get_addr(link);
	const char *alias = rtnl_link_get_ifalias(link);
	const char *type = rtnl_link_get_type(link);
	uint64_t sci;
	uint8_t u8;
	uint32_t u32;
	enum macsec_validation_type vt;

	memset(li, 0, sizeof(*li));
	li->ifindex = rtnl_link_get_ifindex(link);
	snprintf(li->name, sizeof(li->name), "%s", rtnl_link_get_name(link) ? rtnl_link_get_name(link) : "");
	li->lower = rtnl_link_get_link(link);
	li->mtu = rtnl_link_get_mtu(link);
	li->up = rtnl_link_get_flags(link) & IFF_UP;
	li->ours = alias && !strcmp(alias, EW_LINK_ALIAS);
	if (a && nl_addr_get_len(a) == 6)
		memcpy(li->mac, nl_addr_get_binary_addr(a), 6);
	li->is_macsec = type && !strcmp(type, "macsec");
	if (!li->is_macsec)
		return;
	if (!rtnl_link_macsec_get_sci(link, &sci))
		memcpy(li->sci, &sci, 8);	/* network order, as the kernel keeps it */
	rtnl_link_macsec_get_cipher_suite(link, &li->cipher_id);
	if (!rtnl_link_macsec_get_encrypt(link, &u8))
		li->encrypt = u8;
	if (!rtnl_link_macsec_get_protect(link, &u8))
		li->protect = u8;
	if (!rtnl_link_macsec_get_replay_protect(link, &u8))
		li->replay = u8;
	if (!rtnl_link_macsec_get_offload(link, &u8))
		li->offload = u8;
	if (!rtnl_link_macsec_get_encoding_sa(link, &u8))
		li->encoding_an = u8;
	if (!rtnl_link_macsec_get_window(link, &u32))
		li->window = u32;
	if (!rtnl_link_macsec_get_validation_type(link, &vt))
		li->validate = (uint8_t)vt;
}

int ew_link_get(struct nl_sock *sk, int ifindex, struct ew_link_info *li)
{
	struct rtnl_link *link;
	int ret;

	ret = rtnl_link_get_kernel(sk, ifindex, NULL, &link);
	if (ret)
		return ret;
	fill_info(link, li);
	rtnl_link_put(link);
	return 0;
}

/*
 * Gives @fn the info of every link, in the kernel's order, until it
 * returns false.
 */
static int each_link(struct nl_sock *sk,
		     bool (*fn)(const struct ew_link_info *cur, void *arg), void *arg)
{
	struct nl_cache *cache;
	struct nl_object *o;
	int ret;

	ret = rtnl_link_alloc_cache(sk, AF_UNSPEC, &cache);
	if (ret)
		return ret;
	for (o = nl_cache_get_first(cache); o; o = nl_cache_get_next(o)) {
		struct ew_link_info cur;

		fill_info((struct rtnl_link *)o, &cur);
		if (!fn(&cur, arg))
			break;
	}
	nl_cache_free(cache);
	return 0;
}

struct macsec_on {
	int lower;
	struct ew_link_info *li;
	bool *found;
};

static bool pick_macsec_on(const struct ew_link_info *cur, void *arg)
{
	struct macsec_on *m = arg;

	if (!cur->is_macsec || cur->lower != m->lower)
		return true;
	if (!*m->found || (cur->ours && !m->li->ours))
		*m->li = *cur;
	*m->found = true;
	return true;
}

/* The first macsec link over @lower (eastwestctl's own first). */
int ew_link_macsec_on(struct nl_sock *sk, int lower, struct ew_link_info *li,
		      bool *found)
{
	struct macsec_on m = { .lower = lower, .li = li, .found = found };

	*found = false;
	return each_link(sk, pick_macsec_on, &m);
}

struct by_sci {
	const uint8_t *sci;
	struct ew_link_info *li;
	bool *found;
};

static bool pick_by_sci(const struct ew_link_info *cur, void *arg)
{
	struct by_sci *b = arg;

	if (!cur->is_macsec || !cur->ours || memcmp(cur->sci, b->sci, 8))
		return true;
	*b->li = *cur;
	*b->found = true;
	return false;
}

/* eastwestctl's macsec link that sends with @sci, if any. */
int ew_link_macsec_sci(struct nl_sock *sk, const uint8_t sci[8], struct ew_link_info *li,
		       bool *found)
{
	struct by_sci b = { .sci = sci, .li = li, .found = found };

	*found = false;
	return each_link(sk, pick_by_sci, &b);
}

struct lowers {
	int *v;
	size_t max, *n;
};

static bool add_lower(const struct ew_link_info *cur, void *arg)
{
	struct lowers *l = arg;

	if (*l->n < l->max && cur->is_macsec && cur->ours && cur->lower)
		l->v[(*l->n)++] = cur->lower;
	return *l->n < l->max;
}

/* The lower netdevs of eastwestctl's macsec links. */
int ew_macsec_lowers(struct nl_sock *sk, int *lowers, size_t max, size_t *n)
{
	struct lowers l = { .v = lowers, .max = max, .n = n };

	*n = 0;
	return each_link(sk, add_lower, &l);
}

int ew_macsec_link_add(struct nl_sock *sk, const struct ew_macsec_link_cfg *cfg,
		       struct ew_link_info *li)
{
	struct rtnl_link *link, *got = NULL, *chg = NULL;
	int ret = -NLE_NOMEM;

	link = rtnl_link_macsec_alloc();
	if (!link)
		return ret;
	rtnl_link_set_name(link, cfg->name);
	rtnl_link_set_link(link, cfg->lower);
	rtnl_link_macsec_set_port(link, 1);
	rtnl_link_macsec_set_cipher_suite(link, cfg->cipher_id);
	rtnl_link_macsec_set_icv_len(link, MACSEC_STD_ICV_LEN);
	rtnl_link_macsec_set_encrypt(link, 1);
	rtnl_link_macsec_set_protect(link, 1);
	rtnl_link_macsec_set_replay_protect(link, 1);
	rtnl_link_macsec_set_window(link, cfg->window);
	rtnl_link_macsec_set_validation_type(link, MACSEC_VALIDATE_STRICT);
	rtnl_link_macsec_set_encoding_sa(link, cfg->encoding_an);
	ret = rtnl_link_add(sk, link, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_link_put(link);
	if (ret)
		return ret;
	ew_changes++;

	ret = rtnl_link_get_kernel(sk, 0, cfg->name, &got);
	if (ret)
		return ret;
	/* Mark it ours; IFLA_IFALIAS is not applied at creation. */
	chg = rtnl_link_alloc();
	if (!chg) {
		ret = -NLE_NOMEM;
		goto out;
	}
	rtnl_link_set_ifalias(chg, EW_LINK_ALIAS);
	ret = rtnl_link_change(sk, got, chg, 0);
	if (!ret)
		fill_info(got, li);
	li->ours = true;
out:
	if (ret)
		rtnl_link_delete(sk, got);
	rtnl_link_put(chg);
	rtnl_link_put(got);
	return ret;
}

/*
 * Applies @chg (freshly allocated with its changes set, NULL if the
 * allocation failed) to the link @ifindex and frees it.
 */
static int link_change(struct nl_sock *sk, int ifindex, struct rtnl_link *chg)
{
	struct rtnl_link *orig;
	int ret;

	if (!chg)
		return -NLE_NOMEM;
	ret = rtnl_link_get_kernel(sk, ifindex, NULL, &orig);
	if (!ret) {
		ret = rtnl_link_change(sk, orig, chg, 0);
		rtnl_link_put(orig);
	}
	rtnl_link_put(chg);
	if (!ret)
		ew_changes++;
	return ret;
}

/* Switches transmission to the SA @an (the TX SA must exist). */
int ew_macsec_link_encoding_sa(struct nl_sock *sk, int ifindex, uint8_t an)
{
	struct rtnl_link *chg = rtnl_link_macsec_alloc();

	if (chg)
		rtnl_link_macsec_set_encoding_sa(chg, an);
	return link_change(sk, ifindex, chg);
}

int ew_link_up(struct nl_sock *sk, int ifindex)
{
	struct rtnl_link *chg = rtnl_link_alloc();

	if (chg)
		rtnl_link_set_flags(chg, IFF_UP);
	return link_change(sk, ifindex, chg);
}

int ew_link_del(struct nl_sock *sk, int ifindex)
{
	struct rtnl_link *link = rtnl_link_alloc();
	int ret;

	if (!link)
		return -NLE_NOMEM;
	rtnl_link_set_ifindex(link, ifindex);
	ret = rtnl_link_delete(sk, link);
	rtnl_link_put(link);
	if (!ret)
		ew_changes++;
	return ret;
}

static struct nl_addr *mkaddr(const uint8_t addr[16])
{
	if (ew_addr_is_v4mapped(addr))
		return nl_addr_build(AF_INET, addr + 12, 4);
	return nl_addr_build(AF_INET6, addr, 16);
}

/* Adds @addr/@plen (@plen in IPv6 bits, IPv4 as 96 + LEN) to @ifindex. */
int ew_addr_add(struct nl_sock *sk, int ifindex, const uint8_t addr[16], uint8_t plen)
{
	struct rtnl_addr *ra = rtnl_addr_alloc();
	struct nl_addr *a = mkaddr(addr);
	bool v4 = ew_addr_is_v4mapped(addr);
	int ret = -NLE_NOMEM;

	if (!ra || !a)
		goto out;
	nl_addr_set_prefixlen(a, v4 ? plen - 96 : plen);
	rtnl_addr_set_ifindex(ra, ifindex);
	rtnl_addr_set_family(ra, v4 ? AF_INET : AF_INET6);
	ret = rtnl_addr_set_local(ra, a);
	if (!ret)
		ret = rtnl_addr_add(sk, ra, NLM_F_CREATE | NLM_F_EXCL);
	if (!ret)
		ew_changes++;
out:
	nl_addr_put(a);
	rtnl_addr_put(ra);
	return ret;
}

/* The first global address of the family on @ifindex; -NLE_OBJ_NOTFOUND if none. */
int ew_addr_first(struct nl_sock *sk, int ifindex, bool v4, uint8_t addr[16])
{
	struct nl_cache *cache;
	struct nl_object *o;
	int ret;

	ret = rtnl_addr_alloc_cache(sk, &cache);
	if (ret)
		return ret;
	ret = -NLE_OBJ_NOTFOUND;
	for (o = nl_cache_get_first(cache); o; o = nl_cache_get_next(o)) {
		struct rtnl_addr *ra = (struct rtnl_addr *)o;
		struct nl_addr *a = rtnl_addr_get_local(ra);

		if (rtnl_addr_get_ifindex(ra) != ifindex || !a ||
		    rtnl_addr_get_scope(ra) != RT_SCOPE_UNIVERSE ||
		    rtnl_addr_get_family(ra) != (v4 ? AF_INET : AF_INET6))
			continue;
		memset(addr, 0, 16);
		if (v4) {
			addr[10] = addr[11] = 0xff;
			memcpy(addr + 12, nl_addr_get_binary_addr(a), 4);
		} else {
			memcpy(addr, nl_addr_get_binary_addr(a), 16);
		}
		ret = 0;
		break;
	}
	nl_cache_free(cache);
	return ret;
}

/* The MAC address of neighbour @addr on @ifindex, if resolved. */
int ew_neigh_mac(struct nl_sock *sk, int ifindex, const uint8_t addr[16], uint8_t mac[6])
{
	struct rtnl_neigh *n = NULL;
	struct nl_cache *cache;
	struct nl_addr *a = mkaddr(addr), *ll;
	int ret;

	if (!a)
		return -NLE_NOMEM;
	ret = rtnl_neigh_alloc_cache(sk, &cache);
	if (ret)
		goto out;
	n = rtnl_neigh_get(cache, ifindex, a);
	ret = -NLE_OBJ_NOTFOUND;
	if (n && !(rtnl_neigh_get_state(n) & (NUD_INCOMPLETE | NUD_FAILED | NUD_NONE))) {
		ll = rtnl_neigh_get_lladdr(n);
		if (ll && nl_addr_get_len(ll) == 6) {
			memcpy(mac, nl_addr_get_binary_addr(ll), 6);
			ret = 0;
		}
	}
	if (n)
		rtnl_neigh_put(n);
	nl_cache_free(cache);
out:
	nl_addr_put(a);
	return ret;
}
