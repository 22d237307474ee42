/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore.c — bundle checks, card checks, ordered raw write, whole-flash verify (restore.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/device_io.h"
#include "ops/restore.h"
#include "util/fileio.h"

#define BLANK_GUID UINT64_MAX /* an all-ones GUID entry is blank, fs2-format.md §3.1 */

static int ask(const struct restore_opts *o, const char *question, struct cx_status *st)
{
	if (!o->confirm)
		return cx_fail(st, CX_EDECLINED, "%s (not confirmed: nothing written)", question);
	if (o->confirm(o->confirm_ctx, question, st))
		return st->code ? st->code : cx_fail(st, CX_EDECLINED, "not confirmed: nothing written");
	return CX_OK;
}

/* flash.bin, read once, hashed again: the bytes that will be written. */
static int load_flash(const char *dir, const struct backup_identity *id, uint8_t **buf, size_t *len,
		      struct cx_status *st)
{
	char path[BACKUP_PATH_MAX], hex[SHA256_HEX_LEN + 1];
	uint8_t sum[SHA256_LEN];
	int rc;

	if (snprintf(path, sizeof(path), "%s/%s", dir, BACKUP_FLASH) >= (int)sizeof(path))
		return cx_fail(st, CX_EIO, "%s: path too long", dir);
	if ((rc = file_read(path, PLAN_MAX_END, buf, len, st)))
		return rc;
	sha256(*buf, *len, sum);
	if (strcmp(sha256_hex(sum, hex), id->flash_sha256) || *len != id->flash_size) {
		free(*buf);
		*buf = NULL;
		return cx_fail(st, CX_EIMAGE, "%s changed after it was checked: nothing written", path);
	}
	return CX_OK;
}

/* Chip and flash must be the ones the bundle was made on: no override. */
static int check_card(const struct device *d, const struct backup_identity *id, size_t len,
		      struct cx_status *st)
{
	if (strcmp(id->family, d->chip.desc->name))
		return cx_fail(st, CX_EMISMATCH, "the bundle is of a %s, this card is a %s: nothing written",
			       id->family, d->chip.desc->name);
	if (id->revision != d->chip.rev)
		return cx_fail(st, CX_EMISMATCH, "the bundle is of chip revision 0x%02x, this card is 0x%02x: "
			       "nothing written", id->revision, d->chip.rev);
	if (len != d->flash.size)
		return cx_fail(st, CX_EMISMATCH, "the bundle holds %zu flash bytes, this card has %u: nothing written",
			       len, d->flash.size);
	return CX_OK;
}

/* Same card? From the GUID and MAC the card's image carries, when it can be read. */
static int check_identity(struct device *d, const struct backup_identity *id, const struct restore_opts *o,
			  struct restore_result *r, struct cx_status *st)
{
	struct dev_image cur = {0};
	char q[CX_MSG_MAX + 128];
	int rc;

	bool readable = false;
	if (!d->chip.recovery) {
		rc = device_read_image_meta(d, &cur, st);
		if (rc && rc != CX_EIMAGE) /* a lock or a flash failure is not "no identity" */
			return rc;
		readable = !rc && !cur.parse_rc && !cur.img.guids.blank && cur.img.guids.guid[0] != BLANK_GUID;
		cx_status_clear(st);
	}
	if (!readable || !id->have_image || id->guid[0] == BLANK_GUID) {
		const char *why = d->chip.recovery ? "the card is in recovery mode"
				  : !readable      ? "the card has no readable image or blank GUIDs"
						   : "the bundle holds no image";
		devimage_free(&cur);
		if (o->unread_identity_ok && id->have_image && id->guid[0] != BLANK_GUID)
			return CX_OK;
		snprintf(q, sizeof(q), "The card's identity cannot be compared with the bundle's (%s). Write the "
			 "bundle of %s (node GUID %016llx, made %s) onto %s?", why,
			 id->psid[0] ? id->psid : "a card without image", (unsigned long long)id->guid[0], id->date,
			 d->pci.bdf);
		return ask(o, q, st);
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
	rc = ask(o, strcat(q, ". Write it onto this card anyway? The card will take that card's GUIDs and MACs"),
		 st);
	return rc;
}

static int ask_about_plan(const struct rewrite_info *p, const struct restore_opts *o, struct cx_status *st)
{
	if (p->no_image)
		return ask(o, "The bundle's flash holds no readable firmware image: after this restore the card "
			      "comes up in recovery mode. Write it?", st);
	if (p->not_failsafe)
		return ask(o, "The bundle's image is not failsafe: it is rewritten in place, and a power cut during "
			      "the write leaves the card without firmware. Write it?", st);
	return CX_OK;
}

static int verify_after(struct device *d, const uint8_t *want, struct restore_result *r, struct cx_status *st)
{
	uint8_t *now = NULL, sum[SHA256_LEN];
	int rc = device_read_flash(d, &now, st);

	if (!rc) {
		sha256(now, d->flash.size, sum);
		sha256_hex(sum, r->flash_sha256);
		if (strcmp(r->flash_sha256, r->id.flash_sha256)) {
			uint32_t a = 0;
			while (a < d->flash.size && now[a] == want[a])
				a++;
			rc = cx_fail(st, CX_EFLASH, "after the restore the flash differs from the bundle at 0x%x "
				     "(SHA-256 %s): run the restore again before powering off", a, r->flash_sha256);
		}
	}
	free(now);
	return rc;
}

int restore_card(struct device *d, const char *bundle_dir, const struct restore_opts *o,
		 struct restore_result *r, struct cx_status *st)
{
	uint8_t *want = NULL, *have = NULL;
	size_t len = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	if ((rc = backup_verify(bundle_dir, st)) || (rc = backup_load_identity(bundle_dir, &r->id, st)) ||
	    (rc = load_flash(bundle_dir, &r->id, &want, &len, st)) || (rc = check_card(d, &r->id, len, st)) ||
	    (rc = check_identity(d, &r->id, o, r, st)) || (rc = device_read_flash(d, &have, st)))
		goto out;
	struct rewrite_plan p = {d->flash.size, d->chip.desc->start_positions, have, want};
	if ((rc = rewrite_inspect(&p, &r->plan, st)))
		goto out;
	if (r->plan.identical) {
		r->nothing_to_do = true;
		strcpy(r->flash_sha256, r->id.flash_sha256);
		goto out;
	}
	if ((rc = ask_about_plan(&r->plan, o, st)))
		goto out;
	/* A protected part refuses before the backup and before any write. */
	if (!(rc = device_lock(d, st)))
		rc = flash_check_writable(&d->flash, st);
	chip_unlock(&d->chip);
	if (rc || o->dry_run)
		goto out;
	if (o->before_write && (rc = o->before_write(o->before_ctx, st)))
		goto out;
	struct device_io x = {d, o->progress, o->progress_arg, NULL, 0, 0};
	if (!r->plan.no_image && !r->plan.not_failsafe)
		x.if_failed = "the card still holds a whole image: it is safe to power off, then run the restore "
			      "again";
	struct failsafe_io io;
	device_io_init(&io, &x);
	if ((rc = device_lock(d, st)) || (rc = flash_prepare_write(&d->flash, st))) {
		chip_unlock(&d->chip);
		goto out;
	}
	rc = rewrite_flash(&io, &p, &r->plan, st);
	chip_unlock(&d->chip);
	r->bytes_erased = x.bytes_erased;
	r->bytes_programmed = x.bytes_programmed;
	if (!rc)
		rc = verify_after(d, want, r, st);
out:
	free(want);
	free(have);
	return rc;
}
