// SPDX-License-Identifier: GPL-2.0
/*
 * The macsec generic netlink family ("macsec", include/uapi/linux/if_macsec.h),
 * spoken with the tool's own libmnl transport (nl.c): the requests are
 * small and fixed, and nl.c already turns the kernel's extended acks into
 * one-line errors. wpa_supplicant's driver_macsec_linux.c builds the same
 * messages through libnl-genl.
 *
 * Wire formats the kernel expects: an SCI is 8 bytes in network order (MAC
 * address, then port); a PN is a u32, or a u64 with XPN cipher suites; an
 * SSCI is 4 bytes in network order; keys are the SAK's bytes; the key
 * identifier is 16 bytes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/if_macsec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ewctl.h"
#include "io/macsec.h"

int ew_macsec_open(struct ewnl **ms)
{
	return ewnl_open_family(ms, MACSEC_GENL_NAME);
}

char *ew_sci_format(const uint8_t sci[8], char *buf, size_t len)
{
	snprintf(buf, len, "%02x%02x%02x%02x%02x%02x%02x%02x", sci[0], sci[1],
		 sci[2], sci[3], sci[4], sci[5], sci[6], sci[7]);
	return buf;
}

static struct nlmsghdr *req(struct ewnl *ms, uint8_t cmd, uint32_t ifindex)
{
	struct nlmsghdr *nlh = ewnl_genl_req(ms, cmd, MACSEC_GENL_VERSION, 0);

	mnl_attr_put_u32(nlh, MACSEC_ATTR_IFINDEX, ifindex);
	return nlh;
}

static void put_rxsc(struct nlmsghdr *nlh, const uint8_t sci[8], bool active)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, MACSEC_ATTR_RXSC_CONFIG);

	mnl_attr_put(nlh, MACSEC_RXSC_ATTR_SCI, 8, sci);
	if (active)
		mnl_attr_put_u8(nlh, MACSEC_RXSC_ATTR_ACTIVE, 1);
	mnl_attr_nest_end(nlh, nest);
}

/* An SA's configuration; with @k NULL only its AN (to delete it). */
static void put_sa(struct nlmsghdr *nlh, uint8_t an, bool xpn,
		   const struct ew_macsec_keys *k)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, MACSEC_ATTR_SA_CONFIG);

	mnl_attr_put_u8(nlh, MACSEC_SA_ATTR_AN, an);
	if (k) {
		if (xpn)
			mnl_attr_put_u64(nlh, MACSEC_SA_ATTR_PN, 1);
		else
			mnl_attr_put_u32(nlh, MACSEC_SA_ATTR_PN, 1);
		mnl_attr_put(nlh, MACSEC_SA_ATTR_KEY, sizeof(k->sak), k->sak);
		mnl_attr_put(nlh, MACSEC_SA_ATTR_KEYID, sizeof(k->ki), k->ki);
		mnl_attr_put_u8(nlh, MACSEC_SA_ATTR_ACTIVE, 1);
		if (xpn) {
			mnl_attr_put_u32(nlh, MACSEC_SA_ATTR_SSCI, htonl(k->ssci));
			mnl_attr_put(nlh, MACSEC_SA_ATTR_SALT, sizeof(k->salt), k->salt);
		}
	}
	mnl_attr_nest_end(nlh, nest);
}

/* Sends @nlh and wipes the request buffer: it held a key. */
/* Every request but the dump changes the link: counted in ew_changes. */
static int change(struct ewnl *ms, struct nlmsghdr *nlh)
{
	int ret = ewnl_do(ms, nlh, NULL, NULL);

	if (!ret)
		ew_changes++;
	return ret;
}

static int send_wipe(struct ewnl *ms, struct nlmsghdr *nlh)
{
	size_t len = nlh->nlmsg_len;
	int ret;

	ret = change(ms, nlh);
	ew_wipe(ms->sbuf, len);
	return ret;
}

int ew_macsec_add_txsa(struct ewnl *ms, uint32_t ifindex, uint8_t an, bool xpn,
		       const struct ew_macsec_keys *k)
{
	struct nlmsghdr *nlh = req(ms, MACSEC_CMD_ADD_TXSA, ifindex);

	put_sa(nlh, an, xpn, k);
	return send_wipe(ms, nlh);
}

int ew_macsec_add_rxsc(struct ewnl *ms, uint32_t ifindex, const uint8_t sci[8])
{
	struct nlmsghdr *nlh = req(ms, MACSEC_CMD_ADD_RXSC, ifindex);

	put_rxsc(nlh, sci, true);
	return change(ms, nlh);
}

int ew_macsec_add_rxsa(struct ewnl *ms, uint32_t ifindex, const uint8_t sci[8],
		       uint8_t an, bool xpn, const struct ew_macsec_keys *k)
{
	struct nlmsghdr *nlh = req(ms, MACSEC_CMD_ADD_RXSA, ifindex);

	put_rxsc(nlh, sci, false);
	put_sa(nlh, an, xpn, k);
	return send_wipe(ms, nlh);
}

/*
 * The link's offload mode (MACSEC_OFFLOAD_*). Both kernels accept it only
 * while the link is down; macsec_add() sets it right after creating the
 * link, before any SA.
 */
int ew_macsec_upd_offload(struct ewnl *ms, uint32_t ifindex, uint8_t offload)
{
	struct nlmsghdr *nlh = req(ms, MACSEC_CMD_UPD_OFFLOAD, ifindex);
	struct nlattr *nest = mnl_attr_nest_start(nlh, MACSEC_ATTR_OFFLOAD);

	mnl_attr_put_u8(nlh, MACSEC_OFFLOAD_ATTR_TYPE, offload);
	mnl_attr_nest_end(nlh, nest);
	return change(ms, nlh);
}

/* An SA's AN and its active flag, for UPD_TXSA / UPD_RXSA. */
static void put_sa_active(struct nlmsghdr *nlh, uint8_t an, bool active)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, MACSEC_ATTR_SA_CONFIG);

	mnl_attr_put_u8(nlh, MACSEC_SA_ATTR_AN, an);
	mnl_attr_put_u8(nlh, MACSEC_SA_ATTR_ACTIVE, active);
	mnl_attr_nest_end(nlh, nest);
}

/* The kernel refuses to delete an active SA (EBUSY): deactivate it first. */
int ew_macsec_del_txsa(struct ewnl *ms, uint32_t ifindex, uint8_t an)
{
	struct nlmsghdr *nlh = req(ms, MACSEC_CMD_UPD_TXSA, ifindex);
	int ret;

	put_sa_active(nlh, an, false);
	ret = change(ms, nlh);
	if (ret)
		return ret;
	nlh = req(ms, MACSEC_CMD_DEL_TXSA, ifindex);
	put_sa(nlh, an, false, NULL);
	return change(ms, nlh);
}

int ew_macsec_del_rxsa(struct ewnl *ms, uint32_t ifindex, const uint8_t sci[8],
		       uint8_t an)
{
	struct nlmsghdr *nlh = req(ms, MACSEC_CMD_UPD_RXSA, ifindex);
	int ret;

	put_rxsc(nlh, sci, false);
	put_sa_active(nlh, an, false);
	ret = change(ms, nlh);
	if (ret)
		return ret;
	nlh = req(ms, MACSEC_CMD_DEL_RXSA, ifindex);
	put_rxsc(nlh, sci, false);
	put_sa(nlh, an, false, NULL);
	return change(ms, nlh);
}

/* Dump parsing: unknown attributes are skipped, sizes are checked. */

static uint64_t get_uint(const struct nlattr *a)
{
	switch (mnl_attr_get_payload_len(a)) {
	case 1:
		return mnl_attr_get_u8(a);
	case 2:
		return mnl_attr_get_u16(a);
	case 4:
		return mnl_attr_get_u32(a);
	case 8:
		return mnl_attr_get_u64(a);
	default:
		return 0;
	}
}

static void parse_sa(const struct nlattr *nest, struct ew_msa *sas)
{
	const struct nlattr *a, *s;
	struct ew_msa sa = { .present = true };
	int an = -1;

	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case MACSEC_SA_ATTR_AN:
			an = (int)get_uint(a);
			break;
		case MACSEC_SA_ATTR_ACTIVE:
			sa.active = get_uint(a);
			break;
		case MACSEC_SA_ATTR_PN:
			sa.next_pn = get_uint(a);
			break;
		case MACSEC_SA_ATTR_KEYID:
			if (mnl_attr_get_payload_len(a) == sizeof(sa.ki)) {
				memcpy(sa.ki, mnl_attr_get_payload(a), sizeof(sa.ki));
				sa.has_ki = true;
			}
			break;
		case MACSEC_SA_ATTR_STATS:
			mnl_attr_for_each_nested(s, a) {
				uint32_t v = (uint32_t)get_uint(s);

				switch (mnl_attr_get_type(s)) {
				case MACSEC_SA_STATS_ATTR_IN_PKTS_OK:
					sa.pkts_ok = v;
					break;
				case MACSEC_SA_STATS_ATTR_IN_PKTS_INVALID:
					sa.pkts_invalid = v;
					break;
				case MACSEC_SA_STATS_ATTR_IN_PKTS_NOT_VALID:
					sa.pkts_not_valid = v;
					break;
				case MACSEC_SA_STATS_ATTR_IN_PKTS_NOT_USING_SA:
					sa.pkts_not_using_sa = v;
					break;
				case MACSEC_SA_STATS_ATTR_IN_PKTS_UNUSED_SA:
					sa.pkts_unused_sa = v;
					break;
				case MACSEC_SA_STATS_ATTR_OUT_PKTS_PROTECTED:
					sa.out_protected = v;
					break;
				case MACSEC_SA_STATS_ATTR_OUT_PKTS_ENCRYPTED:
					sa.out_encrypted = v;
					break;
				}
			}
			break;
		}
	}
	if (an >= 0 && an < EW_MACSEC_NUM_AN)
		sas[an] = sa;
}

static void parse_rxsc(const struct nlattr *nest, struct ew_msecy *y)
{
	const struct nlattr *a, *s;
	struct ew_mrxsc *sc;

	EW_GROW(y->rx, y->n_rx, y->cap_rx);
	sc = &y->rx[y->n_rx++];
	memset(sc, 0, sizeof(*sc));
	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case MACSEC_RXSC_ATTR_SCI:
			if (mnl_attr_get_payload_len(a) == 8)
				memcpy(sc->sci, mnl_attr_get_payload(a), 8);
			break;
		case MACSEC_RXSC_ATTR_ACTIVE:
			sc->active = get_uint(a);
			break;
		case MACSEC_RXSC_ATTR_SA_LIST:
			mnl_attr_for_each_nested(s, a)
				parse_sa(s, sc->sa);
			break;
		case MACSEC_RXSC_ATTR_STATS:
			mnl_attr_for_each_nested(s, a) {
				uint64_t v = get_uint(s);

				switch (mnl_attr_get_type(s)) {
				case MACSEC_RXSC_STATS_ATTR_IN_PKTS_OK:
					sc->in_ok = v;
					break;
				case MACSEC_RXSC_STATS_ATTR_IN_PKTS_INVALID:
					sc->in_invalid = v;
					break;
				case MACSEC_RXSC_STATS_ATTR_IN_PKTS_NOT_VALID:
					sc->in_not_valid = v;
					break;
				case MACSEC_RXSC_STATS_ATTR_IN_PKTS_LATE:
					sc->in_late = v;
					break;
				case MACSEC_RXSC_STATS_ATTR_IN_PKTS_UNCHECKED:
					sc->in_unchecked = v;
					break;
				}
			}
			break;
		}
	}
}

struct get_ctx {
	uint32_t ifindex;
	struct ew_msecy *y;
	bool found;
};

static int secy_cb(const struct nlmsghdr *nlh, void *data)
{
	struct get_ctx *ctx = data;
	struct ew_msecy *y = ctx->y;
	const struct nlattr *a, *s;
	bool mine = false;

	mnl_attr_for_each(a, nlh, EWNL_HDRLEN) {
		if (mnl_attr_get_type(a) == MACSEC_ATTR_IFINDEX &&
		    mnl_attr_get_payload_len(a) == 4)
			mine = mnl_attr_get_u32(a) == ctx->ifindex;
	}
	if (!mine || ctx->found)
		return MNL_CB_OK;
	ctx->found = true;
	y->ifindex = ctx->ifindex;
	mnl_attr_for_each(a, nlh, EWNL_HDRLEN) {
		switch (mnl_attr_get_type(a)) {
		case MACSEC_ATTR_SECY:
			mnl_attr_for_each_nested(s, a) {
				switch (mnl_attr_get_type(s)) {
				case MACSEC_SECY_ATTR_SCI:
					if (mnl_attr_get_payload_len(s) == 8)
						memcpy(y->sci, mnl_attr_get_payload(s), 8);
					break;
				case MACSEC_SECY_ATTR_ENCODING_SA:
					y->encoding_an = (uint8_t)get_uint(s);
					break;
				case MACSEC_SECY_ATTR_CIPHER_SUITE:
					y->cipher_id = get_uint(s);
					break;
				}
			}
			break;
		case MACSEC_ATTR_TXSA_LIST:
			mnl_attr_for_each_nested(s, a)
				parse_sa(s, y->tx);
			break;
		case MACSEC_ATTR_RXSC_LIST:
			mnl_attr_for_each_nested(s, a)
				parse_rxsc(s, y);
			break;
		case MACSEC_ATTR_OFFLOAD:
			mnl_attr_for_each_nested(s, a)
				if (mnl_attr_get_type(s) == MACSEC_OFFLOAD_ATTR_TYPE)
					y->offload = (uint8_t)get_uint(s);
			break;
		case MACSEC_ATTR_TXSC_STATS:
			mnl_attr_for_each_nested(s, a) {
				if (mnl_attr_get_type(s) == MACSEC_TXSC_STATS_ATTR_OUT_PKTS_ENCRYPTED)
					y->out_encrypted = get_uint(s);
				else if (mnl_attr_get_type(s) == MACSEC_TXSC_STATS_ATTR_OUT_PKTS_PROTECTED)
					y->out_protected = get_uint(s);
			}
			break;
		case MACSEC_ATTR_SECY_STATS:
			mnl_attr_for_each_nested(s, a) {
				uint64_t v = get_uint(s);

				switch (mnl_attr_get_type(s)) {
				case MACSEC_SECY_STATS_ATTR_IN_PKTS_NO_TAG:
					y->in_no_tag = v;
					break;
				case MACSEC_SECY_STATS_ATTR_IN_PKTS_BAD_TAG:
					y->in_bad_tag = v;
					break;
				case MACSEC_SECY_STATS_ATTR_IN_PKTS_UNKNOWN_SCI:
					y->in_unknown_sci = v;
					break;
				case MACSEC_SECY_STATS_ATTR_IN_PKTS_NO_SCI:
					y->in_no_sci = v;
					break;
				case MACSEC_SECY_STATS_ATTR_IN_PKTS_UNTAGGED:
					y->in_untagged = v;
					break;
				}
			}
			break;
		}
	}
	y->xpn = y->cipher_id == MACSEC_CIPHER_ID_GCM_AES_XPN_128 ||
		 y->cipher_id == MACSEC_CIPHER_ID_GCM_AES_XPN_256;
	return MNL_CB_OK;
}

static void secy_reset(void *data)
{
	struct get_ctx *ctx = data;

	ew_msecy_free(ctx->y);
	ctx->found = false;
}

void ew_msecy_free(struct ew_msecy *y)
{
	free(y->rx);
	memset(y, 0, sizeof(*y));
}

/* The SecY of macsec link @ifindex with its SCs, SAs and counters. */
int ew_macsec_get(struct ewnl *ms, uint32_t ifindex, struct ew_msecy *y)
{
	struct get_ctx ctx = { .ifindex = ifindex, .y = y };
	struct nlmsghdr *nlh;
	int ret;

	memset(y, 0, sizeof(*y));
	nlh = ewnl_genl_req(ms, MACSEC_CMD_GET_TXSC, MACSEC_GENL_VERSION, NLM_F_DUMP);
	ret = ewnl_dump(ms, nlh, secy_cb, &ctx, secy_reset);
	if (!ret && !ctx.found) {
		ms->err.code = ENODEV;
		snprintf(ms->err.msg, sizeof(ms->err.msg),
			 "ifindex %u is not a macsec link", ifindex);
		return -ENODEV;
	}
	return ret;
}
