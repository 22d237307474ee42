/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow_update.c — the menu's "Update / cross-flash a card" and "Burn a firmware file"
 * (flows.h): the card, the image, then the burn step (step_burn.h) and, after a
 * cross-flash the user watched, the card's port type and SR-IOV screen (flow_settings.c). */
#include <string.h>

#include "rescue/flows.h"
#include "rescue/inventory.h"
#include "rescue/step_burn.h"

int flow_burn(struct wizard *w, const struct write_request *rq, struct cx_status *st)
{
	int rc = wiz_burn(w, rq, st);

	if (!rc && rq->ask && !w->last_write.nothing_to_do && !strcmp(rq->action, "crossflash"))
		flow_settings_after_crossflash(w, rq->card);
	return rc;
}

/* A ConnectX-4/4 Lx/5 in recovery mode too (wizard_card.fs3): its flash names its board.
 * Never a card that refuses every write (wizard_card.no_write: secure firmware). */
static bool has_recommendation(const struct wizard_card *c)
{
	return (!c->ci.recovery || c->ci.have_fs3) && !c->no_write && inv_best(c) != NULL;
}

int flow_update(struct wizard *w, struct cx_status *st)
{
	int i, rc;

	if ((rc = wiz_choose_card(w, "Which card?", has_recommendation,
				  "no card has a recommended image in the library (see the inventory's \"library:\" lines)",
				  &i, st)))
		return rc;
	const struct match_candidate *m = inv_best(&w->cards[i]);
	if (m->rel == REL_SAME_PSID && m->version_cmp == 0) {
		wiz_say(w, "card %s already has the recommended image's version (%s): nothing to do", w->cards[i].ci.pci.bdf,
			m->e->name);
		return CX_OK;
	}
	struct write_request rq = {.card = i, .e = m->e, .m = m, .ask = true,
				   .action = m->rel == REL_CROSS_FLASH ? "crossflash" : "update"};
	return flow_burn(w, &rq, st);
}

static bool any(const struct wizard_card *c)
{
	return c->matched && !c->no_write;
}

int flow_burn_file(struct wizard *w, struct cx_status *st)
{
	const char *items[65];
	char labels[64][200];
	int map[64], n = 0, i, choice, rc;

	if ((rc = wiz_choose_card(w, "Which card?", any, "no card can be judged (the library could not be read)", &i, st)))
		return rc;
	const struct wizard_card *c = &w->cards[i];
	fprintf(w->out, "\nEvery image the library holds, with its verdict for card %s:\n", c->ci.pci.bdf);
	for (size_t k = 0; k < c->mr.n; k++) {
		const struct match_candidate *m = &c->mr.c[k];
		fprintf(w->out, "  - %-7s %s: %s\n", match_verdict_name(m->verdict), m->e->name, m->line);
		if (m->verdict == MATCH_REFUSED || n == 64)
			continue;
		snprintf(labels[n], sizeof(labels[n]), "%s (%s)", m->e->path, match_verdict_name(m->verdict));
		items[n] = labels[n];
		map[n++] = (int)k;
	}
	if (!n)
		return cx_fail(st, CX_EABSENT, "no image in the library may go onto card %s (all refused, reasons above)",
			       c->ci.pci.bdf);
	items[n] = "back to the menu";
	if ((rc = prompt_menu(&w->p, "Burn which file?", items, n + 1, -1, &choice, st)))
		return rc;
	if (choice == n)
		return cx_fail(st, CX_EDECLINED, "back to the menu");
	const struct match_candidate *m = &c->mr.c[map[choice]];
	struct write_request rq = {.card = i, .e = m->e, .m = m, .ask = true, .action = "burn"};
	return flow_burn(w, &rq, st);
}
