/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_burn.h — a write step: a library image burned onto a card, failsafe (ops/burn.h),
 * with everything every write of the wizard does around it: the plan shown and the typed
 * word (when asked), the read-only probe the first time (step_probe.h), the boot ROM
 * (step_rom.h), the backup, the job record and the history (step_record.h), and the card
 * read again in its place. It opens no screen after the burn: the menu's screens do
 * (flows.h: flow_burn). */
#ifndef CX_RESCUE_STEP_BURN_H
#define CX_RESCUE_STEP_BURN_H

#include "ops/backup.h"
#include "ops/burn.h"
#include "rescue/wizard.h"

/* Burn a library image onto card. action names it in the history ("update", "crossflash",
 * "burn", "unbrick"); ident: the identity to put on the card (NULL: keep the card's);
 * identity_note for the job record ("card", "bundle:...", "sticker:..."). ask: show the plan
 * and ask for the typed word first (false: unattended, already allowed). */
struct write_request {
	int card;
	const struct manifest_entry *e;
	const struct match_candidate *m;     /* its verdict for the card, or NULL */
	const char *action;
	const struct identity_opts *ident;
	const char *identity_note;
	const char *rom;                 /* a job record's boot ROM (pending.h), else NULL */
	bool ask;
	struct backup_result *backup_out; /* the backup made before the write, or NULL */
	bool *backed_up;                 /* set when backup_out was written */
};
/* CX_OK when the card holds the image (written, or it held it already:
 * w->last_write.nothing_to_do); else the code, with st filled. */
int wiz_burn(struct wizard *w, const struct write_request *rq, struct cx_status *st);

#endif
