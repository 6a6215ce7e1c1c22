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
#include "model/attrs-gen.h"
#include "model/names-gen.h"

/*
 * The present masks below have the bit of each attribute's type,
 * EW_ATTR_BIT(EASTWEST_A_<SET>_*): the generated parsers (io/attrs-gen.h)
 * set those of the scalars, EW_<SET>_ATTRS, that replies carry. A new
 * scalar attribute in the spec reaches these structs, by its name, without
 * an edit here.
 */

/* Which members of struct ew_job_desc are present (or to be changed). */
enum {
	EW_JOB_ID		= EW_ATTR_BIT(EASTWEST_A_JOB_ID),
	EW_JOB_NAME		= EW_ATTR_BIT(EASTWEST_A_JOB_NAME),
	EW_JOB_MODE		= EW_ATTR_BIT(EASTWEST_A_JOB_MODE),
	EW_JOB_ENCRYPT		= EW_ATTR_BIT(EASTWEST_A_JOB_ENCRYPT),
	EW_JOB_QKEY		= EW_ATTR_BIT(EASTWEST_A_JOB_QKEY),
	EW_JOB_CGROUPS		= EW_ATTR_BIT(EASTWEST_A_JOB_CGROUP),
	EW_JOB_PEERS		= EW_ATTR_BIT(EASTWEST_A_JOB_PEER),
	EW_JOB_NETDEVS		= EW_ATTR_BIT(EASTWEST_A_JOB_NETDEV),
	EW_JOB_PKEYS		= EW_ATTR_BIT(EASTWEST_A_JOB_PKEY),
	EW_JOB_PEER_COUNT	= EW_ATTR_BIT(EASTWEST_A_JOB_PEER_COUNT),
	EW_JOB_QP_COUNT		= EW_ATTR_BIT(EASTWEST_A_JOB_QP_COUNT),
	EW_JOB_COUNTERS		= EW_ATTR_BIT(EASTWEST_A_JOB_COUNTERS),
	EW_JOB_UD		= EW_ATTR_BIT(EASTWEST_A_JOB_UD),
	EW_JOB_DC		= EW_ATTR_BIT(EASTWEST_A_JOB_DC),
	EW_JOB_PSN		= EW_ATTR_BIT(EASTWEST_A_JOB_PSN),
	/* psn_key set (never read back) */
	EW_JOB_PSN_KEY		= EW_ATTR_BIT(EASTWEST_A_JOB_PSN_KEY),
	/* the run psn_keyfile derives the key for, sent with the key */
	EW_JOB_PSN_RUN		= EW_ATTR_BIT(EASTWEST_A_JOB_PSN_RUN),
	/* the key's check value: reported; a policy file's is compared */
	EW_JOB_PSN_KEY_CHECK	= EW_ATTR_BIT(EASTWEST_A_JOB_PSN_KEY_CHECK),
};

/* The attributes job-set can change (peers change with peer-add/del). */
#define EW_JOB_SETTABLE (EW_JOB_NAME | EW_JOB_MODE | EW_JOB_ENCRYPT | \
			 EW_JOB_QKEY | EW_JOB_CGROUPS | EW_JOB_NETDEVS | \
			 EW_JOB_PKEYS | EW_JOB_UD | EW_JOB_DC | EW_JOB_PSN | \
			 EW_JOB_PSN_KEY | EW_JOB_PSN_RUN)

enum {
	EW_CFG_MODE		= EW_ATTR_BIT(EASTWEST_A_CONFIG_MODE),
	EW_CFG_DEFAULT		= EW_ATTR_BIT(EASTWEST_A_CONFIG_DEFAULT_ACTION),
	EW_CFG_VERSION		= EW_ATTR_BIT(EASTWEST_A_CONFIG_VERSION),
	EW_CFG_JOB_COUNT	= EW_ATTR_BIT(EASTWEST_A_CONFIG_JOB_COUNT),
	EW_CFG_PEER_COUNT	= EW_ATTR_BIT(EASTWEST_A_CONFIG_PEER_COUNT),
	EW_CFG_COUNTERS		= EW_ATTR_BIT(EASTWEST_A_CONFIG_COUNTERS),
	EW_CFG_PHYSICAL		= EW_ATTR_BIT(EASTWEST_A_CONFIG_PHYSICAL_IFINDEX),
	EW_CFG_ADMISSION	= EW_ATTR_BIT(EASTWEST_A_CONFIG_ADMISSION),
	EW_CFG_ADMISSION_REQUIRED = EW_ATTR_BIT(EASTWEST_A_CONFIG_ADMISSION_REQUIRED),
	EW_CFG_REVOKED_NODES	= EW_ATTR_BIT(EASTWEST_A_CONFIG_REVOKED_NODE),
	EW_CFG_ADMISSION_TTL	= EW_ATTR_BIT(EASTWEST_A_CONFIG_ADMISSION_TTL),
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
	/*
	 * id, name, mode, encrypt, qkey, peer_count, qp_count, ud (may create
	 * UD QPs), dc (driver QPs: mlx5 DC), psn (enum eastwest_psn): the job
	 * set's scalars, documented in the spec.
	 */
	EW_JOB_ATTRS;
	bool qkey_auto;		/* keep the current non-zero Q_Key, else qkey */
	uint8_t psn_key[16];	/* with EW_JOB_PSN_KEY; wiped by ew_job_free() */
	char *psn_keyfile;	/* the key is to be derived from it (malloc'd) */
	struct ew_cgroup *cgroups;
	size_t n_cgroups, cap_cgroups;
	struct ew_netdev *netdevs;
	size_t n_netdevs, cap_netdevs;
	uint16_t *pkeys;
	size_t n_pkeys, cap_pkeys;
	struct ew_peers peers;
	struct ew_counter_set counters;
};

struct ew_config {
	uint32_t present;	/* EW_CFG_* */
	/*
	 * mode, default_action, version, job_count, peer_count, admission
	 * (enum eastwest_admission, this node's), admission_required (0 or 1),
	 * admission_ttl (seconds of lease left, 0: none).
	 */
	EW_CONFIG_ATTRS;
	struct ew_counter_set counters;
	uint32_t physical[EW_PHYSICAL_MAX];	/* ifindexes declared physical */
	size_t n_physical;
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
	EW_GID_IFINDEX	= EW_ATTR_BIT(EASTWEST_A_GID_IFINDEX),
	EW_GID_IFNAME	= EW_ATTR_BIT(EASTWEST_A_GID_IFNAME),
	EW_GID_VLAN	= EW_ATTR_BIT(EASTWEST_A_GID_VLAN),
	EW_GID_VRF	= EW_ATTR_BIT(EASTWEST_A_GID_VRF),
	EW_GID_TYPE	= EW_ATTR_BIT(EASTWEST_A_GID_TYPE),
	EW_GID_PROTECTION	= EW_ATTR_BIT(EASTWEST_A_GID_PROTECTION),
	EW_GID_MACSEC_IFINDEX	= EW_ATTR_BIT(EASTWEST_A_GID_MACSEC_IFINDEX),
	EW_GID_MACSEC_OFFLOAD	= EW_ATTR_BIT(EASTWEST_A_GID_MACSEC_OFFLOAD),
	EW_GID_OFFLOAD_CAPS	= EW_ATTR_BIT(EASTWEST_A_GID_OFFLOAD_CAPS),
	EW_GID_MTU		= EW_ATTR_BIT(EASTWEST_A_GID_MTU),
};

struct ew_gid {
	uint32_t present;	/* EW_GID_* */
	/*
	 * index, gid, type, ifindex, ifname, vlan, vrf, protection
	 * (EASTWEST_PROTECTION_* flags), macsec_ifindex, macsec_offload (enum
	 * eastwest_macsec_offload), offload_caps (EASTWEST_OFFLOAD_CAPS_* of
	 * the real netdev), mtu (of the GID's netdev).
	 */
	EW_GID_ATTRS;
};

struct ew_port {
	uint32_t present;	/* EW_ATTR_BIT(EASTWEST_A_PORT_*) */
	EW_PORT_ATTRS;		/* num, link_layer */
	struct ew_gid *gids;
	size_t n_gids, cap_gids;
	uint16_t *pkeys;
	size_t n_pkeys, cap_pkeys;
};

enum {
	EW_DEV_QPN_OBSERVED	= EW_ATTR_BIT(EASTWEST_A_DEV_QPN_OBSERVED),
	EW_DEV_QPN_SEQUENTIAL	= EW_ATTR_BIT(EASTWEST_A_DEV_QPN_SEQUENTIAL),
	EW_DEV_QPN_ORDER	= EW_ATTR_BIT(EASTWEST_A_DEV_QPN_ORDER),
};

struct ew_dev_desc {
	uint32_t present;	/* EW_DEV_* */
	/*
	 * index, name, qpn_observed (user QPs seen entering INIT),
	 * qpn_sequential (of those, QPN = previous QPN + 1), qpn_order
	 * (EASTWEST_QPN_ORDER_*: who picks QPNs, how).
	 */
	EW_DEV_ATTRS;
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
