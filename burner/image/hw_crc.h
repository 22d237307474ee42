/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hw_crc.h — the CRC that guards each FS4 hardware pointer (fs3-format.md §4.2).
 *
 * Not the FS2/FS3 CRC16 (crc16.h): the same polynomial 0x100B, but run
 * reflected (LSB first, 0xD008), register initialised to 0xFFFF, the first two
 * data bytes inverted before they are fed, and the result byte-swapped. Over
 * the 6 bytes of a pointer entry (the pointer dword and the first half of the
 * CRC dword); the stored CRC is bits 15:0 of the entry's second dword.
 * Re-derived from those parameters (mstflint mft_utils/calc_hw_crc.c), bit by
 * bit, with no table: it runs over 96 bytes per image.
 */
#ifndef CX_HW_CRC_H
#define CX_HW_CRC_H

#include <stddef.h>
#include <stdint.h>

uint16_t hw_crc(const uint8_t *p, size_t len);

#endif
