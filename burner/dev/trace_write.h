/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_write.h — recording every access to a card into a trace file (--record).
 *
 * The format is trace_fmt.h's. A recorder is an access method that forwards to
 * the real one and logs: trace_record_cfg() puts one in front of an opened
 * cfg_dev, trace_record_mem() in front of a BAR0 mapping, so nothing above the
 * dev layer knows it is being recorded. Each record is encoded when the access
 * is made (a read once its value is known) and the stream is flushed every
 * TR_FLUSH_BYTES, every TR_FLUSH_MS and at every note: a crash or kill loses at
 * most that much. Write errors (a full stick) do not stop the work on the card:
 * the writer stops writing and trace_writer_close() says so.
 *
 * One writer per process; every device opened while it is set writes into it.
 */
#ifndef CX_TRACE_WRITE_H
#define CX_TRACE_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "dev/cfg.h"
#include "dev/crmem.h"
#include "dev/trace_fmt.h"
#include "util/status.h"

struct trace_writer;

/* Create path (truncating it) for a new trace. Without timestamps every time
 * is 0 and the stream is flushed only by size and at notes: the same session
 * then makes the same file, byte for byte (the committed test traces). */
int trace_writer_open(struct trace_writer **w, const char *path, bool timestamps, struct cx_status *st);

/* The magic and the header lines ("key=value\n" each, no empty line); at most
 * once, before the first record (a record written first gets an empty header). */
void trace_write_header(struct trace_writer *w, const char *lines);
bool trace_has_header(const struct trace_writer *w);

void trace_write_access(struct trace_writer *w, enum tr_kind kind, uint32_t off, uint32_t val, bool failed);
void trace_write_sleep(struct trace_writer *w, unsigned us);
/* A note of at most TR_NOTE_MAX bytes (longer is cut); flushes. */
void trace_write_note(struct trace_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The "end" note, then close. CX_OK, or CX_EIO if any part could not be written. */
int trace_writer_close(struct trace_writer *w, struct cx_status *st);

/* Put a recorder in front of d / m (which it then owns: closing the recorder
 * closes them). m without ops is left alone. */
int trace_record_cfg(struct cfg_dev *d, struct trace_writer *w, struct cx_status *st);
int trace_record_mem(struct crmem *m, struct trace_writer *w, struct cx_status *st);

#endif
