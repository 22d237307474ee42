/* SPDX-License-Identifier: GPL-2.0-or-later */
/* imgfile.h — an FS2 image file, released (contiguous) or a raw flash dump.
 *
 * A released .bin is the contiguous image from offset 0. A raw flash dump
 * (`--striped_image`) holds the image zebra-striped in slot 0 or slot 1
 * (fs2-format.md §1.5): imgfile_open() finds it, copies its contiguous bytes
 * out, and imgfile_save() puts patched bytes back in the same slot, leaving
 * every other byte of the dump as it was.
 */
#ifndef CX_IMGFILE_H
#define CX_IMGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/fs2.h"

#define IMGFILE_MAX (64u << 20) /* twice the largest flash, §1.1: refuse anything bigger */

struct imgfile {
	const char *path;
	uint8_t *raw;          /* the file as read */
	size_t raw_len;
	bool striped;
	unsigned slot;         /* striped: 0 or 1 */
	unsigned log2chunk;    /* striped: chunk of the dump */
	uint32_t start;        /* physical start of the image */
	uint8_t *cont;         /* contiguous image bytes (== raw when not striped) */
	size_t cont_len;
	struct fs2_image img;  /* parsed from cont */
};

/* Read and parse path. Even on failure, call imgfile_close(). */
int imgfile_open(struct imgfile *f, const char *path, bool striped, struct cx_status *st);

/* The same from a copy of len bytes at buf (tests and fuzzing); path is "(memory)". */
int imgfile_open_mem(struct imgfile *f, const uint8_t *buf, size_t len, bool striped,
		     struct cx_status *st);

/* Write f->cont back (through the zebra mapping when striped) over the file,
 * atomically. */
int imgfile_save(struct imgfile *f, struct cx_status *st);

void imgfile_close(struct imgfile *f);

#endif
