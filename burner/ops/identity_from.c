/* SPDX-License-Identifier: GPL-2.0-or-later */
/* identity_from.c — GUIDs, MACs and VSD taken from a checked backup bundle (identity_from.h). */
#include <stdio.h>
#include <string.h>

#include "ops/identity_from.h"

#define BLANK_GUID UINT64_MAX /* an all-ones GUID entry is blank, fs2-format.md §3.1 */
#define FULL_GUID_ENTRIES 6   /* a section with MACs: 4 GUIDs + 2 MACs, §3.1 */

/* On a card that says who it is, the bundle must be that card's. */
static int same_card(const char *bundle, bool force, struct device *d, const struct backup_identity *id,
		     struct cx_status *st)
{
	struct dev_image cur = {0};
	int rc;

	if (d->chip.recovery)
		return CX_OK;
	rc = device_read_image_meta(d, &cur, st);
	if (rc && rc != CX_EIMAGE)
		return rc;
	cx_status_clear(st);
	uint64_t g = !rc && !cur.parse_rc && !cur.img.guids.blank ? cur.img.guids.guid[0] : BLANK_GUID;
	devimage_free(&cur);
	if (g == BLANK_GUID || g == id->guid[0] || force)
		return CX_OK;
	return cx_fail(st, CX_EMISMATCH, "%s is the bundle of another card (node GUID %016llx, this card %016llx): "
		       "nothing written (--force uses it anyway)", bundle, (unsigned long long)id->guid[0],
		       (unsigned long long)g);
}

int identity_from_bundle(const char *bundle, bool force, struct device *d, struct identity_opts *ident,
			 struct backup_identity *id, struct cx_status *st)
{
	int rc;

	if (ident->given.have_guids || ident->given.have_macs)
		return cx_fail(st, CX_EUSAGE, "give --identity-from or --guid(s)/--mac(s), not both");
	if ((rc = backup_verify(bundle, st)) || (rc = backup_load_identity(bundle, id, st)))
		return rc;
	if (!id->have_image || id->guid[0] == BLANK_GUID)
		return cx_fail(st, CX_EABSENT, "%s holds no identity (its card had no readable image)", bundle);
	if (strcmp(id->family, d->chip.desc->name))
		return cx_fail(st, CX_EMISMATCH, "%s is the bundle of a %s, this card is a %s", bundle,
			       id->family, d->chip.desc->name);
	if ((rc = same_card(bundle, force, d, id, st)))
		return rc;
	memcpy(ident->given.guid, id->guid, sizeof(ident->given.guid));
	ident->given.have_guids = true;
	if (id->guid_entries >= FULL_GUID_ENTRIES) {
		memcpy(ident->given.mac, id->mac, sizeof(ident->given.mac));
		ident->given.have_macs = true;
	}
	if (!ident->vsd && id->vsd[0])
		ident->vsd = id->vsd;
	return CX_OK;
}
