/* SPDX-License-Identifier: GPL-2.0-or-later */
/* burn_rom.h — which expansion ROM a burned image carries (burn --rom, the wizard's
 * choice, jobs' rom=), one rule for burn_card() and for match's plan (library/match.h),
 * so a plan never shows a ROM the burn then does not write (fs2-format.md §4.5, §9).
 *
 *   ROM_KEEP   the card's current ROM section, byte for byte, is the result's (issue 19's
 *              meaning of keep): spliced in when the image has none (flint's burn does
 *              the same), put in place of the image's when the image has another one,
 *              and the image's left out when the card has none (a card whose FlexBoot
 *              was removed stays without). A card in recovery mode has no ROM that can
 *              be read: the image's is burned as it is. The default.
 *              Where flint 4.21 differs: on FS2 its burn keeps an image's own ROM and
 *              never asks about the card's (dealWithExpRom), so with an image that has a
 *              ROM flint's result is --rom image's.
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
 * section data (NULL, 0: the card has none); card_known false: the card's ROM cannot
 * be read (recovery mode), so ROM_KEEP leaves the image as it is. On a change *buf is
 * replaced (freed and reallocated), *img parsed again from it, *changed set. A
 * ROM_FILE warning (devid) goes into warn (may be NULL); a refusal into st, nothing
 * changed. */
int rom_pick_apply(const struct rom_choice *c, bool card_known, const uint8_t *card_rom, size_t card_rom_len,
		   uint8_t **buf, size_t *len, struct fs2_image *img, bool *changed, char warn[CX_MSG_MAX], struct cx_status *st);

/* "PXE 3.4.752" (type and version). Returns buf. */
const char *rom_info_text(const struct rom_info *r, char *buf, size_t n);
/* "PXE 3.4.752, UEFI 14.11.49", "none", or "unknown". Returns buf. */
const char *rom_set_text(const struct rom_set *s, char *buf, size_t n);

/* "keep", "image", "none", "file". */
const char *rom_pick_name(enum rom_pick p);

#endif
