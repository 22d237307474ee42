/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bytes of each section: IMAGE_INFO, MFG_INFO and DEV_INFO from the
 * options (layouts of mstflint tools_layouts image_layout_image_info,
 * cx4fw_mfg_info, cx4fw_device_info), the ROM through sim/mkfs2's ROM builder,
 * DBG_FW_INI as a zlib-compressed .ini, and deterministic filler for the
 * rest (code, NV data, VPD, signatures and keys of the right sizes).
 */
#ifndef MKFS3_CONTENT_H
#define MKFS3_CONTENT_H

#include <stddef.h>
#include <stdint.h>

#include "map.h"
#include "mkfs3.h"
#include "rng.h"

/* Section data of type; *len gets its size (a dword multiple). NULL on failure (printed). */
uint8_t *section_data(uint8_t type, const struct config *c, struct rng *r, uint32_t *len);

/* Put other base GUID/MAC into DEV_INFO data p (the second one of --damage two-dev-info). */
void dev_info_set_uids(uint8_t *p, uint64_t guid, uint64_t mac);

/* The name mstflint prints for a section type (fs3_ops.cpp's name table). */
const char *section_name(uint8_t type);

/* ROM sub-structures (rom_<i>) of the last ROM_CODE section_data() built, offsets in it. */
const struct map *rom_map(void);

#endif
