/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devimage_fs3.h — the FS3/FS4 image a ConnectX-4/4 Lx/5 card holds, read from its flash.
 *
 * A card's flash is 16 MiB or more and its image a few MiB at most, so it is not read
 * whole: devfs3_read*() read what mstflint's query and verify read (fs3-format.md §8, §10,
 * §12): the first 64 bytes where an image may start (0 and each slot size from 1 to 8 MiB),
 * then what the parse asks for as it goes (image/fs3.h fs3_parse_need()): the FS3 header and
 * BOOT2, or the FS4 pointers, tools area, BOOT2 and hashes table; the ITOC's header and
 * entries up to the real end marker; the FS4 DTOC's; and the sections the read wants. The
 * result is a buffer as large as the flash with 0xFF where nothing was read, which
 * image/fs3.h parses as the dump of a whole flash: what q, v and ri show is what they show
 * for a dump.
 *
 * What was read is kept track of in grains: v's are 4 KiB (a flash sector: everything v
 * checks, in the units it always read); q's and a burn's the transport's own read block
 * (16 bytes through the gateway, 256 through MFBA: flash_read_block()), so no transaction
 * is made twice and hardly a byte is read that the parse does not look at.
 */
#ifndef CX_DEVIMAGE_FS3_H
#define CX_DEVIMAGE_FS3_H

#include <stdint.h>

#include "image/fs3.h"
#include "ops/devimage.h"

struct devfs3 {
	uint8_t *flash;          /* size bytes: what was read, 0xFF elsewhere (malloc'd) */
	uint32_t size;
	uint32_t grain;          /* bookkeeping unit, a power of two up to 4 KiB */
	uint8_t *got;            /* one byte per grain: 1 once read */
	uint64_t bytes_read;
	struct fs3_image img;    /* parsed from flash (points into it) */
	/* The start of a second image with a magic (DEVFS3_NONE: none). A failsafe burn cut
	 * between its new magic and the old magic's zeroing leaves two (fs3-format.md §11.3).
	 * FS4: the reader takes the whole one the boot ROM boots and reads the other's first
	 * dword as zeros, as the burn would have left it: flash differs from the card there.
	 * FS3: the parser takes the first, as mstflint; the other is only noted here. */
	uint32_t set_aside;
};
#define DEVFS3_NONE 0xFFFFFFFFu

/* Read and parse: everything v checks (BOOT2 whole, every section), in 4 KiB grains. The
 * parse's own verdict is its return code: CX_EIMAGE with its line when no image is found or
 * its structure is broken (d->flash stays for a dump). */
int devfs3_read(struct devfs3 *d, flash_read_fn rd, void *ctx, uint32_t size, struct cx_status *st);

/* The same, but only what a quick query reads (FS3_READS_QUERY, as mstflint's q: BOOT2's size,
 * the sections of fs3_query_reads()), in grains of grain bytes (the transport's read block; a
 * power of two up to 4 KiB, else 4 KiB): the rest reads as 0xFF, so only fs3_verdict_query()
 * means anything. */
int devfs3_read_query(struct devfs3 *d, flash_read_fn rd, void *ctx, uint32_t size, uint32_t grain,
		      struct cx_status *st);

/* The same, and the device data too (every device section, the FS4 DTOC's): what a burn
 * judges the card by (image/fs3_burnimg.h: the card's query and its device data). */
int devfs3_read_burn(struct devfs3 *d, flash_read_fn rd, void *ctx, uint32_t size, uint32_t grain,
		     struct cx_status *st);

/* Read [off, off + len) into d->flash if not read yet (whole grains). */
int devfs3_need(struct devfs3 *d, flash_read_fn rd, void *ctx, uint32_t off, uint32_t len, struct cx_status *st);

void devfs3_free(struct devfs3 *d);

#endif
