/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The macsec generic netlink family (libmnl): secure channels and
 * associations of a macsec link. Functions return 0 or a negative errno
 * with ms->err set (ewnl_report() prints it).
 */
#ifndef EW_MACSEC_H
#define EW_MACSEC_H

#include <stdbool.h>
#include <stdint.h>

#include "io/keys.h"
#include "io/nl.h"

#define EW_MACSEC_NUM_AN 4

struct ew_msa {
	bool present;
	bool active;
	bool has_ki;			/* the kernel reported its key identifier */
	uint8_t ki[EW_MACSEC_KI_LEN];
	uint64_t next_pn;
	uint32_t pkts_ok, pkts_invalid, pkts_not_valid;	/* RX SA */
	uint32_t pkts_not_using_sa, pkts_unused_sa;	/* RX SA */
	uint32_t out_protected, out_encrypted;		/* TX SA */
};

struct ew_mrxsc {
	uint8_t sci[8];
	bool active;
	uint64_t in_ok, in_invalid, in_not_valid, in_late, in_unchecked;
	struct ew_msa sa[EW_MACSEC_NUM_AN];
};

struct ew_msecy {
	uint32_t ifindex;
	uint8_t sci[8];
	uint8_t encoding_an;
	uint64_t cipher_id;
	bool xpn;
	uint8_t offload;	/* MACSEC_OFFLOAD_* */
	struct ew_msa tx[EW_MACSEC_NUM_AN];
	uint64_t out_encrypted, out_protected;			/* TX SC */
	uint64_t in_no_tag, in_bad_tag, in_unknown_sci, in_no_sci, in_untagged;
	struct ew_mrxsc *rx;
	size_t n_rx, cap_rx;
};

int ew_macsec_open(struct ewnl **ms);
int ew_macsec_get(struct ewnl *ms, uint32_t ifindex, struct ew_msecy *y);
void ew_msecy_free(struct ew_msecy *y);
int ew_macsec_upd_offload(struct ewnl *ms, uint32_t ifindex, uint8_t offload);
int ew_macsec_add_txsa(struct ewnl *ms, uint32_t ifindex, uint8_t an, bool xpn,
		       const struct ew_macsec_keys *k);
int ew_macsec_add_rxsc(struct ewnl *ms, uint32_t ifindex, const uint8_t sci[8]);
int ew_macsec_add_rxsa(struct ewnl *ms, uint32_t ifindex, const uint8_t sci[8],
		       uint8_t an, bool xpn, const struct ew_macsec_keys *k);
int ew_macsec_del_txsa(struct ewnl *ms, uint32_t ifindex, uint8_t an);
int ew_macsec_del_rxsa(struct ewnl *ms, uint32_t ifindex, const uint8_t sci[8],
		       uint8_t an);
char *ew_sci_format(const uint8_t sci[8], char *buf, size_t len);

#endif /* EW_MACSEC_H */
