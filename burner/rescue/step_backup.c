/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_backup.c — a write step: one card backed up to the stick (step_backup.h). A backup
 * only reads the card. */
#include <string.h>

#include "rescue/inventory.h"
#include "rescue/step_backup.h"
#include "rescue/step_upload.h"

static void stage(void *ctx, const char *what)
{
	struct wizard *w = ctx;

	fprintf(w->out, "    %s\n", what);
	fflush(w->out);
}

/* Card i is backed up (this session: whatever the index says of its GUID). */
static void mark_backed_up(struct wizard *w, struct wizard_card *c)
{
	bool known = false;

	c->has_backup = true;
	for (int k = 0; k < w->nbacked_up; k++)
		known |= !strcmp(w->backed_up[k], c->ci.pci.bdf);
	if (!known && w->nbacked_up < WIZARD_MAX_CARDS)
		snprintf(w->backed_up[w->nbacked_up++], sizeof(w->backed_up[0]), "%s", c->ci.pci.bdf);
}

/* What follows a backup_card_*() that wrote (or failed to write) a new bundle r. */
static int after_backup(struct wizard *w, struct wizard_card *c, int rc, struct backup_result *r,
			struct cx_status *st)
{
	struct history_from from = {0};
	struct history_backup bk = {0};

	if (inv_psid(c)) {
		from.psid = inv_psid(c);
		from.fw = c->fw;
	}
	if (rc) {
		wiz_history(w, c, "backup", from.psid ? &from : NULL, NULL, NULL, "failed", st->msg);
		return rc;
	}
	bk.path = r->path;
	bk.sha256 = r->flash_sha256;
	wiz_say(w, "    backup written: %s (flash SHA-256 %.16s...)", r->name, r->flash_sha256);
	wiz_history(w, c, "backup", from.psid ? &from : NULL, NULL, &bk, "ok", NULL);
	struct cx_status ist = {0};
	backup_index_add(&w->ix, r->path, &ist);
	mark_backed_up(w, c);
	return wiz_upload_backup(w, r, st);
}

int wiz_backup_card(struct wizard *w, int i, struct device *d, const char *why, struct backup_result *r,
		    struct cx_status *st)
{
	struct wizard_card *c = &w->cards[i];

	wiz_say(w, "Backing up %s (%s) to %s ...", c->ci.pci.bdf, why, w->backups_dir);
	return after_backup(w, c, backup_card_ex(d, w->backups_dir, stage, w, r, st), r, st);
}

/* The newest sound bundle of card i (backup_index.h), or NULL. */
static const struct backup_entry *newest_bundle(const struct wizard *w, const struct wizard_card *c)
{
	const struct backup_entry *e = NULL;
	return backup_index_for_card(&w->ix, c->ci.pci.family, inv_psid(c), inv_own_guid(c), &e, 1) ? e : NULL;
}

int wiz_backup_before_write(struct wizard *w, int i, struct device *d, const char *why, struct backup_result *r,
			    struct cx_status *st)
{
	struct wizard_card *c = &w->cards[i];
	const struct backup_entry *prior = newest_bundle(w, c);
	int rc;

	if (!prior)
		return wiz_backup_card(w, i, d, why, r, st);
	wiz_say(w, "Backing up %s (%s) to %s, unless its flash equals its newest backup ...", c->ci.pci.bdf, why,
		w->backups_dir);
	rc = backup_card_reuse(d, w->backups_dir, prior->path, stage, w, r, st);
	if (rc || !r->reused)
		return after_backup(w, c, rc, r, st);
	wiz_say(w, "    the card's flash equals backup %s, made at %s: not written again", r->name,
		prior->id.date[0] ? prior->id.date : "an unknown time");
	mark_backed_up(w, c);
	return wiz_upload_backup(w, r, st);
}
