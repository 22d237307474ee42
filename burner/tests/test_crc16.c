/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_crc16.c — the FS2 CRC16 against fs2-format.md §2.1. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "image/crc16.h"
#include "prng.h"

/* The standard (table-free, bytewise) form of §2.1, written independently of
 * crc16.c: non-reflected CRC-16, poly 0x100B, init 0xF6AA, xorout 0xFFFF. */
static uint16_t ref_crc(const uint8_t *p, size_t len)
{
	uint16_t c = 0xF6AA;

	for (size_t i = 0; i < len; i++) {
		c ^= (uint16_t)(p[i] << 8);
		for (int b = 0; b < 8; b++)
			c = (c & 0x8000) ? (uint16_t)((c << 1) ^ 0x100B) : (uint16_t)(c << 1);
	}
	return c ^ 0xFFFF;
}

/* The random cases' generator (prng.h): seeded, so failures reproduce. */
static uint32_t rng = 0x12345678;

static uint16_t crc_of_dwords(const uint32_t *dw, size_t n)
{
	struct crc16 c;

	crc16_init(&c);
	for (size_t i = 0; i < n; i++)
		crc16_add_dword(&c, dw[i]);
	return crc16_finish(&c);
}

static void to_be(const uint32_t *dw, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++) {
		out[4 * i] = (uint8_t)(dw[i] >> 24);
		out[4 * i + 1] = (uint8_t)(dw[i] >> 16);
		out[4 * i + 2] = (uint8_t)(dw[i] >> 8);
		out[4 * i + 3] = (uint8_t)dw[i];
	}
}

/* §2.1 test vectors, fed as dwords. */
static void test_vectors_dwords(void **state)
{
	(void)state;
	static const uint32_t zero[] = {0};
	static const uint32_t ones[] = {0xFFFFFFFF};
	static const uint32_t seq[] = {1, 2, 3, 4};
	static const uint32_t magic[] = {0x4D544657, 0x8CDFD000, 0xDEAD9270, 0x4154BEEF};

	assert_int_equal(crc_of_dwords(zero, 1), 0x0009);
	assert_int_equal(crc_of_dwords(ones, 1), 0xC41A);
	assert_int_equal(crc_of_dwords(seq, 4), 0xF6F1);
	assert_int_equal(crc_of_dwords(magic, 4), 0xD3D0);
}

/* The same vectors through the byte interfaces (big-endian dwords). */
static void test_vectors_bytes(void **state)
{
	(void)state;
	static const uint8_t zero[4] = {0, 0, 0, 0};
	static const uint8_t ones[4] = {0xFF, 0xFF, 0xFF, 0xFF};
	static const uint8_t seq[16] = {0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4};
	static const uint8_t magic[16] = {'M', 'T', 'F', 'W', 0x8C, 0xDF, 0xD0, 0x00,
					  0xDE, 0xAD, 0x92, 0x70, 0x41, 0x54, 0xBE, 0xEF};

	assert_int_equal(crc16_be(zero, 4), 0x0009);
	assert_int_equal(crc16_be(ones, 4), 0xC41A);
	assert_int_equal(crc16_be(seq, 16), 0xF6F1);
	assert_int_equal(crc16_be(magic, 16), 0xD3D0);
}

/* The reference itself: the §2.1 check value and the dword vectors. */
static void test_reference_sane(void **state)
{
	(void)state;
	static const uint8_t magic[16] = {'M', 'T', 'F', 'W', 0x8C, 0xDF, 0xD0, 0x00,
					  0xDE, 0xAD, 0x92, 0x70, 0x41, 0x54, 0xBE, 0xEF};
	static const uint8_t seq[16] = {0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4};

	assert_int_equal(ref_crc((const uint8_t *)"123456789", 9), 0x9EF2);
	assert_int_equal(ref_crc(magic, 16), 0xD3D0);
	assert_int_equal(ref_crc(seq, 16), 0xF6F1);
}

/* Empty input: only the 16 flush bits and the final XOR. Computed by hand from
 * §2.1: 0xFFFF shifted 16 times with poly 0x100B = reg, then ^0xFFFF; the
 * standard form gives the same via init 0xF6AA ^ 0xFFFF = 0x0955. */
static void test_empty(void **state)
{
	(void)state;
	struct crc16 c;

	crc16_init(&c);
	assert_int_equal(crc16_finish(&c), 0xF6AA ^ 0xFFFF);
	assert_int_equal(crc16_be((const uint8_t *)"", 0), 0x0955);
}

/* crc16_be over bytes == incremental crc16_add_dword == crc16_add_be in pieces. */
static void test_incremental(void **state)
{
	(void)state;
	enum { N = 97 };
	uint32_t dw[N];
	uint8_t bytes[4 * N];

	rng = 0xC0FFEE01;
	for (int round = 0; round < 50; round++) {
		size_t n = 1 + prng32(&rng) % N;
		for (size_t i = 0; i < n; i++)
			dw[i] = prng32(&rng);
		to_be(dw, n, bytes);

		uint16_t one_shot = crc16_be(bytes, 4 * n);
		assert_int_equal(one_shot, crc_of_dwords(dw, n));

		/* Feed the bytes in random dword-aligned pieces. */
		struct crc16 c;
		crc16_init(&c);
		size_t off = 0;
		while (off < 4 * n) {
			size_t piece = 4 * (1 + prng32(&rng) % 5);
			if (piece > 4 * n - off)
				piece = 4 * n - off;
			crc16_add_be(&c, bytes + off, piece);
			off += piece;
		}
		assert_int_equal(crc16_finish(&c), one_shot);
	}
}

/* The standard-form equivalence of §2.1 over random buffers (fixed seed),
 * each in an exact-size heap block so ASan catches any overread. */
static void test_standard_form(void **state)
{
	(void)state;
	rng = 0x5EED5EED;
	for (int round = 0; round < 300; round++) {
		size_t len = 4 * (prng32(&rng) % 600);
		uint8_t *p = malloc(len ? len : 1);
		assert_non_null(p);
		for (size_t i = 0; i < len; i++)
			p[i] = (uint8_t)prng32(&rng);
		assert_int_equal(crc16_be(p, len), ref_crc(p, len));
		free(p);
	}
}

/* A single flipped bit anywhere changes the CRC (CRC-16 detects all 1-bit errors). */
static void test_single_bit_errors(void **state)
{
	(void)state;
	uint8_t buf[64];

	rng = 0xB17B17;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)prng32(&rng);
	uint16_t base = crc16_be(buf, sizeof(buf));
	for (size_t bit = 0; bit < 8 * sizeof(buf); bit++) {
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_not_equal(crc16_be(buf, sizeof(buf)), base);
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	assert_int_equal(crc16_be(buf, sizeof(buf)), base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors_dwords),
		cmocka_unit_test(test_vectors_bytes),
		cmocka_unit_test(test_reference_sane),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_incremental),
		cmocka_unit_test(test_standard_form),
		cmocka_unit_test(test_single_bit_errors),
	};
	return cmocka_run_group_tests_name("crc16", tests, NULL, NULL);
}
