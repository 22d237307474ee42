/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ROM section's contents from the command line.
 *
 * --roms LIST is a comma-separated list of up to 5 ROMs, each
 * TYPE:VERSION[:FIELD...]: TYPE pxe (product 0x10), uefi (0x11) or clp (0x0F,
 * the CLP with a version string, as HP's cards carry); VERSION X.Y.Z, or digits
 * for clp; FIELDs dev=N (devid, default the chip's), cpu=N, proto=N, kib=N
 * (size, 1..127 KiB) and badsum (the 8-bit checksum left wrong). LIST may also
 * be a preset name: hp544 = clp:8025,uefi:14.11.49,pxe:3.4.754:cpu=0:proto=255.
 */
#ifndef MKFS2_ROMSPEC_H
#define MKFS2_ROMSPEC_H

#include "mkfs2.h"

/* Fill c->roms and c->n_roms from arg, defaults from ch; NULL, or why arg is bad. */
const char *rom_specs_parse(const char *arg, const struct chip *ch, struct config *c);

/* The one ROM of --rom-ver/--rom-product/--rom-bad-checksum (the bytes mkfs2 always made). */
void rom_spec_legacy(struct config *c, unsigned int product, const unsigned int ver[3],
		     int bad_checksum);

#endif
