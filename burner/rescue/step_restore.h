/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_restore.h — a write step: a backup bundle (ops/backup.h) written back onto its card
 * (ops/restore.h: its firmware and identity as they were), with everything every write of
 * the wizard does around it (step_record.h): the plan and the typed word when asked, the
 * probe the first time, the backup of the flash as it is now, the job record, the history,
 * and the card read again in its place.
 *
 * A ConnectX-4/4 Lx/5 (FS3/FS4, ops/restore_fs3.h) is restored the same way. Its device data
 * (MFG_INFO, DEV_INFO, NV_DATA, VPD: its GUIDs and MACs) is written back only when the
 * bundle's differs from the card's and, after the typed word, a question of its own naming
 * the base GUID and MAC before -> after is answered yes (default no); answered no, nothing is
 * written, as `cxflash restore` without --device-data refuses. Unattended (a job), it is
 * written only with cxrescue.device_data=1 (wizard_opts.device_data); without it the restore
 * is refused before anything is written, and result_out->device_data_differs says why. */
#ifndef CX_RESCUE_STEP_RESTORE_H
#define CX_RESCUE_STEP_RESTORE_H

#include "ops/backup.h"
#include "ops/restore.h"
#include "rescue/wizard.h"

/* Write the bundle back onto card i; action names it in the history ("restore", "unbrick").
 * ask: show the plan and ask for the typed word (false: a job, already allowed). backup_out
 * (may be NULL) gets the backup made first; result_out (may be NULL) what restore_card() said. */
int wiz_restore(struct wizard *w, int i, const char *bundle, const char *action, bool ask,
		struct backup_result *backup_out, struct restore_result *result_out, struct cx_status *st);

#endif
