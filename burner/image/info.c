/* SPDX-License-Identifier: GPL-2.0-or-later */
/* info.c — parsing the IMAGE_INFO tag list (fs2-format.md §3.2). */
#include <stddef.h>
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

/* A three-part version tag: major in dword 0's high half, minor and subminor in dword 1 (fs2-format.md §3.2). */
static void version3(uint16_t v[3], const uint8_t *p, uint32_t len)
{
	v[0] = dw(p, len, 0) >> 16;
	v[1] = dw(p, len, 1) >> 16;
	v[2] = dw(p, len, 1) & 0xffff;
}

enum field_kind {
	F_U32,  /* the dword */
	F_U16,  /* its low half */
	F_BOOL, /* non-zero */
	F_STR,  /* the payload as NUL-padded ASCII */
	F_VER3, /* a three-part version */
};

/* Where each tag's payload goes in struct fs2_info: the tag table of fs2-format.md §3.2. A tag may
 * fill several fields (one row a dword); HW_DEVS_ID, a list, is read in decode() below. */
struct tag_field {
	uint8_t id, dword, kind;
	size_t off, size;
};
#define AT(f) offsetof(struct fs2_info, f), sizeof(((struct fs2_info *)0)->f)
static const struct tag_field tag_fields[] = {
	{TAG_FORMAT_REV, 0, F_U32, AT(format_rev)},	     {TAG_FW_VERSION, 0, F_VER3, AT(fw_ver)},
	{TAG_BUILD_TIME, 0, F_U32, AT(build_time)},	     {TAG_BUILD_TIME, 1, F_U32, AT(build_date)},
	{TAG_DEVICE_TYPE, 0, F_U16, AT(dev_type)},	     {TAG_PSID, 0, F_STR, AT(psid)},
	{TAG_VSD, 0, F_STR, AT(vsd)},			     {TAG_PRODUCT_VER, 0, F_STR, AT(product_ver)},
	{TAG_VSD_VENDOR_ID, 0, F_U16, AT(vsd_vendor_id)}, {TAG_IS_GA, 0, F_BOOL, AT(is_ga)},
	{TAG_MIC_VERSION, 0, F_VER3, AT(mic_ver)},	     {TAG_CONFIG_AREA, 0, F_U32, AT(config_sectors)},
	{TAG_CONFIG_AREA, 1, F_U32, AT(config_pad)},	     {TAG_CONFIG_AREA, 2, F_U32, AT(log2_sector_kib)},
	{TAG_PS_INFO, 0, F_STR, AT(prs_name)},
};
#undef AT

static void store(struct fs2_info *in, const struct tag_field *f, const uint8_t *p, uint32_t len)
{
	char *at = (char *)in + f->off;
	uint32_t v = dw(p, len, f->dword);
	uint16_t half = v & 0xffff, ver[3];
	bool set = v != 0;

	switch (f->kind) {
	case F_U32: memcpy(at, &v, sizeof(v)); break;
	case F_U16: memcpy(at, &half, sizeof(half)); break;
	case F_BOOL: memcpy(at, &set, sizeof(set)); break;
	case F_STR: copy_str(at, f->size, p, len); break;
	case F_VER3: version3(ver, p, len); memcpy(at, ver, sizeof(ver)); break;
	}
}

static void decode(struct fs2_info *in, unsigned id, const uint8_t *p, uint32_t len)
{
	for (size_t i = 0; i < sizeof(tag_fields) / sizeof(tag_fields[0]); i++)
		if (tag_fields[i].id == id)
			store(in, &tag_fields[i], p, len);
	if (id == TAG_CONFIG_AREA)
		in->have_sector_size = len >= 12;
	if (id == TAG_HW_DEVS_ID) {
		in->nhw_ids = 0;
		for (unsigned i = 0; i < len / 4 && in->nhw_ids < INFO_MAX_HW_IDS; i++) {
			uint32_t v = be32(p + 4 * i);
			if (!v)
				break;
			in->hw_ids[in->nhw_ids++] = v;
		}
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
