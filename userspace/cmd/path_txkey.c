// SPDX-License-Identifier: GPL-2.0
/*
 * The checks path add and path rotate make before they create a transmit
 * SA, so that this node never sends twice under one AES-GCM key from packet
 * number 1 (a repeated nonce; io/txkeys.c says why and how it is recorded):
 *
 * - a transmit key recorded before is refused: the operator moves every
 *   node of the path to a new epoch;
 * - a macsec link whose SCI an eastwest macsec link already sends with is
 *   refused: the SAK depends on the SCI and the epoch only, so the two
 *   links would send under one key at once (VLANs of one NIC inherit its
 *   MAC, and the SCI port is always 1), and a frame of one would be
 *   accepted by the other's peers.
 *
 * Per-job ESP SAs (path ... job NAME run ID) are not recorded: every run
 * of a job has keys of its own (ew_kdf_job_secret()), and a record of
 * every run's keys would grow with every job a node ever ran (one key per
 * peer of each), where the node's own paths add a few per epoch.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd/path.h"
#include "ewctl.h"
#include "io/keys.h"
#include "io/macsec.h"
#include "io/rtnl.h"
#include "io/txkeys.h"
#include "model/addr.h"

/* Records (or with !@record only looks up) one transmit key. */
static int txkey(const char *verb, const char *who, uint32_t epoch, const char *key_name,
		 const uint8_t *key, size_t len, bool record)
{
	uint8_t id[EW_TXKEY_ID_LEN];
	struct ew_txkey_prev prev;
	char why[512], what[160], since[40];
	struct tm tm;
	int ret;

	if (ew_txkey_id(key, len, id)) {
		ew_err("path %s: %s: epoch %u: cannot hash the %s", verb, who, epoch, key_name);
		return EW_FAIL;
	}
	snprintf(what, sizeof(what), "path %s %s epoch %u", verb, who, epoch);
	ret = record ? ew_txkey_record(id, what, &prev, why, sizeof(why)) :
		       ew_txkey_seen(id, &prev, why, sizeof(why));
	if (ret == 0)
		return EW_OK;
	if (ret == 1 || ret == -EEXIST) {
		if (prev.since && gmtime_r(&prev.since, &tm))
			strftime(since, sizeof(since), "%Y-%m-%d %H:%M:%S UTC", &tm);
		else
			snprintf(since, sizeof(since), "an unknown time");
		ew_err("path %s: %s: epoch %u: the %s was sent with on this node before (since %s, %s): sending with it again from packet number 1 would repeat AES-GCM nonces. Move every node of the path to a new epoch that none of them has used (path rotate ... epoch N, or path add ... epoch N)",
		       verb, who, epoch, key_name, since, prev.what);
		return EW_FAIL;
	}
	ew_err("path %s: %s: epoch %u: cannot record the transmit keys this node sent with, so none is installed: %s (state directory: %s, or $%s)",
	       verb, who, epoch, why, EW_STATE_DIR_DEFAULT, EW_STATE_DIR_ENV);
	return EW_FAIL;
}

/**
 * ew_path_txkey_macsec() - may this node send with its MACsec SAK of @epoch?
 * @verb: "add" or "rotate", for the messages
 * @who: the netdev or link, for the messages
 * @s: the secret
 * @sci: the sender's (this link's) SCI
 * @epoch: the epoch
 * @record: record it (just before its SA is created), or only look it up
 *
 * Return: EW_OK, or EW_FAIL after a message.
 */
int ew_path_txkey_macsec(const char *verb, const char *who, const struct ew_secret *s,
			 const uint8_t sci[8], uint32_t epoch, bool record)
{
	struct ew_macsec_keys k;
	char name[64], sbuf[24];
	int ret;

	if (ew_kdf_macsec(s, sci, epoch, &k)) {
		ew_err("path %s: key derivation failed", verb);
		return EW_FAIL;
	}
	snprintf(name, sizeof(name), "MACsec transmit key of sci %s",
		 ew_sci_format(sci, sbuf, sizeof(sbuf)));
	ret = txkey(verb, who, epoch, name, k.sak, sizeof(k.sak), record);
	ew_wipe(&k, sizeof(k));
	return ret;
}

/**
 * ew_path_txkey_esp() - may this node send with its ESP key @src -> @dst?
 * @verb: "add" or "rotate", for the messages
 * @s: the secret (the key file's; per-job SAs are not recorded)
 * @src: this node's address
 * @dst: the peer's
 * @epoch: the epoch
 * @record: record it (just before its SA is created), or only look it up
 *
 * Return: EW_OK, or EW_FAIL after a message.
 */
int ew_path_txkey_esp(const char *verb, const struct ew_secret *s, const uint8_t src[16],
		      const uint8_t dst[16], uint32_t epoch, bool record)
{
	char who[EW_PEER_STRLEN + 8], abuf[EW_PEER_STRLEN], name[64];
	struct ew_esp_keys k;
	int ret;

	if (ew_kdf_esp(s, src, dst, epoch, &k)) {
		ew_err("path %s: key derivation failed", verb);
		return EW_FAIL;
	}
	snprintf(who, sizeof(who), "peer %s", ew_addr_format(dst, abuf, sizeof(abuf)));
	snprintf(name, sizeof(name), "ESP transmit key of SPI 0x%08x", k.spi);
	/* The AES key only: the salt comes out of the same derivation. */
	ret = txkey(verb, who, epoch, name, k.key, EW_ESP_KEY_LEN, record);
	ew_wipe(&k, sizeof(k));
	return ret;
}

/**
 * ew_path_sci_unique() - refuse a macsec link on @dev whose SCI is taken
 * @rt: rtnetlink
 * @dev: the lower netdev the new link goes on, for the messages
 * @sci: the SCI the new link would send with
 *
 * Keys depend on the SCI, not on the netdev: two links with one SCI share
 * every SAK. Separating them would need the SCI port or the netdev in the
 * derivation, which every node of the cluster must then agree on: refused
 * instead.
 *
 * Return: EW_OK, or EW_FAIL after a message.
 */
int ew_path_sci_unique(struct nl_sock *rt, const char *dev, const uint8_t sci[8])
{
	char sbuf[24], lower[IF_NAMESIZE];
	struct ew_link_info li;
	bool found;
	int err;

	err = ew_link_macsec_sci(rt, sci, &li, &found);
	if (err) {
		ew_err("path add: cannot list links: %s", ew_nlerr(err));
		return EW_FAIL;
	}
	if (!found)
		return EW_OK;
	if (!li.lower || !if_indextoname((unsigned int)li.lower, lower))
		snprintf(lower, sizeof(lower), "?");
	ew_err("path add: dev %s: its macsec link would send with sci %s, which eastwest's macsec link %s (on %s) sends with already: both would derive the same keys and repeat AES-GCM nonces, and the peers of one would accept frames of the other. One eastwest macsec link per MAC address: give %s its own MAC address, or protect it with IPsec",
	       dev, ew_sci_format(sci, sbuf, sizeof(sbuf)), li.name, lower, dev);
	return EW_FAIL;
}
