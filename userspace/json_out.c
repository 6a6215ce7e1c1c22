// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output. Keys are stable and snake_case; a node's "show -j" is a
 * valid policy file (see policy_file.c), so what is printed here is exactly
 * what policy_file.c reads: peers as strings in addr.c's form, P_Keys as
 * "0x%04x" strings, netdevs as one-key objects, cgroups as paths below
 * the cgroup2 root.
 */
#include <stdio.h>

#include "ewctl.h"
#include "addr.h"
#include "json_out.h"
#include "parse.h"

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

struct json_object *ew_json_peer(const struct ew_peer_addr *p)
{
	char buf[EW_PEER_STRLEN];

	return json_object_new_string(ew_peer_format(p, buf, sizeof(buf)));
}

struct json_object *ew_json_pkey(uint16_t pkey)
{
	char buf[8];

	snprintf(buf, sizeof(buf), "0x%04x", pkey);
	return json_object_new_string(buf);
}

/* {"ifname": NAME} or {"ifindex": N}, {"vlan": V}, {"vrf": NAME or N}. */
struct json_object *ew_json_netdev(const struct ew_netdev *nd)
{
	struct json_object *o = json_object_new_object();

	switch (nd->kind) {
	case EW_NETDEV_IFINDEX:
		if (nd->name[0])
			add(o, "ifname", json_object_new_string(nd->name));
		else
			add(o, "ifindex", json_object_new_int64(nd->value));
		break;
	case EW_NETDEV_VLAN:
		add(o, "vlan", json_object_new_int64(nd->value));
		break;
	default:
		if (nd->name[0])
			add(o, "vrf", json_object_new_string(nd->name));
		else
			add(o, "vrf", json_object_new_int64(nd->value));
		break;
	}
	return o;
}

struct json_object *ew_json_counters(const struct ew_counter_set *c)
{
	struct json_object *o = json_object_new_object();
	size_t i;

	for (i = 0; i < EW_N_COUNTERS; i++)
		if (ew_counter_names[i])
			add(o, ew_counter_names[i], json_object_new_uint64(c->v[i]));
	return o;
}

struct json_object *ew_json_job(const struct ew_job_desc *job, unsigned int flags)
{
	struct json_object *o = json_object_new_object(), *a;
	size_t i;

	if (job->id)
		add(o, "id", json_object_new_int64(job->id));
	add(o, "name", json_object_new_string(job->name));
	add(o, "mode", json_object_new_string(ew_enum_name(&ew_mode_names, job->mode)));
	add(o, "encrypt", json_object_new_string(ew_enum_name(&ew_encrypt_names,
							      job->encrypt)));
	add(o, "qkey", json_object_new_int64(job->qkey));
	add(o, "ud", json_object_new_boolean(job->ud));
	add(o, "dc", json_object_new_boolean(job->dc));
	add(o, "psn", json_object_new_string(ew_enum_name(&ew_psn_names, job->psn)));
	a = json_object_new_array();
	for (i = 0; i < job->n_cgroups; i++)
		json_object_array_add(a, json_object_new_string(job->cgroups[i].path));
	add(o, "cgroups", a);
	if (flags & EW_JSON_PEERS) {
		a = json_object_new_array_ext((int)job->peers.n);
		for (i = 0; i < job->peers.n; i++)
			json_object_array_add(a, ew_json_peer(&job->peers.v[i]));
		add(o, "peers", a);
	}
	a = json_object_new_array();
	for (i = 0; i < job->n_netdevs; i++)
		json_object_array_add(a, ew_json_netdev(&job->netdevs[i]));
	add(o, "netdevs", a);
	a = json_object_new_array();
	for (i = 0; i < job->n_pkeys; i++)
		json_object_array_add(a, ew_json_pkey(job->pkeys[i]));
	add(o, "pkeys", a);
	if ((flags & EW_JSON_COUNTS) && (job->present & EW_JOB_PEER_COUNT))
		add(o, "peer_count", json_object_new_int64(job->peer_count));
	if ((flags & EW_JSON_COUNTS) && (job->present & EW_JOB_QP_COUNT))
		add(o, "qp_count", json_object_new_int64(job->qp_count));
	if ((flags & EW_JSON_COUNTERS) && (job->present & EW_JOB_COUNTERS))
		add(o, "counters", ew_json_counters(&job->counters));
	return o;
}

struct json_object *ew_json_config(const struct ew_config *cfg)
{
	struct json_object *o = json_object_new_object();

	if (cfg->present & EW_CFG_MODE)
		add(o, "mode", json_object_new_string(ew_enum_name(&ew_mode_names,
								   cfg->mode)));
	if (cfg->present & EW_CFG_DEFAULT)
		add(o, "default_action",
		    json_object_new_string(ew_enum_name(&ew_default_action_names,
							cfg->default_action)));
	if (cfg->present & EW_CFG_VERSION)
		add(o, "version", json_object_new_string(cfg->version));
	if (cfg->present & EW_CFG_JOB_COUNT)
		add(o, "job_count", json_object_new_int64(cfg->job_count));
	if (cfg->present & EW_CFG_PEER_COUNT)
		add(o, "peer_count", json_object_new_int64(cfg->peer_count));
	return o;
}

/*
 * config show -j: the policy part above plus this node's run-time state
 * (admission, revoked nodes), which policy files do not carry.
 */
struct json_object *ew_json_config_status(const struct ew_config *cfg)
{
	struct json_object *o = ew_json_config(cfg), *a;
	char buf[EW_PEER_STRLEN];
	size_t i;

	if (cfg->present & EW_CFG_ADMISSION)
		add(o, "admission",
		    json_object_new_string(ew_enum_name(&ew_admission_names,
							cfg->admission)));
	if (cfg->present & EW_CFG_ADMISSION_REQUIRED)
		add(o, "admission_required",
		    json_object_new_boolean(cfg->admission_required));
	if (cfg->present & EW_CFG_ADMISSION_TTL)
		add(o, "admission_ttl", json_object_new_int64(cfg->admission_ttl));
	/* A module that reports admission also reports revoked nodes. */
	if (!(cfg->present & EW_CFG_ADMISSION))
		return o;
	a = json_object_new_array();
	for (i = 0; i < cfg->n_revoked; i++)
		json_object_array_add(a, json_object_new_string(
			ew_addr_format(cfg->revoked[i], buf, sizeof(buf))));
	add(o, "revoked_nodes", a);
	return o;
}

/* The whole node: {"config": {...}, "jobs": [...]} -- a valid policy file. */
struct json_object *ew_json_state(const struct ew_state *st)
{
	struct json_object *o = json_object_new_object(), *a;
	size_t i;

	add(o, "config", ew_json_config(&st->config));
	a = json_object_new_array();
	for (i = 0; i < st->n_jobs; i++)
		json_object_array_add(a, ew_json_job(&st->jobs[i],
						     EW_JSON_PEERS | EW_JSON_COUNTS));
	add(o, "jobs", a);
	return o;
}

/* A flag set as an array of names: ["macsec", "ipsec"]; [] for none. */
struct json_object *ew_json_flags(const struct ew_names *names, uint32_t v)
{
	struct json_object *a = json_object_new_array();
	char buf[16];
	size_t i;

	for (i = 0; i < 32; i++) {
		if (!(v & (1U << i)))
			continue;
		if (i < names->n && names->names[i]) {
			json_object_array_add(a, json_object_new_string(names->names[i]));
		} else {
			snprintf(buf, sizeof(buf), "bit%zu", i);
			json_object_array_add(a, json_object_new_string(buf));
		}
	}
	return a;
}

const char *ew_json_string(struct json_object *o)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;

	flags |= ew_opts.pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
				  JSON_C_TO_STRING_PLAIN;
	return json_object_to_json_string_ext(o, flags);
}

/* Prints @o on one line (or pretty with -p) and releases it. */
int ew_json_print(struct json_object *o)
{
	puts(ew_json_string(o));
	json_object_put(o);
	return EW_OK;
}
