/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inventory.h — the cards of a session (rescue/wizard.h: w->cards, w->ncards): read from the
 * bus, judged against the firmware library, shown on the first screen, and named the way the
 * history and the job records name them. It reads cards and never writes one.
 *
 * The table changes in two ways only. inv_read() reads the bus again and rebuilds it (at the
 * start, and when the user asks for the list again): every index into it is then new, and
 * whoever asks for the list picks a card again. inv_reread() reads one card again in its
 * place after a write to it: the table keeps its size and every index stays the card it was,
 * whatever the bus would list now (a card gone, a bus that cannot be read). */
#ifndef CX_RESCUE_INVENTORY_H
#define CX_RESCUE_INVENTORY_H

#include "ops/guard.h"
#include "rescue/pending.h"
#include "rescue/wizard.h"

/* Read every card again (library verdicts and backup state too). A bus that cannot be
 * listed leaves no card and its reason in w->list_error. */
int inv_read(struct wizard *w, struct cx_status *st);
/* Card i (0 <= i < w->ncards) read again at the same slot, in place. A card that cannot be
 * opened now stays in the table, described by its error (as `cxflash list` shows it). */
void inv_reread(struct wizard *w, int i);
void inv_free(struct wizard *w);
/* The inventory screen. */
void inv_show(struct wizard *w);
/* One card's identity line, as the history records it. bdf/chip/psid point into c. */
void inv_history_card(const struct wizard_card *c, struct history_card *h);
/* The card a job record (pending.h) is about: slot, family, node GUID. */
void inv_pending_card(const struct wizard_card *c, struct pending *p);
/* "0000:01:00.0 ConnectX-3 A1 HP_0280210019 FW 2.40.5030" for menus; a ConnectX-4/4 Lx/5 in
 * either mode: its PSID and FW, and "RECOVERY MODE" in recovery mode. */
void inv_label(const struct wizard_card *c, char *out, size_t n);
/* The PSID of the card's image (FS2, or a ConnectX-4/4 Lx/5's FS3/FS4), or NULL. */
const char *inv_psid(const struct wizard_card *c);
/* For each ConnectX-4/4 Lx/5 card (wizard_card.fs3): one line saying that what ("changing the
 * boot ROM") is not in the wizard for it yet, for the screens that leave such cards out. */
void inv_say_not_yet(struct wizard *w, const char *what);
/* The recommendation, or NULL. */
const struct match_candidate *inv_best(const struct wizard_card *c);
/* The node GUID that tells card c from every other, or 0: no image, blank GUIDs, or a
 * release image's placeholder (ops/placeholder.h) that every card burned so shares. A
 * ConnectX-4/4 Lx/5: its device data's base GUID. */
uint64_t inv_own_guid(const struct wizard_card *c);

/* What the wizard's burns (rescue/step_burn.h, the boot ROM screen) give burn_card()'s rules
 * (ops/guard.h) besides the identity: a PSID change is allowed (it is on the plan the user
 * confirms; burn_card() still asks). The inventory judges the library with it, so that its
 * verdicts promise the burn the wizard makes. */
extern const struct guard_opts wiz_burn_guard;

#endif
