/* SPDX-License-Identifier: GPL-2.0-or-later */
/* patch.h — changing an image's identity fields in memory (fs2-format.md §3.1, §3.3).
 *
 * Each patch writes the new value, recomputes the CRC of the section it
 * touched and then the full-image CRC at 0x20, exactly as flint does before a
 * burn. The caller re-parses and verifies the result before it is written
 * anywhere. The buffer must be the one the image was parsed from.
 */
#ifndef CX_PATCH_H
#define CX_PATCH_H

#include <stdint.h>

#include "image/fs2.h"

/* What sg sets: either group may be absent. */
struct guid_request {
	bool have_guids, have_macs;
	uint64_t guid[GUIDS_NGUID];
	uint64_t mac[GUIDS_NMAC];
};

/* flint's expansions: --guid g → g..g+3; --mac m → m, m+1 (incrGuid, §3.4). */
void patch_expand_guid(uint64_t base, uint64_t out[GUIDS_NGUID]);
void patch_expand_mac(uint64_t base, uint64_t out[GUIDS_NMAC]);

/* Set GUIDs and/or MACs; the group not requested keeps its current value. */
int patch_guids(uint8_t *buf, const struct fs2_image *img, const struct guid_request *req,
		struct cx_status *st);

/* Set the VSD string (at most INFO_VSD_LEN bytes). */
int patch_vsd(uint8_t *buf, const struct fs2_image *img, const char *vsd, struct cx_status *st);

/* Recompute the CRC of item i (a section) and the full-image CRC. */
void patch_section_crc(uint8_t *buf, const struct fs2_item *it);
void patch_full_crc(uint8_t *buf, const struct fs2_image *img);

/* Re-parse a patched copy (len bytes): a patch must never produce an image
 * that fails to verify (blank GUIDs are fine). CX_EIMAGE "internal error" if it does. */
int patch_check_result(const uint8_t *buf, size_t len, struct cx_status *st);

#endif
