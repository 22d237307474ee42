/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fileio.h — whole-file reads and hashes, and crash-safe whole-file writes.
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

#include "util/sha256.h"
#include "util/status.h"

/* Read all of path (at most max bytes) into a malloc'd *buf. */
int file_read(const char *path, size_t max, uint8_t **buf, size_t *len, struct cx_status *st);

/* SHA-256 of all of path, a regular file, read in pieces so that its size
 * does not matter (nothing is held but one piece); *size = its length. */
int file_sha256(const char *path, uint8_t digest[SHA256_LEN], uint64_t *size, struct cx_status *st);

/* Replace path with len bytes, atomically; keeps the old file's mode. */
int file_replace(const char *path, const uint8_t *buf, size_t len, struct cx_status *st);

/* The same, and on the disk when it returns: the new file and its folder are
 * fsync'd too, so a power cut after it leaves the new file under its name. */
int file_replace_synced(const char *path, const uint8_t *buf, size_t len, struct cx_status *st);

/* Write len bytes to path ("-" is standard output), creating or truncating it. */
int file_write(const char *path, const uint8_t *buf, size_t len, struct cx_status *st);

/* Write all len bytes to fd, going on after short writes and EINTR. 0, or -1
 * with errno (EIO when the kernel takes nothing). */
int fd_write_all(int fd, const void *buf, size_t len);

/* "dir/name" into out[n]; CX_EIO ("path too long: dir/name") if it does not fit. */
int path_join(char *out, size_t n, const char *dir, const char *name, struct cx_status *st);

/* fsync the folder dir, so that a new entry or a rename in it survives a power
 * cut. File systems that cannot flush a folder say EINVAL or ENOTSUP: there is
 * nothing more to do, and that counts as done. 0, or -1 with errno. */
int dir_sync(const char *dir);

#endif
