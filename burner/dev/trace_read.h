/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_read.h — reading a trace file (the format: trace_fmt.h).
 *
 * The reader gives the header's keys and then one record at a time; a file cut
 * short (a crash, a kill) reads as its last flushed records followed by the
 * end of the data, which trace_reader_complete() tells apart from a trace that
 * reached its "end" note. A file that is not a trace, or whose records or
 * compressed data are damaged, is CX_EIMAGE with one line saying where.
 */
#ifndef CX_TRACE_READ_H
#define CX_TRACE_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "dev/trace_fmt.h"
#include "util/status.h"

struct trace_reader;

int trace_reader_open(struct trace_reader **r, const char *path, struct cx_status *st);
/* The header's value of key, or NULL. */
const char *trace_header(const struct trace_reader *r, const char *key);
/* 1 and the next record in *rec; 0 at the end of the data; -1 with *st filled. */
int trace_reader_next(struct trace_reader *r, struct tr_rec *rec, struct cx_status *st);
/* The data ended with the "end" note (else it was cut short). */
bool trace_reader_complete(const struct trace_reader *r);
void trace_reader_close(struct trace_reader *r);

/* The value of key in a note's "word key=value ..." text, into out; false if absent. */
bool trace_note_value(const char *note, const char *key, char *out, size_t outlen);

#endif
