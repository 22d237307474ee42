/* SPDX-License-Identifier: GPL-2.0-or-later */
/* identity.c — carrying GUIDs, MACs and VSD across a burn (fs2-format.md §3.1, §3.3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/identity.h"

static bool all_blank(const uint64_t *v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i] != UINT64_MAX && (v[i] & 0xFFFFFFFFFFFFull) != 0xFFFFFFFFFFFFull)
			return false;
	return true;
}

int identity_decide(const struct fs2_image *cur, const struct fs2_image *img,
		    const struct identity_opts *o, struct identity *id, struct cx_status *st)
{
	const struct guid_request *g = &o->given;

	memset(id, 0, sizeof(*id));
	if (o->use_image_guids && (g->have_guids || g->have_macs))
		return cx_fail(st, CX_EUSAGE, "--use_image_guids and --guid/--mac exclude each other");
	if (o->use_image_ps && o->vsd)
		return cx_fail(st, CX_EUSAGE, "--use_image_ps and --vsd exclude each other");

	id->source = ID_SRC_IMAGE;
	if (!o->use_image_guids) {
		const struct fs2_guids *own = cur ? &cur->guids : o->recovered;
		bool have_card = own && !own->blank && own->n >= GUIDS_NGUID;
		if (!g->have_guids && !have_card)
			return cx_fail(st, CX_EVALUE,
				       cur ? "the card's GUIDs are blank: give --guid (from the card's sticker) or --use_image_guids"
					   : "the card is in recovery mode and no GUIDs can be read from its flash (no image, "
					     "or no GUID section whose CRC is good): give --guid and --mac from the card's "
					     "sticker, or --identity-from a backup of this card");
		memcpy(id->guid, g->have_guids ? g->guid : own->guid, sizeof(id->guid));
		id->source = g->have_guids ? ID_SRC_GIVEN : cur ? ID_SRC_CARD : ID_SRC_DAMAGED;
		if (g->have_macs)
			memcpy(id->mac, g->mac, sizeof(id->mac));
		else if (have_card && !g->have_guids)
			memcpy(id->mac, own->mac, sizeof(id->mac)); /* stored, or derived as flint does */
		else if (img->guids.n >= GUIDS_FULL)
			return cx_fail(st, CX_EVALUE,
				       "give --mac too: new GUIDs without MACs would leave the image's placeholder MACs");
		id->set_guids = true;
		for (int i = 0; i < GUIDS_NMAC && img->guids.n >= GUIDS_FULL; i++)
			if (guids_check_mac(id->mac[i], st))
				return st->code;
		if (all_blank(id->guid, GUIDS_NGUID))
			return cx_fail(st, CX_EVALUE, "refusing to burn blank GUIDs");
	} else if (!cur) {
		return cx_fail(st, CX_EVALUE,
			       "--use_image_guids on a card in recovery mode would leave the image's placeholder GUIDs: "
			       "give --guid and --mac from the card's sticker, or --identity-from a backup");
	} else if (img->guids.blank) {
		return cx_fail(st, CX_EVALUE, "the image's GUIDs are blank: refusing to burn them (give --guid/--mac)");
	}

	id->vsd_source = ID_SRC_IMAGE;
	const char *own_vsd = cur ? cur->info.vsd : o->recovered_vsd;
	if (o->vsd) {
		if (strlen(o->vsd) > INFO_VSD_LEN)
			return cx_fail(st, CX_EVALUE, "VSD is %zu characters: at most %d fit", strlen(o->vsd), INFO_VSD_LEN);
		snprintf(id->vsd, sizeof(id->vsd), "%s", o->vsd);
		id->set_vsd = true;
		id->vsd_source = ID_SRC_GIVEN;
	} else if (!o->use_image_ps && own_vsd && img->info.have[TAG_VSD]) {
		snprintf(id->vsd, sizeof(id->vsd), "%s", own_vsd);
		id->set_vsd = true;
		id->vsd_source = cur ? ID_SRC_CARD : ID_SRC_DAMAGED;
	}
	return CX_OK;
}

/* Indexed by enum identity_source: the words of burn --json's "guids_from" and "vsd_from". */
static const char *const source_names[] = {
	[ID_SRC_CARD] = "card", [ID_SRC_GIVEN] = "given", [ID_SRC_DAMAGED] = "damaged-image", [ID_SRC_IMAGE] = "image",
};

const char *identity_source_name(enum identity_source s)
{
	return (unsigned)s < sizeof(source_names) / sizeof(source_names[0]) ? source_names[s] : "unknown";
}

int identity_apply(uint8_t *buf, const struct fs2_image *img, const struct identity *id,
		   struct cx_status *st)
{
	struct fs2_image *re;
	struct guid_request req = {0};
	int rc = CX_OK;

	if (id->set_guids) {
		req.have_guids = true;
		memcpy(req.guid, id->guid, sizeof(req.guid));
		req.have_macs = img->guids.n >= GUIDS_FULL;
		memcpy(req.mac, id->mac, sizeof(req.mac));
		if ((rc = patch_guids(buf, img, &req, st)))
			return rc;
	}
	if (id->set_vsd) {
		/* The GUID patch may have changed CRCs: work on a fresh parse. */
		struct cx_status pst = {0};
		if (!(re = malloc(sizeof(*re))))
			return cx_fail(st, CX_ENOMEM, "out of memory");
		rc = fs2_parse(buf, img->len, re, &pst);
		if (!rc)
			rc = patch_vsd(buf, re, id->vsd, st);
		else
			cx_fail(st, rc, "%s", pst.msg);
		free(re);
	}
	return rc;
}
