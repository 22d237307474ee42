/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_probe.c — a write step (step_probe.h): before the first write to a card in a
 * session, the read-only probe (ops/probe.h): what it found unexpected is on the screen (and
 * in the log) before the user types the word, so that a held semaphore or a protected flash
 * is not first met as a failure half way through a write. */
#include <string.h>

#include "ops/probe.h"
#include "rescue/step_probe.h"

static bool probed(const struct wizard *w, const char *bdf)
{
	for (int i = 0; i < w->nprobed; i++)
		if (!strcmp(w->probed[i], bdf))
			return true;
	return false;
}

static void show(struct wizard *w, const struct probe *p)
{
	unsigned shown = 0;

	for (unsigned i = 0; i < p->nchecks; i++) {
		const struct probe_check *c = &p->checks[i];
		if (c->result != PROBE_FAIL && c->result != PROBE_NOTE)
			continue;
		if (!shown++)
			wiz_say(w, "Before writing, card %s was checked (read-only); it found:", p->pci.bdf);
		wiz_say(w, "  %s %s: %s", c->result == PROBE_FAIL ? "PROBLEM" : "note", c->name, c->text);
	}
	if (!probe_safe(p))
		wiz_say(w, "  The card is NOT safe to write (%u problem%s above): a write is expected to fail.",
			p->nfail, p->nfail == 1 ? "" : "s");
}

void wiz_probe_first(struct wizard *w, int card)
{
	const char *bdf = w->cards[card].ci.pci.bdf;
	struct device d;
	struct probe p;
	struct cx_status st = {0};

	if (probed(w, bdf))
		return;
	if (w->nprobed < WIZARD_MAX_CARDS)
		snprintf(w->probed[w->nprobed++], sizeof(w->probed[0]), "%s", bdf);
	int rc = wiz_open(w, card, &d, &st);
	if (!rc)
		rc = probe_device_before_write(&d, &p, &st);
	device_close(&d);
	if (rc)
		wiz_say(w, "Before writing, card %s was checked (read-only): PROBLEM: %s", bdf, st.msg);
	else
		show(w, &p);
}
