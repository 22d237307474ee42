/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_burn.c — `-d BDF -i IMAGE burn`: back up the card, then burn failsafe. */
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "image/info.h"
#include "ops/burn.h"
#include "ops/identity_from.h"
#include "util/fileio.h"

/* null when not known (recovery mode), else every ROM record as "PXE 3.4.752". */
static void json_roms(struct json *j, const char *key, const struct rom_set *s)
{
	char one[32];

	if (s->n < 0) {
		json_null(j, key);
		return;
	}
	json_arr(j, key);
	for (int i = 0; i < s->n; i++)
		json_str(j, NULL, rom_info_text(&s->roms[i], one, sizeof(one)));
	json_close(j);
}

static void report_json(struct cli *c, const struct burn_result *r, const struct cli_backup *b)
{
	char from_fw[24], to[24];
	struct json j;

	fmt_fw_version(from_fw, sizeof(from_fw), r->old_fw);
	fmt_fw_version(to, sizeof(to), r->new_fw);
	json_begin(&j, stdout);
	json_str(&j, "result", r->nothing_to_do ? "nothing-to-do" : c->dry_run ? "dry-run" : "burned");
	/* A card in recovery mode had no version: null, and "from_recovery" says why. */
	json_str(&j, "from", r->had_image ? from_fw : NULL);
	json_bool(&j, "from_recovery", !r->had_image);
	json_str(&j, "to", to);
	json_str(&j, "psid", r->new_psid);
	json_int(&j, "start", r->start);
	json_bool(&j, "rom_from_card", r->rom_carried);
	json_roms(&j, "rom_before", &r->rom_before);
	json_roms(&j, "rom_image", &r->rom_image);
	json_roms(&j, "rom_after", &r->rom_after);
	json_str(&j, "rom_warning", r->rom_warning[0] ? r->rom_warning : NULL);
	json_str(&j, "guids_from", identity_source_name(r->guid_source));
	json_str(&j, "vsd_from", identity_source_name(r->vsd_source));
	cli_json_write_end(&j, c, r->bytes_erased, r->bytes_programmed, b);
}

/* What --rom keep (the default) did to the image file's ROM: one line, or none. */
static void say_kept(const struct burn_result *r)
{
	char card[160], own[160];

	if (!r->rom_carried)
		return;
	rom_set_text(&r->rom_before, card, sizeof(card));
	rom_set_text(&r->rom_image, own, sizeof(own));
	if (!r->rom_image.len)
		printf("-I- the image has no expansion ROM: the card's (%s) is kept (--rom none drops it)\n", card);
	else if (!r->rom_before.len)
		printf("-I- --rom keep: the card has no expansion ROM, so the image's (%s) is left out "
		       "(--rom image takes it)\n", own);
	else if (!strcmp(card, own))
		printf("-I- --rom keep: the card's expansion ROM (%s) takes the place of the image's, of the same "
		       "version but other bytes; --rom image takes the image's\n", card);
	else
		printf("-I- --rom keep: the card's expansion ROM (%s) takes the place of the image's (%s); "
		       "--rom image takes the image's\n", card, own);
}

void cli_burn_report(struct cli *c, const struct burn_result *r, const struct cli_backup *b)
{
	char from[48], to[24], rom_from[160], rom_to[160];

	if (c->json) {
		report_json(c, r, b);
		return;
	}
	burn_from_text(r, from, sizeof(from));
	fmt_fw_version(to, sizeof(to), r->new_fw);
	rom_set_text(&r->rom_before, rom_from, sizeof(rom_from));
	rom_set_text(&r->rom_after, rom_to, sizeof(rom_to));
	if (r->rom_warning[0])
		fprintf(stderr, "-W- %s\n", r->rom_warning);
	if (r->guid_source == ID_SRC_DAMAGED)
		printf("-I- the card is in recovery mode; its GUIDs and MACs were read from its damaged image, "
		       "whose GUID section's CRC is good, and kept\n");
	if (r->vsd_source == ID_SRC_DAMAGED)
		printf("-I- the card is in recovery mode; its VSD was read from its damaged image, "
		       "whose IMAGE_INFO section's CRC is good, and kept\n");
	if (!r->nothing_to_do)
		say_kept(r);
	if (r->nothing_to_do) {
		printf("-I- the card already holds this image (FW %s, PSID %s, ROM %s): nothing written\n", to,
		       r->new_psid, rom_to);
	} else if (c->dry_run) {
		printf("-I- dry run: FW %s (%s) would go to the slot at 0x%x; ROM: %s -> %s; nothing written\n", to,
		       r->new_psid, r->start, rom_from, rom_to);
	} else {
		printf("-I- burned %s -> FW %s (PSID %s) into the slot at 0x%x: %llu bytes erased, %llu programmed.\n"
		       "-I- ROM: %s -> %s\n"
		       "-I- Power the machine OFF (cold restart) for the card to load the new firmware.\n",
		       from, to, r->new_psid, r->start, (unsigned long long)r->bytes_erased,
		       (unsigned long long)r->bytes_programmed, rom_from, rom_to);
	}
}

int cmd_burn(struct cli *c, struct cx_status *st)
{
	struct device d;
	struct burn_opts o = {0};
	struct burn_result r;
	struct cli_backup b = {.c = c, .d = &d, .action = "burning"};
	static struct backup_identity from_id; /* ~1 KiB, off the stack; o.ident.vsd may point into it */
	struct rom_choice rc_rom;
	uint8_t *img = NULL, *rom = NULL;
	size_t len;
	int rc;

	if (!c->device || !c->image)
		return cx_fail(st, CX_EUSAGE, "burn needs both: cxflash -d BDF -i IMAGE burn");
	if (c->striped)
		return cx_fail(st, CX_EUSAGE, "burn takes a released (contiguous) image, not a flash dump; "
					      "extract it first with --striped_image extract");
	if ((rc = cli_rom_choice(c, &rc_rom, &rom, st)))
		return rc;
	if ((rc = file_read(c->image, IMGFILE_MAX, &img, &len, st))) {
		free(rom);
		return rc;
	}
	cli_identity_opts(c, &o.ident);
	o.guard.allow_psid_change = c->allow_psid_change;
	o.dry_run = c->dry_run;
	o.rom = rc_rom.pick;
	o.rom_file = rc_rom.file;
	o.rom_file_len = rc_rom.file_len;
	o.nofs = c->nofs;
	o.unprotect = c->unprotect;
	cli_write_hooks(c, &b, &o.hooks);
	rc = device_open(&d, c->sysfs, c->device, c->clear_sem, st);
	if (!rc && c->identity_from)
		rc = identity_from_bundle(c->identity_from, c->force, &d, &o.ident, &from_id, st);
	if (!rc) {
		rc = burn_card(&d, img, len, &o, &r, st);
		c->card_state = card_state_name(r.out.state);
	}
	device_close(&d);
	free(img);
	free(rom);
	if (rc)
		return rc;
	cli_burn_report(c, &r, &b);
	return CX_OK;
}
