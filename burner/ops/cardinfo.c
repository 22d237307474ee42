/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cardinfo.c — reading who a card is, for list, match and the wizard. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/ini.h"
#include "ops/cardinfo.h"
#include "ops/oem.h"

static void read_ini(struct cardinfo *ci)
{
	const struct fs2_image *img = &ci->f.img;
	struct cx_status st = {0};

	if (img->fwconf_sect < 0)
		return;
	const struct fs2_item *s = &img->items[img->fwconf_sect];
	if (ini_inflate(ci->f.cont + s->data_off, s->data_len, &ci->ini, &ci->ini_len, &st)) {
		ci->ini = NULL;
		ci->ini_len = 0;
	}
}

/* The base GUID and MAC of DEV_INFO, as q shows them (fs3-format.md §6.2): all ones is blank. */
static void ids_fs3(const struct fs3_devinfo *dev, struct cardinfo *ci)
{
	ci->fs3_guid = dev->guids[0].uid;
	ci->fs3_mac = dev->macs[0].uid;
	ci->fs3_ids = dev->present && ci->fs3_guid && ci->fs3_guid != ~0ull;
}

/* A running FS3/FS4 card: what runs (MGIR, one ICMD command, asked once per open as q asks
 * it): its version, and whether it is secure firmware, which refuses every burn but its own
 * signed update (ops/burn_fs3.h). An MGIR that fails leaves both unknown: the burn asks again. */
static void read_mgir(struct device *d, struct cardinfo *ci)
{
	const struct mgir *m;
	struct cx_status rst = {0};

	if (!d->chip.fw_access || chip_mgir(&d->chip, &m, &rst))
		return;
	memcpy(ci->running, m->ver, sizeof(ci->running));
	ci->have_running = ci->running[0] || ci->running[1] || ci->running[2];
	ci->fw_secured = m->secured;
}

/* An FS3/FS4 card: its image as q reads it. */
static int read_fs3(struct device *d, struct cardinfo *ci, struct cx_status *st)
{
	struct devfs3 q;
	struct cx_status rst = {0};
	int r;

	read_mgir(d, ci);
	r = device_read_fs3_query(d, &q, &rst);

	if (!r)
		r = fs3_verdict_query(&q.img, &rst);
	if (r == CX_ENOMEM || r == CX_EINTR) {
		devfs3_free(&q);
		return cx_fail(st, r, "%s", rst.msg);
	}
	if (r) {
		snprintf(ci->image_error, sizeof(ci->image_error), "%s", rst.msg);
	} else {
		const struct fs3_info *i = &q.img.info;
		ci->have_fs3 = true;
		snprintf(ci->fs3_format, sizeof(ci->fs3_format), "%s", q.img.fmt->name);
		snprintf(ci->fs3_psid, sizeof(ci->fs3_psid), "%s", i->psid);
		snprintf(ci->fs3_fw, sizeof(ci->fs3_fw), "%u.%u.%04u", i->fw_ver[0], i->fw_ver[1], i->fw_ver[2]);
		memcpy(ci->fs3_fw_ver, i->fw_ver, sizeof(ci->fs3_fw_ver));
		ci->fs3_secure = i->secure_fw;
		ids_fs3(&q.img.dev, ci);
		ci->oem = oem_name(i->psid, d->pci.subsys_vendor);
	}
	devfs3_free(&q);
	return CX_OK;
}

int cardinfo_read(struct device *d, struct cardinfo *ci, struct cx_status *st)
{
	struct dev_image di;
	struct cx_status rst = {0};
	int rc = CX_OK;

	memset(ci, 0, sizeof(*ci));
	memset(&di, 0, sizeof(di));
	ci->pci = d->pci;
	ci->oem = oem_from_subsys(d->pci.subsys_vendor);
	if (d->have_chip) {
		chip_label(&d->chip, ci->chip, sizeof(ci->chip));
		ci->hw_id = d->chip.desc->hw_id;
		ci->rev = d->chip.rev;
		ci->recovery = d->chip.recovery;
	}
	if (d->have_flash) {
		flash_describe(&d->flash, ci->flash, sizeof(ci->flash));
		ci->flash_size = d->flash.size;
	}
	if (d->have_chip && d->have_flash && d->chip.desc->format != CHIP_FW_FS2)
		return read_fs3(d, ci, st);
	if (ci->recovery) {
		snprintf(ci->image_error, sizeof(ci->image_error),
			 "recovery (livefish) mode: the flash holds no valid image");
		return CX_OK;
	}
	if (d->have_chip && chip_running_fw(&d->chip, ci->running, &rst) == CX_OK)
		ci->have_running = ci->running[0] || ci->running[1] || ci->running[2];
	cx_status_clear(&rst);
	int r = device_read_image_shown(d, &di, DEVIMAGE_ROM | DEVIMAGE_INI, &rst);
	if (r == CX_ENOMEM || r == CX_EINTR) {
		rc = cx_fail(st, r, "%s", rst.msg);
	} else if (r) {
		snprintf(ci->image_error, sizeof(ci->image_error), "%s", rst.msg);
	} else if (di.parse_rc) {
		snprintf(ci->image_error, sizeof(ci->image_error), "%s", di.parse_msg);
	} else if ((r = imgfile_open_mem(&ci->f, di.buf, di.len, false, &rst))) {
		if (r == CX_ENOMEM)
			rc = cx_fail(st, r, "%s", rst.msg);
		snprintf(ci->image_error, sizeof(ci->image_error), "%s", rst.msg);
		imgfile_close(&ci->f);
	} else {
		devimage_mark_unread(&di, &ci->f.img);
		ci->have_image = true;
		ci->f.path = d->pci.bdf;
		read_ini(ci);
		ci->oem = oem_name(ci->f.img.info.psid, d->pci.subsys_vendor);
	}
	devimage_free(&di);
	return rc;
}

int cardinfo_read_bdf(const char *sysfs, const struct pci_card *pci, struct cardinfo *ci, struct cx_status *st)
{
	struct device d;
	struct cx_status ost = {0};
	int rc = CX_OK;

	if (device_open(&d, sysfs, pci->bdf, false, &ost) == CX_OK) {
		rc = cardinfo_read(&d, ci, st);
	} else {
		memset(ci, 0, sizeof(*ci));
		ci->pci = *pci;
		ci->oem = oem_from_subsys(pci->subsys_vendor);
		snprintf(ci->image_error, sizeof(ci->image_error), "%s", ost.msg);
		if (ost.code == CX_ENOMEM || ost.code == CX_EINTR)
			rc = cx_fail(st, ost.code, "%s", ost.msg);
	}
	device_close(&d);
	return rc;
}

void cardinfo_free(struct cardinfo *ci)
{
	imgfile_close(&ci->f);
	free(ci->ini);
	ci->ini = NULL;
	ci->have_image = false;
}
