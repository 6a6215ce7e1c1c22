/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/eastwest.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_EASTWEST_H
#define _UAPI_LINUX_EASTWEST_H

#define EASTWEST_FAMILY_NAME	"eastwest"
#define EASTWEST_FAMILY_VERSION	1

#define EASTWEST_JOB_NAME_MAX		64
#define EASTWEST_JOB_NAME_LEN		63
#define EASTWEST_PSN_RUN_LEN		64
#define EASTWEST_CGROUP_PATH_MAX	4096
#define EASTWEST_PEER_REC_LEN		20

/**
 * enum eastwest_mode - What the module does with a policy violation.
 * @EASTWEST_MODE_ENFORCE: Refuse the operation with -EACCES (and report it).
 * @EASTWEST_MODE_AUDIT: Allow the operation, count and report what enforce
 *   would refuse.
 */
enum eastwest_mode {
	EASTWEST_MODE_ENFORCE,
	EASTWEST_MODE_AUDIT,
};

/**
 * enum eastwest_default_action - Verdict for processes that belong to no job.
 */
enum eastwest_default_action {
	EASTWEST_DEFAULT_ACTION_DENY,
	EASTWEST_DEFAULT_ACTION_ALLOW,
};

/**
 * enum eastwest_encrypt - Path protection a job requires for its connections.
 */
enum eastwest_encrypt {
	EASTWEST_ENCRYPT_NONE,
	EASTWEST_ENCRYPT_ANY,
	EASTWEST_ENCRYPT_MACSEC,
	EASTWEST_ENCRYPT_IPSEC,
};

/**
 * enum eastwest_psn - Who chooses the packet sequence numbers of a job's
 *   connections.
 * @EASTWEST_PSN_APP: The application's PSNs are used as they are.
 * @EASTWEST_PSN_KEYED: eastwest sets both PSNs of every RC, UC and XRC
 *   connection of the job to a keyed hash (SipHash-2-4 under the job's
 *   psn-key) of the sending GID and QPN and the receiving GID and QPN, so that
 *   both ends agree without the application's help and PSN 0 (NCCL, UCX) tells
 *   an attacker nothing.
 */
enum eastwest_psn {
	EASTWEST_PSN_APP,
	EASTWEST_PSN_KEYED,
};

/**
 * enum eastwest_reason - Why an operation was (or, in audit mode, would have
 *   been) refused.
 * @EASTWEST_REASON_NO_JOB: The caller belongs to no job and the default action
 *   is deny.
 * @EASTWEST_REASON_PEER: The destination GID or LID is not among the job's
 *   peers.
 * @EASTWEST_REASON_SRC_NETDEV: The source GID's netdev (ifindex, VLAN or VRF)
 *   is not the job's.
 * @EASTWEST_REASON_PKEY: The P_Key behind the pkey index is not one of the
 *   job's.
 * @EASTWEST_REASON_QKEY: The Q_Key is not the job's Q_Key, or is privileged.
 * @EASTWEST_REASON_QP_TYPE: The QP type is refused: raw packet, or a UD or
 *   driver (mlx5 DC) QP of a job without the ud or dc setting (their
 *   destinations can bypass the kernel, see the job's ud attribute).
 * @EASTWEST_REASON_UNPROTECTED_PATH: The path does not have the protection the
 *   job requires.
 * @EASTWEST_REASON_NOT_ADMITTED: The node is not admitted to the fabric.
 * @EASTWEST_REASON_INTERNAL: The request could not be evaluated (e.g. GID
 *   entry vanished).
 * @EASTWEST_REASON_DEVX: A DEVX user context (mlx5: raw firmware commands that
 *   bypass the verbs control path) was refused.
 * @EASTWEST_REASON_QP_STATE: The modify names the QP's current state
 *   (IB_QP_CUR_STATE), or moves it along a path the QP state machine does not
 *   have from the state eastwest recorded (a live state without a judged
 *   INIT).
 * @EASTWEST_REASON_REVOKED: The QP was revoked: it may only go to RESET or be
 *   destroyed.
 * @EASTWEST_REASON_QP_OWNER: The QP is tracked for another job (or the caller
 *   is in no job): a QP answers to the job that configured it.
 * @EASTWEST_REASON_FOREIGN_QP: The destination is a GID of this node and the
 *   destination QP is not one of the caller's job's (or a UD address handle
 *   aims at this node, where it could reach any job's QP).
 * @EASTWEST_REASON_IWARP: A QP on an iWARP device: the core's iWARP connection
 *   manager connects it from a QP number alone (rdma_connect, rdma_accept) and
 *   the device moves it to RTS itself, past every modify eastwest judges.
 * @EASTWEST_REASON_KERNEL_ULP: A kernel protocol over RDMA that a process
 *   asked for (RDS over InfiniBand or RoCE: an AF_RDS socket bound on its
 *   transport): the kernel connects its own QPs to whatever address the
 *   process sends to, past every rule of the process's job.
 */
enum eastwest_reason {
	EASTWEST_REASON_NO_JOB = 1,
	EASTWEST_REASON_PEER,
	EASTWEST_REASON_SRC_NETDEV,
	EASTWEST_REASON_PKEY,
	EASTWEST_REASON_QKEY,
	EASTWEST_REASON_QP_TYPE,
	EASTWEST_REASON_UNPROTECTED_PATH,
	EASTWEST_REASON_NOT_ADMITTED,
	EASTWEST_REASON_INTERNAL,
	EASTWEST_REASON_DEVX,
	EASTWEST_REASON_QP_STATE,
	EASTWEST_REASON_REVOKED,
	EASTWEST_REASON_QP_OWNER,
	EASTWEST_REASON_FOREIGN_QP,
	EASTWEST_REASON_IWARP,
	EASTWEST_REASON_KERNEL_ULP,

	/* private: */
	__EASTWEST_REASON_MAX,
	EASTWEST_REASON_MAX = (__EASTWEST_REASON_MAX - 1)
};

/**
 * enum eastwest_protection - What protects the traffic of a path (or of a
 *   GID's netdev).
 * @EASTWEST_PROTECTION_MACSEC: An encrypting MACsec netdev (encrypt and
 *   protect on) is the GID's netdev or one of its lower devices.
 * @EASTWEST_PROTECTION_IPSEC: The route the RDMA provider takes to the
 *   destination (UDP, no ports) carries an ESP transform that encrypts.
 * @EASTWEST_PROTECTION_PHYSICAL: The operator declared the netdev a dedicated
 *   (physically isolated) fabric.
 */
enum eastwest_protection {
	EASTWEST_PROTECTION_MACSEC = 1,
	EASTWEST_PROTECTION_IPSEC = 2,
	EASTWEST_PROTECTION_PHYSICAL = 4,
};

/**
 * enum eastwest_macsec_offload - Where a MACsec netdev does its cryptography.
 */
enum eastwest_macsec_offload {
	EASTWEST_MACSEC_OFFLOAD_OFF,
	EASTWEST_MACSEC_OFFLOAD_PHY,
	EASTWEST_MACSEC_OFFLOAD_MAC,
};

/**
 * enum eastwest_offload_caps - Crypto offloads the real (lowest) netdev under
 *   a GID offers.
 * @EASTWEST_OFFLOAD_CAPS_MACSEC: MACsec offload (NETIF_F_HW_MACSEC and the
 *   driver's macsec ops).
 * @EASTWEST_OFFLOAD_CAPS_ESP_CRYPTO: ESP crypto offload (NETIF_F_HW_ESP and
 *   the driver's xfrmdev ops).
 * @EASTWEST_OFFLOAD_CAPS_ESP_PACKET: ESP packet (full) offload; needs a 6.2 or
 *   later kernel.
 */
enum eastwest_offload_caps {
	EASTWEST_OFFLOAD_CAPS_MACSEC = 1,
	EASTWEST_OFFLOAD_CAPS_ESP_CRYPTO = 2,
	EASTWEST_OFFLOAD_CAPS_ESP_PACKET = 4,
};

/**
 * enum eastwest_admission - Whether a node is admitted to the fabric by
 *   attestation (this node: set by the attestation service from the verifier's
 *   verdict; other nodes: pushed by the orchestrator).
 * @EASTWEST_ADMISSION_UNATTESTED: Not attested since the module loaded.
 * @EASTWEST_ADMISSION_ADMITTED: A verifier admitted the node.
 * @EASTWEST_ADMISSION_REVOKED: Admission was withdrawn (e.g. a failed
 *   re-attestation).
 */
enum eastwest_admission {
	EASTWEST_ADMISSION_UNATTESTED,
	EASTWEST_ADMISSION_ADMITTED,
	EASTWEST_ADMISSION_REVOKED,
};

enum eastwest_link_layer {
	EASTWEST_LINK_LAYER_UNSPECIFIED,
	EASTWEST_LINK_LAYER_INFINIBAND,
	EASTWEST_LINK_LAYER_ETHERNET,
};

/**
 * enum eastwest_qpn_order - How a device's QP numbers are chosen. provider: by
 *   the device or its firmware (hardware RDMA), not by eastwest; sequential:
 *   soft-RoCE's own order, each QPN one past the previous (predictable),
 *   because the module could not arm its randomisation; random: soft-RoCE QPNs
 *   drawn at random from the device's QPN range by the module.
 */
enum eastwest_qpn_order {
	EASTWEST_QPN_ORDER_PROVIDER,
	EASTWEST_QPN_ORDER_SEQUENTIAL,
	EASTWEST_QPN_ORDER_RANDOM,
};

enum eastwest_gid_type {
	EASTWEST_GID_TYPE_IB,
	EASTWEST_GID_TYPE_ROCE_V1,
	EASTWEST_GID_TYPE_ROCE_V2,
};

/**
 * enum eastwest_op - The control-path operation that was checked; revoke: the
 *   module moved a live QP to the error state because its policy no longer
 *   allows it; attach-mcast: a user QP joining a multicast group (its GID is
 *   judged as a destination); cm-message: a connection manager message that a
 *   process sends through rdma_cm (connect, accept or reject, with its private
 *   data; the route's destination is judged); cm-listen: an rdma_cm listener a
 *   process makes (one on an AF_IB address would take the requests of every
 *   address on its port: refused); cm-request: a connect request that reached
 *   a process's listener (the listener's job must be allowed the request's
 *   source before the process sees it); ulp-bind: a process binding a socket
 *   of a kernel protocol over RDMA (RDS) on its RDMA transport.
 */
enum eastwest_op {
	EASTWEST_OP_MODIFY_QP = 1,
	EASTWEST_OP_CREATE_AH,
	EASTWEST_OP_CREATE_QP,
	EASTWEST_OP_DEVX_CONTEXT,
	EASTWEST_OP_REVOKE,
	EASTWEST_OP_ATTACH_MCAST,
	EASTWEST_OP_CM_MESSAGE,
	EASTWEST_OP_CM_LISTEN,
	EASTWEST_OP_CM_REQUEST,
	EASTWEST_OP_ULP_BIND,
};

enum {
	EASTWEST_A_PEER_ADDR = 1,
	EASTWEST_A_PEER_PREFIX_LEN,
	EASTWEST_A_PEER_LID,

	__EASTWEST_A_PEER_MAX,
	EASTWEST_A_PEER_MAX = (__EASTWEST_A_PEER_MAX - 1)
};

enum {
	EASTWEST_A_NETDEV_IFINDEX = 1,
	EASTWEST_A_NETDEV_VLAN,
	EASTWEST_A_NETDEV_VRF,

	__EASTWEST_A_NETDEV_MAX,
	EASTWEST_A_NETDEV_MAX = (__EASTWEST_A_NETDEV_MAX - 1)
};

enum {
	EASTWEST_A_CGROUP_PATH = 1,
	EASTWEST_A_CGROUP_ID,
	EASTWEST_A_CGROUP_PAD,

	__EASTWEST_A_CGROUP_MAX,
	EASTWEST_A_CGROUP_MAX = (__EASTWEST_A_CGROUP_MAX - 1)
};

enum {
	EASTWEST_A_COUNTERS_PAD = 1,
	EASTWEST_A_COUNTERS_ALLOWED,
	EASTWEST_A_COUNTERS_AUDITED,
	EASTWEST_A_COUNTERS_DENIED,
	EASTWEST_A_COUNTERS_DENIED_NO_JOB,
	EASTWEST_A_COUNTERS_DENIED_PEER,
	EASTWEST_A_COUNTERS_DENIED_SRC_NETDEV,
	EASTWEST_A_COUNTERS_DENIED_PKEY,
	EASTWEST_A_COUNTERS_DENIED_QKEY,
	EASTWEST_A_COUNTERS_DENIED_QP_TYPE,
	EASTWEST_A_COUNTERS_DENIED_UNPROTECTED_PATH,
	EASTWEST_A_COUNTERS_DENIED_NOT_ADMITTED,
	EASTWEST_A_COUNTERS_DENIED_INTERNAL,
	EASTWEST_A_COUNTERS_PSN_ZERO,
	EASTWEST_A_COUNTERS_DENIED_DEVX,
	EASTWEST_A_COUNTERS_DENIED_QP_STATE,
	EASTWEST_A_COUNTERS_DENIED_REVOKED,
	EASTWEST_A_COUNTERS_DENIED_QP_OWNER,
	EASTWEST_A_COUNTERS_DENIED_FOREIGN_QP,
	EASTWEST_A_COUNTERS_DENIED_IWARP,
	EASTWEST_A_COUNTERS_DENIED_KERNEL_ULP,
	EASTWEST_A_COUNTERS_EVENTS_DROPPED,

	__EASTWEST_A_COUNTERS_MAX,
	EASTWEST_A_COUNTERS_MAX = (__EASTWEST_A_COUNTERS_MAX - 1)
};

enum {
	EASTWEST_A_JOB_ID = 1,
	EASTWEST_A_JOB_NAME,
	EASTWEST_A_JOB_MODE,
	EASTWEST_A_JOB_ENCRYPT,
	EASTWEST_A_JOB_QKEY,
	EASTWEST_A_JOB_CGROUP,
	EASTWEST_A_JOB_PEER,
	EASTWEST_A_JOB_NETDEV,
	EASTWEST_A_JOB_PKEY,
	EASTWEST_A_JOB_PEER_COUNT,
	EASTWEST_A_JOB_QP_COUNT,
	EASTWEST_A_JOB_COUNTERS,
	EASTWEST_A_JOB_UD,
	EASTWEST_A_JOB_DC,
	EASTWEST_A_JOB_PSN,
	EASTWEST_A_JOB_PSN_KEY,
	EASTWEST_A_JOB_PEER_RECS,
	EASTWEST_A_JOB_PSN_RUN,
	EASTWEST_A_JOB_PSN_KEY_CHECK,

	__EASTWEST_A_JOB_MAX,
	EASTWEST_A_JOB_MAX = (__EASTWEST_A_JOB_MAX - 1)
};

enum {
	EASTWEST_A_DEV_INDEX = 1,
	EASTWEST_A_DEV_NAME,
	EASTWEST_A_DEV_PORT,
	EASTWEST_A_DEV_QPN_OBSERVED,
	EASTWEST_A_DEV_QPN_SEQUENTIAL,
	EASTWEST_A_DEV_QPN_ORDER,

	__EASTWEST_A_DEV_MAX,
	EASTWEST_A_DEV_MAX = (__EASTWEST_A_DEV_MAX - 1)
};

enum {
	EASTWEST_A_PORT_NUM = 1,
	EASTWEST_A_PORT_LINK_LAYER,
	EASTWEST_A_PORT_GID,
	EASTWEST_A_PORT_PKEY,

	__EASTWEST_A_PORT_MAX,
	EASTWEST_A_PORT_MAX = (__EASTWEST_A_PORT_MAX - 1)
};

enum {
	EASTWEST_A_GID_INDEX = 1,
	EASTWEST_A_GID_GID,
	EASTWEST_A_GID_TYPE,
	EASTWEST_A_GID_IFINDEX,
	EASTWEST_A_GID_IFNAME,
	EASTWEST_A_GID_VLAN,
	EASTWEST_A_GID_VRF,
	EASTWEST_A_GID_PROTECTION,
	EASTWEST_A_GID_MACSEC_IFINDEX,
	EASTWEST_A_GID_MACSEC_OFFLOAD,
	EASTWEST_A_GID_OFFLOAD_CAPS,
	EASTWEST_A_GID_MTU,

	__EASTWEST_A_GID_MAX,
	EASTWEST_A_GID_MAX = (__EASTWEST_A_GID_MAX - 1)
};

enum {
	EASTWEST_A_PATH_DEV_INDEX = 1,
	EASTWEST_A_PATH_DEV_NAME,
	EASTWEST_A_PATH_PORT,
	EASTWEST_A_PATH_SGID_INDEX,
	EASTWEST_A_PATH_DGID,
	EASTWEST_A_PATH_PROTECTION,
	EASTWEST_A_PATH_IFINDEX,
	EASTWEST_A_PATH_MACSEC_IFINDEX,
	EASTWEST_A_PATH_MACSEC_OFFLOAD,
	EASTWEST_A_PATH_IPSEC_SPI,

	__EASTWEST_A_PATH_MAX,
	EASTWEST_A_PATH_MAX = (__EASTWEST_A_PATH_MAX - 1)
};

enum {
	EASTWEST_A_FABRIC_IFINDEX = 1,
	EASTWEST_A_FABRIC_PHYSICAL,

	__EASTWEST_A_FABRIC_MAX,
	EASTWEST_A_FABRIC_MAX = (__EASTWEST_A_FABRIC_MAX - 1)
};

enum {
	EASTWEST_A_NODE_ADDR = 1,
	EASTWEST_A_NODE_ADMISSION,

	__EASTWEST_A_NODE_MAX,
	EASTWEST_A_NODE_MAX = (__EASTWEST_A_NODE_MAX - 1)
};

enum {
	EASTWEST_A_CONFIG_MODE = 1,
	EASTWEST_A_CONFIG_DEFAULT_ACTION,
	EASTWEST_A_CONFIG_VERSION,
	EASTWEST_A_CONFIG_JOB_COUNT,
	EASTWEST_A_CONFIG_PEER_COUNT,
	EASTWEST_A_CONFIG_COUNTERS,
	EASTWEST_A_CONFIG_PHYSICAL_IFINDEX,
	EASTWEST_A_CONFIG_ADMISSION,
	EASTWEST_A_CONFIG_ADMISSION_REQUIRED,
	EASTWEST_A_CONFIG_REVOKED_NODE,
	EASTWEST_A_CONFIG_ADMISSION_TTL,

	__EASTWEST_A_CONFIG_MAX,
	EASTWEST_A_CONFIG_MAX = (__EASTWEST_A_CONFIG_MAX - 1)
};

enum {
	EASTWEST_A_EVENT_PAD = 1,
	EASTWEST_A_EVENT_OP,
	EASTWEST_A_EVENT_REASON,
	EASTWEST_A_EVENT_MODE,
	EASTWEST_A_EVENT_JOB_ID,
	EASTWEST_A_EVENT_PID,
	EASTWEST_A_EVENT_COMM,
	EASTWEST_A_EVENT_CGROUP_ID,
	EASTWEST_A_EVENT_DEV_NAME,
	EASTWEST_A_EVENT_PORT,
	EASTWEST_A_EVENT_QPN,
	EASTWEST_A_EVENT_DEST_GID,
	EASTWEST_A_EVENT_DEST_LID,
	EASTWEST_A_EVENT_DEST_QPN,
	EASTWEST_A_EVENT_UID,

	__EASTWEST_A_EVENT_MAX,
	EASTWEST_A_EVENT_MAX = (__EASTWEST_A_EVENT_MAX - 1)
};

enum {
	EASTWEST_A_PEER_LIST_JOB_ID = 1,
	EASTWEST_A_PEER_LIST_PEER,
	EASTWEST_A_PEER_LIST_PEER_RECS,

	__EASTWEST_A_PEER_LIST_MAX,
	EASTWEST_A_PEER_LIST_MAX = (__EASTWEST_A_PEER_LIST_MAX - 1)
};

enum {
	EASTWEST_CMD_JOB_GET = 1,
	EASTWEST_CMD_JOB_NEW,
	EASTWEST_CMD_JOB_SET,
	EASTWEST_CMD_JOB_DEL,
	EASTWEST_CMD_PEER_ADD,
	EASTWEST_CMD_PEER_DEL,
	EASTWEST_CMD_PEER_GET,
	EASTWEST_CMD_DEV_GET,
	EASTWEST_CMD_CONFIG_GET,
	EASTWEST_CMD_CONFIG_SET,
	EASTWEST_CMD_DENY_NTF,
	EASTWEST_CMD_REVOKE_NTF,
	EASTWEST_CMD_DEV_ADD_NTF,
	EASTWEST_CMD_DEV_DEL_NTF,
	EASTWEST_CMD_PATH_GET,
	EASTWEST_CMD_FABRIC_SET,
	EASTWEST_CMD_NODE_SET,
	EASTWEST_CMD_ADMISSION_NTF,

	__EASTWEST_CMD_MAX,
	EASTWEST_CMD_MAX = (__EASTWEST_CMD_MAX - 1)
};

#define EASTWEST_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_EASTWEST_H */
