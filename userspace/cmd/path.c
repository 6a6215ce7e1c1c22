// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl path add|del|rotate: protection of the RoCE traffic between
 * this node and its peers, on one netdev, through the kernel's standard
 * interfaces only: rtnetlink for the macsec link (rtnl.c, libnl-route),
 * the macsec genetlink family for its SCs and SAs (macsec.c, libmnl) and
 * XFRM netlink for ESP states and policies (xfrm.c, libnl-xfrm).
 *
 * Keys come from a key file and are derived per sender and epoch (keys.c),
 * so every node computes the same SAs without talking to the others.
 *
 * "add" is all or nothing: whatever it created before a failure is removed
 * again, and it refuses to start over state it did not create (an existing
 * macsec link, an SPI or policy selector already in use).
 *
 * "rotate" is make-before-break, in three stages an orchestrator runs on
 * every node in turn: rx (accept the next epoch), tx (send with it), retire
 * (drop the previous epochs).
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
#include "io/ipc.h"
#include "io/keys.h"
#include "io/macsec.h"
#include "io/rtnl.h"
#include "io/rxe.h"
#include "io/xfrm.h"
#include "model/addr.h"
#include "model/pathspec.h"

/* --- helpers path_show.c uses too -------------------------------------- */

int ew_path_netdev(const char *verb, const char *name, int *ifindex)
{
	*ifindex = (int)if_nametoindex(name);
	if (!*ifindex) {
		ew_err("path %s: dev %s: no such netdev", verb, name);
		return EW_USAGE;
	}
	return EW_OK;
}

/* The GIDs RDMA devices have on netdev @ifindex (by index, or by name). */
int ew_path_roce(struct ewnl *nl, int ifindex, const char *name,
		 struct ew_netdev_roce *r)
{
	struct ew_devs devs;
	size_t i, j, k;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = ew_ipc_dev_dump(nl, &devs);
	if (ret)
		return ret;
	for (i = 0; i < devs.n; i++) {
		for (j = 0; j < devs.v[i].n_ports; j++) {
			const struct ew_port *p = &devs.v[i].ports[j];

			for (k = 0; k < p->n_gids; k++) {
				const struct ew_gid *g = &p->gids[k];

				if (g->present & EW_GID_IFINDEX ? (int)g->ifindex != ifindex :
				    !(g->present & EW_GID_IFNAME) || strcmp(g->ifname, name))
					continue;
				if (!r->n_gids++) {
					snprintf(r->rdma_dev, sizeof(r->rdma_dev), "%s",
						 devs.v[i].name);
					r->port = p->num;
				}
				if (g->present & EW_GID_OFFLOAD_CAPS) {
					r->caps_known = true;
					r->offload_caps |= g->offload_caps;
				}
				if (g->present & EW_GID_PROTECTION)
					r->protection |= g->protection;
			}
		}
	}
	ew_devs_free(&devs);
	return 0;
}

/* Declared a dedicated fabric (config-get's physical-ifindex list)? */
bool ew_path_declared(struct ewnl *nl, int ifindex)
{
	bool declared = false;
	struct ew_config cfg;
	size_t i;

	if (ew_ipc_config_get(nl, &cfg))
		return false;
	for (i = 0; i < cfg.n_physical; i++)
		declared |= (int)cfg.physical[i] == ifindex;
	free(cfg.revoked);
	return declared;
}

int ew_path_caps_of(struct ewnl *nl, int ifindex, const char *name,
		    struct ew_path_caps *caps, struct ew_netdev_roce *r)
{
	struct utsname u;
	int ret;

	memset(caps, 0, sizeof(*caps));
	ret = ew_path_roce(nl, ifindex, name, r);
	if (ret)
		return ret;
	caps->known = r->caps_known;
	caps->macsec_offload = r->offload_caps & EASTWEST_OFFLOAD_CAPS_MACSEC;
	caps->esp_crypto = r->offload_caps & EASTWEST_OFFLOAD_CAPS_ESP_CRYPTO;
	caps->esp_packet = r->offload_caps & EASTWEST_OFFLOAD_CAPS_ESP_PACKET;
	caps->kernel_esp_packet = !uname(&u) && ew_kernel_at_least(u.release, 6, 2);
	caps->physical = ew_path_declared(nl, ifindex);
	return 0;
}

uint32_t ew_path_reqid(int ifindex)
{
	return EW_REQID_BASE | ((uint32_t)ifindex & ~EW_REQID_MASK);
}

uint32_t ew_path_reqid_job(int ifindex)
{
	return EW_REQID_JOB | ((uint32_t)ifindex & ~EW_REQID_MASK);
}

/* The reqid of the states a verb works on: the node's, or one job's. */
static uint32_t spec_reqid(const struct ew_path_spec *spec, int ifindex)
{
	return spec->job ? ew_path_reqid_job(ifindex) : ew_path_reqid(ifindex);
}

/* Is the state or policy from @src to @dst one of @spec's (a job's: its address)? */
static bool spec_mine(const struct ew_path_spec *spec, const uint8_t src[16],
		      const uint8_t dst[16])
{
	return !spec->job || !memcmp(src, spec->local, 16) || !memcmp(dst, spec->local, 16);
}

/* --- add ----------------------------------------------------------------- */

/*
 * Soft-RoCE under a macsec link. The kernel gives an rxe device on the
 * lower netdev a GID for every address of the macsec link too (the macsec
 * link is an upper device, like a VLAN: roce_gid_mgmt.c), but that rxe
 * cannot receive what the macsec link decrypts: rxe hands a packet to the
 * rxe device of the netdev it arrives on (the macsec link), or of a VLAN's
 * real device, never of a macsec link's. rdma_cm binds an address to the
 * first RDMA device, in registration order, with a GID for it
 * (cma_acquire_dev_by_src_ip): with the lower rxe registered first, rping
 * and every other rdma_cm application pick the device that cannot receive.
 * So path add creates the rxe device on the macsec link, then deletes and
 * adds again each rxe device of the lower netdev, which puts it after the
 * new one; the lower rxe keeps the lower netdev's own addresses.
 */
struct rxe_plan {
	char name[EW_RXE_NAME_MAX];	/* on the macsec link */
	struct ew_rxe_list lower;	/* on the lower netdev */
	const char *gone;		/* a lower one deleted, not added again */
};

static int rxe_plan(const struct ew_path_spec *spec, const char *link,
		    struct rxe_plan *rp)
{
	char path[128];
	int err;

	memset(rp, 0, sizeof(*rp));
	err = ew_rxe_on(spec->dev, &rp->lower);
	if (err) {
		ew_err("path add: cannot list soft-RoCE devices: %s", strerror(-err));
		return EW_FAIL;
	}
	if (!rp->lower.n) {
		if (spec->rxe_name[0]) {
			ew_err("path add: rxe %s: dev %s has no soft-RoCE (rxe) device to move aside (other RDMA devices put their GIDs on the macsec link themselves)",
			       spec->rxe_name, spec->dev);
			return EW_USAGE;
		}
		return EW_OK;
	}
	if (spec->rxe_name[0])
		snprintf(rp->name, sizeof(rp->name), "%s", spec->rxe_name);
	else
		snprintf(rp->name, sizeof(rp->name), "rxe-%s", link);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s", rp->name);
	if (!access(path, F_OK)) {
		ew_err("path add: rxe %s: an RDMA device of that name exists (give another with rxe NAME)",
		       rp->name);
		return EW_FAIL;
	}
	return EW_OK;
}

static void rxe_fail(const char *what, const char *name, const char *netdev, int err)
{
	const char *msg = ew_rxe_err();

	ew_err("path add: cannot %s soft-RoCE %s on %s: %s%s%s", what, name, netdev,
	       strerror(-err), *msg ? ": " : "", msg);
}

/* The rxe device on @link first, then the lower ones again, behind it. */
static int rxe_apply(const struct ew_path_spec *spec, const char *link,
		     struct rxe_plan *rp)
{
	size_t i;
	int err;

	if (!rp->lower.n)
		return EW_OK;
	err = ew_rxe_add(rp->name, link);
	if (err) {
		rxe_fail("add", rp->name, link, err);
		return EW_FAIL;
	}
	if (ew_rxe_wait_gid(rp->name, link))
		ew_warn("soft-RoCE %s has no GID on %s yet", rp->name, link);
	for (i = 0; i < rp->lower.n; i++) {
		const char *n = rp->lower.name[i];

		err = ew_rxe_del(n);
		if (err) {
			rxe_fail("re-register (delete)", n, spec->dev, err);
			return EW_FAIL;
		}
		rp->gone = n;
		err = ew_rxe_add(n, spec->dev);
		if (err) {
			rxe_fail("re-register (add)", n, spec->dev, err);
			return EW_FAIL;
		}
		rp->gone = NULL;
		if (ew_rxe_wait_gid(n, spec->dev))
			ew_warn("soft-RoCE %s has no GID on %s yet", n, spec->dev);
	}
	return EW_OK;
}

/* After a failure: the lower rxe device deleted and not added back. */
static void rxe_undo(const struct ew_path_spec *spec, struct rxe_plan *rp)
{
	const char *n = rp->gone;
	int err;

	if (!n)
		return;
	err = ew_rxe_add(n, spec->dev);
	if (err)
		ew_err("path add: rollback: cannot add soft-RoCE %s on %s again: %s (rdma link add %s type rxe netdev %s)",
		       n, spec->dev, strerror(-err), n, spec->dev);
}

struct add_ctx {
	const struct ew_path_spec *spec;
	struct ew_secret secret;
	int ifindex;
	struct nl_sock *rt;
	struct nl_sock *xs;
	struct ewnl *ms;
	struct ewnl *nl;
};

static const char *fam_name(const uint8_t *a)
{
	return ew_addr_is_v4mapped(a) ? "IPv4" : "IPv6";
}

static void sci_of(const uint8_t mac[6], uint8_t sci[8])
{
	memcpy(sci, mac, 6);
	sci[6] = 0;
	sci[7] = 1;		/* port 1, big endian */
}

static int load_key(const char *verb, const char *file, struct ew_secret *s)
{
	char why[160];

	if (ew_secret_load(file, getuid(), s, why, sizeof(why))) {
		ew_err("path %s: key file %s: %s", verb, file, why);
		return EW_USAGE;
	}
	return EW_OK;
}

/*
 * The secret a verb keys its SAs from: the key file's, or with job NAME the
 * secret of the job's run, derived from it (every node of the job derives
 * the same).
 */
static int load_spec_key(const char *verb, const struct ew_path_spec *spec,
			 struct ew_secret *s)
{
	struct ew_secret cluster;
	int ret;

	ret = load_key(verb, spec->key_file, spec->job ? &cluster : s);
	if (ret || !spec->job)
		return ret;
	ret = ew_kdf_job_secret(&cluster, spec->job, spec->run, s);
	ew_secret_free(&cluster);
	if (ret) {
		ew_err("path %s: job %s: cannot derive the job's secret", verb, spec->job);
		return EW_FAIL;
	}
	return EW_OK;
}

static int rtnl_fail(const char *what, int err)
{
	ew_err("path %s: %s", what, ew_nlerr(err));
	return EW_FAIL;
}

static int macsec_add(struct add_ctx *c, uint32_t offload)
{
	const struct ew_path_spec *spec = c->spec;
	struct ew_macsec_link_cfg cfg = { 0 };
	struct ew_link_info lower, li, old;
	uint8_t (*macs)[6] = NULL;
	uint8_t an = (uint8_t)(spec->epoch % 4), sci[8], txsci[8];
	char name[IF_NAMESIZE], abuf[EW_PEER_STRLEN], mbuf[24], who[IF_NAMESIZE + 4];
	bool xpn = spec->cipher == EW_CIPHER_GCM_AES_XPN_256, found;
	uint8_t mode = offload == EW_OFL_MAC ? MACSEC_OFFLOAD_MAC :
		       offload == EW_OFL_PHY ? MACSEC_OFFLOAD_PHY : MACSEC_OFFLOAD_OFF;
	struct ew_macsec_keys k;
	struct rxe_plan rp = { 0 };
	int ret, err;
	size_t i, j;

	if (spec->has_local && !spec->local_has_plen) {
		ew_err("path add: local %s needs a prefix length for macsec (the address goes on the macsec netdev, e.g. %s/24)",
		       ew_addr_format(spec->local, abuf, sizeof(abuf)), abuf);
		return EW_USAGE;
	}
	err = ew_link_get(c->rt, c->ifindex, &lower);
	if (err)
		return rtnl_fail("add: cannot read the netdev", err);
	if (lower.is_macsec) {
		ew_err("path add: dev %s is a macsec netdev itself (give its lower netdev)", spec->dev);
		return EW_USAGE;
	}
	err = ew_link_macsec_on(c->rt, c->ifindex, &old, &found);
	if (err)
		return rtnl_fail("add: cannot list links", err);
	if (found) {
		ew_err("path add: dev %s already has macsec link %s%s", spec->dev, old.name,
		       old.ours ? " (eastwestctl path del dev first, or path rotate)" : "");
		return EW_FAIL;
	}
	if (spec->name[0])
		snprintf(name, sizeof(name), "%s", spec->name);
	else
		ew_default_macsec_name(spec->dev, name, sizeof(name));
	if (if_nametoindex(name)) {
		ew_err("path add: name %s: a netdev of that name exists", name);
		return EW_FAIL;
	}
	ret = rxe_plan(spec, name, &rp);
	if (ret)
		goto out;

	/* Every peer's MAC first: nothing is created for a peer we cannot name. */
	macs = ew_calloc(spec->n_peers, sizeof(*macs));
	for (i = 0; i < spec->n_peers; i++) {
		const struct ew_path_peer *p = &spec->peers[i];

		ew_addr_format(p->addr, abuf, sizeof(abuf));
		if (p->has_mac) {
			memcpy(macs[i], p->mac, 6);
		} else if (ew_neigh_mac(c->rt, c->ifindex, p->addr, macs[i])) {
			ew_err("path add: peer %s: no MAC address known on %s (give lladdr MAC, or reach the peer once so that the neighbour table has it)",
			       abuf, spec->dev);
			ret = EW_FAIL;
			goto out;
		}
		if (!memcmp(macs[i], lower.mac, 6)) {
			ew_err("path add: peer %s: lladdr %s is this node's own MAC address",
			       abuf, ew_mac_format(macs[i], mbuf, sizeof(mbuf)));
			ret = EW_USAGE;
			goto out;
		}
		for (j = 0; j < i; j++) {
			if (!memcmp(macs[i], macs[j], 6)) {
				ew_err("path add: peer %s: lladdr %s is another peer's too",
				       abuf, ew_mac_format(macs[i], mbuf, sizeof(mbuf)));
				ret = EW_USAGE;
				goto out;
			}
		}
	}

	/* A transmit key never sent with, on an SCI no other link has. */
	sci_of(lower.mac, txsci);
	snprintf(who, sizeof(who), "dev %s", spec->dev);
	ret = ew_path_sci_unique(c->rt, spec->dev, txsci);
	if (!ret)
		ret = ew_path_txkey_macsec("add", who, &c->secret, txsci, spec->epoch, true);
	if (ret)
		goto out;

	cfg.lower = c->ifindex;
	cfg.name = name;
	cfg.cipher_id = xpn ? MACSEC_CIPHER_ID_GCM_AES_XPN_256 : MACSEC_CIPHER_ID_GCM_AES_256;
	cfg.window = spec->replay_window;
	cfg.encoding_an = an;
	err = ew_macsec_link_add(c->rt, &cfg, &li);
	if (err) {
		ew_err("path add: cannot create macsec link %s on %s: %s", name, spec->dev,
		       ew_nlerr(err));
		ret = EW_FAIL;
		goto out;
	}
	/* From here on, a failure deletes the link (and with it every SC and SA). */
	ret = ew_macsec_open(&c->ms);
	if (ret)
		goto undo;
	/* Offload before any SA, while the link is down (see rtnl.c). */
	if (mode != MACSEC_OFFLOAD_OFF) {
		struct ew_msecy y = { 0 };

		if (ew_macsec_upd_offload(c->ms, (uint32_t)li.ifindex, mode)) {
			ret = ewnl_report(c->ms, "path add: offload %s on %s",
					  ew_path_offload_names[offload], name);
			goto undo;
		}
		/* Never report an offload the kernel does not have. */
		err = ew_macsec_get(c->ms, (uint32_t)li.ifindex, &y);
		if (err || y.offload != mode) {
			ew_err("path add: %s: offload %s did not take (the kernel reports %s)",
			       name, ew_path_offload_names[offload],
			       err ? "nothing" : y.offload == MACSEC_OFFLOAD_OFF ? "off" : "another mode");
			ew_msecy_free(&y);
			ret = EW_FAIL;
			goto undo;
		}
		ew_msecy_free(&y);
	}
	if (memcmp(li.sci, txsci, 8)) {
		ew_err("path add: %s: the kernel gave sci %s, not the one whose key was recorded",
		       name, ew_sci_format(li.sci, mbuf, sizeof(mbuf)));
		ret = EW_FAIL;
		goto undo;
	}
	if (ew_kdf_macsec(&c->secret, li.sci, spec->epoch, &k)) {
		ew_err("path add: key derivation failed");
		ret = EW_FAIL;
		goto undo;
	}
	err = ew_macsec_add_txsa(c->ms, (uint32_t)li.ifindex, an, xpn, &k);
	ew_wipe(&k, sizeof(k));
	if (err) {
		ret = ewnl_report(c->ms, "path add: tx sa %u on %s", an, name);
		goto undo;
	}
	for (i = 0; i < spec->n_peers; i++) {
		ew_addr_format(spec->peers[i].addr, abuf, sizeof(abuf));
		sci_of(macs[i], sci);
		if (ew_macsec_add_rxsc(c->ms, (uint32_t)li.ifindex, sci)) {
			ret = ewnl_report(c->ms, "path add: peer %s: rx sc", abuf);
			goto undo;
		}
		if (ew_kdf_macsec(&c->secret, sci, spec->epoch, &k)) {
			ret = EW_FAIL;
			goto undo;
		}
		err = ew_macsec_add_rxsa(c->ms, (uint32_t)li.ifindex, sci, an, xpn, &k);
		ew_wipe(&k, sizeof(k));
		if (err) {
			ret = ewnl_report(c->ms, "path add: peer %s: rx sa %u", abuf, an);
			goto undo;
		}
	}
	if (spec->has_local) {
		err = ew_addr_add(c->rt, li.ifindex, spec->local, spec->local_plen);
		if (err) {
			ew_err("path add: local %s/%u on %s: %s",
			       ew_addr_format(spec->local, abuf, sizeof(abuf)),
			       ew_addr_is_v4mapped(spec->local) ? spec->local_plen - 96u :
								  spec->local_plen,
			       name, ew_nlerr(err));
			ret = EW_FAIL;
			goto undo;
		}
	}
	err = ew_link_up(c->rt, li.ifindex);
	if (err) {
		ret = rtnl_fail("add: cannot bring the macsec link up", err);
		goto undo;
	}
	if (rp.lower.n)
		ew_warn("re-registering soft-RoCE on %s behind %s on %s: their open QPs end",
			spec->dev, rp.name, name);
	ret = rxe_apply(spec, name, &rp);
	if (ret)
		goto undo;
	ew_link_get(c->rt, li.ifindex, &li);
	printf("macsec %s on %s: %s, offload %s, epoch %u (an %u), %zu peer%s, sci %s\n",
	       name, spec->dev, ew_path_cipher_names[spec->cipher],
	       ew_path_offload_names[offload == EW_OFL_AUTO ? EW_OFL_OFF : offload],
	       spec->epoch, an, spec->n_peers, spec->n_peers == 1 ? "" : "s",
	       ew_sci_format(li.sci, mbuf, sizeof(mbuf)));
	printf("roce-mtu %u (%s mtu %u = %s mtu %u - %d SecTAG and ICV)\n",
	       ew_roce_mtu(li.mtu, 0, !ew_addr_is_v4mapped(spec->peers[0].addr)),
	       name, li.mtu, spec->dev, lower.mtu, EW_MACSEC_OVERHEAD);
	if (!spec->has_local)
		printf("hint: give %s an address (path add ... local ADDR/LEN) for RoCE GIDs\n",
		       name);
	if (rp.lower.n) {
		printf("soft-RoCE %s on %s; ", rp.name, name);
		for (i = 0; i < rp.lower.n; i++)
			printf("%s%s", i ? ", " : "", rp.lower.name[i]);
		printf(" on %s registered again after it: rdma_cm binds the addresses of %s to %s\n",
		       spec->dev, name, rp.name);
	} else {
		printf("hint: RoCE must run on %s itself (RDMA devices other than soft-RoCE put their GIDs there)\n",
		       name);
	}
	ret = EW_OK;
	goto out;
undo:
	err = ew_link_del(c->rt, li.ifindex);
	if (err)
		ew_err("path add: rollback: cannot delete %s: %s", name, ew_nlerr(err));
	rxe_undo(spec, &rp);
out:
	ew_rxe_list_free(&rp.lower);
	free(macs);
	return ret;
}

/* One undoable step of an IPsec add. */
struct undo {
	bool is_sa;
	uint8_t dst[16];
	uint32_t spi;
	struct ew_esp_sp sp;
};

struct undo_list {
	struct undo *v;
	size_t n, cap;
};

static void undo_all(struct nl_sock *xs, struct undo_list *u)
{
	int err;

	while (u->n) {
		struct undo *x = &u->v[--u->n];

		err = x->is_sa ? ew_xfrm_sa_del(xs, x->dst, x->spi) : ew_xfrm_sp_del(xs, &x->sp);
		if (err)
			ew_err("path add: rollback: %s", ew_nlerr(err));
	}
	free(u->v);
	u->v = NULL;
}

static void esp_sp(struct ew_esp_sp *sp, const uint8_t src[16], const uint8_t dst[16],
		   int dir, bool block, uint32_t reqid)
{
	unsigned int full = ew_addr_is_v4mapped(dst) ? 32 : 128;

	memset(sp, 0, sizeof(*sp));
	memcpy(sp->src, src, 16);
	memcpy(sp->dst, dst, 16);
	sp->plen_s = (uint8_t)full;
	sp->plen_d = (uint8_t)full;
	sp->proto = IPPROTO_UDP;
	sp->dir = dir;
	sp->block = block;
	sp->priority = block ? EW_PRIO_BLOCK : EW_PRIO_ESP;
	sp->reqid = block ? 0 : reqid;
	if (block) {
		/* Wider than the ESP selector, so both exist: any local address. */
		uint8_t any[16] = { 0 };

		if (full == 32)
			any[10] = any[11] = 0xff;
		if (dir == EW_DIR_OUT) {
			memcpy(sp->src, any, 16);
			sp->plen_s = 0;
		} else {
			memcpy(sp->dst, any, 16);
			sp->plen_d = 0;
		}
	}
}

/* The four policies of a peer: ESP out and in, block out and in. */
static void peer_policies(const uint8_t local[16], const uint8_t peer[16], uint32_t reqid,
			  struct ew_esp_sp sp[4])
{
	esp_sp(&sp[0], local, peer, EW_DIR_OUT, false, reqid);
	esp_sp(&sp[1], peer, local, EW_DIR_IN, false, reqid);
	esp_sp(&sp[2], local, peer, EW_DIR_OUT, true, reqid);
	esp_sp(&sp[3], peer, local, EW_DIR_IN, true, reqid);
}

static const struct ew_esp_sa *find_sa(const struct ew_xfrm_dump *d, const uint8_t dst[16],
				       uint32_t spi)
{
	size_t i;

	for (i = 0; i < d->n_sa; i++)
		if (d->sa[i].spi == spi && !memcmp(d->sa[i].dst, dst, 16))
			return &d->sa[i];
	return NULL;
}

static const struct ew_esp_sp *find_sp(const struct ew_xfrm_dump *d, const struct ew_esp_sp *sp)
{
	size_t i;

	for (i = 0; i < d->n_sp; i++)
		if (ew_sp_same_sel(&d->sp[i], sp))
			return &d->sp[i];
	return NULL;
}

static void fill_sa(struct ew_esp_sa *sa, const uint8_t src[16], const uint8_t dst[16],
		    uint32_t spi, uint32_t reqid, uint32_t window, uint32_t offload,
		    int ifindex, bool inbound)
{
	memset(sa, 0, sizeof(*sa));
	memcpy(sa->src, src, 16);
	memcpy(sa->dst, dst, 16);
	sa->spi = spi;
	sa->reqid = reqid;
	sa->window = window;
	if (offload == EW_OFL_CRYPTO || offload == EW_OFL_PACKET) {
		sa->offload_ifindex = (uint32_t)ifindex;
		sa->offload_flags = (inbound ? XFRM_OFFLOAD_INBOUND : 0) |
				    (offload == EW_OFL_PACKET ? XFRM_OFFLOAD_PACKET : 0) |
				    (ew_addr_is_v4mapped(dst) ? 0 : XFRM_OFFLOAD_IPV6);
	}
}

static int ipsec_add(struct add_ctx *c, uint32_t offload)
{
	const struct ew_path_spec *spec = c->spec;
	uint32_t reqid = spec_reqid(spec, c->ifindex);
	struct ew_xfrm_dump d = { 0 };
	struct undo_list u = { 0 };
	struct ew_link_info lower;
	char a1[EW_PEER_STRLEN], a2[EW_PEER_STRLEN];
	uint8_t local[16];
	size_t i, j;
	int ret = EW_FAIL, err;

	if (spec->rxe_name[0]) {
		ew_err("path add: rxe NAME is for MACsec; dev %s gets IPsec, where RoCE stays on %s's own RDMA device",
		       spec->dev, spec->dev);
		return EW_USAGE;
	}
	if (c->ifindex > 0xffff) {
		ew_err("path add: dev %s: ifindex %d does not fit eastwest's reqid tag",
		       spec->dev, c->ifindex);
		return EW_FAIL;
	}
	if (spec->has_local) {
		memcpy(local, spec->local, 16);
	} else if (ew_addr_first(c->rt, c->ifindex, ew_addr_is_v4mapped(spec->peers[0].addr),
				 local)) {
		ew_err("path add: dev %s has no %s address (give local ADDR)", spec->dev,
		       fam_name(spec->peers[0].addr));
		return EW_FAIL;
	}
	err = ew_xfrm_open(&c->xs);
	if (!err)
		err = ew_xfrm_dump(c->xs, &d);
	if (err)
		return rtnl_fail("add: cannot read the XFRM states", err);
	for (i = 0; i < d.n_sa; i++) {
		if (d.sa[i].reqid != reqid || !spec_mine(spec, d.sa[i].src, d.sa[i].dst))
			continue;
		if (spec->job)
			ew_err("path add: dev %s already has IPsec states of job %s's address %s (path del dev %s job %s local %s first, or path rotate)",
			       spec->dev, spec->job, ew_addr_format(local, a1, sizeof(a1)),
			       spec->dev, spec->job, a1);
		else
			ew_err("path add: dev %s already has eastwest IPsec states (path del dev %s first, or path rotate)",
			       spec->dev, spec->dev);
		goto out;
	}
	/* Conflicts first: nothing is added if any SPI or selector is taken. */
	for (i = 0; i < spec->n_peers; i++) {
		const uint8_t *peer = spec->peers[i].addr;
		struct ew_esp_keys ko, ki;
		struct ew_esp_sp sp[4];

		ew_addr_format(local, a1, sizeof(a1));
		ew_addr_format(peer, a2, sizeof(a2));
		if (!memcmp(local, peer, 16)) {
			ew_err("path add: peer %s is this node's own address", a2);
			ret = EW_USAGE;
			goto out;
		}
		if (ew_kdf_esp(&c->secret, local, peer, spec->epoch, &ko) ||
		    ew_kdf_esp(&c->secret, peer, local, spec->epoch, &ki))
			goto out;
		ew_wipe(ko.key, sizeof(ko.key));
		ew_wipe(ki.key, sizeof(ki.key));
		if (find_sa(&d, peer, ko.spi)) {
			ew_err("path add: an ESP state with SPI 0x%08x to %s exists already", ko.spi, a2);
			goto out;
		}
		if (find_sa(&d, local, ki.spi)) {
			ew_err("path add: an ESP state with SPI 0x%08x to %s exists already", ki.spi, a1);
			goto out;
		}
		peer_policies(local, peer, reqid, sp);
		for (j = 0; j < 4; j++) {
			if (find_sp(&d, &sp[j])) {
				ew_err("path add: a %s policy %s -> %s proto udp exists already",
				       sp[j].dir == EW_DIR_OUT ? "out" : "in",
				       ew_addr_format(sp[j].src, a1, sizeof(a1)),
				       ew_addr_format(sp[j].dst, a2, sizeof(a2)));
				goto out;
			}
		}
	}
	/*
	 * Outbound keys never sent with: all looked up, then each recorded,
	 * before any SA exists (a job's are not recorded: path_txkey.c).
	 */
	for (i = 0; !spec->job && i < spec->n_peers; i++)
		if (ew_path_txkey_esp("add", &c->secret, local, spec->peers[i].addr,
				      spec->epoch, false))
			goto out;
	for (i = 0; !spec->job && i < spec->n_peers; i++)
		if (ew_path_txkey_esp("add", &c->secret, local, spec->peers[i].addr,
				      spec->epoch, true))
			goto out;

	for (i = 0; i < spec->n_peers; i++) {
		const uint8_t *peer = spec->peers[i].addr;
		struct ew_esp_sa sa;
		struct ew_esp_keys k;
		struct ew_esp_sp sp[4];
		int dir;

		ew_addr_format(peer, a2, sizeof(a2));
		for (dir = EW_DIR_IN; dir <= EW_DIR_OUT; dir++) {
			const uint8_t *src = dir == EW_DIR_OUT ? local : peer;
			const uint8_t *dst = dir == EW_DIR_OUT ? peer : local;

			if (ew_kdf_esp(&c->secret, src, dst, spec->epoch, &k))
				goto undo;
			fill_sa(&sa, src, dst, k.spi, reqid, spec->replay_window, offload,
				c->ifindex, dir == EW_DIR_IN);
			err = ew_xfrm_sa_add(c->xs, &sa, &k);
			ew_wipe(&k, sizeof(k));
			if (err) {
				ew_err("path add: peer %s: %s ESP state: %s", a2,
				       dir == EW_DIR_OUT ? "outbound" : "inbound", ew_nlerr(err));
				goto undo;
			}
			EW_GROW(u.v, u.n, u.cap);
			memset(&u.v[u.n], 0, sizeof(u.v[0]));
			u.v[u.n].is_sa = true;
			memcpy(u.v[u.n].dst, dst, 16);
			u.v[u.n++].spi = sa.spi;
		}
		peer_policies(local, peer, reqid, sp);
		for (j = 0; j < 4; j++) {
			err = ew_xfrm_sp_add(c->xs, &sp[j], false,
					     offload == EW_OFL_PACKET && !sp[j].block ?
					     (uint32_t)c->ifindex : 0);
			if (err) {
				ew_err("path add: peer %s: %s %s policy: %s", a2,
				       sp[j].block ? "block" : "ESP",
				       sp[j].dir == EW_DIR_OUT ? "out" : "in", ew_nlerr(err));
				goto undo;
			}
			EW_GROW(u.v, u.n, u.cap);
			memset(&u.v[u.n], 0, sizeof(u.v[0]));
			u.v[u.n++].sp = sp[j];
		}
	}
	free(u.v);
	ew_link_get(c->rt, c->ifindex, &lower);
	printf("ipsec on %s%s%s: esp transport rfc4106(gcm(aes)) 256-bit, esn, replay-window %u, offload %s, epoch %u, %zu peer%s, local %s\n",
	       spec->dev, spec->job ? " job " : "", spec->job ? spec->job : "", spec->replay_window,
	       ew_path_offload_names[offload == EW_OFL_AUTO ? EW_OFL_OFF : offload],
	       spec->epoch, spec->n_peers, spec->n_peers == 1 ? "" : "s",
	       ew_addr_format(local, a1, sizeof(a1)));
	printf("roce-mtu %u (%s mtu %u - %d ESP)\n",
	       ew_roce_mtu(lower.mtu, EW_ESP_OVERHEAD, !ew_addr_is_v4mapped(local)),
	       spec->dev, lower.mtu, EW_ESP_OVERHEAD);
	ret = EW_OK;
	goto out;
undo:
	undo_all(c->xs, &u);
	ret = EW_FAIL;
out:
	ew_xfrm_dump_free(&d);
	return ret;
}

int ew_path_add(const struct ew_path_spec *spec)
{
	struct add_ctx c = { .spec = spec };
	struct ew_netdev_roce roce;
	struct ew_path_choice ch;
	struct ew_path_caps caps;
	char why[160];
	int ret, err;

	if (spec->type != EW_PT_PHYSICAL) {
		ret = load_spec_key("add", spec, &c.secret);
		if (ret)
			return ret;
	}
	ret = ew_path_netdev("add", spec->dev, &c.ifindex);
	if (!ret)
		ret = ew_connect(&c.nl);
	if (ret)
		goto out;
	if (ew_path_caps_of(c.nl, c.ifindex, spec->dev, &caps, &roce)) {
		ret = ewnl_report(c.nl, "path add: dev-get");
		goto out;
	}
	if (!roce.n_gids) {
		ew_err("path add: dev %s is not a RoCE netdev: no RDMA device has a GID on it (soft-RoCE: rdma link add rxe0 type rxe netdev %s)",
		       spec->dev, spec->dev);
		ret = EW_FAIL;
		goto out;
	}
	if (ew_path_resolve(spec->type, spec->offload, &caps, &ch, why, sizeof(why))) {
		ew_err("path add: dev %s: %s", spec->dev, why);
		ret = EW_FAIL;
		goto out;
	}
	if (spec->type == EW_PT_AUTO)
		printf("auto: %s, offload %s: %s\n", ew_path_type_names[ch.type],
		       ew_path_offload_names[ch.offload], ch.reason);
	if (ch.software && ch.type != EW_PT_PHYSICAL)
		ew_warn("dev %s has no %s offload: %s runs in software on the CPU",
			spec->dev, ch.type == EW_PT_MACSEC ? "MACsec" : "ESP",
			ch.type == EW_PT_MACSEC ? "MACsec" : "IPsec");
	if (ch.type == EW_PT_PHYSICAL) {
		if (spec->type == EW_PT_AUTO) {
			ret = EW_OK;	/* declared already: nothing to add */
			goto out;
		}
		if (ew_ipc_fabric_set(c.nl, (uint32_t)c.ifindex, true)) {
			ret = ewnl_report(c.nl, "path add: dev %s: fabric-set", spec->dev);
			goto out;
		}
		printf("physical %s: declared a dedicated fabric (no crypto)\n", spec->dev);
		ret = EW_OK;
		goto out;
	}
	err = ew_rtnl_open(&c.rt);
	if (err) {
		ret = rtnl_fail("add: rtnetlink", err);
		goto out;
	}
	ret = ch.type == EW_PT_MACSEC ? macsec_add(&c, ch.offload) : ipsec_add(&c, ch.offload);
out:
	ew_secret_free(&c.secret);
	ewnl_close(c.ms);
	ew_rtnl_close(c.rt);
	ew_rtnl_close(c.xs);
	return ret;
}

/* --- del ----------------------------------------------------------------- */

static bool in_list(const uint8_t (*v)[16], size_t n, const uint8_t a[16])
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!memcmp(v[i], a, 16))
			return true;
	return false;
}

/*
 * Removes eastwest's ESP states and policies of @ifindex (the node's, or
 * with job NAME exactly the job's); counts them.
 */
static int ipsec_del(struct nl_sock *xs, const struct ew_path_spec *spec, int ifindex,
		     size_t *n_sa, size_t *n_sp)
{
	uint32_t reqid = spec_reqid(spec, ifindex);
	uint8_t (*peers)[16] = NULL;
	struct ew_xfrm_dump d;
	size_t i, n_peers = 0, cap = 0;
	int err, ret = 0;

	*n_sa = *n_sp = 0;
	err = ew_xfrm_dump(xs, &d);
	if (err)
		return err;
	/* Policies first: no window where traffic finds a policy but no state. */
	for (i = 0; i < d.n_sp; i++) {
		const struct ew_esp_sp *sp = &d.sp[i];

		if (sp->block || sp->reqid != reqid || sp->priority != EW_PRIO_ESP ||
		    !spec_mine(spec, sp->src, sp->dst))
			continue;
		EW_GROW(peers, n_peers, cap);
		memcpy(peers[n_peers++], sp->dir == EW_DIR_OUT ? sp->dst : sp->src, 16);
	}
	for (i = 0; i < d.n_sp; i++) {
		const struct ew_esp_sp *sp = &d.sp[i];
		bool mine = !sp->block ? sp->reqid == reqid && sp->priority == EW_PRIO_ESP &&
					 spec_mine(spec, sp->src, sp->dst) :
			    sp->priority == EW_PRIO_BLOCK &&
			    in_list((const uint8_t (*)[16])peers, n_peers,
				    sp->dir == EW_DIR_OUT ? sp->dst : sp->src);

		if (!mine)
			continue;
		err = ew_xfrm_sp_del(xs, sp);
		if (err)
			ret = err;
		else
			(*n_sp)++;
	}
	for (i = 0; i < d.n_sa; i++) {
		if (d.sa[i].reqid != reqid || !spec_mine(spec, d.sa[i].src, d.sa[i].dst))
			continue;
		err = ew_xfrm_sa_del(xs, d.sa[i].dst, d.sa[i].spi);
		if (err)
			ret = err;
		else
			(*n_sa)++;
	}
	free(peers);
	ew_xfrm_dump_free(&d);
	return ret;
}

int ew_path_del(const struct ew_path_spec *spec)
{
	struct nl_sock *rt = NULL, *xs = NULL;
	struct ew_link_info li;
	struct ewnl *nl;
	size_t n_sa = 0, n_sp = 0;
	bool found, any = false;
	int ifindex, ret, err;

	ret = ew_path_netdev("del", spec->dev, &ifindex);
	if (ret)
		return ret;
	err = ew_rtnl_open(&rt);
	if (!err)
		err = ew_xfrm_open(&xs);
	if (err) {
		ret = rtnl_fail("del: netlink", err);
		goto out;
	}
	if (spec->job) {
		char a[EW_PEER_STRLEN];

		/* One job's SAs: nothing else of the netdev is touched. */
		ew_addr_format(spec->local, a, sizeof(a));
		err = ipsec_del(xs, spec, ifindex, &n_sa, &n_sp);
		if (n_sa || n_sp)
			printf("deleted %zu ESP states and %zu policies of job %s (local %s)\n",
			       n_sa, n_sp, spec->job, a);
		if (err) {
			ret = rtnl_fail("del: XFRM", err);
		} else if (!n_sa && !n_sp) {
			ew_err("path del: dev %s: job %s has no IPsec states for local %s",
			       spec->dev, spec->job, a);
			ret = EW_NOENT;
		}
		goto out;
	}
	err = ew_link_macsec_on(rt, ifindex, &li, &found);
	if (err) {
		ret = rtnl_fail("del: cannot list links", err);
		goto out;
	}
	if (found && li.ours) {
		err = ew_link_del(rt, li.ifindex);
		if (err) {
			ret = rtnl_fail("del: cannot delete the macsec link", err);
			goto out;
		}
		printf("deleted macsec link %s\n", li.name);
		any = true;
	} else if (found) {
		ew_warn("macsec link %s on %s was not set up by eastwestctl: left alone",
			li.name, spec->dev);
	}
	err = ipsec_del(xs, spec, ifindex, &n_sa, &n_sp);
	if (n_sa || n_sp) {
		printf("deleted %zu ESP states and %zu policies\n", n_sa, n_sp);
		any = true;
	}
	if (err) {
		ret = rtnl_fail("del: XFRM", err);
		goto out;
	}
	/* A declared fabric is eastwest state too; the module may be absent. */
	if (access("/sys/module/eastwest", F_OK) == 0 && !ew_connect(&nl) &&
	    ew_path_declared(nl, ifindex)) {
		if (ew_ipc_fabric_set(nl, (uint32_t)ifindex, false)) {
			ret = ewnl_report(nl, "path del: fabric-set");
			goto out;
		}
		printf("withdrew the physical fabric declaration of %s\n", spec->dev);
		any = true;
	}
	if (!any) {
		ew_err("path del: dev %s: nothing set up by eastwestctl on it", spec->dev);
		ret = EW_FAIL;
	}
out:
	ew_rtnl_close(rt);
	ew_rtnl_close(xs);
	return ret;
}

/* --- rotate -------------------------------------------------------------- */

struct rot_ctx {
	const struct ew_path_spec *spec;
	struct ew_secret secret;
	int ifindex;
	struct nl_sock *rt, *xs;
	struct ewnl *ms;
	bool stage[4];
};

static int macsec_rotate(struct rot_ctx *c, const struct ew_link_info *li)
{
	uint8_t an = (uint8_t)(c->spec->epoch % 4), a;
	enum ew_macsec_tx tx = EW_MACSEC_TX_INSTALL;
	struct ew_macsec_keys k;
	struct ew_msecy y;
	char sci[24];
	size_t i;
	int ret, err;

	ret = ew_macsec_open(&c->ms);
	if (ret)
		return ret;
	if (ew_macsec_get(c->ms, (uint32_t)li->ifindex, &y))
		return ewnl_report(c->ms, "path rotate: %s", li->name);
	ret = EW_FAIL;
	/*
	 * Stage tx's key, checked before stage rx changes anything: an SA
	 * already in the AN must hold this very key (ew_macsec_tx_stage()),
	 * and a new one must never have been sent with.
	 */
	if (c->stage[EW_STAGE_TX]) {
		if (ew_kdf_macsec(&c->secret, y.sci, c->spec->epoch, &k))
			goto out;
		tx = ew_macsec_tx_stage(y.tx[an].present, y.tx[an].has_ki ? y.tx[an].ki : NULL,
					y.encoding_an, an, k.ki);
		ew_wipe(&k, sizeof(k));
		switch (tx) {
		case EW_MACSEC_TX_OTHER_KEY:
			if (y.encoding_an == an)
				ew_err("path rotate: %s: tx an %u already sends with another key (an epoch 4 apart from %u, or another key file): no new key would be installed; rotate through an epoch with another an first",
				       li->name, an, c->spec->epoch);
			else
				ew_err("path rotate: %s: tx an %u is in use (retire the old epoch first)",
				       li->name, an);
			goto out;
		case EW_MACSEC_TX_NO_KI:
			ew_err("path rotate: %s: tx an %u is in use, and the kernel does not report its key identifier: cannot tell whether it holds epoch %u's key",
			       li->name, an, c->spec->epoch);
			goto out;
		case EW_MACSEC_TX_INSTALL:
			if (ew_path_txkey_macsec("rotate", li->name, &c->secret, y.sci,
						 c->spec->epoch, false))
				goto out;
			break;
		case EW_MACSEC_TX_SWITCH:
		case EW_MACSEC_TX_DONE:
			break;
		}
	}
	if (c->stage[EW_STAGE_RX]) {
		for (i = 0; i < y.n_rx; i++) {
			ew_sci_format(y.rx[i].sci, sci, sizeof(sci));
			if (y.rx[i].sa[an].present) {
				ew_err("path rotate: %s: peer sci %s: an %u is in use (retire the old epoch first)",
				       li->name, sci, an);
				goto out;
			}
			if (ew_kdf_macsec(&c->secret, y.rx[i].sci, c->spec->epoch, &k))
				goto out;
			err = ew_macsec_add_rxsa(c->ms, (uint32_t)li->ifindex, y.rx[i].sci, an,
						 y.xpn, &k);
			ew_wipe(&k, sizeof(k));
			if (err) {
				ret = ewnl_report(c->ms, "path rotate: %s: peer sci %s: rx sa %u",
						  li->name, sci, an);
				goto out;
			}
			y.rx[i].sa[an].present = true;
		}
		printf("rx: %s accepts epoch %u (an %u) from %zu peer%s\n", li->name,
		       c->spec->epoch, an, y.n_rx, y.n_rx == 1 ? "" : "s");
	}
	if (c->stage[EW_STAGE_TX]) {
		if (tx == EW_MACSEC_TX_INSTALL) {
			if (ew_path_txkey_macsec("rotate", li->name, &c->secret, y.sci,
						 c->spec->epoch, true))
				goto out;
			if (ew_kdf_macsec(&c->secret, y.sci, c->spec->epoch, &k))
				goto out;
			err = ew_macsec_add_txsa(c->ms, (uint32_t)li->ifindex, an, y.xpn, &k);
			ew_wipe(&k, sizeof(k));
			if (err) {
				ret = ewnl_report(c->ms, "path rotate: %s: tx sa %u", li->name, an);
				goto out;
			}
		}
		err = tx == EW_MACSEC_TX_DONE ? 0 :
		      ew_macsec_link_encoding_sa(c->rt, li->ifindex, an);
		if (err) {
			ew_err("path rotate: %s: encoding sa %u: %s", li->name, an, ew_nlerr(err));
			goto out;
		}
		y.encoding_an = an;
		y.tx[an].present = true;
		printf("tx: %s %s with epoch %u (an %u)\n", li->name,
		       tx == EW_MACSEC_TX_DONE ? "already sends" : "sends", c->spec->epoch, an);
	}
	if (c->stage[EW_STAGE_RETIRE]) {
		size_t n = 0;

		if (y.encoding_an != an) {
			ew_err("path rotate: %s: still sending with an %u: run stage tx for epoch %u first",
			       li->name, y.encoding_an, c->spec->epoch);
			goto out;
		}
		for (a = 0; a < EW_MACSEC_NUM_AN; a++) {
			if (a == an)
				continue;
			if (y.tx[a].present) {
				if (ew_macsec_del_txsa(c->ms, (uint32_t)li->ifindex, a)) {
					ret = ewnl_report(c->ms, "path rotate: %s: del tx sa %u",
							  li->name, a);
					goto out;
				}
				n++;
			}
			for (i = 0; i < y.n_rx; i++) {
				if (!y.rx[i].sa[a].present)
					continue;
				if (ew_macsec_del_rxsa(c->ms, (uint32_t)li->ifindex, y.rx[i].sci, a)) {
					ret = ewnl_report(c->ms, "path rotate: %s: del rx sa %u",
							  li->name, a);
					goto out;
				}
				n++;
			}
		}
		printf("retire: %s dropped %zu SA%s of earlier epochs\n", li->name, n,
		       n == 1 ? "" : "s");
	}
	ret = EW_OK;
out:
	ew_msecy_free(&y);
	return ret;
}

/*
 * Before any stage changes anything: no outbound key of the epoch that
 * stage tx would install was sent with before (path_txkey.c).
 */
static int rotate_txkeys_unused(struct rot_ctx *c, const struct ew_xfrm_dump *d)
{
	uint32_t reqid = ew_path_reqid(c->ifindex);
	struct ew_esp_keys k;
	size_t i;

	for (i = 0; i < d->n_sp; i++) {
		const struct ew_esp_sp *sp = &d->sp[i];

		if (sp->block || sp->reqid != reqid || sp->dir != EW_DIR_OUT)
			continue;
		if (ew_kdf_esp(&c->secret, sp->src, sp->dst, c->spec->epoch, &k))
			return EW_FAIL;
		ew_wipe(k.key, sizeof(k.key));
		if (find_sa(d, sp->dst, k.spi))
			continue;	/* installed already: stage tx adds nothing */
		if (ew_path_txkey_esp("rotate", &c->secret, sp->src, sp->dst, c->spec->epoch,
				      false))
			return EW_FAIL;
	}
	return EW_OK;
}

static int ipsec_rotate(struct rot_ctx *c, const struct ew_xfrm_dump *d)
{
	uint32_t reqid = spec_reqid(c->spec, c->ifindex), epoch = c->spec->epoch;
	char a2[EW_PEER_STRLEN];
	size_t i, j, n = 0;
	int err;

	if (c->stage[EW_STAGE_TX] && !c->spec->job && rotate_txkeys_unused(c, d))
		return EW_FAIL;
	/* The peers: our outbound ESP policies, local -> peer. */
	for (i = 0; i < d->n_sp; i++) {
		const struct ew_esp_sp *sp = &d->sp[i];
		const struct ew_esp_sa *old = NULL;
		struct ew_esp_keys k;
		struct ew_esp_sa sa;
		int dir;

		if (sp->block || sp->reqid != reqid || sp->dir != EW_DIR_OUT ||
		    !spec_mine(c->spec, sp->src, sp->dst))
			continue;
		n++;
		ew_addr_format(sp->dst, a2, sizeof(a2));
		for (dir = EW_DIR_IN; dir <= EW_DIR_OUT; dir++) {
			const uint8_t *src = dir == EW_DIR_OUT ? sp->src : sp->dst;
			const uint8_t *dst = dir == EW_DIR_OUT ? sp->dst : sp->src;

			if (!c->stage[dir == EW_DIR_IN ? EW_STAGE_RX : EW_STAGE_TX])
				continue;
			for (j = 0; j < d->n_sa; j++)
				if (d->sa[j].reqid == reqid && !memcmp(d->sa[j].src, src, 16) &&
				    !memcmp(d->sa[j].dst, dst, 16))
					old = &d->sa[j];
			if (ew_kdf_esp(&c->secret, src, dst, epoch, &k))
				return EW_FAIL;
			if (find_sa(d, dst, k.spi)) {
				ew_wipe(&k, sizeof(k));
				continue;	/* this stage ran already */
			}
			if (dir == EW_DIR_OUT && !c->spec->job &&
			    ew_path_txkey_esp("rotate", &c->secret, src, dst, epoch, true)) {
				ew_wipe(&k, sizeof(k));
				return EW_FAIL;
			}
			fill_sa(&sa, src, dst, k.spi, reqid,
				old && old->window ? old->window : EW_REPLAY_WINDOW_DEFAULT,
				EW_OFL_OFF, c->ifindex, dir == EW_DIR_IN);
			if (old && old->offload_ifindex) {
				sa.offload_ifindex = old->offload_ifindex;
				sa.offload_flags = old->offload_flags;
			}
			err = ew_xfrm_sa_add(c->xs, &sa, &k);
			ew_wipe(&k, sizeof(k));
			if (err) {
				ew_err("path rotate: peer %s: %s ESP state epoch %u: %s", a2,
				       dir == EW_DIR_OUT ? "outbound" : "inbound", epoch,
				       ew_nlerr(err));
				return EW_FAIL;
			}
			if (dir == EW_DIR_OUT) {
				/*
				 * The kernel prefers the newest valid state, but routes
				 * cached through the old one (rxe keeps its QP's route)
				 * keep it until the policy changes: replacing the policy
				 * with itself invalidates them.
				 */
				err = ew_xfrm_sp_add(c->xs, sp, true,
						     (sa.offload_flags & XFRM_OFFLOAD_PACKET) ?
						     sa.offload_ifindex : 0);
				if (err) {
					ew_err("path rotate: peer %s: out policy: %s", a2,
					       ew_nlerr(err));
					return EW_FAIL;
				}
			}
		}
		if (c->stage[EW_STAGE_RETIRE]) {
			struct ew_esp_keys ko, ki;

			if (ew_kdf_esp(&c->secret, sp->src, sp->dst, epoch, &ko) ||
			    ew_kdf_esp(&c->secret, sp->dst, sp->src, epoch, &ki))
				return EW_FAIL;
			ew_wipe(ko.key, sizeof(ko.key));
			ew_wipe(ki.key, sizeof(ki.key));
			if (!c->stage[EW_STAGE_TX] && !find_sa(d, sp->dst, ko.spi)) {
				ew_err("path rotate: peer %s: no outbound state of epoch %u: run stage tx first",
				       a2, epoch);
				return EW_FAIL;
			}
			for (j = 0; j < d->n_sa; j++) {
				const struct ew_esp_sa *s = &d->sa[j];
				bool out = !memcmp(s->src, sp->src, 16) && !memcmp(s->dst, sp->dst, 16);
				bool in = !memcmp(s->src, sp->dst, 16) && !memcmp(s->dst, sp->src, 16);

				if (s->reqid != reqid || (!out && !in) ||
				    s->spi == (out ? ko.spi : ki.spi))
					continue;
				err = ew_xfrm_sa_del(c->xs, s->dst, s->spi);
				if (err) {
					ew_err("path rotate: peer %s: retire SPI 0x%08x: %s", a2,
					       s->spi, ew_nlerr(err));
					return EW_FAIL;
				}
			}
		}
	}
	printf("ipsec on %s%s%s: epoch %u:%s%s%s for %zu peer%s\n", c->spec->dev,
	       c->spec->job ? " job " : "", c->spec->job ? c->spec->job : "", epoch,
	       c->stage[EW_STAGE_RX] ? " rx" : "", c->stage[EW_STAGE_TX] ? " tx" : "",
	       c->stage[EW_STAGE_RETIRE] ? " retire" : "", n, n == 1 ? "" : "s");
	return EW_OK;
}

int ew_path_rotate(const struct ew_path_spec *spec)
{
	struct rot_ctx c = { .spec = spec };
	struct ew_xfrm_dump d = { 0 };
	struct ew_link_info li;
	bool found, any = false;
	size_t i;
	int ret, err;

	ret = load_spec_key("rotate", spec, &c.secret);
	if (ret)
		return ret;
	ret = ew_path_netdev("rotate", spec->dev, &c.ifindex);
	if (ret)
		goto out;
	if (spec->stage == EW_STAGE_ALL)
		c.stage[EW_STAGE_RX] = c.stage[EW_STAGE_TX] = c.stage[EW_STAGE_RETIRE] = true;
	else
		c.stage[spec->stage] = true;
	err = ew_rtnl_open(&c.rt);
	if (!err)
		err = ew_xfrm_open(&c.xs);
	if (!err)
		err = ew_link_macsec_on(c.rt, c.ifindex, &li, &found);
	if (!err)
		err = ew_xfrm_dump(c.xs, &d);
	if (err) {
		ret = rtnl_fail("rotate: netlink", err);
		goto out;
	}
	if (spec->job) {
		char a[EW_PEER_STRLEN];

		/* One job's SAs, with the job's secret; the others are untouched. */
		for (i = 0; i < d.n_sa && !any; i++)
			any = d.sa[i].reqid == ew_path_reqid_job(c.ifindex) &&
			      spec_mine(spec, d.sa[i].src, d.sa[i].dst);
		if (any) {
			ret = ipsec_rotate(&c, &d);
		} else {
			ew_err("path rotate: dev %s: job %s has no IPsec states for local %s",
			       spec->dev, spec->job,
			       ew_addr_format(spec->local, a, sizeof(a)));
			ret = EW_NOENT;
		}
		goto out;
	}
	if (found && li.ours) {
		any = true;
		ret = macsec_rotate(&c, &li);
		if (ret)
			goto out;
	}
	for (i = 0; i < d.n_sa && !any; i++)
		any = d.sa[i].reqid == ew_path_reqid(c.ifindex);
	if (any && (!found || !li.ours)) {
		ret = ipsec_rotate(&c, &d);
		if (ret)
			goto out;
	}
	if (!any) {
		ew_err("path rotate: dev %s: no MACsec or IPsec set up by eastwestctl", spec->dev);
		ret = EW_FAIL;
	}
out:
	ew_xfrm_dump_free(&d);
	ew_secret_free(&c.secret);
	ewnl_close(c.ms);
	ew_rtnl_close(c.rt);
	ew_rtnl_close(c.xs);
	return ret;
}
