/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_zebra.c — failsafe address translation, fs2-format.md §1.5. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "image/zebra.h"
#include "prng.h"

/* flint's FBase::cont2phys as fs2-format.md §1.5 describes it, written out
 * independently: phys = (a & (C-1)) | (slot << log2C) | ((a << 1) & ~(2C-1)). */
static uint32_t ref_cont2phys(uint32_t a, unsigned log2c, unsigned slot)
{
	uint64_t c = 1ull << log2c;

	return (uint32_t)((a & (c - 1)) | ((uint64_t)slot << log2c) | (((uint64_t)a << 1) & ~(2 * c - 1)));
}

static uint32_t rng = 0x2545F491; /* prng32 state */

/* The worked example of §1.5: C = 512 KiB (log2 19), slot 1. */
static void test_doc_example(void **state)
{
	(void)state;
	unsigned slot = 9;

	assert_int_equal(zebra_cont2phys(0, 19, 1), 0x80000);
	assert_int_equal(zebra_cont2phys(0x80000, 19, 1), 0x180000);
	assert_int_equal(zebra_phys2cont(0x80000, 19, &slot), 0);
	assert_int_equal(slot, 1);
	assert_int_equal(zebra_phys2cont(0x180000, 19, &slot), 0x80000);
	assert_int_equal(slot, 1);
}

/* Hand-computed values for slot 0 and offsets inside a chunk. */
static void test_hand_values(void **state)
{
	(void)state;
	/* slot 0 is the even chunks: chunk k of the image lands in physical chunk 2k. */
	assert_int_equal(zebra_cont2phys(0, 19, 0), 0);
	assert_int_equal(zebra_cont2phys(0x7FFFC, 19, 0), 0x7FFFC);
	assert_int_equal(zebra_cont2phys(0x80000, 19, 0), 0x100000);
	assert_int_equal(zebra_cont2phys(0x80010, 19, 0), 0x100010);
	assert_int_equal(zebra_cont2phys(0x123456, 19, 0), 0x223456);
	/* slot 1, offset inside chunk 2 */
	assert_int_equal(zebra_cont2phys(0x123456, 19, 1), 0x2A3456);
	/* 64 KiB chunks */
	assert_int_equal(zebra_cont2phys(0x1FFFF, 16, 1), 0x3FFFF);
	assert_int_equal(zebra_cont2phys(0x20000, 16, 1), 0x50000);
	/* 8 MiB chunks */
	assert_int_equal(zebra_cont2phys(0x7FFFFF, 23, 1), 0xFFFFFF);
	assert_int_equal(zebra_cont2phys(0x800000, 23, 0), 0x1000000);
}

/* For every chunk size and both slots: agrees with the reference, round-trips,
 * and phys2cont reports the slot. */
static void test_all_chunks_round_trip(void **state)
{
	(void)state;
	rng = 0x2545F491;
	for (unsigned l = ZEBRA_LOG2CHUNK_MIN; l <= ZEBRA_LOG2CHUNK_MAX; l++) {
		uint32_t c = 1u << l;
		for (unsigned slot = 0; slot < 2; slot++) {
			uint32_t edge[] = {0, 1, 4, c - 4, c - 1, c, c + 4, 2 * c - 1, 2 * c,
					   3 * c + 0x100, 0x1000000 - 4, 0x7FFFFFFC};
			for (unsigned i = 0; i < sizeof(edge) / sizeof(edge[0]) + 2000; i++) {
				/* addresses below 2^31 so the physical address fits 32 bits */
				uint32_t a = i < sizeof(edge) / sizeof(edge[0]) ? edge[i] : prng32(&rng) & 0x7FFFFFFF;
				uint32_t p = zebra_cont2phys(a, l, slot);
				unsigned got = 7;

				assert_int_equal(p, ref_cont2phys(a, l, slot));
				/* the slot bit sits at bit log2chunk */
				assert_int_equal((p >> l) & 1, slot);
				/* offset inside the chunk is unchanged */
				assert_int_equal(p & (c - 1), a & (c - 1));
				assert_int_equal(zebra_phys2cont(p, l, &got), a);
				assert_int_equal(got, slot);
			}
		}
	}
}

/* phys → cont → phys over random physical addresses: a bijection per slot. */
static void test_phys_round_trip(void **state)
{
	(void)state;
	rng = 0x9E3779B9;
	for (unsigned l = ZEBRA_LOG2CHUNK_MIN; l <= ZEBRA_LOG2CHUNK_MAX; l++) {
		for (int i = 0; i < 3000; i++) {
			uint32_t p = prng32(&rng);
			unsigned slot = 5;
			uint32_t a = zebra_phys2cont(p, l, &slot);

			assert_true(slot == 0 || slot == 1);
			assert_int_equal(slot, (p >> l) & 1);
			assert_int_equal(zebra_cont2phys(a, l, slot), p);
		}
	}
}

/* Physical chunks alternate between the slots: walking a flash of 8 chunks,
 * each slot's chunks map to consecutive contiguous chunks. */
static void test_chunk_interleave(void **state)
{
	(void)state;
	for (unsigned l = ZEBRA_LOG2CHUNK_MIN; l <= ZEBRA_LOG2CHUNK_MAX; l++) {
		uint32_t c = 1u << l;
		for (uint32_t k = 0; k < 8; k++) {
			unsigned slot;
			uint32_t a = zebra_phys2cont(k * c + 12, l, &slot);

			assert_int_equal(slot, k & 1);
			assert_int_equal(a, (k / 2) * c + 12);
		}
	}
}

/* A walk's pieces cover the range in order, none crosses a chunk, and each byte of a piece is
 * where zebra_cont2phys puts it; off a failsafe flash the range is one piece at start + off. */
static void test_walk_pieces(void **state)
{
	(void)state;
	uint32_t seed = 0x5eedu;
	for (unsigned l = ZEBRA_LOG2CHUNK_MIN; l <= ZEBRA_LOG2CHUNK_MIN + 3; l++) {
		for (int i = 0; i < 500; i++) {
			uint32_t c = 1u << l, off = prng32(&seed) % (4 * c), len = prng32(&seed) % (3 * c);
			unsigned slot = i & 1, pieces = 0;
			struct zebra_walk w;
			uint32_t expect_done = 0;

			for (zebra_walk_begin(&w, true, l, slot, 0, off, len); w.n; zebra_walk_next(&w)) {
				assert_int_equal(w.done, expect_done);
				assert_int_equal(w.phys, zebra_cont2phys(off + w.done, l, slot));
				assert_int_equal(w.phys + w.n - 1, zebra_cont2phys(off + w.done + w.n - 1, l, slot));
				assert_int_equal((off + w.done) / c, (off + w.done + w.n - 1) / c);
				expect_done += w.n;
				pieces++;
			}
			assert_int_equal(expect_done, len);
			assert_int_equal(pieces, len ? (off + len - 1) / c - off / c + 1 : 0);

			zebra_walk_begin(&w, false, 0, 0, 0x100000, off, len);
			assert_int_equal(w.n, len);
			if (len) {
				assert_int_equal(w.phys, 0x100000 + off);
				zebra_walk_next(&w);
				assert_int_equal(w.n, 0);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doc_example),
		cmocka_unit_test(test_hand_values),
		cmocka_unit_test(test_all_chunks_round_trip),
		cmocka_unit_test(test_phys_round_trip),
		cmocka_unit_test(test_chunk_interleave),
		cmocka_unit_test(test_walk_pieces),
	};
	return cmocka_run_group_tests_name("zebra", tests, NULL, NULL);
}
