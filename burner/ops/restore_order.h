/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore_order.h — making a whole flash equal a saved copy without an unbootable moment.
 *
 * A restore writes a backup's flash.bin back raw: both slots, the bytes
 * between and after the images, everything. Written plainly, in address
 * order, a power cut while the running image's sectors are being rewritten
 * leaves a card with no whole image: a brick. rewrite_flash() orders the same
 * bytes so that at every instant the lowest start position that holds the FS2
 * magic begins a whole image (what flint and the boot ROM take, fs2-format.md
 * §1.1, §4.2):
 *
 *  - The flash is cut into regions, one per start position where the current
 *    flash (have) or the target (want) holds a magic, each running to the next
 *    such position; bytes before the first are a plain gap.
 *  - Each region is written "signature last": if it holds a magic and will
 *    change, that magic's first dword is zeroed first (a program, no erase,
 *    as failsafe.c invalidates an old image); then every byte but the magic;
 *    then the magic, if the target has one there.
 *  - The region holding the target's boot image (want's lowest magic, call it
 *    B) goes first, so every later region is written while B is whole.
 *  - If B is the image the card runs from now and any byte of its slot (its
 *    chunks, fs2-format.md §1.5: not only B's region) has to change, there is
 *    no other whole image while it is rewritten. Two ways out, the cheaper
 *    first:
 *     - used_old: the target's other slot holds the image an earlier
 *       failsafe burn left there, whole but for its magic's first dword
 *       (zeroed, §4.2 step 4), with the same GUIDs and MACs. Its chunks are
 *       made equal the target, its magic put back last; B's magic is cleared,
 *       so the card runs from that older image while B's slot is rewritten;
 *       B's magic comes back, then the older image's is zeroed again. Beyond
 *       the units that differ this costs the two erase units holding the
 *       magics. A power cut in between leaves the card booting the older
 *       image: whole and the card's, but not the bundle's, so run again.
 *     - used_copy: otherwise a copy of the target's image is first burned
 *       failsafe into the other slot (failsafe.h: body, magic, boot address,
 *       old magic cleared), the card runs from the copy while B's region is
 *       rewritten, and the copy's region is then written like any other (its
 *       magic cleared first): about twice the image in erases and programs.
 *    Only failsafe images have another slot; a non-failsafe one is rewritten
 *    in place and the caller is told (not_failsafe) so it can say so first.
 *  - The boot address register is set to B at the end (hw-access.md §4.4).
 *
 * When want holds no image at all (a backup of a blank or broken flash), the
 * bytes are written in address order and no_image is set: the caller must
 * have asked, because the card will come up in recovery mode.
 *
 * The writes go through struct failsafe_io (its write makes a range hold
 * given bytes, reading and erasing as it needs), so the order is tested
 * against memory and the card model with power cuts.
 */
#ifndef CX_RESTORE_ORDER_H
#define CX_RESTORE_ORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/failsafe.h"

#define REWRITE_MAX_REGIONS 16

struct rewrite_plan {
	uint32_t size;                /* flash bytes: have and want are this long */
	unsigned npos;                /* start positions to consider (chip_desc.start_positions) */
	const uint8_t *have, *want;   /* the flash now (as read) and what it must become */
};

/* What rewrite_flash() found and did, for the caller's messages. */
struct rewrite_info {
	bool no_image;                /* want has no readable image: written in address order */
	bool not_failsafe;            /* want's image is not failsafe: its region is rewritten in place */
	bool identical;               /* have == want: nothing to write */
	bool used_copy;               /* the target image went through the other slot first */
	bool used_old;                /* the other slot's older image carried the card meanwhile */
	uint32_t boot_start;          /* want's lowest image (valid when !no_image) */
	uint32_t copy_start;          /* the other slot: the temporary copy, or the older image */
	int nregions;
	uint32_t region_start[REWRITE_MAX_REGIONS], region_end[REWRITE_MAX_REGIONS];
};

/* Look at have and want and say what rewrite_flash() will do; writes nothing. */
int rewrite_inspect(const struct rewrite_plan *p, struct rewrite_info *info, struct cx_status *st);

/* Make the flash equal want, in the order above. */
int rewrite_flash(const struct failsafe_io *io, const struct rewrite_plan *p, struct rewrite_info *info,
		  struct cx_status *st);

#endif
