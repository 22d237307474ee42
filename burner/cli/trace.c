/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace.c — --record FILE and --replay FILE: the whole command's card sessions
 * recorded into FILE, or answered from it (ops/device_trace.h). */
#include <string.h>

#include "cli/cli.h"
#include "ops/device_trace.h"

int cli_trace_begin(const struct cli *c, int argc, char **argv, struct cx_status *st)
{
	char line[1024] = "";
	size_t n = 0;

	if (c->replay)
		return device_trace_replay(c->replay, st);
	if (!c->record)
		return CX_OK;
	for (int i = 0; i < argc && n + 1 < sizeof(line); i++) {
		size_t k = strlen(argv[i]);
		if (n + k + 2 > sizeof(line))
			k = sizeof(line) - n - 2;
		if (i)
			line[n++] = ' ';
		memcpy(line + n, argv[i], k);
		n += k;
		line[n] = '\0';
	}
	return device_trace_record(c->record, line, st);
}
