/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zebra.h — the failsafe ("zebra") address translation (fs2-format.md §1.5).
 *
 * A failsafe flash holds two image slots interleaved chunk by chunk: slot 0 in
 * the even chunks, slot 1 in the odd ones. A contiguous address inside one
 * image maps to a physical flash address by inserting the slot bit at bit
 * position log2chunk and shifting the rest of the address left by one.
 */
#ifndef CX_ZEBRA_H
#define CX_ZEBRA_H

#include <stdbool.h>
#include <stdint.h>

#define ZEBRA_LOG2CHUNK_MIN 16 /* 64 KiB: FS info word bits 2:0 add to this, §1.5 */
#define ZEBRA_LOG2CHUNK_MAX 23 /* 8 MiB */

/* Contiguous address in slot 'slot' (0 or 1) → physical address. */
uint32_t zebra_cont2phys(uint32_t cont, unsigned log2chunk, unsigned slot);

/* The physically contiguous pieces of contiguous [off, off + len) of one slot, in order:
 *   for (zebra_walk_begin(&w, ...); w.n; zebra_walk_next(&w))  ... w.phys, w.done, w.n ...
 * A piece is w.n bytes at physical w.phys, w.done bytes into the range. On a flash that is not
 * failsafe the slot is one piece at start + off; on a failsafe one a piece never crosses a chunk. */
struct zebra_walk {
	bool failsafe;
	unsigned log2chunk, slot;
	uint32_t start, cont, left; /* where the next piece starts, and what is left after it */
	uint32_t phys, done, n;     /* this piece; n == 0 when the range is done */
};
void zebra_walk_begin(struct zebra_walk *w, bool failsafe, unsigned log2chunk, unsigned slot, uint32_t start,
		      uint32_t off, uint32_t len);
void zebra_walk_next(struct zebra_walk *w);

/* Physical address → contiguous address; *slot receives the slot it is in. */
uint32_t zebra_phys2cont(uint32_t phys, unsigned log2chunk, unsigned *slot);

#endif
