/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore.c — bundle checks, card checks, ordered raw write planned from one read (restore.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/write_procedure.h"
#include "ops/device_io.h"
#include "ops/placeholder.h"
#include "ops/restore.h"
#include "ops/restore_bundle.h"
#include "ops/restore_fs3.h"

#define BLANK_GUID UINT64_MAX /* an all-ones GUID entry is blank, fs2-format.md §3.1 */

/* Same card? From the GUID and MAC the card's image carries, when it can be read. */
static int check_identity(struct device *d, const struct backup_identity *id, const struct restore_opts *o,
			  const struct card_write *w, struct restore_result *r, struct cx_status *st)
{
	struct dev_image cur = {0};
	char q[CX_MSG_MAX + 128];
	int rc;

	bool readable = false, placeholder = false;
	if (!d->chip.recovery) {
		rc = device_read_image_meta(d, &cur, st);
		if (rc && rc != CX_EIMAGE) /* a lock or a flash failure is not "no identity" */
			return rc;
		readable = !rc && !cur.parse_rc && !cur.img.guids.blank && cur.img.guids.guid[0] != BLANK_GUID;
		/* A release image's placeholder GUIDs are no card's own: nothing to compare with. */
		placeholder = readable && placeholder_find(&cur.img.guids);
		readable &= !placeholder;
		cx_status_clear(st);
	}
	if (!readable || !id->have_image || id->guid[0] == BLANK_GUID) {
		const char *why = d->chip.recovery ? "the card is in recovery mode"
				  : placeholder    ? "the card has a release image's placeholder GUIDs/MACs"
				  : !readable      ? "the card has no readable image or blank GUIDs"
						   : "the bundle holds no image";
		devimage_free(&cur);
		if (o->unread_identity_ok && id->have_image && id->guid[0] != BLANK_GUID)
			return CX_OK;
		snprintf(q, sizeof(q), "The card's identity cannot be compared with the bundle's (%s). Write the "
			 "bundle of %s (node GUID %016llx, made %s) onto %s?", why,
			 id->psid[0] ? id->psid : "a card without image", (unsigned long long)id->guid[0], id->date,
			 d->pci.bdf);
		return cw_ask(w, q, st);
	}
	const struct fs2_guids *g = &cur.img.guids;
	bool same = g->guid[0] == id->guid[0] && (g->n < 6 || id->guid_entries < 6 || g->mac[0] == id->mac[0]);
	snprintf(q, sizeof(q), "the bundle is of another card (node GUID %016llx, MAC %012llx; this card has "
		 "%016llx, %012llx)", (unsigned long long)id->guid[0], (unsigned long long)id->mac[0],
		 (unsigned long long)g->guid[0], (unsigned long long)g->mac[0]);
	devimage_free(&cur);
	if (same) {
		r->identity_checked = true;
		return CX_OK;
	}
	if (!o->force)
		return cx_fail(st, CX_EMISMATCH, "%s: nothing written (--force writes it anyway)", q);
	return cw_ask(w, strcat(q, ". Write it onto this card anyway? The card will take that card's GUIDs and MACs"),
		      st);
}

/* The restore as an op of the write procedure (write_procedure.h). */
struct restore_run {
	const char *bundle_dir;
	const struct restore_opts *o;
	struct restore_result *r;
	uint8_t *want, *have;      /* the bundle's flash, and the card's as read under the lock */
	struct dev_image old_boot, new_boot;
};

static int ask_about_plan(const struct card_write *w, const struct rewrite_info *p, struct cx_status *st)
{
	if (p->no_image)
		return cw_ask(w, "The bundle's flash holds no readable firmware image: after this restore the card "
			      "comes up in recovery mode. Write it?", st);
	if (p->not_failsafe)
		return cw_ask(w, "The bundle's image is not failsafe: it is rewritten in place, and a power cut during "
			      "the write leaves the card without firmware. Write it?", st);
	return CX_OK;
}

static int check(struct card_write *w, struct cx_status *st)
{
	struct restore_run *x = w->ctx;
	size_t len = 0;
	int rc;

	if ((rc = restore_load_flash(x->bundle_dir, &x->r->id, &x->want, &len, st)) ||
	    (rc = restore_check_card(w->d, &x->r->id, len, st)))
		return rc;
	return check_identity(w->d, &x->r->id, x->o, w, x->r, st);
}

static int mem_read(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	(void)st;
	memcpy(buf, (const uint8_t *)ctx + addr, len);
	return CX_OK;
}

/* The image a flash copy in memory boots, for the state after a failure. */
static void boot_image(const struct device *d, const uint8_t *flash, struct dev_image *m, struct cw_image *x)
{
	struct cx_status ignore = {0};

	if (!devimage_read(m, mem_read, (void *)flash, d->flash.size, d->chip.desc->start_positions, &ignore))
		cw_image_of(x, m);
}

/* The whole flash, read once: what the write plans from and the old image's meta. */
static int plan(struct card_write *w, struct cx_status *st)
{
	struct restore_run *x = w->ctx;
	struct rewrite_plan p = {w->d->flash.size, w->d->chip.desc->start_positions, NULL, x->want};
	int rc;

	if ((rc = device_read_flash(w->d, &x->have, st)))
		return rc;
	p.have = x->have;
	if ((rc = rewrite_inspect(&p, &x->r->plan, st)))
		return rc;
	if (x->r->plan.identical) {
		w->out.nothing_to_do = true;
		strcpy(x->r->flash_sha256, x->r->id.flash_sha256);
		return CX_OK;
	}
	boot_image(w->d, x->have, &x->old_boot, &w->old_boot);
	boot_image(w->d, x->want, &x->new_boot, &w->new_boot);
	if (x->r->plan.used_copy && w->new_boot.set) {
		w->new_copy = w->new_boot; /* the same bytes, burned failsafe into the other slot */
		w->new_copy.start = x->r->plan.copy_start;
	}
	return ask_about_plan(w, &x->r->plan, st);
}

static int write(struct card_write *w, struct cx_status *st)
{
	struct restore_run *x = w->ctx;
	struct rewrite_plan p = {w->d->flash.size, w->d->chip.desc->start_positions, x->have, x->want};
	struct device_io io_ctx = {.d = w->d, .shadow = NULL};
	struct failsafe_io io;
	uint8_t *shadow = malloc(w->d->flash.size);
	int rc;

	if (!shadow)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	memcpy(shadow, x->have, w->d->flash.size);
	io_ctx.shadow = shadow;
	io_ctx.progress = cw_progress(w, &io_ctx.progress_arg);
	if (!x->r->plan.no_image && !x->r->plan.not_failsafe)
		io_ctx.if_failed = "the card still holds a whole image: it is safe to power off, then run the restore "
				   "again";
	device_io_init(&io, &io_ctx);
	rc = rewrite_flash(&io, &p, &x->r->plan, st);
	free(shadow);
	return rc;
}

/* What rewrite_flash()'s per-unit verify proves (write_region.h, write_region_known)
 * is the whole claim: every unit it left alone was read under this lock and
 * equals the bundle, every byte it changed was read back. The flash is then
 * the bundle byte for byte, so its SHA-256 is the bundle's, without reading
 * the whole flash a third time (5.5 M config accesses for 2 MiB). */
static int verify(struct card_write *w, struct cx_status *st)
{
	struct restore_run *x = w->ctx;
	uint8_t sum[SHA256_LEN];

	(void)st;
	sha256(x->want, w->d->flash.size, sum);
	sha256_hex(sum, x->r->flash_sha256);
	return CX_OK;
}

static const struct card_write_op restore_op = {"restore", check, plan, write, verify};

int restore_card(struct device *d, const char *bundle_dir, const struct restore_opts *o,
		 struct restore_result *r, struct cx_status *st)
{
	struct restore_run x = {.bundle_dir = bundle_dir, .o = o, .r = r};
	struct card_write w = {.d = d, .op = &restore_op, .ctx = &x, .hooks = &o->hooks, .dry_run = o->dry_run};
	int rc;

	if (d->chip.desc->format != CHIP_FW_FS2)
		return restore_fs3_card(d, bundle_dir, o, r, st);
	memset(r, 0, sizeof(*r));
	rc = card_write_run(&w, st);
	r->nothing_to_do = w.out.nothing_to_do;
	r->out = w.out;
	r->bytes_erased = w.out.bytes_erased;
	r->bytes_programmed = w.out.bytes_programmed;
	if (rc)
		r->flash_sha256[0] = '\0';
	devimage_free(&x.old_boot);
	devimage_free(&x.new_boot);
	free(x.want);
	free(x.have);
	return rc;
}
