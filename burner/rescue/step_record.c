/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_record.c — a write step: what every write of the wizard does around the write
 * procedure (step_record.h, ops/write_procedure.h): the backup and the job record before
 * the first byte (its before_write hook), the history line and the job record's end after
 * the last (its after hook), and the line that says which state the card is in. */
#include <string.h>

#include "rescue/inventory.h"
#include "rescue/step_backup.h"
#include "rescue/step_record.h"
#include "rescue/step_trace.h"

void wiz_write_init(struct wiz_write *x, struct wizard *w, int card, const char *action, const char *why,
		    const char *what)
{
	memset(x, 0, sizeof(*x));
	x->w = w;
	x->card = card;
	x->action = action;
	x->why = why;
	x->what = what;
	x->record = true;
	snprintf(x->job.state, sizeof(x->job.state), "writing");
	snprintf(x->job.action, sizeof(x->job.action), "%s", action);
	inv_pending_card(&w->cards[card], &x->job);
	wiz_now(x->job.time);
	x->traced = wiz_trace_begin(w, card, action);
}

int wiz_write_before(void *ctx, struct cx_status *st)
{
	struct wiz_write *x = ctx;
	struct wizard *w = x->w;
	int rc = wiz_backup_before_write(w, x->card, x->d, x->why, &x->bk, st);

	x->backed_up = x->bk.path[0] != '\0'; /* written, if perhaps not uploaded (rc) */
	if (rc)
		return rc;
	if (x->record) {
		if ((rc = pending_write(w->o.data_dir, &x->job, st)))
			return rc;
		x->recorded = true;
		wiz_say(w, "Writing %s onto %s; do not switch the machine off.", x->what, w->cards[x->card].ci.pci.bdf);
	}
	wiz_quiesce_stick(w);
	return CX_OK;
}

/* What the card ran, for the history (NULL when it had no image); uses x->from_fw. */
static const struct history_from *ran(struct wiz_write *x, struct history_from *from)
{
	const struct wizard_card *c = &x->w->cards[x->card];

	if (!inv_psid(c))
		return NULL;
	snprintf(x->from_fw, sizeof(x->from_fw), "%s", c->fw);
	*from = (struct history_from){inv_psid(c), x->from_fw};
	return from;
}

void wiz_write_after(void *ctx, int rc, const struct cx_status *st, const struct write_outcome *out)
{
	struct wiz_write *x = ctx;
	struct wizard *w = x->w;
	const struct wizard_card *c = &w->cards[x->card];
	const struct history_to *to = x->to;
	struct history_from from;
	const struct history_from *fp = ran(x, &from);
	struct history_backup bk = {.path = x->bk.path, .sha256 = x->bk.flash_sha256};
	const struct history_backup *bp = x->backed_up ? &bk : NULL;
	struct cx_status ist = {0};

	x->ended = true;
	w->last_write = *out;
	if (rc) {
		/* Without a job record (set-ids) every failure is "failed", as it always was. */
		const char *result = rc == CX_EINTR ? "interrupted" : x->recorded || !x->record ? "failed" : "refused";
		wiz_history(w, c, x->action, fp, to, bp, result, st->msg);
		/* A failure the card came through (old or new image boots) has nothing to
		 * finish; an interrupted write keeps its record, to be offered again. */
		if (x->recorded && rc != CX_EINTR)
			pending_remove(w->o.data_dir, &x->job, &ist);
		if (x->recorded || out->state != CARD_UNTOUCHED)
			wiz_say(w, "card %s: %s FAILED; %s. %s", c->ci.pci.bdf, x->action,
				card_state_sentence(out->state), st->msg);
		return;
	}
	if (out->nothing_to_do) {
		wiz_history(w, c, x->action, fp, to, bp, "ok", x->nothing);
		return;
	}
	snprintf(x->job.state, sizeof(x->job.state), "written");
	if (x->recorded && pending_write(w->o.data_dir, &x->job, &ist))
		wiz_say(w, "WARNING: %s", ist.msg);
	wiz_history(w, c, x->action, fp, to, bp, "ok", x->ok_note);
}

int wiz_write_end(struct wiz_write *x, int rc, const struct cx_status *st, const struct write_outcome *out)
{
	/* The trace ends here, after device_close(): its last accesses are the card's close. */
	wiz_trace_end(x->w, &x->traced);
	if (!x->ended)
		wiz_write_after(x, rc, st, out);
	return rc;
}

void wiz_write_wrote(struct wiz_write *x)
{
	struct wizard *w = x->w;

	w->wrote = true;
	w->wrote_recovery |= w->cards[x->card].ci.recovery;
	inv_reread(w, x->card);
}

int wiz_write_finish(struct wiz_write *x, int rc, const struct cx_status *st, const struct write_outcome *out,
		     bool nothing_to_do, const char *done)
{
	const char *bdf = x->w->cards[x->card].ci.pci.bdf;

	if ((rc = wiz_write_end(x, rc, st, out)))
		return rc;
	if (nothing_to_do) {
		wiz_say(x->w, "card %s %s: nothing written", bdf, x->nothing);
		return CX_OK;
	}
	wiz_say(x->w, "card %s: OK: %s", bdf, done);
	wiz_write_wrote(x);
	return CX_OK;
}
