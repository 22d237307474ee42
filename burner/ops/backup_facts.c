/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backup_facts.c — a dump's identity for a backup bundle: FS2 and FS3/FS4 (backup_facts.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/fs3.h"
#include "image/info.h"
#include "ops/backup_facts.h"
#include "ops/devimage.h"

static void rom_of(struct backup_facts *x, const struct rom_info *r)
{
	char t[12];

	snprintf(x->rom_type, sizeof(x->rom_type), "%s", rom_type_name(r->product, t));
	snprintf(x->rom_version, sizeof(x->rom_version), "%d.%d.%d", r->ver[0], r->ver[1], r->ver[2]);
}

int backup_facts_fs2(const uint8_t *flash, uint32_t size, unsigned start_positions, struct backup_facts *x,
		     const uint8_t **ini, size_t *ini_len)
{
	struct devimage_mem m = {flash, size};
	struct cx_status ist = {0};
	struct dev_image *di = calloc(1, sizeof(*di));

	memset(x, 0, sizeof(*x));
	*ini = NULL;
	*ini_len = 0;
	if (!di)
		return CX_ENOMEM;
	x->held = di;
	x->held_fs2 = true;
	int rc = devimage_read(di, devimage_mem_read, &m, size, start_positions, &ist);
	if (rc == CX_ENOMEM)
		return rc;
	if (rc || di->parse_rc) {
		snprintf(x->error, sizeof(x->error), "%s", rc ? ist.msg : di->parse_msg);
		return CX_OK;
	}
	const struct fs2_image *img = &di->img;
	x->have_image = true;
	x->format = "FS2";
	cx_status_clear(&ist);
	if ((x->verdict = fs2_verdict(img, &ist)))
		snprintf(x->error, sizeof(x->error), "%s", ist.msg);
	x->start = di->start;
	x->slot = di->slot;
	x->failsafe = di->failsafe;
	x->size = di->len;
	if (img->info.have[TAG_FW_VERSION])
		fmt_fw_version(x->fw_version, sizeof(x->fw_version), img->info.fw_ver);
	snprintf(x->psid, sizeof(x->psid), "%s", img->info.psid);
	snprintf(x->vsd, sizeof(x->vsd), "%s", img->info.vsd);
	x->guid_entries = img->guids.n;
	x->guids_blank = img->guids.blank;
	memcpy(x->guid, img->guids.guid, sizeof(x->guid));
	memcpy(x->mac, img->guids.mac, sizeof(x->mac));
	x->macs_derived = img->guids.macs_derived;
	if (img->nroms > 0)
		rom_of(x, &img->roms[0]);
	if (img->fwconf_sect >= 0) {
		*ini = di->buf + img->items[img->fwconf_sect].data_off;
		*ini_len = img->items[img->fwconf_sect].data_len;
	}
	return CX_OK;
}

int backup_facts_fs3(const uint8_t *flash, uint32_t size, struct backup_facts *x, const uint8_t **ini,
		     size_t *ini_len)
{
	struct cx_status ist = {0};
	struct fs3_image *img = calloc(1, sizeof(*img));

	memset(x, 0, sizeof(*x));
	*ini = NULL;
	*ini_len = 0;
	if (!img)
		return CX_ENOMEM;
	x->held = img;
	if (fs3_parse(flash, size, img, &ist)) {
		snprintf(x->error, sizeof(x->error), "%s", ist.msg);
		return CX_OK;
	}
	x->have_image = true;
	x->format = img->fmt->name;
	if ((x->verdict = fs3_verdict(img, &ist)))
		snprintf(x->error, sizeof(x->error), "%s", ist.msg);
	x->start = img->start;
	x->slot = img->start ? 1 : 0;
	x->failsafe = true;
	for (int i = 0; i < img->nitems; i++)  /* up to the end of its last item, as ri */
		if (img->items[i].off >= img->start && img->items[i].off + (size_t)img->items[i].len - img->start > x->size &&
		    img->items[i].off < img->start + (1ull << img->log2_slot))
			x->size = img->items[i].off + (size_t)img->items[i].len - img->start;
	if (img->info.present)
		snprintf(x->fw_version, sizeof(x->fw_version), "%u.%u.%04u", img->info.fw_ver[0],
			 img->info.fw_ver[1], img->info.fw_ver[2]);
	snprintf(x->psid, sizeof(x->psid), "%s", img->info.psid);
	snprintf(x->vsd, sizeof(x->vsd), "%s", img->dev.vsd);
	x->guid_entries = img->dev.guids[0].num;
	x->guid[0] = img->dev.guids[0].uid;
	x->mac[0] = img->dev.macs[0].uid;
	x->guids_blank = !img->dev.present || x->guid[0] == ~0ull;
	if (img->nroms > 0)
		rom_of(x, &img->roms[0]);
	if (img->ini_entry >= 0) {
		const struct fs3_entry *e = &img->entries[img->ini_entry];
		*ini = fs3_entry_data(img, e);
		*ini_len = e->size;
	}
	return CX_OK;
}

void backup_facts_release(struct backup_facts *x)
{
	if (x->held && x->held_fs2)
		devimage_free(x->held);
	free(x->held);
	x->held = NULL;
}

void backup_facts_free(struct backup_facts *x)
{
	backup_facts_release(x);
}
