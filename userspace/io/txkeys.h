/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The transmit keys this node has sent with, recorded on disk so that it
 * never sends with one of them again (io/txkeys.c).
 */
#ifndef EW_TXKEYS_H
#define EW_TXKEYS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define EW_STATE_DIR_DEFAULT	"/var/lib/eastwest"
#define EW_STATE_DIR_ENV	"EASTWEST_STATE_DIR"
#define EW_TXKEY_SUBDIR		"tx-keys"
#define EW_TXKEY_ID_LEN		32	/* SHA-256 */

/* What an earlier record says: when, and what the key was for. */
struct ew_txkey_prev {
	time_t since;		/* 0 if the record has no readable time */
	char what[160];
};

const char *ew_state_dir(void);
int ew_txkey_id(const uint8_t *key, size_t len, uint8_t id[EW_TXKEY_ID_LEN]);
int ew_txkey_seen(const uint8_t id[EW_TXKEY_ID_LEN], struct ew_txkey_prev *prev,
		  char *why, size_t why_len);
int ew_txkey_record(const uint8_t id[EW_TXKEY_ID_LEN], const char *what,
		    struct ew_txkey_prev *prev, char *why, size_t why_len);

#endif /* EW_TXKEYS_H */
