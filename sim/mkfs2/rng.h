/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Deterministic filler bytes, so equal options give byte-identical images. */
#ifndef MKFS2_RNG_H
#define MKFS2_RNG_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t state;
};

void rng_seed(struct rng *r, uint64_t seed);
uint32_t rng_next32(struct rng *r);
void rng_fill(struct rng *r, uint8_t *p, size_t len);

#endif
