/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lockdown.c — reading the kernel's lockdown mode (lockdown.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/lockdown.h"

#define MODE_MAX 32   /* longer than any mode the kernel names */

static char mode[MODE_MAX];
static char advice[160];

/* Read once per call: a test changes the environment between runs of one process. */
const char *lockdown_mode(void)
{
	const char *path = getenv(LOCKDOWN_ENV);
	char line[128] = "";
	FILE *f = fopen(path && *path ? path : LOCKDOWN_FILE, "r");

	snprintf(mode, sizeof(mode), "none");
	if (!f)
		return mode;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	const char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;
	if (close && close - open > 1 && close - open <= MODE_MAX)
		snprintf(mode, sizeof(mode), "%.*s", (int)(close - open - 1), open + 1);
	return mode;
}

bool lockdown_forbids_pci(void)
{
	return strcmp(lockdown_mode(), "none") != 0;
}

const char *lockdown_advice(void)
{
	snprintf(advice, sizeof(advice),
		 "Secure Boot's lockdown (%s) forbids the PCI access flashing needs; "
		 "turn Secure Boot off in the firmware setup", lockdown_mode());
	return advice;
}

/* The kernel refused it (the line carries strerror(EPERM or EACCES), as every refusal
 * of the config file, a config write or the BAR's mapping does), not the card
 * (a locked crspace is CX_EPERM too, chip.c). */
static bool kernel_refused(const struct cx_status *st)
{
	return strstr(st->msg, strerror(EPERM)) || strstr(st->msg, strerror(EACCES));
}

int lockdown_explain(struct cx_status *st, const char *bdf)
{
	if (st->code != CX_EPERM || !kernel_refused(st) || !lockdown_forbids_pci())
		return st->code;
	cx_status_clear(st);
	return bdf ? cx_fail(st, CX_EPERM, "%s: %s", bdf, lockdown_advice())
		   : cx_fail(st, CX_EPERM, "%s", lockdown_advice());
}
