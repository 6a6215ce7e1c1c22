/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The UEFI (TCG2, crypto agile) event log
 * (/sys/kernel/security/tpm0/binary_bios_measurements): parser, replay
 * into the SHA-256 bank, and the two facts the verifier reads from it --
 * the Secure Boot variables measured into PCR 7 (SecureBoot, and the
 * certificates of the signature database db) and the boot applications
 * (shim, grub, kernel) measured into PCR 4.
 *
 * Format (TCG PC Client Platform Firmware Profile, little endian): one
 * TCG_PCR_EVENT in the SHA-1 layout carrying the "Spec ID Event03"
 * header (the list of digest algorithms and sizes), then TCG_PCR_EVENT2
 * records: u32 pcr, u32 type, u32 digest count, {u16 alg, digest}...,
 * u32 event size, event data.
 */
#ifndef EWA_EVENTLOG_H
#define EWA_EVENTLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcrbank.h"

#define EWA_EV_NO_ACTION			0x00000003
#define EWA_EV_SEPARATOR			0x00000004
#define EWA_EV_S_CRTM_VERSION			0x00000008
#define EWA_EV_IPL				0x0000000d
#define EWA_EV_EFI_VARIABLE_DRIVER_CONFIG	0x80000001
#define EWA_EV_EFI_BOOT_SERVICES_APPLICATION	0x80000003
#define EWA_EV_EFI_ACTION			0x80000007
#define EWA_EV_EFI_VARIABLE_AUTHORITY		0x800000e0

#define EWA_UEFI_MAX_EVENTS	(1U << 16)
#define EWA_UEFI_MAX_EVENT_DATA	(16U << 20)

struct ewa_uefi_event {
	uint32_t pcr;
	uint32_t type;
	uint8_t sha256[EWA_SHA256_LEN];
	const uint8_t *data;	/* points into the log */
	uint32_t data_len;
};

struct ewa_uefi_log {
	struct ewa_uefi_event *v;
	size_t n;
	uint8_t startup_locality;	/* PCR 0 starts at 0..0L (StartupLocality event) */
};

enum ewa_secure_boot {
	EWA_SB_UNKNOWN = -1,	/* no SecureBoot variable measured */
	EWA_SB_OFF = 0,
	EWA_SB_ON = 1,
};

/* The log must outlive @log (events point into it). */
int ewa_uefi_parse(const uint8_t *p, size_t len, struct ewa_uefi_log *log,
		   char *why, size_t whylen);
/* Replays from the reset values: zero, PCR 0 with the startup locality. */
void ewa_uefi_replay(const struct ewa_uefi_log *log, struct ewa_pcrbank *bank);
/*
 * PCR 7 as the firmware measures it: SecureBoot, PK, KEK, db and dbx each
 * at most once, before PCR 7's EV_SEPARATOR; no EV_EFI_VARIABLE_DRIVER_CONFIG
 * after it (root can extend PCR 7 and log such an event itself), and a
 * separator. 0, or -1 and @why: no Secure Boot fact can be read from @log.
 */
int ewa_uefi_sb_config_check(const struct ewa_uefi_log *log, char *why, size_t whylen);
/*
 * The SecureBoot variable measured into PCR 7 before its separator. -1 and
 * @why if ewa_uefi_sb_config_check() refuses the log, or the event data
 * does not hash to its digest (the replay only vouches for digests).
 */
int ewa_uefi_secure_boot(const struct ewa_uefi_log *log, enum ewa_secure_boot *sb,
			 char *why, size_t whylen);
/*
 * The X.509 certificates in the Secure Boot signature database (db, as
 * measured into PCR 7 before its separator): the SHA-256 of each
 * certificate's DER into a new array *@certs of *@n (free() it). *@found
 * is false when the log measures no db. -1 and @why if
 * ewa_uefi_sb_config_check() refuses the log, or the db's data does not
 * hash to its digest or is not a list of EFI_SIGNATURE_LISTs.
 */
int ewa_uefi_db_certs(const struct ewa_uefi_log *log, bool *found,
		      uint8_t (**certs)[EWA_SHA256_LEN], size_t *n, char *why, size_t whylen);
void ewa_uefi_free(struct ewa_uefi_log *log);

#endif /* EWA_EVENTLOG_H */
