/* SPDX-License-Identifier: GPL-2.0-or-later */
/* burn_rom.h — which expansion ROM a burned image carries (burn --rom, the wizard's
 * choice, jobs' rom=), one rule for burn_card() and for match's plan (library/match.h),
 * so a plan never shows a ROM the burn then does not write (fs2-format.md §4.5, §9).
 *
 *   ROM_KEEP   flint's burn (image/rom_insert.h): the image has no ROM and the card has
 *              one, so the card's is spliced in; an image with its own ROM keeps it, as
 *              flint 4.21 does on FS2 (the question that would keep the card's over the
 *              image's is never asked there). The default.
 *   ROM_IMAGE  the image as it is, its ROM or none (flint's -use_image_rom).
 *   ROM_NONE   no ROM: the image's removed (rom_remove), or none to begin with.
 *   ROM_FILE   the ROM file's bytes in place of the image's (rom_replace), after the
 *              file's own checks (rom_file_check: not an FS2 image, whole, checksums,
 *              devid; a devid mismatch is a warning, kept in warning[]).
 *
 * flint's Product Version gate (--allow_rom_change) is for changing the ROM of the FW a
 * card runs (ops/rom_card.h); a burn puts a whole new image on, whichever ROM it carries.
 *
 * Whatever the pick, the result is a whole image (every pointer and CRC redone) that the
 * burn's rules (ops/guard.h) then judge as it will be written: the size rule counts the
 * ROM it now carries.
 */
#ifndef CX_BURN_ROM_H
#define CX_BURN_ROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/fs2.h"
#include "image/rom.h"

enum rom_pick { ROM_KEEP, ROM_IMAGE, ROM_NONE, ROM_FILE };

/* What the pick asks for. */
struct rom_choice {
	enum rom_pick pick;
	const uint8_t *file;         /* ROM_FILE: the ROM's bytes */
	size_t file_len;
};

/* A ROM as reports show it: the records rom_parse() found, n -1 when not known (a card
 * in recovery mode), 0 for none. */
struct rom_set {
	int n;
	uint32_t len;                /* bytes of ROM section data, 0: none */
	struct rom_info roms[ROM_MAX_IMAGES];
};

/* The ROM set of rom (len bytes; NULL or 0: none). */
void rom_set_of(struct rom_set *s, const uint8_t *rom, size_t len);

/* Apply c to the image *buf (*len bytes, parsed in *img). card_rom: the card's ROM
 * section data (NULL, 0: the card has none, or is in recovery mode). On a change *buf is
 * replaced (freed and reallocated), *img parsed again from it, *changed set. A
 * ROM_FILE warning (devid) goes into warn (may be NULL); a refusal into st, nothing
 * changed. */
int rom_pick_apply(const struct rom_choice *c, const uint8_t *card_rom, size_t card_rom_len, uint8_t **buf,
		   size_t *len, struct fs2_image *img, bool *changed, char warn[CX_MSG_MAX], struct cx_status *st);

/* "PXE 3.4.752" (type and version). Returns buf. */
const char *rom_info_text(const struct rom_info *r, char *buf, size_t n);
/* "PXE 3.4.752, UEFI 14.11.49", "none", or "unknown". Returns buf. */
const char *rom_set_text(const struct rom_set *s, char *buf, size_t n);

/* "keep", "image", "none", "file". */
const char *rom_pick_name(enum rom_pick p);

#endif
