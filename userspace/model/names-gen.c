// SPDX-License-Identifier: GPL-2.0
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/eastwest.yaml */
/* by scripts/ynl-gen-eastwest.py (enum and counter names) */

#include <stddef.h>

#include "model/names-gen.h"
#include "model/parse.h"

#define EW_NG_NAMES(a) { a, sizeof(a) / sizeof((a)[0]) }

static const char *const mode_names[] = {
	[EASTWEST_MODE_ENFORCE] = "enforce",
	[EASTWEST_MODE_AUDIT] = "audit",
};

static const char *const default_action_names[] = {
	[EASTWEST_DEFAULT_ACTION_DENY] = "deny",
	[EASTWEST_DEFAULT_ACTION_ALLOW] = "allow",
};

static const char *const encrypt_names[] = {
	[EASTWEST_ENCRYPT_NONE] = "none",
	[EASTWEST_ENCRYPT_ANY] = "any",
	[EASTWEST_ENCRYPT_MACSEC] = "macsec",
	[EASTWEST_ENCRYPT_IPSEC] = "ipsec",
};

static const char *const psn_names[] = {
	[EASTWEST_PSN_APP] = "app",
	[EASTWEST_PSN_KEYED] = "keyed",
};

static const char *const reason_names[] = {
	[EASTWEST_REASON_NO_JOB] = "no-job",
	[EASTWEST_REASON_PEER] = "peer",
	[EASTWEST_REASON_SRC_NETDEV] = "src-netdev",
	[EASTWEST_REASON_PKEY] = "pkey",
	[EASTWEST_REASON_QKEY] = "qkey",
	[EASTWEST_REASON_QP_TYPE] = "qp-type",
	[EASTWEST_REASON_UNPROTECTED_PATH] = "unprotected-path",
	[EASTWEST_REASON_NOT_ADMITTED] = "not-admitted",
	[EASTWEST_REASON_INTERNAL] = "internal",
	[EASTWEST_REASON_DEVX] = "devx",
	[EASTWEST_REASON_QP_STATE] = "qp-state",
	[EASTWEST_REASON_REVOKED] = "revoked",
	[EASTWEST_REASON_QP_OWNER] = "qp-owner",
	[EASTWEST_REASON_FOREIGN_QP] = "foreign-qp",
	[EASTWEST_REASON_IWARP] = "iwarp",
	[EASTWEST_REASON_KERNEL_ULP] = "kernel-ulp",
};

static const char *const protection_names[] = {
	[0] = "macsec",
	[1] = "ipsec",
	[2] = "physical",
};

static const char *const macsec_offload_names[] = {
	[EASTWEST_MACSEC_OFFLOAD_OFF] = "off",
	[EASTWEST_MACSEC_OFFLOAD_PHY] = "phy",
	[EASTWEST_MACSEC_OFFLOAD_MAC] = "mac",
};

static const char *const offload_caps_names[] = {
	[0] = "macsec",
	[1] = "esp-crypto",
	[2] = "esp-packet",
};

static const char *const admission_names[] = {
	[EASTWEST_ADMISSION_UNATTESTED] = "unattested",
	[EASTWEST_ADMISSION_ADMITTED] = "admitted",
	[EASTWEST_ADMISSION_REVOKED] = "revoked",
};

static const char *const link_layer_names[] = {
	[EASTWEST_LINK_LAYER_UNSPECIFIED] = "unspecified",
	[EASTWEST_LINK_LAYER_INFINIBAND] = "infiniband",
	[EASTWEST_LINK_LAYER_ETHERNET] = "ethernet",
};

static const char *const qpn_order_names[] = {
	[EASTWEST_QPN_ORDER_PROVIDER] = "provider",
	[EASTWEST_QPN_ORDER_SEQUENTIAL] = "sequential",
	[EASTWEST_QPN_ORDER_RANDOM] = "random",
};

static const char *const gid_type_names[] = {
	[EASTWEST_GID_TYPE_IB] = "ib",
	[EASTWEST_GID_TYPE_ROCE_V1] = "roce-v1",
	[EASTWEST_GID_TYPE_ROCE_V2] = "roce-v2",
};

static const char *const op_names[] = {
	[EASTWEST_OP_MODIFY_QP] = "modify-qp",
	[EASTWEST_OP_CREATE_AH] = "create-ah",
	[EASTWEST_OP_CREATE_QP] = "create-qp",
	[EASTWEST_OP_DEVX_CONTEXT] = "devx-context",
	[EASTWEST_OP_REVOKE] = "revoke",
	[EASTWEST_OP_ATTACH_MCAST] = "attach-mcast",
	[EASTWEST_OP_CM_MESSAGE] = "cm-message",
	[EASTWEST_OP_CM_LISTEN] = "cm-listen",
	[EASTWEST_OP_CM_REQUEST] = "cm-request",
	[EASTWEST_OP_ULP_BIND] = "ulp-bind",
};

const struct ew_names ew_mode_names = EW_NG_NAMES(mode_names);
const struct ew_names ew_default_action_names = EW_NG_NAMES(default_action_names);
const struct ew_names ew_encrypt_names = EW_NG_NAMES(encrypt_names);
const struct ew_names ew_psn_names = EW_NG_NAMES(psn_names);
const struct ew_names ew_reason_names = EW_NG_NAMES(reason_names);
const struct ew_names ew_protection_names = EW_NG_NAMES(protection_names);
const struct ew_names ew_macsec_offload_names = EW_NG_NAMES(macsec_offload_names);
const struct ew_names ew_offload_caps_names = EW_NG_NAMES(offload_caps_names);
const struct ew_names ew_admission_names = EW_NG_NAMES(admission_names);
const struct ew_names ew_link_layer_names = EW_NG_NAMES(link_layer_names);
const struct ew_names ew_qpn_order_names = EW_NG_NAMES(qpn_order_names);
const struct ew_names ew_gid_type_names = EW_NG_NAMES(gid_type_names);
const struct ew_names ew_op_names = EW_NG_NAMES(op_names);

const char *const ew_counter_names[EASTWEST_A_COUNTERS_MAX + 1] = {
	[EASTWEST_A_COUNTERS_ALLOWED] = "allowed",
	[EASTWEST_A_COUNTERS_AUDITED] = "audited",
	[EASTWEST_A_COUNTERS_DENIED] = "denied",
	[EASTWEST_A_COUNTERS_DENIED_NO_JOB] = "denied_no_job",
	[EASTWEST_A_COUNTERS_DENIED_PEER] = "denied_peer",
	[EASTWEST_A_COUNTERS_DENIED_SRC_NETDEV] = "denied_src_netdev",
	[EASTWEST_A_COUNTERS_DENIED_PKEY] = "denied_pkey",
	[EASTWEST_A_COUNTERS_DENIED_QKEY] = "denied_qkey",
	[EASTWEST_A_COUNTERS_DENIED_QP_TYPE] = "denied_qp_type",
	[EASTWEST_A_COUNTERS_DENIED_UNPROTECTED_PATH] = "denied_unprotected_path",
	[EASTWEST_A_COUNTERS_DENIED_NOT_ADMITTED] = "denied_not_admitted",
	[EASTWEST_A_COUNTERS_DENIED_INTERNAL] = "denied_internal",
	[EASTWEST_A_COUNTERS_PSN_ZERO] = "psn_zero",
	[EASTWEST_A_COUNTERS_DENIED_DEVX] = "denied_devx",
	[EASTWEST_A_COUNTERS_DENIED_QP_STATE] = "denied_qp_state",
	[EASTWEST_A_COUNTERS_DENIED_REVOKED] = "denied_revoked",
	[EASTWEST_A_COUNTERS_DENIED_QP_OWNER] = "denied_qp_owner",
	[EASTWEST_A_COUNTERS_DENIED_FOREIGN_QP] = "denied_foreign_qp",
	[EASTWEST_A_COUNTERS_DENIED_IWARP] = "denied_iwarp",
	[EASTWEST_A_COUNTERS_DENIED_KERNEL_ULP] = "denied_kernel_ulp",
	[EASTWEST_A_COUNTERS_EVENTS_DROPPED] = "events_dropped",
};

const uint16_t ew_reason_counter[EASTWEST_REASON_MAX + 1] = {
	[EASTWEST_REASON_NO_JOB] = EASTWEST_A_COUNTERS_DENIED_NO_JOB,
	[EASTWEST_REASON_PEER] = EASTWEST_A_COUNTERS_DENIED_PEER,
	[EASTWEST_REASON_SRC_NETDEV] = EASTWEST_A_COUNTERS_DENIED_SRC_NETDEV,
	[EASTWEST_REASON_PKEY] = EASTWEST_A_COUNTERS_DENIED_PKEY,
	[EASTWEST_REASON_QKEY] = EASTWEST_A_COUNTERS_DENIED_QKEY,
	[EASTWEST_REASON_QP_TYPE] = EASTWEST_A_COUNTERS_DENIED_QP_TYPE,
	[EASTWEST_REASON_UNPROTECTED_PATH] = EASTWEST_A_COUNTERS_DENIED_UNPROTECTED_PATH,
	[EASTWEST_REASON_NOT_ADMITTED] = EASTWEST_A_COUNTERS_DENIED_NOT_ADMITTED,
	[EASTWEST_REASON_INTERNAL] = EASTWEST_A_COUNTERS_DENIED_INTERNAL,
	[EASTWEST_REASON_DEVX] = EASTWEST_A_COUNTERS_DENIED_DEVX,
	[EASTWEST_REASON_QP_STATE] = EASTWEST_A_COUNTERS_DENIED_QP_STATE,
	[EASTWEST_REASON_REVOKED] = EASTWEST_A_COUNTERS_DENIED_REVOKED,
	[EASTWEST_REASON_QP_OWNER] = EASTWEST_A_COUNTERS_DENIED_QP_OWNER,
	[EASTWEST_REASON_FOREIGN_QP] = EASTWEST_A_COUNTERS_DENIED_FOREIGN_QP,
	[EASTWEST_REASON_IWARP] = EASTWEST_A_COUNTERS_DENIED_IWARP,
	[EASTWEST_REASON_KERNEL_ULP] = EASTWEST_A_COUNTERS_DENIED_KERNEL_ULP,
};
