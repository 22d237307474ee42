/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_restore.c — a write step: a backup bundle written back onto its card (step_restore.h),
 * for the menu's restore and unbrick, the resume of an interrupted restore, and job=restore. */
#include "ops/progress.h"
#include "ops/restore.h"
#include "rescue/data_area.h"
#include "rescue/step_probe.h"
#include "rescue/step_record.h"
#include "rescue/step_restore.h"

struct restore_ctx {
	struct wiz_write x;
	bool ask;
	const struct restore_result *r;
	struct history_to to;
};

/* restore_card()'s questions (a card whose identity cannot be read, ...) are on
 * the plan the user confirmed with the typed word; unattended there are none. */
static int confirm(void *ctx, const char *question, struct cx_status *st)
{
	struct restore_ctx *b = ctx;

	if (!b->ask)
		return cx_fail(st, CX_EDECLINED, "unattended, not allowed: %s", question);
	wiz_say(b->x.w, "  confirmed with %s: %s", CONFIRM_WORD, question);
	return CX_OK;
}

/* The device data of a ConnectX-4/4 Lx/5 (step_restore.h): the typed word did not take it.
 * Asked (default no), or unattended allowed by cxrescue.device_data=1, the only way this
 * hook is reached without a person (restore_fs3.h asks it only with device_data). */
static int confirm_device_data(void *ctx, const char *question, struct cx_status *st)
{
	struct restore_ctx *b = ctx;
	struct wizard *w = b->x.w;

	if (!b->ask) {
		wiz_say(w, "  allowed by cxrescue.device_data=1: %s", question);
		return CX_OK;
	}
	fprintf(w->out, "\n  The backup's device data (its GUIDs, MACs, VPD and settings) is not the card's.\n"
			"  Writing it back gives the card the identity the backup holds; answering no writes\n"
			"  nothing (the firmware alone is not restored over other device data).\n");
	if (prompt_yes_no(&w->p, question, true, st)) {
		cx_status_clear(st);
		return cx_fail(st, CX_EDECLINED, "the backup's device data was not written back (answered no), and "
			       "its firmware is not restored without it: nothing written");
	}
	wiz_say(w, "  device data: yes, written back after the firmware");
	return CX_OK;
}

/* The write procedure's after hook (ops/write_procedure.h): the job record's and the
 * history's "to" are known once the restore's check has read the bundle. */
static void after(void *ctx, int rc, const struct cx_status *st, const struct write_outcome *out)
{
	struct restore_ctx *b = ctx;
	const struct backup_identity *id = &b->r->id;

	snprintf(b->x.job.to_psid, sizeof(b->x.job.to_psid), "%s", id->have_image ? id->psid : "");
	snprintf(b->x.job.to_fw, sizeof(b->x.job.to_fw), "%s", id->have_image ? id->fw_version : "");
	if (!rc) {
		b->to.psid = id->have_image ? id->psid : NULL;
		b->to.fw = id->have_image ? id->fw_version : NULL;
		b->to.sha256 = id->flash_sha256;
	}
	wiz_write_after(&b->x, rc, st, out);
}

static int ask_word(struct wizard *w, int i, const char *bundle, const char *action, struct cx_status *st)
{
	const struct wizard_card *c = &w->cards[i];
	int rc;

	fprintf(w->out, "\n== %s: card %s (%s) ==\n", action, c->ci.pci.bdf, c->ci.chip);
	fprintf(w->out, "  The card's whole flash is replaced by the backup %s\n", bundle);
	if (c->fs3)
		fprintf(w->out, "  (its firmware as it was when it was made; its device data, GUIDs and MACs, only if\n"
				"  it differs and you say yes to its own question), after a backup of the flash\n"
				"  as it is now. A power cut leaves a whole image on the card at every instant.\n");
	else
		fprintf(w->out, "  (firmware and identity as they were when it was made), after a backup of the flash\n"
				"  as it is now. A power cut leaves a whole image on the card at every instant.\n");
	wiz_probe_first(w, i);
	if ((rc = wiz_confirm_write(w, "write the card", st)))
		wiz_history(w, c, action, NULL, NULL, NULL, "declined", st->msg);
	return rc;
}

int wiz_restore(struct wizard *w, int i, const char *bundle, const char *action, bool ask,
		struct backup_result *backup_out, struct restore_result *result_out, struct cx_status *st)
{
	struct wizard_card *c = &w->cards[i];
	struct restore_result r = {0};
	struct restore_ctx b = {.ask = ask, .r = &r, .to = {.file = bundle}};
	struct restore_opts o = {0};
	struct device d;
	int rc;

	if (ask && (rc = ask_word(w, i, bundle, action, st)))
		return rc;
	wiz_write_init(&b.x, w, i, action, "before the restore", "the backup");
	snprintf(b.x.job.file, sizeof(b.x.job.file), "%s", bundle);
	snprintf(b.x.job.identity, sizeof(b.x.job.identity), "bundle:%s", bundle);
	b.x.to = &b.to;
	b.x.nothing = "nothing to do: the flash already equals the backup";
	o.hooks.confirm = confirm;
	o.hooks.confirm_ctx = &b;
	/* A job that names its bundle (PXE: the node's own backup, kept by the server) is what
	 * unbricks a card whose identity cannot be read; every other question still refuses. */
	o.unread_identity_ok = !ask && w->o.job == JOB_RESTORE && w->o.yes;
	o.device_data = ask || (w->o.job == JOB_RESTORE && w->o.yes && w->o.device_data);
	o.confirm_device_data = confirm_device_data;
	o.device_data_how = "cxrescue.device_data=1 on the job's command line";
	o.hooks.before_write = wiz_write_before;
	o.hooks.before_ctx = &b.x;
	o.hooks.progress = progress_line;
	o.hooks.after = after;
	o.hooks.after_ctx = &b;
	b.x.d = &d;
	rc = wiz_open(w, i, &d, st);
	if (!rc)
		rc = restore_card(&d, bundle, &o, &r, st);
	device_close(&d);
	if (backup_out && b.x.backed_up)
		*backup_out = b.x.bk;
	if (result_out)
		*result_out = r;
	if ((rc = wiz_write_end(&b.x, rc, st, &r.out)))
		return rc;
	if (r.nothing_to_do) {
		wiz_say(w, "card %s: its flash already equals the backup: nothing written", c->ci.pci.bdf);
		return CX_OK;
	}
	wiz_say(w, "card %s: OK: the backup is on the flash%s, read back and verified (SHA-256 %.16s...; "
		"%llu bytes erased, %llu programmed)", c->ci.pci.bdf, r.device_data_written ? ", its device data too" : "",
		r.flash_sha256, (unsigned long long)r.bytes_erased, (unsigned long long)r.bytes_programmed);
	wiz_write_wrote(&b.x);
	return CX_OK;
}
