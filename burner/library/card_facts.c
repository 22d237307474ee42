/* SPDX-License-Identifier: GPL-2.0-or-later */
/* card_facts.c — match facts from a card, an image or a backup (card_facts.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/ini.h"
#include "library/card_facts.h"
#include "ops/backup.h"
#include "util/fileio.h"

void card_facts_from_image(struct card_facts *k, const struct fs2_image *img)
{
	k->mc.current = img;
	snprintf(k->psid, sizeof(k->psid), "%s", img->info.psid);
	k->mc.psid = k->psid;
	k->mc.have_fw = true;
	memcpy(k->mc.fw_ver, img->info.fw_ver, sizeof(k->mc.fw_ver));
	k->mc.dev_type = img->info.dev_type;
}

void card_facts_from_info(struct card_facts *k, const struct cardinfo *ci)
{
	k->mc.hw_id = ci->hw_id;
	k->mc.rev = ci->rev;
	k->mc.flash_size = ci->flash_size;
	k->mc.recovery = ci->recovery;
	k->mc.pci_class = ci->pci.class_code;
	k->mc.subsys_vendor = ci->pci.subsys_vendor;
	k->mc.subsys_device = ci->pci.subsys_device;
	if (ci->have_fs3) {
		/* FS3/FS4: the PSID names the board; no board .ini to compare (fs3-format.md §5). */
		snprintf(k->psid, sizeof(k->psid), "%s", ci->fs3_psid);
		k->mc.psid = k->psid;
		k->mc.have_fw = true;
		memcpy(k->mc.fw_ver, ci->fs3_fw_ver, sizeof(k->mc.fw_ver));
		k->mc.secure_fw = ci->fs3_secure;
	}
	if (!ci->have_image)
		return;
	card_facts_from_image(k, &ci->f.img);
	if (ci->ini) {
		k->mc.ini_text = ci->ini;
		k->mc.ini_len = ci->ini_len;
		k->ini_source = "the flash";
	}
}

void card_facts_from_fs3(struct card_facts *k, const struct fs3_image *img)
{
	k->mc.hw_id = (uint16_t)img->info.hw_ids[0];
	k->mc.secure_fw = img->info.secure_fw;
	snprintf(k->psid, sizeof(k->psid), "%s", img->info.psid);
	k->mc.psid = k->psid;
	k->mc.have_fw = true;
	memcpy(k->mc.fw_ver, img->info.fw_ver, sizeof(k->mc.fw_ver));
}

/* "2.42.5000" -> {2, 42, 5000}. */
static bool parse_ver(const char *s, uint16_t v[3])
{
	unsigned a, b, c;
	char tail;

	if (sscanf(s, "%u.%u.%u%c", &a, &b, &c, &tail) != 3 || a > 0xFFFF || b > 0xFFFF || c > 0xFFFF)
		return false;
	v[0] = (uint16_t)a, v[1] = (uint16_t)b, v[2] = (uint16_t)c;
	return true;
}

int card_facts_from_bundle(struct card_facts *k, const char *bundle, struct cx_status *st)
{
	struct backup_identity *id = malloc(sizeof(*id)); /* ~1 KiB: off the stack */
	char path[BACKUP_PATH_MAX];
	int rc;

	if (!id)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	if ((rc = backup_verify(bundle, st)) || (rc = backup_load_identity(bundle, id, st)))
		goto out;
	if (!id->have_image) {
		rc = cx_fail(st, CX_EABSENT, "the backup %s holds no readable image either: it cannot say "
			     "which board this is", bundle);
		goto out;
	}
	snprintf(k->psid, sizeof(k->psid), "%s", id->psid);
	k->mc.psid = k->psid;
	k->mc.have_fw = parse_ver(id->fw_version, k->mc.fw_ver);
	k->identity_note = bundle;
	if (id->have_ini) {
		uint8_t *buf;
		size_t len;
		snprintf(path, sizeof(path), "%s/%s", bundle, BACKUP_INI);
		if ((rc = file_read(path, INI_MAX_TEXT, &buf, &len, st)))
			goto out;
		free(k->ini);
		k->ini = (char *)buf;
		k->ini_len = len;
		k->ini_source = "the backup";
		k->mc.ini_text = k->ini;
		k->mc.ini_len = len;
	}
out:
	free(id);
	return rc;
}

void card_facts_free(struct card_facts *k)
{
	free(k->ini);
	k->ini = NULL;
}
