/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hw_crc.c — the FS4 hardware-pointer CRC (fs3-format.md §4.2). */
#include "image/hw_crc.h"

#define HW_CRC_POLY_REFLECTED 0xD008u /* 0x100B bit-reversed over 16 bits, §4.2 */
#define HW_CRC_INIT 0xFFFFu           /* calc_hw_crc's initial register, §4.2 */
#define HW_CRC_INVERTED_BYTES 2       /* bytes 0 and 1 are fed inverted, §4.2 */

uint16_t hw_crc(const uint8_t *p, size_t len)
{
	uint16_t crc = HW_CRC_INIT;

	for (size_t i = 0; i < len; i++) {
		uint8_t b = i < HW_CRC_INVERTED_BYTES ? (uint8_t)~p[i] : p[i];
		crc ^= b;
		for (int k = 0; k < 8; k++)
			crc = (crc & 1) ? (uint16_t)((crc >> 1) ^ HW_CRC_POLY_REFLECTED) : (uint16_t)(crc >> 1);
	}
	return (uint16_t)((crc << 8) | (crc >> 8));
}
