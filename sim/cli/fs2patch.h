/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs2patch.h — the simulator's own small FS2 writer: patch identity, install into a flash, damage.
 *
 * Written from fs2-format.md alone and sharing no code with burner/ (or with the
 * model's boot ROM): it only has to put a contiguous .bin into a fresh card.
 */
#ifndef CXSIM_FS2PATCH_H
#define CXSIM_FS2PATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What to write into the image; NULL / false keeps the image's own value. */
struct fs2_identity {
	const char *psid;       /* IMAGE_INFO tag 4, at most 16 characters */
	const char *vsd;        /* IMAGE_INFO tag 5, at most the tag's length (208) */
	bool set_guid, set_mac;
	uint64_t guid;          /* entries 0..3 = guid .. guid+3 */
	uint64_t mac;           /* entries 4, 5 = mac, mac+1 (6-entry images only) */
};

/* Decode the FS info word at 0x28 (§1.5). 0, or -1 with err. */
int fs2_fs_info(const uint8_t *img, size_t len, bool *failsafe, unsigned *log2chunk,
		char *err, size_t errlen);

/* Patch img (a contiguous image of len bytes) in place and fix the GUID and
 * IMAGE_INFO section CRCs and the full-image CRC (§2.2, §3). 0, or -1 with err. */
int fs2_patch_identity(uint8_t *img, size_t len, const struct fs2_identity *id,
		       char *err, size_t errlen);

/* Damage the image so that no check can pass: flip bits in BOOT2's code (§1.3). */
int fs2_damage(uint8_t *img, size_t len, char *err, size_t errlen);

/* Copy img into flash: zebra-striped into slot when failsafe (§1.5), else at 0.
 * *start gets the physical start. 0, or -1 with err. */
int fs2_install(uint8_t *flash, size_t flash_size, const uint8_t *img, size_t len,
		unsigned slot, uint32_t *start, char *err, size_t errlen);

#endif
