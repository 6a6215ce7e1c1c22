// SPDX-License-Identifier: GPL-2.0
/*
 * Grammar of "eastwestctl path", the "auto" chooser and the RoCE MTU.
 *
 *   path caps dev NETDEV
 *   path add dev NETDEV [type {auto|macsec|ipsec|physical}] key-file FILE
 *       [job NAME run ID]
 *       [cipher {gcm-aes-xpn-256|gcm-aes-256}]
 *       [offload {auto|off|mac|phy|crypto|packet}] [name IFNAME] [rxe NAME]
 *       [epoch N] [replay-window N] [local ADDR[/LEN]] peer ADDR [lladdr MAC]...
 *   path del dev NETDEV [job NAME local ADDR]
 *   path show [dev NETDEV]
 *   path rotate dev NETDEV key-file FILE epoch N [stage {rx|tx|retire|all}]
 *       [job NAME run ID local ADDR]
 *   path check dev RDMADEV [port N] sgid-index I dst ADDR
 *   path physical dev NETDEV {on|off}
 *
 * Everything is checked here, before any socket is opened: a parse error
 * is EW_USAGE with one line naming the bad word.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ewctl.h"
#include "io/keys.h"
#include "model/addr.h"
#include "model/parse.h"
#include "model/pathspec.h"

#define HINT "(try \"" EW_PROG " path help\")"

const char *const ew_path_type_names[4] = {
	[EW_PT_AUTO] = "auto",
	[EW_PT_MACSEC] = "macsec",
	[EW_PT_IPSEC] = "ipsec",
	[EW_PT_PHYSICAL] = "physical",
};

const char *const ew_path_cipher_names[2] = {
	[EW_CIPHER_GCM_AES_256] = "gcm-aes-256",
	[EW_CIPHER_GCM_AES_XPN_256] = "gcm-aes-xpn-256",
};

const char *const ew_path_offload_names[6] = {
	[EW_OFL_AUTO] = "auto",
	[EW_OFL_OFF] = "off",
	[EW_OFL_MAC] = "mac",
	[EW_OFL_PHY] = "phy",
	[EW_OFL_CRYPTO] = "crypto",
	[EW_OFL_PACKET] = "packet",
};

const char *const ew_rotate_stage_names[4] = {
	[EW_STAGE_ALL] = "all",
	[EW_STAGE_RX] = "rx",
	[EW_STAGE_TX] = "tx",
	[EW_STAGE_RETIRE] = "retire",
};

static const char *const verb_names[] = {
	[EW_PATH_CAPS] = "caps",
	[EW_PATH_ADD] = "add",
	[EW_PATH_DEL] = "del",
	[EW_PATH_SHOW] = "show",
	[EW_PATH_ROTATE] = "rotate",
	[EW_PATH_CHECK] = "check",
	[EW_PATH_PHYSICAL] = "physical",
};

/* Keywords, and the verbs that take them (bit per verb). */
enum kw {
	KW_DEV, KW_TYPE, KW_KEY_FILE, KW_CIPHER, KW_OFFLOAD, KW_NAME, KW_EPOCH,
	KW_REPLAY_WINDOW, KW_LOCAL, KW_PEER, KW_LLADDR, KW_STAGE, KW_PORT,
	KW_SGID_INDEX, KW_DST, KW_ON, KW_OFF, KW_RXE, KW_JOB, KW_RUN,
	KW_N,
};

#define V(x) (1U << EW_PATH_##x)

static const struct {
	const char *name;
	uint32_t verbs;
	bool flag;		/* takes no value */
} kws[KW_N] = {
	[KW_DEV] = { "dev", 0x7f },
	[KW_TYPE] = { "type", V(ADD) },
	[KW_KEY_FILE] = { "key-file", V(ADD) | V(ROTATE) },
	[KW_CIPHER] = { "cipher", V(ADD) },
	[KW_OFFLOAD] = { "offload", V(ADD) },
	[KW_NAME] = { "name", V(ADD) },
	[KW_EPOCH] = { "epoch", V(ADD) | V(ROTATE) },
	[KW_REPLAY_WINDOW] = { "replay-window", V(ADD) },
	[KW_LOCAL] = { "local", V(ADD) | V(DEL) | V(ROTATE) },
	[KW_PEER] = { "peer", V(ADD) },
	[KW_LLADDR] = { "lladdr", V(ADD) },
	[KW_STAGE] = { "stage", V(ROTATE) },
	[KW_PORT] = { "port", V(CHECK) },
	[KW_SGID_INDEX] = { "sgid-index", V(CHECK) },
	[KW_DST] = { "dst", V(CHECK) },
	[KW_ON] = { "on", V(PHYSICAL), true },
	[KW_OFF] = { "off", V(PHYSICAL), true },
	[KW_RXE] = { "rxe", V(ADD) },
	[KW_JOB] = { "job", V(ADD) | V(DEL) | V(ROTATE) },
	[KW_RUN] = { "run", V(ADD) | V(ROTATE) },
};

static int pick(const char *kw, const char *val, const char *const *names,
		size_t n, uint32_t *out)
{
	char list[128];
	size_t i, off = 0;

	for (i = 0; i < n; i++) {
		if (!strcmp(names[i], val)) {
			*out = (uint32_t)i;
			return EW_OK;
		}
	}
	list[0] = '\0';
	for (i = 0; i < n; i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
					i ? "|" : "", names[i]);
	ew_err("path: %s \"%s\": expected %s", kw, val, list);
	return EW_USAGE;
}

int ew_mac_parse(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char end;
	int i;

	if (strlen(s) != 17 ||
	    sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &end) != 6)
		return -EINVAL;
	for (i = 0; i < 6; i++) {
		if (s[3 * i + 2] != ':' && i < 5)
			return -EINVAL;
		mac[i] = (uint8_t)b[i];
	}
	if (mac[0] & 1)		/* multicast: never a station */
		return -EINVAL;
	if (!(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]))
		return -EINVAL;
	return 0;
}

char *ew_mac_format(const uint8_t mac[6], char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x",
		 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	return buf;
}

/* "ew-" + the lower netdev's name, cut to IFNAMSIZ - 1. */
char *ew_default_macsec_name(const char *lower, char *buf, size_t len)
{
	snprintf(buf, len < IF_NAMESIZE ? len : IF_NAMESIZE, "ew-%s", lower);
	return buf;
}

static int netdev_name(const char *kw, const char *s, char *out)
{
	if (!*s || strlen(s) >= IF_NAMESIZE || strchr(s, '/') || strchr(s, ' ') ||
	    !strcmp(s, ".") || !strcmp(s, "..")) {
		ew_err("path: %s \"%s\": not an interface name (1..%d characters)",
		       kw, s, IF_NAMESIZE - 1);
		return EW_USAGE;
	}
	strcpy(out, s);
	return EW_OK;
}

/* A host address (no prefix): peers and check's dst. */
static int host_addr(const char *kw, const char *s, uint8_t out[16])
{
	struct ew_peer_addr p;
	const char *why;

	if (strchr(s, '/') || !strncmp(s, "lid:", 4) || ew_peer_parse(s, &p, &why)) {
		ew_err("path: %s \"%s\": not an IPv4 or IPv6 address", kw, s);
		return EW_USAGE;
	}
	memcpy(out, p.addr, 16);
	return EW_OK;
}

static bool same_family(const uint8_t *a, const uint8_t *b)
{
	return ew_addr_is_v4mapped(a) == ew_addr_is_v4mapped(b);
}

static int local_addr(const char *s, struct ew_path_spec *spec)
{
	struct ew_peer_addr p;
	const char *why;
	char *slash;
	char buf[64];

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	/* Parse the address alone: ADDR/LEN names a host in a subnet. */
	if (!strncmp(s, "lid:", 4) || ew_peer_parse(buf, &p, &why)) {
		ew_err("path: local \"%s\": not an IPv4 or IPv6 address", s);
		return EW_USAGE;
	}
	memcpy(spec->local, p.addr, 16);
	spec->local_plen = 128;
	if (slash) {
		unsigned int max = ew_addr_is_v4mapped(p.addr) ? 32 : 128;
		uint32_t len;

		if (ew_parse_u32(slash + 1, 1, max, &len) || slash[1] == '0') {
			ew_err("path: local \"%s\": bad prefix length (1..%u)", s, max);
			return EW_USAGE;
		}
		spec->local_plen = (uint8_t)(len + (max == 32 ? 96 : 0));
		spec->local_has_plen = true;
	}
	spec->has_local = true;
	return EW_OK;
}

static int add_peer(const char *s, struct ew_path_spec *spec)
{
	uint8_t addr[16];
	size_t i;

	if (host_addr("peer", s, addr))
		return EW_USAGE;
	for (i = 0; i < spec->n_peers; i++) {
		if (!memcmp(spec->peers[i].addr, addr, 16)) {
			ew_err("path: peer %s is given twice", s);
			return EW_USAGE;
		}
	}
	EW_GROW(spec->peers, spec->n_peers, spec->cap_peers);
	memset(&spec->peers[spec->n_peers], 0, sizeof(spec->peers[0]));
	memcpy(spec->peers[spec->n_peers].addr, addr, 16);
	spec->n_peers++;
	return EW_OK;
}

static int value(uint32_t verb, enum kw k, const char *v, struct ew_path_spec *spec)
{
	const char *kw = kws[k].name;
	struct ew_path_peer *last;

	switch (k) {
	case KW_DEV:
		if (verb == EW_PATH_CHECK) {
			if (!*v || strlen(v) >= sizeof(spec->rdma_dev)) {
				ew_err("path: dev \"%s\": not an RDMA device name", v);
				return EW_USAGE;
			}
			strcpy(spec->rdma_dev, v);
			return EW_OK;
		}
		return netdev_name(kw, v, spec->dev);
	case KW_TYPE:
		return pick(kw, v, ew_path_type_names, 4, &spec->type);
	case KW_KEY_FILE:
		if (!*v) {
			ew_err("path: key-file: empty file name");
			return EW_USAGE;
		}
		spec->key_file = v;
		return EW_OK;
	case KW_CIPHER:
		return pick(kw, v, ew_path_cipher_names, 2, &spec->cipher);
	case KW_OFFLOAD:
		return pick(kw, v, ew_path_offload_names, 6, &spec->offload);
	case KW_NAME:
		return netdev_name(kw, v, spec->name);
	case KW_EPOCH:
		if (ew_parse_u32(v, 0, UINT32_MAX, &spec->epoch)) {
			ew_err("path: epoch \"%s\": expected a number 0..4294967295", v);
			return EW_USAGE;
		}
		spec->has_epoch = true;
		return EW_OK;
	case KW_REPLAY_WINDOW:
		if (ew_parse_u32(v, 1, EW_REPLAY_WINDOW_MAX, &spec->replay_window)) {
			ew_err("path: replay-window \"%s\": expected 1..%d", v,
			       EW_REPLAY_WINDOW_MAX);
			return EW_USAGE;
		}
		return EW_OK;
	case KW_LOCAL:
		return local_addr(v, spec);
	case KW_PEER:
		return add_peer(v, spec);
	case KW_LLADDR:
		if (!spec->n_peers) {
			ew_err("path: lladdr %s: must follow the peer it belongs to", v);
			return EW_USAGE;
		}
		last = &spec->peers[spec->n_peers - 1];
		if (last->has_mac) {
			ew_err("path: lladdr %s: the peer has a lladdr already", v);
			return EW_USAGE;
		}
		if (ew_mac_parse(v, last->mac)) {
			ew_err("path: lladdr \"%s\": not a unicast MAC address (xx:xx:xx:xx:xx:xx)", v);
			return EW_USAGE;
		}
		last->has_mac = true;
		return EW_OK;
	case KW_STAGE:
		return pick(kw, v, ew_rotate_stage_names, 4, &spec->stage);
	case KW_PORT:
		if (ew_parse_u32(v, 1, 255, &spec->port)) {
			ew_err("path: port \"%s\": expected 1..255", v);
			return EW_USAGE;
		}
		return EW_OK;
	case KW_SGID_INDEX:
		if (ew_parse_u32(v, 0, 0xffff, &spec->sgid_index)) {
			ew_err("path: sgid-index \"%s\": expected 0..65535", v);
			return EW_USAGE;
		}
		spec->has_sgid_index = true;
		return EW_OK;
	case KW_DST:
		if (host_addr(kw, v, spec->dst))
			return EW_USAGE;
		spec->has_dst = true;
		return EW_OK;
	case KW_RXE:
		/* What rdma_nl accepts as a device name, without '%' formats. */
		if (!*v || strlen(v) >= sizeof(spec->rxe_name) || strpbrk(v, "%/ \t\n")) {
			ew_err("path: rxe \"%s\": not an RDMA device name (1-63 characters, no '%%', '/' or spaces)",
			       v);
			return EW_USAGE;
		}
		strcpy(spec->rxe_name, v);
		return EW_OK;
	case KW_JOB:
		if (!*v || strlen(v) > EW_NAME_MAX || strpbrk(v, " \t\n")) {
			ew_err("path: job \"%s\": not a job name (1..%d characters, no spaces)",
			       v, EW_NAME_MAX);
			return EW_USAGE;
		}
		spec->job = v;
		return EW_OK;
	case KW_RUN:
		if (!ew_run_ok(v)) {
			ew_err("path: run \"%s\": not a run of a job (1..%d of 0-9 A-Z a-z . _ : -)",
			       v, EW_RUN_MAX);
			return EW_USAGE;
		}
		spec->run = v;
		return EW_OK;
	default:
		return EW_USAGE;
	}
}

/*
 * One job's IPsec: its SAs between its own address here and its addresses
 * on its other nodes, keyed from the secret of the job's run. The address
 * names the job's states on the netdev, so it is needed by every verb that
 * takes job; the run by every verb that derives keys (a name comes back, a
 * run does not: see ew_kdf_job_secret()).
 */
static int check_job(const struct ew_path_spec *spec, const char *vn)
{
	if (spec->run && !spec->job) {
		ew_err("path %s: run ID is the run of one job's IPsec (give job NAME too)", vn);
		return EW_USAGE;
	}
	if (spec->job && !spec->run && spec->verb != EW_PATH_DEL) {
		ew_err("path %s: job NAME needs run ID (which run of the job, the same on all its nodes: its keys must differ when the name comes back, as a requeued job's does)",
		       vn);
		return EW_USAGE;
	}
	if (spec->job && !spec->has_local) {
		ew_err("path %s: job NAME needs local ADDR (the job's own address on this node)", vn);
		return EW_USAGE;
	}
	if (spec->job && spec->local_has_plen) {
		ew_err("path %s: job NAME takes local ADDR without a prefix length (the job's address)",
		       vn);
		return EW_USAGE;
	}
	if (!spec->job && spec->has_local && spec->verb != EW_PATH_ADD) {
		ew_err("path %s: local ADDR is for one job's IPsec (give job NAME too)", vn);
		return EW_USAGE;
	}
	return EW_OK;
}

/* Combinations that each keyword alone cannot refuse. */
static int check_add(struct ew_path_spec *spec, uint32_t seen)
{
	size_t i;

	if (spec->job && spec->type != EW_PT_IPSEC) {
		ew_err("path add: job NAME needs type ipsec (a job's own keys are ESP SAs between its addresses)");
		return EW_USAGE;
	}
	if (check_job(spec, "add"))
		return EW_USAGE;

	if (spec->type == EW_PT_PHYSICAL) {
		if (seen & ~((1U << KW_DEV) | (1U << KW_TYPE))) {
			ew_err("path add: type physical takes only dev (no keys, peers or crypto options)");
			return EW_USAGE;
		}
		return EW_OK;
	}
	if (!spec->key_file) {
		ew_err("path add: missing key-file FILE");
		return EW_USAGE;
	}
	if (!spec->n_peers) {
		ew_err("path add: missing peer ADDR");
		return EW_USAGE;
	}
	if (spec->type == EW_PT_IPSEC) {
		if (seen & ((1U << KW_CIPHER) | (1U << KW_NAME) | (1U << KW_LLADDR) |
			    (1U << KW_RXE))) {
			ew_err("path add: cipher, name, lladdr and rxe are MACsec options, not for type ipsec");
			return EW_USAGE;
		}
		if (spec->offload == EW_OFL_MAC || spec->offload == EW_OFL_PHY) {
			ew_err("path add: offload %s is a MACsec offload (ipsec: crypto or packet)",
			       ew_path_offload_names[spec->offload]);
			return EW_USAGE;
		}
	}
	if (spec->type == EW_PT_MACSEC &&
	    (spec->offload == EW_OFL_CRYPTO || spec->offload == EW_OFL_PACKET)) {
		ew_err("path add: offload %s is an IPsec offload (macsec: mac or phy)",
		       ew_path_offload_names[spec->offload]);
		return EW_USAGE;
	}
	if (spec->type == EW_PT_AUTO && spec->offload != EW_OFL_AUTO &&
	    spec->offload != EW_OFL_OFF) {
		ew_err("path add: type auto chooses the offload itself (give offload only with a type)");
		return EW_USAGE;
	}
	for (i = 0; i < spec->n_peers; i++) {
		char buf[EW_PEER_STRLEN];

		if (spec->has_local && !same_family(spec->local, spec->peers[i].addr)) {
			ew_err("path add: peer %s and local address are of different families",
			       ew_addr_format(spec->peers[i].addr, buf, sizeof(buf)));
			return EW_USAGE;
		}
		if (!same_family(spec->peers[0].addr, spec->peers[i].addr)) {
			ew_err("path add: peer %s: all peers must be IPv4 or all IPv6",
			       ew_addr_format(spec->peers[i].addr, buf, sizeof(buf)));
			return EW_USAGE;
		}
	}
	return EW_OK;
}

/**
 * ew_pathspec_parse() - parse the arguments of one path verb
 * @verb: enum ew_path_verb
 * @argc: argument count, after the verb
 * @argv: the arguments
 * @spec: the result (free with ew_pathspec_free(); key_file points into argv)
 *
 * Return: EW_OK or EW_USAGE (printed).
 */
int ew_pathspec_parse(uint32_t verb, int argc, char *argv[], struct ew_path_spec *spec)
{
	const char *vn = verb_names[verb];
	uint32_t seen = 0;
	int ret;

	memset(spec, 0, sizeof(*spec));
	spec->verb = verb;
	spec->port = 1;
	spec->replay_window = EW_REPLAY_WINDOW_DEFAULT;
	/*
	 * A 32-bit packet number runs out after 2^32 frames, some minutes at
	 * 100 Gb/s, and the link then stops sending until a rotation: the
	 * extended one is the default on fabrics of that speed.
	 */
	spec->cipher = EW_CIPHER_GCM_AES_XPN_256;
	for (; argc > 0; argc--, argv++) {
		enum kw k;

		for (k = 0; k < KW_N; k++)
			if (!strcmp(argv[0], kws[k].name) && (kws[k].verbs & (1U << verb)))
				break;
		if (k == KW_N) {
			ew_err("path %s: unknown keyword \"%s\" " HINT, vn, argv[0]);
			goto usage;
		}
		if ((seen & (1U << k)) && k != KW_PEER && k != KW_LLADDR) {
			ew_err("path %s: \"%s\" is given twice", vn, argv[0]);
			goto usage;
		}
		seen |= 1U << k;
		if (kws[k].flag) {
			if (k == KW_ON || k == KW_OFF) {
				if (seen & (1U << (k == KW_ON ? KW_OFF : KW_ON))) {
					ew_err("path physical: on or off, not both");
					goto usage;
				}
				spec->physical = k == KW_ON;
			}
			continue;
		}
		if (argc < 2) {
			ew_err("path %s: \"%s\" needs an argument", vn, argv[0]);
			goto usage;
		}
		ret = value(verb, k, argv[1], spec);
		if (ret)
			goto usage;
		argc--, argv++;
	}

	if (verb != EW_PATH_SHOW && !(seen & (1U << KW_DEV))) {
		ew_err("path %s: missing dev %s", vn,
		       verb == EW_PATH_CHECK ? "RDMADEV" : "NETDEV");
		goto usage;
	}
	switch (verb) {
	case EW_PATH_ADD:
		if (check_add(spec, seen))
			goto usage;
		break;
	case EW_PATH_ROTATE:
		if (!spec->key_file || !spec->has_epoch) {
			ew_err("path rotate: needs key-file FILE and epoch N");
			goto usage;
		}
		if (check_job(spec, vn))
			goto usage;
		break;
	case EW_PATH_DEL:
		if (check_job(spec, vn))
			goto usage;
		break;
	case EW_PATH_CHECK:
		if (!spec->has_sgid_index || !spec->has_dst) {
			ew_err("path check: needs sgid-index I and dst ADDR");
			goto usage;
		}
		break;
	case EW_PATH_PHYSICAL:
		if (!(seen & ((1U << KW_ON) | (1U << KW_OFF)))) {
			ew_err("path physical: missing on or off");
			goto usage;
		}
		break;
	}
	return EW_OK;
usage:
	ew_pathspec_free(spec);
	return EW_USAGE;
}

void ew_pathspec_free(struct ew_path_spec *spec)
{
	free(spec->peers);
	spec->peers = NULL;
	spec->n_peers = spec->cap_peers = 0;
}

/**
 * ew_path_choose() - the protection "type auto" takes
 * @caps: what the netdev offers
 * @out: the choice and why
 *
 * Order: a declared physical fabric, MACsec offload, ESP packet
 * offload, ESP crypto offload, MACsec in software, IPsec in software.
 * Software MACsec ranks above software IPsec because it measured faster
 * here (notes: 5.0 vs 4.4 MB/s on the two-VM bed) and costs less per
 * packet (no IP-level transform lookup); bench/ re-measures it.
 */
void ew_path_choose(const struct ew_path_caps *caps, struct ew_path_choice *out)
{
	memset(out, 0, sizeof(*out));
	if (caps->physical) {
		out->type = EW_PT_PHYSICAL;
		out->offload = EW_OFL_OFF;
		snprintf(out->reason, sizeof(out->reason),
			 "the netdev is declared a dedicated physical fabric: no crypto needed");
	} else if (caps->macsec_offload) {
		out->type = EW_PT_MACSEC;
		out->offload = EW_OFL_MAC;
		snprintf(out->reason, sizeof(out->reason),
			 "the NIC offloads MACsec (line rate, no CPU cost)");
	} else if (caps->esp_packet && caps->kernel_esp_packet) {
		out->type = EW_PT_IPSEC;
		out->offload = EW_OFL_PACKET;
		snprintf(out->reason, sizeof(out->reason),
			 "no MACsec offload; the NIC offloads whole ESP packets");
	} else if (caps->esp_crypto) {
		out->type = EW_PT_IPSEC;
		out->offload = EW_OFL_CRYPTO;
		snprintf(out->reason, sizeof(out->reason),
			 "no MACsec or ESP packet offload%s; the NIC offloads ESP crypto",
			 caps->esp_packet ? " usable on this kernel" : "");
	} else {
		out->type = EW_PT_MACSEC;
		out->offload = EW_OFL_OFF;
		out->software = true;
		snprintf(out->reason, sizeof(out->reason),
			 "%s: software MACsec (cheaper than software IPsec)",
			 caps->known ? "no crypto offload on this netdev" :
				       "offload capabilities unknown (no RDMA GID on the netdev)");
	}
}

/**
 * ew_path_resolve() - the protection and offload an "add" sets up
 * @type: what was asked (enum ew_path_type)
 * @offload: what was asked (enum ew_path_offload)
 * @caps: what the netdev offers
 * @out: the result
 * @why: why an explicit request cannot be met
 * @why_len: its size
 *
 * Return: 0, or -EOPNOTSUPP with @why set.
 */
int ew_path_resolve(uint32_t type, uint32_t offload, const struct ew_path_caps *caps,
		    struct ew_path_choice *out, char *why, size_t why_len)
{
	if (type == EW_PT_AUTO) {
		ew_path_choose(caps, out);
		return 0;
	}
	memset(out, 0, sizeof(*out));
	out->type = type;
	switch (type) {
	case EW_PT_PHYSICAL:
		out->offload = EW_OFL_OFF;
		snprintf(out->reason, sizeof(out->reason), "asked for");
		return 0;
	case EW_PT_MACSEC:
		if (offload == EW_OFL_AUTO)
			offload = caps->macsec_offload ? EW_OFL_MAC : EW_OFL_OFF;
		if (offload == EW_OFL_MAC && !caps->macsec_offload) {
			snprintf(why, why_len, "the netdev has no MACsec offload (use offload off)");
			return -EOPNOTSUPP;
		}
		break;
	case EW_PT_IPSEC:
		if (offload == EW_OFL_AUTO)
			offload = caps->esp_packet && caps->kernel_esp_packet ? EW_OFL_PACKET :
				  caps->esp_crypto ? EW_OFL_CRYPTO : EW_OFL_OFF;
		if (offload == EW_OFL_PACKET && !caps->kernel_esp_packet) {
			snprintf(why, why_len,
				 "ESP packet offload is not on this kernel (needs 6.2 or later)");
			return -EOPNOTSUPP;
		}
		if (offload == EW_OFL_PACKET && !caps->esp_packet) {
			snprintf(why, why_len, "the netdev has no ESP packet offload");
			return -EOPNOTSUPP;
		}
		if (offload == EW_OFL_CRYPTO && !caps->esp_crypto) {
			snprintf(why, why_len, "the netdev has no ESP crypto offload");
			return -EOPNOTSUPP;
		}
		break;
	}
	/* MACsec PHY offload is not in the kernel's caps: the kernel decides. */
	out->offload = offload;
	out->software = offload == EW_OFL_OFF;
	snprintf(out->reason, sizeof(out->reason), "asked for");
	return 0;
}

/* "6.1.0-57-amd64" >= 6.2? */
bool ew_kernel_at_least(const char *release, unsigned int major, unsigned int minor)
{
	unsigned int ma = 0, mi = 0;

	if (sscanf(release, "%u.%u", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

/**
 * ew_roce_mtu() - the RoCE active MTU a protected netdev carries
 * @link_mtu: the MTU of the netdev under the protection (for MACsec, the
 *	lower netdev; the macsec netdev's own MTU is already @link_mtu - 32)
 * @overhead: EW_MACSEC_OVERHEAD, EW_ESP_OVERHEAD or 0
 * @ipv6: RoCEv2 over IPv6 (40-byte IP header) rather than IPv4 (20)
 *
 * The largest of 4096, 2048, 1024, 512, 256 such that the payload plus
 * IP + UDP 8 + BTH 12 + RETH 16 + ICRC 4 plus @overhead fits @link_mtu.
 *
 * Return: the MTU, or 0 if not even 256 fits.
 */
unsigned int ew_roce_mtu(unsigned int link_mtu, unsigned int overhead, bool ipv6)
{
	unsigned int headers = (ipv6 ? 40 : 20) + 8 + 12 + 16 + 4;
	unsigned int mtu;

	for (mtu = 4096; mtu >= 256; mtu /= 2)
		if ((unsigned long)mtu + headers + overhead <= link_mtu)
			return mtu;
	return 0;
}

/**
 * ew_macsec_tx_stage() - what stage tx of a rotation does on a MACsec link
 * @present: the link has a TX SA in AN @an
 * @have_ki: its key identifier as the kernel reports it, NULL if it does not
 * @encoding_an: the AN the link sends with
 * @an: the AN of the epoch rotated to (epoch % 4)
 * @want_ki: the key identifier derived for that epoch and key file
 *
 * An SA in @an is told by its KI, which is derived with the key: the same
 * KI is this epoch's key (an earlier stage tx, perhaps cut short), another
 * is an epoch four back or another key file, and sending with it would
 * report a rotation that installed no new key.
 *
 * Return: the action (enum ew_macsec_tx).
 */
enum ew_macsec_tx ew_macsec_tx_stage(bool present, const uint8_t *have_ki,
				     uint8_t encoding_an, uint8_t an,
				     const uint8_t want_ki[EW_MACSEC_KI_BYTES])
{
	if (!present)
		return EW_MACSEC_TX_INSTALL;
	if (!have_ki)
		return EW_MACSEC_TX_NO_KI;
	if (memcmp(have_ki, want_ki, EW_MACSEC_KI_BYTES))
		return EW_MACSEC_TX_OTHER_KEY;
	return encoding_an == an ? EW_MACSEC_TX_DONE : EW_MACSEC_TX_SWITCH;
}
