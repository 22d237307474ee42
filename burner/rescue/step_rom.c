/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_rom.c — a write step: the boot ROM of a burn (step_rom.h, issue 19): what the result
 * carries, the plan's "boot ROM: from -> to" line and, when the card's ROM and the image's
 * differ, the user's choice.
 *
 * The three choices, and what burn_card() is given for each (ops/burn.h):
 *   the card's   ROM_KEEP: its ROM section as it is, in place of the image's (none when
 *                the card has none)
 *   the image's  ROM_IMAGE: the image as it is
 *   none         ROM_NONE
 * The default is the card's when it has a UEFI ROM and the image has not (HP's 544+:
 * NVIDIA publishes no UEFI ROM for ConnectX-3, so a cross-flash to stock must not lose it),
 * or when the image has no ROM at all (flint's burn keeps the card's then); else the
 * image's (flint's burn of an image with a ROM). A job's rom= (wizard_opts.rom) decides
 * without a question: keep, image, none, or a ROM file. */
#include <stdlib.h>
#include <string.h>

#include "image/fs3.h"
#include "library/rom_index.h"
#include "rescue/step_rom.h"
#include "util/fileio.h"

#define ROM_PRODUCT_UEFI 0x11 /* fs2-format.md §4.5 */
#define ROM_FILE_MAX (1u << 20) /* a ROM section is far smaller than half a 2 MiB flash */

void wiz_roms_text(char *out, size_t n, int nroms, const struct rom_info *roms)
{
	struct rom_set set = {.n = nroms, .len = nroms > 0};

	memcpy(set.roms, roms, sizeof(set.roms));
	rom_set_text(&set, out, n);
}

static bool has_uefi(int n, const struct rom_info *r)
{
	for (int i = 0; i < n; i++)
		if (r[i].product == ROM_PRODUCT_UEFI)
			return true;
	return false;
}

/* The ROM section data of a parsed image (NULL, 0 when it has none). */
static void sect_of(const struct fs2_image *img, const uint8_t **p, size_t *len)
{
	*p = NULL;
	*len = 0;
	if (img->rom_sect >= 0 && img->items[img->rom_sect].data_len) {
		*p = img->buf + img->items[img->rom_sect].data_off;
		*len = img->items[img->rom_sect].data_len;
	}
}

/* A job's rom=FILE: a bare name is in the data folder's firmware/ (the stick's, or what a
 * PXE server sent), a path is taken as it is. want: the SHA-256 a job record holds (the
 * file must still be those bytes), or NULL. */
static int read_rom_file(struct wizard *w, const char *name, const char *want, struct wiz_rom *r,
			 struct cx_status *st)
{
	char dir[JOURNAL_PATH_MAX + 16], path[JOURNAL_PATH_MAX + 64], hex[SHA256_HEX_LEN + 1];
	uint8_t d[SHA256_LEN];
	int rc;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else if ((rc = path_join(dir, sizeof(dir), w->o.data_dir, "firmware", st)) ||
		 (rc = path_join(path, sizeof(path), dir, name, st)))
		return rc;
	if ((rc = file_read(path, ROM_FILE_MAX, &r->owned, &r->file_len, st)))
		return rc;
	sha256(r->owned, r->file_len, d);
	sha256_hex(d, hex);
	if (want && strcmp(want, hex))
		return cx_fail(st, CX_EMISMATCH, "the boot ROM file %s is not the one the interrupted write took "
			       "(SHA-256 %.16s..., now %.16s...)", path, want, hex);
	struct rom_info roms[ROM_MAX_IMAGES];
	wiz_roms_text(r->to, sizeof(r->to), rom_parse(r->owned, r->file_len, roms), roms);
	snprintf(r->to + strlen(r->to), sizeof(r->to) - strlen(r->to), " (the file %s)", name);
	if ((size_t)snprintf(r->record, sizeof(r->record), PENDING_ROM_FILE "%s:%s", hex, path) >= sizeof(r->record))
		return cx_fail(st, CX_EVALUE, "the boot ROM file's path is too long for a job record: %.80s...", path);
	r->pick = ROM_FILE;
	r->file = r->owned;
	return CX_OK;
}

/* A job record's "file:SHA256:PATH" (pending.h). */
static int record_file(struct wizard *w, const char *rec, struct wiz_rom *r, struct cx_status *st)
{
	char want[SHA256_HEX_LEN + 1];
	const char *p = rec + strlen(PENDING_ROM_FILE);

	if (strlen(p) < SHA256_HEX_LEN + 2 || p[SHA256_HEX_LEN] != ':')
		return cx_fail(st, CX_EVALUE, "the job record's boot ROM \"%.80s\" is not file:SHA256:PATH", rec);
	memcpy(want, p, SHA256_HEX_LEN);
	want[SHA256_HEX_LEN] = '\0';
	return read_rom_file(w, p + SHA256_HEX_LEN + 1, want, r, st);
}

/* The pick for "the card's", "the image's", "none" (0, 1, 2). The card's is ROM_KEEP
 * (ops/burn_rom.h), which the burn applies to the card's ROM as it reads it then. */
static void take(struct wiz_rom *r, int which, bool card_has_rom)
{
	static const char *const whose[] = {" (the card's)", " (the image's)", ""};

	r->pick = which == 2 ? ROM_NONE : which == 1 ? ROM_IMAGE : ROM_KEEP;
	snprintf(r->record, sizeof(r->record), "%s", rom_pick_name(r->pick));
	if (which == 0 && !card_has_rom)
		snprintf(r->to, sizeof(r->to), "none (the card's)");
	else
		snprintf(r->to, sizeof(r->to), "%s%s", which == 0 ? r->from : which == 1 ? r->img_text : "none",
			 whose[which]);
}

static int ask(struct wizard *w, struct wiz_rom *r, bool img_rom, int def, int *which, struct cx_status *st)
{
	char a[200], b[200];
	const char *items[3];
	int n = 0, map[3], choice, rc;

	snprintf(a, sizeof(a), "keep the card's: %s", r->from);
	snprintf(b, sizeof(b), "take the image's: %s", r->img_text);
	items[n] = a, map[n++] = 0;
	if (img_rom)
		items[n] = b, map[n++] = 1;
	items[n] = "no boot ROM (PXE/UEFI boot from this card off)", map[n++] = 2;
	for (int i = 0; i < n; i++)
		if (map[i] == def)
			def = i, i = n;
	fprintf(w->out, "\nThe card's boot ROM and the image's differ%s.\n",
		has_uefi(r->card_n, r->card_roms) && !r->img_uefi ? " (the card's has UEFI, the image's has not)" : "");
	if ((rc = prompt_menu(&w->p, "Boot ROM of the new firmware?", items, n, def, &choice, st)))
		return rc;
	*which = map[choice];
	return CX_OK;
}

/* A ConnectX-4/4 Lx/5 (wizard_card.fs3): an FS3/FS4 image's ROM is in its signed region, so
 * the burn carries the image's own, unmodified (ops/burn_fs3.h takes ROM_KEEP only): nothing
 * to choose, and a job's rom=none or rom=FILE is refused. */
static int plan_fs3(const char *job, const uint8_t *img, size_t len, struct wiz_rom *r, struct cx_status *st)
{
	struct fs3_image *im;
	int rc;

	if (job && strcmp(job, "keep") && strcmp(job, "image"))
		return cx_fail(st, CX_EUNSUPPORTED, "boot ROM \"%.80s\": an FS3/FS4 image's ROM is in its signed region; "
			       "the burn carries the image's own, unmodified; nothing written", job);
	if (!(im = malloc(sizeof(*im))))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	if (!(rc = fs3_parse(img, len, im, st)))
		wiz_roms_text(r->img_text, sizeof(r->img_text), im->nroms, im->roms);
	free(im);
	if (rc)
		return rc;
	r->pick = ROM_KEEP;
	snprintf(r->record, sizeof(r->record), "%s", rom_pick_name(ROM_KEEP));
	snprintf(r->from, sizeof(r->from), "the card's (in its signed image)");
	snprintf(r->to, sizeof(r->to), "%.150s (the image's own: signed, carried unmodified)", r->img_text);
	return CX_OK;
}

int wiz_rom_plan(struct wizard *w, int i, const char *record, bool ask_user, const uint8_t *img, size_t len,
		 struct wiz_rom *r, struct cx_status *st)
{
	const struct wizard_card *c = &w->cards[i];
	const uint8_t *card = NULL, *mine;
	size_t card_len = 0, mine_len;
	struct fs2_image *im = malloc(sizeof(*im));
	int rc;

	memset(r, 0, sizeof(*r));
	if (c->fs3) {
		free(im);
		return plan_fs3(record && record[0] ? record : w->o.rom, img, len, r, st);
	}
	if (!im)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	if ((rc = fs2_parse(img, len, im, st))) {
		free(im);
		return rc;
	}
	sect_of(im, &mine, &mine_len);
	wiz_roms_text(r->img_text, sizeof(r->img_text), im->nroms, im->roms);
	r->img_uefi = has_uefi(im->nroms, im->roms);
	free(im);
	if (c->ci.have_image) {
		sect_of(&c->ci.f.img, &card, &card_len);
		r->card_n = c->ci.f.img.nroms;
		memcpy(r->card_roms, c->ci.f.img.roms, sizeof(r->card_roms));
		wiz_roms_text(r->from, sizeof(r->from), card ? r->card_n : 0, r->card_roms);
	} else {
		snprintf(r->from, sizeof(r->from), "unknown (no readable image)");
	}
	/* An interrupted write's record decides as a job's rom= does: asked once, not twice. */
	const char *job = record && record[0] ? record : w->o.rom;
	if (job && !strncmp(job, PENDING_ROM_FILE, strlen(PENDING_ROM_FILE)))
		return record_file(w, job, r, st);
	if (job && strcmp(job, "keep") && strcmp(job, "image") && strcmp(job, "none"))
		return read_rom_file(w, job, NULL, r, st);
	int which = job ? (!strcmp(job, "keep") ? 0 : !strcmp(job, "image") ? 1 : 2) :
		    (card && (!mine || (has_uefi(r->card_n, r->card_roms) && !r->img_uefi))) ? 0 : 1;
	if (!c->ci.have_image && which == 0)
		which = 1; /* nothing to keep: the image as it is */
	bool differ = c->ci.have_image && (card_len != mine_len || (card && memcmp(card, mine, card_len)));
	if (!job && ask_user && differ && (rc = ask(w, r, mine != NULL, which, &which, st)))
		return rc;
	take(r, which, card != NULL);
	return CX_OK;
}

void wiz_rom_free(struct wiz_rom *r)
{
	free(r->owned);
	r->owned = NULL;
}
