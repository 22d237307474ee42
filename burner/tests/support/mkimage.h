/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mkimage.h — test helper: a synthetic FS2 image or flash dump from the project's
 * generator (build/host/mkfs2, or $CXR_BUILD/host/mkfs2), loaded into memory. */
#ifndef CX_TEST_MKIMAGE_H
#define CX_TEST_MKIMAGE_H

#include <stddef.h>
#include <stdint.h>

/* Run mkfs2 with opts (its options, without -o) and return the file's bytes
 * (malloc'd; *len set). Aborts the test process if mkfs2 fails. */
uint8_t *mkimage(const char *opts, size_t *len);

#endif
