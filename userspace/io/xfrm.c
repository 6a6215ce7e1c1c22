// SPDX-License-Identifier: GPL-2.0
/*
 * ESP transport states and policies through libnl-xfrm-3 (3.7).
 *
 * States: rfc4106(gcm(aes)) with a 256-bit key and 32-bit salt, 128-bit
 * ICV, ESN with a replay window, no lifetime limits (rotation replaces
 * them), XFRMA_OFFLOAD_DEV for crypto or packet offload. libnl 3.7 has all
 * of that for states (xfrmnl_sa_set_user_offload()); for policies it has
 * no offload setter, so a packet-offload policy is built by libnl and gets
 * its XFRMA_OFFLOAD_DEV appended before it is sent.
 *
 * libnl keeps its own copy of a key inside the xfrmnl_sa object and frees
 * it without wiping: the key lives in this short-lived process' heap until
 * exit. Our own buffers are wiped (keys.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/xfrm.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/xfrm/lifetime.h>
#include <netlink/xfrm/sa.h>
#include <netlink/xfrm/selector.h>
#include <netlink/xfrm/sp.h>
#include <netlink/xfrm/template.h>

#include "ewctl.h"
#include "io/xfrm.h"
#include "model/addr.h"

#define AEAD_ALG "rfc4106(gcm(aes))"
#define ICV_BITS 128

int ew_xfrm_open(struct nl_sock **skp)
{
	struct nl_sock *sk = nl_socket_alloc();
	int ret;

	if (!sk)
		return -NLE_NOMEM;
	ret = nl_connect(sk, NETLINK_XFRM);
	if (ret) {
		nl_socket_free(sk);
		return ret;
	}
	*skp = sk;
	return 0;
}

static bool is_v4(const uint8_t a[16])
{
	return ew_addr_is_v4mapped(a);
}

static struct nl_addr *mkaddr(const uint8_t a[16])
{
	return is_v4(a) ? nl_addr_build(AF_INET, a + 12, 4) :
			  nl_addr_build(AF_INET6, a, 16);
}

static void from_nladdr(struct nl_addr *na, uint8_t out[16])
{
	memset(out, 0, 16);
	if (!na)
		return;
	if (nl_addr_get_family(na) == AF_INET && nl_addr_get_len(na) == 4) {
		out[10] = out[11] = 0xff;
		memcpy(out + 12, nl_addr_get_binary_addr(na), 4);
	} else if (nl_addr_get_len(na) == 16) {
		memcpy(out, nl_addr_get_binary_addr(na), 16);
	}
}

static struct xfrmnl_ltime_cfg *infinite_lifetime(void)
{
	struct xfrmnl_ltime_cfg *lt = xfrmnl_ltime_cfg_alloc();

	if (!lt)
		return NULL;
	xfrmnl_ltime_cfg_set_soft_bytelimit(lt, XFRM_INF);
	xfrmnl_ltime_cfg_set_hard_bytelimit(lt, XFRM_INF);
	xfrmnl_ltime_cfg_set_soft_packetlimit(lt, XFRM_INF);
	xfrmnl_ltime_cfg_set_hard_packetlimit(lt, XFRM_INF);
	return lt;
}

int ew_xfrm_sa_add(struct nl_sock *sk, const struct ew_esp_sa *in,
		   const struct ew_esp_keys *k)
{
	struct xfrmnl_sa *sa = xfrmnl_sa_alloc();
	struct nl_addr *src = mkaddr(in->src), *dst = mkaddr(in->dst);
	struct xfrmnl_ltime_cfg *lt = infinite_lifetime();
	/* bitmap words: the window rounded up to 32 packets */
	unsigned int words = (in->window + 31) / 32;
	unsigned int bmp[EW_REPLAY_BMP_WORDS] = { 0 };
	int ret = -NLE_NOMEM;

	if (!sa || !src || !dst || !lt)
		goto out;
	if (words > EW_REPLAY_BMP_WORDS)
		words = EW_REPLAY_BMP_WORDS;
	xfrmnl_sa_set_family(sa, is_v4(in->dst) ? AF_INET : AF_INET6);
	xfrmnl_sa_set_daddr(sa, dst);
	xfrmnl_sa_set_saddr(sa, src);
	xfrmnl_sa_set_spi(sa, in->spi);
	xfrmnl_sa_set_proto(sa, IPPROTO_ESP);
	xfrmnl_sa_set_mode(sa, XFRM_MODE_TRANSPORT);
	xfrmnl_sa_set_reqid(sa, in->reqid);
	xfrmnl_sa_set_flags(sa, XFRM_STATE_ESN);
	/* With ESN the window lives in the ESN replay state only. */
	xfrmnl_sa_set_replay_window(sa, 0);
	xfrmnl_sa_set_replay_state_esn(sa, 0, 0, 0, 0, words * 32, words, bmp);
	xfrmnl_sa_set_lifetime_cfg(sa, lt);
	xfrmnl_sa_set_aead_params(sa, AEAD_ALG, sizeof(k->key) * 8, ICV_BITS,
				  (const char *)k->key);
	if (in->offload_ifindex)
		xfrmnl_sa_set_user_offload(sa, (int)in->offload_ifindex, in->offload_flags);
	ret = xfrmnl_sa_add(sk, sa, NLM_F_CREATE | NLM_F_EXCL);
	if (!ret)
		ew_changes++;
out:
	xfrmnl_ltime_cfg_put(lt);
	nl_addr_put(src);
	nl_addr_put(dst);
	xfrmnl_sa_put(sa);
	return ret;
}

int ew_xfrm_sa_del(struct nl_sock *sk, const uint8_t dst[16], uint32_t spi)
{
	struct xfrmnl_sa *sa = xfrmnl_sa_alloc();
	struct nl_addr *d = mkaddr(dst);
	int ret = -NLE_NOMEM;

	if (sa && d) {
		xfrmnl_sa_set_daddr(sa, d);
		xfrmnl_sa_set_spi(sa, spi);
		xfrmnl_sa_set_proto(sa, IPPROTO_ESP);
		ret = xfrmnl_sa_delete(sk, sa, 0);
		if (!ret)
			ew_changes++;
	}
	nl_addr_put(d);
	xfrmnl_sa_put(sa);
	return ret;
}

static struct xfrmnl_sel *mksel(const struct ew_esp_sp *in)
{
	struct xfrmnl_sel *sel = xfrmnl_sel_alloc();
	struct nl_addr *s = mkaddr(in->src), *d = mkaddr(in->dst);

	if (!sel || !s || !d) {
		if (sel)
			xfrmnl_sel_put(sel);
		sel = NULL;
		goto out;
	}
	nl_addr_set_prefixlen(s, in->plen_s);
	nl_addr_set_prefixlen(d, in->plen_d);
	xfrmnl_sel_set_family(sel, is_v4(in->dst) ? AF_INET : AF_INET6);
	xfrmnl_sel_set_saddr(sel, s);
	xfrmnl_sel_set_daddr(sel, d);
	xfrmnl_sel_set_prefixlen_s(sel, in->plen_s);
	xfrmnl_sel_set_prefixlen_d(sel, in->plen_d);
	xfrmnl_sel_set_proto(sel, in->proto);
out:
	nl_addr_put(s);
	nl_addr_put(d);
	return sel;
}

/**
 * ew_xfrm_sp_add() - add (or replace) a policy
 * @sk: XFRM socket
 * @in: the policy; an ESP policy (not block) gets one transport-mode ESP
 *	template with reqid @in->reqid
 * @update: XFRM_MSG_UPDPOLICY: replace the policy with the same selector,
 *	which also makes the kernel drop the cached routes through it
 * @packet_offload_ifindex: non-zero: XFRM_OFFLOAD_PACKET on that netdev
 *
 * Return: 0 or a negative libnl error.
 */
int ew_xfrm_sp_add(struct nl_sock *sk, const struct ew_esp_sp *in, bool update,
		   uint32_t packet_offload_ifindex)
{
	struct xfrmnl_sp *sp = xfrmnl_sp_alloc();
	struct xfrmnl_sel *sel = mksel(in);
	struct xfrmnl_ltime_cfg *lt = infinite_lifetime();
	struct xfrmnl_user_tmpl *t = NULL;
	struct nl_msg *msg = NULL;
	int ret = -NLE_NOMEM;

	if (!sp || !sel || !lt)
		goto out;
	xfrmnl_sp_set_sel(sp, sel);
	xfrmnl_sp_set_lifetime_cfg(sp, lt);
	xfrmnl_sp_set_dir(sp, (unsigned int)in->dir);
	xfrmnl_sp_set_priority(sp, in->priority);
	xfrmnl_sp_set_action(sp, in->block ? XFRM_POLICY_BLOCK : XFRM_POLICY_ALLOW);
	if (!in->block) {
		struct nl_addr *s = mkaddr(in->src), *d = mkaddr(in->dst);

		t = xfrmnl_user_tmpl_alloc();
		if (!t || !s || !d) {
			nl_addr_put(s);
			nl_addr_put(d);
			goto out;
		}
		xfrmnl_user_tmpl_set_family(t, is_v4(in->dst) ? AF_INET : AF_INET6);
		xfrmnl_user_tmpl_set_saddr(t, s);
		xfrmnl_user_tmpl_set_daddr(t, d);
		nl_addr_put(s);
		nl_addr_put(d);
		xfrmnl_user_tmpl_set_proto(t, IPPROTO_ESP);
		xfrmnl_user_tmpl_set_mode(t, XFRM_MODE_TRANSPORT);
		xfrmnl_user_tmpl_set_reqid(t, in->reqid);
		xfrmnl_user_tmpl_set_aalgos(t, ~0U);
		xfrmnl_user_tmpl_set_ealgos(t, ~0U);
		xfrmnl_user_tmpl_set_calgos(t, ~0U);
		xfrmnl_sp_add_usertemplate(sp, t);
		t = NULL;	/* owned by sp now */
	}
	if (update)
		ret = xfrmnl_sp_build_update_request(sp, 0, &msg);
	else
		ret = xfrmnl_sp_build_add_request(sp, NLM_F_CREATE | NLM_F_EXCL, &msg);
	if (ret)
		goto out;
	if (packet_offload_ifindex) {
		struct xfrm_user_offload off = {
			.ifindex = (int)packet_offload_ifindex,
			.flags = XFRM_OFFLOAD_PACKET |
				 (in->dir == EW_DIR_IN ? XFRM_OFFLOAD_INBOUND : 0) |
				 (is_v4(in->dst) ? 0 : XFRM_OFFLOAD_IPV6),
		};

		ret = nla_put(msg, XFRMA_OFFLOAD_DEV, sizeof(off), &off);
		if (ret)
			goto out;
	}
	ret = nl_send_auto_complete(sk, msg);
	if (ret >= 0)
		ret = nl_wait_for_ack(sk);
	if (!ret)
		ew_changes++;
out:
	if (msg)
		nlmsg_free(msg);
	if (t)
		xfrmnl_user_tmpl_free(t);
	xfrmnl_ltime_cfg_put(lt);
	if (sel)
		xfrmnl_sel_put(sel);
	xfrmnl_sp_put(sp);
	return ret;
}

/* Deletes the policy of @sp's direction and selector. */
int ew_xfrm_sp_del(struct nl_sock *sk, const struct ew_esp_sp *in)
{
	struct xfrmnl_sp *sp = xfrmnl_sp_alloc();
	struct xfrmnl_sel *sel = mksel(in);
	int ret = -NLE_NOMEM;

	if (sp && sel) {
		xfrmnl_sp_set_sel(sp, sel);
		xfrmnl_sp_set_dir(sp, (unsigned int)in->dir);
		ret = xfrmnl_sp_delete(sk, sp, 0);
		if (!ret)
			ew_changes++;
	}
	if (sel)
		xfrmnl_sel_put(sel);
	xfrmnl_sp_put(sp);
	return ret;
}

bool ew_sp_same_sel(const struct ew_esp_sp *a, const struct ew_esp_sp *b)
{
	return a->dir == b->dir && a->proto == b->proto &&
	       a->plen_s == b->plen_s && a->plen_d == b->plen_d &&
	       !memcmp(a->src, b->src, 16) && !memcmp(a->dst, b->dst, 16);
}

static unsigned int esn_bmp[4096 / sizeof(unsigned int)];

static void sa_obj(struct nl_object *o, void *arg)
{
	struct xfrmnl_sa *sa = (struct xfrmnl_sa *)o;
	struct ew_xfrm_dump *d = arg;
	unsigned long long bytes = 0, packets = 0, at = 0, ut = 0;
	unsigned long long rw = 0, replay = 0, integ = 0;
	unsigned int oseq = 0, seq = 0, oseq_hi = 0, seq_hi = 0, win = 0, bmp_len = 0;
	struct ew_esp_sa *e;
	int ifindex = 0;
	uint8_t flags = 0;

	if (xfrmnl_sa_get_proto(sa) != IPPROTO_ESP)
		return;
	EW_GROW(d->sa, d->n_sa, d->cap_sa);
	e = &d->sa[d->n_sa++];
	memset(e, 0, sizeof(*e));
	from_nladdr(xfrmnl_sa_get_saddr(sa), e->src);
	from_nladdr(xfrmnl_sa_get_daddr(sa), e->dst);
	e->spi = (uint32_t)xfrmnl_sa_get_spi(sa);
	e->reqid = (uint32_t)xfrmnl_sa_get_reqid(sa);
	if (!xfrmnl_sa_get_curlifetime(sa, &bytes, &packets, &at, &ut)) {
		e->bytes = bytes;
		e->packets = packets;
	}
	if (!xfrmnl_sa_get_stats(sa, &rw, &replay, &integ)) {
		e->replay_drops = replay;
		e->integrity_failed = integ;
	}
	/*
	 * libnl copies the whole bitmap out; the kernel caps it at
	 * XFRMA_REPLAY_ESN_MAX (4096 bytes), which this buffer holds.
	 */
	if (!xfrmnl_sa_get_replay_state_esn(sa, &oseq, &seq, &oseq_hi, &seq_hi,
					    &win, &bmp_len, esn_bmp)) {
		e->esn = true;
		e->window = win;
		e->seq = oseq || oseq_hi ? (uint64_t)oseq_hi << 32 | oseq :
					   (uint64_t)seq_hi << 32 | seq;
	}
	if (!xfrmnl_sa_get_user_offload(sa, &ifindex, &flags)) {
		e->offload_ifindex = (uint32_t)ifindex;
		e->offload_flags = flags;
	}
}

static void tmpl_reqid(struct xfrmnl_user_tmpl *t, void *arg)
{
	uint32_t *reqid = arg;

	if (xfrmnl_user_tmpl_get_proto(t) == IPPROTO_ESP)
		*reqid = (uint32_t)xfrmnl_user_tmpl_get_reqid(t);
}

static void sp_obj(struct nl_object *o, void *arg)
{
	struct xfrmnl_sp *sp = (struct xfrmnl_sp *)o;
	struct xfrmnl_sel *sel = xfrmnl_sp_get_sel(sp);
	struct ew_xfrm_dump *d = arg;
	struct ew_esp_sp *e;
	int dir = xfrmnl_sp_get_dir(sp);

	if (!sel || (dir != XFRM_POLICY_IN && dir != XFRM_POLICY_OUT))
		return;
	EW_GROW(d->sp, d->n_sp, d->cap_sp);
	e = &d->sp[d->n_sp++];
	memset(e, 0, sizeof(*e));
	from_nladdr(xfrmnl_sel_get_saddr(sel), e->src);
	from_nladdr(xfrmnl_sel_get_daddr(sel), e->dst);
	e->plen_s = (uint8_t)xfrmnl_sel_get_prefixlen_s(sel);
	e->plen_d = (uint8_t)xfrmnl_sel_get_prefixlen_d(sel);
	e->proto = (uint8_t)xfrmnl_sel_get_proto(sel);
	e->dir = dir;
	e->block = xfrmnl_sp_get_action(sp) == XFRM_POLICY_BLOCK;
	e->priority = (uint32_t)xfrmnl_sp_get_priority(sp);
	e->index = (uint32_t)xfrmnl_sp_get_index(sp);
	xfrmnl_sp_foreach_usertemplate(sp, tmpl_reqid, &e->reqid);
}

/* Every ESP state and every in/out policy of the namespace. */
int ew_xfrm_dump(struct nl_sock *sk, struct ew_xfrm_dump *d)
{
	struct nl_cache *cache;
	int ret;

	memset(d, 0, sizeof(*d));
	ret = xfrmnl_sa_alloc_cache(sk, &cache);
	if (ret)
		return ret;
	nl_cache_foreach(cache, sa_obj, d);
	nl_cache_free(cache);
	ret = xfrmnl_sp_alloc_cache(sk, &cache);
	if (ret)
		return ret;
	nl_cache_foreach(cache, sp_obj, d);
	nl_cache_free(cache);
	return 0;
}

void ew_xfrm_dump_free(struct ew_xfrm_dump *d)
{
	free(d->sa);
	free(d->sp);
	memset(d, 0, sizeof(*d));
}
