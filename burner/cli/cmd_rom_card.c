/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_rom_card.c — `-d BDF drom` and `-d BDF brom ROMFILE` (ops/rom_card.h): the card's
 * image rebuilt without its ROM or with another, backed up first, burned failsafe. */
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "ops/rom_card.h"
#include "util/fileio.h"

int cli_rom_card(struct cli *c, bool brom, struct cx_status *st)
{
	struct device d;
	struct rom_card_opts o = {0};
	struct burn_result r;
	struct cli_backup b = {.c = c, .d = &d, .action = brom ? "replacing the ROM" : "removing the ROM"};
	uint8_t *rom = NULL;
	int rc;

	if (c->output)
		return cx_fail(st, CX_EUSAGE, "-o OUT is for a file (-i IMG %s -o OUT); -d BDF changes the card itself",
			       c->command);
	if (brom && (rc = file_read(c->params[0], IMGFILE_MAX, &rom, &o.rom_len, st)))
		return rc;
	o.rom = rom;
	o.allow_rom_change = c->allow_rom_change;
	o.dry_run = c->dry_run;
	cli_write_hooks(c, &b, &o.hooks);
	if (!(rc = device_open(&d, c->sysfs, c->device, c->clear_sem, st))) {
		rc = rom_card(&d, &o, &r, st);
		c->card_state = card_state_name(r.out.state);
	}
	device_close(&d);
	free(rom);
	if (!rc)
		cli_burn_report(c, &r, &b);
	return rc;
}

