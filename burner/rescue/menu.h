/* SPDX-License-Identifier: GPL-2.0-or-later */
/* menu.h — `cxflash rescue`: the front end the rescue image starts on every console. This is
 * the top of rescue/ (README.md: the layers); the state a session keeps is rescue/wizard.h.
 *
 * A session goes:
 *
 *   1. the journal (rescue/journal.h) opens in the data folder, the firmware
 *      library and the stick's backups (rescue/backup_index.h) are read;
 *   2. the inventory screen (every card: slot, model, OEM, PSID, FW,
 *      GUIDs/MACs, recovery state, backup state, and the library's
 *      recommendation in one line; rescue/inventory.h);
 *   3. what the last session left (rescue/pending.h, flow_resume.c): a write a power cut
 *      interrupted is offered again; a write that finished is checked against
 *      the FW the card now runs (the cold restart happened, or not);
 *   4. with a job (unattended mode, wizard_opts.job; rescue/jobs.h) the job runs without a
 *      question and the wizard powers off when every step succeeded;
 *   5. otherwise the main menu (its screens: rescue/flows.h), until the user picks power off.
 *
 * Every action that writes a card runs the same steps (step_*.h): show what will happen and,
 * the first time in a session, what the read-only probe (ops/probe.h) found unexpected on
 * the card; ask for the typed word, back the card up to the stick, note the job as pending,
 * write with progress, journal the result, read the card again, and after a success go to
 * the power-off screen, which explains the cold restart.
 * After a failure the wizard stays up with the error and the log's path.
 *
 * wizard_run() returns 0 when the machine should power off now (the caller,
 * /init through cxrescue-front, does it), CX_EDECLINED when the console's
 * input ended (/init starts the wizard again), or another code when the
 * wizard could not start at all. With exit_after_job (PXE: /init uploads the
 * report, then powers off or starts the wizard) it returns after the job:
 * 0 when every step succeeded, else the job's failure code.
 *
 * With upload_cmd (PXE: the node's server), every backup is handed to it at
 * once, and a write waits for it: a backup that did not reach the server
 * means nothing is written, unless upload_optional.
 */
#ifndef CX_RESCUE_MENU_H
#define CX_RESCUE_MENU_H

#include "rescue/wizard.h"

/* Run a session on p (in/out). Returns as described at the top. */
int wizard_run(struct prompt *p, const struct wizard_bus *bus, const struct wizard_opts *o);

#endif
