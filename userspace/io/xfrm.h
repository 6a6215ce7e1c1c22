/* SPDX-License-Identifier: GPL-2.0 */
/*
 * XFRM states and policies through libnl-xfrm-3. Functions return 0 or a
 * negative libnl error (ew_nlerr() names it).
 */
#ifndef EW_XFRM_H
#define EW_XFRM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/keys.h"

struct nl_sock;

/*
 * eastwestctl's SAs and ESP policy templates carry reqid EW_REQID_BASE |
 * ifindex of the netdev they protect: "path show/del dev X" finds its own
 * states by it, and the kernel matches policies to SAs by it.
 */
#define EW_REQID_BASE	0x45570000U	/* "EW" */
/*
 * One job's SAs and policies (path add ... job NAME local ADDR) carry
 * EW_REQID_JOB | ifindex instead, and are the job's by their local address
 * (the job's own): the node's path verbs leave them alone, and a job's
 * verbs touch only the states of its address.
 */
#define EW_REQID_JOB	0x454a0000U	/* "EJ" */
#define EW_REQID_MASK	0xffff0000U
/*
 * Policy priorities (lower wins). The ESP policies of a peer pair select
 * UDP without ports: rxe looks its route up with ports 0, so a port
 * selector never matches its output and lets it leave in clear text. Each
 * ESP policy has a block policy with a wider selector (any local address)
 * and a lower priority behind it: if the ESP policy goes, UDP with the
 * peer is dropped rather than sent or accepted in clear text.
 */
#define EW_PRIO_ESP	1000
#define EW_PRIO_BLOCK	1001

#define EW_REPLAY_BMP_WORDS 128	/* XFRMA_REPLAY_ESN_MAX / 4 / 8 in 6.1: 4096 packets */

enum { EW_DIR_IN = 0, EW_DIR_OUT = 1 };	/* XFRM_POLICY_IN, XFRM_POLICY_OUT */

struct ew_esp_sa {
	uint8_t src[16], dst[16];	/* IPv4 as ::ffff:a.b.c.d */
	uint32_t spi;
	uint32_t reqid;
	uint32_t window;		/* ESN replay window, packets */
	uint32_t offload_ifindex;	/* 0: software */
	uint8_t offload_flags;		/* XFRM_OFFLOAD_INBOUND, _PACKET */
	/* from a dump */
	uint64_t bytes, packets;
	uint64_t replay_drops, integrity_failed;
	uint64_t seq;			/* highest sequence number: oseq or seq, with hi */
	bool esn;
};

struct ew_esp_sp {
	uint8_t src[16], dst[16];
	uint8_t plen_s, plen_d;		/* in the family's bits */
	uint8_t proto;
	int dir;			/* EW_DIR_* */
	bool block;			/* action block (else allow) */
	uint32_t priority;
	uint32_t reqid;			/* of its ESP template, 0 if none */
	uint32_t index;			/* from a dump */
};

struct ew_xfrm_dump {
	struct ew_esp_sa *sa;
	size_t n_sa, cap_sa;
	struct ew_esp_sp *sp;
	size_t n_sp, cap_sp;
};

int ew_xfrm_open(struct nl_sock **sk);
int ew_xfrm_dump(struct nl_sock *sk, struct ew_xfrm_dump *d);
void ew_xfrm_dump_free(struct ew_xfrm_dump *d);
int ew_xfrm_sa_add(struct nl_sock *sk, const struct ew_esp_sa *sa,
		   const struct ew_esp_keys *k);
int ew_xfrm_sa_del(struct nl_sock *sk, const uint8_t dst[16], uint32_t spi);
int ew_xfrm_sp_add(struct nl_sock *sk, const struct ew_esp_sp *sp, bool update,
		   uint32_t packet_offload_ifindex);
int ew_xfrm_sp_del(struct nl_sock *sk, const struct ew_esp_sp *sp);
bool ew_sp_same_sel(const struct ew_esp_sp *a, const struct ew_esp_sp *b);

#endif /* EW_XFRM_H */
