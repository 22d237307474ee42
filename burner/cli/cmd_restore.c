/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_restore.c — `-d BDF restore BUNDLE`: write a backup bundle back (ops/restore.h). */
#include <stdio.h>
#include <string.h>

#include "cli/common.h"
#include "ops/progress.h"
#include "ops/restore.h"

static int confirm(void *ctx, const char *question, struct cx_status *st)
{
	struct cli_backup *b = ctx;
	return cli_confirm(b->c, question, st);
}

static const char *result_word(const struct cli *c, const struct restore_result *r)
{
	return r->nothing_to_do ? "nothing-to-do" : c->dry_run ? "dry-run" : "restored";
}

int cmd_restore(struct cli *c, struct cx_status *st)
{
	struct device d;
	struct restore_result r;
	struct cli_backup x = {.c = c, .d = &d, .action = "restoring"};
	struct restore_opts o = {.force = c->force, .device_data = c->device_data, .dry_run = c->dry_run, .hooks.confirm = confirm, .hooks.confirm_ctx = &x,
				 .hooks.before_write = cli_backup_first, .hooks.before_ctx = &x, .hooks.progress = progress_line};
	int rc;

	if (c->image || !c->device)
		return cx_fail(st, CX_EUSAGE, "restore writes a card: cxflash -d BDF restore BUNDLE (not -i FILE)");
	if (c->settings_only)
		return cli_config_restore(c, st);
	if ((rc = device_open(&d, c->sysfs, c->device, c->clear_sem, st)) == CX_OK) {
		rc = restore_card(&d, c->params[0], &o, &r, st);
		c->card_state = card_state_name(r.out.state);
	}
	device_close(&d);
	if (rc)
		return rc;
	if (c->json) {
		struct json j;
		json_begin(&j, stdout);
		json_str(&j, "result", result_word(c, &r));
		json_str(&j, "bundle", c->params[0]);
		json_str(&j, "flash_sha256", r.flash_sha256[0] ? r.flash_sha256 : NULL);
		json_bool(&j, "identity_checked", r.identity_checked);
		json_bool(&j, "via_other_slot", r.plan.used_copy || r.plan.used_old);
		json_bool(&j, "device_data_written", r.device_data_written);
		cli_json_write_end(&j, c, r.bytes_erased, r.bytes_programmed, &x);
	} else if (r.nothing_to_do) {
		printf("-I- the flash of %s already equals the bundle (sha256 %s): nothing written\n", d.pci.bdf,
		       r.flash_sha256);
	} else if (c->dry_run) {
		printf("-I- dry run: the bundle (%s, FW %s) would be written%s; nothing written\n",
		       r.id.psid[0] ? r.id.psid : "no image", r.id.fw_version[0] ? r.id.fw_version : "-",
		       r.plan.used_copy || r.plan.used_old ? " by way of the other slot" : "");
	} else {
		printf("-I- restored %s from %s%s: %llu bytes erased, %llu programmed; flash verified "
		       "(sha256 %s).\n-I- Power the machine OFF (cold restart) for the card to load it.\n",
		       d.pci.bdf, c->params[0], r.device_data_written ? " (its device data too)" : "",
		       (unsigned long long)r.bytes_erased,
		       (unsigned long long)r.bytes_programmed, r.flash_sha256);
	}
	return CX_OK;
}
