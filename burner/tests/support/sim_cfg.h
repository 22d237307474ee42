/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim_cfg.h — test-only access method: a cxsim card called in process.
 * Sleeps become model time (cxsim_advance), so polling loops cost nothing. */
#ifndef CX_TEST_SIM_CFG_H
#define CX_TEST_SIM_CFG_H

#include "cxsim.h"
#include "dev/cfg.h"
#include "dev/crmem.h"

void sim_cfg_attach(struct cfg_dev *d, struct cxsim_card *card, const char *bdf);

/* The card's BAR0 as a crmem method (cxsim_bar0_read/write); what it decodes
 * depends on the card's params.bar0_crspace. Calls the hook too. */
struct crmem sim_crmem(struct cxsim_card *card);

/* Call hook(ctx, card) after every config access through any attached card
 * (one hook for the process: tests are single-threaded). NULL removes it. */
void sim_cfg_set_hook(void (*hook)(void *ctx, struct cxsim_card *card), void *ctx);

#endif
