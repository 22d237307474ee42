/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_burn.c — `-d BDF -i IMAGE burn`: back up the card, then burn failsafe. */
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "image/info.h"
#include "ops/burn.h"
#include "ops/identity_from.h"
#include "ops/progress.h"
#include "util/fileio.h"

static int confirm(void *ctx, const char *question, struct cx_status *st)
{
	return cli_confirm(ctx, question, st);
}

int cmd_burn(struct cli *c, struct cx_status *st)
{
	struct device d;
	struct burn_opts o = {0};
	struct burn_result r;
	struct cli_backup b = {.c = c, .d = &d, .action = "burning"};
	static struct backup_identity from_id; /* ~1 KiB, off the stack; o.ident.vsd may point into it */
	uint8_t *img = NULL;
	size_t len;
	int rc;

	if (!c->device || !c->image)
		return cx_fail(st, CX_EUSAGE, "burn needs both: cxflash -d BDF -i IMAGE burn");
	if (c->striped)
		return cx_fail(st, CX_EUSAGE, "burn takes a released (contiguous) image, not a flash dump; "
					      "extract it first with --striped_image extract");
	if ((rc = file_read(c->image, IMGFILE_MAX, &img, &len, st)))
		return rc;
	cli_identity_opts(c, &o.ident);
	o.guard.allow_psid_change = c->allow_psid_change;
	o.dry_run = c->dry_run;
	o.use_image_rom = c->use_image_rom;
	o.nofs = c->nofs;
	o.hooks.confirm = confirm;
	o.hooks.confirm_ctx = c;
	o.hooks.before_write = cli_backup_first;
	o.hooks.before_ctx = &b;
	o.hooks.progress = progress_line;
	rc = device_open(&d, c->sysfs, c->device, c->clear_sem, st);
	if (!rc && c->identity_from)
		rc = identity_from_bundle(c->identity_from, c->force, &d, &o.ident, &from_id, st);
	if (!rc) {
		rc = burn_card(&d, img, len, &o, &r, st);
		c->card_state = card_state_name(r.out.state);
	}
	device_close(&d);
	free(img);
	if (rc)
		return rc;
	char from[48], from_fw[24], to[24];
	burn_from_text(&r, from, sizeof(from));
	fmt_fw_version(from_fw, sizeof(from_fw), r.old_fw);
	fmt_fw_version(to, sizeof(to), r.new_fw);
	if (!c->json && r.guid_source == ID_SRC_DAMAGED)
		printf("-I- the card is in recovery mode; its GUIDs and MACs were read from its damaged image, "
		       "whose GUID section's CRC is good, and kept\n");
	if (c->json) {
		struct json j;
		json_begin(&j, stdout);
		json_str(&j, "result", r.nothing_to_do ? "nothing-to-do" : c->dry_run ? "dry-run" : "burned");
		/* A card in recovery mode had no version: null, and "from_recovery" says why. */
		json_str(&j, "from", r.had_image ? from_fw : NULL);
		json_bool(&j, "from_recovery", !r.had_image);
		json_str(&j, "to", to);
		json_str(&j, "psid", r.new_psid);
		json_int(&j, "start", r.start);
		json_bool(&j, "rom_from_card", r.rom_carried);
		json_str(&j, "guids_from", identity_source_name(r.guid_source));
		cli_json_write_end(&j, c, r.bytes_erased, r.bytes_programmed, &b);
	} else if (r.nothing_to_do) {
		printf("-I- the card already holds this image (FW %s, PSID %s): nothing written\n", to, r.new_psid);
	} else if (c->dry_run) {
		printf("-I- dry run: FW %s (%s) would go to the slot at 0x%x; nothing written\n", to, r.new_psid, r.start);
	} else {
		if (r.rom_carried)
			printf("-I- the image has no expansion ROM: the card's ROM was kept (--use_image_rom drops it)\n");
		printf("-I- burned %s -> FW %s (PSID %s) into the slot at 0x%x: %llu bytes erased, %llu programmed.\n"
		       "-I- Power the machine OFF (cold restart) for the card to load the new firmware.\n",
		       from, to, r.new_psid, r.start, (unsigned long long)r.bytes_erased,
		       (unsigned long long)r.bytes_programmed);
	}
	return CX_OK;
}
