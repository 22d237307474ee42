/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inventory.c — the wizard's first screen: every card, who it is, and what the
 * library recommends for it (inventory.h). Reads only: no card is written here. */
#include <stdlib.h>
#include <string.h>

#include "dev/lockdown.h"
#include "dev/pci_enum.h"
#include "image/fs3.h"
#include "image/info.h"
#include "rescue/data_area.h"
#include "rescue/inventory.h"

const struct guard_opts wiz_burn_guard = {.allow_psid_change = true};

static void card_free(struct wizard_card *c)
{
	match_free(&c->mr);
	card_facts_free(&c->k);
	cardinfo_free(&c->ci);
}

void inv_free(struct wizard *w)
{
	for (int i = 0; i < w->ncards; i++)
		card_free(&w->cards[i]);
	free(w->cards);
	w->cards = NULL;
	w->ncards = 0;
}

/* A running ConnectX-4/4 Lx/5 whose firmware is secure (MGIR): burn_fs3 refuses it
 * (ops/burn_fs3.h), and so the wizard offers it nothing that writes, saying what works. */
#define SECURE_FW "it runs secure firmware, which takes a new image only through its own signed update " \
	"(MCC), which cxflash does not do. What works: recovery mode (power off, set the card's " \
	"recovery strap, boot again), where the flash is written directly"

/* The names and versions of a card's image: FS2 (ci.f) or, on a ConnectX-4/4 Lx/5, FS3/FS4. */
static void read_image_facts(struct wizard *w, struct wizard_card *c)
{
	if (c->ci.have_image) {
		fmt_fw_version(c->fw, sizeof(c->fw), c->ci.f.img.info.fw_ver);
		c->placeholder = placeholder_find(&c->ci.f.img.guids);
	} else if (c->ci.have_fs3) {
		snprintf(c->fw, sizeof(c->fw), "%s", c->ci.fs3_fw);
	}
	/* Another card's bundle with the same placeholder GUID is not this card's backup. */
	if (c->ci.have_image || c->ci.have_fs3)
		c->has_backup = backup_index_has(&w->ix, c->ci.pci.family, inv_own_guid(c));
}

static void read_one(struct wizard *w, const struct pci_card *pci, struct wizard_card *c)
{
	struct cx_status st = {0};
	struct device d;
	static const struct identity_opts own = {0};
	struct guard_opts burn = wiz_burn_guard;
	struct match_opts mo = {.burn = &burn};

	memset(c, 0, sizeof(*c));
	const struct pci_id *row = pci_id_row(pci->device);
	const struct chip_desc *chip = row ? chip_by_family(row->family) : NULL;
	/* A ConnectX-4/4 Lx/5 is read in either mode (in recovery mode directly, running through
	 * its firmware: dev/chip.h); every later chip is named with the chip table's reason. */
	c->fs3 = chip && chip->support == CHIP_CARDS && chip->format != CHIP_FW_FS2;
	if (chip && chip->support != CHIP_CARDS) {
		c->ci.pci = *pci;
		snprintf(c->ci.chip, sizeof(c->ci.chip), "%s", chip->name);
		c->ci.recovery = pci->kind == PCI_KIND_RECOVERY;
		c->not_worked_on = chip->limit;
		return;
	}
	if (w->bus.open(w->bus.ctx, pci, &d, &st) == CX_OK) {
		cardinfo_read(&d, &c->ci, &st);
		device_close(&d);
	} else {
		/* An open that fails is a description with its error, as in `list`. */
		c->ci.pci = *pci;
		snprintf(c->ci.chip, sizeof(c->ci.chip), "%s", pci->family ? pci->family : "?");
		c->ci.recovery = pci->kind == PCI_KIND_RECOVERY;
		snprintf(c->ci.image_error, sizeof(c->ci.image_error), "%s", st.msg);
	}
	if (c->fs3 && !c->ci.recovery && c->ci.fw_secured)
		c->no_write = SECURE_FW;
	card_facts_from_info(&c->k, &c->ci);
	read_image_facts(w, c);
	for (int k = 0; k < w->nbacked_up; k++)
		c->has_backup |= !strcmp(w->backed_up[k], c->ci.pci.bdf);
	if (c->ci.have_running)
		fmt_fw_version(c->running, sizeof(c->running), c->ci.running);
	cx_status_clear(&st);
	/* The verdicts promise wiz_burn's burn (step_burn.h), which keeps the card's own
	 * identity (update, burn a file). A card without a readable image has none to keep:
	 * wiz_burn sends one in recovery mode to Unbrick, which gives it, so the
	 * identity is not judged here. An FS3/FS4 card's identity is its device data, which
	 * its burn keeps: no FS2 rule judges it (library/match.h). */
	burn.ident = c->ci.have_image ? &own : NULL;
	if (w->have_lib && match_card(&c->k.mc, &w->lib.m, w->lib.table, &mo, &c->mr, &st) == CX_OK)
		c->matched = true;
}

int inv_read(struct wizard *w, struct cx_status *st)
{
	struct pci_card pci[WIZARD_MAX_CARDS];
	int n = 0, rc;

	inv_free(w);
	w->list_error[0] = '\0';
	if ((rc = w->bus.list(w->bus.ctx, pci, WIZARD_MAX_CARDS, &n, st))) {
		snprintf(w->list_error, sizeof(w->list_error), "%s", st->msg);
		return rc;
	}
	if (n && !(w->cards = calloc((size_t)n, sizeof(*w->cards))))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	for (int i = 0; i < n; i++)
		read_one(w, &pci[i], &w->cards[i]);
	w->ncards = n;
	return CX_OK;
}

void inv_reread(struct wizard *w, int i)
{
	struct pci_card pci = w->cards[i].ci.pci; /* the slot as the bus listed it, kept */

	card_free(&w->cards[i]);
	read_one(w, &pci, &w->cards[i]);
}

uint64_t inv_own_guid(const struct wizard_card *c)
{
	if (c->ci.have_fs3)
		return c->ci.fs3_ids ? c->ci.fs3_guid : 0;
	if (!c->ci.have_image || c->ci.f.img.guids.blank || c->placeholder)
		return 0;
	return c->ci.f.img.guids.guid[0];
}

const char *inv_psid(const struct wizard_card *c)
{
	return c->ci.have_image ? c->ci.f.img.info.psid : c->ci.have_fs3 ? c->ci.fs3_psid : NULL;
}

void inv_say_not_yet(struct wizard *w, const char *what)
{
	for (int i = 0; i < w->ncards; i++)
		if (w->cards[i].fs3)
			fprintf(w->out, "card %s (%s): %s is not in the wizard for ConnectX-4, 4 Lx and 5 cards yet: not "
				"offered for it\n", w->cards[i].ci.pci.bdf, w->cards[i].ci.chip, what);
}

const struct match_candidate *inv_best(const struct wizard_card *c)
{
	return c->matched && c->mr.best >= 0 ? &c->mr.c[c->mr.best] : NULL;
}

void inv_label(const struct wizard_card *c, char *out, size_t n)
{
	if (c->ci.have_fs3)
		snprintf(out, n, "%s  %s  %s  FW %s%s", c->ci.pci.bdf, c->ci.chip, c->ci.fs3_psid, c->fw,
			 c->ci.recovery ? "  RECOVERY MODE" : "");
	else if (c->ci.recovery)
		snprintf(out, n, "%s  %s  RECOVERY MODE", c->ci.pci.bdf, c->ci.chip);
	else if (c->ci.have_image)
		snprintf(out, n, "%s  %s  %s  FW %s", c->ci.pci.bdf, c->ci.chip, c->ci.f.img.info.psid, c->fw);
	else
		snprintf(out, n, "%s  %s  (no readable firmware)", c->ci.pci.bdf, c->ci.chip);
}

void inv_pending_card(const struct wizard_card *c, struct pending *p)
{
	snprintf(p->bdf, sizeof(p->bdf), "%s", c->ci.pci.bdf);
	snprintf(p->family, sizeof(p->family), "%s", c->ci.pci.family ? c->ci.pci.family : "?");
	uint64_t g = c->ci.have_fs3 ? inv_own_guid(c) : 0;
	if (c->ci.have_image && !c->ci.f.img.guids.blank)
		g = c->ci.f.img.guids.guid[0];
	if (g)
		snprintf(p->guid, sizeof(p->guid), "%016llx", (unsigned long long)g);
}

void inv_history_card(const struct wizard_card *c, struct history_card *h)
{
	memset(h, 0, sizeof(*h));
	h->bdf = c->ci.pci.bdf;
	h->chip = c->ci.chip;
	if (c->ci.have_fs3) {
		/* DEV_INFO's base GUID and base MAC (the ports' follow from them) */
		h->psid = c->ci.fs3_psid;
		h->node_guid = inv_own_guid(c);
		h->nmacs = h->node_guid != 0;
		h->mac[0] = c->ci.fs3_mac;
		return;
	}
	if (!c->ci.have_image)
		return;
	const struct fs2_guids *g = &c->ci.f.img.guids;
	h->psid = c->ci.f.img.info.psid;
	if (!g->blank) {
		h->node_guid = g->guid[0];
		h->nmacs = g->n >= GUIDS_FULL || g->macs_derived ? GUIDS_NMAC : 0;
		memcpy(h->mac, g->mac, sizeof(h->mac));
	}
}

/* What the wizard offers a ConnectX-4/4 Lx/5: the burns, restore and its GUIDs/MACs in either
 * mode, unbrick in recovery mode, settings with its firmware running; nothing that writes to
 * secure firmware. */
static void show_fs3_offer(FILE *o, const struct wizard_card *c)
{
	if (c->no_write) {
		fprintf(o, "    NOTHING THAT WRITES IS OFFERED: %s\n", c->no_write);
		return;
	}
	if (c->ci.recovery)
		fprintf(o, "    offered: update / cross-flash, burn a file, unbrick, restore, GUIDs/MACs; settings: once "
			   "its firmware runs\n");
	else
		fprintf(o, "    offered: update / cross-flash, burn a file, restore, GUIDs/MACs, settings\n");
	fprintf(o, "    not yet: boot ROM\n");
}

/* A ConnectX-4/4 Lx/5, in recovery mode or its firmware running: what its flash holds, what
 * runs, and what the wizard does with it. */
static void show_fs3(struct wizard *w, const struct wizard_card *c)
{
	FILE *o = w->out;

	if (c->ci.recovery)
		fprintf(o, "    RECOVERY MODE (flash recovery): no firmware runs; ");
	else
		fprintf(o, "    its firmware runs (cxflash reaches its flash through it); ");
	if (!c->ci.have_fs3) {
		fprintf(o, "the flash holds no valid image: %s\n", c->ci.image_error);
		fprintf(o, "    (a burn needs the device data it keeps: its GUIDs/MACs lost, the rest whole: Set a "
			   "card's GUIDs/MACs puts them back from its sticker or a backup; else restore one of its "
			   "backups)\n");
		return;
	}
	fprintf(o, "its flash holds an %s image\n    PSID %s  FW %s", c->ci.fs3_format, c->ci.fs3_psid, c->fw);
	if (c->running[0] && strcmp(c->running, c->fw))
		fprintf(o, " (running %s until a cold restart)", c->running);
	fprintf(o, "\n");
	if (c->ci.fs3_ids)
		fprintf(o, "    base GUID %016llx  base MAC %012llx (its device data: every burn keeps them)\n",
			(unsigned long long)c->ci.fs3_guid, (unsigned long long)c->ci.fs3_mac);
	else
		fprintf(o, "    GUIDs/MACs: its device data holds none (choose \"Set a card's GUIDs/MACs\")\n");
	show_fs3_offer(o, c);
	fprintf(o, "    backup on the stick: %s\n", c->has_backup ? "yes" : "NONE YET");
}

static void show_card(struct wizard *w, int i, const struct wizard_card *c)
{
	FILE *o = w->out;

	fprintf(o, "%2d. %s  %s  15b3:%04x  subsystem %04x:%04x  OEM %s\n", i + 1, c->ci.pci.bdf, c->ci.chip,
		c->ci.pci.device, c->ci.pci.subsys_vendor, c->ci.pci.subsys_device, c->ci.oem ? c->ci.oem : "unknown");
	if (c->not_worked_on) {
		fprintf(o, "    %s: %s; nothing is offered for this card\n", c->ci.chip, c->not_worked_on);
		return;
	}
	if (c->fs3) {
		show_fs3(w, c);
	} else if (c->ci.recovery) {
		fprintf(o, "    RECOVERY MODE (flash recovery): no firmware runs; choose \"Unbrick\" to bring it back\n");
	} else if (c->ci.have_image) {
		const struct fs2_image *img = &c->ci.f.img;
		fprintf(o, "    PSID %s  FW %s", img->info.psid, c->fw);
		if (c->running[0] && strcmp(c->running, c->fw))
			fprintf(o, " (running %s until a cold restart)", c->running);
		fprintf(o, "\n");
		if (img->guids.blank)
			fprintf(o, "    GUIDs/MACs: blank (choose \"Set GUIDs/MACs\")\n");
		else if (img->guids.n >= GUIDS_FULL || img->guids.macs_derived)
			fprintf(o, "    node GUID %016llx  MACs %012llx %012llx\n", (unsigned long long)img->guids.guid[0],
				(unsigned long long)img->guids.mac[0], (unsigned long long)img->guids.mac[1]);
		else
			fprintf(o, "    node GUID %016llx\n", (unsigned long long)img->guids.guid[0]);
		if (c->placeholder)
			fprintf(o, "    NO IDENTITY OF ITS OWN: its %s is a release image's placeholder (%s): every\n"
				"    card burned with the image's GUIDs has the same. Next: choose \"Set a card's GUIDs/MACs\"\n"
				"    (from its sticker, or from a backup made before they were lost)\n",
				c->placeholder->what, c->placeholder->source);
		fprintf(o, "    backup on the stick: %s\n", c->has_backup ? "yes" : "NONE YET");
	} else {
		fprintf(o, "    the flash holds no readable firmware: %s\n", c->ci.image_error);
	}
	const struct match_candidate *m = inv_best(c);
	if (!w->have_lib)
		fprintf(o, "    library: not available (%s)\n", w->lib_error);
	else if (!w->lib.m.n)
		fprintf(o, "    library: empty (drop released .bin images into %s)\n",
			w->o.upload_cmd ? "the PXE server's firmware folder (pxe-serve --firmware)"
					: "cxrescue/firmware/ on the stick");
	else if (m)
		fprintf(o, "    library: %s %s: %s\n", match_verdict_name(m->verdict), m->e->name, m->line);
	else
		fprintf(o, "    library: no image fits this card (%zu looked at)\n", w->lib.m.n);
}

void inv_show(struct wizard *w)
{
	FILE *o = w->out;

	fprintf(o, "\n== Mellanox ConnectX cards in this machine ==\n");
	if (lockdown_forbids_pci())
		fprintf(o, "WARNING: the kernel is locked down: %s\n", lockdown_advice());
	if (w->have_lib && w->lib.own_error[0])
		fprintf(o, "WARNING: %s\n", w->lib.own_error);
	if (w->list_error[0]) {
		fprintf(o, "The PCI bus could not be read: %s\n", w->list_error);
	} else if (!w->ncards) {
		fprintf(o, "0 cards found\n");
		fprintf(o, "No Mellanox ConnectX card was found in this machine.\n"
			   "Check that the card is seated and its slot is enabled in the BIOS setup. A card whose\n"
			   "firmware hangs may not show up at all: power off, set its flash-not-present jumper,\n"
			   "and boot again (choose \"Unbrick\" for the details).\n");
	} else {
		fprintf(o, "%d card%s found\n", w->ncards, w->ncards == 1 ? "" : "s");
		for (int i = 0; i < w->ncards; i++)
			show_card(w, i, &w->cards[i]);
	}
	if (w->have_lib) {
		size_t ok = 0, later = 0;
		for (size_t i = 0; i < w->lib.m.n; i++) {
			ok += w->lib.m.e[i].status == CX_OK;
			later += w->lib.m.e[i].format == FMT_FS3 || w->lib.m.e[i].format == FMT_FS4;
		}
		fprintf(o, "Firmware library: %zu image%s: %zu usable\n", w->lib.m.n, w->lib.m.n == 1 ? "" : "s", ok);
		if (later)
			fprintf(o, "  %zu of them for ConnectX-4 and later (FS3/FS4): offered for ConnectX-4, 4 Lx and 5 "
				"cards\n", later);
	}
	fprintf(o, "Backups on the stick: %d\n", w->ix.n);
	data_area_show(w);
	if (w->j.open)
		fprintf(o, "This session's log: %s\n", w->j.log_path);
}
