/* SPDX-License-Identifier: GPL-2.0-or-later */
/* splitmix64: tiny, seedable, good enough for payload filler (not security). */
#include "rng.h"

/* splitmix64 constants (Steele, Lea, Flood 2014). */
#define SM_GAMMA	0x9E3779B97F4A7C15ull
#define SM_MUL1		0xBF58476D1CE4E5B9ull
#define SM_MUL2		0x94D049BB133111EBull

void rng_seed(struct rng *r, uint64_t seed)
{
	r->state = seed;
}

static uint64_t rng_next64(struct rng *r)
{
	uint64_t z = (r->state += SM_GAMMA);

	z = (z ^ (z >> 30)) * SM_MUL1;
	z = (z ^ (z >> 27)) * SM_MUL2;
	return z ^ (z >> 31);
}

uint32_t rng_next32(struct rng *r)
{
	return (uint32_t)(rng_next64(r) >> 32);
}

void rng_fill(struct rng *r, uint8_t *p, size_t len)
{
	size_t i;
	uint64_t v = 0;

	for (i = 0; i < len; i++) {
		if (i % 8 == 0)
			v = rng_next64(r);
		p[i] = (uint8_t)(v >> (8 * (i % 8)));
	}
}
