/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crc16.h — the CRC16 every FS2 checksum uses (fs2-format.md §2.1).
 *
 * Polynomial 0x100B, register initialised to 0xFFFF, fed whole big-endian
 * dwords MSB first in the "augmented" form, finished with 16 zero bits and an
 * XOR with 0xFFFF. The stored form is a dword with the CRC in bits 15:0.
 */
#ifndef CX_CRC16_H
#define CX_CRC16_H

#include <stddef.h>
#include <stdint.h>

struct crc16 {
	uint16_t reg;
};

void crc16_init(struct crc16 *c);
void crc16_add_dword(struct crc16 *c, uint32_t dw);
/* Feed len bytes (a multiple of 4) as big-endian dwords. */
void crc16_add_be(struct crc16 *c, const uint8_t *p, size_t len);
uint16_t crc16_finish(struct crc16 *c);

/* One-shot CRC of len bytes (a multiple of 4) of big-endian dwords. */
uint16_t crc16_be(const uint8_t *p, size_t len);

#endif
