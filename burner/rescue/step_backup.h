/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_backup.h — a write step: a card's whole flash backed up into the stick's backups
 * (ops/backup.h), indexed (backup_index.h), in the history, and uploaded on a PXE boot
 * (step_upload.h). The backup the menu's "Back up all cards" and the backup job make, and
 * the one every write makes first. */
#ifndef CX_RESCUE_STEP_BACKUP_H
#define CX_RESCUE_STEP_BACKUP_H

#include "ops/backup.h"
#include "rescue/wizard.h"

/* Back card i (opened as d) up into the stick's backups; why names it in the log. Indexed
 * and journalled, and uploaded (wiz_upload_backup) on a PXE boot: CX_EIO when that upload
 * failed. */
int wiz_backup_card(struct wizard *w, int i, struct device *d, const char *why, struct backup_result *r,
		    struct cx_status *st);
/* The backup before a write: wiz_backup_card(), unless the card's flash, read once, equals
 * its newest sound bundle's (ops/backup.h, backup_card_reuse): then that bundle is r (reused
 * set), "not written again" is said, and it is uploaded as a new one would be. */
int wiz_backup_before_write(struct wizard *w, int i, struct device *d, const char *why, struct backup_result *r,
			    struct cx_status *st);

#endif
