/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_replay.h — cxflash run against a trace with no card at all (--replay FILE).
 *
 * The replay is an access method, like sysfs (cfg.h, crmem.h): each read is
 * answered with the recorded value, each write and sleep is compared with the
 * recorded one, and the first access that differs in kind, offset or written
 * value (or comes where the recording has none) ends the replay: it and every
 * later access fail, nothing is "written", and trace_replay_finish() returns
 * CX_EREPLAY with one line naming the access (number, offset, recorded and
 * actual). A command that ends before the recording does is a divergence too.
 */
#ifndef CX_TRACE_REPLAY_H
#define CX_TRACE_REPLAY_H

#include <stdbool.h>

#include "dev/cfg.h"
#include "dev/crmem.h"
#include "dev/pci_enum.h"
#include "dev/trace_read.h"
#include "util/status.h"

struct trace_replay;

int trace_replay_open(struct trace_replay **rp, const char *path, struct cx_status *st);
const struct trace_reader *trace_replay_reader(const struct trace_replay *rp);

/* The recording's next device open, which must be of bdf: *pci from its note,
 * and *cfg (and *mem, if the recording had a BAR0 mapping) answered from the
 * recording. Closing cfg checks that the recording closes the card there too. */
int trace_replay_card(struct trace_replay *rp, const char *bdf, struct pci_card *pci, struct cfg_dev *cfg,
		      struct crmem *mem, struct cx_status *st);

/* After the command: CX_OK when it made every recorded access and no other;
 * CX_EREPLAY with the first divergence otherwise. Frees rp. */
int trace_replay_finish(struct trace_replay *rp, struct cx_status *st);

#endif
