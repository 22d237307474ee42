/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow_ids.c — a card's GUIDs and MACs, typed from its sticker or taken from a
 * backup bundle that holds the card's own identity (flows.h). A ConnectX-4/4 Lx/5 is
 * flow_ids_fs3.c's: its identity is a base GUID and MAC in its DEV_INFO.
 * The patch is flint's `sg` (image/patch.h), written by ops/setid.h: only the
 * identity bytes change, after a backup, failsafe. */
#include <stdlib.h>
#include <string.h>

#include "image/guids.h"
#include "image/patch.h"
#include "ops/progress.h"
#include "ops/setid.h"
#include "rescue/data_area.h"
#include "rescue/flows.h"
#include "rescue/inventory.h"
#include "rescue/step_probe.h"
#include "rescue/step_record.h"

static bool has_image(const struct wizard_card *c)
{
	return c->ci.have_image && !c->ci.recovery;
}

/* A ConnectX-3 with readable firmware, or any ConnectX-4/4 Lx/5 in either mode: its flash is
 * readable, and a lost DEV_INFO is what this screen is for (flow_ids_fs3.c judges it). */
static bool can_set_ids(const struct wizard_card *c)
{
	return has_image(c) || c->fs3;
}

#define MAX_SOURCES 8 /* bundles offered as the identity's source */

/* A bundle's identity that is some card's own: GUIDs read, not blank, not a placeholder. */
static bool own_identity(const struct backup_identity *id)
{
	struct fs2_guids g = {.n = id->guid_entries};

	memcpy(g.guid, id->guid, sizeof(g.guid));
	memcpy(g.mac, id->mac, sizeof(g.mac));
	return id->have_image && id->guid_entries > 0 && id->guid[0] && id->guid[0] != UINT64_MAX &&
	       !placeholder_find(&g);
}

/* The bundles whose identity may be card c's (backup_index.h: its node GUID's; for a card with
 * none of its own, every one of its family, its PSID's first) that hold a card's own identity. */
static int identity_bundles(const struct wizard *w, const struct wizard_card *c, const struct backup_entry **out)
{
	const struct backup_entry **all = malloc((size_t)(w->ix.n + 1) * sizeof(*all));
	int n = 0;

	if (!all)
		return 0;
	int nall = backup_index_for_card(&w->ix, c->ci.pci.family, c->ci.f.img.info.psid, inv_own_guid(c), all,
					 w->ix.n);
	for (int k = 0; k < nall && n < MAX_SOURCES; k++)
		/* A bundle with MACs for an image that stores them (their MACs would be kept otherwise). */
		if (own_identity(&all[k]->id) && all[k]->id.guid[0] != c->ci.f.img.guids.guid[0] &&
		    (c->ci.f.img.guids.n < GUIDS_FULL || all[k]->id.guid_entries >= GUIDS_FULL))
			out[n++] = all[k];
	free(all);
	return n;
}

/* Where the identity comes from: NULL for the sticker, else the bundle the user picked. Asked
 * only when a bundle holds one. */
static int ask_source(struct wizard *w, const struct wizard_card *c, const struct backup_entry **pick,
		      struct cx_status *st)
{
	const struct backup_entry *found[MAX_SOURCES];
	const char *items[MAX_SOURCES + 1];
	char labels[MAX_SOURCES][220];
	int n = identity_bundles(w, c, found), choice, rc;

	*pick = NULL;
	if (!n)
		return CX_OK;
	items[0] = "Type them from the card's sticker";
	for (int k = 0; k < n; k++) {
		const struct backup_identity *id = &found[k]->id;
		snprintf(labels[k], sizeof(labels[k]), "From backup %s: node GUID %016llx, MAC %012llx (card %s, %s)",
			 found[k]->name, (unsigned long long)id->guid[0], (unsigned long long)id->mac[0], id->bdf,
			 id->date);
		items[k + 1] = labels[k];
	}
	if ((rc = prompt_menu(&w->p, "Where do the GUIDs/MACs come from?", items, n + 1, 0, &choice, st)))
		return rc;
	*pick = choice ? found[choice - 1] : NULL;
	return CX_OK;
}

/* The identity from the bundle e, as its card had it. */
static void ids_from_bundle(const struct backup_entry *e, bool macs, struct guid_request *req, char *note, size_t n)
{
	memcpy(req->guid, e->id.guid, sizeof(req->guid));
	memcpy(req->mac, e->id.mac, sizeof(req->mac));
	req->have_guids = true;
	req->have_macs = macs; /* identity_bundles(): the bundle has MACs when the image stores them */
	snprintf(note, n, "node GUID %016llx from backup %s", (unsigned long long)req->guid[0], e->name);
}

/* The identity about to be written. */
static void show_new(struct wizard *w, const struct guid_request *req, bool macs)
{
	fprintf(w->out, "  new: GUIDs %016llx %016llx %016llx %016llx\n", (unsigned long long)req->guid[0],
		(unsigned long long)req->guid[1], (unsigned long long)req->guid[2], (unsigned long long)req->guid[3]);
	if (macs)
		fprintf(w->out, "       MACs  %012llx %012llx\n", (unsigned long long)req->mac[0],
			(unsigned long long)req->mac[1]);
	else
		fprintf(w->out, "       MACs  %012llx %012llx (from the port GUIDs: this image stores no MACs)\n",
			(unsigned long long)guids_mac_from_guid(req->guid[1]),
			(unsigned long long)guids_mac_from_guid(req->guid[2]));
}

/* The new identity from the sticker (node GUID, and port 1 MAC when the image stores MACs)
 * or from a backup. */
static int ask_ids(struct wizard *w, const struct wizard_card *c, struct guid_request *req, char *note, size_t n,
		   struct cx_status *st)
{
	const struct fs2_guids *g = &c->ci.f.img.guids;
	const struct backup_entry *e;
	uint64_t guid, mac = 0;
	int rc;

	fprintf(w->out, "\nCard %s now has node GUID %016llx, MACs %012llx %012llx%s.\n", c->ci.pci.bdf,
		(unsigned long long)g->guid[0], (unsigned long long)g->mac[0], (unsigned long long)g->mac[1],
		g->blank ? " (blank)" : c->placeholder ? " (a release image's placeholders)" : "");
	/* An image with 4 GUID entries (ConnectX-2 style) stores no MACs: they derive from the
	 * port GUIDs, and patch_guids() refuses MACs for it. */
	bool macs = g->n >= GUIDS_FULL;
	if ((rc = ask_source(w, c, &e, st)))
		return rc;
	if (e) {
		ids_from_bundle(e, macs, req, note, n);
		show_new(w, req, macs);
		return CX_OK;
	}
	if ((rc = prompt_guid(&w->p, "node GUID", &guid, st)) ||
	    (macs && (rc = prompt_mac(&w->p, "port 1 MAC", &mac, st))))
		return rc;
	patch_expand_guid(guid, req->guid);
	patch_expand_mac(mac, req->mac);
	req->have_guids = true;
	req->have_macs = macs;
	show_new(w, req, macs);
	if (macs)
		snprintf(note, n, "node GUID %016llx, port 1 MAC %012llx", (unsigned long long)guid, (unsigned long long)mac);
	else
		snprintf(note, n, "node GUID %016llx", (unsigned long long)guid);
	return CX_OK;
}

static int ids_patch(void *ctx, uint8_t *buf, const struct fs2_image *img, struct cx_status *st)
{
	return patch_guids(buf, img, ctx, st);
}

/* The card's image patched as `sg` patches a file, and written (ops/setid.h). */
static int write_ids(struct wiz_write *x, struct guid_request *req, struct setid_result *r, struct cx_status *st)
{
	struct setid_opts o = {.hooks.before_write = wiz_write_before, .hooks.before_ctx = x, .hooks.progress = progress_line,
			       .hooks.after = wiz_write_after, .hooks.after_ctx = x};
	struct device d;
	int rc;

	x->d = &d;
	rc = wiz_open(x->w, x->card, &d, st);
	if (!rc)
		rc = setid_change(&d, ids_patch, NULL, req, &o, r, st);
	device_close(&d);
	return rc;
}

int flow_set_ids(struct wizard *w, struct cx_status *st)
{
	struct guid_request req = {0};
	struct setid_result r = {0};
	struct wiz_write x;
	char msg[160];
	int i, rc;

	if ((rc = wiz_choose_card(w, "Set the GUIDs/MACs of which card?", can_set_ids,
				  "no card with readable firmware (a card in recovery mode: use Unbrick)", &i, st)))
		return rc;
	struct wizard_card *c = &w->cards[i];
	if (c->fs3)
		return flow_set_ids_fs3(w, i, st);
	if ((rc = ask_ids(w, c, &req, msg, sizeof(msg), st)))
		return rc;
	fprintf(w->out, "  A backup of the card's whole flash goes to the stick first; the firmware stays as it is.\n");
	wiz_probe_first(w, i);
	if ((rc = wiz_confirm_write(w, "write the card", st))) {
		wiz_history(w, c, "set-ids", NULL, NULL, NULL, "declined", st->msg);
		return rc;
	}
	wiz_write_init(&x, w, i, "set-ids", "before setting GUIDs/MACs", "the GUIDs/MACs");
	x.record = false;
	x.ok_note = msg;
	x.nothing = "already has these GUIDs/MACs";
	rc = write_ids(&x, &req, &r, st);
	char done[sizeof(msg) + 40];
	snprintf(done, sizeof(done), "GUIDs/MACs set (%s), verified", msg);
	return wiz_write_finish(&x, rc, st, &r.out, r.nothing_to_do, done);
}
