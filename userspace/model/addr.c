// SPDX-License-Identifier: GPL-2.0
/*
 * Peer addresses, one text form for input and output:
 *
 *   IPv4   a.b.c.d[/0..32]     stored as ::ffff:a.b.c.d with prefix 96 + LEN
 *   IPv6   x:x::x[/0..128]     also GIDs
 *   LID    lid:N               N = 1..0xfffe, decimal or 0x-hexadecimal
 *
 * Without a prefix length the peer is one address (/32 or /128). Output
 * always carries the prefix length, and an IPv4-mapped prefix of at least
 * 96 bits prints as IPv4, so "192.0.2.0/24" reads back as itself. Bits set
 * beyond the prefix length are refused rather than masked: what the kernel
 * stores is what was written, and a diff against it stays exact.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/addr.h"
#include "model/parse.h"

static const uint8_t v4mapped[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

bool ew_addr_is_v4mapped(const uint8_t *addr)
{
	return !memcmp(addr, v4mapped, sizeof(v4mapped));
}

/**
 * ew_lid_parse() - parse a LID (the N of "lid N" or "lid:N")
 * @s: the number
 * @p: the peer
 * @why: what is wrong, or NULL for a plain syntax error
 *
 * Return: 0 or -EINVAL.
 */
int ew_lid_parse(const char *s, struct ew_peer_addr *p, const char **why)
{
	uint32_t v;
	int ret;

	*why = NULL;
	memset(p, 0, sizeof(*p));
	ret = ew_parse_u32(s, EW_LID_MIN, EW_LID_MAX, &v);
	if (ret) {
		if (ret == -ERANGE)
			*why = "a LID is 1..65534 (0x1..0xfffe)";
		return -EINVAL;
	}
	p->is_lid = true;
	p->lid = (uint16_t)v;
	return 0;
}

static int parse_plen(const char *s, unsigned int max, unsigned int *out)
{
	unsigned int v = 0;
	const char *c;

	if (!*s || strlen(s) > 3)
		return -EINVAL;
	for (c = s; *c; c++) {
		if (*c < '0' || *c > '9')
			return -EINVAL;
		v = v * 10 + (unsigned int)(*c - '0');
	}
	if (v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static bool host_bits_set(const uint8_t *addr, unsigned int plen)
{
	unsigned int i;

	for (i = plen; i < 128; i++)
		if (addr[i / 8] & (0x80 >> (i % 8)))
			return true;
	return false;
}

/*
 * A dotted quad by inet_pton(AF_INET)'s rules (four decimal octets, each at
 * most 255 and without a leading zero) ended by '\0' or '/': the common
 * peer of a large list, parsed without a copy and a library call. Returns
 * the length of the address, or 0 for anything else, which the caller
 * hands to inet_pton() as before (so this accepts nothing it refuses).
 */
static size_t parse_v4_quad(const char *s, uint8_t out[4])
{
	const char *c = s;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		unsigned int v;

		if (*c < '0' || *c > '9')
			return 0;
		v = (unsigned int)(*c++ - '0');
		if (v && *c >= '0' && *c <= '9') {
			v = v * 10 + (unsigned int)(*c++ - '0');
			if (*c >= '0' && *c <= '9')
				v = v * 10 + (unsigned int)(*c++ - '0');
		}
		if (v > 255 || (*c >= '0' && *c <= '9'))
			return 0;
		out[i] = (uint8_t)v;
		if (i < 3 && *c++ != '.')
			return 0;
	}
	return *c == '\0' || *c == '/' ? (size_t)(c - s) : 0;
}

/**
 * ew_peer_parse() - parse a peer: ADDR[/LEN] or lid:N
 * @s: the text
 * @p: the peer
 * @why: what is wrong, or NULL for a plain syntax error ("bad address")
 *
 * Return: 0 or -EINVAL.
 */
int ew_peer_parse(const char *s, struct ew_peer_addr *p, const char **why)
{
	char buf[INET6_ADDRSTRLEN];
	unsigned int max, off, plen;
	uint8_t quad[4];
	const char *slash;
	size_t len;

	*why = NULL;
	memset(p, 0, sizeof(*p));
	if (s[0] == 'l' && !strncmp(s, "lid:", 4))
		return ew_lid_parse(s + 4, p, why);

	len = parse_v4_quad(s, quad);
	if (len) {
		slash = s[len] == '/' ? s + len : NULL;
		memcpy(p->addr, v4mapped, sizeof(v4mapped));
		memcpy(p->addr + 12, quad, sizeof(quad));
		max = 32;
		off = 96;
		goto plen;
	}
	slash = strchr(s, '/');
	len = slash ? (size_t)(slash - s) : strlen(s);
	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';

	if (inet_pton(AF_INET, buf, p->addr + 12) == 1) {
		memcpy(p->addr, v4mapped, sizeof(v4mapped));
		max = 32;
		off = 96;
	} else if (inet_pton(AF_INET6, buf, p->addr) == 1) {
		max = 128;
		off = 0;
	} else {
		return -EINVAL;
	}
plen:
	plen = max;
	if (slash && parse_plen(slash + 1, max, &plen)) {
		*why = max == 32 ? "the prefix length of an IPv4 address is 0..32" :
				   "the prefix length of an IPv6 address is 0..128";
		return -EINVAL;
	}
	p->plen = (uint8_t)(plen + off);
	if (host_bits_set(p->addr, p->plen)) {
		*why = "bits are set beyond the prefix length";
		return -EINVAL;
	}
	return 0;
}

/* One address, not a prefix (or a LID). */
bool ew_peer_is_host(const struct ew_peer_addr *p)
{
	return p->is_lid || p->plen == 128;
}

/* A GID or address without prefix: IPv4-mapped ones print as IPv4. */
char *ew_addr_format(const uint8_t *addr, char *buf, size_t len)
{
	if (ew_addr_is_v4mapped(addr))
		inet_ntop(AF_INET, addr + 12, buf, (socklen_t)len);
	else
		inet_ntop(AF_INET6, addr, buf, (socklen_t)len);
	return buf;
}

char *ew_peer_format(const struct ew_peer_addr *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (p->is_lid) {
		snprintf(buf, len, "lid:%u", p->lid);
	} else if (ew_addr_is_v4mapped(p->addr) && p->plen >= 96) {
		inet_ntop(AF_INET, p->addr + 12, a, sizeof(a));
		snprintf(buf, len, "%s/%u", a, (unsigned int)p->plen - 96);
	} else {
		inet_ntop(AF_INET6, p->addr, a, sizeof(a));
		snprintf(buf, len, "%s/%u", a, p->plen);
	}
	return buf;
}

static uint64_t be64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

/*
 * Addresses before LIDs; by address, then prefix length. Sorting a
 * million-peer policy calls this some 20 million times: no library call.
 */
int ew_peer_cmp(const void *a, const void *b)
{
	const struct ew_peer_addr *x = a, *y = b;
	int d;

	if (x->is_lid != y->is_lid)
		return x->is_lid ? 1 : -1;
	if (x->is_lid)
		return (int)x->lid - (int)y->lid;
	/* Byte order of the address (memcmp's), as two big-endian halves. */
	for (d = 0; d < 16; d += 8) {
		uint64_t hx = be64_at(x->addr + d), hy = be64_at(y->addr + d);

		if (hx != hy)
			return hx < hy ? -1 : 1;
	}
	return (int)x->plen - (int)y->plen;
}
