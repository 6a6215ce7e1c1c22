/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "eastwestctl path": the verbs of path.c (add, del, rotate) and
 * path_show.c (show, caps, check, physical), which path_cmd.c dispatches,
 * and the helpers of path.c that path_show.c uses.
 */
#ifndef EW_PATH_H
#define EW_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "io/ipc.h"
#include "model/pathspec.h"

struct nl_sock;

/* What the kernel's dev-get says about one netdev. */
struct ew_netdev_roce {
	size_t n_gids;			/* GIDs on the netdev */
	char rdma_dev[64];		/* the first RDMA device with one */
	uint32_t port;
	bool caps_known;
	uint32_t offload_caps;		/* EASTWEST_OFFLOAD_CAPS_* */
	uint32_t protection;		/* EASTWEST_PROTECTION_*, ORed over GIDs */
};

int ew_path_netdev(const char *verb, const char *name, int *ifindex);
int ew_path_roce(struct ewnl *nl, int ifindex, const char *name,
		 struct ew_netdev_roce *r);
int ew_path_caps_of(struct ewnl *nl, int ifindex, const char *name,
		    struct ew_path_caps *caps, struct ew_netdev_roce *r);
bool ew_path_declared(struct ewnl *nl, int ifindex);
uint32_t ew_path_reqid(int ifindex);
uint32_t ew_path_reqid_job(int ifindex);

/* path_txkey.c: never send with a key twice, never two links on one SCI. */
struct ew_secret;
int ew_path_txkey_macsec(const char *verb, const char *who, const struct ew_secret *s,
			 const uint8_t sci[8], uint32_t epoch, bool record);
int ew_path_txkey_esp(const char *verb, const struct ew_secret *s, const uint8_t src[16],
		      const uint8_t dst[16], uint32_t epoch, bool record);
int ew_path_sci_unique(struct nl_sock *rt, const char *dev, const uint8_t sci[8]);

int ew_path_add(const struct ew_path_spec *spec);
int ew_path_del(const struct ew_path_spec *spec);
int ew_path_rotate(const struct ew_path_spec *spec);
int ew_path_show(const struct ew_path_spec *spec);
int ew_path_caps(const struct ew_path_spec *spec);
int ew_path_check(const struct ew_path_spec *spec);
int ew_path_physical(const struct ew_path_spec *spec);

#endif /* EW_PATH_H */
