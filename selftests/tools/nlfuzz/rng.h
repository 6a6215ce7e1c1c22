/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small deterministic PRNG (splitmix64). Every fuzz message gets its own
 * stream, derived from the run's seed and the message's index, so that a
 * message can be regenerated alone (--show) and a run replays exactly from
 * its seed.
 */
#ifndef EW_NLFUZZ_RNG_H
#define EW_NLFUZZ_RNG_H

#include <stdint.h>

struct nf_rng {
	uint64_t s;
};

static inline uint64_t nf_next(struct nf_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The stream of message @index of a run seeded with @seed. */
static inline void nf_rng_init(struct nf_rng *r, uint64_t seed, uint64_t index)
{
	r->s = seed;
	r->s = nf_next(r) ^ (index * 0xd1342543de82ef95ULL);
	nf_next(r);
}

/* Uniform in [0, n); n > 0. The bias of the modulo is irrelevant here. */
static inline uint64_t nf_below(struct nf_rng *r, uint64_t n)
{
	return nf_next(r) % n;
}

/* True with probability pct percent. */
static inline int nf_chance(struct nf_rng *r, unsigned int pct)
{
	return nf_below(r, 100) < pct;
}

#endif
