/* SPDX-License-Identifier: GPL-2.0-or-later */
/* burn_fs3.c — an FS3/FS4 burn as a card_write_op (burn_fs3.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/fs3_burnimg.h"
#include "ops/burn_fs3.h"
#include "ops/device_io.h"
#include "ops/failsafe_fs3.h"

struct fs3_ctx {
	const uint8_t *file;
	size_t len;
	const struct burn_opts *o;
	struct burn_result *r;
	struct fs3_image fimg;       /* the file, parsed */
	struct devfs3 card;          /* the card as the plan read it */
	struct fs3_burn b;
	bool have_b;
};

static int card_read(struct device *d, struct devfs3 *c, struct cx_status *st)
{
	int rc = device_read_fs3_burn(d, c, st);
	char why[CX_MSG_MAX];

	if (rc == CX_EIMAGE) {
		/* cx_fail keeps the first message: say it again in the card's words */
		snprintf(why, sizeof(why), "%s", st->msg);
		cx_status_clear(st);
		return cx_fail(st, CX_EIMAGE, "the card's flash holds no valid %s image (%.200s): a failsafe burn keeps "
			       "the card's device data, which must be there; a backup bundle of this card puts "
			       "it back (restore --device-data); nothing was written", d->chip.desc->format == CHIP_FW_FS4 ? "FS4" : "FS3",
			       why);
	}
	return rc;
}

static int prepare(struct card_write *w, struct fs3_ctx *x, struct cx_status *st)
{
	struct device *d = w->d;
	const struct fs3_card_id id = {d->chip.desc->hw_id, d->chip.rev};
	int rc;

	if ((rc = card_read(d, &x->card, st)))
		return rc;
	if ((rc = fs3_burn_prepare(x->file, x->len, x->card.flash, x->card.size, &id, &x->b, st)))
		return rc;
	x->have_b = true;
	return CX_OK;
}

static void drop(struct fs3_ctx *x)
{
	if (x->have_b)
		fs3_burn_free(&x->b);
	x->have_b = false;
	devfs3_free(&x->card);
}

/* The options that would change a signed image or the card's device data. */
static int refuse_options(const struct burn_opts *o, const char *fmt, struct cx_status *st)
{
	const struct identity_opts *i = &o->ident;

	if (i->given.have_guids || i->given.have_macs || i->vsd)
		return cx_fail(st, CX_EUNSUPPORTED, "--guid/--mac/--vsd: on an %s card the GUIDs, MACs and VSD are its "
			       "device data (DEV_INFO), outside the image; a burn keeps them and does not change "
			       "them; nothing was written", fmt);
	if (o->rom != ROM_KEEP)
		return cx_fail(st, CX_EUNSUPPORTED, "a ROM choice: an %s image's ROM is in its signed region; burn the "
			       "released image that carries the ROM you want, unmodified; nothing was written", fmt);
	if (o->nofs)
		return cx_fail(st, CX_EUNSUPPORTED, "--nofs on an %s card is not supported: the failsafe burn "
			       "keeps the running image until the new one is whole; nothing was written", fmt);
	return CX_OK;
}

/* A write-protected flash: refused before the card is read, or, with --unprotect, a question;
 * yes lets flash_prepare_write() clear the block-protect bits (flash.h). */
static int protection(struct card_write *w, struct fs3_ctx *x, struct cx_status *st)
{
	struct flash *f = &w->d->flash;
	bool wp = false;
	uint8_t sr = 0;
	char q[240];
	int rc;

	if ((rc = device_lock(w->d, st)))
		return rc;
	rc = flash_is_write_protected(f, &wp, st);
	if (!rc && wp && !x->o->unprotect)
		rc = flash_check_writable(f, st);
	if (!rc && wp)
		rc = flash_status(f, &sr, st);
	device_unlock(w->d);
	if (rc || !wp)
		return rc;
	snprintf(q, sizeof(q), "The flash (%s) is write-protected (status register 0x%02x). Clear its block-protect "
		 "bits for this burn?", f->part->name, sr);
	if ((rc = cw_ask(w, q, st)))
		return rc;
	f->may_unprotect = true;
	return CX_OK;
}

/* After a burn that cleared the protection: put it back only on a yes (the default is no). */
static void reprotect(struct card_write *w)
{
	struct flash *f = &w->d->flash;
	struct cx_status ask = {0}, ignore = {0};
	char q[200];

	if (!f->unprotected)
		return;
	snprintf(q, sizeof(q), "Put the flash's write protection back (status register 0x%02x)?", f->sr_before);
	if (!cw_ask(w, q, &ask))
		flash_reprotect(f, &ignore);
}

/* Secure firmware (MGIR fw_info.secured) takes a new image only through its own signed
 * update flow (MCC/MCDA), which cxflash does not speak (docs/hw-access.md §3.14): asked to
 * write through MFBA it answers "method not supported" halfway through (UNCONFIRMED on a
 * card; mstflint 4.21 keeps MCC for such a card, fw_ops.cpp). Say so before anything. */
int burn_fs3_refuse_secure_fw(struct device *d, struct cx_status *st)
{
	const struct mgir *m;

	if (!d->chip.fw_access)
		return CX_OK;
	if (chip_mgir(&d->chip, &m, st))
		return st->code;
	if (!m->secured)
		return CX_OK;
	return cx_fail(st, CX_EUNSUPPORTED, "%s runs secure firmware: it takes a new image only through its own "
		       "signed update (MCC), which cxflash does not do; nothing was written. What works: the "
		       "vendor's signed image with the vendor's tool, or recovery mode (the card's recovery "
		       "strap), where the chip lets the flash be written directly", d->pci.bdf);
}

static void versions(const struct fs3_image *a, uint16_t out[3])
{
	memcpy(out, a->info.fw_ver, sizeof(a->info.fw_ver));
}

static int check(struct card_write *w, struct cx_status *st)
{
	struct fs3_ctx *x = w->ctx;
	const char *fmt = w->d->chip.desc->format == CHIP_FW_FS4 ? "FS4" : "FS3";
	int rc;

	if ((rc = burn_fs3_refuse_secure_fw(w->d, st)) || (rc = refuse_options(x->o, fmt, st)) ||
	    (rc = protection(w, x, st)))
		return rc;
	if ((rc = fs3_parse(x->file, x->len, &x->fimg, st)) || (rc = fs3_verdict(&x->fimg, st))) {
		char why[CX_MSG_MAX];
		snprintf(why, sizeof(why), "%s", st->msg);
		cx_status_clear(st);
		return cx_fail(st, rc, "the image file does not verify: %.300s; nothing was written", why);
	}
	rc = prepare(w, x, st);
	if (!rc) {
		struct burn_result *r = x->r;
		r->had_image = true;
		versions(&x->card.img, r->old_fw);
		versions(&x->fimg, r->new_fw);
		snprintf(r->old_psid, sizeof(r->old_psid), "%s", x->b.card_psid);
		snprintf(r->new_psid, sizeof(r->new_psid), "%s", x->b.file_psid);
		r->rom_before.n = r->rom_image.n = r->rom_after.n = -1;
	}
	if (!rc && x->b.psid_change) {
		char q[200];
		if (!x->o->guard.allow_psid_change)
			rc = cx_fail(st, CX_EMISMATCH, "PSID mismatch: the card is %s, the image is %s; cross-flashing "
				     "needs --allow_psid_change", x->b.card_psid, x->b.file_psid);
		else {
			snprintf(q, sizeof(q), "Change the card's PSID from %s to %s?", x->b.card_psid, x->b.file_psid);
			rc = cw_ask(w, q, st);
		}
	}
	drop(x); /* the plan reads again under the lock */
	return rc;
}

/* The card runs this very image already: every extent the same in its slot. */
static bool already(struct card_write *w, struct fs3_ctx *x, struct cx_status *st)
{
	for (int i = 0; i < x->b.next; i++) {
		uint32_t at = x->b.old_start + x->b.ext[i].off;
		if (device_read_fs3_more(w->d, &x->card, at, x->b.ext[i].len, st))
			return false;
		if (memcmp(x->card.flash + at, x->b.slot + x->b.ext[i].off, x->b.ext[i].len))
			return false;
	}
	/* A second whole FS4 image set aside (a cut burn's): not done until it is gone, or
	 * mstflint refuses the card (fs3-format.md §11.3). */
	return x->card.img.start == x->b.old_start && x->card.set_aside == DEVFS3_NONE;
}

static int plan(struct card_write *w, struct cx_status *st)
{
	struct fs3_ctx *x = w->ctx;
	int rc;

	if ((rc = prepare(w, x, st)))
		return rc;
	struct cx_status ignore = {0};
	if (already(w, x, &ignore))
		w->out.nothing_to_do = x->r->nothing_to_do = true;
	/* where the image goes, or is already (as burn.c: a dry run and nothing-to-do say it too) */
	x->r->start = x->r->nothing_to_do ? x->b.old_start : x->b.target;
	w->old_boot = (struct cw_image){true, x->b.old_start, NULL, 0};
	w->new_boot = (struct cw_image){true, x->b.target, NULL, 0};
	return CX_OK;
}

static int write(struct card_write *w, struct cx_status *st)
{
	struct fs3_ctx *x = w->ctx;
	struct device_io dx = {.d = w->d};
	struct failsafe_io io;
	struct failsafe_fs3_result res;

	dx.progress = cw_progress(w, &dx.progress_arg);
	dx.if_failed = "the card still boots its old image";
	device_io_init(&io, &dx);
	int rc = failsafe_fs3_burn(&io, &x->b, &res, st);
	x->r->start = x->b.target;
	if (!rc)
		reprotect(w);
	return rc;
}

/* What the writer's own read-back of every unit it wrote (ops/write_region.h) cannot prove:
 * the card now finds the new image at the target, whole as its query reads it, and no
 * other (the old magic's dword zeroed), and every device section holds the bytes it held
 * before. The image's other bytes are not read again: each was read back as written. */
static int verify(struct card_write *w, struct cx_status *st)
{
	struct fs3_ctx *x = w->ctx;
	struct devfs3 now;
	static const uint8_t zero[FS3_INVALIDATE_LEN];
	int rc = device_read_fs3_burn(w->d, &now, st);

	if (!rc && (rc = fs3_verdict_query(&now.img, st)))
		rc = cx_fail(st, CX_EFLASH, "the burned image does not read back whole: %s", st->msg);
	if (!rc && (now.img.start != x->b.target || now.set_aside != DEVFS3_NONE))
		rc = cx_fail(st, CX_EFLASH, "the card reads its image at 0x%x%s, not only the new one at 0x%x",
			     now.img.start, now.set_aside != DEVFS3_NONE ? " with a second one" : "", x->b.target);
	if (!rc && x->b.old_start != x->b.target &&
	    !(rc = device_read_fs3_more(w->d, &now, x->b.old_start, FS3_INVALIDATE_LEN, st)) &&
	    memcmp(now.flash + x->b.old_start, zero, sizeof(zero)))
		rc = cx_fail(st, CX_EFLASH, "the old image's magic at 0x%x was not zeroed", x->b.old_start);
	for (int i = 0; !rc && i < x->b.ndev; i++) {
		const struct fs3_devrange *v = &x->b.dev[i];
		if ((rc = device_read_fs3_more(w->d, &now, v->off, v->len, st)))
			break;
		if (memcmp(now.flash + v->off, x->card.flash + v->off, v->len))
			rc = cx_fail(st, CX_EFLASH, "the device section 0x%x at 0x%x changed during the burn", v->type,
				     v->off);
	}
	devfs3_free(&now);
	return rc;
}

static const struct card_write_op burn_fs3_op = {"burn", check, plan, write, verify};

int burn_fs3_card(struct device *d, const uint8_t *img, size_t len, const struct burn_opts *o,
		  struct burn_result *r, struct cx_status *st)
{
	struct fs3_ctx *x = calloc(1, sizeof(*x));
	int rc;

	memset(r, 0, sizeof(*r));
	if (!x)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	*x = (struct fs3_ctx){.file = img, .len = len, .o = o, .r = r};
	struct card_write w = {.d = d, .op = &burn_fs3_op, .ctx = x, .hooks = &o->hooks, .dry_run = o->dry_run};
	rc = card_write_run(&w, st);
	r->out = w.out;
	r->bytes_erased = w.out.bytes_erased;
	r->bytes_programmed = w.out.bytes_programmed;
	drop(x);
	free(x);
	return rc;
}
