/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_probe.h — a write step: the first time in the session that a card is to be written,
 * the read-only probe (ops/probe.h) of it, every failed check and note shown before the
 * typed word. Nothing is written. */
#ifndef CX_RESCUE_STEP_PROBE_H
#define CX_RESCUE_STEP_PROBE_H

#include "rescue/wizard.h"

/* Probe card i, unless its slot was probed already in this session (w->probed). */
void wiz_probe_first(struct wizard *w, int card);

#endif
