/* SPDX-License-Identifier: GPL-2.0-or-later */
/* common.c — helpers shared by the commands. */
#include <string.h>
#include <strings.h>

#include "cli/common.h"

int cli_open_image(struct cli *c, struct imgfile *f, struct cx_status *st)
{
	return imgfile_open(f, c->image, c->striped, st);
}

void fmt_fw_version(char *out, size_t n, const uint16_t v[3])
{
	snprintf(out, n, v[1] < 100 ? "%d.%d.%04d" : "%d.%04d.%04d", v[0], v[1], v[2]);
}

int cli_confirm(struct cli *c, const char *question, struct cx_status *st)
{
	char line[32];

	if (c->yes)
		return CX_OK;
	printf("%s (y/n) [n] : ", question);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return cx_fail(st, CX_EDECLINED, "no answer on standard input: nothing changed (use -y)");
	line[strcspn(line, "\r\n")] = '\0';
	if (strcasecmp(line, "y") && strcasecmp(line, "yes"))
		return cx_fail(st, CX_EDECLINED, "aborted by user: nothing changed");
	return CX_OK;
}
