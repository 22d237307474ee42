/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_restore.h — a write step: a backup bundle (ops/backup.h) written back onto its card
 * (ops/restore.h: its firmware and identity as they were), with everything every write of
 * the wizard does around it (step_record.h): the plan and the typed word when asked, the
 * probe the first time, the backup of the flash as it is now, the job record, the history,
 * and the card read again in its place. */
#ifndef CX_RESCUE_STEP_RESTORE_H
#define CX_RESCUE_STEP_RESTORE_H

#include "ops/backup.h"
#include "rescue/wizard.h"

/* Write the bundle back onto card i; action names it in the history ("restore", "unbrick").
 * ask: show the plan and ask for the typed word (false: a job, already allowed). backup_out
 * (may be NULL) gets the backup made first. */
int wiz_restore(struct wizard *w, int i, const char *bundle, const char *action, bool ask,
		struct backup_result *backup_out, struct cx_status *st);

#endif
