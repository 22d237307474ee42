/* SPDX-License-Identifier: GPL-2.0-or-later */
/* data_area.h — state: where this session's backups and logs go, as /init found it
 * (rootfs/overlay/usr/lib/cxrescue/data-area.sh, docs/rescue-image.md "The data area"),
 * said on the first screen, and the typed word a card write needs when its backup would
 * stay in RAM only.
 *
 * The data area is a cxrescue stick (wizard_opts.data_kind "stick": its partition and ID
 * named), or RAM: no stick of ours was found (the devices /init saw, and why each was not
 * taken, are listed from wizard_opts.data_seen), or ours is write-protected (named as
 * such). RAM with an upload command (a PXE server) is not "RAM only": every backup goes to
 * the server before the card is written (step_upload.h). */
#ifndef CX_RESCUE_DATA_AREA_H
#define CX_RESCUE_DATA_AREA_H

#include <stdbool.h>

#include "rescue/wizard.h"

#define RAM_WORD "RAM" /* typed after CONFIRM_WORD when the backup stays in RAM only */
#define DATA_SEEN_MAX 32 /* lines of wizard_opts.data_seen shown */

/* Backups and logs stay in RAM and nothing sends them anywhere: lost at power-off. */
bool data_in_ram_only(const struct wizard_opts *o);

/* Why, in a few words: "the cxrescue stick /dev/sdb1 is write-protected", or "no cxrescue
 * stick was found". */
const char *data_ram_why(const struct wizard_opts *o, char *buf, size_t n);

/* The first screen's lines on the data area: the device the backups go to and its ID; a
 * write-protected stick; or no stick, with what was seen instead. */
void data_area_show(struct wizard *w);

/* The typed words before a card is written: CONFIRM_WORD ("Type FLASH to <action>"), then,
 * when data_in_ram_only(), a warning that names why and RAM_WORD, its own confirmation.
 * CX_EDECLINED (nothing written) when either is not typed. The unattended jobs are refused
 * whole before this (jobs.h: job_run). */
int wiz_confirm_write(struct wizard *w, const char *action, struct cx_status *st);

#endif
