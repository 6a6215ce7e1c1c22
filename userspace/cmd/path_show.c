// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl path show|caps|check|physical: what protects a netdev's RoCE
 * traffic, as its pieces show it (macsec link, SCs and SAs with their
 * counters, ESP states and policies, the physical declaration, the RoCE
 * MTU), what "auto" would choose and why, and the kernel's own answer for
 * one path (path-get, the evaluation that enforces a job's encrypt rule).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_link.h>
#include <linux/if_macsec.h>
#include <linux/xfrm.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd/path.h"
#include "cmd/subcommands.h"
#include "ewctl.h"
#include "io/macsec.h"
#include "io/output.h"
#include "io/rtnl.h"
#include "io/xfrm.h"
#include "model/addr.h"
#include "model/parse.h"

#define IND "    "

static const char *cipher_name(uint64_t id)
{
	switch (id) {
	case MACSEC_CIPHER_ID_GCM_AES_128:
	case MACSEC_DEFAULT_CIPHER_ID:
		return "gcm-aes-128";
	case MACSEC_CIPHER_ID_GCM_AES_256:
		return "gcm-aes-256";
	case MACSEC_CIPHER_ID_GCM_AES_XPN_128:
		return "gcm-aes-xpn-128";
	case MACSEC_CIPHER_ID_GCM_AES_XPN_256:
		return "gcm-aes-xpn-256";
	default:
		return "unknown";
	}
}

static const char *macsec_offload_name(uint8_t o)
{
	return o == MACSEC_OFFLOAD_MAC ? "mac" : o == MACSEC_OFFLOAD_PHY ? "phy" : "off";
}

/* "            tx sa 0 on pn 12 encrypted 10" / {"an": 0, "active": true, ...} */
static void print_sa(uint8_t an, const struct ew_msa *sa, bool tx)
{
	ew_open_object(NULL);
	ew_print_uint(EW_ANY, "an", tx ? IND IND IND "tx sa %u" : IND IND IND "rx sa %u", an);
	ew_print_on_off(EW_ANY, "active", " %s", sa->active);
	ew_print_u64(EW_ANY, "next_pn", " pn %llu", sa->next_pn);
	if (tx) {
		ew_print_uint(EW_ANY, "out_pkts_encrypted", " encrypted %u\n", sa->out_encrypted);
		ew_print_uint(EW_JSON, "out_pkts_protected", NULL, sa->out_protected);
	} else {
		ew_print_uint(EW_ANY, "in_pkts_ok", " ok %u", sa->pkts_ok);
		ew_print_uint(EW_ANY, "in_pkts_invalid", " invalid %u", sa->pkts_invalid);
		ew_print_uint(EW_ANY, "in_pkts_not_valid", " not-valid %u\n", sa->pkts_not_valid);
		ew_print_uint(EW_JSON, "in_pkts_not_using_sa", NULL, sa->pkts_not_using_sa);
	}
	ew_close_object();
}

/* The macsec link @li, its SCs and SAs: "macsec": {...}. */
static void show_macsec(struct ewnl *ms, const struct ew_link_info *li)
{
	char sci[24], mac[24];
	struct ew_msecy y;
	uint8_t an;
	size_t i;

	if (ew_macsec_get(ms, (uint32_t)li->ifindex, &y)) {
		ewnl_report(ms, "path show: %s", li->name);
		return;
	}
	ew_open_object("macsec");
	ew_print_string(EW_ANY, "ifname", IND "macsec %s", li->name);
	ew_print_uint(EW_JSON, "ifindex", NULL, (unsigned int)li->ifindex);
	ew_print_string(EW_ANY, "sci", " sci %s", ew_sci_format(y.sci, sci, sizeof(sci)));
	ew_print_string(EW_ANY, "cipher", " cipher %s", cipher_name(y.cipher_id));
	ew_print_on_off(EW_ANY, "encrypt", " encrypt %s", li->encrypt);
	ew_print_on_off(EW_ANY, "replay_protect", " replay %s", li->replay);
	ew_print_uint(EW_ANY, "window", " window %u", li->window);
	ew_print_string(EW_ANY, "offload", " offload %s", macsec_offload_name(li->offload));
	ew_print_uint(EW_JSON, "encoding_an", NULL, y.encoding_an);
	ew_print_uint(EW_JSON, "mtu", NULL, li->mtu);
	ew_print_on_off(EW_JSON, "owned", NULL, li->ours);
	ew_print_text("%s\n", li->ours ? "" : " (not eastwestctl's)");
	ew_print_text(IND IND "tx encoding-an %u", y.encoding_an);
	ew_print_u64(EW_ANY, "out_pkts_encrypted", " out-encrypted %llu\n", y.out_encrypted);
	ew_print_u64(EW_JSON, "in_pkts_no_tag", NULL, y.in_no_tag);
	ew_print_u64(EW_JSON, "in_pkts_bad_tag", NULL, y.in_bad_tag);
	ew_print_u64(EW_JSON, "in_pkts_unknown_sci", NULL, y.in_unknown_sci);
	ew_open_array("tx_sa");
	for (an = 0; an < EW_MACSEC_NUM_AN; an++)
		if (y.tx[an].present)
			print_sa(an, &y.tx[an], true);
	ew_close_array();
	ew_open_array("rx_sc");
	for (i = 0; i < y.n_rx; i++) {
		ew_open_object(NULL);
		ew_print_string(EW_ANY, "sci", IND IND "rx sc %s",
				ew_sci_format(y.rx[i].sci, sci, sizeof(sci)));
		ew_print_string(EW_ANY, "peer_mac", " peer %s",
				ew_mac_format(y.rx[i].sci, mac, sizeof(mac)));
		ew_print_on_off(EW_ANY, "active", " %s", y.rx[i].active);
		ew_print_u64(EW_ANY, "in_pkts_ok", " ok %llu", y.rx[i].in_ok);
		ew_print_u64(EW_ANY, "in_pkts_invalid", " invalid %llu", y.rx[i].in_invalid);
		ew_print_u64(EW_ANY, "in_pkts_not_valid", " not-valid %llu", y.rx[i].in_not_valid);
		ew_print_u64(EW_ANY, "in_pkts_late", " late %llu\n", y.rx[i].in_late);
		ew_open_array("sa");
		for (an = 0; an < EW_MACSEC_NUM_AN; an++)
			if (y.rx[i].sa[an].present)
				print_sa(an, &y.rx[i].sa[an], false);
		ew_close_array();
		ew_close_object();
	}
	ew_close_array();
	ew_print_text(IND IND "no-tag %llu bad-tag %llu unknown-sci %llu\n",
		      (unsigned long long)y.in_no_tag, (unsigned long long)y.in_bad_tag,
		      (unsigned long long)y.in_unknown_sci);
	ew_close_object();
	ew_msecy_free(&y);
}

/* Is @reqid the node's or a job's for @ifindex (path add ... job NAME)? */
static bool reqid_of(uint32_t reqid, int ifindex)
{
	return reqid == ew_path_reqid(ifindex) || reqid == ew_path_reqid_job(ifindex);
}

/*
 * eastwest's ESP states and policies of @ifindex: "ipsec": {"states": [...],
 * "policies": [...]} if it has states. Returns the count of states.
 */
static size_t show_ipsec(const struct ew_xfrm_dump *d, int ifindex, bool *v6)
{
	char s[EW_PEER_STRLEN], t[EW_PEER_STRLEN], spi[16];
	size_t i, n = 0;
	enum ew_to only;

	for (i = 0; i < d->n_sa; i++) {
		if (!reqid_of(d->sa[i].reqid, ifindex))
			continue;
		n++;
		*v6 = !ew_addr_is_v4mapped(d->sa[i].dst);
	}
	only = ew_print_only(n ? EW_ANY : EW_TEXT);
	ew_open_object("ipsec");
	ew_open_array("states");
	for (i = 0; i < d->n_sa; i++) {
		const struct ew_esp_sa *sa = &d->sa[i];

		if (!reqid_of(sa->reqid, ifindex))
			continue;
		ew_open_object(NULL);
		ew_print_string(EW_ANY, "src", IND "esp %s", ew_addr_format(sa->src, s, sizeof(s)));
		ew_print_string(EW_ANY, "dst", " -> %s", ew_addr_format(sa->dst, t, sizeof(t)));
		snprintf(spi, sizeof(spi), "0x%08x", sa->spi);
		ew_print_string(EW_ANY, "spi", " spi %s", spi);
		ew_print_on_off(EW_JSON, "esn", NULL, sa->esn);
		if (sa->esn)
			ew_print_text(" esn");
		ew_print_uint(EW_ANY, "replay_window", " window %u", sa->window);
		ew_print_u64(EW_ANY, "seq", " seq %llu", sa->seq);
		ew_print_u64(EW_ANY, "packets", " packets %llu", sa->packets);
		ew_print_u64(EW_ANY, "bytes", " bytes %llu", sa->bytes);
		ew_print_u64(EW_ANY, "replay_drops", " replay-drops %llu", sa->replay_drops);
		ew_print_u64(EW_ANY, "integrity_failed", " integrity-failed %llu",
			     sa->integrity_failed);
		ew_print_string(EW_ANY, "offload", " offload %s\n", !sa->offload_ifindex ? "off" :
				sa->offload_flags & XFRM_OFFLOAD_PACKET ? "packet" : "crypto");
		ew_close_object();
	}
	ew_close_array();
	ew_open_array("policies");
	for (i = 0; i < d->n_sp; i++) {
		const struct ew_esp_sp *sp = &d->sp[i];

		if (sp->block || !reqid_of(sp->reqid, ifindex))
			continue;
		ew_open_object(NULL);
		ew_print_string(EW_ANY, "dir", IND "policy %s", sp->dir == EW_DIR_OUT ? "out" : "in");
		ew_print_string(EW_ANY, "src", " %s", ew_addr_format(sp->src, s, sizeof(s)));
		ew_print_string(EW_ANY, "dst", " -> %s", ew_addr_format(sp->dst, t, sizeof(t)));
		ew_print_string(EW_JSON, "proto", NULL, sp->proto == 17 ? "udp" : "any");
		ew_print_uint(EW_ANY, "priority", " proto udp esp priority %u", sp->priority);
		ew_print_text(" (block behind it: %u)\n", (unsigned int)EW_PRIO_BLOCK);
		ew_close_object();
	}
	ew_close_array();
	ew_close_object();
	ew_print_only_end(only);
	return n;
}

static bool int_in(const int *v, size_t n, int x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

int ew_path_show(const struct ew_path_spec *spec)
{
	struct nl_sock *rt = NULL, *xs = NULL;
	struct ewnl *nl = NULL, *ms = NULL;
	struct ew_config cfg = { 0 };
	struct ew_xfrm_dump d = { 0 };
	int *devs = NULL, ifindex = 0, ret = EW_OK, err;
	size_t n = 0, cap = 0, i;

	if (spec->dev[0]) {
		ret = ew_path_netdev("show", spec->dev, &ifindex);
		if (ret)
			goto out;
	}
	err = ew_rtnl_open(&rt);
	if (!err)
		err = ew_xfrm_open(&xs);
	if (!err)
		err = ew_xfrm_dump(xs, &d);
	if (err) {
		ew_err("path show: %s", ew_nlerr(err));
		ret = EW_FAIL;
		goto out;
	}
	/* The module is optional here: crypto state is shown without it. */
	if (access("/sys/module/eastwest", F_OK) == 0 && !ew_connect(&nl) &&
	    ew_ipc_config_get(nl, &cfg))
		nl = NULL;
	if (ifindex) {
		EW_GROW(devs, n, cap);
		devs[n++] = ifindex;
	} else {
		int lowers[64];
		size_t nl_low = 0;

		/* Netdevs with eastwestctl's state: macsec lowers, reqid tags, fabrics. */
		ew_macsec_lowers(rt, lowers, EW_ARRAY_SIZE(lowers), &nl_low);
		for (i = 0; i < nl_low; i++) {
			if (!int_in(devs, n, lowers[i])) {
				EW_GROW(devs, n, cap);
				devs[n++] = lowers[i];
			}
		}
		for (i = 0; i < d.n_sa; i++) {
			int x = (int)(d.sa[i].reqid & ~EW_REQID_MASK);

			if (((d.sa[i].reqid & EW_REQID_MASK) == EW_REQID_BASE ||
			     (d.sa[i].reqid & EW_REQID_MASK) == EW_REQID_JOB) && !int_in(devs, n, x)) {
				EW_GROW(devs, n, cap);
				devs[n++] = x;
			}
		}
		for (i = 0; i < cfg.n_physical; i++) {
			if (!int_in(devs, n, (int)cfg.physical[i])) {
				EW_GROW(devs, n, cap);
				devs[n++] = (int)cfg.physical[i];
			}
		}
	}
	ew_open_array(NULL);
	for (i = 0; i < n; i++) {
		struct ew_link_info lower, li;
		struct ew_netdev_roce r = { 0 };
		bool found = false, v6 = false, phys;
		char name[IF_NAMESIZE] = "?";
		unsigned int mtu;
		size_t nsa;

		if (!if_indextoname((unsigned int)devs[i], name))
			snprintf(name, sizeof(name), "ifindex:%d", devs[i]);
		memset(&lower, 0, sizeof(lower));
		ew_link_get(rt, devs[i], &lower);
		ew_link_macsec_on(rt, devs[i], &li, &found);
		phys = false;
		for (size_t k = 0; k < cfg.n_physical; k++)
			phys |= (int)cfg.physical[k] == devs[i];
		if (nl && ew_path_roce(nl, found ? li.ifindex : devs[i], found ? li.name : name, &r))
			nl = NULL;
		ew_open_object(NULL);
		ew_print_string(EW_ANY, "dev", "dev %s", name);
		ew_print_uint(EW_JSON, "ifindex", NULL, (unsigned int)devs[i]);
		ew_print_uint(EW_ANY, "mtu", " mtu %u", lower.mtu);
		ew_print_on_off(EW_JSON, "physical", NULL, phys);
		ew_print_text("%s\n", phys ? " physical (declared dedicated fabric)" : "");
		if (found) {
			if (!ms && ew_macsec_open(&ms))
				ms = NULL;
			if (ms)
				show_macsec(ms, &li);
		}
		nsa = show_ipsec(&d, devs[i], &v6);
		mtu = found ? ew_roce_mtu(li.mtu, 0, v6) :
		      nsa ? ew_roce_mtu(lower.mtu, EW_ESP_OVERHEAD, v6) :
			    ew_roce_mtu(lower.mtu, 0, v6);
		ew_print_uint(EW_ANY, "roce_mtu", IND "roce-mtu %u", mtu);
		if (nl && r.n_gids)
			ew_print_text(" kernel: %s gids on %s", r.rdma_dev, found ? li.name : name);
		else if (nl)
			ew_print_text(" kernel: no RDMA GID on %s", found ? li.name : name);
		if (nl) {
			ew_print_flags(ew_when(r.n_gids, true), "kernel_protection", " protection %s",
				       &ew_protection_names, r.protection);
			ew_print_uint(EW_JSON, "rdma_gids", NULL, (unsigned int)r.n_gids);
		}
		ew_print_text("\n");
		ew_close_object();
	}
	ew_close_array();
out:
	free(cfg.revoked);
	free(devs);
	ew_xfrm_dump_free(&d);
	ewnl_close(ms);
	ew_rtnl_close(rt);
	ew_rtnl_close(xs);
	return ret;
}

int ew_path_caps(const struct ew_path_spec *spec)
{
	struct ew_netdev_roce r;
	struct ew_path_choice ch;
	struct ew_path_caps caps;
	struct ew_link_info li;
	struct nl_sock *rt = NULL;
	struct utsname u;
	struct ewnl *nl;
	int ifindex, ret;
	unsigned int v4m, v4i;

	ret = ew_path_netdev("caps", spec->dev, &ifindex);
	if (!ret)
		ret = ew_connect(&nl);
	if (ret)
		return ret;
	if (ew_path_caps_of(nl, ifindex, spec->dev, &caps, &r))
		return ewnl_report(nl, "path caps: dev-get");
	ew_path_choose(&caps, &ch);
	memset(&li, 0, sizeof(li));
	if (!ew_rtnl_open(&rt))
		ew_link_get(rt, ifindex, &li);
	ew_rtnl_close(rt);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	v4m = ew_roce_mtu(li.mtu, EW_MACSEC_OVERHEAD, false);
	v4i = ew_roce_mtu(li.mtu, EW_ESP_OVERHEAD, false);
	ew_open_object(NULL);
	ew_print_string(EW_ANY, "dev", "dev %s", spec->dev);
	ew_print_uint(EW_ANY, "ifindex", " ifindex %u", (unsigned int)ifindex);
	ew_print_uint(EW_ANY, "mtu", " mtu %u", li.mtu);
	ew_print_string(EW_ANY, "kernel", " kernel %s\n", u.release);
	ew_print_uint(EW_JSON, "rdma_gids", NULL, (unsigned int)r.n_gids);
	if (r.n_gids) {
		ew_print_string(EW_ANY, "rdma_dev", IND "rdma %s", r.rdma_dev);
		ew_print_text(" port %u: %zu GID%s on this netdev\n", r.port, r.n_gids,
			      r.n_gids == 1 ? "" : "s");
	} else {
		ew_print_text(IND "rdma: no GID on this netdev (not RoCE yet)\n");
	}
	ew_print_on_off(EW_JSON, "offload_caps_known", NULL, caps.known);
	ew_print_flags(EW_ANY, "offload_caps", IND "offload-caps %s", &ew_offload_caps_names,
		       r.offload_caps);
	ew_print_text("%s\n", caps.known ? "" : " (unknown: the kernel reports them per GID)");
	ew_print_on_off(EW_JSON, "kernel_esp_packet_offload", NULL, caps.kernel_esp_packet);
	ew_print_text(IND "esp packet offload %s\n", caps.kernel_esp_packet ?
		      "possible on this kernel (6.2+)" : "not on this kernel (needs 6.2 or later)");
	ew_print_on_off(EW_JSON, "physical", NULL, caps.physical);
	ew_print_text(IND "physical %s\n", caps.physical ? "declared" : "not declared");
	/* The choice last in text, the MTUs last in JSON. */
	ew_open_object("auto");
	ew_print_string(EW_JSON, "type", NULL, ew_path_type_names[ch.type]);
	ew_print_string(EW_JSON, "offload", NULL, ew_path_offload_names[ch.offload]);
	ew_print_string(EW_JSON, "reason", NULL, ch.reason);
	ew_close_object();
	ew_open_object("roce_mtu");
	ew_print_uint(EW_ANY, "plain", IND "roce-mtu plain %u", ew_roce_mtu(li.mtu, 0, false));
	ew_print_uint(EW_ANY, "macsec", " macsec %u", v4m);
	ew_print_uint(EW_ANY, "ipsec", " ipsec %u (IPv4)\n", v4i);
	ew_close_object();
	ew_print_text("auto: %s offload %s: %s\n", ew_path_type_names[ch.type],
		      ew_path_offload_names[ch.offload], ch.reason);
	ew_close_object();
	return EW_OK;
}

int ew_path_check(const struct ew_path_spec *spec)
{
	char dst[EW_PEER_STRLEN], name[IF_NAMESIZE], spi[16];
	struct ew_path_info pi;
	struct ewnl *nl;
	bool named;
	int ret;

	ret = ew_connect(&nl);
	if (ret)
		return ret;
	ew_addr_format(spec->dst, dst, sizeof(dst));
	if (ew_ipc_path_get(nl, spec->rdma_dev, spec->port, spec->sgid_index, spec->dst, &pi))
		return ewnl_report(nl, "path check %s port %u sgid-index %u dst %s",
				   spec->rdma_dev, spec->port, spec->sgid_index, dst);
	ew_open_object(NULL);
	ew_print_string(EW_ANY, "dev", "path %s", spec->rdma_dev);
	ew_print_uint(EW_ANY, "port", " port %u", spec->port);
	ew_print_uint(EW_ANY, "sgid_index", " sgid-index %u", spec->sgid_index);
	ew_print_string(EW_ANY, "dst", " dst %s", dst);
	ew_print_on_off(EW_JSON, "protected", NULL, pi.protection != 0);
	ew_print_text(": %s", pi.protection ? "protected by " : "NOT protected");
	ew_print_flags(ew_when(pi.protection, true), "protection", "%s", &ew_protection_names,
		       pi.protection);
	if (pi.ifindex) {
		named = if_indextoname(pi.ifindex, name);
		ew_print_uint(EW_JSON, "ifindex", NULL, pi.ifindex);
		if (named)
			ew_print_string(EW_ANY, "ifname", " netdev %s", name);
	}
	if (pi.has_macsec && pi.macsec_ifindex) {
		named = if_indextoname(pi.macsec_ifindex, name);
		ew_print_uint(EW_JSON, "macsec_ifindex", NULL, pi.macsec_ifindex);
		if (named)
			ew_print_text(" macsec %s", name);
		ew_print_enum(ew_when(named, true), "macsec_offload", " offload %s",
			      &ew_macsec_offload_names, pi.macsec_offload);
	}
	if (pi.has_spi) {
		snprintf(spi, sizeof(spi), "0x%08x", pi.ipsec_spi);
		ew_print_string(EW_ANY, "ipsec_spi", " esp spi %s", spi);
	}
	ew_print_text("\n");
	ew_close_object();
	return pi.protection ? EW_OK : EW_FAIL;
}

int ew_path_physical(const struct ew_path_spec *spec)
{
	struct ewnl *nl;
	int ifindex, ret;

	ret = ew_path_netdev("physical", spec->dev, &ifindex);
	if (!ret)
		ret = ew_connect(&nl);
	if (ret)
		return ret;
	if (ew_ipc_fabric_set(nl, (uint32_t)ifindex, spec->physical))
		return ewnl_report(nl, "path physical dev %s %s", spec->dev,
				   spec->physical ? "on" : "off");
	return EW_OK;
}
