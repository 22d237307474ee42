/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prng.c — xorshift for the tests' random cases. */
#include "prng.h"

uint32_t prng32(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

uint64_t prng64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

void prng_fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed;

	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)prng32(&x);
}
