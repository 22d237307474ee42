/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rom_edit.h — removing or replacing an image's expansion ROM (flint's drom and brom),
 * judging a ROM file before it goes in, and the room rule (fs2-format.md §4.5, §9, §1.5).
 *
 * THE EDITS. flint's FwDeleteRom and FwBurnRom (mstflint v4.21.0-1 fs2_ops.cpp 2188-2262
 * and 2086-2186) both rebuild the image with UpdateRomInImage: rom_remove() and
 * rom_replace() are that, through rom_update() (image/rom_insert.h, which documents
 * where the ROM goes, how 0x2C/0x30/0x34, every section CRC and the full-image CRC
 * follow, and where we differ from flint). flint does them on a card only ("Delete/Burn
 * ROM not supported for FS2 image", 2098, 2197); these work on any image in memory, so
 * a library image can be prepared on a file.
 *
 * THE GATES flint applies first, each one function here so the file verbs and the card
 * verbs say the same thing:
 *   rom_change_allowed  an image with a Product Version tag (IMAGE_INFO tag 7) takes no
 *                       separate ROM change without --allow_rom_change (FwBurnRom 2127,
 *                       FwDeleteRom 2221: "common FW/ROM Product Version");
 *   rom_file_check      brom's checks on the ROM file, and ours (below);
 *   rom_fits            the image after the change fits the flash (GetMaxImageSize).
 * flint also wants FW >= 2.6.1410 (IsFwSupportingRomModify) and a ConnectX chip; every
 * FS2 image cxflash accepts is ConnectX-2/3/3 Pro, and the FW floor is the card verbs'
 * business (h-rom-card), not a file's.
 *
 * EXIT CODES (util/status.h, docs/cxflash.1 EXIT STATUS), one per refusal:
 *   CX_EABSENT      drom on an image without ROM data (flint: "The FW does not contain a
 *                   ROM section");
 *   CX_EUNSUPPORTED a Product Version tag and no --allow_rom_change;
 *   CX_EVALUE       the ROM file is a firmware image (flint: "Expecting an expansion ROM
 *                   image, received Mellanox FW image"), or no PCI option ROM at all
 *                   (no 0x55AA header, no mlxsign: version record, not whole dwords);
 *   CX_EIMAGE       a truncated ROM: a PCI image runs past the end of the file, or a
 *                   non-last image is followed by nothing; or a malformed one: no sound
 *                   image header where the previous announces one, a zero length, more
 *                   than ROM_MAX_PCI images;
 *   CX_ECHECKSUM    a bad ROM checksum (rom.h says which bytes are summed); flint only
 *                   warns "Bad ROM Checksum" in q, and burns it;
 *   CX_EMISMATCH    the image with the ROM does not fit the flash.
 * A ROM for another device id is a WARNING, as in flint (brom prints "-W- Image file
 * ROM: FW is for device %d, but Exp-ROM is for device %d" and asks, subcommands.cpp
 * 4835-4845): rom_file_check() returns CX_OK with st->code CX_OK and the warning line in
 * st->msg. The caller shows it (a non-empty st->msg after CX_OK is a warning) and decides:
 * the file verb prints it and goes on, the card verbs ask.
 */
#ifndef CX_ROM_EDIT_H
#define CX_ROM_EDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/fs2.h"
#include "util/status.h"

/* The contiguous image img (len bytes, sound; blank GUIDs accepted) without its ROM
 * section(s): *out is a new malloc'd image of *out_len bytes that parses and verifies.
 * CX_EABSENT if it has no ROM data. On failure *out is NULL and nothing was allocated. */
int rom_remove(const uint8_t *img, size_t len, uint8_t **out, size_t *out_len, struct cx_status *st);

/* The same with rom (rom_len bytes, whole dwords) as its ROM: the old one, if any, is
 * dropped and rom goes where it was (or second in the chain), as flint's brom. It does
 * not judge the ROM: call rom_file_check() first. */
int rom_replace(const uint8_t *img, size_t len, const uint8_t *rom, size_t rom_len,
		uint8_t **out, size_t *out_len, struct cx_status *st);

/* rom (len bytes, a ROM file) is fit to go into img (parsed; NULL skips the devid
 * check): the codes and the devid warning are above. */
int rom_file_check(const uint8_t *rom, size_t len, const struct fs2_image *img, struct cx_status *st);

/* flint's rule for a drom or brom on img: CX_OK, or CX_EUNSUPPORTED when img has a
 * Product Version tag and allow (--allow_rom_change) is false. */
int rom_change_allowed(const struct fs2_image *img, bool allow, struct cx_status *st);

/* GetMaxImageSize (fs2_ops.cpp 983-1030; fs2-format.md §1.5) for an image like img on a
 * flash of flash_size bytes: sector S = the image's fw_sector_size (tag 19) or 64 KiB,
 * reserve = min(config_sectors * S, 64 KiB); failsafe: flash/2 - reserve - config_pad*S,
 * else flash - 2*reserve - config_pad*S (0 when that is negative). flint takes the larger
 * of the image's and the card's sector size and config sectors, and the card's config
 * pad: after a drom or brom the two are the same image, so img alone says it. */
uint32_t rom_max_image_size(const struct fs2_image *img, uint32_t flash_size);

/* new_len bytes (the image after the change, parsed as img) fit a flash of flash_size
 * bytes: CX_OK or CX_EMISMATCH ("Size of failsafe image ... is greater than max", as
 * Fs2FailSafeBurn checks it, 1099-1114). */
int rom_fits(const struct fs2_image *img, size_t new_len, uint32_t flash_size, struct cx_status *st);

#endif
