/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3_burnimg.h — what a failsafe burn of an FS3/FS4 file writes, and where
 * (fs3-format.md §11: "Burning: the failsafe order and the device data").
 *
 * Given the new file and the card's whole flash (as read, its image in slot 0
 * or slot 1), fs3_burn_prepare() makes every check mstflint 4.21 makes of the
 * two images before a legacy failsafe burn, and builds the bytes of the target
 * slot as mstflint writes them:
 *
 *   - the target is the slot the card does not run from (fs3_burn_target());
 *   - FS3: every device-data entry of the file's ITOC is replaced, all 32 bytes
 *     and so its entry CRC too, by the card's entry of the same type
 *     (UpdateDevDataITOC), so the new image lists the card's MFG_INFO,
 *     DEV_INFO, NV_DATA, VPD ... where they already are on the flash;
 *   - FS4: the image is used unchanged: the card's DTOC, in the flash's last
 *     4 KiB, lists the device data; the file's own DTOC and device sections are
 *     never written (BurnFs4Image writes them only with -ignore_dev_data);
 *   - what is written is a list of extents, slot-relative: the image head up to
 *     and including the ITOC's 4 KiB, then each firmware section, as mstflint
 *     writes them. Bytes between extents are not written. No extent reaches a
 *     device section of the card (checked here, and again by the writer).
 *
 * The writer (ops/failsafe_fs3.h) then writes body, magic, boot address, old
 * magic, and the op checks the result (ops/burn_fs3.c). Nothing here touches a
 * card: every input is a buffer.
 *
 * Use, by the op that burns a card (under its lock):
 *
 *   read the whole flash;  fs3_burn_prepare(file, flash, &id, &b, &st);
 *   the guard: b.psid_change, version policy;  failsafe_fs3_burn(&io, &b, &res, &st);
 *   read the card again and check it (ops/burn_fs3.c verify);  fs3_burn_free(&b);
 */
#ifndef CX_FS3_BURNIMG_H
#define CX_FS3_BURNIMG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/fs3.h"
#include "util/status.h"

#define FS3_MAGIC_LEN 16            /* FS3_FW_SIGNATURE_SIZE: the magic pattern, written last, §11.2 */
#define FS3_INVALIDATE_LEN 4        /* DoAfterBurnJobs zeroes one dword of the old magic, §11.2 */
#define FS3_BURN_MAX_EXTENTS (FS3_MAX_TOCS + 1) /* the head, and one per ITOC section */

/* The card, as the caller knows it from its registers (not from its flash). */
struct fs3_card_id {
	uint32_t hw_id;   /* HW device ID (0x209 CX4, 0x20b CX4 Lx, 0x20d CX5); 0: not checked */
	uint32_t rev_id;  /* its revision, compared with bits [23:16] of supported_hw_id, §11.1 */
};

/* [off, off+len) of the target slot, relative to its start. */
struct fs3_extent {
	uint32_t off, len;
};

/* A device section of the card: the one part of the flash a burn never writes. */
struct fs3_devrange {
	uint8_t type;        /* section type; 0xfe for the FS4 DTOC itself */
	uint32_t off, len;   /* physical */
};

struct fs3_burn {
	enum fs3_fmt fmt;
	unsigned log2_slot;
	uint32_t slot_size;
	uint32_t flash_size;
	uint32_t target;        /* physical start of the slot written */
	uint32_t old_start;     /* physical start of the card's image: its magic is zeroed last */
	uint8_t *slot;          /* [0, len): the target slot's new bytes (heap; fs3_burn_free) */
	uint32_t len;           /* end of the last extent */
	struct fs3_extent ext[FS3_BURN_MAX_EXTENTS]; /* sorted, merged; ext[0].off == 0 */
	int next;
	struct fs3_devrange dev[2 * FS3_MAX_TOCS + 1]; /* the card's device sections */
	int ndev;
	int replaced;           /* FS3: ITOC entries that became the card's */
	bool psid_change;       /* IMAGE_INFO PSIDs differ: the caller's guard decides */
	char card_psid[17], file_psid[17];
};

/* Where a failsafe burn puts the new image (getNewImageStartAddress): slot 0 when the card runs
 * from elsewhere, else slot 1 (1 << log2_slot). With no image on the card (current_start 0) that
 * is slot 1, as `-nofs` does; a failsafe burn is refused then (fs3_burn_prepare). */
uint32_t fs3_burn_target(uint32_t current_start, unsigned log2_slot);

/* Check the file against the card and build *b. CX_EIMAGE: the file is not a valid FS3/FS4 image,
 * or the card's image or device data is missing or damaged; CX_EMISMATCH: the file does not fit
 * the card (format, HW ID, slot size, image size, a device section in the way, an inconsistent
 * device entry); CX_EUNSUPPORTED: a layout mstflint handles in ways we do not (8 MB shifting, an
 * absolute firmware section); CX_ENOMEM. On failure *b holds nothing to free. */
int fs3_burn_prepare(const uint8_t *file, size_t file_len, const uint8_t *flash, size_t flash_len,
		     const struct fs3_card_id *id, struct fs3_burn *b, struct cx_status *st);

void fs3_burn_free(struct fs3_burn *b);


/* Internal to fs3_burnimg*.c: the extents and the FS3 ITOC rewrite (fs3_burnimg_itoc.c). */
int fs3_burn_build(const struct fs3_image *file, const struct fs3_image *card, struct fs3_burn *b,
		   struct cx_status *st);

#endif
