/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Builds a whole contiguous FS2 image; the zebra flash dump view of it. */
#ifndef MKFS2_LAYOUT_H
#define MKFS2_LAYOUT_H

#include <stdint.h>

#include "buf.h"
#include "map.h"
#include "mkfs2.h"

#define DDR_MAX		64
#define LOG2_CHUNK_BASE	16	/* §1.5: log2(chunk) = (fs word & 7) + 16 */
#define CHUNK_LOG_MAX	7

/* The contiguous image (what mlxburn would write), with its structure map. */
int build_image(const struct config *c, struct buf *img, struct map *m);

/* zebra.c: place the image in slot c->dump_slot of an all-0xFF flash dump. */
int build_dump(const struct config *c, const struct buf *img, struct buf *flash);

#endif
