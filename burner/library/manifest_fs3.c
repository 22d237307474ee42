/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifest_fs3.c — an FS3/FS4 file's facts for the library (manifest_fs3.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/fs3.h"
#include "library/manifest_fs3.h"

static void fill(struct manifest_entry *e, const struct fs3_image *img)
{
	const struct fs3_info *in = &img->info;

	e->format = (uint8_t)img->fmt->fmt;
	snprintf(e->psid, sizeof(e->psid), "%s", in->psid);
	memcpy(e->fw_ver, in->fw_ver, sizeof(e->fw_ver));
	e->nhw_ids = 0;
	/* supported_hw_id: zero entries end the list (fs3-format.md §5) */
	for (int i = 0; i < 4 && i < INFO_MAX_HW_IDS && in->hw_ids[i]; i++)
		e->hw_ids[e->nhw_ids++] = in->hw_ids[i];
	e->have_family = e->nhw_ids && manifest_family_of_hw((uint16_t)e->hw_ids[0], &e->family);
	e->nroms = img->nroms < ROM_MAX_IMAGES ? img->nroms : ROM_MAX_IMAGES;
	memcpy(e->roms, img->roms, (size_t)e->nroms * sizeof(e->roms[0]));
	e->log2_slot = img->log2_slot;
	e->mcc_en = in->mcc_en;
	e->signed_fw = in->signed_fw;
	e->secure_fw = in->secure_fw;
}

int manifest_fs3_facts(struct manifest_entry *e, const uint8_t *buf, size_t len, char *why, size_t n)
{
	struct fs3_image *img = malloc(sizeof(*img)); /* tens of KiB: off the stack */
	struct cx_status st = {0};
	int rc;

	if (!img) {
		snprintf(why, n, "out of memory");
		return CX_ENOMEM;
	}
	rc = fs3_parse(buf, len, img, &st);
	if (rc == CX_OK) {
		fill(e, img);
		rc = fs3_verdict(img, &st);
	}
	if (rc)
		snprintf(why, n, "%s", st.msg);
	free(img);
	return rc == CX_ENOMEM ? CX_ENOMEM : rc ? CX_EIMAGE : CX_OK;
}
