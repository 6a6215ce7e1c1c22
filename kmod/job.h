/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_JOB_H
#define _EW_JOB_H

#include <linux/bitmap.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/siphash.h>
#include <linux/types.h>
#include <linux/eastwest.h>

#include "peers.h"

#define EW_MAX_NETDEVS	32
#define EW_MAX_PKEYS	32
#define EW_MAX_CGROUPS	64
/*
 * The bytes of a job's cgroup paths together (with their NULs): the whole
 * job must fit one message of a dump (32 KiB once the reader has read with
 * a buffer that large), with its rules and counters.
 */
#define EW_MAX_CGROUP_PATHS_LEN	16384
/* Prefix lengths 0..128 of GID/IPv6 peers. */
#define EW_NUM_PLENS	129

enum ew_netdev_kind {
	EW_NETDEV_IFINDEX = 1,
	EW_NETDEV_VLAN,
	EW_NETDEV_VRF,
};

struct ew_netdev_rule {
	u32 kind;	/* enum ew_netdev_kind */
	u32 value;	/* ifindex, VLAN id or VRF ifindex */
};

/**
 * struct ew_job_policy - the immutable rules of a job
 *
 * Replaced as a whole (RCU) when a job changes, so a decision always sees
 * one consistent version.
 */
struct ew_job_policy {
	struct rcu_head rcu;
	u32 mode;	/* enum eastwest_mode */
	u32 encrypt;	/* enum eastwest_encrypt */
	u32 qkey;	/* 0: no Q_Key rule */
	/* May create UD QPs, driver QPs (mlx5 DC): see ew_qp_type_check(). */
	bool ud;
	bool dc;
	u32 psn;	/* enum eastwest_psn */
	/* Under EASTWEST_PSN_KEYED; wiped when the policy is freed. */
	siphash_key_t psn_key;
	/* The run psn_key was derived for, reported only: "" if none. */
	char psn_run[EASTWEST_PSN_RUN_LEN + 1];
	u16 n_netdevs;
	u16 n_pkeys;
	struct ew_netdev_rule netdevs[EW_MAX_NETDEVS];
	u16 pkeys[EW_MAX_PKEYS];
};

/*
 * Decision counters, one per reason plus allowed/audited/psn-zero, and the
 * denial reports that the event ring dropped.
 */
enum ew_counter {
	EW_CTR_ALLOWED,
	EW_CTR_AUDITED,
	EW_CTR_PSN_ZERO,
	EW_CTR_EVENTS_DROPPED,
	/* EW_CTR_DENIED_BASE + reason */
	EW_CTR_DENIED_BASE,
	EW_CTR_MAX = EW_CTR_DENIED_BASE + EASTWEST_REASON_MAX + 1,
};

struct ew_counters {
	u64 v[EW_CTR_MAX];
};

/**
 * struct ew_job - a set of processes and what they may reach
 * @name_node: entry in the name table (writers only; ids are in an xarray)
 * @policy: current rules (RCU)
 * @peers: the job's peer entries (writers only)
 * @bindings: the job's cgroup bindings (writers only)
 * @plen_gid: prefix lengths in use by GID peers, read locklessly by decisions
 * @plen_refs: number of GID peers per prefix length (writers only)
 * @n_lids: number of LID peers (decisions skip LID lookups when zero)
 * @generation: bumped by every change, for dump consistency checks
 */
struct ew_job {
	struct hlist_node name_node;
	u32 id;
	char name[EASTWEST_JOB_NAME_MAX];	/* NUL included */
	struct ew_job_policy __rcu *policy;
	struct ew_peer_list peers;
	u32 n_peers;
	u32 n_lids;
	DECLARE_BITMAP(plen_gid, EW_NUM_PLENS);
	u32 plen_refs[EW_NUM_PLENS];
	struct list_head bindings;
	unsigned int n_bindings;
	struct ew_counters __percpu *counters;
	atomic_t n_qps;
	unsigned long generation;
	struct rcu_head rcu;
};

struct cgroup;
struct netlink_ext_ack;
struct ew_peer_batch;

/* A cgroup v2 subtree bound to a job. */
struct ew_binding {
	struct hlist_node cg_node;
	struct list_head job_list;
	u64 cgid;
	struct ew_job *job;
	struct rcu_head rcu;
	char path[];
};

/**
 * struct ew_job_spec - a job as requested, parsed and validated, not applied
 * @has_*: the attribute was present (job-set changes only those)
 * @cgroups: resolved bindings, not yet published (owned by the spec)
 * @peers: peers to add (job-new only)
 */
struct ew_job_spec {
	u32 id;
	bool has_name, has_mode, has_encrypt, has_qkey, has_psn, has_psn_key;
	bool has_psn_run;
	bool has_cgroups, has_netdevs, has_pkeys;
	bool has_ud, has_dc;
	char name[EASTWEST_JOB_NAME_MAX];
	u32 mode, encrypt, qkey, psn;
	bool ud, dc;
	siphash_key_t psn_key;
	char psn_run[EASTWEST_PSN_RUN_LEN + 1];
	u16 n_netdevs, n_pkeys;
	struct ew_netdev_rule netdevs[EW_MAX_NETDEVS];
	u16 pkeys[EW_MAX_PKEYS];
	struct list_head cgroups;
	unsigned int n_cgroups;
	size_t cgroup_paths_len;
	struct ew_peer_batch *peers;
};

void ew_job_spec_init(struct ew_job_spec *spec);
void ew_job_spec_release(struct ew_job_spec *spec);
int ew_job_spec_add_cgroup(struct ew_job_spec *spec, const char *path,
			   struct netlink_ext_ack *extack);

const char *ew_job_name_check(const char *name);
struct ew_job *ew_job_find(u32 id);
struct ew_job *ew_job_find_by_name(const char *name);
struct ew_job *ew_job_lookup_by_cgroup(struct cgroup *cgrp, u64 *cgid);
struct ew_job_policy *ew_job_policy(const struct ew_job *job);

int ew_job_create(struct ew_job_spec *spec, struct netlink_ext_ack *extack,
		  u32 *id);
int ew_job_change(struct ew_job *job, struct ew_job_spec *spec,
		  struct netlink_ext_ack *extack);
void ew_job_delete(struct ew_job *job);
void ew_jobs_flush(void);
void ew_jobs_pin_update(void);
unsigned int ew_jobs_count(void);
unsigned long ew_jobs_generation(void);
void ew_jobs_changed(void);
struct ew_job *ew_job_next(u32 after_id);

#endif /* _EW_JOB_H */
