/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rom_card.h — flint's drom and brom on a card (fs2-format.md §4.5, §9).
 *
 * rom_card() reads the card's whole image and burns it again with burn_card(), asking
 * for ROM_NONE (drom) or ROM_FILE (brom): the burn rebuilds it by its own rule
 * (ops/burn_rom.h: image/rom_edit.h rom_remove, or rom_replace after rom_file_check),
 * with the image's own GUIDs, MACs and VSD, which are the card's, copied byte for byte.
 * So drom is `burn --rom none` and brom `burn --rom FILE` of the card's own firmware, and
 * goes through the write procedure (ops/write_procedure.h) as a burn does: every check first,
 * the comparison (a brom of the ROM the card already has writes nothing), the dry run,
 * the backup (hooks.before_write), the failsafe diff-aware write into the other slot,
 * the checks after it, hooks.after (the history; on an early refusal too).
 *
 * Refused before anything is written, as flint 4.21 refuses them (FwDeleteRom,
 * FwBurnRom, fs2_ops.cpp), each with one line and its code:
 *   - a card in recovery mode, or whose image does not parse: CX_EUNSUPPORTED, CX_EIMAGE;
 *   - FW older than 2.6.1410 (flint's IsFwSupportingRomModify), for drom always and for
 *     brom when the card has no ROM: CX_EUNSUPPORTED;
 *   - drom on an image without a ROM: CX_EABSENT;
 *   - an image with a Product Version (IMAGE_INFO tag 7, every recent CX3 image), unless
 *     allow_rom_change (flint's --allow_rom_change): CX_EUNSUPPORTED, flint's words;
 *   - a bad ROM file (rom_file_check: its codes); a ROM for another device, which flint
 *     asks about, is asked through hooks.confirm (no hook: refused, CX_EDECLINED);
 *   - an image that no longer fits the flash (burn_card's size rule): CX_EMISMATCH.
 *
 * burn_card()'s guards all hold for the card's own image, rebuilt (rom_card.c says why
 * each does, and what it still catches). Its question "the same FW version again?" is
 * what drom/brom means and is answered yes here; hooks.confirm is asked only the devid
 * question.
 */
#ifndef CX_ROM_CARD_H
#define CX_ROM_CARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops/burn.h"

struct rom_card_opts {
	const uint8_t *rom;          /* brom: the ROM file's bytes; NULL: drom */
	size_t rom_len;
	bool allow_rom_change;       /* flint's --allow_rom_change */
	bool dry_run;
	struct write_hooks hooks;    /* as burn_opts.hooks */
};

/* drom or brom on d; r as burn_card() fills it (rom_before, rom_after: the ROM
 * from -> to). */
int rom_card(struct device *d, const struct rom_card_opts *o, struct burn_result *r, struct cx_status *st);

#endif
