/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devimage.h — the image a card holds, read out of its flash.
 *
 * Like flint's `ri` (fs2-format.md §3.4): find the images at the FS2 start
 * positions, take the lowest, learn its length by walking only the headers
 * (boot record, BOOT2 sizes, section headers) through the zebra translation,
 * then read [0, end of the last section) as one contiguous image and parse it
 * with the file parser. Flash is reached through a read callback, so this
 * works the same on a card, a simulated card and a dump in memory.
 *
 * A burn needs much less than the whole image to decide (ops/burn.c):
 * devimage_read_meta() reads what the boot ROM and flint read to find and
 * walk an image (the signatures, the boot record, the BOOT2 headers and
 * every section header, through the zebra translation) plus the two
 * sections a burn's checks and identity come from (GUID, IMAGE_INFO): 2.5 KiB
 * of flash reads for the 0.96 MiB image of make bench, against 0.87 s for
 * all of it. devimage_same() then compares the card's image
 * with another, byte for byte as read from the flash, and stops at the first
 * 16 bytes that differ; it never decides from stored CRCs or versions.
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

/* A flash already in memory (a dump, or a card read whole) as a flash_read_fn:
 * ctx is a struct devimage_mem; a range outside it is CX_EIMAGE. */
struct devimage_mem {
	const uint8_t *buf;
	uint32_t size;
};
int devimage_mem_read(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len, struct cx_status *st);

/* The ranges devimage_read_meta() reads: the boot record, two BOOT2 headers,
 * at most FS2_MAX_SECTIONS section headers and the two sections read whole. */
#define DEVIMAGE_MAX_KNOWN (FS2_MAX_SECTIONS + 5)

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

	uint32_t slot_limit;    /* contiguous bytes the image's slot can hold */
	/* devimage_read_meta(): only these ranges of buf (contiguous offsets,
	 * ascending but for the GUID and IMAGE_INFO sections at the end) were read;
	 * the other bytes are 0, so img's checksums and ROM info mean nothing. */
	bool meta;
	int nknown;
	struct devimage_range {
		uint32_t off, len;
	} known[DEVIMAGE_MAX_KNOWN];
};

/* Find and read the image. npos = start positions to search (6 on CX2, hw-access.md §3.11).
 * Returns CX_OK when an image was found and read, even if it then fails to
 * parse (see parse_rc); CX_EIMAGE when no image can be found or walked. */
int devimage_read(struct dev_image *d, flash_read_fn rd, void *ctx, uint32_t flash_size,
		  unsigned npos, struct cx_status *st);

/* The same search and walk, but only the ranges described above are read
 * (d->meta). img's structure, GUIDs and IMAGE_INFO are the card's; the other
 * items are marked unread (fs2.h) and its ROM info is not the card's: not for
 * `v` or a backup. Returns as devimage_read(). */
int devimage_read_meta(struct dev_image *d, flash_read_fn rd, void *ctx, uint32_t flash_size,
		       unsigned npos, struct cx_status *st);

/* What `q`, `list` and the wizard's inventory show, and no more: the meta read,
 * then the sections `show` names whole: DEVIMAGE_ROM (the ROMs' versions and
 * checksum), as flint's query reads its ROM section (Fs2IntQuery's
 * initSectToRead(H_ROM), mstflint fs2_ops.cpp), and DEVIMAGE_INI (FW_CONF, the
 * board .ini a match compares). img is parsed again with them; every item not
 * read whole is marked unread (fs2.h), so fs2_verdict() judges what was read.
 * Never a source of bytes to write: the rest of buf is zeros. */
#define DEVIMAGE_ROM 1u
#define DEVIMAGE_INI 2u
int devimage_read_shown(struct dev_image *d, flash_read_fn rd, void *ctx, uint32_t flash_size,
			unsigned npos, unsigned show, struct cx_status *st);

/* Mark the items of img (parsed from d->buf or a copy of it) that d did not read
 * whole as unread. A whole read marks none. */
void devimage_mark_unread(const struct dev_image *d, struct fs2_image *img);

/* After devimage_read_meta(): read [off, off + len) of the image too (e.g. the
 * ROM section a burn carries over), into d->buf, and count it as known. A
 * whole read has every byte already: nothing to do. */
int devimage_read_more(struct dev_image *d, flash_read_fn rd, void *ctx, uint32_t off, uint32_t len,
		       struct cx_status *st);

/* The bytes d holds (every byte, or the ranges devimage_read_meta() read)
 * equal want's, and the image is len bytes long. No I/O. */
bool devimage_known_match(const struct dev_image *d, const uint8_t *want, size_t len);

/* *same = the image on the flash is exactly want (len bytes). A whole read
 * compares buf; a meta read first compares what it holds, then reads the
 * image from its start 16 bytes at a time, through the same translation,
 * and stops at the first block that differs. rd and ctx as for the read. */
int devimage_same(const struct dev_image *d, flash_read_fn rd, void *ctx, const uint8_t *want, size_t len,
		  bool *same, struct cx_status *st);

void devimage_free(struct dev_image *d);

#endif
