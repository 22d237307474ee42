/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rom_card.c — drom and brom on a card: the card's image rebuilt, burned failsafe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/rom_card.h"
#include "image/rom_edit.h"
#include "image/rom_insert.h"

/* flint's IsFwSupportingRomModify: MAJOR/MINOR/SUBMINOR_MOD_ROM_FW, mlxfwops_com.h (v4.21.0-1). */
static const uint16_t mod_rom_fw[3] = {2, 6, 1410};

static int refuse_early(const struct device *d, const struct dev_image *cur, const struct rom_card_opts *o,
			struct cx_status *st)
{
	const struct fs2_info *in = &cur->img.info;
	const uint8_t *rom;
	size_t len;
	bool has_rom = !rom_sect_data(&cur->img, &rom, &len, &(struct cx_status){0});
	char v[24];

	if (!has_rom && !o->rom)
		return cx_fail(st, CX_EABSENT, "the card's image has no expansion ROM: nothing to remove");
	if ((!o->rom || !has_rom) && guard_cmp_version(in->fw_ver, mod_rom_fw) < 0) {
		fmt_fw_version(v, sizeof(v), in->fw_ver);
		return cx_fail(st, CX_EUNSUPPORTED, "FW %s on %s is older than 2.6.1410: flint changes no ROM on it, "
			       "nor do we", v, d->pci.bdf);
	}
	return rom_change_allowed(&cur->img, o->allow_rom_change, st);
}

/* brom: the ROM file's own checks (image/rom_edit.h), before anything else is read;
 * *warn: a ROM for another device, which the burn then asks about. */
static int check_file(const struct dev_image *cur, const struct rom_card_opts *o, char *warn, struct cx_status *st)
{
	struct cx_status cst = {0};
	int rc;

	if (o->rom && (rc = rom_file_check(o->rom, o->rom_len, &cur->img, &cst)))
		return cx_fail(st, rc, "%s", cst.msg);
	snprintf(warn, CX_MSG_MAX, "%s", cst.msg);
	return CX_OK;
}

struct asking {
	const struct rom_card_opts *o;
	const char *warn;
};

/* The burn's questions: the devid warning goes to the caller, as flint's brom asks it
 * (BromSubCommand, askUser); the other, the same FW version again, is what drom/brom
 * means: yes. */
static int ask(void *ctx, const char *question, struct cx_status *st)
{
	struct asking *x = ctx;
	const struct write_hooks *h = &x->o->hooks;

	if (!x->warn[0] || !strstr(question, x->warn))
		return CX_OK;
	return h->confirm ? h->confirm(h->confirm_ctx, question, st) : cx_fail(st, CX_EDECLINED, "%s: refused", x->warn);
}

/* drom is `burn --rom none`, brom `burn --rom FILE`, of the card's own image: the ROM
 * goes by the burn's own rule (ops/burn_rom.h: rom_remove, rom_replace). Why each of
 * burn_card()'s guards holds here, and what it still catches:
 *  - verify, trailing: the card's image as read, checked like any file (a card whose
 *    image does not verify is refused); the rebuild redoes every pointer and CRC, ends at
 *    its last section, and the burn verifies it again before anything is written.
 *  - chip, PSID, chunk: the FW, its IMAGE_INFO and its chunk size are the card's own,
 *    unchanged; a card that runs an image the rules refuse is refused, nothing written.
 *  - size: the new ROM may make the image too big for its slot: refused here.
 *  - identity: use_image_guids/use_image_ps burn the card's GUIDs, MACs and VSD as the
 *    rebuild copied them (blank GUIDs stay blank, as flint's drom leaves them).
 *  - "already holds it": a brom of the ROM the card has compares equal: nothing written. */
static int reburn(struct device *d, const struct dev_image *cur, const struct rom_card_opts *o, const char *warn,
		  struct burn_result *r, struct cx_status *st)
{
	struct burn_opts bo = {0};
	struct asking x = {o, warn};

	bo.ident.use_image_guids = true;
	bo.ident.use_image_ps = true;
	bo.rom = o->rom ? ROM_FILE : ROM_NONE;
	bo.rom_file = o->rom;
	bo.rom_file_len = o->rom_len;
	bo.dry_run = o->dry_run;
	bo.hooks = o->hooks;
	bo.hooks.confirm = ask;
	bo.hooks.confirm_ctx = &x;
	return burn_card(d, cur->buf, cur->len, &bo, r, st);
}

int rom_card(struct device *d, const struct rom_card_opts *o, struct burn_result *r, struct cx_status *st)
{
	struct dev_image cur = {0};
	char warn[CX_MSG_MAX] = "";
	int rc = CX_OK;

	memset(r, 0, sizeof(*r));
	if (d->chip.recovery)
		rc = cx_fail(st, CX_EUNSUPPORTED, "%s is in recovery (livefish) mode: it has no image whose ROM could "
			     "change; burn an image (burn --rom)", d->pci.bdf);
	if (!rc && !(rc = device_read_image(d, &cur, st)) && cur.parse_rc)
		rc = cx_fail(st, CX_EIMAGE, "the card's image does not parse (%s): burn or restore one", cur.parse_msg);
	if (!rc)
		rc = refuse_early(d, &cur, o, st);
	if (!rc)
		rc = check_file(&cur, o, warn, st);
	if (!rc)
		rc = reburn(d, &cur, o, warn, r, st);
	else if (o->hooks.after) /* refused before the burn: the history still says so */
		o->hooks.after(o->hooks.after_ctx, rc, st, &r->out);
	devimage_free(&cur);
	return rc;
}
