/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Peer addresses: a GID/IPv6 prefix, an IPv4 prefix (stored IPv4-mapped) or
 * an InfiniBand LID.
 */
#ifndef EW_ADDR_H
#define EW_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EW_LID_MIN	1
#define EW_LID_MAX	0xfffe

/* "ffff:...:255.255.255.255/128" or "lid:65534", with the NUL. */
#define EW_PEER_STRLEN	56

struct ew_peer_addr {
	uint8_t addr[16];	/* network order */
	uint8_t plen;		/* 0..128, in IPv6 bits */
	bool is_lid;
	uint16_t lid;
};

bool ew_addr_is_v4mapped(const uint8_t *addr);
int ew_peer_parse(const char *s, struct ew_peer_addr *p, const char **why);
int ew_lid_parse(const char *s, struct ew_peer_addr *p, const char **why);
bool ew_peer_is_host(const struct ew_peer_addr *p);
char *ew_peer_format(const struct ew_peer_addr *p, char *buf, size_t len);
char *ew_addr_format(const uint8_t *addr, char *buf, size_t len);
int ew_peer_cmp(const void *a, const void *b);

#endif /* EW_ADDR_H */
