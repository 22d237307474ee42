/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FS4's structures before the ITOC: the 16 HW pointers (image_layout_hw_pointers_carmel,
 * each {ptr, CRC} checked with calc_hw_crc), the tools area
 * (image_layout_tools_area) and the hashes table (fs4_ops.cpp FsVerifyAux:
 * header CRC, then a CRC over header + HTOC + 28 entries + 8-byte tail).
 */
#include <string.h>

#include "be.h"
#include "crc16.h"
#include "hwcrc.h"
#include "image.h"

/* image_layout_hw_pointers_carmel entry order. */
enum hw_ptr {
	HWP_BOOT_RECORD, HWP_BOOT2, HWP_TOC, HWP_TOOLS, HWP_AUTH_START, HWP_AUTH_END,
	HWP_DIGEST, HWP_DIGEST_RECOVERY, HWP_FW_WINDOW_START, HWP_FW_WINDOW_END,
	HWP_IMAGE_INFO, HWP_HMAC_END, HWP_PUBLIC_KEY, HWP_FW_SECURITY_VERSION,
	HWP_GCM_IV_DELTA, HWP_HASHES_TABLE,
};
#define HWP_CRC_LEN		6		/* getExtendedHWAravaPtrs: calc_hw_crc(entry, 6) */
#define HWP_UNSET		0xFFFFFFFFu	/* read back as 0 with CRC 0 (same function) */

/* image_layout_tools_area. */
#define TA_SLOT_LOG		4	/* log2_img_slot_size, 16 bits at bit offset 32 */
#define TA_BIN_MAJOR		6	/* bin_ver_major, bit offset 48 */
#define TA_BIN_MINOR		7	/* bin_ver_minor, bit offset 56 */
#define TA_CRC_DW		15	/* crc at bit offset 496, over dwords 0..14 */
#define FS4_BIN_MAJOR		1	/* fs4_ops.h FS4_MIN/MAX_BIN_VER_MAJOR */
#define FS4_BIN_MINOR		0	/* FS4_MIN_BIN_VER_MINOR */

/* Hashes table (fs4_ops.h, image_layout_layouts.h). */
#define HT_HEADER_DWSIZE	4	/* dw_size, bit offset 32 */
#define HTOC_HEADER_LEN		0x10	/* IMAGE_LAYOUT_HTOC_HEADER_SIZE */
#define HTOC_HASH_SIZE		4	/* hash_size, 16 bits at bit offset 32 ... */
#define HTOC_HASH_SHIFT		16	/* ... the top half of dword 1 */
#define HTOC_ENTRY_LEN		0x8	/* IMAGE_LAYOUT_HTOC_ENTRY_SIZE */
#define HTOC_ENTRIES		28	/* MAX_HTOC_ENTRIES_NUM */
#define HASH_LEN		64	/* SHA-512, what hash_size then says */
#define HT_TAIL_LEN		8	/* FsVerifyAux HASHES_TABLE_TAIL_SIZE */

uint32_t fs4_hashes_table_len(void)
{
	return FS4_HT_HEADER_LEN + HTOC_HEADER_LEN + HTOC_ENTRIES * (HTOC_ENTRY_LEN + HASH_LEN) + HT_TAIL_LEN;
}

static void hw_ptr(uint8_t *e, uint32_t ptr)
{
	put_be32(e, ptr);
	if (ptr == HWP_UNSET) {
		put_be32(e + 4, HWP_UNSET);
		return;
	}
	put_be32(e + 4, 0);
	put_be32(e + 4, hw_crc(e, HWP_CRC_LEN));
}

void fs4_hw_pointers(struct image *im)
{
	uint8_t *p = im->d + im->slot + FS4_HW_PTR_OFF;
	uint32_t v[FS4_HW_PTR_COUNT];
	struct sect *info = image_find(im, ST_IMAGE_INFO, 0);
	unsigned int i;

	for (i = 0; i < FS4_HW_PTR_COUNT; i++)
		v[i] = HWP_UNSET;
	v[HWP_BOOT2] = im->boot2;
	v[HWP_TOC] = im->itoc;
	v[HWP_TOOLS] = im->tools;
	if (info)
		v[HWP_IMAGE_INFO] = info->addr;
	v[HWP_HASHES_TABLE] = im->hashes;
	for (i = 0; i < FS4_HW_PTR_COUNT; i++)
		hw_ptr(p + FS4_HW_PTR_ENTRY * i, v[i]);
}

void fs4_tools_area(struct image *im)
{
	uint8_t *p = im->d + im->slot + im->tools;

	memset(p, 0, FS4_TOOLS_LEN);
	p[TA_SLOT_LOG + 1] = (uint8_t)im->c->slot_log;
	p[TA_BIN_MAJOR] = FS4_BIN_MAJOR;
	p[TA_BIN_MINOR] = FS4_BIN_MINOR;
	put_be32(p + 4 * TA_CRC_DW, crc16_fs2(p, 4 * TA_CRC_DW));
}

void fs4_hashes_table(struct image *im)
{
	uint8_t *p = im->d + im->slot + im->hashes;
	uint32_t len = fs4_hashes_table_len();

	memset(p, 0, len);
	put_be32(p + HT_HEADER_DWSIZE, len / 4);
	put_be32(p + FS4_HT_HEADER_LEN - 4, crc16_fs2(p, FS4_HT_HEADER_LEN - 4));
	put_be32(p + FS4_HT_HEADER_LEN + HTOC_HASH_SIZE, (uint32_t)HASH_LEN << HTOC_HASH_SHIFT);
	put_be32(p + len - 4, crc16_fs2(p, len - 4));
}
