/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prng.h — test-only: the one pseudo-random generator of the tests (Marsaglia's xorshift).
 *
 * Random cases come from fixed seeds, so a failure found once is found again on every
 * run and on every machine; a test keeps its own state, so the cases one test draws do
 * not move when another test draws more. Not for anything that needs unpredictability.
 * The state must not start at 0 (xorshift would stay there). */
#ifndef CX_TEST_PRNG_H
#define CX_TEST_PRNG_H

#include <stddef.h>
#include <stdint.h>

/* xorshift32 (shifts 13, 17, 5): advance *state and return its new value. */
uint32_t prng32(uint32_t *state);

/* xorshift64 (shifts 13, 7, 17): the same over 64 bits. */
uint64_t prng64(uint64_t *state);

/* p[0..n) = the low bytes of n prng32 values drawn from a generator started at seed:
 * the same seed gives the same bytes. */
void prng_fill(uint8_t *p, size_t n, uint32_t seed);

#endif
