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

#include "addr.h"
#include "ewctl.h"
#include "json_out.h"
#include "macsec.h"
#include "parse.h"
#include "path.h"
#include "rtnl.h"
#include "subcommands.h"
#include "xfrm.h"

#define IND "    "

static struct json_object *jstr(const char *s)
{
	return json_object_new_string(s);
}

static struct json_object *jint(uint64_t v)
{
	return json_object_new_int64((int64_t)v);
}

static void jadd(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

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

static struct json_object *json_sa(uint8_t an, const struct ew_msa *sa, bool tx)
{
	struct json_object *o = json_object_new_object();

	jadd(o, "an", jint(an));
	jadd(o, "active", json_object_new_boolean(sa->active));
	jadd(o, "next_pn", jint(sa->next_pn));
	if (tx) {
		jadd(o, "out_pkts_encrypted", jint(sa->out_encrypted));
		jadd(o, "out_pkts_protected", jint(sa->out_protected));
	} else {
		jadd(o, "in_pkts_ok", jint(sa->pkts_ok));
		jadd(o, "in_pkts_invalid", jint(sa->pkts_invalid));
		jadd(o, "in_pkts_not_valid", jint(sa->pkts_not_valid));
		jadd(o, "in_pkts_not_using_sa", jint(sa->pkts_not_using_sa));
	}
	return o;
}

/* The macsec link @li: text, or into @o. */
static void show_macsec(struct ewnl *ms, const struct ew_link_info *li, struct json_object *o)
{
	struct json_object *m = NULL, *a;
	char sci[24], mac[24];
	struct ew_msecy y;
	uint8_t an;
	size_t i;

	if (ew_macsec_get(ms, (uint32_t)li->ifindex, &y)) {
		ewnl_report(ms, "path show: %s", li->name);
		return;
	}
	if (o) {
		m = json_object_new_object();
		jadd(m, "ifname", jstr(li->name));
		jadd(m, "ifindex", jint((uint64_t)li->ifindex));
		jadd(m, "sci", jstr(ew_sci_format(y.sci, sci, sizeof(sci))));
		jadd(m, "cipher", jstr(cipher_name(y.cipher_id)));
		jadd(m, "encrypt", json_object_new_boolean(li->encrypt));
		jadd(m, "replay_protect", json_object_new_boolean(li->replay));
		jadd(m, "window", jint(li->window));
		jadd(m, "offload", jstr(macsec_offload_name(li->offload)));
		jadd(m, "encoding_an", jint(y.encoding_an));
		jadd(m, "mtu", jint(li->mtu));
		jadd(m, "owned", json_object_new_boolean(li->ours));
		jadd(m, "out_pkts_encrypted", jint(y.out_encrypted));
		jadd(m, "in_pkts_no_tag", jint(y.in_no_tag));
		jadd(m, "in_pkts_bad_tag", jint(y.in_bad_tag));
		jadd(m, "in_pkts_unknown_sci", jint(y.in_unknown_sci));
		a = json_object_new_array();
		for (an = 0; an < EW_MACSEC_NUM_AN; an++)
			if (y.tx[an].present)
				json_object_array_add(a, json_sa(an, &y.tx[an], true));
		jadd(m, "tx_sa", a);
		a = json_object_new_array();
		for (i = 0; i < y.n_rx; i++) {
			struct json_object *sc = json_object_new_object(), *sas;

			jadd(sc, "sci", jstr(ew_sci_format(y.rx[i].sci, sci, sizeof(sci))));
			jadd(sc, "peer_mac", jstr(ew_mac_format(y.rx[i].sci, mac, sizeof(mac))));
			jadd(sc, "active", json_object_new_boolean(y.rx[i].active));
			jadd(sc, "in_pkts_ok", jint(y.rx[i].in_ok));
			jadd(sc, "in_pkts_invalid", jint(y.rx[i].in_invalid));
			jadd(sc, "in_pkts_not_valid", jint(y.rx[i].in_not_valid));
			jadd(sc, "in_pkts_late", jint(y.rx[i].in_late));
			sas = json_object_new_array();
			for (an = 0; an < EW_MACSEC_NUM_AN; an++)
				if (y.rx[i].sa[an].present)
					json_object_array_add(sas, json_sa(an, &y.rx[i].sa[an], false));
			jadd(sc, "sa", sas);
			json_object_array_add(a, sc);
		}
		jadd(m, "rx_sc", a);
		jadd(o, "macsec", m);
		ew_msecy_free(&y);
		return;
	}
	printf(IND "macsec %s sci %s cipher %s encrypt %s replay %s window %u offload %s%s\n",
	       li->name, ew_sci_format(y.sci, sci, sizeof(sci)), cipher_name(y.cipher_id),
	       li->encrypt ? "on" : "off", li->replay ? "on" : "off", li->window,
	       macsec_offload_name(li->offload), li->ours ? "" : " (not eastwestctl's)");
	printf(IND IND "tx encoding-an %u out-encrypted %llu\n", y.encoding_an,
	       (unsigned long long)y.out_encrypted);
	for (an = 0; an < EW_MACSEC_NUM_AN; an++)
		if (y.tx[an].present)
			printf(IND IND IND "tx sa %u %s pn %llu encrypted %u\n", an,
			       y.tx[an].active ? "on" : "off",
			       (unsigned long long)y.tx[an].next_pn, y.tx[an].out_encrypted);
	for (i = 0; i < y.n_rx; i++) {
		printf(IND IND "rx sc %s peer %s %s ok %llu invalid %llu not-valid %llu late %llu\n",
		       ew_sci_format(y.rx[i].sci, sci, sizeof(sci)),
		       ew_mac_format(y.rx[i].sci, mac, sizeof(mac)),
		       y.rx[i].active ? "on" : "off", (unsigned long long)y.rx[i].in_ok,
		       (unsigned long long)y.rx[i].in_invalid,
		       (unsigned long long)y.rx[i].in_not_valid,
		       (unsigned long long)y.rx[i].in_late);
		for (an = 0; an < EW_MACSEC_NUM_AN; an++)
			if (y.rx[i].sa[an].present)
				printf(IND IND IND "rx sa %u %s pn %llu ok %u invalid %u not-valid %u\n",
				       an, y.rx[i].sa[an].active ? "on" : "off",
				       (unsigned long long)y.rx[i].sa[an].next_pn,
				       y.rx[i].sa[an].pkts_ok, y.rx[i].sa[an].pkts_invalid,
				       y.rx[i].sa[an].pkts_not_valid);
	}
	printf(IND IND "no-tag %llu bad-tag %llu unknown-sci %llu\n",
	       (unsigned long long)y.in_no_tag, (unsigned long long)y.in_bad_tag,
	       (unsigned long long)y.in_unknown_sci);
	ew_msecy_free(&y);
}

/* eastwest's ESP states and policies of @ifindex. Returns the count of states. */
static size_t show_ipsec(const struct ew_xfrm_dump *d, int ifindex, struct json_object *o,
			 bool *v6)
{
	uint32_t reqid = ew_path_reqid(ifindex), jreqid = ew_path_reqid_job(ifindex);
	struct json_object *sas = NULL, *sps = NULL;
	char s[EW_PEER_STRLEN], t[EW_PEER_STRLEN];
	size_t i, n = 0;

	if (o) {
		sas = json_object_new_array();
		sps = json_object_new_array();
	}
	for (i = 0; i < d->n_sa; i++) {
		const struct ew_esp_sa *sa = &d->sa[i];
		const char *off = !sa->offload_ifindex ? "off" :
				  sa->offload_flags & XFRM_OFFLOAD_PACKET ? "packet" : "crypto";

		/* The node's states, and the jobs' (path add ... job NAME). */
		if (sa->reqid != reqid && sa->reqid != jreqid)
			continue;
		n++;
		*v6 = !ew_addr_is_v4mapped(sa->dst);
		ew_addr_format(sa->src, s, sizeof(s));
		ew_addr_format(sa->dst, t, sizeof(t));
		if (o) {
			struct json_object *x = json_object_new_object();
			char spi[16];

			snprintf(spi, sizeof(spi), "0x%08x", sa->spi);
			jadd(x, "src", jstr(s));
			jadd(x, "dst", jstr(t));
			jadd(x, "spi", jstr(spi));
			jadd(x, "esn", json_object_new_boolean(sa->esn));
			jadd(x, "replay_window", jint(sa->window));
			jadd(x, "seq", jint(sa->seq));
			jadd(x, "packets", jint(sa->packets));
			jadd(x, "bytes", jint(sa->bytes));
			jadd(x, "replay_drops", jint(sa->replay_drops));
			jadd(x, "integrity_failed", jint(sa->integrity_failed));
			jadd(x, "offload", jstr(off));
			json_object_array_add(sas, x);
		} else {
			printf(IND "esp %s -> %s spi 0x%08x%s window %u seq %llu packets %llu bytes %llu replay-drops %llu integrity-failed %llu offload %s\n",
			       s, t, sa->spi, sa->esn ? " esn" : "", sa->window,
			       (unsigned long long)sa->seq, (unsigned long long)sa->packets,
			       (unsigned long long)sa->bytes, (unsigned long long)sa->replay_drops,
			       (unsigned long long)sa->integrity_failed, off);
		}
	}
	for (i = 0; i < d->n_sp; i++) {
		const struct ew_esp_sp *sp = &d->sp[i];

		if (sp->block || (sp->reqid != reqid && sp->reqid != jreqid))
			continue;
		ew_addr_format(sp->src, s, sizeof(s));
		ew_addr_format(sp->dst, t, sizeof(t));
		if (o) {
			struct json_object *x = json_object_new_object();

			jadd(x, "dir", jstr(sp->dir == EW_DIR_OUT ? "out" : "in"));
			jadd(x, "src", jstr(s));
			jadd(x, "dst", jstr(t));
			jadd(x, "proto", jstr(sp->proto == 17 ? "udp" : "any"));
			jadd(x, "priority", jint(sp->priority));
			json_object_array_add(sps, x);
		} else {
			printf(IND "policy %s %s -> %s proto udp esp priority %u (block behind it: %u)\n",
			       sp->dir == EW_DIR_OUT ? "out" : "in", s, t, sp->priority,
			       (unsigned int)EW_PRIO_BLOCK);
		}
	}
	if (o && n) {
		struct json_object *x = json_object_new_object();

		jadd(x, "states", sas);
		jadd(x, "policies", sps);
		jadd(o, "ipsec", x);
	} else if (o) {
		json_object_put(sas);
		json_object_put(sps);
	}
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
	struct json_object *arr = ew_opts.json ? json_object_new_array() : NULL;
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
	for (i = 0; i < n; i++) {
		struct json_object *o = arr ? json_object_new_object() : NULL;
		struct ew_link_info lower, li;
		struct ew_netdev_roce r = { 0 };
		bool found = false, v6 = false, phys;
		char name[IF_NAMESIZE] = "?", buf[64];
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
		if (o) {
			jadd(o, "dev", jstr(name));
			jadd(o, "ifindex", jint((uint64_t)devs[i]));
			jadd(o, "mtu", jint(lower.mtu));
			jadd(o, "physical", json_object_new_boolean(phys));
		} else {
			printf("dev %s mtu %u%s\n", name, lower.mtu, phys ? " physical (declared dedicated fabric)" : "");
		}
		if (found) {
			if (!ms && ew_macsec_open(&ms))
				ms = NULL;
			if (ms)
				show_macsec(ms, &li, o);
		}
		nsa = show_ipsec(&d, devs[i], o, &v6);
		mtu = found ? ew_roce_mtu(li.mtu, 0, v6) :
		      nsa ? ew_roce_mtu(lower.mtu, EW_ESP_OVERHEAD, v6) :
			    ew_roce_mtu(lower.mtu, 0, v6);
		if (o) {
			jadd(o, "roce_mtu", jint(mtu));
			if (nl) {
				jadd(o, "kernel_protection", ew_json_flags(&ew_protection_names,
									   r.protection));
				jadd(o, "rdma_gids", jint(r.n_gids));
			}
			json_object_array_add(arr, o);
		} else {
			printf(IND "roce-mtu %u", mtu);
			if (nl && r.n_gids)
				printf(" kernel: %s gids on %s protection %s", r.rdma_dev,
				       found ? li.name : name,
				       ew_flags_str(&ew_protection_names, r.protection, buf, sizeof(buf)));
			else if (nl)
				printf(" kernel: no RDMA GID on %s", found ? li.name : name);
			putchar('\n');
		}
	}
	if (arr)
		ew_json_print(arr);
	arr = NULL;
out:
	if (arr)
		json_object_put(arr);
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
	char buf[64];
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
	if (ew_opts.json) {
		struct json_object *o = json_object_new_object(), *m;

		jadd(o, "dev", jstr(spec->dev));
		jadd(o, "ifindex", jint((uint64_t)ifindex));
		jadd(o, "mtu", jint(li.mtu));
		jadd(o, "kernel", jstr(u.release));
		jadd(o, "rdma_gids", jint(r.n_gids));
		if (r.n_gids)
			jadd(o, "rdma_dev", jstr(r.rdma_dev));
		jadd(o, "offload_caps_known", json_object_new_boolean(caps.known));
		jadd(o, "offload_caps", ew_json_flags(&ew_offload_caps_names, r.offload_caps));
		jadd(o, "kernel_esp_packet_offload", json_object_new_boolean(caps.kernel_esp_packet));
		jadd(o, "physical", json_object_new_boolean(caps.physical));
		m = json_object_new_object();
		jadd(m, "type", jstr(ew_path_type_names[ch.type]));
		jadd(m, "offload", jstr(ew_path_offload_names[ch.offload]));
		jadd(m, "reason", jstr(ch.reason));
		jadd(o, "auto", m);
		m = json_object_new_object();
		jadd(m, "plain", jint(ew_roce_mtu(li.mtu, 0, false)));
		jadd(m, "macsec", jint(v4m));
		jadd(m, "ipsec", jint(v4i));
		jadd(o, "roce_mtu", m);
		return ew_json_print(o);
	}
	printf("dev %s ifindex %d mtu %u kernel %s\n", spec->dev, ifindex, li.mtu, u.release);
	if (r.n_gids)
		printf(IND "rdma %s port %u: %zu GID%s on this netdev\n", r.rdma_dev, r.port,
		       r.n_gids, r.n_gids == 1 ? "" : "s");
	else
		printf(IND "rdma: no GID on this netdev (not RoCE yet)\n");
	printf(IND "offload-caps %s%s\n",
	       ew_flags_str(&ew_offload_caps_names, r.offload_caps, buf, sizeof(buf)),
	       caps.known ? "" : " (unknown: the kernel reports them per GID)");
	printf(IND "esp packet offload %s\n", caps.kernel_esp_packet ?
	       "possible on this kernel (6.2+)" : "not on this kernel (needs 6.2 or later)");
	printf(IND "physical %s\n", caps.physical ? "declared" : "not declared");
	printf(IND "roce-mtu plain %u macsec %u ipsec %u (IPv4)\n",
	       ew_roce_mtu(li.mtu, 0, false), v4m, v4i);
	printf("auto: %s offload %s: %s\n", ew_path_type_names[ch.type],
	       ew_path_offload_names[ch.offload], ch.reason);
	return EW_OK;
}

int ew_path_check(const struct ew_path_spec *spec)
{
	char dst[EW_PEER_STRLEN], buf[64], name[IF_NAMESIZE];
	struct ew_path_info pi;
	struct ewnl *nl;
	int ret;

	ret = ew_connect(&nl);
	if (ret)
		return ret;
	ew_addr_format(spec->dst, dst, sizeof(dst));
	if (ew_ipc_path_get(nl, spec->rdma_dev, spec->port, spec->sgid_index, spec->dst, &pi))
		return ewnl_report(nl, "path check %s port %u sgid-index %u dst %s",
				   spec->rdma_dev, spec->port, spec->sgid_index, dst);
	if (ew_opts.json) {
		struct json_object *o = json_object_new_object();
		char spi[16];

		jadd(o, "dev", jstr(spec->rdma_dev));
		jadd(o, "port", jint(spec->port));
		jadd(o, "sgid_index", jint(spec->sgid_index));
		jadd(o, "dst", jstr(dst));
		jadd(o, "protected", json_object_new_boolean(pi.protection != 0));
		jadd(o, "protection", ew_json_flags(&ew_protection_names, pi.protection));
		if (pi.ifindex) {
			jadd(o, "ifindex", jint(pi.ifindex));
			if (if_indextoname(pi.ifindex, name))
				jadd(o, "ifname", jstr(name));
		}
		if (pi.has_macsec && pi.macsec_ifindex) {
			jadd(o, "macsec_ifindex", jint(pi.macsec_ifindex));
			jadd(o, "macsec_offload", jstr(ew_enum_name(&ew_macsec_offload_names,
								    pi.macsec_offload)));
		}
		if (pi.has_spi) {
			snprintf(spi, sizeof(spi), "0x%08x", pi.ipsec_spi);
			jadd(o, "ipsec_spi", jstr(spi));
		}
		ew_json_print(o);
	} else {
		printf("path %s port %u sgid-index %u dst %s: %s", spec->rdma_dev, spec->port,
		       spec->sgid_index, dst, pi.protection ? "protected by " : "NOT protected");
		if (pi.protection)
			printf("%s", ew_flags_str(&ew_protection_names, pi.protection, buf,
						  sizeof(buf)));
		if (pi.ifindex && if_indextoname(pi.ifindex, name))
			printf(" netdev %s", name);
		if (pi.has_macsec && pi.macsec_ifindex && if_indextoname(pi.macsec_ifindex, name))
			printf(" macsec %s offload %s", name,
			       ew_enum_name(&ew_macsec_offload_names, pi.macsec_offload));
		if (pi.has_spi)
			printf(" esp spi 0x%08x", pi.ipsec_spi);
		putchar('\n');
	}
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
