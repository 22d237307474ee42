/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crc16.c — the FS2 CRC16 as fs2-format.md §2.1 states it: step() is the rule,
 * bit by bit. Whole bytes go through a 256-entry table made from step() itself
 * (the boot ROM model and the power-cut campaigns check millions of bytes, and
 * bit by bit that was most of their time). */
#include "image/crc16.h"
#include "util/bytes.h"

#define CRC16_POLY 0x100B /* x^16 + x^12 + x^3 + x + 1, fs2-format.md §2.1 */
#define CRC16_INIT 0xFFFF /* fs2-format.md §2.1 */
#define CRC16_XOROUT 0xFFFF

static void step(struct crc16 *c, unsigned bit)
{
	unsigned top = c->reg & 0x8000;

	c->reg = (uint16_t)((c->reg << 1) | bit);
	if (top)
		c->reg ^= CRC16_POLY;
}

void crc16_init(struct crc16 *c)
{
	c->reg = CRC16_INIT;
}

/* Eight steps only ever test the register's top byte (the bits below it reach
 * bit 15 after the eighth), so shifting a byte in is a shift and one XOR that
 * depends on that top byte alone: table[top] is what eight zero steps make of
 * top << 8. */
static uint16_t table[256];
static int have_table;

static void make_table(void)
{
	for (unsigned top = 0; top < 256; top++) {
		struct crc16 t = {(uint16_t)(top << 8)};
		for (int i = 0; i < 8; i++)
			step(&t, 0);
		table[top] = t.reg;
	}
	have_table = 1;
}

static void add_byte(struct crc16 *c, uint8_t b)
{
	c->reg = (uint16_t)((c->reg << 8 | b) ^ table[c->reg >> 8]);
}

void crc16_add_dword(struct crc16 *c, uint32_t dw)
{
	if (!have_table)
		make_table();
	for (int s = 24; s >= 0; s -= 8)
		add_byte(c, (uint8_t)(dw >> s));
}

void crc16_add_be(struct crc16 *c, const uint8_t *p, size_t len)
{
	if (!have_table)
		make_table();
	for (size_t i = 0; i + 4 <= len; i += 4)
		for (int k = 0; k < 4; k++)
			add_byte(c, p[i + k]);
}

uint16_t crc16_finish(struct crc16 *c)
{
	for (int i = 0; i < 16; i++)
		step(c, 0);
	return c->reg ^ CRC16_XOROUT;
}

uint16_t crc16_be(const uint8_t *p, size_t len)
{
	struct crc16 c;

	crc16_init(&c);
	crc16_add_be(&c, p, len);
	return crc16_finish(&c);
}
