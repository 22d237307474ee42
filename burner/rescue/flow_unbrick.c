/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow_unbrick.c — the menu's "Unbrick a card in recovery mode" (flows.h).
 *
 * Unbrick, in the order a user can follow: a card in recovery mode shows up
 * with its recovery PCI ID because its flash holds no image it can boot, or
 * because its flash-not-present jumper is set (field-notes.md §2.4). Its
 * identity cannot be read, so it comes from the stick: a backup of this
 * family restored whole (firmware and identity as they were), or a library
 * image burned with the GUIDs/MACs of a backup, or with the node GUID and
 * MAC typed from the card's sticker.
 *
 * A ConnectX-4/4 Lx/5 in recovery mode is another story (unbrick_fs3): its identity is its
 * device data (MFG_INFO, DEV_INFO), which lies outside the image and which its burn never
 * writes, so it keeps its GUIDs and MACs by itself; the library judged the image its flash
 * still holds, and the user picks one of the images that fit. One whose flash holds no valid
 * image would need its device data put back, which cxflash cannot do yet: said, not offered. */
#include <string.h>

#include "image/patch.h"
#include "ops/identity_from.h"
#include "rescue/flows.h"
#include "rescue/pending.h"
#include "rescue/step_burn.h"
#include "rescue/step_restore.h"

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

/* The GUIDs (and VSD) a recovery-mode card's damaged flash still holds (burn_recovered),
 * or none: read before the question, so that the user is offered them first. A read that
 * fails leaves the other ways, and says why. True when there are GUIDs. */
static bool damaged_guids(struct wizard *w, int i, struct recovered_id *r)
{
	struct cx_status st = {0};
	struct device d;

	if (wiz_open(w, i, &d, &st) || burn_recovered(&d, r, &st))
		wiz_say(w, "  could not look for GUIDs on the card's flash: %s", st.msg);
	device_close(&d);
	return r->have_guids;
}

/* A ConnectX-4/4 Lx/5 in recovery mode (wizard_card.fs3): a library image burned, the card's
 * device data kept. */
static int unbrick_fs3(struct wizard *w, int i, struct cx_status *st)
{
	const struct wizard_card *c = &w->cards[i];
	const struct match_candidate *m;
	int rc;

	fprintf(w->out, "\nCard %s (%s) is in recovery mode: it runs no firmware.\n", c->ci.pci.bdf, c->ci.chip);
	if (!c->ci.have_fs3)
		return cx_fail(st, CX_EUNSUPPORTED, "card %s: its flash holds no valid image (%s): a burn keeps the card's "
			       "device data, which must be there; a burn cannot put it back, restoring one of the card's "
			       "backups can (menu: Restore a backup)", c->ci.pci.bdf, c->ci.image_error);
	fprintf(w->out, "Its flash holds an %s image, PSID %s, FW %s, and its device data", c->ci.fs3_format,
		c->ci.fs3_psid, c->fw);
	if (c->ci.fs3_ids)
		fprintf(w->out, " (base GUID %016llx, base MAC %012llx)", (unsigned long long)c->ci.fs3_guid,
			(unsigned long long)c->ci.fs3_mac);
	fprintf(w->out, ".\nThe burn writes the new image beside the old one and never writes the device data:\n"
			"the card keeps its GUIDs, MACs and settings.\n"
			"If you set its flash-not-present jumper, leave it on until the machine is off again.\n");
	if (!c->matched)
		return cx_fail(st, CX_EABSENT, "the firmware library cannot be read: %s", w->lib_error);
	if ((rc = choose_image(w, i, &c->mr, &m, st)))
		return rc;
	struct write_request rq = {.card = i, .e = m->e, .m = m, .action = "unbrick", .ask = true};
	return flow_burn(w, &rq, st);
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

static void say_recovery(struct wizard *w, int i, const struct recovered_id *r)
{
	const struct fs2_guids *g = &r->guids;
	bool have = r->have_guids;
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
	if (r->have_vsd) /* burn_card() keeps it unless a backup gives one */
		fprintf(w->out, "Its image's VSD (\"%s\") is kept too, unless a backup's is taken.\n", r->vsd);
	fprintf(w->out, "If you set its flash-not-present jumper, leave it on until the machine is off again.\n");
}

int flow_unbrick(struct wizard *w, struct cx_status *st)
{
	struct recovered_id rec = {0};
	enum unbrick_way way;
	int i, rc;

	bool any = false;
	for (int k = 0; k < w->ncards; k++)
		any |= w->cards[k].ci.recovery && !w->cards[k].not_worked_on;
	if (!any) {
		explain_jumper(w);
		return CX_OK;
	}
	if ((rc = wiz_choose_card(w, "Unbrick which card?", in_recovery, "no card in recovery mode", &i, st)))
		return rc;
	if (w->cards[i].fs3)
		return unbrick_fs3(w, i, st);
	bool have = damaged_guids(w, i, &rec);
	struct fs2_guids g = rec.guids;
	say_recovery(w, i, &rec);
	if ((rc = choose_way(w, &g, have, &way, st)))
		return rc;
	if (way == WAY_BACK)
		return cx_fail(st, CX_EDECLINED, "back to the menu");
	const struct backup_entry *e = NULL;
	if (way == WAY_RESTORE || way == WAY_BUNDLE_IDS) {
		if ((rc = flow_choose_bundle(w, i, "Which backup?", &e, st)))
			return rc;
		if (way == WAY_RESTORE)
			return wiz_restore(w, i, e->path, "unbrick", true, NULL, NULL, st);
	}

	/* Burn: the library judged against what the backup says the card was, or
	 * against nothing but the chip (a sticker: the user picks the image). */
	struct card_facts k = w->cards[i].k;
	struct match_result mr = {0};
	struct match_opts mo = {0};
	struct identity_opts id = {0};
	struct backup_identity bid;
	char note[PENDING_PATH_MAX];
	const struct match_candidate *m = NULL;

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
		rc = flow_burn(w, &rq, st);
	}
	match_free(&mr);
	card_facts_free(&k);
	return rc;
}
