/* SPDX-License-Identifier: GPL-2.0 */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/eastwest.yaml */
/* by scripts/ynl-gen-eastwest.py (enum and counter names) */

#ifndef EW_NAMES_GEN_H
#define EW_NAMES_GEN_H

#include <stdint.h>

#include <linux/eastwest.h>

struct ew_names;

extern const struct ew_names ew_mode_names;
extern const struct ew_names ew_default_action_names;
extern const struct ew_names ew_encrypt_names;
extern const struct ew_names ew_psn_names;
extern const struct ew_names ew_reason_names;
extern const struct ew_names ew_protection_names;	/* flags, by bit */
extern const struct ew_names ew_macsec_offload_names;
extern const struct ew_names ew_offload_caps_names;	/* flags, by bit */
extern const struct ew_names ew_admission_names;
extern const struct ew_names ew_link_layer_names;
extern const struct ew_names ew_qpn_order_names;
extern const struct ew_names ew_gid_type_names;
extern const struct ew_names ew_op_names;

/* Name of each counters attribute (NULL for pad), '-' written '_'. */
extern const char *const ew_counter_names[EASTWEST_A_COUNTERS_MAX + 1];

/* The counters attribute that counts refusals of each reason. */
extern const uint16_t ew_reason_counter[EASTWEST_REASON_MAX + 1];

#endif /* EW_NAMES_GEN_H */
