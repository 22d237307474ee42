/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_record.h — a write step: the bookkeeping around every write of the wizard
 * (ops/write_procedure.h), whatever writes (a burn, a restore, new GUIDs/MACs, a boot ROM).
 *
 * wiz_write_init() starts the job record (pending.h: "writing", the card, now) and the
 * write's trace (step_trace.h); wiz_write_before() is the write's before_write hook: the
 * backup (step_backup.h; why names it in the log), then the record (when record) and
 * "Writing <what> onto <card>"; wiz_write_after() is its after hook (step 8), run as the
 * procedure ends, the card still open: the history line from the outcome: on failure the
 * result (interrupted, failed, refused), the record ended unless interrupted, and a line
 * naming the card's state; nothing_to_do: "ok" with nothing; else the record "written" and
 * "ok" with ok_note. wiz_write_end(), after the call and device_close(), ends the trace, and
 * writes the history itself when no run of the procedure did (the card could not be opened,
 * or the op refused before its run: set-ids' checks). wiz_write_wrote() then marks the
 * session for the power-off and reads the written card again, in its place (inventory.h:
 * inv_reread): every index into w->cards stays the card it was. */
#ifndef CX_RESCUE_STEP_RECORD_H
#define CX_RESCUE_STEP_RECORD_H

#include "ops/backup.h"
#include "rescue/pending.h"
#include "rescue/wizard.h"

struct wiz_write {
	struct wizard *w;
	int card;
	struct device *d;            /* the opened card, for the backup */
	const char *action, *why, *what;
	const char *ok_note;         /* the history message of a success, or NULL */
	const struct history_to *to; /* the history's "to", or NULL */
	const char *nothing;         /* the history message when there was nothing to do */
	bool ended;                  /* wiz_write_after() ran: the history is written */
	bool record;                 /* keep a job record while writing (default true) */
	struct pending job;
	struct backup_result bk;
	bool backed_up, recorded;
	bool traced;                 /* its accesses go to a trace (step_trace.h) */
	char from_fw[24];
};
void wiz_write_init(struct wiz_write *x, struct wizard *w, int card, const char *action, const char *why,
		    const char *what);
int wiz_write_before(void *ctx, struct cx_status *st);
void wiz_write_after(void *ctx, int rc, const struct cx_status *st, const struct write_outcome *out);
/* Returns rc. */
int wiz_write_end(struct wiz_write *x, int rc, const struct cx_status *st, const struct write_outcome *out);
void wiz_write_wrote(struct wiz_write *x);
/* The end of a write that changes only part of the card's image (GUIDs, boot ROM): wiz_write_end()
 * (no "to"), then "card BDF <x->nothing>: nothing written" or "card BDF: OK: <done>" and
 * wiz_write_wrote(). */
int wiz_write_finish(struct wiz_write *x, int rc, const struct cx_status *st, const struct write_outcome *out,
		     bool nothing_to_do, const char *done);

#endif
