/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The node side's building blocks shared by "attest quote" (node.c) and
 * "attest watch" (watch.c): this node's evidence (quote.c) and its
 * admission in the kernel module (kadmit.c).
 */
#ifndef EWA_NODESIDE_H
#define EWA_NODESIDE_H

#include <stdbool.h>

#include "evidence.h"

/* PCRs 0-7 boot chain, 8-9 are in IMA's boot_aggregate, 10 IMA, 14 MokList. */
#define EWA_DEFAULT_PCRS	"0-10,14"

struct ewa_quote_opts {
	const char *tcti;	/* NULL: $EW_TCTI, attest.conf, the device */
	uint32_t pcrs;
	const char *ima_log;	/* NULL: the kernel's; "none": leave out */
	const char *uefi_log;
	const char *root;	/* prefix of /proc, /lib/modules (tests) */
};

/*
 * Evidence for @nonce: 0 with a quote; 1 when there is no usable TPM (@ev
 * then says so, with the reason, and @why has it too); -1 on a TPM error
 * (@why). Free @ev with ewa_evidence_free() in every case.
 */
int ewa_node_evidence(const struct ewa_quote_opts *o, const uint8_t *nonce, size_t nonce_len,
		      struct ewa_evidence *ev, int *attempts, char *why, size_t whylen);

/* eastwestctl attest watch (watch.c). */
int ewa_watch_main(int argc, char *argv[]);

/*
 * This node's admission in the kernel module (config-set admission), in
 * kadmit.c; the tests link their own. -1 with @why when it failed.
 */
int ewa_kernel_set_admission(bool admitted, uint32_t ttl, char *why, size_t whylen);

#endif /* EWA_NODESIDE_H */
