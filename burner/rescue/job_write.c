/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job_write.c — an unattended job's write of one card (jobs.h): a backup, a restore, or a
 * burn of the library's image for the job, each through the write steps the menu's screens
 * use (step_backup.h, step_restore.h, step_burn.h), never with a question. */
#include <string.h>

#include "rescue/inventory.h"
#include "rescue/jobs.h"
#include "rescue/step_backup.h"
#include "rescue/step_burn.h"
#include "rescue/step_restore.h"

/* The image the job writes: update stays on the card's PSID, crossflash takes the recommendation. */
static const struct match_candidate *target(const struct wizard *w, const struct wizard_card *c)
{
	if (!c->matched)
		return NULL;
	for (size_t k = 0; k < c->mr.n; k++) {
		const struct match_candidate *m = &c->mr.c[k];
		if (m->verdict == MATCH_REFUSED)
			continue;
		if (w->o.job == JOB_UPDATE && m->rel != REL_SAME_PSID)
			continue;
		return m;
	}
	return NULL;
}

/* A ConnectX-4/4 Lx/5 whose bundle holds other device data than the card is refused, not
 * failed, without cxrescue.device_data=1: the job did not ask for it (step_restore.h). */
static void write_restore(struct wizard *w, int i, struct job_outcome *r)
{
	struct cx_status st = {0};
	struct restore_result res = {0};

	w->last_write = (struct write_outcome){0};
	int rc = wiz_restore(w, i, w->o.bundle, w->cards[i].ci.recovery ? "unbrick" : "restore", false, &r->bk, &res,
			     &st);
	r->state = w->last_write.state;
	r->backed_up = r->bk.path[0] != '\0';
	if (rc && res.device_data_differs && !res.device_data_written && !w->o.device_data)
		job_outcome(r, "refused", "%s", st.msg);
	else if (rc)
		job_outcome(r, "failed", "%s", st.msg);
	else
		job_outcome(r, "ok", "the backup %s written back and verified%s", w->o.bundle,
			    res.device_data_written ? ", its device data too" : "");
}

static void write_backup(struct wizard *w, int i, struct job_outcome *r)
{
	struct cx_status st = {0};
	struct device d;
	int rc = wiz_open(w, i, &d, &st);

	if (!rc)
		rc = wiz_backup_card(w, i, &d, "the backup job", &r->bk, &st);
	device_close(&d);
	r->backed_up = r->bk.path[0] != '\0'; /* written, if perhaps not uploaded (rc) */
	if (rc)
		job_outcome(r, "failed", "%s", st.msg);
	else
		job_outcome(r, "ok", "backed up");
}

/* The burn of update and crossflash, unless the card refuses it or needs nothing. */
static void write_burn(struct wizard *w, int i, struct job_outcome *r)
{
	const struct wizard_card *c = &w->cards[i];
	struct cx_status st = {0};

	/* A ConnectX-4/4 Lx/5 (wizard_card.fs3) is burned in either mode, its device data kept,
	 * unless its firmware is secure (wizard_card.no_write). */
	if (c->no_write) {
		job_outcome(r, "refused", "%s; nothing written", c->no_write);
		return;
	}
	if (c->ci.recovery && !c->ci.have_fs3) {
		job_outcome(r, "refused", c->fs3 ? "the card's flash holds no valid image: a burn keeps a ConnectX-4/4 "
			    "Lx/5 card's device data, which must be there; job=restore of one of its backups puts it back "
			    "(cxrescue.device_data=1)" : "the card is in recovery mode: unbrick it from the wizard's menu");
		return;
	}
	const struct match_candidate *m = target(w, c);
	if (!m) {
		if (w->o.job == JOB_UPDATE && inv_best(c))
			job_outcome(r, "nothing-to-do", "no image of the card's own PSID in the library (crossflash would "
				    "take %s)", inv_best(c)->e->name);
		else
			job_outcome(r, "refused", "no library image fits this card");
		return;
	}
	r->to = m->e;
	if (m->rel == REL_SAME_PSID && m->version_cmp <= 0) {
		job_outcome(r, "nothing-to-do", "the card already runs FW %s; the library's newest for its PSID is %s",
			    c->fw, m->e->name);
		return;
	}
	if (m->verdict == MATCH_RISKY && !w->o.allow_risky) {
		job_outcome(r, "refused", "%s is RISKY for this card (%s); cxrescue.allow_risky=1 writes it anyway",
			    m->e->name, m->nreasons ? m->reasons[0] : m->line);
		return;
	}
	struct write_request rq = {.card = i, .e = m->e, .m = m, .ask = false, .backup_out = &r->bk,
				   .backed_up = &r->backed_up,
				   .action = m->rel == REL_CROSS_FLASH ? "crossflash" : "update"};
	w->last_write = (struct write_outcome){0};
	int rc = wiz_burn(w, &rq, &st);
	r->state = w->last_write.state;
	if (rc)
		job_outcome(r, "failed", "%s", st.msg);
	else
		job_outcome(r, "ok", "%s written and verified", r->to->name);
}

void job_write_card(struct wizard *w, int i, struct job_outcome *r)
{
	if (w->o.job == JOB_RESTORE)
		write_restore(w, i, r);
	else if (w->o.job == JOB_BACKUP)
		write_backup(w, i, r);
	else
		write_burn(w, i, r);
}
