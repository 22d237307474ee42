/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The CRC of an FS4 HW pointer entry (mstflint
 * mft_utils/calc_hw_crc.c calc_hw_crc, called by fs4_ops.cpp
 * getExtendedHWAravaPtrs over the 6 first bytes of each 8-byte entry).
 * Re-derived from its parameters: the FS2 polynomial 0x100B processed
 * reflected (0xD008), register init 0xFFFF, the first two data bytes
 * inverted, and the 16-bit result byte-swapped. An all-zero entry has CRC 0.
 */
#ifndef MKFS3_HWCRC_H
#define MKFS3_HWCRC_H

#include <stddef.h>
#include <stdint.h>

uint16_t hw_crc(const uint8_t *p, size_t len);

/* Table against a bitwise reference and known values; prints, 0 = pass. */
int hw_crc_selftest(void);

#endif
