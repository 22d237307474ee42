/* SPDX-License-Identifier: GPL-2.0-or-later */
/* failsafe.h — the order of a failsafe burn (fs2-format.md §4.2, hw-access.md §4.3).
 *
 * The new image goes into the slot the card is not running from: first its
 * body (everything but the 16-byte magic), then the magic, then the boot
 * address register, and only then is the old image's magic overwritten with
 * zeros. A power cut at any instant leaves at least one complete image whose
 * magic is intact. The flash is reached through struct failsafe_io so the
 * sequence can be driven against a card, the in-process model (power-cut
 * campaigns) or plain memory.
 */
#ifndef CX_FAILSAFE_H
#define CX_FAILSAFE_H

#include <stdbool.h>
#include <stdint.h>

#include "util/status.h"

struct failsafe_io {
	/* Make [phys, phys+len) hold want; the writer decides what to erase. */
	int (*write)(void *ctx, uint32_t phys, const uint8_t *want, uint32_t len, struct cx_status *st);
	int (*read)(void *ctx, uint32_t phys, uint8_t *buf, uint32_t len, struct cx_status *st);
	/* Boot address register (0xf0000 = start << 8, hw-access.md §4.4); may be NULL. */
	int (*set_boot_addr)(void *ctx, uint32_t start, struct cx_status *st);
	void (*phase)(void *ctx, const char *name); /* progress: may be NULL */
	void *ctx;
};

struct failsafe_plan {
	uint32_t flash_size;
	unsigned log2chunk;        /* of the new image (failsafe: its slots' chunk) */
	bool failsafe;             /* the new image is failsafe */
	bool have_current;         /* the card has a valid image */
	uint32_t current_start;    /* ... at this physical start */
	unsigned npos;             /* start positions to search for stale magics (6 on CX2) */
	bool nofs;                 /* flint's -nofs: always the first slot, even over the running image */
};

/* Where the new image goes: the other slot, or slot 1 when nothing is valid (flint);
 * slot 0 for a non-failsafe image or nofs. */
uint32_t failsafe_target(const struct failsafe_plan *p);

/* Burn img (len bytes, contiguous) per the plan. On success *start is where it went. */
int failsafe_burn(const struct failsafe_io *io, const struct failsafe_plan *p, const uint8_t *img,
		  uint32_t len, uint32_t *start, struct cx_status *st);

#endif
