/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow_ids.c — a card's GUIDs and MACs, typed from its sticker (flows.h).
 * The patch is flint's `sg` (image/patch.h), written by ops/setid.h: only the
 * identity bytes change, after a backup, failsafe. */
#include <stdlib.h>
#include <string.h>

#include "image/guids.h"
#include "image/patch.h"
#include "ops/progress.h"
#include "ops/setid.h"
#include "rescue/flows.h"

static bool has_image(const struct wizard_card *c)
{
	return c->ci.have_image && !c->ci.recovery;
}

/* The new identity from the sticker: node GUID, and port 1 MAC when the image stores MACs. */
static int ask_ids(struct wizard *w, const struct wizard_card *c, struct guid_request *req, char *note, size_t n,
		   struct cx_status *st)
{
	const struct fs2_guids *g = &c->ci.f.img.guids;
	uint64_t guid, mac = 0;
	int rc;

	fprintf(w->out, "\nCard %s now has node GUID %016llx, MACs %012llx %012llx%s.\n", c->ci.pci.bdf,
		(unsigned long long)g->guid[0], (unsigned long long)g->mac[0], (unsigned long long)g->mac[1],
		g->blank ? " (blank)" : "");
	/* An image with 4 GUID entries (ConnectX-2 style) stores no MACs: they derive from the
	 * port GUIDs, and patch_guids() refuses MACs for it. */
	bool macs = g->n >= GUIDS_FULL;
	if ((rc = prompt_guid(&w->p, "node GUID", &guid, st)) ||
	    (macs && (rc = prompt_mac(&w->p, "port 1 MAC", &mac, st))))
		return rc;
	patch_expand_guid(guid, req->guid);
	patch_expand_mac(mac, req->mac);
	req->have_guids = true;
	req->have_macs = macs;
	fprintf(w->out, "  new: GUIDs %016llx %016llx %016llx %016llx\n", (unsigned long long)req->guid[0],
		(unsigned long long)req->guid[1], (unsigned long long)req->guid[2], (unsigned long long)req->guid[3]);
	if (macs)
		fprintf(w->out, "       MACs  %012llx %012llx\n", (unsigned long long)req->mac[0],
			(unsigned long long)req->mac[1]);
	else
		fprintf(w->out, "       MACs  %012llx %012llx (from the port GUIDs: this image stores no MACs)\n",
			(unsigned long long)guids_mac_from_guid(req->guid[1]),
			(unsigned long long)guids_mac_from_guid(req->guid[2]));
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
	struct setid_opts o = {.hooks.before_write = wiz_write_before, .hooks.before_ctx = x, .hooks.progress = progress_line};
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

	if ((rc = wiz_choose_card(w, "Set the GUIDs/MACs of which card?", has_image,
				  "no card with readable firmware (a card in recovery mode: use Unbrick)", &i, st)))
		return rc;
	struct wizard_card *c = &w->cards[i];
	if ((rc = ask_ids(w, c, &req, msg, sizeof(msg), st)))
		return rc;
	fprintf(w->out, "  A backup of the card's whole flash goes to the stick first; the firmware stays as it is.\n");
	wiz_probe_first(w, i);
	if ((rc = prompt_word(&w->p, "write the card", CONFIRM_WORD, st))) {
		wiz_history(w, c, "set-ids", NULL, NULL, NULL, "declined", st->msg);
		return rc;
	}
	wiz_write_init(&x, w, i, "set-ids", "before setting GUIDs/MACs", "the GUIDs/MACs");
	x.record = false;
	x.ok_note = msg;
	rc = write_ids(&x, &req, &r, st);
	if ((rc = wiz_write_end(&x, rc, st, &r.out, NULL, msg)))
		return rc;
	if (r.nothing_to_do) {
		wiz_say(w, "card %s already has these GUIDs/MACs: nothing written", c->ci.pci.bdf);
		return CX_OK;
	}
	wiz_say(w, "card %s: OK: GUIDs/MACs set (%s), verified", c->ci.pci.bdf, msg);
	wiz_write_wrote(&x);
	return CX_OK;
}
