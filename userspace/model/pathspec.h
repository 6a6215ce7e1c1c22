/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "eastwestctl path": the command-line grammar, the choice of a protection
 * for "type auto", and the RoCE MTU arithmetic. Pure code (no netlink).
 */
#ifndef EW_PATHSPEC_H
#define EW_PATHSPEC_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ew_path_verb {
	EW_PATH_CAPS,
	EW_PATH_ADD,
	EW_PATH_DEL,
	EW_PATH_SHOW,
	EW_PATH_ROTATE,
	EW_PATH_CHECK,
	EW_PATH_PHYSICAL,
};

enum ew_path_type {
	EW_PT_AUTO,
	EW_PT_MACSEC,
	EW_PT_IPSEC,
	EW_PT_PHYSICAL,
};

enum ew_path_cipher {
	EW_CIPHER_GCM_AES_256,
	EW_CIPHER_GCM_AES_XPN_256,
};

enum ew_path_offload {
	EW_OFL_AUTO,
	EW_OFL_OFF,
	EW_OFL_MAC,	/* MACsec in the NIC's MAC */
	EW_OFL_PHY,	/* MACsec in the PHY */
	EW_OFL_CRYPTO,	/* ESP crypto offload */
	EW_OFL_PACKET,	/* ESP packet (full) offload, 6.2+ */
};

enum ew_rotate_stage {
	EW_STAGE_ALL,
	EW_STAGE_RX,
	EW_STAGE_TX,
	EW_STAGE_RETIRE,
};

#define EW_REPLAY_WINDOW_DEFAULT 128
#define EW_REPLAY_WINDOW_MAX	4096	/* ESN bitmap: 128 words */

struct ew_path_peer {
	uint8_t addr[16];	/* IPv4 as ::ffff:a.b.c.d */
	bool has_mac;
	uint8_t mac[6];
};

struct ew_path_spec {
	uint32_t verb;			/* enum ew_path_verb */
	char dev[IF_NAMESIZE];		/* netdev; RDMA device for check */
	char rdma_dev[64];
	uint32_t type;			/* enum ew_path_type */
	uint32_t cipher;		/* enum ew_path_cipher */
	uint32_t offload;		/* enum ew_path_offload */
	char name[IF_NAMESIZE];		/* macsec netdev; "" = default */
	char rxe_name[64];		/* soft-RoCE on it; "" = default */
	uint32_t epoch;
	bool has_epoch;
	bool has_local;
	uint8_t local[16];
	uint8_t local_plen;		/* IPv6 bits (IPv4: 96 + LEN) */
	bool local_has_plen;
	uint32_t replay_window;
	struct ew_path_peer *peers;
	size_t n_peers, cap_peers;
	const char *key_file;		/* points into argv */
	const char *job;		/* one job's IPsec (points into argv); NULL: the node's */
	const char *run;		/* the job's run (points into argv) */
	uint32_t stage;			/* enum ew_rotate_stage */
	bool physical;			/* "physical dev X on|off" */
	uint32_t port;
	uint32_t sgid_index;
	bool has_sgid_index;
	uint8_t dst[16];
	bool has_dst;
};

extern const char *const ew_path_type_names[4];
extern const char *const ew_path_cipher_names[2];
extern const char *const ew_path_offload_names[6];
extern const char *const ew_rotate_stage_names[4];

int ew_pathspec_parse(uint32_t verb, int argc, char *argv[], struct ew_path_spec *spec);
void ew_pathspec_free(struct ew_path_spec *spec);
int ew_mac_parse(const char *s, uint8_t mac[6]);
char *ew_mac_format(const uint8_t mac[6], char *buf, size_t len);
char *ew_default_macsec_name(const char *lower, char *buf, size_t len);

/* What a netdev offers, for "type auto" and for checking explicit choices. */
struct ew_path_caps {
	bool known;		/* the kernel reported the offload caps */
	bool physical;		/* declared a dedicated fabric */
	bool macsec_offload;	/* EASTWEST_OFFLOAD_CAPS_MACSEC */
	bool esp_crypto;	/* EASTWEST_OFFLOAD_CAPS_ESP_CRYPTO */
	bool esp_packet;	/* EASTWEST_OFFLOAD_CAPS_ESP_PACKET */
	bool kernel_esp_packet;	/* kernel >= 6.2 */
};

struct ew_path_choice {
	uint32_t type;		/* enum ew_path_type */
	uint32_t offload;	/* EW_OFL_OFF, _MAC, _PHY, _CRYPTO, _PACKET */
	bool software;		/* no offload: warn */
	char reason[256];
};

void ew_path_choose(const struct ew_path_caps *caps, struct ew_path_choice *out);
int ew_path_resolve(uint32_t type, uint32_t offload, const struct ew_path_caps *caps,
		    struct ew_path_choice *out, char *why, size_t why_len);
bool ew_kernel_at_least(const char *release, unsigned int major, unsigned int minor);

/* Bytes a protection adds to each frame or packet. */
#define EW_MACSEC_OVERHEAD	32	/* SecTAG with SCI 16 + ICV 16 */
#define EW_ESP_OVERHEAD		37	/* ESP 8 + IV 8 + pad/trailer <= 5 + ICV 16 */

unsigned int ew_roce_mtu(unsigned int link_mtu, unsigned int overhead, bool ipv6);

/* What "path rotate ... stage tx" does on a MACsec link. */
enum ew_macsec_tx {
	EW_MACSEC_TX_INSTALL,	/* add the TX SA, then send with it */
	EW_MACSEC_TX_SWITCH,	/* the SA of this key is there: send with it */
	EW_MACSEC_TX_DONE,	/* already sends with this key: nothing to do */
	EW_MACSEC_TX_OTHER_KEY,	/* the AN holds another key: refuse */
	EW_MACSEC_TX_NO_KI,	/* the AN holds a key the kernel does not name: refuse */
};

#define EW_MACSEC_KI_BYTES 16

enum ew_macsec_tx ew_macsec_tx_stage(bool present, const uint8_t *have_ki,
				     uint8_t encoding_an, uint8_t an,
				     const uint8_t want_ki[EW_MACSEC_KI_BYTES]);

#endif /* EW_PATHSPEC_H */
