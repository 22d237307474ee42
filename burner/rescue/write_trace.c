/* SPDX-License-Identifier: GPL-2.0-or-later */
/* write_trace.c — the trace of each write the wizard makes (flows.h, ops/device_trace.h). */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "ops/device_trace.h"
#include "rescue/flows.h"
#include "util/utc.h"

#define TRACES_DIR "traces"   /* beside backups/ and logs/ in the data folder */

void wiz_trace_begin(struct wiz_write *x)
{
	struct wizard *w = x->w;
	char dir[512], path[640], stamp[UTC_STAMP_LEN], bdf[20], cmd[96];
	struct cx_status st = {0};
	time_t now = time(NULL);

	x->traced = false;
	if (!w->o.data_dir || !w->o.data_dir[0] || device_trace_active())
		return;   /* no data folder, or the whole wizard is recorded (cxflash --record) */
	utc_stamp_of(stamp, now, true);
	snprintf(bdf, sizeof(bdf), "%s", w->cards[x->card].ci.pci.bdf);
	for (char *p = bdf; *p; p++)
		if (*p == ':')
			*p = '-';   /* FAT names have no ':' */
	snprintf(dir, sizeof(dir), "%s/%s", w->o.data_dir, TRACES_DIR);
	snprintf(path, sizeof(path), "%s/%s-%s-%s.trace", dir, stamp, x->action, bdf);
	snprintf(cmd, sizeof(cmd), "cxflash rescue: %s %s", x->action, w->cards[x->card].ci.pci.bdf);
	if (mkdir(dir, 0777) && errno != EEXIST) {
		wiz_say(w, "WARNING: no trace of this write: cannot make %s", dir);
		return;
	}
	if (device_trace_record(path, cmd, &st)) {
		wiz_say(w, "WARNING: no trace of this write: %s", st.msg);
		return;
	}
	x->traced = true;
	journal_log(&w->j, "recording this write's register accesses into %s", path);
}

void wiz_trace_end(struct wiz_write *x)
{
	struct cx_status st = {0};

	if (!x->traced)
		return;
	x->traced = false;
	if (device_trace_end(CX_OK, &st))
		wiz_say(x->w, "WARNING: the trace of this write is incomplete: %s", st.msg);
}
