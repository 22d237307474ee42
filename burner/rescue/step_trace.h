/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_trace.h — a write step: every session that writes a card is recorded (README: Traces)
 * into DATA/traces/<UTC>-<action>-<bdf>.trace, from before the card is opened until after it
 * is closed; a trace that cannot be made is a warning, never a reason not to write. A
 * ConnectX-4/4 Lx/5 (wizard_card.fs3) gets none, and a line that says why: its backup's reads
 * through the VSEC would make it larger than the stick. The job
 * record's bookkeeping (step_record.h) begins and ends it around each write. */
#ifndef CX_RESCUE_STEP_TRACE_H
#define CX_RESCUE_STEP_TRACE_H

#include <stdbool.h>

#include "rescue/wizard.h"

/* Start recording the accesses of the write `action` to card i; true when a trace runs. */
bool wiz_trace_begin(struct wizard *w, int card, const char *action);
/* End the trace *traced says runs (then false); nothing when none does. */
void wiz_trace_end(struct wizard *w, bool *traced);

#endif
