/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fileio.h — whole-file reads and crash-safe whole-file writes.
 *
 * A firmware file is small (a few MiB) and every command needs all of it, so
 * files are read into memory at once, with a size cap so a wrong path (a disk
 * device, say) is refused instead of exhausting memory. A file is replaced
 * only through a temporary file in the same folder, flushed and renamed over
 * it: an interrupted write leaves either the old file or the new one.
 */
#ifndef CX_FILEIO_H
#define CX_FILEIO_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

/* Read all of path (at most max bytes) into a malloc'd *buf. */
int file_read(const char *path, size_t max, uint8_t **buf, size_t *len, struct cx_status *st);

/* Replace path with len bytes, atomically; keeps the old file's mode. */
int file_replace(const char *path, const uint8_t *buf, size_t len, struct cx_status *st);

/* Write len bytes to path ("-" is standard output), creating or truncating it. */
int file_write(const char *path, const uint8_t *buf, size_t len, struct cx_status *st);

#endif
