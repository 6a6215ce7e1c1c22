/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The node state as eastwestctl sees it: configuration and jobs. The same
 * structures hold what the kernel reports and what a policy file asks for.
 */
#ifndef EW_MODEL_H
#define EW_MODEL_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/eastwest.h>

#include "model/addr.h"
#include "model/names-gen.h"

/* Which members of struct ew_job_desc are present (or to be changed). */
enum {
	EW_JOB_ID		= 1U << 0,
	EW_JOB_NAME		= 1U << 1,
	EW_JOB_MODE		= 1U << 2,
	EW_JOB_ENCRYPT		= 1U << 3,
	EW_JOB_QKEY		= 1U << 4,
	EW_JOB_CGROUPS		= 1U << 5,
	EW_JOB_PEERS		= 1U << 6,
	EW_JOB_NETDEVS		= 1U << 7,
	EW_JOB_PKEYS		= 1U << 8,
	EW_JOB_PEER_COUNT	= 1U << 9,
	EW_JOB_QP_COUNT		= 1U << 10,
	EW_JOB_COUNTERS		= 1U << 11,
	EW_JOB_UD		= 1U << 12,
	EW_JOB_DC		= 1U << 13,
	EW_JOB_PSN		= 1U << 14,
	EW_JOB_PSN_KEY		= 1U << 15,	/* psn_key set (never read back) */
};

/* The attributes job-set can change (peers change with peer-add/del). */
#define EW_JOB_SETTABLE (EW_JOB_NAME | EW_JOB_MODE | EW_JOB_ENCRYPT | \
			 EW_JOB_QKEY | EW_JOB_CGROUPS | EW_JOB_NETDEVS | \
			 EW_JOB_PKEYS | EW_JOB_UD | EW_JOB_DC | EW_JOB_PSN | \
			 EW_JOB_PSN_KEY)

enum {
	EW_CFG_MODE		= 1U << 0,
	EW_CFG_DEFAULT		= 1U << 1,
	EW_CFG_VERSION		= 1U << 2,
	EW_CFG_JOB_COUNT	= 1U << 3,
	EW_CFG_PEER_COUNT	= 1U << 4,
	EW_CFG_COUNTERS		= 1U << 5,
	EW_CFG_PHYSICAL		= 1U << 6,
	EW_CFG_ADMISSION	= 1U << 7,
	EW_CFG_ADMISSION_REQUIRED = 1U << 8,
	EW_CFG_REVOKED_NODES	= 1U << 9,
	EW_CFG_ADMISSION_TTL	= 1U << 10,
};

#define EW_PHYSICAL_MAX 64	/* declared fabrics listed by config-get */

struct ew_peers {
	struct ew_peer_addr *v;
	size_t n, cap;
};

struct ew_cgroup {
	char *path;
	uint64_t id;		/* from the kernel; 0 if unknown */
};

enum ew_netdev_kind {
	EW_NETDEV_IFINDEX,
	EW_NETDEV_VLAN,
	EW_NETDEV_VRF,
};

struct ew_netdev {
	uint32_t kind;		/* enum ew_netdev_kind */
	uint32_t value;		/* ifindex, VLAN id or VRF ifindex */
	char name[IF_NAMESIZE];	/* interface name, "" if unknown */
};

#define EW_N_COUNTERS (EASTWEST_A_COUNTERS_MAX + 1)

struct ew_counter_set {
	uint64_t v[EW_N_COUNTERS];	/* indexed by EASTWEST_A_COUNTERS_* */
};

/* Counter names for output (ew_counter_names) come from names-gen.h. */

struct ew_job_desc {
	uint32_t present;	/* EW_JOB_* */
	uint32_t id;
	char name[EASTWEST_JOB_NAME_MAX];
	uint32_t mode;
	uint32_t encrypt;
	uint32_t qkey;
	bool qkey_auto;		/* keep the current non-zero Q_Key, else qkey */
	bool ud;		/* may create UD QPs (policed by P_Key/Q_Key only) */
	bool dc;		/* may create driver QPs (mlx5 DC), likewise */
	uint32_t psn;		/* enum eastwest_psn */
	uint8_t psn_key[16];	/* with EW_JOB_PSN_KEY; wiped by ew_job_free() */
	char *psn_keyfile;	/* the key is to be derived from it (malloc'd) */
	struct ew_cgroup *cgroups;
	size_t n_cgroups, cap_cgroups;
	struct ew_netdev *netdevs;
	size_t n_netdevs, cap_netdevs;
	uint16_t *pkeys;
	size_t n_pkeys, cap_pkeys;
	struct ew_peers peers;
	uint32_t peer_count;
	uint32_t qp_count;
	struct ew_counter_set counters;
};

struct ew_config {
	uint32_t present;	/* EW_CFG_* */
	uint32_t mode;
	uint32_t default_action;
	uint32_t job_count;
	uint32_t peer_count;
	char version[64];
	struct ew_counter_set counters;
	uint32_t physical[EW_PHYSICAL_MAX];	/* ifindexes declared physical */
	size_t n_physical;
	uint32_t admission;		/* enum eastwest_admission, this node */
	uint32_t admission_required;	/* 0 or 1 */
	uint32_t admission_ttl;		/* seconds of lease (left), 0: none */
	uint8_t (*revoked)[16];		/* revoked nodes' GIDs (malloc'd) */
	size_t n_revoked;
};

struct ew_state {
	bool has_config;	/* in a policy file: the config is managed */
	struct ew_config config;
	bool has_jobs;		/* in a policy file: the job list is managed */
	struct ew_job_desc *jobs;
	size_t n_jobs, cap_jobs;
};

/* RDMA devices, as dev-get reports them (read-only). */
enum {
	EW_GID_IFINDEX	= 1U << 0,
	EW_GID_IFNAME	= 1U << 1,
	EW_GID_VLAN	= 1U << 2,
	EW_GID_VRF	= 1U << 3,
	EW_GID_TYPE	= 1U << 4,
	EW_GID_PROTECTION	= 1U << 5,
	EW_GID_MACSEC_IFINDEX	= 1U << 6,
	EW_GID_MACSEC_OFFLOAD	= 1U << 7,
	EW_GID_OFFLOAD_CAPS	= 1U << 8,
	EW_GID_MTU		= 1U << 9,
};

struct ew_gid {
	uint32_t present;	/* EW_GID_* */
	uint32_t index;
	uint8_t gid[16];
	uint32_t type;
	uint32_t ifindex;
	char ifname[IF_NAMESIZE];
	uint16_t vlan;
	uint32_t vrf;
	uint32_t protection;	/* EASTWEST_PROTECTION_* flags */
	uint32_t macsec_ifindex;
	uint32_t macsec_offload; /* enum eastwest_macsec_offload */
	uint32_t offload_caps;	/* EASTWEST_OFFLOAD_CAPS_* of the real netdev */
	uint32_t mtu;		/* of the GID's netdev */
};

struct ew_port {
	uint32_t num;
	uint32_t link_layer;
	struct ew_gid *gids;
	size_t n_gids, cap_gids;
	uint16_t *pkeys;
	size_t n_pkeys, cap_pkeys;
};

enum {
	EW_DEV_QPN_OBSERVED	= 1U << 0,
	EW_DEV_QPN_SEQUENTIAL	= 1U << 1,
	EW_DEV_QPN_ORDER	= 1U << 2,
};

struct ew_dev_desc {
	uint32_t present;	/* EW_DEV_* */
	uint32_t index;
	char name[64];
	uint32_t qpn_observed;	/* user QPs seen entering INIT */
	uint32_t qpn_sequential; /* of those, QPN = previous QPN + 1 */
	uint32_t qpn_order;	/* EASTWEST_QPN_ORDER_*: who picks QPNs, how */
	struct ew_port *ports;
	size_t n_ports, cap_ports;
};

struct ew_devs {
	struct ew_dev_desc *v;
	size_t n, cap;
};

void ew_devs_free(struct ew_devs *devs);

void ew_peers_add(struct ew_peers *ps, const struct ew_peer_addr *p);
void ew_peers_sort_unique(struct ew_peers *ps);
void ew_peers_free(struct ew_peers *ps);

void ew_job_init(struct ew_job_desc *job);
void ew_job_free(struct ew_job_desc *job);
void ew_job_add_cgroup(struct ew_job_desc *job, const char *path, uint64_t id);
void ew_job_add_netdev(struct ew_job_desc *job, uint32_t kind, uint32_t value,
		       const char *name);
void ew_job_add_pkey(struct ew_job_desc *job, uint16_t pkey);
void ew_job_normalize(struct ew_job_desc *job);
void ew_job_fill_defaults(struct ew_job_desc *job);

struct ew_job_desc *ew_state_add_job(struct ew_state *st);
struct ew_job_desc *ew_state_find_id(const struct ew_state *st, uint32_t id);
void ew_state_free(struct ew_state *st);

int ew_netdev_cmp(const void *a, const void *b);
int ew_cgroup_cmp(const void *a, const void *b);

#endif /* EW_MODEL_H */
