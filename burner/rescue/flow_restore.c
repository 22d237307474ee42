/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow_restore.c — a backup back onto its card, and the unbrick of a card in
 * recovery mode (flows.h).
 *
 * Unbrick, in the order a user can follow: a card in recovery mode shows up
 * with its recovery PCI ID because its flash holds no image it can boot, or
 * because its flash-not-present jumper is set (field-notes.md §2.4). Its
 * identity cannot be read, so it comes from the stick: a backup of this
 * family restored whole (firmware and identity as they were), or a library
 * image burned with the GUIDs/MACs of a backup, or with the node GUID and
 * MAC typed from the card's sticker. */
#include <stdlib.h>
#include <string.h>

#include "image/patch.h"
#include "ops/identity_from.h"
#include "ops/progress.h"
#include "rescue/flows.h"

struct restore_ctx {
	struct wiz_write x;
	bool ask;
	const struct restore_result *r;
	struct history_to to;
};

/* restore_card()'s questions (a card whose identity cannot be read, ...) are on
 * the plan the user confirmed with the typed word; unattended there are none. */
static int confirm(void *ctx, const char *question, struct cx_status *st)
{
	struct restore_ctx *b = ctx;

	if (!b->ask)
		return cx_fail(st, CX_EDECLINED, "unattended, not allowed: %s", question);
	wiz_say(b->x.w, "  confirmed with %s: %s", CONFIRM_WORD, question);
	return CX_OK;
}

/* The write procedure's after hook (ops/write_procedure.h): the job record's and the
 * history's "to" are known once the restore's check has read the bundle. */
static void after(void *ctx, int rc, const struct cx_status *st, const struct write_outcome *out)
{
	struct restore_ctx *b = ctx;
	const struct backup_identity *id = &b->r->id;

	snprintf(b->x.job.to_psid, sizeof(b->x.job.to_psid), "%s", id->have_image ? id->psid : "");
	snprintf(b->x.job.to_fw, sizeof(b->x.job.to_fw), "%s", id->have_image ? id->fw_version : "");
	if (!rc) {
		b->to.psid = id->have_image ? id->psid : NULL;
		b->to.fw = id->have_image ? id->fw_version : NULL;
		b->to.sha256 = id->flash_sha256;
	}
	wiz_write_after(&b->x, rc, st, out);
}

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

static int ask_word(struct wizard *w, int i, const char *bundle, const char *action, struct cx_status *st)
{
	const struct wizard_card *c = &w->cards[i];
	int rc;

	fprintf(w->out, "\n== %s: card %s (%s) ==\n", action, c->ci.pci.bdf, c->ci.chip);
	fprintf(w->out, "  The card's whole flash is replaced by the backup %s\n", bundle);
	fprintf(w->out, "  (firmware and identity as they were when it was made), after a backup of the flash\n"
			"  as it is now. A power cut leaves a whole image on the card at every instant.\n");
	wiz_probe_first(w, i);
	if ((rc = prompt_word(&w->p, "write the card", CONFIRM_WORD, st)))
		wiz_history(w, c, action, NULL, NULL, NULL, "declined", st->msg);
	return rc;
}

int wiz_restore(struct wizard *w, int i, const char *bundle, const char *action, bool ask,
		struct backup_result *backup_out, struct cx_status *st)
{
	struct wizard_card *c = &w->cards[i];
	struct restore_result r = {0};
	struct restore_ctx b = {.ask = ask, .r = &r, .to = {.file = bundle}};
	struct restore_opts o = {0};
	struct device d;
	int rc;

	if (ask && (rc = ask_word(w, i, bundle, action, st)))
		return rc;
	wiz_write_init(&b.x, w, i, action, "before the restore", "the backup");
	snprintf(b.x.job.file, sizeof(b.x.job.file), "%s", bundle);
	snprintf(b.x.job.identity, sizeof(b.x.job.identity), "bundle:%s", bundle);
	b.x.to = &b.to;
	b.x.nothing = "nothing to do: the flash already equals the backup";
	o.hooks.confirm = confirm;
	o.hooks.confirm_ctx = &b;
	/* A job that names its bundle (PXE: the node's own backup, kept by the server) is what
	 * unbricks a card whose identity cannot be read; every other question still refuses. */
	o.unread_identity_ok = !ask && w->o.job == JOB_RESTORE && w->o.yes;
	o.hooks.before_write = wiz_write_before;
	o.hooks.before_ctx = &b.x;
	o.hooks.progress = progress_line;
	o.hooks.after = after;
	o.hooks.after_ctx = &b;
	b.x.d = &d;
	rc = wiz_open(w, i, &d, st);
	if (!rc)
		rc = restore_card(&d, bundle, &o, &r, st);
	device_close(&d);
	if (backup_out && b.x.backed_up)
		*backup_out = b.x.bk;
	if ((rc = wiz_write_end(&b.x, rc, st, &r.out)))
		return rc;
	if (r.nothing_to_do) {
		wiz_say(w, "card %s: its flash already equals the backup: nothing written", c->ci.pci.bdf);
		return CX_OK;
	}
	wiz_say(w, "card %s: OK: the backup is on the flash, read back and verified (SHA-256 %.16s...; "
		"%llu bytes erased, %llu programmed)", c->ci.pci.bdf, r.flash_sha256,
		(unsigned long long)r.bytes_erased, (unsigned long long)r.bytes_programmed);
	wiz_write_wrote(&b.x);
	return CX_OK;
}

#define MAX_OFFERED 16

/* Pick one of the card's bundles that hold firmware; CX_EABSENT when it has none. A bundle of a
 * flash without an image (the one every unbrick makes of the wiped card before writing) would
 * leave the card in recovery mode: it is never offered. */
static int choose_bundle(struct wizard *w, int i, const char *title, const struct backup_entry **pick,
			 struct cx_status *st)
{
	const struct wizard_card *c = &w->cards[i];
	const struct backup_entry *found[MAX_OFFERED], **all;
	const char *items[MAX_OFFERED + 1];
	char labels[MAX_OFFERED][200];
	const char *psid = c->ci.have_image ? c->ci.f.img.info.psid : NULL;
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

static bool restorable(const struct wizard_card *c)
{
	(void)c;
	return true;
}

int flow_restore(struct wizard *w, struct cx_status *st)
{
	const struct backup_entry *e;
	int i, rc;

	if ((rc = wiz_choose_card(w, "Restore which card?", restorable, "no card found", &i, st)) ||
	    (rc = choose_bundle(w, i, "Restore which backup?", &e, st)))
		return rc;
	return wiz_restore(w, i, e->path, w->cards[i].ci.recovery ? "unbrick" : "restore", true, NULL, st);
}

static bool in_recovery(const struct wizard_card *c)
{
	return c->ci.recovery;
}

static void explain_jumper(struct wizard *w)
{
	fprintf(w->out,
		"\nNo card is in recovery (flash recovery, \"livefish\") mode.\n"
		"A card with broken firmware may hang at power-on and not show up at all, or show up and\n"
		"fail every read. To force it into recovery mode:\n"
		"  1. power the machine off and unplug it;\n"
		"  2. short the card's two flash-not-present (FNP) pads or pins with a jumper\n"
		"     (the board manual: \"connection shorted - Flash not present\");\n"
		"  3. boot this stick again: the card shows up as \"Flash Recovery\", and Unbrick can write it;\n"
		"  4. after the unbrick, power off, REMOVE THE JUMPER, and power on.\n");
}

/* The node GUID and port 1 MAC from the sticker; the rest follow as flint derives them. */
static int sticker_identity(struct wizard *w, struct identity_opts *id, char *note, size_t n,
			    struct cx_status *st)
{
	uint64_t guid, mac;
	int rc;

	fprintf(w->out, "\nThe card's sticker shows its GUID and MAC (each is printed in full on it).\n");
	if ((rc = prompt_guid(&w->p, "node GUID", &guid, st)) || (rc = prompt_mac(&w->p, "port 1 MAC", &mac, st)))
		return rc;
	memset(id, 0, sizeof(*id));
	patch_expand_guid(guid, id->given.guid);
	patch_expand_mac(mac, id->given.mac);
	id->given.have_guids = id->given.have_macs = true;
	snprintf(note, n, "sticker:%016llx,%012llx", (unsigned long long)guid, (unsigned long long)mac);
	return CX_OK;
}

/* The library images that may go onto card i, chosen by the user. */
static int choose_image(struct wizard *w, int i, const struct match_result *mr, const struct match_candidate **pick,
			struct cx_status *st)
{
	const char *items[65];
	char labels[64][MATCH_LINE_LEN + 100];
	int map[64], n = 0, choice, rc;

	for (size_t k = 0; k < mr->n && n < 64; k++) {
		const struct match_candidate *m = &mr->c[k];
		if (m->verdict == MATCH_REFUSED)
			continue;
		snprintf(labels[n], sizeof(labels[n]), "%s (%s): %s", m->e->name, match_verdict_name(m->verdict), m->line);
		items[n] = labels[n];
		map[n++] = (int)k;
	}
	if (!n)
		return cx_fail(st, CX_EABSENT, "no library image fits card %s: drop the card's released image into "
			       "cxrescue/firmware/ on the stick", w->cards[i].ci.pci.bdf);
	items[n] = "back to the menu";
	if ((rc = prompt_menu(&w->p, "Burn which image?", items, n + 1, 0, &choice, st)))
		return rc;
	if (choice == n)
		return cx_fail(st, CX_EDECLINED, "back to the menu");
	*pick = &mr->c[map[choice]];
	return CX_OK;
}

/* The GUIDs a recovery-mode card's damaged flash still holds (burn_recovered_guids), or
 * none: read before the question, so that the user is offered them first. A read that
 * fails leaves the other ways, and says why. */
static bool damaged_guids(struct wizard *w, int i, struct fs2_guids *g)
{
	struct cx_status st = {0};
	struct device d;
	bool found = false;

	if (wiz_open(w, i, &d, &st) || burn_recovered_guids(&d, g, &found, &st))
		wiz_say(w, "  could not look for GUIDs on the card's flash: %s", st.msg);
	device_close(&d);
	return found;
}

enum unbrick_way { WAY_RESTORE, WAY_BUNDLE_IDS, WAY_STICKER, WAY_BACK, WAY_DAMAGED };

/* The ways to unbrick card i; with GUIDs still on its flash, keeping them comes first. */
static int choose_way(struct wizard *w, const struct fs2_guids *g, bool have, enum unbrick_way *way,
		      struct cx_status *st)
{
	static const char *const base[] = {
		"Restore a backup of this card (firmware and identity as they were)",
		"Burn a library image, with the GUIDs/MACs from a backup of this card",
		"Burn a library image, with the GUID and MAC typed from the card's sticker",
		"Back to the menu",
	};
	const char *items[5];
	char kept[160];
	int n = 0, choice, rc;

	if (have) {
		snprintf(kept, sizeof(kept), "Burn a library image, keeping the GUIDs/MACs its flash still holds "
			 "(node GUID %016llx)", (unsigned long long)g->guid[0]);
		items[n++] = kept;
	}
	for (int k = 0; k < 4; k++)
		items[n++] = base[k];
	if ((rc = prompt_menu(&w->p, "How?", items, n, 0, &choice, st)))
		return rc;
	*way = have ? (choice ? (enum unbrick_way)(choice - 1) : WAY_DAMAGED) : (enum unbrick_way)choice;
	return CX_OK;
}

static void say_recovery(struct wizard *w, int i, const struct fs2_guids *g, bool have)
{
	const struct wizard_card *c = &w->cards[i];

	fprintf(w->out, "\nCard %s (%s) is in recovery mode: it runs no firmware.\n", c->ci.pci.bdf, c->ci.chip);
	if (have)
		fprintf(w->out, "Its flash still holds the GUID section of an image whose CRC is good: node GUID\n"
				"%016llx, port GUIDs %016llx %016llx, MACs %012llx %012llx.\n"
				"Check them against the card's sticker; they are kept unless you choose otherwise.\n",
			(unsigned long long)g->guid[0], (unsigned long long)g->guid[1], (unsigned long long)g->guid[2],
			(unsigned long long)g->mac[0], (unsigned long long)g->mac[1]);
	else
		fprintf(w->out, "Its GUIDs and MACs cannot be read from it.\n");
	fprintf(w->out, "If you set its flash-not-present jumper, leave it on until the machine is off again.\n");
}

int flow_unbrick(struct wizard *w, struct cx_status *st)
{
	struct fs2_guids g;
	enum unbrick_way way;
	int i, rc;

	bool any = false;
	for (int k = 0; k < w->ncards; k++)
		any |= w->cards[k].ci.recovery;
	if (!any) {
		explain_jumper(w);
		return CX_OK;
	}
	if ((rc = wiz_choose_card(w, "Unbrick which card?", in_recovery, "no card in recovery mode", &i, st)))
		return rc;
	bool have = damaged_guids(w, i, &g);
	say_recovery(w, i, &g, have);
	if ((rc = choose_way(w, &g, have, &way, st)))
		return rc;
	if (way == WAY_BACK)
		return cx_fail(st, CX_EDECLINED, "back to the menu");
	const struct backup_entry *e = NULL;
	if (way == WAY_RESTORE || way == WAY_BUNDLE_IDS) {
		if ((rc = choose_bundle(w, i, "Which backup?", &e, st)))
			return rc;
		if (way == WAY_RESTORE)
			return wiz_restore(w, i, e->path, "unbrick", true, NULL, st);
	}

	/* Burn: the library judged against what the backup says the card was, or
	 * against nothing but the chip (a sticker: the user picks the image). */
	struct card_facts k = w->cards[i].k;
	struct match_result mr = {0};
	struct match_opts mo = {0};
	struct identity_opts id = {0};
	struct backup_identity bid;
	char note[PENDING_PATH_MAX];
	const struct match_candidate *m;

	k.ini = NULL;
	if (!w->have_lib)
		return cx_fail(st, CX_EABSENT, "the firmware library cannot be read: %s", w->lib_error);
	if (e && (rc = card_facts_from_bundle(&k, e->path, st)))
		return rc;
	if (!rc)
		rc = match_card(&k.mc, &w->lib.m, w->lib.table, &mo, &mr, st);
	if (!rc)
		rc = choose_image(w, i, &mr, &m, st);
	if (!rc && e) {
		struct device d;
		rc = wiz_open(w, i, &d, st);
		if (!rc)
			rc = identity_from_bundle(e->path, false, &d, &id, &bid, st);
		device_close(&d);
		snprintf(note, sizeof(note), "bundle:%s", e->path);
	} else if (!rc && way == WAY_DAMAGED) {
		/* No GUIDs given: burn_card() reads the same section again and keeps it. The job
		 * record holds the values, for a power cut that takes that section with it. */
		id.recovered = &g;
		snprintf(note, sizeof(note), PENDING_DAMAGED_FMT, (unsigned long long)g.guid[0],
			 (unsigned long long)g.guid[1], (unsigned long long)g.guid[2], (unsigned long long)g.guid[3],
			 (unsigned long long)g.mac[0], (unsigned long long)g.mac[1]);
	} else if (!rc) {
		rc = sticker_identity(w, &id, note, sizeof(note), st);
	}
	if (!rc) {
		struct write_request rq = {.card = i, .e = m->e, .m = m, .action = "unbrick", .ident = &id,
					   .identity_note = note, .ask = true};
		rc = wiz_burn(w, &rq, st);
	}
	match_free(&mr);
	card_facts_free(&k);
	return rc;
}
