/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow_restore.c — the menu's "Restore a backup" (flows.h): the card, one of its bundles, then
 * the restore step (step_restore.h). A ConnectX-4/4 Lx/5 is offered in either mode, as a
 * ConnectX-3 is: its bundles found by its DEV_INFO's base GUID (inventory.h: inv_own_guid). */
#include <stdlib.h>

#include "rescue/flows.h"
#include "rescue/inventory.h"
#include "rescue/step_restore.h"

static void show_bundle(struct wizard *w, const struct backup_entry *e)
{
	const struct backup_identity *id = &e->id;

	fprintf(w->out, "  backup: %s\n          made %s from %s (%s)\n", e->path, id->date, id->bdf, id->chip);
	if (id->have_image)
		fprintf(w->out, "          PSID %s  FW %s  node GUID %016llx  MAC %012llx\n", id->psid, id->fw_version,
			(unsigned long long)id->guid[0], (unsigned long long)id->mac[0]);
	else
		fprintf(w->out, "          the card's flash held no readable image then (%s)\n",
			id->recovery ? "recovery mode" : "no image");
	fprintf(w->out, "          flash SHA-256 %s\n", id->flash_sha256);
}

#define MAX_OFFERED 16

/* A bundle of a flash without an image (the one every unbrick makes of the wiped card before
 * writing) would leave the card in recovery mode: it is never offered. */
int flow_choose_bundle(struct wizard *w, int i, const char *title, const struct backup_entry **pick,
		       struct cx_status *st)
{
	const struct wizard_card *c = &w->cards[i];
	const struct backup_entry *found[MAX_OFFERED], **all;
	const char *items[MAX_OFFERED + 1];
	char labels[MAX_OFFERED][200];
	const char *psid = inv_psid(c);
	uint64_t guid = inv_own_guid(c); /* none: every bundle of the family, its PSID's first */
	int n = 0, choice, rc;

	if (!(all = malloc((size_t)(w->ix.n + 1) * sizeof(*all))))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	int nall = backup_index_for_card(&w->ix, c->ci.pci.family, psid, guid, all, w->ix.n);
	for (int k = 0; k < nall && n < MAX_OFFERED; k++)
		if (all[k]->id.have_image)
			found[n++] = all[k];
	free(all);
	if (!n)
		return cx_fail(st, CX_EABSENT, "there is no backup of card %s holding firmware on the stick (%d "
			       "backups looked at)", c->ci.pci.bdf, w->ix.n);
	for (int k = 0; k < n; k++) {
		const struct backup_identity *id = &found[k]->id;
		snprintf(labels[k], sizeof(labels[k]), "%s  (%s, %s%s%s)", found[k]->name, id->date,
			 id->have_image ? "PSID " : "no image", id->have_image ? id->psid : "",
			 id->have_image ? "" : "");
		items[k] = labels[k];
	}
	items[n] = "back to the menu";
	if ((rc = prompt_menu(&w->p, title, items, n + 1, 0, &choice, st)))
		return rc;
	if (choice == n)
		return cx_fail(st, CX_EDECLINED, "back to the menu");
	*pick = found[choice];
	show_bundle(w, *pick);
	return CX_OK;
}

/* Every card but one that refuses every write (wizard_card.no_write: secure firmware). */
static bool restorable(const struct wizard_card *c)
{
	return !c->no_write;
}

/* A card left out says why, as the burns' screens do. */
static void say_refused(struct wizard *w)
{
	for (int i = 0; i < w->ncards; i++)
		if (w->cards[i].no_write)
			fprintf(w->out, "card %s (%s): %s: not offered\n", w->cards[i].ci.pci.bdf, w->cards[i].ci.chip,
				w->cards[i].no_write);
}

int flow_restore(struct wizard *w, struct cx_status *st)
{
	const struct backup_entry *e;
	int i, rc;

	say_refused(w);
	if ((rc = wiz_choose_card(w, "Restore which card?", restorable, "no card a backup can be written back to", &i, st)) ||
	    (rc = flow_choose_bundle(w, i, "Restore which backup?", &e, st)))
		return rc;
	return wiz_restore(w, i, e->path, w->cards[i].ci.recovery ? "unbrick" : "restore", true, NULL, NULL, st);
}
