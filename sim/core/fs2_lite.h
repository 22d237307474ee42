/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs2_lite.h — the boot ROM's own big-endian and CRC16 helpers (fs2-format.md §2.1).
 *
 * Deliberately independent of burner/ and sim/mkfs2/: a bug in one of them
 * must not hide the same bug here.
 *
 * The CRC16 is mstflint's Crc16 (poly 0x100B, register 0xFFFF, data entering
 * at the LSB, 16 zero bits to finish, xor 0xFFFF). Fed bytes in image order,
 * that equals the plain non-reflected CRC with init 0xF6AA and xorout 0xFFFF,
 * which is what this computes, one byte at a time: bit by bit in
 * fs2l_crc_byte_slow(), from a table of it in fs2l_crc_byte() (the boot ROM runs
 * at every power-on of the model, millions of bytes in a power-cut campaign).
 */
#ifndef CXSIM_FS2_LITE_H
#define CXSIM_FS2_LITE_H

#include <stdint.h>

#define FS2L_CRC_INIT 0xF6AAu

static inline uint32_t fs2l_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint16_t fs2l_crc_byte_slow(uint16_t crc, uint8_t byte)
{
	crc ^= (uint16_t)(byte << 8);
	for (int i = 0; i < 8; i++)
		crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x100B) : (uint16_t)(crc << 1);
	return crc;
}

/* The table: fs2l_crc_byte_slow(0, i) for every i, made on first use (bootrom.c). */
extern const uint16_t *fs2l_crc_table(void);

static inline uint16_t fs2l_crc_byte(uint16_t crc, uint8_t byte)
{
	return (uint16_t)(crc << 8) ^ fs2l_crc_table()[(crc >> 8) ^ byte];
}

static inline uint16_t fs2l_crc_final(uint16_t crc)
{
	return crc ^ 0xFFFF;
}

#endif
