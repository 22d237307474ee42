/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow_bootrom.c — the menu's "Boot ROM: remove or replace" (flows.h, issue 19).
 *
 * The card keeps its firmware, GUIDs, MACs and VSD; only its expansion ROM changes: removed
 * (flint's drom: no PXE/UEFI boot from the card, a POST that no longer hangs in FlexBoot),
 * or replaced by a ROM found in the library's images or the stick's backups
 * (library/rom_index.h, what `cxflash rom list` shows): a whole ROM section as a card
 * carried it (HP's CLP + UEFI + PXE), or one ROM of it alone. The typed word is the consent
 * flint asks for with --allow_rom_change: an image with a Product Version is no reason to
 * refuse here. Then, as every write: backup first, a failsafe burn of the card's own image
 * rebuilt with the new ROM, verified, the history line. */
#include <stdlib.h>
#include <string.h>

#include "library/rom_index.h"
#include "ops/burn.h"
#include "ops/progress.h"
#include "rescue/data_area.h"
#include "rescue/flows.h"
#include "rescue/inventory.h"
#include "rescue/step_probe.h"
#include "rescue/step_record.h"
#include "rescue/step_rom.h"

#define BOOTROM_MAX_CHOICES 32
#define OFFER_LABEL 400 /* ROMs, the source's name, PSID and file */

static bool has_image(const struct wizard_card *c)
{
	return c->ci.have_image && !c->ci.recovery;
}

struct rom_offer {
	const struct rom_source *s;
	int rom;                     /* -1: the whole section */
	const uint8_t *p;
	size_t len;
};

/* The ROMs worth offering for card c, each SHA-256 once and never the card's own. */
static int offers(const struct rom_index *ix, const uint8_t *mine, size_t mine_len, struct rom_offer *o,
		  char (*labels)[OFFER_LABEL], const char **items)
{
	char t[160], ver[24], tt[12];
	int n = 0;

	for (size_t i = 0; i < ix->n; i++) {
		const struct rom_source *s = &ix->s[i];
		for (int k = -1; k < s->nroms && n < BOOTROM_MAX_CHOICES; k++) {
			const char *sha = k < 0 ? s->sha256 : s->rom_sha256[k];
			const uint8_t *p = k < 0 ? s->data : s->data + s->roms[k].off;
			size_t len = k < 0 ? s->len : s->roms[k].len;
			bool seen = !sha[0] || (k >= 0 && s->nroms == 1) || (len == mine_len && !memcmp(p, mine, len));
			for (int j = 0; j < n && !seen; j++)
				seen = o[j].len == len && !memcmp(o[j].p, p, len);
			if (seen)
				continue;
			if (k < 0) {
				wiz_roms_text(t, sizeof(t), s->nroms, s->roms);
			} else {
				rom_fmt_version(ver, sizeof(ver), &s->roms[k]);
				snprintf(t, sizeof(t), "%s %s alone", rom_type_name(s->roms[k].product, tt), ver);
			}
			char name[24];
			snprintf(name, sizeof(name), k < 0 ? "%zu" : "%zu.%d", i + 1, k + 1);
			snprintf(labels[n], sizeof(labels[n]), "%s  (%s, %s %s, %s)", t, name, s->backup ? "backup" : "library",
				 s->psid, strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path);
			items[n] = labels[n];
			o[n++] = (struct rom_offer){s, k, p, len};
		}
	}
	return n;
}

/* Remove, or one of the offers; *p NULL for remove. CX_EDECLINED: back to the menu. */
static int choose(struct wizard *w, const struct wizard_card *c, const struct rom_index *ix, uint8_t **p,
		  size_t *len, char *to, size_t ton, struct cx_status *st)
{
	struct rom_offer o[BOOTROM_MAX_CHOICES];
	char labels[BOOTROM_MAX_CHOICES + 1][OFFER_LABEL];
	const char *items[BOOTROM_MAX_CHOICES + 2];
	const struct fs2_image *img = &c->ci.f.img;
	const uint8_t *mine = NULL;
	size_t mine_len = 0;
	int first = 0, choice, rc;

	if (img->rom_sect >= 0) {
		mine = c->ci.f.cont + img->items[img->rom_sect].data_off;
		mine_len = img->items[img->rom_sect].data_len;
		items[first++] = "Remove it: no boot ROM (no PXE/UEFI boot from this card)";
	}
	int n = offers(ix, mine, mine_len, o, labels + first, items + first);
	items[first + n] = "back to the menu";
	if (!first && !n)
		return cx_fail(st, CX_EABSENT, "the card has no boot ROM, and no other ROM was found in the library or "
			       "the backups (cxflash rom list)");
	if ((rc = prompt_menu(&w->p, "Boot ROM: remove or replace?", items, first + n + 1, -1, &choice, st)))
		return rc;
	if (choice == first + n)
		return cx_fail(st, CX_EDECLINED, "back to the menu");
	*p = NULL;
	*len = 0;
	snprintf(to, ton, "none");
	if (choice < first)
		return CX_OK;
	const struct rom_offer *pick = &o[choice - first];
	if (!(*p = malloc(pick->len)))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	memcpy(*p, pick->p, pick->len);
	*len = pick->len;
	snprintf(to, ton, "%s", items[choice]);
	return CX_OK;
}

/* burn_card()'s questions: "the same FW version again?" is what a ROM change is, the typed
 * word answered it; a ROM for another device id (flint's brom asks too) is asked, default no. */
static int same_fw(void *ctx, const char *question, struct cx_status *st)
{
	struct wizard *w = ctx;

	if (strstr(question, "Burn it anyway?"))
		return prompt_yes_no(&w->p, question, true, st);
	wiz_say(w, "  confirmed with %s: %s", CONFIRM_WORD, question);
	return CX_OK;
}

/* The card's own image, read whole now (the inventory read only what it shows,
 * ops/cardinfo.h), rebuilt with rom (NULL: none) by the burn's ROM rule (ops/burn.h). */
static int write_rom(struct wiz_write *x, const uint8_t *rom, size_t len, struct burn_result *r, struct cx_status *st)
{
	struct burn_opts o = {.rom = rom ? ROM_FILE : ROM_NONE, .rom_file = rom, .rom_file_len = len};
	struct dev_image di = {0};
	struct device d;
	int rc;

	o.hooks.confirm = same_fw;
	o.hooks.confirm_ctx = x->w;
	o.ident.use_image_guids = o.ident.use_image_ps = true; /* the card's, as its image holds them */
	o.guard = wiz_burn_guard;
	o.hooks.before_write = wiz_write_before;
	o.hooks.before_ctx = x;
	o.hooks.progress = progress_line;
	o.hooks.after = wiz_write_after;
	o.hooks.after_ctx = x;
	x->d = &d;
	rc = wiz_open(x->w, x->card, &d, st);
	if (!rc && !(rc = device_read_image(&d, &di, st)) && di.parse_rc)
		rc = cx_fail(st, CX_EIMAGE, "the card's image does not parse (%s): nothing written", di.parse_msg);
	if (!rc)
		rc = burn_card(&d, di.buf, di.img.last_addr, &o, r, st);
	device_close(&d);
	devimage_free(&di);
	return rc;
}

int flow_boot_rom(struct wizard *w, struct cx_status *st)
{
	struct rom_index ix;
	struct burn_result r = {0};
	struct wiz_write x;
	char from[160], to[OFFER_LABEL], msg[OFFER_LABEL + 200];
	uint8_t *rom = NULL;
	size_t len = 0;
	int i, rc;

	inv_say_not_yet(w, "changing the boot ROM (it is in the signed image: burn the image with the ROM you want)");
	if ((rc = wiz_choose_card(w, "Change the boot ROM of which card?", has_image,
				  "no card with readable firmware (a card in recovery mode: use Unbrick)", &i, st)))
		return rc;
	struct wizard_card *c = &w->cards[i];
	const struct fs2_image *img = &c->ci.f.img;
	wiz_roms_text(from, sizeof(from), img->rom_sect >= 0 ? img->nroms : 0, img->roms);
	fprintf(w->out, "\nCard %s (%s, FW %s) boot ROM: %s\n", c->ci.pci.bdf, img->info.psid, c->fw, from);
	if ((rc = rom_index_scan(&ix, w->have_lib ? &w->lib.m : NULL, w->backups_dir, st)))
		return rc;
	rc = choose(w, c, &ix, &rom, &len, to, sizeof(to), st);
	rom_index_free(&ix);
	if (rc)
		return rc;
	snprintf(msg, sizeof(msg), "boot ROM: %s -> %s", from, to);
	fprintf(w->out, "\n== boot ROM: card %s ==\n  %s\n  The firmware, GUIDs, MACs and VSD stay as they are.\n"
		"  A backup of the card's whole flash goes to the stick first; the burn is failsafe.\n", c->ci.pci.bdf, msg);
	wiz_probe_first(w, i);
	if ((rc = wiz_confirm_write(w, "write the card", st))) {
		free(rom);
		wiz_history(w, c, "boot-rom", NULL, NULL, NULL, "declined", st->msg);
		return rc;
	}
	wiz_write_init(&x, w, i, "boot-rom", "before changing the boot ROM", "the boot ROM");
	x.record = false; /* failsafe: a power cut leaves the old ROM or the new one */
	x.ok_note = msg;
	x.nothing = "already has this boot ROM";
	rc = write_rom(&x, rom, len, &r, st);
	free(rom);
	char done[sizeof(msg) + 32];
	snprintf(done, sizeof(done), "%s, written and verified", msg);
	return wiz_write_finish(&x, rc, st, &r.out, r.nothing_to_do, done);
}
