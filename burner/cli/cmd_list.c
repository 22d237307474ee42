/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_list.c — `list`: every card, what it is and what it runs (ops/cardinfo.h).
 * A card that cannot be read is listed with the reason; the others are still shown. */
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "dev/lockdown.h"
#include "image/info.h"
#include "image/rom.h"
#include "ops/cardinfo.h"
#include "ops/placeholder.h"

struct card_view {
	struct pci_card pci;
	char chip[40], flash[96], fw[24], running[24], psid[17], error[CX_MSG_MAX];
	char fs3[4];                /* "FS3"/"FS4": psid and fw are what that image on the flash says */
	bool recovery, have_image;
	struct fs2_guids guids;
	int nroms;
	struct rom_info roms[ROM_MAX_IMAGES];
	const char *oem;
	const struct placeholder_id *placeholder; /* the image's identity is a release placeholder */
};

/* The list's view of a card: cardinfo, formatted. */
static int inspect(struct cli *c, const struct pci_card *pci, struct card_view *v, struct cx_status *st)
{
	struct cardinfo ci;
	int rc = cardinfo_read_bdf(c->sysfs, pci, &ci, st);

	memset(v, 0, sizeof(*v));
	v->pci = *pci;
	snprintf(v->chip, sizeof(v->chip), "%s", ci.chip);
	snprintf(v->flash, sizeof(v->flash), "%s", ci.flash);
	v->recovery = ci.recovery;
	v->oem = ci.oem;
	if (ci.have_running)
		fmt_fw_version(v->running, sizeof(v->running), ci.running);
	if (ci.have_image) {
		const struct fs2_image *img = &ci.f.img;
		v->have_image = true;
		fmt_fw_version(v->fw, sizeof(v->fw), img->info.fw_ver);
		snprintf(v->psid, sizeof(v->psid), "%s", img->info.psid);
		v->guids = img->guids;
		v->placeholder = placeholder_find(&img->guids);
		v->nroms = img->nroms;
		memcpy(v->roms, img->roms, sizeof(v->roms));
	} else if (ci.have_fs3) {
		snprintf(v->fs3, sizeof(v->fs3), "%s", ci.fs3_format);
		snprintf(v->psid, sizeof(v->psid), "%s", ci.fs3_psid);
		snprintf(v->fw, sizeof(v->fw), "%s", ci.fs3_fw);
	} else if (!ci.recovery || (chip_by_hw_id(ci.hw_id) && chip_by_hw_id(ci.hw_id)->format != CHIP_FW_FS2)) {
		snprintf(v->error, sizeof(v->error), "%s", ci.image_error);
	}
	cardinfo_free(&ci);
	return rc;
}

static void print_text(const struct card_view *v)
{
	char t[12], ver[24];

	printf("%s  %s  %04x:%04x  subsystem %04x:%04x  %s\n", v->pci.bdf,
	       v->chip[0] ? v->chip : v->pci.family, 0x15b3, v->pci.device, v->pci.subsys_vendor,
	       v->pci.subsys_device, v->oem ? v->oem : "OEM unknown");
	if (v->recovery && v->fs3[0])
		printf("    RECOVERY MODE (livefish): no firmware runs; flash %s\n    %s image on the flash: PSID %s  FW %s\n",
		       v->flash[0] ? v->flash : "?", v->fs3, v->psid, v->fw);
	else if (v->recovery)
		printf("    RECOVERY MODE (livefish): no valid firmware on the flash; flash %s\n",
		       v->flash[0] ? v->flash : "?");
	if (v->have_image) {
		printf("    PSID %s  FW %s (running %s)  flash %s\n", v->psid, v->fw,
		       v->running[0] ? v->running : "n/a", v->flash);
		printf("    GUIDs %016llx %016llx  MACs %012llx %012llx\n",
		       (unsigned long long)v->guids.guid[0], (unsigned long long)v->guids.guid[1],
		       (unsigned long long)v->guids.mac[0], (unsigned long long)v->guids.mac[1]);
		if (v->placeholder)
			printf("    NO IDENTITY OF ITS OWN: its %s is a release image's placeholder (%s), shared by "
			       "every card burned with the image's GUIDs; set the card's own from its sticker or a "
			       "backup (sg, or the wizard's Set GUIDs/MACs)\n", v->placeholder->what,
			       v->placeholder->source);
		for (int i = 0; i < v->nroms; i++) {
			rom_fmt_version(ver, sizeof(ver), &v->roms[i]);
			printf("%s%s %s%s", i ? ", " : "    ROM ", rom_type_name(v->roms[i].product, t), ver,
			       i + 1 < v->nroms ? "" : "\n");
		}
	}
	if (v->error[0])
		printf("    error: %s\n", v->error);
}

static void json_rom(struct json *j, const char *key, const struct rom_info *r)
{
	char t[12], ver[24];

	rom_fmt_version(ver, sizeof(ver), r);
	json_obj(j, key);
	json_str(j, "type", rom_type_name(r->product, t));
	json_str(j, "version", ver);
	if (!key) /* "roms" entries; "rom" keeps the keys it always had */
		json_int(j, "devid", r->devid);
	json_close(j);
}

static void print_json(struct json *j, const struct card_view *v)
{
	static const char *const gname[GUIDS_NGUID] = {"node", "port1", "port2", "sys_image"};

	json_obj(j, NULL);
	json_str(j, "bdf", v->pci.bdf);
	json_str(j, "family", v->pci.family);
	json_str(j, "chip", v->chip[0] ? v->chip : NULL);
	json_hex(j, "pci_device", v->pci.device, 4);
	json_hex(j, "subsys_vendor", v->pci.subsys_vendor, 4);
	json_hex(j, "subsys_device", v->pci.subsys_device, 4);
	json_str(j, "oem", v->oem);
	json_bool(j, "recovery", v->recovery);
	json_str(j, "flash", v->flash[0] ? v->flash : NULL);
	json_str(j, "psid", v->have_image || v->fs3[0] ? v->psid : NULL);
	json_str(j, "fw_version", v->have_image || v->fs3[0] ? v->fw : NULL);
	json_str(j, "fw_running", v->running[0] ? v->running : NULL);
	if (v->have_image) {
		json_obj(j, "guids");
		for (int i = 0; i < GUIDS_NGUID; i++)
			json_hex(j, gname[i], v->guids.guid[i], 16);
		json_close(j);
		json_obj(j, "macs");
		json_hex(j, "port1", v->guids.mac[0], 12);
		json_hex(j, "port2", v->guids.mac[1], 12);
		json_close(j);
		json_str(j, "identity", v->guids.blank ? "blank" : v->placeholder ? "placeholder" : "own");
	} else {
		/* Every card has the same keys; what it lacks is null (cxflash(1), JSON). */
		json_null(j, "guids");
		json_null(j, "macs");
		json_null(j, "identity");
	}
	if (v->placeholder) {
		json_obj(j, "placeholder");
		json_str(j, "field", v->placeholder->what);
		json_hex(j, "value", v->placeholder->value, v->placeholder->kind == PLACEHOLDER_MAC ? 12 : 16);
		json_str(j, "source", v->placeholder->source);
		json_close(j);
	} else {
		json_null(j, "placeholder");
	}
	/* "rom": the first ROM, as before issue 19; "roms": every one. */
	if (v->nroms)
		json_rom(j, "rom", &v->roms[0]);
	else
		json_null(j, "rom");
	json_arr(j, "roms");
	for (int i = 0; i < v->nroms; i++)
		json_rom(j, NULL, &v->roms[i]);
	json_close(j);	json_str(j, "error", v->error[0] ? v->error : NULL);
	json_close(j);
}

int cmd_list(struct cli *c, struct cx_status *st)
{
	struct pci_card cards[PCI_ENUM_MAX];
	struct card_view *views;
	int n, rc = pci_enum(c->sysfs, cards, PCI_ENUM_MAX, &n, st);

	if (rc)
		return rc;
	if (!(views = calloc((size_t)(n ? n : 1), sizeof(*views))))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	for (int i = 0; i < n && !rc; i++)
		rc = inspect(c, &cards[i], &views[i], st);
	if (rc) {
		free(views);
		return rc;
	}
	if (c->json) {
		struct json j;
		json_begin(&j, stdout);
		json_arr(&j, "cards");
		for (int i = 0; i < n; i++)
			print_json(&j, &views[i]);
		json_close(&j);
		json_str(&j, "lockdown", lockdown_mode());
		json_end(&j);
	} else {
		if (lockdown_forbids_pci())
			printf("-W- the kernel is locked down: %s\n", lockdown_advice());
		for (int i = 0; i < n; i++)
			print_text(&views[i]);
		printf("%d card%s found\n", n, n == 1 ? "" : "s");
	}
	free(views);
	return CX_OK;
}
