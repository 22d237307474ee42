/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_upload.h — a write step: the backup handed to the PXE server (wizard_opts.upload_cmd,
 * $CXR_UPLOAD) before the card is written; step_upload.c says why a write waits for it. */
#ifndef CX_RESCUE_STEP_UPLOAD_H
#define CX_RESCUE_STEP_UPLOAD_H

#include "ops/backup.h"
#include "rescue/wizard.h"

/* Hand the bundle r to $CXR_UPLOAD and wait; CX_OK when the server holds it, when there is
 * no server, or when upload=optional. */
int wiz_upload_backup(struct wizard *w, const struct backup_result *r, struct cx_status *st);

#endif
