/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtnetlink through libnl-route-3: the macsec link, addresses, neighbours.
 * Functions return 0 or a negative libnl error (nl_geterror() names it).
 */
#ifndef EW_RTNL_H
#define EW_RTNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nl_sock;

/* ifalias of the links eastwestctl creates: how "path del" knows its own. */
#define EW_LINK_ALIAS "eastwest path"

struct ew_macsec_link_cfg {
	int lower;		/* ifindex of the real netdev */
	const char *name;
	uint64_t cipher_id;	/* MACSEC_CIPHER_ID_* */
	uint32_t window;	/* replay window */
	uint8_t encoding_an;
};

struct ew_link_info {
	int ifindex;
	char name[16];
	int lower;		/* IFLA_LINK, 0 if none */
	unsigned int mtu;
	bool up;
	bool is_macsec;
	bool ours;		/* ifalias is EW_LINK_ALIAS */
	uint8_t mac[6];
	/* macsec only */
	uint8_t sci[8];		/* as on the wire */
	uint64_t cipher_id;
	uint8_t encrypt, protect, replay, validate, offload, encoding_an;
	uint32_t window;
};

int ew_rtnl_open(struct nl_sock **sk);
void ew_rtnl_close(struct nl_sock *sk);
const char *ew_nlerr(int err);

int ew_link_get(struct nl_sock *sk, int ifindex, struct ew_link_info *li);
int ew_link_macsec_on(struct nl_sock *sk, int lower, struct ew_link_info *li,
		      bool *found);
int ew_link_macsec_sci(struct nl_sock *sk, const uint8_t sci[8], struct ew_link_info *li,
		       bool *found);
int ew_macsec_lowers(struct nl_sock *sk, int *lowers, size_t max, size_t *n);
int ew_macsec_link_add(struct nl_sock *sk, const struct ew_macsec_link_cfg *cfg,
		       struct ew_link_info *li);
int ew_macsec_link_encoding_sa(struct nl_sock *sk, int ifindex, uint8_t an);
int ew_link_up(struct nl_sock *sk, int ifindex);
int ew_link_del(struct nl_sock *sk, int ifindex);
int ew_addr_add(struct nl_sock *sk, int ifindex, const uint8_t addr[16], uint8_t plen);
int ew_addr_first(struct nl_sock *sk, int ifindex, bool v4, uint8_t addr[16]);
int ew_neigh_mac(struct nl_sock *sk, int ifindex, const uint8_t addr[16], uint8_t mac[6]);

#endif /* EW_RTNL_H */
