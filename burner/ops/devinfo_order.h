/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devinfo_order.h — the order in which `sg` gives an FS3/FS4 card a new DEV_INFO, so that at
 * every instant the card boots and has a DEV_INFO that is whole (fs3-format.md §6.7).
 *
 * What to write comes from image/fs3_devinfo.h (the bytes, the target, what to zero) and, on
 * FS3, from image/fs3_burnimg.h (the card's own image again, its ITOC naming the target). The
 * card is written only through struct failsafe_io (ops/failsafe.h), so the same order runs
 * against a card (device_io.h) and against memory in the power-cut tests.
 *
 * FS4 (ConnectX-5): the DTOC lists two DEV_INFO places and does not change; the one whose
 * signature and CRC are right is the one in use. So:
 *   1. the new DEV_INFO at the target, whole, its 16-byte signature left 0xFF (erased): until
 *      step 2 the target has no signature, and every reader (mstflint's verifyTocEntries, ours,
 *      and by the same rule the firmware, UNCONFIRMED) passes over it. The old one is
 *      untouched: a cut here leaves the old identity;
 *   2. the signature, 16 bytes programmed over 0xFF (no erase): only now can the new one be
 *      taken, and its body was read back whole before. A cut inside the program leaves a
 *      signature that does not match: still the old one;
 *   3. the first dword of every other signed DEV_INFO (the old one) zeroed, as mstflint's
 *      UpdateSection does: from step 2 to here two whole DEV_INFO are signed (old and new GUIDs
 *      both whole; mstflint's verify says "Two DEV_INFO" until a retry of sg finishes, which
 *      takes the first whole one as the old and writes the other). Zeroing, not erasing: a
 *      program needs no erase, so the old copy is never half gone.
 *
 * FS3 (ConnectX-4, 4 Lx): the ITOC names the one DEV_INFO in use, and carries its CRC; the
 * ITOC lives in the image slot, where a rewrite in place would not be failsafe (a cut in the
 * erase of its sector leaves no ITOC: no image boots). mstflint moves the ITOC one sector on
 * and zeroes the old one (reburnItocSection), relying on the firmware to search for it
 * (UNCONFIRMED); cxflash instead burns the card's own image again, failsafe, into the other
 * slot with the DEV_INFO entry changed, as setid.h re-burns an FS2 card:
 *   1. the new DEV_INFO at the target (the place the ITOC does not name), whole: no image
 *      names it yet, so a cut leaves the old image with the old DEV_INFO;
 *   2. the re-burn (failsafe_fs3.h): body, magic, boot address, old magic. Until the new
 *      magic is whole the card boots the old image (old DEV_INFO); after it the new one (new
 *      DEV_INFO, written and read back in step 1). The old DEV_INFO is left as it is (as
 *      mstflint leaves it): no image names it any more, and while both magics are whole
 *      (between the new magic and the old one zeroed) the first image, which may be the old
 *      one, still uses it.
 * The re-burn's writes are refused on both DEV_INFO places (fs3_burn.dev lists them).
 */
#ifndef CX_DEVINFO_ORDER_H
#define CX_DEVINFO_ORDER_H

#include "image/fs3_burnimg.h"
#include "image/fs3_devinfo.h"
#include "ops/failsafe.h"

/* Write p (and on FS3 the re-burn b, prepared from the flash fs3_devinfo_repoint() made) in the
 * order above. The first failure stops it and is returned. */
int devinfo_order_write(const struct failsafe_io *io, const struct fs3_devinfo_plan *p, const struct fs3_burn *b,
			struct cx_status *st);

#endif
