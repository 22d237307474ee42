/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ROM_CODE section's data: one PXE option ROM with its "mlxsign:" record,
 * made by sim/mkfs2's ROM builder (rom.c), which takes mkfs2's config type;
 * this file is the only one of mkfs3 that includes mkfs2.h (its struct
 * chip/config would clash with mkfs3.h's).
 */
#ifndef MKFS3_ROM3_H
#define MKFS3_ROM3_H

#include <stdint.h>

#include "map.h"
#include "rng.h"

/* A ROM of blocks x 512 bytes for devid, version ver; rom_<i> lines in m
 * (offsets in the returned data). Caller frees; allocation failure exits. */
uint8_t *rom3_build(uint16_t devid, const unsigned int ver[3], unsigned int blocks,
		    struct rng *r, uint32_t *len, struct map *m);

#endif
