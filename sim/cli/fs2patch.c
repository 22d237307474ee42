/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs2patch.c — patch an FS2 image's PSID, VSD, GUIDs and MACs, and install it zebra-striped. */
#include "fs2patch.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The FS2 CRC16 (fs2-format.md §2.1): mkfs2's, table-driven and checked by mkfs2 --selftest. */
#include "../mkfs2/crc16.h"

#define FS2_FULL_CRC_OFF  0x20  /* bits 15:0 of this dword: the full-image CRC */
#define FS2_FS_INFO_OFF   0x28  /* FS info word */
#define FS2_INFO_PTR_OFF  0x2C  /* IMAGE_INFO data pointer, bits 23:0, byte-sum checksum */
#define FS2_GUID_PTR_OFF  0x34  /* GUID section data pointer */
#define FS2_BOOT2_OFF     0x38  /* the first BOOT2 */
#define FS2_GPH_SIZE      16    /* section header: type, size (dwords), param, next */
#define FS2_SECT_GUID     6
#define FS2_SECT_INFO     10
#define FS2_TAG_PSID      4
#define FS2_TAG_VSD       5
#define FS2_TAG_END       0xFF
#define FS2_PSID_LEN      16
#define FS2_BLANK_CRC     0xFFFFu

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int fs2_fs_info(const uint8_t *img, size_t len, bool *failsafe, unsigned *log2chunk,
		char *err, size_t errlen)
{
	const uint8_t *w;

	if (len < FS2_BOOT2_OFF)
		return fail(err, errlen, "image too short (%zu bytes)", len);
	w = img + FS2_FS_INFO_OFF;
	if ((uint8_t)(w[0] + w[1] + w[2] + w[3]))
		return fail(err, errlen, "bad FS info word checksum (0x%08x)", be32(w));
	*failsafe = w[3] & 0x08;
	*log2chunk = 16 + (w[3] & 0x07);
	return 0;
}

/* A section whose data is at data_off: check type and bounds; *end = after its CRC dword. */
static int find_section(const uint8_t *img, size_t len, uint32_t data_off, uint32_t type,
			const char *name, uint32_t *datalen, char *err, size_t errlen)
{
	uint32_t dlen;

	if (data_off < FS2_BOOT2_OFF + FS2_GPH_SIZE || data_off > len)
		return fail(err, errlen, "%s pointer 0x%x is outside the image", name, data_off);
	if (be32(img + data_off - FS2_GPH_SIZE) != type)
		return fail(err, errlen, "no %s section header at 0x%x", name, data_off - FS2_GPH_SIZE);
	dlen = be32(img + data_off - FS2_GPH_SIZE + 4) * 4;
	if (dlen > len || data_off + (size_t)dlen + 4 > len)
		return fail(err, errlen, "%s section runs past the end of the image", name);
	*datalen = dlen;
	return 0;
}

static void fix_section_crc(uint8_t *img, uint32_t data_off, uint32_t datalen)
{
	uint8_t *gph = img + data_off - FS2_GPH_SIZE;

	put_be32(img + data_off + datalen, crc16_fs2(gph, FS2_GPH_SIZE + datalen));
}

static void put_entry(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

static int patch_guids(uint8_t *img, size_t len, const struct fs2_identity *id,
		       char *err, size_t errlen)
{
	uint32_t off = be32(img + FS2_GUID_PTR_OFF), dlen;
	unsigned n, i;

	if (find_section(img, len, off, FS2_SECT_GUID, "GUID", &dlen, err, errlen))
		return -1;
	n = dlen / 8;
	if (n < 4)
		return fail(err, errlen, "GUID section has %u entries, want 4 or 6", n);
	if (id->set_mac && n < 6)
		return fail(err, errlen, "image has %u GUID entries and no MACs: cannot set --mac", n);
	for (i = 0; id->set_guid && i < 4; i++)
		put_entry(img + off + 8 * i, id->guid + i);
	for (i = 0; id->set_mac && i < 2; i++)
		put_entry(img + off + 8 * (4 + i), (id->mac + i) & 0xFFFFFFFFFFFFull);
	fix_section_crc(img, off, dlen);
	return 0;
}

static int patch_info(uint8_t *img, size_t len, const struct fs2_identity *id,
		      char *err, size_t errlen)
{
	const uint8_t *pw = img + FS2_INFO_PTR_OFF;
	uint32_t off = be32(pw) & 0xFFFFFF, dlen, pos;
	bool psid_done = !id->psid, vsd_done = !id->vsd;

	if ((uint8_t)(pw[0] + pw[1] + pw[2] + pw[3]) || !off)
		return fail(err, errlen, "no valid IMAGE_INFO pointer at 0x2c (0x%08x)", be32(pw));
	if (find_section(img, len, off, FS2_SECT_INFO, "IMAGE_INFO", &dlen, err, errlen))
		return -1;
	for (pos = 0; pos + 4 <= dlen;) {
		uint32_t hdr = be32(img + off + pos), tag = hdr >> 24, tlen = hdr & 0xFFFFFF;
		uint8_t *payload = img + off + pos + 4;

		if (tag == FS2_TAG_END)
			break;
		if (tlen > dlen - pos - 4)
			return fail(err, errlen, "IMAGE_INFO tag %u runs past its section", tag);
		if (tag == FS2_TAG_PSID && id->psid) {
			if (strlen(id->psid) > tlen || tlen != FS2_PSID_LEN)
				return fail(err, errlen, "PSID '%s' does not fit the %u-byte tag",
					    id->psid, tlen);
			memset(payload, 0, tlen);
			memcpy(payload, id->psid, strlen(id->psid));
			psid_done = true;
		}
		if (tag == FS2_TAG_VSD && id->vsd) {
			if (strlen(id->vsd) > tlen)
				return fail(err, errlen, "VSD is longer than its %u-byte tag", tlen);
			memset(payload, 0, tlen);
			memcpy(payload, id->vsd, strlen(id->vsd));
			vsd_done = true;
		}
		pos += 4 + tlen;
	}
	if (!psid_done || !vsd_done)
		return fail(err, errlen, "IMAGE_INFO has no %s tag", psid_done ? "VSD" : "PSID");
	fix_section_crc(img, off, dlen);
	return 0;
}

/* §2.2: CRC over [0, len) with 0x20's low half read as 0xFFFF; blank GUIDs keep 0xFFFF. */
static void fix_full_crc(uint8_t *img, size_t len)
{
	uint32_t goff = be32(img + FS2_GUID_PTR_OFF), glen = be32(img + goff - 12) * 4;
	static const uint8_t ff[8] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
	bool blank = be32(img + goff + glen) == FS2_BLANK_CRC && !memcmp(img + goff, ff, 8);
	uint16_t crc = FS2_BLANK_CRC;

	img[FS2_FULL_CRC_OFF + 2] = img[FS2_FULL_CRC_OFF + 3] = 0xFF;
	if (!blank)
		crc = crc16_fs2(img, len & ~(size_t)3); /* whole dwords, as §2.1 feeds them */
	img[FS2_FULL_CRC_OFF + 2] = (uint8_t)(crc >> 8);
	img[FS2_FULL_CRC_OFF + 3] = (uint8_t)crc;
}

int fs2_patch_identity(uint8_t *img, size_t len, const struct fs2_identity *id,
		       char *err, size_t errlen)
{
	uint32_t dlen;

	if (len < FS2_BOOT2_OFF || len % 4)
		return fail(err, errlen, "not an FS2 image (%zu bytes)", len);
	if (!id->psid && !id->vsd && !id->set_guid && !id->set_mac)
		return 0;
	if ((id->set_guid || id->set_mac) && patch_guids(img, len, id, err, errlen))
		return -1;
	if ((id->psid || id->vsd) && patch_info(img, len, id, err, errlen))
		return -1;
	/* Blank-GUID detection in fix_full_crc reads the GUID section: check it exists. */
	if (find_section(img, len, be32(img + FS2_GUID_PTR_OFF), FS2_SECT_GUID, "GUID", &dlen,
			 err, errlen))
		return -1;
	fix_full_crc(img, len);
	return 0;
}

int fs2_damage(uint8_t *img, size_t len, char *err, size_t errlen)
{
	/* BOOT2: [w0][N][code...]: the first code dword is covered by BOOT2's CRC. */
	const size_t code = FS2_BOOT2_OFF + 8;

	if (len < code + 4)
		return fail(err, errlen, "image too short to damage");
	img[code] ^= 0xA5;
	img[code + 3] ^= 0x5A;
	return 0;
}

int fs2_install(uint8_t *flash, size_t flash_size, const uint8_t *img, size_t len,
		unsigned slot, uint32_t *start, char *err, size_t errlen)
{
	bool failsafe;
	unsigned lg;
	size_t chunk, a;

	if (fs2_fs_info(img, len, &failsafe, &lg, err, errlen))
		return -1;
	if (!failsafe) {
		if (slot)
			return fail(err, errlen, "a non-failsafe image can only go to slot 0");
		if (len > flash_size)
			return fail(err, errlen, "image (%zu bytes) larger than the flash (%zu)",
				    len, flash_size);
		memcpy(flash, img, len);
		*start = 0;
		return 0;
	}
	chunk = (size_t)1 << lg;
	/* Contiguous a -> (a & (C-1)) | slot << log2C | ((a << 1) & ~(2C-1)). */
	for (a = 0; a < len; a += chunk) {
		size_t phys = (a & (chunk - 1)) | (size_t)slot << lg | ((a << 1) & ~(2 * chunk - 1));
		size_t n = len - a < chunk ? len - a : chunk;

		if (phys + n > flash_size)
			return fail(err, errlen, "image (%zu bytes, chunk 0x%zx) does not fit slot %u "
				    "of a %zu-byte flash", len, chunk, slot, flash_size);
		memcpy(flash + phys, img + a, n);
	}
	*start = (uint32_t)(slot * chunk);
	return 0;
}
