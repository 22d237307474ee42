/* SPDX-License-Identifier: GPL-2.0-or-later */
/* burn.c — checks, identity, failsafe write, read-back (fs2-format.md §3.3, §4.2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/burn.h"
#include "ops/burn_fs3.h"
#include "ops/write_procedure.h"
#include "image/info.h"
#include "image/rom_insert.h"
#include "ops/device_io.h"
#include "ops/failsafe.h"
#include "util/signals.h"

/* Reading the card's image (devimage.h) outside the write. Before the write
 * a signal stops the burn: nothing was written yet. The check after the
 * write reads ~2.5 KiB and lets a signal wait for the verdict. */
struct reading {
	struct device *d;
	bool before_write;
};

static int card_read(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	struct reading *x = ctx;

	if (x->before_write && sig_pending())
		return cx_fail(st, CX_EINTR, "interrupted while reading the flash: nothing was written");
	return flash_read(&x->d->flash, addr, buf, len, st);
}

/* devimage_read_meta() under the lock. */
static int read_meta(struct device *d, struct dev_image *img, bool before_write, struct cx_status *st)
{
	struct reading x = {d, before_write};
	int rc = device_lock(d, st);

	if (rc)
		return rc;
	rc = devimage_read_meta(img, card_read, &x, d->flash.size, d->chip.desc->start_positions, st);
	device_unlock(d);
	return rc;
}

/* devimage_same() under the lock: does the card hold exactly buf? */
static int holds(struct device *d, const struct dev_image *cur, const uint8_t *buf, size_t len, bool *same,
		 struct cx_status *st)
{
	struct reading x = {d, true};
	int rc = device_lock(d, st);

	if (rc)
		return rc;
	rc = devimage_same(cur, card_read, &x, buf, len, same, st);
	device_unlock(d);
	return rc;
}

static int ask_all(const struct card_write *w, const struct guard_verdict *v, struct cx_status *st)
{
	int rc;

	for (int i = 0; i < v->nquestions; i++)
		if ((rc = cw_ask(w, v->questions[i], st)))
			return rc;
	return CX_OK;
}

/* The card's ROM section data, read now: the meta read fetched only its header. *rom
 * NULL: the card's image has no ROM. It is read whenever there is one, a few KiB to
 * ~200 KiB, because the result says which ROM the card had (burn_result.rom_before). */
static int card_rom(struct device *d, struct dev_image *cur, const uint8_t **rom, size_t *len, struct cx_status *st)
{
	const struct fs2_image *now = &cur->img;
	struct reading x = {d, true};
	struct cx_status none = {0};
	int rc, i;

	*rom = NULL;
	*len = 0;
	for (i = 0; i < now->nitems; i++)
		if (now->items[i].kind == FS2_ITEM_SECTION && now->items[i].type == FS2_ROM && now->items[i].data_len)
			break;
	if (i == now->nitems)
		return CX_OK;
	if ((rc = device_lock(d, st)))
		return rc;
	rc = devimage_read_more(cur, card_read, &x, now->items[i].data_off, now->items[i].data_len, st);
	device_unlock(d);
	if (!rc && rom_sect_data(now, rom, len, &none))
		return cx_fail(st, CX_EIMAGE, "internal error: the card's ROM section is gone");
	return rc;
}

/* The ROM the burned image carries (ops/burn_rom.h), and the ROMs before and after. */
static int pick_rom(struct device *d, struct dev_image *cur, const struct burn_opts *o, uint8_t **bufp,
		    size_t *lenp, struct fs2_image *img, struct burn_result *r, struct cx_status *st)
{
	struct rom_choice c = {o->rom, o->rom_file, o->rom_file_len};
	struct cx_status none = {0};
	const uint8_t *rom = NULL;
	size_t rom_len = 0;
	bool changed;
	int rc;

	r->rom_before.n = -1;
	if (cur) {
		if ((rc = card_rom(d, cur, &rom, &rom_len, st)))
			return rc;
		rom_set_of(&r->rom_before, rom, rom_len);
	}
	const uint8_t *own = NULL;
	size_t own_len = 0;
	(void)rom_sect_data(img, &own, &own_len, &none);
	rom_set_of(&r->rom_image, own, own_len);
	if ((rc = rom_pick_apply(&c, cur != NULL, rom, rom_len, bufp, lenp, img, &changed, r->rom_warning, st)))
		return rc;
	r->rom_carried = changed && o->rom == ROM_KEEP;
	rom = NULL;
	rom_len = 0;
	(void)rom_sect_data(img, &rom, &rom_len, &none);
	rom_set_of(&r->rom_after, rom, rom_len);
	return CX_OK;
}

/* Everything that can refuse, before anything is written: the rules of
 * ops/guard.h (which `match` applies too), on the file, then on the image as it
 * will be written, with the ROM burn_opts.rom chose in it. */
static int prepare(struct card_write *w, uint8_t **bufp, size_t *lenp, struct dev_image *cur,
		   const struct burn_opts *o, const struct identity_opts *ident, struct burn_result *r,
		   struct cx_status *st)
{
	struct device *d = w->d;
	uint8_t *buf;
	size_t len;
	struct fs2_image *img = calloc(2, sizeof(*img));
	struct guard_verdict v;
	struct guard_opts go = o->guard;
	struct cx_status pst = {0};
	int rc;

	if (!img)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	guard_check_file(*bufp, *lenp, &img[0], &v);
	if (v.code) {
		free(img);
		return cx_fail(st, v.code, "%s", v.reason);
	}
	const struct fs2_image *now = cur ? &cur->img : NULL;
	if ((rc = pick_rom(d, cur, o, bufp, lenp, &img[0], r, st))) {
		free(img);
		return rc;
	}
	buf = *bufp;
	len = *lenp;
	/* flint's brom asks about a ROM for another device (BromSubCommand, askUser). */
	if (r->rom_warning[0]) {
		char q[CX_MSG_MAX + 40];
		snprintf(q, sizeof(q), "%s. Burn it anyway?", r->rom_warning);
		if ((rc = cw_ask(w, q, st))) {
			free(img);
			return rc;
		}
	}
	memcpy(r->new_fw, img[0].info.fw_ver, sizeof(r->new_fw));
	snprintf(r->new_psid, sizeof(r->new_psid), "%s", img[0].info.psid);
	if (now) {
		r->had_image = true;
		memcpy(r->old_fw, now->info.fw_ver, sizeof(r->old_fw));
		snprintf(r->old_psid, sizeof(r->old_psid), "%s", now->info.psid);
	}
	struct guard_card gc = {d->chip.desc->hw_id, d->chip.rev, d->flash.size, d->chip.recovery, now};
	go.ident = ident;
	guard_check(&gc, &img[0], &go, &v);
	r->guid_source = v.id.source;
	r->vsd_source = v.id.vsd_source;
	if (v.code) {
		free(img);
		return cx_fail(st, v.code, "%s", v.reason);
	}
	if ((rc = identity_apply(buf, &img[0], &v.id, st))) {
		free(img);
		return rc;
	}
	/* The patched image must verify, GUIDs set, before it goes anywhere. */
	if ((rc = fs2_parse(buf, len, &img[1], &pst)) || (rc = fs2_verdict(&img[1], &pst))) {
		free(img);
		return cx_fail(st, CX_EIMAGE, "internal error: the patched image does not verify (%s)", pst.msg);
	}
	free(img);
	return ask_all(w, &v, st);
}

/* The burn as an op of the write procedure (write_procedure.h). */
struct burn_run {
	const struct burn_opts *o;
	struct burn_result *r;
	uint8_t *buf;                /* the image as it is written: identity patched, ROM carried */
	size_t len;
	struct dev_image cur;        /* the card's image, its meta read (not in recovery mode) */
	struct failsafe_plan fp;
	struct identity_opts ident;  /* o->ident, with what a recovery-mode card's flash still tells */
	struct recovered_id recovered;
};

/* A section of the card's image that is there, whole: its CRC is good, and it is not
 * the blank GUID pattern. */
static bool sect_good(const struct fs2_image *img, int idx)
{
	const struct fs2_item *s = idx >= 0 ? &img->items[idx] : NULL;

	return s && !s->blank && s->crc_stored == s->crc_calc;
}

/* A recovery-mode card's flash may still hold an image whose GUID section is
 * whole (only its code is damaged, say): mstflint 3.8 reads those GUIDs and
 * keeps them (hw-access.md §9.2 D6), and so do we, when its structure walks
 * and the section's CRC is good (not the blank pattern). 3.8 keeps that image's
 * VSD too (§9.2 D13): so do we, when its IMAGE_INFO section's CRC is good and
 * it holds a VSD. No image at all is no error here. */
static int recovered_into(struct device *d, struct dev_image *c, struct recovered_id *out, struct cx_status *st)
{
	struct cx_status ignore = {0};
	int rc;

	out->have_guids = out->have_vsd = false;
	if ((rc = read_meta(d, c, true, &ignore)) == CX_EIMAGE)
		return CX_OK;
	if (rc)
		return cx_fail(st, rc, "%s", ignore.msg);
	if (c->parse_rc)
		return CX_OK;
	if (sect_good(&c->img, c->img.guid_sect) && !c->img.guids.blank && c->img.guids.n >= GUIDS_NGUID) {
		out->guids = c->img.guids;
		out->have_guids = true;
	}
	if (sect_good(&c->img, c->img.info_sect) && c->img.info.have[TAG_VSD]) {
		snprintf(out->vsd, sizeof(out->vsd), "%s", c->img.info.vsd);
		out->have_vsd = true;
	}
	return CX_OK;
}

int burn_recovered(struct device *d, struct recovered_id *out, struct cx_status *st)
{
	struct dev_image c = {0};
	int rc = recovered_into(d, &c, out, st);

	devimage_free(&c);
	return rc;
}

/* Read only for what the burn was not given: GUIDs, or a VSD. */
static int read_recovered(struct device *d, struct burn_run *x, struct cx_status *st)
{
	const struct identity_opts *o = &x->o->ident;
	bool want_guids = !o->given.have_guids && !o->use_image_guids, want_vsd = !o->vsd && !o->use_image_ps;
	int rc;

	if (!want_guids && !want_vsd)
		return CX_OK;
	if ((rc = recovered_into(d, &x->cur, &x->recovered, st)))
		return rc;
	if (want_guids && x->recovered.have_guids)
		x->ident.recovered = &x->recovered.guids;
	if (want_vsd && x->recovered.have_vsd)
		x->ident.recovered_vsd = x->recovered.vsd;
	return CX_OK;
}

/* Where the image goes, from the patched image's own layout. */
static int place(struct card_write *w, struct burn_run *x, struct cx_status *st)
{
	struct device *d = w->d;
	struct fs2_image *pi = malloc(sizeof(*pi));
	struct cx_status pst = {0};

	if (!pi)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	if (fs2_parse(x->buf, x->len, pi, &pst)) {
		free(pi);
		return cx_fail(st, CX_EIMAGE, "internal error: the image to burn does not parse (%s): nothing written",
			       pst.msg);
	}
	x->fp = (struct failsafe_plan){d->flash.size, pi->log2chunk, pi->failsafe, !d->chip.recovery, x->cur.start,
				       d->chip.desc->start_positions, x->o->nofs};
	free(pi);
	x->r->start = failsafe_target(&x->fp);
	if (!d->chip.recovery)
		cw_image_of(&w->old_boot, &x->cur);
	w->new_boot = (struct cw_image){true, x->r->start, x->buf, x->len};
	return CX_OK;
}

static int check(struct card_write *w, struct cx_status *st)
{
	struct burn_run *x = w->ctx;
	struct device *d = w->d;
	int rc;

	/* The checks and the identity need the card's image structure, its GUID
	 * and IMAGE_INFO sections: devimage_read_meta() reads those (~2.5 KiB),
	 * not the whole image (0.87 s for 1 MiB through the gateway). */
	x->ident = x->o->ident;
	if (!d->chip.recovery) {
		if ((rc = read_meta(d, &x->cur, true, st)))
			return rc;
		if (x->cur.parse_rc)
			return cx_fail(st, CX_EIMAGE, "the card's image does not parse (%s); burning over it "
				       "needs the recovery path", x->cur.parse_msg);
	} else if ((rc = read_recovered(d, x, st))) {
		return rc;
	}
	if ((rc = prepare(w, &x->buf, &x->len, d->chip.recovery ? NULL : &x->cur, x->o, &x->ident, x->r, st)))
		return rc;
	return place(w, x, st);
}

/* "Already holds this image" is decided on the card's bytes, every one of
 * them read and compared with the patched image: never on versions or
 * stored CRCs, so a damaged copy of the same firmware is burned again.
 * The comparison stops at the first 16 bytes that differ, which for
 * another image is in its first block or two. */
static int plan(struct card_write *w, struct cx_status *st)
{
	struct burn_run *x = w->ctx;
	struct device *d = w->d;
	bool same;
	int rc;

	if (!d->chip.recovery) {
		if ((rc = holds(d, &x->cur, x->buf, x->len, &same, st)))
			return rc;
		if (same) {
			w->out.nothing_to_do = true;
			x->r->start = x->cur.start;
			return CX_OK;
		}
	}
	if (x->o->nofs && !d->chip.recovery && x->cur.start == x->r->start)
		return cw_ask(w, "--nofs writes over the card's running image: a power cut during the burn leaves the "
			      "card without firmware. Burn anyway?", st);
	return CX_OK;
}

/* The default path backs the card up just before this (hooks.before_write): the
 * backup's two agreeing reads of the whole flash, made under this lock, are the plan's
 * read (device_take_flash), so the target slot is not read a third time to learn which
 * units need an erase. Without a backup the writer reads what it changes. */
static int write(struct card_write *w, struct cx_status *st)
{
	struct burn_run *x = w->ctx;
	struct device_io io_ctx = {.d = w->d,
				   .if_failed = "the card's running image is intact: it is safe to power off"};
	struct failsafe_io io;
	uint8_t *seen = device_take_flash(w->d);
	int rc;

	io_ctx.shadow = seen;
	io_ctx.progress = cw_progress(w, &io_ctx.progress_arg);
	device_io_init(&io, &io_ctx);
	rc = failsafe_burn(&io, &x->fp, x->buf, (uint32_t)x->len, &x->r->start, st);
	free(seen);
	return rc;
}

/* What is left to prove after the write. Every byte of the new slot is
 * already proven: write_region() returned CX_OK for each chunk piece and
 * for the signature, so each byte an erase or program could change was
 * read back after it and compared, and each byte left alone was read
 * while planning and found equal (write_region.h); the old signature's zeroing
 * is such a write too. Nothing writes the flash after those verifies but
 * later steps of this burn, each verified the same way and all outside
 * the new image's bytes. Reading the whole image again (0.87 s for 1 MiB)
 * would prove those bytes a second time. What the per-unit verify cannot
 * see is how the card finds the image: that the lowest start position
 * with a signature is the new one (no stale signature below it: the boot
 * ROM and flint take the lowest, fs2-format.md §4.2), and that walking it
 * from there through the zebra translation, as they do, meets the image's
 * own boot record, BOOT2 and section headers (spread over the slot's
 * chunks; the write placed the pieces with the same zebra_cont2phys() the
 * walk reads them with), GUID and IMAGE_INFO sections, and ends where the
 * image ends. devimage_read_meta() does exactly that walk; every byte it
 * reads must equal the image. */
static int verify(struct card_write *w, struct cx_status *st)
{
	struct burn_run *x = w->ctx;
	struct dev_image after = {0};
	int rc = read_meta(w->d, &after, false, st);

	if (!rc && after.start != x->r->start)
		rc = cx_fail(st, CX_EFLASH, "after the burn the card's first image is at 0x%x, not the new one at 0x%x",
			     after.start, x->r->start);
	else if (!rc && (after.parse_rc || !devimage_known_match(&after, x->buf, x->len)))
		rc = cx_fail(st, CX_EFLASH, "read-back after the burn does not match the image at 0x%x", x->r->start);
	devimage_free(&after);
	return rc;
}

static const struct card_write_op burn_op = {"burn", check, plan, write, verify};

const char *burn_from_text(const struct burn_result *r, char *buf, size_t n)
{
	char v[24];

	if (!r->had_image) {
		snprintf(buf, n, "%s", BURN_FROM_NONE);
		return buf;
	}
	fmt_fw_version(v, sizeof(v), r->old_fw);
	snprintf(buf, n, "FW %s", v);
	return buf;
}

int burn_card(struct device *d, const uint8_t *img, size_t len, const struct burn_opts *o,
	      struct burn_result *r, struct cx_status *st)
{
	struct burn_run x = {.o = o, .r = r, .len = len};
	struct card_write w = {.d = d, .op = &burn_op, .ctx = &x, .hooks = &o->hooks, .dry_run = o->dry_run};
	int rc;

	if (d->chip.desc->format != CHIP_FW_FS2)
		return burn_fs3_card(d, img, len, o, r, st);
	memset(r, 0, sizeof(*r));
	if (!(x.buf = malloc(len ? len : 1)))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	memcpy(x.buf, img, len);
	rc = card_write_run(&w, st);
	r->nothing_to_do = w.out.nothing_to_do;
	r->out = w.out;
	r->bytes_erased = w.out.bytes_erased;
	r->bytes_programmed = w.out.bytes_programmed;
	devimage_free(&x.cur);
	free(x.buf);
	return rc;
}
