// SPDX-License-Identifier: GPL-2.0
/*
 * Request generation (see gen.h). Each message is built from one PRNG
 * stream, so the same seed and index always give the same bytes.
 */
#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>

#include <linux/eastwest.h>

#include "gen.h"
#include "model.h"

const char *const nf_strategy_names[NF_S_COUNT] = {
	[NF_S_PLAUSIBLE] = "plausible",
	[NF_S_BOUNDARY] = "boundary",
	[NF_S_WRONG_TYPE] = "wrong-type",
	[NF_S_NEST_GARBAGE] = "nest-garbage",
	[NF_S_MUTATE] = "mutate",
	[NF_S_HEADER] = "header",
	[NF_S_TRUNCATE] = "truncate",
	[NF_S_OVERSIZE] = "oversize",
};

/* Percent of messages per strategy (sums to 100). */
static const unsigned int nf_strategy_weight[NF_S_COUNT] = {
	[NF_S_PLAUSIBLE] = 28,
	[NF_S_BOUNDARY] = 24,
	[NF_S_WRONG_TYPE] = 8,
	[NF_S_NEST_GARBAGE] = 8,
	[NF_S_MUTATE] = 16,
	[NF_S_HEADER] = 8,
	[NF_S_TRUNCATE] = 6,
	[NF_S_OVERSIZE] = 2,
};

/* The message under construction; writes past the end are dropped. */
struct nf_w {
	uint8_t *b;
	size_t len, cap;
	struct nf_rng *r;
	const struct nf_pools *p;
};

#define NLA_ALIGNTO4(n) (((n) + 3) & ~(size_t)3)

static void w_put(struct nf_w *w, const void *data, size_t n)
{
	if (w->len + n > w->cap)
		n = w->cap - w->len;
	memcpy(w->b + w->len, data, n);
	w->len += n;
}

static void w_pad(struct nf_w *w)
{
	static const uint8_t zero[4];

	w_put(w, zero, NLA_ALIGNTO4(w->len) - w->len);
}

static void w_random(struct nf_w *w, size_t n)
{
	while (n--) {
		uint8_t c = (uint8_t)nf_next(w->r);

		w_put(w, &c, 1);
	}
}

/* An attribute header whose nla_len is fixed by w_end(); returns its offset. */
static size_t w_begin(struct nf_w *w, uint16_t type)
{
	struct nlattr h = { .nla_len = 0, .nla_type = type };
	size_t off = w->len;

	w_put(w, &h, sizeof(h));
	return off;
}

/* nla_len is 16 bits: a nest past 64 KiB wraps, which is a test in itself. */
static void w_end(struct nf_w *w, size_t off)
{
	uint16_t len = (uint16_t)(w->len - off);

	if (off + sizeof(struct nlattr) <= w->len)
		memcpy(w->b + off, &len, sizeof(len));
	w_pad(w);
}

static void w_attr(struct nf_w *w, uint16_t type, const void *data, size_t n)
{
	size_t off = w_begin(w, type);

	w_put(w, data, n);
	w_end(w, off);
}

/* ---- values ------------------------------------------------------------ */

static unsigned int kind_width(enum nf_kind k)
{
	switch (k) {
	case NF_U8: return 1;
	case NF_U16: return 2;
	case NF_U32: return 4;
	case NF_U64: return 8;
	default: return 0;
	}
}

static uint64_t width_max(unsigned int width)
{
	return width >= 8 ? ~0ULL : (1ULL << (8 * width)) - 1;
}

static uint64_t pool_int(struct nf_w *w, enum nf_pool pool, int *ok)
{
	const struct nf_pools *p = w->p;

	*ok = 1;
	switch (pool) {
	case NF_POOL_JOB_ID:
		if (p->n_job_ids)
			return p->job_ids[nf_below(w->r, p->n_job_ids)];
		return 1 + nf_below(w->r, 8);
	case NF_POOL_DEV_INDEX:
		if (p->n_dev_index)
			return p->dev_index[nf_below(w->r, p->n_dev_index)];
		return nf_below(w->r, 4);
	case NF_POOL_IFINDEX:
		return 1 + nf_below(w->r, 6);	/* lo, dummies, rxe's netdev */
	default:
		*ok = 0;
		return 0;
	}
}

/* A value at or near an edge of the attribute's range or of its width. */
static uint64_t edge_int(struct nf_w *w, const struct nf_attr *a, unsigned int width)
{
	uint64_t max = width_max(width ? width : 4);
	uint64_t lo = a->has_min ? a->min : 0, hi = a->has_max ? a->max : max;
	const uint64_t cand[] = {
		0, 1, 2, lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, max / 2,
		max / 2 + 1, max - 1, max, 0x80, 0x7fff, 0x8000, 0x8001,
		0x80000000ULL, 0x7fffffffULL, nf_next(w->r),
	};

	return cand[nf_below(w->r, sizeof(cand) / sizeof(cand[0]))] & max;
}

static void put_int(struct nf_w *w, const struct nf_attr *a, int boundary)
{
	unsigned int width = kind_width(a->kind);
	uint64_t max = width_max(width), v;
	uint8_t bytes[64];
	size_t n = width;
	int ok;

	if (!boundary) {
		v = pool_int(w, nf_pool_of(a), &ok);
		if (!ok || nf_chance(w->r, 15)) {
			uint64_t lo = a->has_min ? a->min : 0;
			uint64_t hi = a->has_max ? a->max : max;

			v = lo + (hi - lo == ~0ULL ? nf_next(w->r) :
				  nf_below(w->r, hi - lo + 1));
		}
		/* Privileged Q_Keys (bit 31) are refused: mostly stay valid. */
		if (a->type == EASTWEST_A_JOB_QKEY && nf_chance(w->r, 80))
			v &= 0x7fffffff;
	} else {
		v = edge_int(w, a, width);
		if (nf_chance(w->r, 40)) {
			static const size_t lens[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 33 };

			n = lens[nf_below(w->r, sizeof(lens) / sizeof(lens[0]))];
		}
	}
	memset(bytes, 0, sizeof(bytes));
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = i < 8 ? (uint8_t)(v >> (8 * i)) : (uint8_t)nf_next(w->r);
	w_attr(w, a->type, bytes, n);
}

static const char *const nf_path_edges[] = {
	"/", "//", "/..", "/../..", "/.", "/./", "relative", "/nonexistent",
	"/ewfz0/../ewfz1", "/ewfz0/", "/ewfz0//", "/sys/fs/cgroup", "\x01",
	"/ewfz0/\xff", "/ewfz0\n/evil",
};

static void put_string(struct nf_w *w, const struct nf_attr *a, int boundary)
{
	const struct nf_pools *p = w->p;
	char s[80];
	size_t off, n, i;

	if (!boundary) {
		const char *v = NULL;

		if (nf_pool_of(a) == NF_POOL_JOB_NAME && p->n_job_names)
			v = p->job_names[nf_below(w->r, p->n_job_names)];
		else if (nf_pool_of(a) == NF_POOL_CGROUP && p->n_cgroups)
			v = p->cgroups[nf_below(w->r, p->n_cgroups)];
		else if (nf_pool_of(a) == NF_POOL_DEV_NAME && p->n_dev_names)
			v = p->dev_names[nf_below(w->r, p->n_dev_names)];
		if (!v || nf_chance(w->r, 10)) {
			/* A fresh short name: fz0..fz15, a bounded set of jobs. */
			snprintf(s, sizeof(s), "fz%u", (unsigned int)nf_below(w->r, 16));
			v = s;
		}
		w_attr(w, a->type, v, strlen(v) + 1);
		return;
	}

	off = w_begin(w, a->type);
	switch (nf_below(w->r, 9)) {
	case 0:		/* empty attribute: no NUL at all */
		break;
	case 1:		/* the empty string */
		w_put(w, "", 1);
		break;
	case 2:		/* exactly the limit, then one more */
	case 3:
		n = (a->len ? a->len : 255) + (nf_below(w->r, 2));
		for (i = 0; i < n; i++)
			w_put(w, i ? "a" : "/", 1);
		w_put(w, "", 1);
		break;
	case 4:		/* not terminated */
		n = 1 + nf_below(w->r, 80);
		for (i = 0; i < n; i++)
			w_put(w, &"fz0/xyz"[i % 7], 1);
		break;
	case 5:		/* embedded NUL */
		w_put(w, "fz0\0/evil\0", 10);
		break;
	case 6:		/* around PATH_MAX */
		n = 4090 + nf_below(w->r, 12);
		for (i = 0; i < n; i++)
			w_put(w, i % 2 ? "a" : "/", 1);
		w_put(w, "", 1);
		break;
	case 7:		/* arbitrary bytes, terminated */
		n = nf_below(w->r, 100);
		for (i = 0; i < n; i++) {
			char c = (char)(1 + nf_below(w->r, 255));

			w_put(w, &c, 1);
		}
		w_put(w, "", 1);
		break;
	default: {	/* paths the cgroup lookup must survive */
		const char *e = nf_path_edges[nf_below(w->r, sizeof(nf_path_edges) /
							   sizeof(nf_path_edges[0]))];

		w_put(w, e, strlen(e) + 1);
		break;
	}
	}
	w_end(w, off);
}

static void pool_addr(struct nf_w *w, uint8_t addr[16])
{
	static const uint8_t v4[][4] = {
		{ 127, 0, 0, 1 }, { 198, 51, 100, 7 }, { 192, 0, 2, 1 },
		{ 192, 0, 2, 2 }, { 10, 0, 0, 1 }, { 0, 0, 0, 0 },
	};

	memset(addr, 0, 16);
	switch (nf_below(w->r, 5)) {
	case 0:
	case 1:		/* IPv4-mapped, as RoCEv2 GIDs of IPv4 addresses */
		addr[10] = addr[11] = 0xff;
		memcpy(addr + 12, v4[nf_below(w->r, sizeof(v4) / sizeof(v4[0]))], 4);
		break;
	case 2:		/* 2001:db8::/32, a few hosts */
		addr[0] = 0x20, addr[1] = 0x01, addr[2] = 0x0d, addr[3] = 0xb8;
		addr[15] = (uint8_t)nf_below(w->r, 8);
		break;
	case 3:		/* link-local, multicast, all-ones, zero */
		switch (nf_below(w->r, 4)) {
		case 0: addr[0] = 0xfe, addr[1] = 0x80, addr[15] = 1; break;
		case 1: addr[0] = 0xff, addr[1] = 0x02, addr[15] = 1; break;
		case 2: memset(addr, 0xff, 16); break;
		default: break;
		}
		break;
	default:
		for (int i = 0; i < 16; i++)
			addr[i] = (uint8_t)nf_next(w->r);
		break;
	}
}

/*
 * Peer records (a->len bytes each: address, prefix length, zero padding):
 * a few plausible ones, or at a boundary a length that is no multiple of a
 * record, a prefix length past 128 or padding that is not zero.
 */
static void put_records(struct nf_w *w, const struct nf_attr *a, int boundary)
{
	size_t off, i, n = 1 + nf_below(w->r, 8);
	uint8_t rec[64] = { 0 };

	off = w_begin(w, a->type);
	for (i = 0; i < n && a->len <= sizeof(rec); i++) {
		pool_addr(w, rec);
		rec[16] = (uint8_t)(boundary && nf_chance(w->r, 30) ? 129 + nf_below(w->r, 127) :
				    nf_below(w->r, 129));
		memset(rec + 17, 0, a->len - 17);
		if (boundary && nf_chance(w->r, 20))
			rec[a->len - 1] = (uint8_t)(1 + nf_below(w->r, 255));
		w_put(w, rec, a->len);
	}
	if (boundary && nf_chance(w->r, 30))
		w_random(w, 1 + nf_below(w->r, a->len - 1));
	w_end(w, off);
}

static void put_binary(struct nf_w *w, const struct nf_attr *a, int boundary)
{
	static const size_t lens[] = { 0, 1, 4, 15, 17, 20, 32, 64 };
	uint8_t addr[16];
	size_t off;

	size_t n;

	if (a->records) {
		put_records(w, a, boundary);
		return;
	}
	pool_addr(w, addr);
	if (!boundary || nf_chance(w->r, 40)) {
		w_attr(w, a->type, addr, a->len);
		return;
	}
	n = lens[nf_below(w->r, sizeof(lens) / sizeof(lens[0]))];
	off = w_begin(w, a->type);
	w_put(w, addr, n < 16 ? n : 16);
	if (n > 16)
		w_random(w, n - 16);
	w_end(w, off);
}

static void put_nest(struct nf_w *w, const struct nf_attr *a, int boundary,
		     unsigned int depth);

static void put_attr(struct nf_w *w, const struct nf_attr *a, int boundary,
		     unsigned int depth)
{
	switch (a->kind) {
	case NF_U8:
	case NF_U16:
	case NF_U32:
	case NF_U64:
		put_int(w, a, boundary);
		break;
	case NF_STRING:
		put_string(w, a, boundary);
		break;
	case NF_BINARY:
		put_binary(w, a, boundary);
		break;
	case NF_NEST:
		put_nest(w, a, boundary, depth);
		break;
	case NF_PAD:
		w_begin(w, a->type);
		w_end(w, w->len - sizeof(struct nlattr));
		if (boundary)
			w_random(w, nf_below(w->r, 2) * 8);
		break;
	}
}

/* Random bytes, nests of nests, inner lengths that lie: never a valid nest. */
static void put_garbage_nest(struct nf_w *w, uint16_t type, unsigned int depth)
{
	size_t off = w_begin(w, type | (nf_chance(w->r, 50) ? NLA_F_NESTED : 0));

	switch (nf_below(w->r, 5)) {
	case 0:
		w_random(w, nf_below(w->r, 65));
		break;
	case 1:
		if (depth < 24)
			put_garbage_nest(w, (uint16_t)nf_below(w->r, 8), depth + 1);
		break;
	case 2: {	/* an inner attribute longer than the nest */
		struct nlattr h = { .nla_len = (uint16_t)(8 + nf_below(w->r, 200)),
				    .nla_type = (uint16_t)nf_below(w->r, 8) };

		w_put(w, &h, sizeof(h));
		w_random(w, 4);
		break;
	}
	case 3: {	/* an inner attribute shorter than its own header */
		struct nlattr h = { .nla_len = (uint16_t)nf_below(w->r, 4),
				    .nla_type = (uint16_t)nf_below(w->r, 8) };

		w_put(w, &h, sizeof(h));
		w_random(w, nf_below(w->r, 8));
		break;
	}
	default:	/* a half attribute header at the end */
		w_random(w, 2);
		break;
	}
	w_end(w, off);
}

static void put_nest_body(struct nf_w *w, const struct nf_set *set, int boundary,
			  unsigned int depth)
{
	unsigned int i;

	if (!set)
		return;
	if (!boundary && !strcmp(set->name, "peer")) {
		/* A peer: exactly one of addr and lid, as the handler wants. */
		if (nf_chance(w->r, 80)) {
			put_attr(w, &set->attrs[0], 0, depth);
			if (nf_chance(w->r, 50))
				put_attr(w, &set->attrs[1], 0, depth);
		} else {
			put_attr(w, &set->attrs[2], 0, depth);
		}
		return;
	}
	if (!boundary && !strcmp(set->name, "netdev")) {
		/* A netdev rule: exactly one of ifindex, vlan and vrf. */
		put_attr(w, &set->attrs[nf_below(w->r, set->n)], 0, depth);
		return;
	}
	for (i = 0; i < set->n; i++) {
		const struct nf_attr *a = &set->attrs[i];

		/* Plausible: a cgroup is its path (the id is read-only);
		 * elsewhere mostly the first attribute. */
		if (!boundary && (a->kind == NF_PAD || !strcmp(set->name, "cgroup")) && i > 0)
			continue;
		if (!boundary && i > 0 && nf_chance(w->r, 70))
			continue;
		if (boundary && nf_chance(w->r, 35))
			continue;
		put_attr(w, a, boundary, depth);
	}
	if (boundary && nf_chance(w->r, 20))
		put_garbage_nest(w, (uint16_t)nf_below(w->r, set->max_type + 3), depth);
}

static void put_nest(struct nf_w *w, const struct nf_attr *a, int boundary,
		     unsigned int depth)
{
	size_t off;

	if (boundary && nf_chance(w->r, 15)) {
		put_garbage_nest(w, a->type, depth);
		return;
	}
	off = w_begin(w, a->type | (nf_chance(w->r, 50) ? NLA_F_NESTED : 0));
	if (!(boundary && nf_chance(w->r, 10)))	/* else an empty nest */
		put_nest_body(w, a->nest, boundary, depth + 1);
	w_end(w, off);
}

/* ---- bodies ------------------------------------------------------------ */

static void put_body(struct nf_w *w, const struct nf_op *op, int boundary)
{
	unsigned int i, k, reps;

	for (i = 0; i < op->n_req; i++) {
		const struct nf_attr *a = nf_set_attr(op->set, op->req[i]);

		/* The first two (the object's id, name or address) mostly. */
		if (!a || nf_chance(w->r, i == 0 ? 10 : i == 1 ? 20 : 50))
			continue;
		reps = 1;
		if (a->multi && a->nest && !strcmp(a->nest->name, "cgroup"))
			reps = boundary ? 1 + (unsigned int)nf_below(w->r, 3) : 1;
		else if (a->multi)
			reps = 1 + (unsigned int)nf_below(w->r, a->nest ? 6 : 3);
		else if (boundary && nf_chance(w->r, 8))
			reps = 2;	/* a single attribute given twice */
		for (k = 0; k < reps; k++)
			put_attr(w, a, boundary, 0);
	}
	if (boundary && nf_chance(w->r, 25)) {
		/* An attribute the op does not take, or no type at all. */
		uint16_t t = (uint16_t)nf_below(w->r, op->set->max_type + 4);
		size_t off = w_begin(w, t);

		w_random(w, nf_below(w->r, 12));
		w_end(w, off);
	}
}

/* Every attribute in a slot of another kind, or with type flag bits. */
static void put_wrong_types(struct nf_w *w, const struct nf_op *op)
{
	static const struct nf_attr u8a = { .name = "x", .kind = NF_U8 },
		u64a = { .name = "x", .kind = NF_U64 },
		stra = { .name = "x", .kind = NF_STRING },
		bina = { .name = "x", .kind = NF_BINARY, .len = 16 };
	unsigned int i;

	for (i = 0; i < op->n_req; i++) {
		const struct nf_attr *a = nf_set_attr(op->set, op->req[i]);
		struct nf_attr fake;

		if (!a)
			continue;
		if (nf_chance(w->r, 40)) {
			put_attr(w, a, 0, 0);
			continue;
		}
		switch (nf_below(w->r, 6)) {
		case 0: fake = u8a; break;
		case 1: fake = u64a; break;
		case 2: fake = stra; break;
		case 3: fake = bina; break;
		case 4:		/* a nest where a scalar goes, or the reverse */
			if (a->kind == NF_NEST) {
				fake = u64a;
			} else {
				size_t off = w_begin(w, a->type | NLA_F_NESTED);

				put_nest_body(w, nf_peer_set(), 1, 1);
				w_end(w, off);
				continue;
			}
			break;
		default:	/* the right payload, a type with flag bits */
			fake = *a;
			fake.type |= nf_chance(w->r, 50) ? NLA_F_NET_BYTEORDER : NLA_F_NESTED;
			put_attr(w, &fake, 0, 0);
			continue;
		}
		fake.type = a->type;
		put_attr(w, &fake, 1, 0);
	}
}

static void put_oversize(struct nf_w *w, const struct nf_op *op)
{
	unsigned int i, n;
	uint8_t addr[16];

	/* Ops without request attributes (notifications) get the last kind. */
	switch (op->n_req ? nf_below(w->r, 5) : 4) {
	case 0:		/* thousands of peers (bounded address space) */
	case 1:
		if (op->cmd != EASTWEST_CMD_NODE_SET)
			put_attr(w, nf_set_attr(op->set, op->req[0]), 0, 0);
		n = 200 + (unsigned int)nf_below(w->r, 2800);
		for (i = 0; i < n && w->len + 64 < w->cap; i++) {
			uint16_t host = (uint16_t)nf_below(w->r, 4096);
			size_t off;

			memset(addr, 0, sizeof(addr));
			addr[0] = 0x20, addr[1] = 0x01, addr[2] = 0x0d, addr[3] = 0xb8;
			addr[14] = (uint8_t)(host >> 8), addr[15] = (uint8_t)host;
			if (op->cmd == EASTWEST_CMD_NODE_SET) {
				w_attr(w, EASTWEST_A_NODE_ADDR, addr, 16);
				continue;
			}
			off = w_begin(w, EASTWEST_A_PEER_LIST_PEER | NLA_F_NESTED);
			w_attr(w, EASTWEST_A_PEER_ADDR, addr, 16);
			w_end(w, off);
		}
		if (op->cmd == EASTWEST_CMD_NODE_SET) {
			uint32_t adm = EASTWEST_ADMISSION_ADMITTED;

			w_attr(w, EASTWEST_A_NODE_ADMISSION, &adm, 4);
		}
		break;
	case 2:		/* more list entries than the module takes */
		put_body(w, op, 0);
		n = 30 + (unsigned int)nf_below(w->r, 50);
		for (i = 0; i < n; i++) {
			const struct nf_attr *a = nf_set_attr(op->set, op->req[nf_below(w->r, op->n_req)]);

			if (a && a->multi)
				put_attr(w, a, 0, 0);
		}
		break;
	case 3: {	/* one attribute of almost 64 KiB, or a nest past it */
		const struct nf_attr *a = nf_set_attr(op->set, op->req[nf_below(w->r, op->n_req)]);
		size_t off;

		if (!a)
			break;
		off = w_begin(w, a->type);

		n = 60000 + (unsigned int)nf_below(w->r, 10000);
		if (a->kind == NF_NEST) {
			while (w->len - off < n && w->len + 64 < w->cap)
				put_nest_body(w, a->nest, 0, 1);
		} else {
			for (i = 0; i < n; i++)
				w_put(w, "/", 1);
			w_put(w, "", 1);
		}
		w_end(w, off);
		break;
	}
	default:	/* thousands of unknown or repeated attributes */
		n = 1000 + (unsigned int)nf_below(w->r, 5000);
		for (i = 0; i < n && w->len + 32 < w->cap; i++) {
			uint32_t v = (uint32_t)nf_next(w->r);

			w_attr(w, (uint16_t)nf_below(w->r, op->set->max_type + 2), &v,
			       nf_below(w->r, 5));
		}
		break;
	}
}

static void mutate(struct nf_w *w, size_t from)
{
	unsigned int i, n = 1 + (unsigned int)nf_below(w->r, 8);

	for (i = 0; i < n && w->len > from; i++) {
		size_t at = from + nf_below(w->r, w->len - from);

		switch (nf_below(w->r, 6)) {
		case 0:
			w->b[at] ^= (uint8_t)(1u << nf_below(w->r, 8));
			break;
		case 1: {
			static const uint8_t v[] = { 0, 1, 0x7f, 0x80, 0xff, 4, 8 };

			w->b[at] = v[nf_below(w->r, sizeof(v))];
			break;
		}
		case 2: {	/* a 16-bit field (an nla_len?) to an edge */
			static const uint16_t v[] = { 0, 1, 3, 4, 5, 8, 0xfff, 0xffff };
			uint16_t x = v[nf_below(w->r, sizeof(v) / sizeof(v[0]))];

			at &= ~(size_t)1;
			if (at >= from && at + 2 <= w->len)
				memcpy(w->b + at, &x, 2);
			break;
		}
		case 3:		/* insert bytes */
			if (w->len + 8 <= w->cap) {
				size_t k = 1 + nf_below(w->r, 8);

				memmove(w->b + at + k, w->b + at, w->len - at);
				for (size_t j = 0; j < k; j++)
					w->b[at + j] = (uint8_t)nf_next(w->r);
				w->len += k;
			}
			break;
		case 4: {	/* delete bytes */
			size_t k = 1 + nf_below(w->r, 8);

			if (at + k > w->len)
				k = w->len - at;
			memmove(w->b + at, w->b + at + k, w->len - at - k);
			w->len -= k;
			break;
		}
		default: {	/* repeat a chunk */
			size_t k = 4 + nf_below(w->r, 28);

			if (at + k <= w->len && w->len + k <= w->cap) {
				memmove(w->b + at + k, w->b + at, w->len - at);
				w->len += k;
			}
			break;
		}
		}
	}
}

/* ---- the message ------------------------------------------------------- */

static enum nf_strategy pick_strategy(struct nf_rng *r)
{
	unsigned int x = (unsigned int)nf_below(r, 100), s;

	for (s = 0; s < NF_S_COUNT; s++) {
		if (x < nf_strategy_weight[s])
			return (enum nf_strategy)s;
		x -= nf_strategy_weight[s];
	}
	return NF_S_PLAUSIBLE;
}

/* Mostly an op with a request side; sometimes a notification or no op. */
static uint8_t pick_cmd(struct nf_rng *r, const struct nf_op **op)
{
	unsigned int x = (unsigned int)nf_below(r, 100);
	uint8_t cmd;

	if (x < 88) {
		do
			*op = &nf_ops[nf_below(r, nf_n_ops)];
		while (!(*op)->has_do && !(*op)->has_dump);
		return (*op)->cmd;
	}
	if (x < 94) {
		do
			*op = &nf_ops[nf_below(r, nf_n_ops)];
		while ((*op)->has_do || (*op)->has_dump);
		return (*op)->cmd;
	}
	cmd = (uint8_t)nf_next(r);
	*op = nf_op_by_cmd(cmd);
	if (!*op)
		*op = &nf_ops[nf_below(r, nf_n_ops)];	/* body of some op */
	return cmd;
}

void nf_gen(struct nf_rng *r, const struct nf_pools *p, uint16_t family,
	    uint32_t seq, struct nf_msg *m)
{
	struct nf_w w = { .b = m->buf, .len = 0, .cap = sizeof(m->buf), .r = r, .p = p };
	struct nlmsghdr nlh = { 0 };
	struct genlmsghdr genl = { 0 };
	const struct nf_op *op;
	size_t hdrlen = NLMSG_HDRLEN + GENL_HDRLEN;
	uint32_t nlmsg_len;
	enum nf_strategy s = pick_strategy(r);
	uint8_t cmd = pick_cmd(r, &op);

	m->strategy = s;
	nlh.nlmsg_type = family;
	nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh.nlmsg_seq = seq;
	/* A dump where the op has one; now and then a dump of a do-only op. */
	if ((op->has_dump && (!op->has_do || nf_chance(r, 35))) || nf_chance(r, 3))
		nlh.nlmsg_flags |= NLM_F_DUMP;
	genl.cmd = cmd;
	genl.version = EASTWEST_FAMILY_VERSION;

	w.len = hdrlen;
	switch (s) {
	case NF_S_PLAUSIBLE:
	case NF_S_HEADER:
	case NF_S_MUTATE:
		put_body(&w, op, 0);
		break;
	case NF_S_BOUNDARY:
	case NF_S_TRUNCATE:
		put_body(&w, op, 1);
		break;
	case NF_S_WRONG_TYPE:
		put_wrong_types(&w, op);
		break;
	case NF_S_NEST_GARBAGE: {
		unsigned int i, n = 1 + (unsigned int)nf_below(r, 4);

		put_body(&w, op, 0);
		for (i = 0; i < n; i++)
			put_garbage_nest(&w, (uint16_t)nf_below(r, op->set->max_type + 2), 0);
		break;
	}
	case NF_S_OVERSIZE:
		put_oversize(&w, op);
		break;
	default:
		break;
	}

	if (s == NF_S_HEADER) {
		static const uint16_t flags[] = {
			0, NLM_F_REQUEST, NLM_F_REQUEST | NLM_F_ROOT,
			NLM_F_REQUEST | NLM_F_MATCH, NLM_F_REQUEST | NLM_F_ECHO,
			NLM_F_REQUEST | NLM_F_ACK | NLM_F_ATOMIC,
			NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
			NLM_F_ACK | NLM_F_DUMP,
		};

		switch (nf_below(r, 6)) {
		case 0:
			nlh.nlmsg_flags = flags[nf_below(r, sizeof(flags) / sizeof(flags[0]))];
			break;
		case 1:
			nlh.nlmsg_flags = (uint16_t)nf_next(r) | NLM_F_REQUEST;
			break;
		case 2:
			genl.version = (uint8_t)nf_next(r);
			break;
		case 3:
			genl.reserved = (uint16_t)(1 + nf_below(r, 0xffff));
			break;
		case 4:		/* control types never reach the family */
			nlh.nlmsg_type = (uint16_t)nf_below(r, NLMSG_MIN_TYPE);
			break;
		default:
			nlh.nlmsg_pid = (uint32_t)nf_next(r);
			break;
		}
	}

	nlmsg_len = (uint32_t)w.len;
	nlh.nlmsg_len = nlmsg_len;
	memcpy(w.b, &nlh, sizeof(nlh));
	memcpy(w.b + NLMSG_HDRLEN, &genl, sizeof(genl));

	if (s == NF_S_MUTATE) {
		/* Mostly the body; sometimes the genl header and flags too. */
		mutate(&w, nf_chance(r, 85) ? hdrlen : NLMSG_HDRLEN - 10);
		/*
		 * Mostly frame the result exactly. Otherwise only a frame
		 * longer than the datagram (the kernel drops it): bytes past
		 * a shorter frame would be read as another message, of any
		 * netlink family.
		 */
		if (nf_chance(r, 90) || nlmsg_len < w.len) {
			nlmsg_len = (uint32_t)w.len;
			memcpy(w.b, &nlmsg_len, sizeof(nlmsg_len));
		}
		/* Never another family, never another sequence number. */
		memcpy(w.b + 4, &family, sizeof(family));
		memcpy(w.b + 8, &seq, sizeof(seq));
	} else if (s == NF_S_TRUNCATE) {
		size_t cut = nf_below(r, w.len);

		if (cut >= NLMSG_HDRLEN && nf_chance(r, 60)) {
			nlmsg_len = (uint32_t)cut;	/* framed: the attributes end early */
			memcpy(w.b, &nlmsg_len, sizeof(nlmsg_len));
		}
		w.len = cut;
	}
	m->len = w.len;
}
