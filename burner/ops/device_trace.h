/* SPDX-License-Identifier: GPL-2.0-or-later */
/* device_trace.h — the process's recording or replay of card sessions
 * (--record FILE, --replay FILE; the format: dev/trace_fmt.h).
 *
 * A front end chooses one before it opens any card; device_open() (device.h)
 * then records every card it opens, with a recorder in front of its config
 * space and BAR0 (dev/trace_write.h), or, replaying, opens no card at all and
 * answers from the recording (dev/trace_replay.h). The header goes in at the
 * first device open: cxflash's version, the kernel release, the lockdown
 * state, the command line, CXFLASH_ACCESS, and that card's BDF and PCI IDs;
 * each open adds an "open" note and, once the chip and flash are known, an
 * "ident" note. device_trace_end() closes the trace after the command.
 */
#ifndef CX_DEVICE_TRACE_H
#define CX_DEVICE_TRACE_H

#include <stdbool.h>

#include "dev/cfg.h"
#include "dev/crmem.h"
#include "dev/pci_enum.h"
#include "util/status.h"

struct device;

/* Record into path (created now, so that a bad path fails before any card is
 * touched); command: the command line, for the header. CXFLASH_TRACE_TIME=0
 * in the environment writes every time as 0 (trace_writer_open: reproducible
 * traces, tests/traces/). */
int device_trace_record(const char *path, const char *command, struct cx_status *st);

/* A recording or a replay is on (another cannot start). */
bool device_trace_active(void);

/* Replay from path: device_open() of the recorded BDF answers from it. */
int device_trace_replay(const char *path, struct cx_status *st);
bool device_trace_replaying(void);

/* Replaying: the PCI device ID the recording's header names (which card family the
 * command is for, before the card is opened); false if it names none. */
bool device_trace_device(uint16_t *device);

/* After the command, whose result is rc / *st: close the trace. A replay that
 * diverged (or was left unfinished) replaces the result with CX_EREPLAY and its
 * line: the command's own failure was its consequence. A recording that could
 * not be written completely turns a success into CX_EIO. */
int device_trace_end(int rc, struct cx_status *st);

/* device.c's hooks. Replaying: the recorded card for bdf, its config space
 * and BAR0 from the recording. Recording: recorders in front of cfg and mem
 * (nothing while neither is chosen). After the identification: its note. */
int device_trace_card(const char *bdf, struct pci_card *pci, struct cfg_dev *cfg, struct crmem *mem,
		      struct cx_status *st);
int device_trace_wrap(const struct pci_card *pci, struct cfg_dev *cfg, struct crmem *mem, struct cx_status *st);
void device_trace_ident(const struct device *d, int rc);

#endif
