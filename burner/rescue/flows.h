/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flows.h — the wizard's screens (rescue/README.md: the layers): each entry of the main menu
 * (menu.c), and the resume of what the last session left at start-up. The screens ask the
 * user; what writes a card is a write step below them (step_*.h). They are siblings of the
 * unattended jobs (jobs.h): neither calls the other.
 *
 * Every screen that runs a menu entry returns CX_OK when it did what the user asked (or the
 * user changed their mind before anything was written: nothing to report), else a code with
 * st filled; the menu shows st and stays up. A screen that wrote a card successfully sets
 * w->wrote. */
#ifndef CX_RESCUE_FLOWS_H
#define CX_RESCUE_FLOWS_H

#include "rescue/step_burn.h"
#include "rescue/wizard.h"

/* flow_backup.c: "Back up all cards" (only_missing: those without a backup yet). */
int flow_backup_all(struct wizard *w, bool only_missing, struct cx_status *st);

/* flow_update.c: "Update / cross-flash a card" (the library's recommendation), "Burn a
 * firmware file" (any image the library does not refuse). */
int flow_update(struct wizard *w, struct cx_status *st);
int flow_burn_file(struct wizard *w, struct cx_status *st);
/* The burn step (wiz_burn) of a burn the user watched, then, after a cross-flash that wrote,
 * the card's port type and SR-IOV screen: every screen that burns goes through it. */
int flow_burn(struct wizard *w, const struct write_request *rq, struct cx_status *st);

/* flow_restore.c: "Restore a backup". */
int flow_restore(struct wizard *w, struct cx_status *st);
/* Let the user pick one of card i's bundles that hold firmware (its node GUID's; for a card
 * with none of its own, its family's, its PSID's first); it is shown. CX_EABSENT when there
 * is none, CX_EDECLINED for "back to the menu". */
int flow_choose_bundle(struct wizard *w, int i, const char *title, const struct backup_entry **pick,
		       struct cx_status *st);

/* flow_unbrick.c: "Unbrick a card in recovery mode" (the jumper, a backup, or the sticker). */
int flow_unbrick(struct wizard *w, struct cx_status *st);

/* flow_ids.c: "Set a card's GUIDs/MACs" (from its sticker or a backup). */
int flow_set_ids(struct wizard *w, struct cx_status *st);
/* flow_ids_fs3.c: the same for card i, a ConnectX-4/4 Lx/5 (wizard_card.fs3), in either mode. */
int flow_set_ids_fs3(struct wizard *w, int i, struct cx_status *st);

/* flow_bootrom.c: "Boot ROM: remove or replace". */
int flow_boot_rom(struct wizard *w, struct cx_status *st);

/* flow_settings.c: "Card settings"; and after a cross-flash the user watched, card i's "port
 * type and SR-IOV" screen (a card whose settings cannot be reached: one line; the wizard goes
 * on either way). */
int flow_settings(struct wizard *w, struct cx_status *st);
void flow_settings_after_crossflash(struct wizard *w, int i);

/* flow_power_off.c: the cold-restart screen. CX_OK: power off now; CX_EDECLINED: back to the
 * menu (after_write: the user is asked; otherwise it powers off). */
int flow_power_off(struct wizard *w, bool after_write, struct cx_status *st);

/* flow_resume.c: at start-up, settle what the last session left (pending.h). */
void flow_resume(struct wizard *w);

#endif
