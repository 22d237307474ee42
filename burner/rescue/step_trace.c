/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_trace.c — a write step: the trace of each write the wizard makes (step_trace.h,
 * ops/device_trace.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ops/device_trace.h"
#include "rescue/step_trace.h"
#include "util/utc.h"

#define TRACES_DIR "traces"   /* beside backups/ and logs/ in the data folder */

/* The cxflash command a wizard action is, for the shell's way of recording it. */
static const char *shell_command(const char *action)
{
	static const struct { const char *action, *command; } commands[] = {
		{"set-ids", "sg"}, {"restore", "restore"},
	};

	for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
		if (!strcmp(action, commands[k].action))
			return commands[k].command;
	return "burn";
}

bool wiz_trace_begin(struct wizard *w, int card, const char *action)
{
	char dir[512], path[640], stamp[UTC_STAMP_LEN], bdf[20], cmd[96];
	struct cx_status st = {0};
	time_t now = time(NULL);

	if (!w->o.data_dir || !w->o.data_dir[0] || device_trace_active())
		return false;   /* no data folder, or the whole wizard is recorded (cxflash --record) */
	if (w->cards[card].fs3) {
		/* Its backup reads the whole flash through the VSEC, a config cycle at a time: 18.9 MB
		 * of trace for a 2 MiB flash in QEMU (2026-12-05), so ~150 MB for a 16 MiB card, more
		 * than the 128 MiB stick holds beside its backup. */
		wiz_say(w, "  no trace of this write: on a ConnectX-4/4 Lx/5 its backup's reads would make it too "
			"large (some 150 MB for a 16 MiB flash); from the shell, after a backup: cxflash -d %s "
			"--record FILE %s --no-backup ...", w->cards[card].ci.pci.bdf, shell_command(action));
		return false;
	}
	utc_stamp_of(stamp, now, true);
	snprintf(bdf, sizeof(bdf), "%s", w->cards[card].ci.pci.bdf);
	for (char *p = bdf; *p; p++)
		if (*p == ':')
			*p = '-';   /* FAT names have no ':' */
	snprintf(dir, sizeof(dir), "%s/%s", w->o.data_dir, TRACES_DIR);
	snprintf(path, sizeof(path), "%s/%s-%s-%s.trace", dir, stamp, action, bdf);
	snprintf(cmd, sizeof(cmd), "cxflash rescue: %s %s", action, w->cards[card].ci.pci.bdf);
	if (mkdir(dir, 0777) && errno != EEXIST) {
		wiz_say(w, "WARNING: no trace of this write: cannot make %s", dir);
		return false;
	}
	if (device_trace_record(path, cmd, &st)) {
		wiz_say(w, "WARNING: no trace of this write: %s", st.msg);
		return false;
	}
	journal_log(&w->j, "recording this write's register accesses into %s", path);
	return true;
}

void wiz_trace_end(struct wizard *w, bool *traced)
{
	struct cx_status st = {0};

	if (!*traced)
		return;
	*traced = false;
	if (device_trace_end(CX_OK, &st))
		wiz_say(w, "WARNING: the trace of this write is incomplete: %s", st.msg);
}
