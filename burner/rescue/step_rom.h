/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_rom.h — a write step: the boot ROM a burn leaves on the card (issue 19): the card's,
 * the image's, none, or a job's ROM file (wizard_opts.rom), and the plan's "boot ROM:
 * from -> to" line. The rule that picks it is at the top of step_rom.c. */
#ifndef CX_RESCUE_STEP_ROM_H
#define CX_RESCUE_STEP_ROM_H

#include "image/rom.h"
#include "ops/burn_rom.h"
#include "rescue/pending.h"
#include "rescue/wizard.h"

struct wiz_rom {
	enum rom_pick pick;
	const uint8_t *file;             /* ROM_FILE: the bytes (owned) */
	size_t file_len;
	uint8_t *owned;
	char record[PENDING_PATH_MAX];   /* what a job record says of the choice (pending.h) */
	char from[160], to[200], img_text[160];
	int card_n;
	struct rom_info card_roms[ROM_MAX_IMAGES];
	bool img_uefi;
};

/* The boot ROM of a burn of library image img (len bytes) onto card i: an interrupted write's
 * record (a job record's rom, pending.h) or a job's rom= decides, else the rule; the user is
 * asked when ask_user and the card's ROM and the image's differ. A ConnectX-4/4 Lx/5 card
 * (wizard_card.fs3) gets the FS3/FS4 image's own ROM, signed, without a question; a rom= of
 * none or a file is refused for it (CX_EUNSUPPORTED). r's from/to name them for
 * the plan. wiz_rom_free(r) after it, whatever it returned. */
int wiz_rom_plan(struct wizard *w, int i, const char *record, bool ask_user, const uint8_t *img, size_t len,
		 struct wiz_rom *r, struct cx_status *st);
void wiz_rom_free(struct wiz_rom *r);
/* "CLP 8025, UEFI 14.11.49, PXE 3.4.754", or "none". */
void wiz_roms_text(char *out, size_t n, int nroms, const struct rom_info *roms);

#endif
