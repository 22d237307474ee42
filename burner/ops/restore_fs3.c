/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore_fs3.c — an FS3/FS4 restore as a card_write_op (restore_fs3.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/burn_fs3.h"
#include "ops/device_io.h"
#include "ops/restore_bundle.h"
#include "ops/restore_fs3.h"
#include "ops/restore_order_fs3.h"

struct rfs3_run {
	const char *bundle_dir;
	const struct restore_opts *o;
	struct restore_result *r;
	uint8_t *want, *have;
	struct rfs3_info info;
};

/* The card's DEV_INFO base GUID and MAC, as q reads them (0: none readable). */
static int card_identity(struct device *d, uint64_t *guid, uint64_t *mac, struct cx_status *st)
{
	struct devfs3 c;
	int rc = device_read_fs3_burn(d, &c, st);

	*guid = *mac = 0;
	if (!rc && c.img.dev.present && !fs3_verdict_query(&c.img, st)) {
		*guid = c.img.dev.guids[0].uid;
		*mac = c.img.dev.macs[0].uid;
	}
	devfs3_free(&c);
	if (rc == CX_EIMAGE || !rc)
		cx_status_clear(st); /* no image or no DEV_INFO: "cannot be read", not a failure */
	return rc == CX_EIMAGE ? CX_OK : rc;
}

static int check_identity(struct card_write *w, struct rfs3_run *x, struct cx_status *st)
{
	const struct backup_identity *id = &x->r->id;
	uint64_t guid, mac;
	char q[CX_MSG_MAX + 128];
	int rc;

	if ((rc = card_identity(w->d, &guid, &mac, st)))
		return rc;
	if (!guid || !id->guid[0]) {
		if (x->o->unread_identity_ok && id->guid[0])
			return CX_OK;
		snprintf(q, sizeof(q), "The card's identity (DEV_INFO) cannot be read, so it cannot be compared with the "
			 "bundle's. Write the bundle of %s (base GUID %016llx, made %s) onto %s?",
			 id->psid[0] ? id->psid : "a card without image", (unsigned long long)id->guid[0], id->date,
			 w->d->pci.bdf);
		return cw_ask(w, q, st);
	}
	bool same = guid == id->guid[0] && (!mac || !id->mac[0] || mac == id->mac[0]);
	snprintf(q, sizeof(q), "the bundle is of another card (base GUID %016llx, MAC %012llx; this card has %016llx, "
		 "%012llx)", (unsigned long long)id->guid[0], (unsigned long long)id->mac[0], (unsigned long long)guid,
		 (unsigned long long)mac);
	if (same) {
		x->r->identity_checked = true;
		return CX_OK;
	}
	if (!x->o->force)
		return cx_fail(st, CX_EMISMATCH, "%s: nothing written (--force writes it anyway)", q);
	return cw_ask(w, strcat(q, ". Write it onto this card anyway? The card will take that card's GUIDs and MACs"),
		      st);
}

static int check(struct card_write *w, struct cx_status *st)
{
	struct rfs3_run *x = w->ctx;
	size_t len = 0;
	int rc;

	if ((rc = burn_fs3_refuse_secure_fw(w->d, st)) || (rc = device_refuse_protected(w->d, st)) ||
	    (rc = restore_load_flash(x->bundle_dir, &x->r->id, &x->want, &len, st)) ||
	    (rc = restore_check_card(w->d, &x->r->id, len, st)))
		return rc;
	return check_identity(w, x, st);
}

/* The device area differs: a distinct question, and only with device_data. */
static int ask_device_data(struct card_write *w, struct rfs3_run *x, struct cx_status *st)
{
	const struct rfs3_info *i = &x->info;
	char what[200], q[CX_MSG_MAX];

	if (i->old_guid != i->new_guid || i->old_mac != i->new_mac || i->old_dev_valid != i->new_dev_valid)
		snprintf(what, sizeof(what), "base GUID %s%016llx -> %016llx, base MAC %012llx -> %012llx",
			 i->old_dev_valid ? "" : "(none valid) ", (unsigned long long)i->old_guid,
			 (unsigned long long)i->new_guid, (unsigned long long)i->old_mac, (unsigned long long)i->new_mac);
	else
		snprintf(what, sizeof(what), "GUIDs and MACs the same (%016llx, %012llx); other device sections (settings, "
			 "VPD, MFG_INFO) differ", (unsigned long long)i->new_guid, (unsigned long long)i->new_mac);
	x->r->device_data_differs = true;
	if (!x->o->device_data)
		return cx_fail(st, CX_EDECLINED, "the bundle's device data differs from the card's (%s): writing it is a "
			       "separate step, %s; nothing written", what,
			       x->o->device_data_how ? x->o->device_data_how : "--device-data (asks)");
	snprintf(q, sizeof(q), "Write the bundle's device data onto %s too (%s)?", w->d->pci.bdf, what);
	if (!x->o->confirm_device_data)
		return cw_ask(w, q, st);
	if (x->o->confirm_device_data(x->o->hooks.confirm_ctx, q, st))
		return st->code ? st->code : cx_fail(st, CX_EDECLINED, "not confirmed: nothing written");
	return CX_OK;
}

static int plan(struct card_write *w, struct cx_status *st)
{
	struct rfs3_run *x = w->ctx;
	struct rfs3_plan p = {w->d->flash.size, NULL, x->want, false};
	int rc;

	if ((rc = device_read_flash(w->d, &x->have, st)))
		return rc;
	p.have = x->have;
	if ((rc = rfs3_inspect(&p, &x->info, st)))
		return rc;
	w->old_boot = (struct cw_image){x->info.run_start != UINT32_MAX, x->info.run_start, NULL, 0};
	w->new_boot = (struct cw_image){true, x->info.boot_start, NULL, 0};
	if (x->info.dev_differs && (rc = ask_device_data(w, x, st)))
		return rc;
	if (!x->info.image_differs && !x->info.dev_differs) {
		w->out.nothing_to_do = true;
		strcpy(x->r->flash_sha256, x->r->id.flash_sha256);
	}
	x->r->plan.used_copy = x->info.used_copy;
	x->r->plan.boot_start = x->info.boot_start;
	return CX_OK;
}

static int write(struct card_write *w, struct cx_status *st)
{
	struct rfs3_run *x = w->ctx;
	struct rfs3_plan p = {w->d->flash.size, x->have, x->want, x->info.dev_differs};
	struct device_io io_ctx = {.d = w->d};
	struct failsafe_io io;
	uint8_t *shadow = malloc(w->d->flash.size);
	int rc;

	if (!shadow)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	memcpy(shadow, x->have, w->d->flash.size);
	io_ctx.shadow = shadow;
	io_ctx.progress = cw_progress(w, &io_ctx.progress_arg);
	io_ctx.if_failed = "the card still holds a whole image and its identity: it is safe to power off, then run "
			   "the restore again";
	device_io_init(&io, &io_ctx);
	rc = rfs3_write(&io, &p, &x->info, st);
	x->r->device_data_written = !rc && p.device_data;
	free(shadow);
	return rc;
}

/* As restore.c: every unit the writer left alone was read under this lock and equals the
 * bundle (the device area too: written, or found equal by the plan), every byte it changed
 * was read back; so the flash is the bundle byte for byte. */
static int verify(struct card_write *w, struct cx_status *st)
{
	struct rfs3_run *x = w->ctx;
	uint8_t sum[SHA256_LEN];

	(void)st;
	sha256(x->want, w->d->flash.size, sum);
	sha256_hex(sum, x->r->flash_sha256);
	return CX_OK;
}

static const struct card_write_op restore_fs3_op = {"restore", check, plan, write, verify};

int restore_fs3_card(struct device *d, const char *bundle_dir, const struct restore_opts *o,
		     struct restore_result *r, struct cx_status *st)
{
	struct rfs3_run x = {.bundle_dir = bundle_dir, .o = o, .r = r};
	struct card_write w = {.d = d, .op = &restore_fs3_op, .ctx = &x, .hooks = &o->hooks, .dry_run = o->dry_run};
	int rc;

	memset(r, 0, sizeof(*r));
	rc = card_write_run(&w, st);
	r->nothing_to_do = w.out.nothing_to_do;
	r->out = w.out;
	r->bytes_erased = w.out.bytes_erased;
	r->bytes_programmed = w.out.bytes_programmed;
	if (rc)
		r->flash_sha256[0] = '\0';
	rfs3_free(&x.info);
	free(x.want);
	free(x.have);
	return rc;
}
