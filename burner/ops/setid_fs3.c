/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setid_fs3.c — sg on an FS3/FS4 card as a card_write_op (setid_fs3.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/fs3_burnimg.h"
#include "ops/burn_fs3.h"
#include "ops/device_io.h"
#include "ops/devinfo_order.h"
#include "ops/setid_fs3.h"

#define SECTOR 0x1000  /* FS3/FS4_DEFAULT_SECTOR_SIZE: the least an erase takes, fs3-format.md §11.2 */

struct sg_ctx {
	const struct setid_fs3_opts *o;
	struct setid_fs3_result *r;
	struct devfs3 card;          /* the card's flash as read */
	struct fs3_image img;        /* parsed with fs3_parse_dev_lost */
	struct fs3_devinfo_plan p;
	uint8_t *copy;               /* FS3: the flash as the re-burn leaves it */
	struct fs3_burn b;
	bool have_b;
};

static void drop(struct sg_ctx *x)
{
	if (x->have_b)
		fs3_burn_free(&x->b);
	x->have_b = false;
	free(x->copy);
	x->copy = NULL;
	devfs3_free(&x->card);
}

static const char *fmt_of(const struct device *d)
{
	return d->chip.desc->format == CHIP_FW_FS4 ? "FS4" : "FS3";
}

/* The card read whole (FS3: the re-burn needs every section) or with its device data (FS4), and
 * parsed so that a lost DEV_INFO is no structural fault; then judged by all but DEV_INFO. */
static int read_card(struct device *d, struct sg_ctx *x, struct cx_status *st)
{
	bool fs3 = d->chip.desc->format == CHIP_FW_FS3;
	struct cx_status pst = {0};
	char why[CX_MSG_MAX];
	int rc = fs3 ? device_read_fs3(d, &x->card, &pst) : device_read_fs3_burn(d, &x->card, &pst);

	if (rc && rc != CX_EIMAGE)
		return cx_fail(st, rc, "%s", pst.msg);
	rc = fs3_parse_dev_lost(x->card.flash, x->card.size, &x->img, st);
	if (!rc)
		rc = fs3_devinfo_verdict(&x->img, false, st);
	if (rc) {
		snprintf(why, sizeof(why), "%s", st->msg);
		cx_status_clear(st);
		return cx_fail(st, CX_EIMAGE, "the card's flash holds no valid %s image apart from its DEV_INFO "
			       "(%.200s): sg puts back GUIDs/MACs, not an image (burn, or restore a backup); "
			       "nothing was written", fmt_of(d), why);
	}
	return CX_OK;
}

/* Every erase unit the new DEV_INFO touches holds nothing else listed by a TOC (an erase there
 * must put nothing else at risk), and the FS4 DTOC is not in it. */
static int target_alone(const struct sg_ctx *x, struct cx_status *st)
{
	uint32_t lo = x->p.target & ~(SECTOR - 1), hi = (x->p.target + x->p.len + SECTOR - 1) & ~(SECTOR - 1);

	for (int i = 0; i < x->img.nentries; i++) {
		const struct fs3_entry *e = &x->img.entries[i];
		if (e->data_off == x->p.target || !(e->data_off < hi && lo < (uint64_t)e->data_off + e->size))
			continue;
		return cx_fail(st, CX_EUNSUPPORTED, "the new DEV_INFO's sector at 0x%x also holds section 0x%x at "
			       "0x%x: erasing it would put that at risk; nothing was written", lo, e->type, e->data_off);
	}
	if (x->img.dtoc_off && x->img.dtoc_off < hi && lo < x->img.dtoc_off + SECTOR)
		return cx_fail(st, CX_EUNSUPPORTED, "the new DEV_INFO's sector at 0x%x holds the DTOC; nothing was "
			       "written", lo);
	/* the image's head (header, BOOT2, ITOC) is no TOC entry: checked on its own */
	uint32_t head_end = (x->img.itoc_off + SECTOR) & ~(SECTOR - 1);
	if (x->img.start < hi && lo < head_end)
		return cx_fail(st, CX_EUNSUPPORTED, "the new DEV_INFO's sector at 0x%x is inside the card's image; "
			       "nothing was written", lo);
	return CX_OK;
}

/* FS3: the card's own image again, from a copy of the flash whose ITOC names the new DEV_INFO;
 * neither DEV_INFO place may be written by it (added to the ranges the writer refuses). */
static int prepare_reburn(struct device *d, struct sg_ctx *x, struct cx_status *st)
{
	const struct fs3_card_id id = {d->chip.desc->hw_id, d->chip.rev};
	uint32_t itoc_end = (x->img.itoc_off + SECTOR) & ~(SECTOR - 1);
	int rc;

	/* the head the burn writes, up to the ITOC's sector end (fs3-format.md §11.2) */
	if ((rc = device_read_fs3_more(d, &x->card, x->img.start, itoc_end - x->img.start, st)))
		return rc;
	if (!(x->copy = malloc(x->card.size)))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	memcpy(x->copy, x->card.flash, x->card.size);
	if ((rc = fs3_devinfo_repoint(x->copy, x->card.size, &x->img, &x->p, st)))
		return rc;
	if ((rc = fs3_burn_prepare(x->copy, x->card.size, x->copy, x->card.size, &id, &x->b, st)))
		return rc;
	x->have_b = true;
	if (x->b.ndev + 2 > (int)(sizeof(x->b.dev) / sizeof(x->b.dev[0])))
		return cx_fail(st, CX_EIMAGE, "too many device sections");
	x->b.dev[x->b.ndev++] = (struct fs3_devrange){0xe1, x->p.old_addr, x->p.len};
	x->b.dev[x->b.ndev++] = (struct fs3_devrange){0xe1, x->p.target, x->p.len};
	return CX_OK;
}

static int plan_from_card(struct card_write *w, struct sg_ctx *x, struct cx_status *st)
{
	int rc;

	drop(x);
	if ((rc = read_card(w->d, x, st)) ||
	    (rc = fs3_devinfo_plan(&x->img, &x->o->rq, x->o->restore_mfg_ids, &x->p, st)) ||
	    (rc = target_alone(x, st)))
		return rc;
	struct setid_fs3_result *r = x->r;
	r->old_valid = x->p.old_valid;
	r->old_guid = x->p.old_guid, r->old_mac = x->p.old_mac;
	r->guid = x->p.guid, r->mac = x->p.mac;
	r->start = x->img.start;
	return CX_OK;
}

static int check(struct card_write *w, struct cx_status *st)
{
	struct sg_ctx *x = w->ctx;
	int rc;

	if ((rc = burn_fs3_refuse_secure_fw(w->d, st)) || (rc = device_refuse_protected(w->d, st)) ||
	    (rc = plan_from_card(w, x, st)))
		return rc;
	if (x->o->review && (rc = x->o->review(x->o->review_ctx, &x->p, st)))
		return rc;
	drop(x); /* the plan reads again under the lock */
	return CX_OK;
}

static int plan(struct card_write *w, struct cx_status *st)
{
	struct sg_ctx *x = w->ctx;
	int rc;

	if ((rc = plan_from_card(w, x, st)))
		return rc;
	if (x->p.same) {
		w->out.nothing_to_do = x->r->nothing_to_do = true;
		return CX_OK;
	}
	if (x->p.fmt == FMT_FS3 && (rc = prepare_reburn(w->d, x, st)))
		return rc;
	uint32_t to = x->p.fmt == FMT_FS3 ? x->b.target : x->img.start;
	w->old_boot = (struct cw_image){true, x->img.start, NULL, 0};
	w->new_boot = (struct cw_image){true, to, NULL, 0};
	return CX_OK;
}

static int write(struct card_write *w, struct cx_status *st)
{
	struct sg_ctx *x = w->ctx;
	struct device_io dx = {.d = w->d};
	struct failsafe_io io;

	dx.progress = cw_progress(w, &dx.progress_arg);
	dx.if_failed = "the card boots, its DEV_INFO old or new";
	device_io_init(&io, &dx);
	int rc = devinfo_order_write(&io, &x->p, x->have_b ? &x->b : NULL, st);
	if (!rc && x->have_b) {
		x->r->reburned = true;
		x->r->start = x->b.target;
	}
	return rc;
}

/* Read the card strictly: one whole DEV_INFO with the new values, every other device section
 * as before, and on FS3 the image at the re-burn's target alone. */
static int verify(struct card_write *w, struct cx_status *st)
{
	struct sg_ctx *x = w->ctx;
	struct devfs3 now;
	int rc = device_read_fs3_burn(w->d, &now, st);

	if (!rc && (rc = fs3_verdict_query(&now.img, st)))
		rc = cx_fail(st, CX_EFLASH, "the card does not read back whole: %s", st->msg);
	if (!rc && (!now.img.dev.present || now.img.dev.guids[0].uid != x->p.guid ||
		    (now.img.dev.macs[0].uid & 0xffffffffffffull) != x->p.mac))
		rc = cx_fail(st, CX_EFLASH, "the card's DEV_INFO does not read back with the new GUID/MAC");
	if (!rc && x->have_b && (now.img.start != x->b.target || now.set_aside != DEVFS3_NONE))
		rc = cx_fail(st, CX_EFLASH, "the card reads its image at 0x%x, not only at 0x%x", now.img.start,
			     x->b.target);
	for (int i = 0; !rc && i < x->img.nentries; i++) {
		const struct fs3_entry *e = &x->img.entries[i];
		bool dev = e->device_data || e->in_dtoc;
		if (!dev || e->type == 0xe1)
			continue;
		if ((rc = device_read_fs3_more(w->d, &now, e->data_off, e->size, st)))
			break;
		if (memcmp(now.flash + e->data_off, x->card.flash + e->data_off, e->size))
			rc = cx_fail(st, CX_EFLASH, "the device section 0x%x at 0x%x changed", e->type, e->data_off);
	}
	devfs3_free(&now);
	return rc;
}

static const struct card_write_op setid_fs3_op = {"set-ids", check, plan, write, verify};

int setid_fs3_card(struct device *d, const struct setid_fs3_opts *o, struct setid_fs3_result *r,
		   struct cx_status *st)
{
	struct sg_ctx *x = calloc(1, sizeof(*x));
	int rc;

	memset(r, 0, sizeof(*r));
	if (!x)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	x->o = o;
	x->r = r;
	struct card_write w = {.d = d, .op = &setid_fs3_op, .ctx = x, .hooks = &o->hooks, .dry_run = o->dry_run};
	rc = card_write_run(&w, st);
	r->out = w.out; /* the bytes erased and programmed are the outcome's */
	drop(x);
	free(x);
	return rc;
}

int setid_fs3_look(struct device *d, struct setid_fs3_look *l, struct cx_status *st)
{
	struct sg_ctx *x = calloc(1, sizeof(*x));
	int rc;

	memset(l, 0, sizeof(*l));
	if (!x)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	if (!(rc = burn_fs3_refuse_secure_fw(d, st)) && !(rc = device_refuse_protected(d, st)) &&
	    !(rc = read_card(d, x, st))) {
		const struct fs3_devinfo *m = &x->img.mfg;
		/* MFG_INFO's own values: a request every card with a sound MFG_INFO accepts whatever
		 * its override bit, so the plan says where and from what. Blank ones, which the plan
		 * refuses, stand aside for a neutral pair when other values may be set. */
		struct fs3_sg_request rq = {true, true, m->guids[0].uid, m->macs[0].uid & 0xffffffffffffull};
		l->format = fmt_of(d);
		l->override_en = m->guids_override_en;
		l->mfg_guid = rq.guid, l->mfg_mac = rq.mac;
		if (l->override_en && (!rq.guid || rq.guid == ~0ull || !rq.mac || rq.mac == 0xffffffffffffull))
			rq.guid = 1, rq.mac = 2;
		if (!(rc = fs3_devinfo_plan(&x->img, &rq, true, &x->p, st)) && !(rc = target_alone(x, st))) {
			l->old_valid = x->p.old_valid;
			l->old_guid = x->p.old_guid, l->old_mac = x->p.old_mac;
		}
	}
	drop(x);
	free(x);
	return rc;
}
