/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devimage.h — the image a card holds, read out of its flash.
 *
 * Like flint's `ri` (fs2-format.md §3.4): find the images at the FS2 start
 * positions, take the lowest, learn its length by walking only the headers
 * (boot record, BOOT2 sizes, section headers) through the zebra translation,
 * then read [0, end of the last section) as one contiguous image and parse it
 * with the file parser. Flash is reached through a read callback, so this
 * works the same on a card, a simulated card and a dump in memory.
 */
#ifndef CX_DEVIMAGE_H
#define CX_DEVIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/fs2.h"

/* Read len bytes of flash at physical addr. */
typedef int (*flash_read_fn)(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len,
			     struct cx_status *st);

struct dev_image {
	int nstarts;
	uint32_t starts[2];     /* physical starts of the images found (at most 2) */
	uint32_t start;         /* the one read: the lowest, as flint */
	unsigned slot;
	bool failsafe;
	unsigned log2chunk;
	uint8_t *buf;           /* contiguous image, [0, img.last_addr) */
	size_t len;
	struct fs2_image img;   /* parsed from buf */
	int parse_rc;           /* fs2_parse's result; img is partial when non-zero */
	char parse_msg[CX_MSG_MAX];
};

/* Find and read the image. npos = start positions to search (6 on CX2, §3.11).
 * Returns CX_OK when an image was found and read, even if it then fails to
 * parse (see parse_rc); CX_EIMAGE when no image can be found or walked. */
int devimage_read(struct dev_image *d, flash_read_fn rd, void *ctx, uint32_t flash_size,
		  unsigned npos, struct cx_status *st);

void devimage_free(struct dev_image *d);

#endif
