/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flint_view.h — test-only: what flint would read on a card's flash.
 *
 * The model's boot ROM skips a broken image for a good one (UNCONFIRMED on
 * silicon), so "the card booted" alone would let an ordering bug through.
 * Power-cut tests also require what flint requires: the lowest start position
 * with the FS2 magic begins an image that parses and verifies. */
#ifndef CX_TEST_FLINT_VIEW_H
#define CX_TEST_FLINT_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "cxsim.h"
#include "image/info.h"

/* What flint reads in that image. */
struct flint_view {
	uint16_t minor;              /* FW minor version */
	uint64_t guid, mac;          /* node GUID, port 1 MAC */
	char vsd[INFO_VSD_LEN + 1];
	uint32_t start;              /* where that image starts (physical) */
	uint32_t rom_len;            /* its expansion ROM's bytes (the ROM section's data), 0: none */
	uint64_t rom_hash;           /* the first 8 bytes of their SHA-256, 0 when none */
};

/* NULL if the lowest signed image on c's flash is whole (*v = what it says),
 * else a line saying what is wrong (static storage). */
const char *flint_view_lowest_whole(struct cxsim_card *c, struct flint_view *v);

/* rom_hash of a ROM of len bytes (0 for none). */
uint64_t flint_view_rom_hash(const uint8_t *rom, size_t len);

#endif
