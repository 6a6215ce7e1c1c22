/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The eastwest operations: requests built from, and replies parsed into,
 * the structures of model.h.
 */
#ifndef EW_IPC_H
#define EW_IPC_H

#include <stdint.h>

#include "io/nl.h"
#include "model/jobspec.h"
#include "model/model.h"

struct ew_step;

/* Peers per message: ~64 KiB of attributes. */
#define EW_PEER_CHUNK 2000

/*
 * All return 0 or a negative errno, with nl->err telling what the kernel
 * said; the caller prints it with ewnl_report().
 */
int ew_ipc_job_get(struct ewnl *nl, const struct ew_jobref *ref, struct ew_job_desc *job);
int ew_ipc_job_id(struct ewnl *nl, const struct ew_jobref *ref, uint32_t *id);
int ew_ipc_job_dump(struct ewnl *nl, struct ew_state *st);
int ew_ipc_job_new(struct ewnl *nl, const struct ew_job_desc *job, uint32_t *id);
int ew_ipc_job_set(struct ewnl *nl, uint32_t id, const struct ew_job_desc *job,
		   uint32_t mask);
int ew_ipc_job_del(struct ewnl *nl, const struct ew_jobref *ref);
int ew_ipc_peers(struct ewnl *nl, uint8_t cmd, uint32_t id,
		 const struct ew_peers *peers, size_t *done);
int ew_ipc_peer_dump(struct ewnl *nl, uint32_t id, struct ew_peers *peers);
int ew_ipc_peer_get(struct ewnl *nl, uint32_t id, const struct ew_peer_addr *addr,
		    struct ew_peer_addr *match);
int ew_ipc_peers_replace(struct ewnl *nl, uint32_t id, struct ew_peers *want);
int ew_ipc_config_get(struct ewnl *nl, struct ew_config *cfg);
int ew_ipc_config_set(struct ewnl *nl, const struct ew_config *cfg, uint32_t mask);
int ew_ipc_node_set(struct ewnl *nl, const uint8_t (*addrs)[16], size_t n,
		    uint32_t admission);
int ew_ipc_state(struct ewnl *nl, struct ew_state *st, bool with_peers);
int ew_ipc_job_state(struct ewnl *nl, uint32_t id, struct ew_state *st);
int ew_ipc_step(struct ewnl *nl, const struct ew_step *s);
int ew_ipc_dev_dump(struct ewnl *nl, struct ew_devs *devs);

/* What path-get answers about one RoCE path. */
struct ew_path_info {
	uint32_t present;	/* EW_ATTR_BIT(EASTWEST_A_PATH_*) */
	/*
	 * The request's dev_index, dev_name, port, sgid_index and dgid, then
	 * protection (EASTWEST_PROTECTION_*), ifindex (the source GID's
	 * netdev), macsec_ifindex, macsec_offload and ipsec_spi.
	 */
	EW_PATH_ATTRS;
	bool has_spi;
	bool has_macsec;
};

int ew_ipc_path_get(struct ewnl *nl, const char *dev, uint32_t port,
		    uint32_t sgid_index, const uint8_t dgid[16],
		    struct ew_path_info *info);
int ew_ipc_fabric_set(struct ewnl *nl, uint32_t ifindex, bool physical);

/*
 * A peer nest (address and prefix length, or LID) into @p: 0, or -1 if it
 * is malformed. Requests and replies carry peers alike: the unit tests'
 * fake kernel reads eastwestctl's with it too.
 */
int ew_ipc_parse_peer(const struct nlattr *nest, struct ew_peer_addr *p);

#endif /* EW_IPC_H */
