/* SPDX-License-Identifier: GPL-2.0-or-later */
/* failsafe_fs3.h — the order of a failsafe burn of an FS3/FS4 image (fs3-format.md §11.2).
 *
 * What to write comes from image/fs3_burnimg.h (fs3_burn_prepare): the target
 * slot's bytes as extents, the card's old image start. The order is mstflint
 * 4.21's (BurnFs3Image, BurnFs4Image, Fs3Operations::DoAfterBurnJobs):
 *
 *   1. the body: every extent into the target slot, the first 16 bytes (the
 *      magic pattern) left 0xFF, so until step 2 the slot holds no image;
 *   2. the magic, 16 bytes at the slot's start;
 *   3. the boot address (set_boot_addr: the register is the io's business); a
 *      failure is only reported, as upstream warns and goes on;
 *   4. the old image's first dword (its "MTFW") zeroed: 4 bytes at its start.
 *
 * Nothing else is written: not the device data (checked again here against the
 * card's device sections), not the file's own DTOC or device sections, nothing
 * outside the target slot but those 4 bytes. A power cut at any instant leaves
 * the old image, or the new one, whole and with its magic (both, between steps 2
 * and 4: an FS4 flash then holds two images, which mstflint's query refuses to
 * read until the old magic is zeroed; see the section cited above).
 */
#ifndef CX_FAILSAFE_FS3_H
#define CX_FAILSAFE_FS3_H

#include <stdbool.h>

#include "image/fs3_burnimg.h"
#include "ops/failsafe.h"
#include "util/status.h"

struct failsafe_fs3_result {
	bool boot_addr_set;     /* false: the card boots the new image only after a power cycle */
	struct cx_status boot;  /* why not, when set_boot_addr failed */
};

/* Write b per the order above through io. The first failure of io->write stops it and is returned;
 * what is on the flash then is one whole image (old or new). res may be NULL. */
int failsafe_fs3_burn(const struct failsafe_io *io, const struct fs3_burn *b, struct failsafe_fs3_result *res,
		      struct cx_status *st);

#endif
