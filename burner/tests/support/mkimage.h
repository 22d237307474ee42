/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mkimage.h — test helper: a synthetic FS2 image or flash dump from the project's
 * generator (build/host/mkfs2, or $CXR_BUILD/host/mkfs2), loaded into memory or
 * written to a file. mkfs2 failing (or missing) aborts the test process with the
 * command it ran. */
#ifndef CX_TEST_MKIMAGE_H
#define CX_TEST_MKIMAGE_H

#include <stddef.h>
#include <stdint.h>

/* Run mkfs2 with opts (its options, without -o) and return the file's bytes
 * (malloc'd; *len set). */
uint8_t *mkimage(const char *opts, size_t *len);

/* Run mkfs2 with opts (without -o) to write the file at path. */
void mkimage_file(const char *path, const char *opts);

/* Run mkfs2 with args as they are (no -o added: `--rom-only FILE ...`, say). */
void mkfs2_run(const char *args);

#endif
