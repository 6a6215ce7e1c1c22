// SPDX-License-Identifier: GPL-2.0
/*
 * Human-readable output, in the command line's own words:
 *
 *   job a id 1 mode enforce encrypt none qkey 0x1234abcd ud off dc off psn app
 *       cgroup /system.slice/job_42
 *       netdev eth0
 *       vlan 100
 *       pkey 0x8001
 *       peer 192.0.2.0/24
 *       peers 1 qps 0
 */
#include <net/if.h>
#include <stdio.h>

#include "addr.h"
#include "parse.h"
#include "print.h"

#define INDENT "    "

char *ew_netdev_str(const struct ew_netdev *nd, char *buf, size_t len)
{
	static const char *const kw[] = { "netdev", "vlan", "vrf" };
	const char *k = nd->kind < 3 ? kw[nd->kind] : "netdev";

	if (nd->kind != EW_NETDEV_VLAN && nd->name[0])
		snprintf(buf, len, "%s %s", k, nd->name);
	else if (nd->kind != EW_NETDEV_VLAN)
		snprintf(buf, len, "%s ifindex:%u", k, nd->value);
	else
		snprintf(buf, len, "%s %u", k, nd->value);
	return buf;
}

void ew_print_job(const struct ew_job_desc *job, bool peers)
{
	char buf[EW_PEER_STRLEN + IF_NAMESIZE];
	size_t i;

	printf("job %s id %u mode %s encrypt %s qkey 0x%x ud %s dc %s psn %s\n",
	       job->name, job->id, ew_enum_name(&ew_mode_names, job->mode),
	       ew_enum_name(&ew_encrypt_names, job->encrypt), job->qkey,
	       job->ud ? "on" : "off", job->dc ? "on" : "off",
	       ew_enum_name(&ew_psn_names, job->psn));
	for (i = 0; i < job->n_cgroups; i++) {
		if (job->cgroups[i].id)
			printf(INDENT "cgroup %s (id %llu)\n", job->cgroups[i].path,
			       (unsigned long long)job->cgroups[i].id);
		else
			printf(INDENT "cgroup %s\n", job->cgroups[i].path);
	}
	for (i = 0; i < job->n_netdevs; i++)
		printf(INDENT "%s\n", ew_netdev_str(&job->netdevs[i], buf, sizeof(buf)));
	for (i = 0; i < job->n_pkeys; i++)
		printf(INDENT "pkey 0x%04x\n", job->pkeys[i]);
	if (peers)
		for (i = 0; i < job->peers.n; i++)
			printf(INDENT "peer %s\n",
			       ew_peer_format(&job->peers.v[i], buf, sizeof(buf)));
	if (job->present & (EW_JOB_PEER_COUNT | EW_JOB_QP_COUNT))
		printf(INDENT "peers %u qps %u\n", job->peer_count, job->qp_count);
}

void ew_print_config(const struct ew_config *cfg)
{
	printf("mode %s default %s\n", ew_enum_name(&ew_mode_names, cfg->mode),
	       ew_enum_name(&ew_default_action_names, cfg->default_action));
	printf("version %s jobs %u peers %u\n",
	       cfg->present & EW_CFG_VERSION ? cfg->version : "unknown",
	       cfg->job_count, cfg->peer_count);
	if (cfg->present & EW_CFG_ADMISSION) {
		printf("admission %s required %s",
		       ew_enum_name(&ew_admission_names, cfg->admission),
		       cfg->admission_required ? "on" : "off");
		if (cfg->admission_ttl)
			printf(" lease %us", cfg->admission_ttl);
		printf("%s\n", cfg->admission_required &&
		       cfg->admission != EASTWEST_ADMISSION_ADMITTED ?
		       " (fabric closed to jobs)" : "");
	}
	if (cfg->n_revoked) {
		char buf[EW_PEER_STRLEN];
		size_t i;

		printf("revoked nodes");
		for (i = 0; i < cfg->n_revoked; i++)
			printf(" %s", ew_addr_format(cfg->revoked[i], buf, sizeof(buf)));
		printf("\n");
	}
}

/*
 * The decision counters, then the refusals by reason in the spec's order
 * (names and counters from names-gen.h): five on the first line, four on
 * each further one.
 */
void ew_print_counters(const struct ew_counter_set *c)
{
	uint32_t r;

	printf(INDENT "allowed %llu audited %llu denied %llu psn-zero %llu\n",
	       (unsigned long long)c->v[EASTWEST_A_COUNTERS_ALLOWED],
	       (unsigned long long)c->v[EASTWEST_A_COUNTERS_AUDITED],
	       (unsigned long long)c->v[EASTWEST_A_COUNTERS_DENIED],
	       (unsigned long long)c->v[EASTWEST_A_COUNTERS_PSN_ZERO]);
	for (r = EASTWEST_REASON_NO_JOB; r <= EASTWEST_REASON_MAX; r++) {
		uint32_t i = r - EASTWEST_REASON_NO_JOB;

		if (!i)
			printf(INDENT "denied:");
		else if (i >= 5 && !((i - 5) % 4))
			printf("\n" INDENT "       ");
		printf(" %s %llu", ew_enum_name(&ew_reason_names, r),
		       (unsigned long long)c->v[ew_reason_counter[r]]);
	}
	printf("\n");
}

/* " protection macsec macsec-dev ew-eth0 (offload off) offload-caps none mtu 1468" */
static void print_gid_protection(const struct ew_gid *g)
{
	char buf[64], name[IF_NAMESIZE];

	if (g->present & EW_GID_MTU)
		printf(" mtu %u", g->mtu);
	if (g->present & EW_GID_PROTECTION)
		printf(" protection %s", ew_flags_str(&ew_protection_names, g->protection,
						      buf, sizeof(buf)));
	if ((g->present & EW_GID_MACSEC_IFINDEX) && g->macsec_ifindex) {
		if (if_indextoname(g->macsec_ifindex, name))
			printf(" macsec-dev %s", name);
		else
			printf(" macsec-dev ifindex:%u", g->macsec_ifindex);
		if (g->present & EW_GID_MACSEC_OFFLOAD)
			printf(" macsec-offload %s",
			       ew_enum_name(&ew_macsec_offload_names, g->macsec_offload));
	}
	if (g->present & EW_GID_OFFLOAD_CAPS)
		printf(" offload-caps %s", ew_flags_str(&ew_offload_caps_names,
							g->offload_caps, buf, sizeof(buf)));
}

void ew_print_dev(const struct ew_dev_desc *dev)
{
	char addr[EW_PEER_STRLEN], vrf[IF_NAMESIZE];
	size_t i, j;

	printf("dev %s index %u", dev->name, dev->index);
	if (dev->present & EW_DEV_QPN_OBSERVED)
		printf(" qpn-observed %u", dev->qpn_observed);
	if (dev->present & EW_DEV_QPN_SEQUENTIAL)
		printf(" qpn-sequential %u", dev->qpn_sequential);
	if (dev->present & EW_DEV_QPN_ORDER)
		printf(" qpns %s", ew_enum_name(&ew_qpn_order_names, dev->qpn_order));
	putchar('\n');
	for (i = 0; i < dev->n_ports; i++) {
		const struct ew_port *port = &dev->ports[i];

		printf(INDENT "port %u link-layer %s\n", port->num,
		       ew_enum_name(&ew_link_layer_names, port->link_layer));
		for (j = 0; j < port->n_pkeys; j++)
			printf(INDENT INDENT "pkey %u 0x%04x\n", (unsigned int)j,
			       port->pkeys[j]);
		for (j = 0; j < port->n_gids; j++) {
			const struct ew_gid *g = &port->gids[j];

			printf(INDENT INDENT "gid %u %s", g->index,
			       ew_addr_format(g->gid, addr, sizeof(addr)));
			if (g->present & EW_GID_TYPE)
				printf(" type %s", ew_enum_name(&ew_gid_type_names, g->type));
			if (g->present & EW_GID_IFNAME)
				printf(" netdev %s", g->ifname);
			else if (g->present & EW_GID_IFINDEX)
				printf(" netdev ifindex:%u", g->ifindex);
			if (g->present & EW_GID_VLAN)
				printf(" vlan %u", g->vlan);
			if (g->present & EW_GID_VRF) {
				if (if_indextoname(g->vrf, vrf))
					printf(" vrf %s", vrf);
				else
					printf(" vrf ifindex:%u", g->vrf);
			}
			print_gid_protection(g);
			putchar('\n');
		}
	}
}
