/* SPDX-License-Identifier: GPL-2.0-or-later */
/* info.c — parsing the IMAGE_INFO tag list (fs2-format.md §3.2). */
#include <stdio.h>
#include <string.h>

#include "image/info.h"
#include "util/bytes.h"

#define TAG_HDR 4

/* Copy a NUL-padded ASCII field; stop at the first NUL. */
static void copy_str(char *dst, size_t dstsz, const uint8_t *src, size_t len)
{
	size_t n = 0;

	while (n < len && n + 1 < dstsz && src[n])
		n++;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static uint32_t dw(const uint8_t *p, uint32_t len, unsigned i)
{
	return (i + 1) * 4 <= len ? be32(p + 4 * i) : 0;
}

static void decode(struct fs2_info *in, unsigned id, const uint8_t *p, uint32_t len)
{
	switch (id) {
	case TAG_FORMAT_REV:
		in->format_rev = dw(p, len, 0);
		break;
	case TAG_FW_VERSION:
		in->fw_ver[0] = dw(p, len, 0) >> 16;
		in->fw_ver[1] = dw(p, len, 1) >> 16;
		in->fw_ver[2] = dw(p, len, 1) & 0xffff;
		break;
	case TAG_BUILD_TIME:
		in->build_time = dw(p, len, 0);
		in->build_date = dw(p, len, 1);
		break;
	case TAG_DEVICE_TYPE:
		in->dev_type = dw(p, len, 0) & 0xffff;
		break;
	case TAG_PSID:
		copy_str(in->psid, sizeof(in->psid), p, len);
		break;
	case TAG_VSD:
		copy_str(in->vsd, sizeof(in->vsd), p, len);
		break;
	case TAG_PRODUCT_VER:
		copy_str(in->product_ver, sizeof(in->product_ver), p, len);
		break;
	case TAG_VSD_VENDOR_ID:
		in->vsd_vendor_id = dw(p, len, 0) & 0xffff;
		break;
	case TAG_IS_GA:
		in->is_ga = dw(p, len, 0) != 0;
		break;
	case TAG_HW_DEVS_ID:
		in->nhw_ids = 0;
		for (unsigned i = 0; i < len / 4 && in->nhw_ids < INFO_MAX_HW_IDS; i++) {
			uint32_t v = be32(p + 4 * i);
			if (!v)
				break;
			in->hw_ids[in->nhw_ids++] = v;
		}
		break;
	case TAG_MIC_VERSION:
		in->mic_ver[0] = dw(p, len, 0) >> 16;
		in->mic_ver[1] = dw(p, len, 1) >> 16;
		in->mic_ver[2] = dw(p, len, 1) & 0xffff;
		break;
	case TAG_CONFIG_AREA:
		in->config_sectors = dw(p, len, 0);
		in->config_pad = dw(p, len, 1);
		in->have_sector_size = len >= 12;
		in->log2_sector_kib = dw(p, len, 2);
		break;
	case TAG_PS_INFO:
		copy_str(in->prs_name, sizeof(in->prs_name), p, len);
		break;
	}
}

int info_parse(const uint8_t *data, size_t len, uint32_t base, struct fs2_info *in,
	       struct cx_status *st)
{
	size_t off = 0;

	memset(in, 0, sizeof(*in));
	for (;;) {
		if (off + TAG_HDR > len)
			return cx_fail(st, CX_EIMAGE,
				       "IMAGE_INFO at 0x%x: tag list has no end tag (0xFF) before the section ends",
				       base);
		uint32_t hdr = be32(data + off);
		unsigned id = hdr >> 24;
		uint32_t tlen = hdr & 0xffffff;

		if (tlen > len - off - TAG_HDR)
			return cx_fail(st, CX_EIMAGE,
				       "IMAGE_INFO tag %u at 0x%zx: length %u runs past the end of its section",
				       id, base + off, tlen);
		if (id == TAG_END) {
			if (tlen != 0 || off + TAG_HDR != len)
				return cx_fail(st, CX_EIMAGE,
					       "IMAGE_INFO at 0x%x: end tag at 0x%zx is not at the end of the section",
					       base, base + off);
			return CX_OK;
		}
		in->have[id] = true;
		in->payload_off[id] = (uint32_t)(off + TAG_HDR);
		in->payload_len[id] = tlen;
		decode(in, id, data + off + TAG_HDR, tlen);
		off += TAG_HDR + tlen;
	}
}

void fmt_fw_version(char *out, size_t n, const uint16_t v[3])
{
	snprintf(out, n, v[1] < 100 ? "%d.%d.%04d" : "%d.%04d.%04d", v[0], v[1], v[2]);
}
