/* SPDX-License-Identifier: GPL-2.0-or-later */
/* burn_fs3.h — putting an FS3/FS4 image on a ConnectX-4, 4 Lx or 5 card, failsafe, its
 * device data kept.
 *
 * burn_card() (burn.h) hands a card whose chip row says FS3 or FS4 (dev/chip.h) to
 * burn_fs3_card(), with the same options and result, so both front ends burn these
 * cards with the calls, questions, backup and progress they already give a burn. In
 * the write procedure's order (write_procedure.h):
 *
 *   check   a write-protected flash is refused before anything is read, unless --unprotect
 *           and a yes (then its block-protect bits are cleared just before the write, and
 *           after it a second question, default no, puts them back); the file parses
 *           and verifies (image/fs3.h); the options that would change a
 *           signed image or the device data are refused (--guid/--mac/--vsd, a ROM other
 *           than the image's own, --nofs); the card's image is read (ops/devimage_fs3.h)
 *           and image/fs3_burnimg.h judges the pair as mstflint 4.21 does (format, HW ID,
 *           slot and image size, the card's device data present and sound). A PSID change
 *           needs --allow_psid_change and a yes.
 *   plan    under the lock, the card read again and the burn built from those bytes; the
 *           card already running exactly that image: nothing to do.
 *   write   ops/failsafe_fs3.h through the card (device_io.h): body, magic, boot
 *           address, old magic. The device data (MFG_INFO, DEV_INFO, NV_DATA, VPD) is
 *           never written, so GUIDs, MACs, VSD and settings stay the card's.
 *   verify  what the writer's page-by-page read-back cannot prove: the card finds the new
 *           image at the target, whole as its query reads it, and no other (the old magic
 *           zeroed), and every device section reads byte for byte as before.
 *
 * A card whose flash holds no valid image, or whose device data is damaged, is refused:
 * putting device data back is a separate step: a lost DEV_INFO from the sticker (sg,
 * ops/setid_fs3.h), or the card's backup bundle with its device data (restore_fs3.h).
 */
#ifndef CX_BURN_FS3_H
#define CX_BURN_FS3_H

#include "ops/burn.h"

int burn_fs3_card(struct device *d, const uint8_t *img, size_t len, const struct burn_opts *o,
		  struct burn_result *r, struct cx_status *st);

/* Refused (CX_EUNSUPPORTED, one line) when d runs secure firmware (MGIR fw_info.secured):
 * its flash takes writes only through its own signed update (MCC); CX_OK otherwise, and on a
 * card in recovery mode. sg (setid_fs3.h) refuses the same cards the same way. */
int burn_fs3_refuse_secure_fw(struct device *d, struct cx_status *st);

#endif
