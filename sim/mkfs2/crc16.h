/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The FS2 CRC16 (fs2-format.md §2.1). */
#ifndef MKFS2_CRC16_H
#define MKFS2_CRC16_H

#include <stddef.h>
#include <stdint.h>

/* CRC16 of len bytes (a multiple of 4 in every FS2 use) as mstflint computes it. */
uint16_t crc16_fs2(const uint8_t *p, size_t len);

/* Check the table-driven CRC against §2.1's vectors and a bitwise reference. 0 = pass. */
int crc16_selftest(void);

#endif
