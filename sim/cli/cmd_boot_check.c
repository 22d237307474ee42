/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_boot_check.c — `cxsim boot-check`: power a card on and show what its boot ROM found,
 * and the settings its firmware will apply at this boot (the store's TLVs, decoded). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "report.h"

#define CMD "boot-check"

int cmd_boot_check(int argc, char **argv)
{
	const char *stem = NULL;
	bool json = false;
	struct cxsim_card *c;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (argv[i][0] == '-')
			return cli_usage(CMD, "unknown option %s", argv[i]);
		else if (cli_operand(CMD, argv[i], &stem, NULL))
			return CLI_USAGE;
	}
	if (!stem)
		return cli_usage(CMD, "which STEM?");
	c = cli_load(stem);     /* loading is a power-on: the boot ROM runs */
	if (!c)
		return CLI_FAIL;
	if (json) {
		struct sbuf b = { 0 };

		report_boot_json(&b, c);
		printf("%s\n", b.p ? b.p : "{}");
		sb_free(&b);
	} else {
		printf("card:        %s (%s, %s)\n", stem, cxsim_chip_name(cxsim_get_params(c)->chip),
		       cxsim_get_params(c)->flash_part);
		report_boot_text(stdout, c);
		report_settings_text(stdout, c);
	}
	cxsim_free(c);
	return CLI_OK;
}
