/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Table-driven FS2 CRC16 plus the bitwise reference it is checked against. */
#include "crc16.h"

#include <stdio.h>

#include "be.h"

/* §2.1: x^16 + x^12 + x^3 + x + 1. */
#define CRC16_POLY	0x100Bu
/* §2.1: the augmented register starts at 0xFFFF and the result is inverted. */
#define CRC16_AUG_INIT	0xFFFFu
#define CRC16_XOROUT	0xFFFFu
#define CRC16_TOP_BIT	0x8000u
#define CRC16_MASK	0xFFFFu
#define CRC16_WIDTH	16

static uint16_t crc_table[256];
static uint16_t crc_direct_init;
static int crc_ready;

/* One step of mstflint's augmented form: the data bit enters at the LSB. */
static uint16_t aug_step(uint16_t crc, unsigned int bit)
{
	unsigned int top = crc & CRC16_TOP_BIT;

	crc = (uint16_t)(((unsigned int)crc << 1 | bit) & CRC16_MASK);
	if (top)
		crc ^= CRC16_POLY;
	return crc;
}

static void crc_init(void)
{
	unsigned int i, k;

	for (i = 0; i < 256; i++) {
		unsigned int c = i << 8;

		for (k = 0; k < 8; k++)
			c = (c & CRC16_TOP_BIT) ? (c << 1) ^ CRC16_POLY : c << 1;
		crc_table[i] = (uint16_t)(c & CRC16_MASK);
	}
	/*
	 * The augmented form flushes 16 zero bits at the end; the direct (table)
	 * form does not. They agree when the direct register starts at the
	 * augmented init pushed through 16 zero bits (this gives §2.1's 0xF6AA).
	 */
	crc_direct_init = CRC16_AUG_INIT;
	for (k = 0; k < CRC16_WIDTH; k++)
		crc_direct_init = aug_step(crc_direct_init, 0);
	crc_ready = 1;
}

uint16_t crc16_fs2(const uint8_t *p, size_t len)
{
	uint16_t crc;
	size_t i;

	if (!crc_ready)
		crc_init();
	crc = crc_direct_init;
	for (i = 0; i < len; i++)
		crc = (uint16_t)((crc << 8) ^ crc_table[((crc >> 8) ^ p[i]) & 0xFF]);
	return (uint16_t)(crc ^ CRC16_XOROUT);
}

/* Literal transcription of §2.1: dword by dword, MSB first, then 16 zero bits. */
static uint16_t crc16_bitwise(const uint8_t *p, size_t len)
{
	uint16_t crc = CRC16_AUG_INIT;
	size_t i;
	int b;

	for (i = 0; i + 4 <= len; i += 4) {
		uint32_t dw = get_be32(p + i);

		for (b = 31; b >= 0; b--)
			crc = aug_step(crc, (dw >> b) & 1);
	}
	for (b = 0; b < CRC16_WIDTH; b++)
		crc = aug_step(crc, 0);
	return (uint16_t)(crc ^ CRC16_XOROUT);
}

struct crc_vector {
	const char *name;
	uint32_t dw[4];
	size_t ndw;
	uint16_t crc;
};

/* §2.1 test vectors (dword input). */
static const struct crc_vector vectors[] = {
	{ "{0x00000000}", { 0x00000000 }, 1, 0x0009 },
	{ "{0xFFFFFFFF}", { 0xFFFFFFFF }, 1, 0xC41A },
	{ "{1,2,3,4}", { 1, 2, 3, 4 }, 4, 0xF6F1 },
	{ "FS2 magic", { 0x4D544657, 0x8CDFD000, 0xDEAD9270, 0x4154BEEF }, 4, 0xD3D0 },
};

#define SELFTEST_RANDOM_LEN	1024
#define SELFTEST_LCG_MUL	1103515245u
#define SELFTEST_LCG_ADD	12345u

int crc16_selftest(void)
{
	uint8_t buf[SELFTEST_RANDOM_LEN];
	uint32_t x = 1;
	size_t i, k;
	int fail = 0;

	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const struct crc_vector *v = &vectors[i];
		uint16_t t, r;

		for (k = 0; k < v->ndw; k++)
			put_be32(buf + 4 * k, v->dw[k]);
		t = crc16_fs2(buf, 4 * v->ndw);
		r = crc16_bitwise(buf, 4 * v->ndw);
		printf("crc16 %-14s table 0x%04x bitwise 0x%04x want 0x%04x %s\n",
		       v->name, t, r, v->crc,
		       (t == v->crc && r == v->crc) ? "ok" : "FAIL");
		if (t != v->crc || r != v->crc)
			fail = 1;
	}
	/* Every dword-multiple length of a pseudo-random buffer must agree too. */
	for (i = 0; i < sizeof(buf); i++) {
		x = x * SELFTEST_LCG_MUL + SELFTEST_LCG_ADD;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (i = 0; i <= sizeof(buf); i += 4) {
		if (crc16_fs2(buf, i) != crc16_bitwise(buf, i)) {
			printf("crc16 table/bitwise mismatch at length %zu\n", i);
			fail = 1;
			break;
		}
	}
	if (!fail)
		printf("crc16 table/bitwise agree on %d random lengths\n",
		       SELFTEST_RANDOM_LEN / 4 + 1);
	return fail;
}
