/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The FS4 HW pointer CRC: a table built from the polynomial, and a bitwise reference. */
#include "hwcrc.h"

#include <stdio.h>
#include <string.h>

/* calc_hw_crc.c table: the FS2 CRC16 polynomial x^16+x^12+x^3+x+1 ... */
#define HW_CRC_POLY		0x100Bu
/* ... taken bit-reversed: the register shifts right (calc_hw_crc.c's table). */
#define HW_CRC_POLY_WIDTH	16
#define HW_CRC_INIT		0xFFFFu	/* calc_hw_crc: crc = 0xffff */
#define HW_CRC_INVERTED_BYTES	2	/* calc_hw_crc: data[0], data[1] inverted */
#define HW_PTR_CRC_LEN		6	/* getExtendedHWAravaPtrs: calc_hw_crc(entry, 6) */

static uint16_t table[256];
static int ready;

static uint16_t reflect16(uint16_t v)
{
	uint16_t r = 0;
	int i;

	for (i = 0; i < HW_CRC_POLY_WIDTH; i++)
		if (v & (1u << i))
			r |= (uint16_t)(1u << (HW_CRC_POLY_WIDTH - 1 - i));
	return r;
}

static void table_init(void)
{
	uint16_t poly = reflect16(HW_CRC_POLY);
	unsigned int i, k;

	for (i = 0; i < 256; i++) {
		uint16_t c = (uint16_t)i;

		for (k = 0; k < 8; k++)
			c = (c & 1) ? (uint16_t)((c >> 1) ^ poly) : (uint16_t)(c >> 1);
		table[i] = c;
	}
	ready = 1;
}

static uint8_t data_byte(const uint8_t *p, size_t i)
{
	return i < HW_CRC_INVERTED_BYTES ? (uint8_t)~p[i] : p[i];
}

static uint16_t swap16(uint16_t v)
{
	return (uint16_t)((v << 8) | (v >> 8));
}

uint16_t hw_crc(const uint8_t *p, size_t len)
{
	uint16_t crc = HW_CRC_INIT;
	size_t i;

	if (!ready)
		table_init();
	for (i = 0; i < len; i++)
		crc = (uint16_t)((crc >> 8) ^ table[(crc ^ data_byte(p, i)) & 0xFF]);
	return swap16(crc);
}

/* One bit at a time, LSB first, straight from the parameters. */
static uint16_t hw_crc_bitwise(const uint8_t *p, size_t len)
{
	uint16_t poly = reflect16(HW_CRC_POLY), crc = HW_CRC_INIT;
	size_t i;
	int b;

	for (i = 0; i < len; i++) {
		crc ^= data_byte(p, i);
		for (b = 0; b < 8; b++)
			crc = (crc & 1) ? (uint16_t)((crc >> 1) ^ poly) : (uint16_t)(crc >> 1);
	}
	return swap16(crc);
}

#define SELFTEST_LEN	256
#define LCG_MUL		1103515245u
#define LCG_ADD		12345u

int hw_crc_selftest(void)
{
	uint8_t buf[SELFTEST_LEN];
	uint8_t zero[HW_PTR_CRC_LEN];
	uint32_t x = 7;
	size_t i, len;
	int fail = 0;

	memset(zero, 0, sizeof(zero));
	/* getExtendedHWAravaPtrs turns a blank (0xFFFFFFFF) entry into zeros and still checks it. */
	if (hw_crc(zero, HW_PTR_CRC_LEN) != 0) {
		printf("hw_crc of a zero entry is 0x%04x, want 0\n", hw_crc(zero, HW_PTR_CRC_LEN));
		fail = 1;
	}
	for (i = 0; i < sizeof(buf); i++) {
		x = x * LCG_MUL + LCG_ADD;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (len = 0; len <= sizeof(buf); len++) {
		if (hw_crc(buf, len) != hw_crc_bitwise(buf, len)) {
			printf("hw_crc table/bitwise mismatch at length %zu\n", len);
			fail = 1;
			break;
		}
	}
	/* The table itself: entry 1 is the reflected polynomial pushed through 8 shifts. */
	printf("hw_crc table[1] 0x%04x, reflected poly 0x%04x, table/bitwise %s on %d lengths\n",
	       table[1], reflect16(HW_CRC_POLY), fail ? "DISAGREE" : "agree", SELFTEST_LEN + 1);
	return fail;
}
