/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rom_insert.h — carrying the card's expansion ROM into a new image, as flint's burn
 * does (fs2-format.md §4.5, §1.2, §1.4, §2.2).
 *
 * THE RULE (flint 4.21 burn on FS2, Fs2Burn 1673-1683). When the image to burn has no ROM
 * section with data and the card's current image has one, flint splices the card's ROM
 * into the new image before it patches GUIDs/MACs/VSD and writes. With -use_image_rom
 * (BRO_ONLY_FROM_IMG, flint/subcommands.cpp 2558) the image is burned as it is. When the
 * image has its own ROM, the image's ROM is burned, without a question.
 * dealWithExpRom (subcommands.cpp 3032-3129) looks as if it asked "Use the ROM from the
 * image file" and kept the card's ROM only when neither image has a Product Version, but
 * on FS2 that branch is dead in 4.21: Fs2Operations::FwQuery reports the chip as
 * CT_CONNECTX3 (fs2_ops.cpp 911), which IS_HCA() does not list, so burnRomOptions stays
 * BRO_DEFAULT and Fs2Burn splices whenever the image has no ROM. Checked with mstflint:
 * Product Versions on both sides do not stop the splice, and with ROMs on both sides and
 * no Product Version nothing is asked and the image's ROM is burned.
 * rom_carry_needed() is this rule; rom_insert() is the splice.
 *
 * WHERE THE ROM GOES, and what changes (mstflint v4.21.0-1, mlxfwops/lib/fs2_ops.cpp,
 * UpdateRomInImage 1456-1576, called from IntegrateDevRomInImage 1578-1617):
 *   - The boot record (0x00-0x37) and the BOOT2 block(s) are copied unchanged (1471-1481).
 *   - The sections are re-emitted in chain order, packed one after another from the end of
 *     the BOOT2 blocks (1493-1554). The ROM becomes the SECOND section of the chain
 *     (IMAGE_ROM_INDEX = 2, 1507): in a real image CNF, ROM, GUID, IMAGE_INFO, ... Every
 *     later section moves up by 16 + rom_len + 4 bytes.
 *   - ROM header: type 5, size rom_len/4 dwords, param 0, next = the address right after
 *     it (1513-1517).
 *   - Every other section keeps its type, size, param and data; its `next` becomes the
 *     address right after it, except the last one's 0xFF000000 (1531-1534).
 *   - Every section CRC is recomputed over header + data (AddNewSect 1436-1455).
 *   - 0x34 (GUID pointer) = the GUID section's new data address (1536-1539).
 *   - 0x2C (IMAGE_INFO pointer) = the info section's new data address, bits 31:24 the
 *     checksum byte 0x100 - (sum of the three low bytes), taken mod 256 (1540-1552);
 *     left alone when there is no IMAGE_INFO section.
 *   - 0x30 (image size) = the new size, the end of the last section (1556-1567). Bytes of
 *     the old file after the last section, or between sections, are gone.
 *   - 0x20 bits 23:16 are cleared (1569-1573); bits 15:0, the full-image CRC, are left
 *     stale there and set by the burn (Fs2FailSafeBurn 1081 -> UpdateFullImageCRC
 *     1032-1055: CRC16 over the whole new image with that field read as 0xFFFF, §2.2).
 * rom_insert() does all of this and also sets the full-image CRC, so its result verifies
 * on its own. After the same GUID/MAC/VSD patches it is byte-identical to the image
 * mstflint burns (tests/test_rom_insert_oracle.py checks this on a simulated card).
 *
 * WHERE WE DIFFER FROM FLINT (only where flint's result is broken or surprising):
 *   - A chain that ends with next = 0 instead of 0xFF000000: flint rewrites that 0 into
 *     an address past the end (1531 only spares 0xFF000000), fails its own verify (1606)
 *     and the burn stops. We keep the 0.
 *   - EMT sections (type 4, size in bytes, §1.4): flint copies size*4 bytes (1438, 1533)
 *     and breaks the image. We copy the section as fs2_parse() measured it.
 *   - A chain of a single section: flint never reaches the second position, so the ROM is
 *     silently dropped. We append it after that section.
 *   - A blank-GUID image (§3.1): flint recomputes the GUID section's CRC, so the all-ones
 *     entries become ordinary values. We keep the blank marks (GUID CRC and full CRC
 *     0xFFFF); the burn's identity patch then writes the same bytes flint does.
 *   - Two GUID or two IMAGE_INFO sections: flint points 0x34/0x2C at the last one, we at
 *     the first (the one fs2_parse() requires them to name).
 *   - An image whose ROM section holds data: rom_insert() refuses it. (UpdateRomInImage
 *     would replace that ROM, but flint 4.21 never asks it to during a burn on FS2: the
 *     path that keeps the card's ROM over the image's, BRO_FROM_DEV_IF_EXIST, is
 *     unreachable, see above. brom and drom do: rom_update() below.)
 *     A ROM section with no data counts as no ROM, as in flint (exp_rom_found is
 *     "ROM data not empty"): it is dropped, and the new ROM goes to the second position or
 *     to the empty one's place, whichever comes first (1507, 1524).
 */
#ifndef CX_ROM_INSERT_H
#define CX_ROM_INSERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/fs2.h"
#include "util/status.h"

/* The ROM a card's image carries: the data of its first ROM section that holds any bytes
 * (flint's _romSect, fs2_ops.cpp 477-481). On CX_OK *rom points into img->buf and *len is
 * a non-zero multiple of 4; CX_EABSENT with a message when there is none. */
int rom_sect_data(const struct fs2_image *img, const uint8_t **rom, size_t *len,
		  struct cx_status *st);

/* flint's rule for a burn: true when the card's image (NULL if it could not be read) has
 * a ROM, the new image has none and use_image_rom is off. */
bool rom_carry_needed(const struct fs2_image *card, const struct fs2_image *img,
		      bool use_image_rom);

/* Splice rom (rom_len bytes: non-zero, a multiple of 4, at most FS2_MAX_SECTION) into the
 * contiguous image img (len bytes) as described above. img must parse and verify (blank
 * GUIDs are accepted) and must not already hold ROM data. On CX_OK *out is a new malloc'd
 * image of *out_len bytes that fs2_parse() and fs2_verdict() accept, with every section
 * CRC and the full-image CRC set; the caller frees it. On failure *out is NULL, st holds
 * one line, nothing was allocated. img and rom are only read (they may overlap). */
int rom_insert(const uint8_t *img, size_t len, const uint8_t *rom, size_t rom_len,
	       uint8_t **out, size_t *out_len, struct cx_status *st);

/* UpdateRomInImage in full, the one walker behind rom_insert() and image/rom_edit.h:
 *   ROM_ADD   rom_insert(): refuses an image that has ROM data (CX_EUNSUPPORTED);
 *   ROM_SWAP  every old ROM section dropped, rom put where the first was or second
 *             (flint's brom);
 *   ROM_DROP  rom NULL and rom_len 0: every ROM section dropped, the rest re-linked and
 *             re-pointed exactly as above (flint's drom); CX_EABSENT without ROM data. */
enum rom_mode { ROM_ADD, ROM_SWAP, ROM_DROP };
int rom_update(const uint8_t *img, size_t len, const uint8_t *rom, size_t rom_len, enum rom_mode mode,
	       uint8_t **out, size_t *out_len, struct cx_status *st);

#endif
