/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Management-plane ACL: the configuration (Documentation/management-acl.md)
 * and the nftables ruleset made from it. Pure code: no kernel, no files.
 */
#ifndef EW_MGMT_H
#define EW_MGMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/addr.h"
#include "model/model.h"

#define EW_MGMT_CONFIG	"/etc/eastwest/mgmt.json"
#define EW_MGMT_FAMILY	"inet"
#define EW_MGMT_TABLE	"eastwest_mgmt"
#define EW_MGMT_NAME_MAX 32	/* service names, without the NUL */

enum ew_mgmt_proto {
	EW_MGMT_TCP,
	EW_MGMT_UDP,
	EW_MGMT_N_PROTOS,
};

enum ew_mgmt_action {
	EW_MGMT_DROP,
	EW_MGMT_REJECT,
};

struct ew_mgmt_service {
	char name[EW_MGMT_NAME_MAX + 1];
	uint16_t *ports[EW_MGMT_N_PROTOS];	/* by enum ew_mgmt_proto */
	size_t n_ports[EW_MGMT_N_PROTOS];
	struct ew_peers nets;	/* its own; none: the admin networks */
};

struct ew_mgmt {
	struct ew_peers admin;	/* IPv4 stored IPv4-mapped (addr.h) */
	struct ew_mgmt_service *svcs;
	size_t n_svcs, cap_svcs;
	uint32_t action;	/* enum ew_mgmt_action */
};

int ew_mgmt_parse(const char *text, size_t len, const char *fname,
		  struct ew_mgmt *m, char *err, size_t errlen);
void ew_mgmt_free(struct ew_mgmt *m);
void ew_mgmt_write_nft(const struct ew_mgmt *m, const char *source, FILE *f);
void ew_mgmt_write_flush(FILE *f);
bool ew_mgmt_allows(const struct ew_mgmt *m, enum ew_mgmt_proto proto,
		    uint16_t port, const uint8_t addr[16], bool *managed);
const char *ew_mgmt_known_services(void);

#endif /* EW_MGMT_H */
