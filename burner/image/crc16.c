/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crc16.c — the FS2 CRC16, bit by bit, exactly as fs2-format.md §2.1 states it.
 * Images are at most a few MiB, so clarity wins over a table here. */
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

void crc16_add_dword(struct crc16 *c, uint32_t dw)
{
	for (int i = 31; i >= 0; i--)
		step(c, (dw >> i) & 1);
}

void crc16_add_be(struct crc16 *c, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 4 <= len; i += 4)
		crc16_add_dword(c, be32(p + i));
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
