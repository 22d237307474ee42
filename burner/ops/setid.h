/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setid.h — flint's `sg` and `sv` on a card: new GUIDs/MACs or a new VSD.
 *
 * The caller reads the card's image with setid_read(), makes the new image
 * from a copy with image/patch.h (the very patch `sg`/`sv` apply to files),
 * shows it and asks; setid_write() then puts it on the card:
 *
 *  1. It checks that the new image differs from the card's only where the
 *     identity lives, the bytes flint's checksum masks as device data
 *     (fs2-format.md §3.3): 0x20 bits 15:0, the GUID section's entries and
 *     CRC, the VSD payload and the IMAGE_INFO CRC. Any other difference would
 *     be a firmware change, which is burn's job: refused, nothing written.
 *
 *  2. Blank GUIDs, in place, only with o->in_place (flint's Fs2SetGuidsForBlank,
 *     §3.4; cxflash re-burns failsafe by default, because a power cut in the
 *     in-place write left the card in recovery mode at 410 of 754 cut points in
 *     test_powercut.c, against "interrupted work leaves the card bootable"): when the
 *     card's GUIDs are blank, every changed byte can usually be programmed
 *     over the running image without an erase (0xFF becomes the value). Each
 *     changed run is read back from the flash and planned (ops/plan.h); only
 *     if no plan has an erase is anything written, the GUID section first and
 *     the full-image CRC at 0x20 last, as flint orders it. Like flint's, this
 *     write is not failsafe: a power cut during its few page programs can
 *     leave the GUID section half written, the card's image no longer
 *     verifies and it may come up in recovery mode. Running the same sg again
 *     finishes the job (the failsafe path below), and `burn` with --guid/--mac
 *     brings back a card in recovery mode.
 *
 *  3. Otherwise (GUIDs already set, a VSD change, or a CRC that would need an
 *     erase) a failsafe re-burn: burn_card() writes the new image into the
 *     slot the card is not running from, body first, signature last, then
 *     clears the old signature (ops/failsafe.h). The new image carries its
 *     identity already, so it is burned as is (use_image_guids and
 *     use_image_ps). It is the card's own firmware, so every guard passes; the
 *     one question burn_card() asks, "the card already has firmware X, burn
 *     it again?", is what sg/sv means, and is answered yes here.
 *
 * In both cases o->before_write (the caller's backup) runs after the last
 * check (a write-protected part is refused before it, CX_EPROTECTED) and
 * before the first byte is written, what was written is read back
 * and compared (burn_card()'s own checks; in place, every changed run), and
 * dry_run decides and reports without writing. A card in recovery mode has no identity to change:
 * setid_read() refuses it and points at burn.
 */
#ifndef CX_SETID_H
#define CX_SETID_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/write_procedure.h"
#include "ops/device.h"
#include "ops/write_region.h"

struct setid_opts {
	bool dry_run;
	/* Blank GUIDs: program them over the running image (flint's way) instead of the
	 * failsafe re-burn. Not failsafe (see 2. above), so only when asked: --in-place. */
	bool in_place;
	/* before_write: called once, after the checks and before the first write
	 * (the backup); progress (ops/write_procedure.h). Each may be NULL. */
	struct write_hooks hooks;
};

struct setid_result {
	bool in_place;               /* programmed over the running image (blank GUIDs) */
	bool nothing_to_do;          /* the card already holds the new image */
	uint32_t start;              /* where the image is now (physical) */
	uint64_t bytes_erased, bytes_programmed;
	struct write_outcome out;    /* the card's state after the write that ran (ops/write_procedure.h) */
};

/* Read the card's image for sg/sv. CX_EUNSUPPORTED for a card in recovery
 * mode, CX_EIMAGE when its image cannot be read or parsed. */
int setid_read(struct device *d, struct dev_image *cur, struct cx_status *st);

/* Make the card hold want (cur->len bytes), made from cur by changing its
 * identity only; see the top of this file. */
int setid_write(struct device *d, const struct dev_image *cur, const uint8_t *want,
		const struct setid_opts *o, struct setid_result *r, struct cx_status *st);

/* The whole of sg/sv on a card: setid_read(), a copy of the image changed by
 * patch (image/patch.h, as on a file), patch_check_result(), review (NULL: none;
 * the front end shows the change and asks, non-zero refuses), setid_write(). */
typedef int setid_patch_fn(void *ctx, uint8_t *buf, const struct fs2_image *img, struct cx_status *st);
typedef int setid_review_fn(void *ctx, const struct dev_image *cur, struct cx_status *st);
int setid_change(struct device *d, setid_patch_fn *patch, setid_review_fn *review, void *ctx,
		 const struct setid_opts *o, struct setid_result *r, struct cx_status *st);

#endif
