/* SPDX-License-Identifier: GPL-2.0-or-later */
/* info.h — the IMAGE_INFO tag list (section type 10, fs2-format.md §3.2).
 *
 * The section data is a list of tags, each a header dword (id in bits 31:24,
 * payload length in bytes in 23:0) and its payload; the list ends with tag
 * 0xFF of length 0 exactly at the end of the section. info_parse() checks
 * that, records where each tag's payload sits (the VSD patch needs it) and
 * decodes the tags cxflash reports.
 */
#ifndef CX_INFO_H
#define CX_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

enum info_tag {
	TAG_FORMAT_REV = 0, TAG_FW_VERSION = 1, TAG_BUILD_TIME = 2, TAG_DEVICE_TYPE = 3,
	TAG_PSID = 4, TAG_VSD = 5, TAG_SUPPORTED_PSIDS = 6, TAG_PRODUCT_VER = 7,
	TAG_VSD_VENDOR_ID = 8, TAG_IS_GA = 9, TAG_HW_DEVS_ID = 10, TAG_MIC_VERSION = 11,
	TAG_MIN_FIT = 12, TAG_HW_ACCESS_KEY = 13, TAG_CONFIG_AREA = 19, TAG_PS_INFO = 20,
	TAG_END = 0xFF,
	TAG_MAX = 256,
};

#define INFO_PSID_LEN 16        /* §3.2 tag 4 */
#define INFO_VSD_LEN 208        /* §3.2 tag 5 */
#define INFO_PRODUCT_VER_LEN 16 /* §3.2 tag 7 */
#define INFO_MAX_HW_IDS 16      /* ours: real images list one or two */
#define INFO_PRS_MAX 128        /* ours: real names are ~25 chars */

struct fs2_info {
	bool have[TAG_MAX];
	uint32_t payload_off[TAG_MAX]; /* relative to the section data */
	uint32_t payload_len[TAG_MAX];

	uint32_t format_rev;
	uint16_t fw_ver[3];
	uint32_t build_time;        /* tag 2 dword 1 (hh mm ss, hex-coded) */
	uint32_t build_date;        /* tag 2 dword 2: year 31:16, month 15:8, day 7:0 */
	uint16_t dev_type;
	char psid[INFO_PSID_LEN + 1];
	char vsd[INFO_VSD_LEN + 1];
	char product_ver[INFO_PRODUCT_VER_LEN + 1];
	uint16_t vsd_vendor_id;
	bool is_ga;
	int nhw_ids;
	uint32_t hw_ids[INFO_MAX_HW_IDS]; /* (rev << 16) | hw_dev_id */
	uint16_t mic_ver[3];
	uint32_t config_sectors, config_pad, log2_sector_kib;
	bool have_sector_size;
	char prs_name[INFO_PRS_MAX + 1];
};

/* Parse len bytes of IMAGE_INFO data that start at image offset base (for
 * messages). Returns CX_OK or CX_EIMAGE with one line in st. */
int info_parse(const uint8_t *data, size_t len, uint32_t base, struct fs2_info *info,
	       struct cx_status *st);

/* A FW version (the fw_ver tag, or the one a card runs) as flint prints it:
 * %d.%d.%04d, or %d.%04d.%04d when minor >= 100. The one formatter: the front
 * ends, backup names and job records all show versions through it. */
void fmt_fw_version(char *out, size_t n, const uint16_t v[3]);

#endif
