/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow_ids_fs3.c — "Set a card's GUIDs/MACs" on a ConnectX-4, 4 Lx or 5 (flows.h,
 * flow_set_ids_fs3): its base GUID and base MAC, typed from its sticker or taken from a backup
 * bundle that holds the card's own identity, put into its DEV_INFO by ops/setid_fs3.h, as
 * `cxflash sg --guid G --mac M` does, in recovery mode or through its running firmware.
 *
 * The card's DEV_INFO is device data, which no burn writes: a card whose DEV_INFO is lost or
 * blank ("GUIDs lost": no identity shown, the image judged unsound by q) gets it back only
 * here, so such a card is offered though the inventory found no valid image on it. What the
 * card starts from is read first (setid_fs3_look): a card sg would refuse (secure firmware,
 * write protection, no valid image apart from DEV_INFO) is refused with its words before a
 * question. The ports' GUIDs and MACs follow from the bases (DEV_INFO keeps num and step).
 *
 * guids_override_en clear in MFG_INFO: the card takes its identity from MFG_INFO, so sg sets
 * nothing else (as mstflint refuses it); the screen says so in one line and offers, as its own
 * question (default no), to write MFG_INFO's values back into DEV_INFO (sg's
 * --restore-mfg-ids: a lost DEV_INFO made whole without changing who the card is). The
 * write is the wizard's as for every other: the backup of the whole flash to the stick
 * first, the typed word, the result with the card's state, the history's "set-ids". */
#include <stdlib.h>
#include <string.h>

#include "ops/progress.h"
#include "ops/setid_fs3.h"
#include "rescue/data_area.h"
#include "rescue/flows.h"
#include "rescue/inventory.h"
#include "rescue/step_probe.h"
#include "rescue/step_record.h"

#define MAX_SOURCES 8             /* bundles offered as the identity's source */
#define MAC_BITS 0xffffffffffffull

struct ids_fs3 {
	struct setid_fs3_opts o;
	char note[160];               /* what was written, for the history and the result */
};

/* A gen5 bundle's identity that is some card's own: its DEV_INFO's base GUID and MAC
 * (ops/backup_facts.h), neither blank. */
static bool own_identity(const struct backup_identity *id)
{
	uint64_t g = id->guid[0], m = id->mac[0] & MAC_BITS;

	return id->have_image && g && g != UINT64_MAX && m && m != MAC_BITS;
}

/* The bundles whose identity may be card c's (backup_index.h: its base GUID's; for a card
 * whose DEV_INFO is lost, every one of its family, its PSID's first) holding another identity
 * than the one it has. */
static int identity_bundles(const struct wizard *w, const struct wizard_card *c, const struct setid_fs3_look *l,
			    const struct backup_entry **out)
{
	const struct backup_entry **all = malloc((size_t)(w->ix.n + 1) * sizeof(*all));
	int n = 0;

	if (!all)
		return 0;
	int nall = backup_index_for_card(&w->ix, c->ci.pci.family, inv_psid(c), inv_own_guid(c), all, w->ix.n);
	for (int k = 0; k < nall && n < MAX_SOURCES; k++) {
		const struct backup_identity *id = &all[k]->id;
		bool same = l->old_valid && id->guid[0] == l->old_guid && (id->mac[0] & MAC_BITS) == l->old_mac;
		if (own_identity(id) && !same)
			out[n++] = all[k];
	}
	free(all);
	return n;
}

/* The sticker (*pick NULL) or the bundle the user picked; asked only when a bundle holds one. */
static int ask_source(struct wizard *w, const struct wizard_card *c, const struct setid_fs3_look *l,
		      const struct backup_entry **pick, struct cx_status *st)
{
	const struct backup_entry *found[MAX_SOURCES];
	const char *items[MAX_SOURCES + 1];
	char labels[MAX_SOURCES][220];
	int n = identity_bundles(w, c, l, found), choice, rc;

	*pick = NULL;
	if (!n)
		return CX_OK;
	items[0] = "Type them from the card's sticker";
	for (int k = 0; k < n; k++) {
		const struct backup_identity *id = &found[k]->id;
		snprintf(labels[k], sizeof(labels[k]), "From backup %s: base GUID %016llx, base MAC %012llx (card %s, %s)",
			 found[k]->name, (unsigned long long)id->guid[0], (unsigned long long)(id->mac[0] & MAC_BITS),
			 id->bdf, id->date);
		items[k + 1] = labels[k];
	}
	if ((rc = prompt_menu(&w->p, "Where do the GUIDs/MACs come from?", items, n + 1, 0, &choice, st)))
		return rc;
	*pick = choice ? found[choice - 1] : NULL;
	return CX_OK;
}

/* guids_override_en clear: only MFG_INFO's own values, as a question of its own (default no). */
static int ask_mfg(struct wizard *w, const struct setid_fs3_look *l, struct ids_fs3 *q, struct cx_status *st)
{
	int rc;

	fprintf(w->out, "  Its MFG_INFO does not let its GUIDs/MACs be changed (guids override is off: it uses the "
		"factory's, base GUID %016llx, base MAC %012llx).\n", (unsigned long long)l->mfg_guid,
		(unsigned long long)l->mfg_mac);
	if ((rc = prompt_yes_no(&w->p, "Write MFG_INFO's own GUID/MAC into its DEV_INFO (nothing else can be set)?",
				true, st)))
		return rc;
	q->o.restore_mfg_ids = true;
	q->o.rq = (struct fs3_sg_request){true, true, l->mfg_guid, l->mfg_mac};
	snprintf(q->note, sizeof(q->note), "base GUID %016llx, base MAC %012llx from MFG_INFO",
		 (unsigned long long)l->mfg_guid, (unsigned long long)l->mfg_mac);
	return CX_OK;
}

/* The new bases from the sticker or a backup (override on), or MFG_INFO's (override off). */
static int ask_ids(struct wizard *w, const struct wizard_card *c, const struct setid_fs3_look *l, struct ids_fs3 *q,
		   struct cx_status *st)
{
	const struct backup_entry *e;
	uint64_t guid, mac;
	int rc;

	if (l->old_valid)
		fprintf(w->out, "\nCard %s (%s) now has base GUID %016llx, base MAC %012llx.\n", c->ci.pci.bdf,
			l->format, (unsigned long long)l->old_guid, (unsigned long long)l->old_mac);
	else
		fprintf(w->out, "\nCard %s (%s) has no GUIDs/MACs: its DEV_INFO is lost (none, or damaged).\n",
			c->ci.pci.bdf, l->format);
	if (!l->override_en)
		return ask_mfg(w, l, q, st);
	if ((rc = ask_source(w, c, l, &e, st)))
		return rc;
	if (e) {
		guid = e->id.guid[0], mac = e->id.mac[0] & MAC_BITS;
		snprintf(q->note, sizeof(q->note), "base GUID %016llx from backup %s", (unsigned long long)guid, e->name);
	} else {
		if ((rc = prompt_guid(&w->p, "base GUID", &guid, st)) || (rc = prompt_mac(&w->p, "base MAC", &mac, st)))
			return rc;
		snprintf(q->note, sizeof(q->note), "base GUID %016llx, base MAC %012llx", (unsigned long long)guid,
			 (unsigned long long)mac);
	}
	q->o.rq = (struct fs3_sg_request){true, true, guid, mac};
	return CX_OK;
}

/* The card read as sg reads it first: what it holds, or why sg would refuse it. */
static int look(struct wizard *w, int i, struct setid_fs3_look *l, struct cx_status *st)
{
	struct device d;
	int rc = wiz_open(w, i, &d, st);

	if (!rc)
		rc = setid_fs3_look(&d, l, st);
	device_close(&d);
	return rc;
}

static int write_ids(struct wiz_write *x, struct ids_fs3 *q, struct setid_fs3_result *r, struct cx_status *st)
{
	struct device d;
	int rc;

	q->o.hooks = (struct write_hooks){.before_write = wiz_write_before, .before_ctx = x, .progress = progress_line,
					  .after = wiz_write_after, .after_ctx = x};
	x->d = &d;
	rc = wiz_open(x->w, x->card, &d, st);
	if (!rc)
		rc = setid_fs3_card(&d, &q->o, r, st);
	device_close(&d);
	return rc;
}

int flow_set_ids_fs3(struct wizard *w, int i, struct cx_status *st)
{
	struct wizard_card *c = &w->cards[i];
	struct setid_fs3_look l;
	struct setid_fs3_result r = {0};
	struct ids_fs3 q = {0};
	struct wiz_write x;
	int rc;

	if (c->no_write)
		return cx_fail(st, CX_EUNSUPPORTED, "card %s: %s; nothing written", c->ci.pci.bdf, c->no_write);
	if ((rc = look(w, i, &l, st)))
		return rc;
	if ((rc = ask_ids(w, c, &l, &q, st))) {
		/* the user changed their mind: nothing to report but that */
		if (rc == CX_EDECLINED && !w->p.closed && !l.override_en) {
			wiz_say(w, "card %s: left as it is (with guids override off its GUIDs/MACs are MFG_INFO's); "
				"nothing written", c->ci.pci.bdf);
			return CX_OK;
		}
		return rc;
	}
	fprintf(w->out, "  new: base GUID %016llx, base MAC %012llx (the ports' follow from them)\n",
		(unsigned long long)q.o.rq.guid, (unsigned long long)q.o.rq.mac);
	fprintf(w->out, "  A backup of the card's whole flash goes to the stick first; the firmware stays as it is%s.\n",
		!strcmp(l.format, "FS3") ? " (burned again, failsafe, into its other slot to name the new DEV_INFO)" : "");
	wiz_probe_first(w, i);
	if ((rc = wiz_confirm_write(w, "write the card", st))) {
		wiz_history(w, c, "set-ids", NULL, NULL, NULL, "declined", st->msg);
		return rc;
	}
	wiz_write_init(&x, w, i, "set-ids", "before setting GUIDs/MACs", "the GUIDs/MACs");
	x.record = false;
	x.ok_note = q.note;
	x.nothing = "already has these GUIDs/MACs";
	rc = write_ids(&x, &q, &r, st);
	char done[sizeof(q.note) + 80];
	snprintf(done, sizeof(done), "GUIDs/MACs set (%s), verified: its new DEV_INFO is in use after a cold restart",
		 q.note);
	return wiz_write_finish(&x, rc, st, &r.out, r.nothing_to_do, done);
}
