// SPDX-License-Identifier: GPL-2.0
/*
 * The structures of model.h, text or JSON (output.h). Text is in the
 * command line's own words, one object per line and its lists indented
 * below it:
 *
 *   job a id 1 mode enforce encrypt none qkey 0x1234abcd ud off dc off psn app
 *       cgroup /system.slice/job_42
 *       netdev eth0
 *       vlan 100
 *       pkey 0x8001
 *       peer 192.0.2.0/24
 *       peers 1 qps 0
 *
 * JSON keys are stable and snake_case; a node's "show -j" is a valid policy
 * file (see policy_file.c), so it prints exactly what policy_file.c reads:
 * peers as strings in addr.c's form, P_Keys as "0x%04x" strings, netdevs
 * as one-key objects, cgroups as paths below the cgroup2 root.
 */
#include <net/if.h>
#include <stdio.h>

#include "ewctl.h"
#include "io/output.h"
#include "model/addr.h"
#include "model/parse.h"
#include "model/print.h"

#define INDENT "    "

static char *netdev_str(const struct ew_netdev *nd, char *buf, size_t len)
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

/* {"ifname": NAME} or {"ifindex": N}, {"vlan": V}, {"vrf": NAME or N}. */
static void print_netdev_json(const struct ew_netdev *nd)
{
	ew_open_object(NULL);
	switch (nd->kind) {
	case EW_NETDEV_IFINDEX:
		if (nd->name[0])
			ew_print_string(EW_JSON, "ifname", NULL, nd->name);
		else
			ew_print_uint(EW_JSON, "ifindex", NULL, nd->value);
		break;
	case EW_NETDEV_VLAN:
		ew_print_uint(EW_JSON, "vlan", NULL, nd->value);
		break;
	default:
		if (nd->name[0])
			ew_print_string(EW_JSON, "vrf", NULL, nd->name);
		else
			ew_print_uint(EW_JSON, "vrf", NULL, nd->value);
		break;
	}
	ew_close_object();
}

/* "peers": [...] in addr.c's form; with @fmt, each peer in text too. */
void ew_print_peers(const char *fmt, const struct ew_peers *peers)
{
	char buf[EW_PEER_STRLEN];
	size_t i;

	if (!ew_print_wanted(EW_ANY))
		return;
	ew_open_array("peers");
	for (i = 0; i < peers->n; i++)
		ew_print_string(EW_ANY, NULL, fmt, ew_peer_format(&peers->v[i], buf, sizeof(buf)));
	ew_close_array();
}

/*
 * One setting of @job (@bit: EW_JOB_MODE, EW_JOB_CGROUPS, ...) as the
 * command line gives it (" mode audit", " cgroup /x cgroup /y", " pkey
 * none") and as the policy file does ("mode": "audit", "cgroups": [...]).
 * A key is never printed.
 */
void ew_print_job_setting(const struct ew_job_desc *job, uint32_t bit)
{
	char buf[EW_PEER_STRLEN + IF_NAMESIZE];
	size_t i;

	switch (bit) {
	case EW_JOB_NAME:
		ew_print_string(EW_ANY, "name", " name %s", job->name);
		break;
	case EW_JOB_MODE:
		ew_print_enum(EW_ANY, "mode", " mode %s", &ew_mode_names, job->mode);
		break;
	case EW_JOB_ENCRYPT:
		ew_print_enum(EW_ANY, "encrypt", " encrypt %s", &ew_encrypt_names, job->encrypt);
		break;
	case EW_JOB_QKEY:
		ew_print_uint(EW_ANY, "qkey", " qkey 0x%x", job->qkey);
		break;
	case EW_JOB_UD:
		ew_print_on_off(EW_ANY, "ud", " ud %s", job->ud);
		break;
	case EW_JOB_DC:
		ew_print_on_off(EW_ANY, "dc", " dc %s", job->dc);
		break;
	case EW_JOB_PSN:
		ew_print_enum(EW_ANY, "psn", " psn %s", &ew_psn_names, job->psn);
		break;
	case EW_JOB_PSN_KEY:
		ew_print_text(" psn-key (secret)");
		break;
	case EW_JOB_PSN_RUN:
		if (job->present & EW_JOB_PSN_RUN)
			ew_print_string(EW_ANY, "psn_run", " psn-run %s", job->psn_run);
		break;
	case EW_JOB_PSN_KEY_CHECK:
		if (job->present & EW_JOB_PSN_KEY_CHECK)
			ew_print_uint(EW_ANY, "psn_key_check", " psn-key-check 0x%08x",
				      job->psn_key_check);
		break;
	case EW_JOB_CGROUPS:
		ew_open_array("cgroups");
		for (i = 0; i < job->n_cgroups; i++)
			ew_print_string(EW_ANY, NULL, " cgroup %s", job->cgroups[i].path);
		ew_close_array();
		if (!job->n_cgroups)
			ew_print_text(" cgroup none");
		break;
	case EW_JOB_NETDEVS:
		ew_open_array("netdevs");
		for (i = 0; i < job->n_netdevs; i++) {
			print_netdev_json(&job->netdevs[i]);
			ew_print_text(" %s", netdev_str(&job->netdevs[i], buf, sizeof(buf)));
		}
		ew_close_array();
		if (!job->n_netdevs)
			ew_print_text(" netdev none");
		break;
	case EW_JOB_PKEYS:
		ew_open_array("pkeys");
		for (i = 0; i < job->n_pkeys; i++) {
			snprintf(buf, sizeof(buf), "0x%04x", job->pkeys[i]);
			ew_print_string(EW_ANY, NULL, " pkey %s", buf);
		}
		ew_close_array();
		if (!job->n_pkeys)
			ew_print_text(" pkey none");
		break;
	}
}

/* A job, and its peers if @peers: its text line and lists, or a JSON object @key. */
void ew_print_job(const char *key, const struct ew_job_desc *job, bool peers)
{
	static const uint32_t line[] = {
		EW_JOB_MODE, EW_JOB_ENCRYPT, EW_JOB_QKEY, EW_JOB_UD, EW_JOB_DC, EW_JOB_PSN,
		EW_JOB_PSN_RUN, EW_JOB_PSN_KEY_CHECK,
	};
	char buf[EW_PEER_STRLEN + IF_NAMESIZE];
	enum ew_to only;
	size_t i;

	ew_open_object(key);
	if (job->id)
		ew_print_uint(EW_JSON, "id", NULL, job->id);
	ew_print_string(EW_ANY, "name", "job %s", job->name);
	ew_print_text(" id %u", job->id);
	for (i = 0; i < EW_ARRAY_SIZE(line); i++)
		ew_print_job_setting(job, line[i]);
	ew_print_text("\n");

	/* The lists: the policy file's arrays, or a line each. */
	only = ew_print_only(EW_JSON);
	ew_print_job_setting(job, EW_JOB_CGROUPS);
	if (peers)
		ew_print_peers(NULL, &job->peers);
	ew_print_job_setting(job, EW_JOB_NETDEVS);
	ew_print_job_setting(job, EW_JOB_PKEYS);
	ew_print_only_end(only);
	for (i = 0; i < job->n_cgroups; i++) {
		ew_print_text(INDENT "cgroup %s", job->cgroups[i].path);
		if (job->cgroups[i].id)
			ew_print_text(" (id %llu)", (unsigned long long)job->cgroups[i].id);
		ew_print_text("\n");
	}
	for (i = 0; i < job->n_netdevs; i++)
		ew_print_text(INDENT "%s\n", netdev_str(&job->netdevs[i], buf, sizeof(buf)));
	for (i = 0; i < job->n_pkeys; i++)
		ew_print_text(INDENT "pkey 0x%04x\n", job->pkeys[i]);
	if (peers && ew_print_wanted(EW_TEXT))
		for (i = 0; i < job->peers.n; i++)
			ew_print_text(INDENT "peer %s\n",
				      ew_peer_format(&job->peers.v[i], buf, sizeof(buf)));
	ew_print_job_counts(job);
	ew_close_object();
}

/* "    peers 3 qps 2" / "peer_count": 3, "qp_count": 2, as the kernel reports them. */
void ew_print_job_counts(const struct ew_job_desc *job)
{
	if (job->present & (EW_JOB_PEER_COUNT | EW_JOB_QP_COUNT))
		ew_print_text(INDENT "peers %u qps %u\n", job->peer_count, job->qp_count);
	if (job->present & EW_JOB_PEER_COUNT)
		ew_print_uint(EW_JSON, "peer_count", NULL, job->peer_count);
	if (job->present & EW_JOB_QP_COUNT)
		ew_print_uint(EW_JSON, "qp_count", NULL, job->qp_count);
}

/*
 * The node's configuration as @key: the policy part ("mode", ...) and, if
 * @status, its run-time state (admission, revoked nodes), which policy
 * files do not carry. The text form has both:
 *
 *   mode enforce default deny
 *   version 0.1.0 jobs 2 peers 10
 *   admission admitted required on lease 600s
 *   revoked nodes 192.0.2.7
 */
void ew_print_config(const char *key, const struct ew_config *cfg, bool status)
{
	bool adm = cfg->present & EW_CFG_ADMISSION;
	char buf[EW_PEER_STRLEN];
	size_t i;

	ew_open_object(key);
	ew_print_enum(ew_when(true, cfg->present & EW_CFG_MODE), "mode", "mode %s",
		      &ew_mode_names, cfg->mode);
	ew_print_enum(ew_when(true, cfg->present & EW_CFG_DEFAULT), "default_action",
		      " default %s\n", &ew_default_action_names, cfg->default_action);
	ew_print_string(ew_when(true, cfg->present & EW_CFG_VERSION), "version", "version %s",
			cfg->present & EW_CFG_VERSION ? cfg->version : "unknown");
	ew_print_uint(ew_when(true, cfg->present & EW_CFG_JOB_COUNT), "job_count", " jobs %u",
		      cfg->job_count);
	/* Administrators only: it moves with other jobs' peers. */
	if (cfg->present & EW_CFG_PEER_COUNT)
		ew_print_uint(EW_ANY, "peer_count", " peers %u", cfg->peer_count);
	ew_print_text("\n");

	ew_print_enum(ew_when(adm, adm && status), "admission", "admission %s",
		      &ew_admission_names, cfg->admission);
	ew_print_on_off(ew_when(adm, status && (cfg->present & EW_CFG_ADMISSION_REQUIRED)),
			"admission_required", " required %s", cfg->admission_required);
	ew_print_uint(ew_when(adm && cfg->admission_ttl,
			      status && (cfg->present & EW_CFG_ADMISSION_TTL)),
		      "admission_ttl", " lease %us", cfg->admission_ttl);
	if (adm)
		ew_print_text("%s\n", cfg->admission_required &&
			      cfg->admission != EASTWEST_ADMISSION_ADMITTED ?
			      " (fabric closed to jobs)" : "");

	/* A module that reports admission also reports revoked nodes. */
	if (adm && status)
		ew_open_array("revoked_nodes");
	if (cfg->n_revoked)
		ew_print_text("revoked nodes");
	for (i = 0; i < cfg->n_revoked; i++)
		ew_print_string(ew_when(true, adm && status), NULL, " %s",
				ew_addr_format(cfg->revoked[i], buf, sizeof(buf)));
	if (cfg->n_revoked)
		ew_print_text("\n");
	if (adm && status)
		ew_close_array();
	ew_close_object();
}

/*
 * The counters as @key: {"allowed": N, ...} in the spec's order. The text
 * form: the decision counters, then the refusals by reason in the spec's
 * order (names and counters from names-gen.h): five on the first line,
 * four on each further one.
 */
void ew_print_counters(const char *key, const struct ew_counter_set *c)
{
	uint32_t r;
	size_t i;

	ew_open_object(key);
	for (i = 0; i < EW_N_COUNTERS; i++)
		if (ew_counter_names[i])
			ew_print_u64(EW_JSON, ew_counter_names[i], NULL, c->v[i]);
	ew_close_object();

	ew_print_text(INDENT "allowed %llu audited %llu denied %llu psn-zero %llu events-dropped %llu\n",
		      (unsigned long long)c->v[EASTWEST_A_COUNTERS_ALLOWED],
		      (unsigned long long)c->v[EASTWEST_A_COUNTERS_AUDITED],
		      (unsigned long long)c->v[EASTWEST_A_COUNTERS_DENIED],
		      (unsigned long long)c->v[EASTWEST_A_COUNTERS_PSN_ZERO],
		      (unsigned long long)c->v[EASTWEST_A_COUNTERS_EVENTS_DROPPED]);
	for (r = EASTWEST_REASON_NO_JOB; r <= EASTWEST_REASON_MAX; r++) {
		i = r - EASTWEST_REASON_NO_JOB;
		if (!i)
			ew_print_text(INDENT "denied:");
		else if (i >= 5 && !((i - 5) % 4))
			ew_print_text("\n" INDENT "       ");
		ew_print_text(" %s %llu", ew_enum_name(&ew_reason_names, r),
			      (unsigned long long)c->v[ew_reason_counter[r]]);
	}
	ew_print_text("\n");
}

/*
 * An interface by index: "@key": N, and "@key_name": NAME if it has one;
 * the text form by name if it has one (@fmt_name), else by index.
 */
static void print_ifindex(const char *key, const char *key_name, const char *fmt_index,
			  const char *fmt_name, uint32_t ifindex)
{
	char name[IF_NAMESIZE];
	bool named = if_indextoname(ifindex, name);

	ew_print_uint(ew_when(!named, true), key, fmt_index, ifindex);
	if (named)
		ew_print_string(EW_ANY, key_name, fmt_name, name);
}

/* " gid 1 192.0.2.1 type roce-v2 netdev eth0 ... offload-caps none" */
static void print_gid(const struct ew_gid *g)
{
	bool ifname = g->present & EW_GID_IFNAME, ifindex = g->present & EW_GID_IFINDEX;
	char addr[EW_PEER_STRLEN];

	ew_open_object(NULL);
	ew_print_uint(EW_ANY, "index", INDENT INDENT "gid %u", g->index);
	ew_print_string(EW_ANY, "gid", " %s", ew_addr_format(g->gid, addr, sizeof(addr)));
	if (g->present & EW_GID_TYPE)
		ew_print_enum(EW_ANY, "type", " type %s", &ew_gid_type_names, g->type);
	if (ifindex)
		ew_print_uint(ew_when(!ifname, true), "ifindex", " netdev ifindex:%u", g->ifindex);
	if (ifname)
		ew_print_string(EW_ANY, "ifname", " netdev %s", g->ifname);
	if (g->present & EW_GID_VLAN)
		ew_print_uint(EW_ANY, "vlan", " vlan %u", g->vlan);
	if (g->present & EW_GID_VRF)
		print_ifindex("vrf", "vrf_name", " vrf ifindex:%u", " vrf %s", g->vrf);
	if (g->present & EW_GID_MTU)
		ew_print_uint(EW_ANY, "mtu", " mtu %u", g->mtu);
	if (g->present & EW_GID_PROTECTION)
		ew_print_flags(EW_ANY, "protection", " protection %s", &ew_protection_names,
			       g->protection);
	if ((g->present & EW_GID_MACSEC_IFINDEX) && g->macsec_ifindex) {
		print_ifindex("macsec_ifindex", "macsec_ifname", " macsec-dev ifindex:%u",
			      " macsec-dev %s", g->macsec_ifindex);
		if (g->present & EW_GID_MACSEC_OFFLOAD)
			ew_print_enum(EW_ANY, "macsec_offload", " macsec-offload %s",
				      &ew_macsec_offload_names, g->macsec_offload);
	}
	if (g->present & EW_GID_OFFLOAD_CAPS)
		ew_print_flags(EW_ANY, "offload_caps", " offload-caps %s", &ew_offload_caps_names,
			       g->offload_caps);
	ew_print_text("\n");
	ew_close_object();
}

/* A device, its ports, their GIDs and P_Key tables. */
void ew_print_dev(const struct ew_dev_desc *dev)
{
	char buf[8];
	size_t i, j;

	ew_open_object(NULL);
	ew_print_uint(EW_JSON, "index", NULL, dev->index);
	ew_print_string(EW_ANY, "name", "dev %s", dev->name);
	ew_print_text(" index %u", dev->index);
	if (dev->present & EW_DEV_QPN_OBSERVED)
		ew_print_uint(EW_ANY, "qpn_observed", " qpn-observed %u", dev->qpn_observed);
	if (dev->present & EW_DEV_QPN_SEQUENTIAL)
		ew_print_uint(EW_ANY, "qpn_sequential", " qpn-sequential %u", dev->qpn_sequential);
	if (dev->present & EW_DEV_QPN_ORDER)
		ew_print_enum(EW_ANY, "qpns", " qpns %s", &ew_qpn_order_names, dev->qpn_order);
	ew_print_text("\n");
	ew_open_array("ports");
	for (i = 0; i < dev->n_ports; i++) {
		const struct ew_port *port = &dev->ports[i];

		ew_open_object(NULL);
		ew_print_uint(EW_ANY, "num", INDENT "port %u", port->num);
		ew_print_enum(EW_ANY, "link_layer", " link-layer %s\n", &ew_link_layer_names,
			      port->link_layer);
		/* P_Keys first in text, GIDs first in JSON. */
		for (j = 0; j < port->n_pkeys; j++)
			ew_print_text(INDENT INDENT "pkey %u 0x%04x\n", (unsigned int)j,
				      port->pkeys[j]);
		ew_open_array("gids");
		for (j = 0; j < port->n_gids; j++)
			print_gid(&port->gids[j]);
		ew_close_array();
		ew_open_array("pkeys");
		for (j = 0; j < port->n_pkeys; j++) {
			snprintf(buf, sizeof(buf), "0x%04x", port->pkeys[j]);
			ew_print_string(EW_JSON, NULL, NULL, buf);
		}
		ew_close_array();
		ew_close_object();
	}
	ew_close_array();
	ew_close_object();
}

/*
 * The whole node: the configuration, then every job with its peers. JSON:
 * {"config": {...}, "jobs": [...]}, a valid policy file.
 */
void ew_print_state(const struct ew_state *st)
{
	size_t i;

	ew_open_object(NULL);
	ew_print_config("config", &st->config, false);
	ew_open_array("jobs");
	for (i = 0; i < st->n_jobs; i++)
		ew_print_job(NULL, &st->jobs[i], true);
	ew_close_array();
	ew_close_object();
}
