/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3_fs4.c — what precedes the ITOC in FS4: the 16 hardware pointers, the tools area,
 * BOOT2 and the hashes table; then the ITOC (one sector on if need be) and the DTOC in
 * the file's last 4 KiB (fs3-format.md §4). */
#include <string.h>

#include "image/crc16.h"
#include "image/fs3.h"
#include "image/hw_crc.h"
#include "util/bytes.h"

#define FS4_HW_PTR_START 0x18     /* FS4_HW_PTR_START: 16 {ptr, crc} pairs, §4.1 */
#define FS4_HW_PTR_COUNT 16       /* image_layout_hw_pointers_carmel, §4.1 */
#define FS4_HW_PTR_SIZE 8         /* IMAGE_LAYOUT_HW_POINTER_ENTRY_SIZE, §4.1 */
#define FS4_HW_CRC_BYTES 6        /* calc_hw_crc(entry, 6), §4.2 */
#define FS4_PTR_BOOT2 1           /* boot2_ptr, §4.1 */
#define FS4_PTR_TOC 2             /* toc_ptr, §4.1 */
#define FS4_PTR_TOOLS 3           /* tools_ptr, §4.1 */
#define FS4_PTR_SEC_VERSION 13    /* fw_security_version_pointer, §4.1 */
#define FS4_PTR_HASHES 15         /* hashes_table_pointer, §4.1 */
#define FS4_TYPE_HW_PTR 0xfb      /* FS4_HW_PTR: the items' name in v, §4.1 */
#define FS4_TYPE_TOOLS 0xfc       /* FS4_TOOLS_AREA, §4.3 */
#define FS4_TYPE_HASHES 0xfa      /* FS4_HASHES_TABLE, §4.6 */
#define FS4_TOOLS_SIZE 0x40       /* IMAGE_LAYOUT_TOOLS_AREA_SIZE, §4.3 */
#define FS4_SECTOR 0x1000         /* FS4_DEFAULT_SECTOR_SIZE: ITOC retry, DTOC place, §4.4 */
#define HT_HEADER_SIZE 0xc        /* IMAGE_LAYOUT_HASHES_TABLE_HEADER_SIZE, §4.6 */
#define HT_HTOC_HEADER_SIZE 0x10  /* IMAGE_LAYOUT_HTOC_HEADER_SIZE, §4.6 */
#define HT_HTOC_ENTRY_SIZE 8      /* IMAGE_LAYOUT_HTOC_ENTRY_SIZE, §4.6 */
#define HT_MAX_ENTRIES 28         /* MAX_HTOC_ENTRIES_NUM, §4.6 */
#define HT_TAIL_SIZE 8            /* HASHES_TABLE_TAIL_SIZE, §4.6 */
#define FS4_MAX_BIN_MAJOR 1       /* FS4_MAX_BIN_VER_MAJOR, §4.3 */

static struct fs3_item *crc_item(struct fs3_image *img, uint8_t type, uint32_t off, uint32_t len,
				 uint16_t calc, uint32_t stored, struct cx_status *st)
{
	struct fs3_item *it = fs3_add_item(img, st);

	if (it) {
		it->kind = FS3_ITEM_SECTION;
		it->type = type;
		it->off = off;
		it->len = len;
		it->crc_calc = calc;
		it->crc_stored = stored;
		it->ok = calc == stored;
	}
	return it;
}

static int hw_pointers(struct fs3_image *img, struct cx_status *st)
{
	uint32_t base = img->start + FS4_HW_PTR_START;
	int rc;

	if ((uint64_t)base + FS4_HW_PTR_COUNT * FS4_HW_PTR_SIZE > img->len)
		return cx_fail(st, CX_EIMAGE, "the file ends inside the FS4 hardware pointers");
	if ((rc = fs3_need(img, base, FS4_HW_PTR_COUNT * FS4_HW_PTR_SIZE, st)))
		return rc;
	for (int i = 0; i < FS4_HW_PTR_COUNT; i++) {
		uint8_t e[FS4_HW_PTR_SIZE];
		memcpy(e, img->buf + base + i * FS4_HW_PTR_SIZE, sizeof(e));
		/* A pointer of all ones counts as 0 with a CRC of 0 (getExtendedHWAravaPtrs), §4.2. */
		if (be32(e) == 0xffffffffu)
			memset(e, 0, sizeof(e));
		img->hw_ptr[i] = be32(e);
		struct fs3_item *it = crc_item(img, FS4_TYPE_HW_PTR, base + i * FS4_HW_PTR_SIZE, FS4_HW_PTR_SIZE,
					       hw_crc(e, FS4_HW_CRC_BYTES), be32(e + 4) & 0xffff, st);
		if (!it)
			return st->code;
	}
	img->security_version = img->hw_ptr[FS4_PTR_SEC_VERSION];
	return CX_OK;
}

static int tools_area(struct fs3_image *img, struct cx_status *st)
{
	uint64_t off = (uint64_t)img->start + img->hw_ptr[FS4_PTR_TOOLS];
	int rc;

	if (off + FS4_TOOLS_SIZE > img->len)
		return cx_fail(st, CX_EIMAGE, "tools area pointer 0x%x runs past the end of the file",
			       img->hw_ptr[FS4_PTR_TOOLS]);
	if ((rc = fs3_need(img, off, FS4_TOOLS_SIZE, st)))
		return rc;
	const uint8_t *p = img->buf + off;
	if (!crc_item(img, FS4_TYPE_TOOLS, (uint32_t)off, FS4_TOOLS_SIZE, crc16_be(p, FS4_TOOLS_SIZE - 4),
		      be32(p + FS4_TOOLS_SIZE - 4) & 0xffff, st))
		return st->code;
	uint32_t d1 = be32(p + 4);
	img->bin_minor = d1 & 0xff;
	img->bin_major = (d1 >> 8) & 0xff;
	img->log2_slot = d1 >> 16;
	if (img->bin_major > FS4_MAX_BIN_MAJOR)
		return cx_fail(st, CX_EUNSUPPORTED, "unsupported binary version (%u.%u): newer than this tool knows",
			       img->bin_major, img->bin_minor);
	return CX_OK;
}

/* The hashes table, when its pointer is neither 0 nor all ones (isHashesTableHwPtrValid), §4.6. */
static int hashes_table(struct fs3_image *img, struct cx_status *st)
{
	uint32_t ptr = img->hw_ptr[FS4_PTR_HASHES];
	uint64_t off = (uint64_t)img->start + ptr;
	int rc;

	if (ptr == 0 || ptr == 0xffffffffu)
		return CX_OK;
	if (off + HT_HEADER_SIZE + HT_HTOC_HEADER_SIZE > img->len)
		return cx_fail(st, CX_EIMAGE, "hashes table pointer 0x%x runs past the end of the file", ptr);
	if ((rc = fs3_need(img, off, HT_HEADER_SIZE + HT_HTOC_HEADER_SIZE, st)))
		return rc;
	const uint8_t *p = img->buf + off;
	/* The header's own CRC is shown only when wrong ("HASHES TABLE HEADER ... wrong CRC"). */
	uint16_t hcalc = crc16_be(p, HT_HEADER_SIZE - 4);
	if (hcalc != (be32(p + HT_HEADER_SIZE - 4) & 0xffff) &&
	    !crc_item(img, FS4_TYPE_HASHES, (uint32_t)off, HT_HEADER_SIZE, hcalc,
		      be32(p + HT_HEADER_SIZE - 4) & 0xffff, st))
		return st->code;
	uint32_t hash_size = be32(p + HT_HEADER_SIZE + 4) >> 16; /* htoc_header.hash_size, §4.6 */
	uint64_t size = HT_HEADER_SIZE + HT_HTOC_HEADER_SIZE +
			(uint64_t)HT_MAX_ENTRIES * (HT_HTOC_ENTRY_SIZE + hash_size) + HT_TAIL_SIZE;
	if (hash_size % 4 || off + size > img->len)
		return cx_fail(st, CX_EIMAGE, "hashes table at 0x%llx: hash size %u makes it run past the end "
			       "of the file", (unsigned long long)off, hash_size);
	/* q judges the whole table too (fs3-format.md §10). */
	if ((rc = fs3_need(img, off, size, st)))
		return rc;
	if (!crc_item(img, FS4_TYPE_HASHES, (uint32_t)off, (uint32_t)size, crc16_be(p, size - 4),
		      be32(p + size - 4) & 0xffff, st))
		return st->code;
	return CX_OK;
}

int fs3_parse_fs4_front(struct fs3_image *img, struct cx_status *st)
{
	uint32_t next;
	int rc;

	if ((rc = hw_pointers(img, st)) || (rc = tools_area(img, st)))
		return rc;
	uint64_t b2 = (uint64_t)img->start + img->hw_ptr[FS4_PTR_BOOT2];
	if (b2 + 8 > img->len)
		return cx_fail(st, CX_EIMAGE, "BOOT2 pointer 0x%x runs past the end of the file",
			       img->hw_ptr[FS4_PTR_BOOT2]);
	if ((rc = fs3_check_boot2(img, (uint32_t)b2, &next, st)) || (rc = hashes_table(img, st)))
		return rc;
	uint64_t itoc = (uint64_t)img->start + img->hw_ptr[FS4_PTR_TOC];
	/* No valid header at toc_ptr: the ITOC may be one sector on (firstItocArrayIsEmpty), §4.4. */
	if (itoc + 32 <= img->len && !fs3_toc_valid(img, (uint32_t)itoc, false) &&
	    fs3_toc_valid(img, (uint32_t)(itoc + FS4_SECTOR), false))
		itoc += FS4_SECTOR;
	if (itoc > img->len || (rc = fs3_parse_toc(img, (uint32_t)itoc, false, st)) == CX_EABSENT)
		return cx_status_clear(st), cx_fail(st, CX_EIMAGE, "no valid ITOC header was found");
	if (rc)
		return rc;
	if (img->len < FS4_SECTOR ||
	    (rc = fs3_parse_toc(img, (uint32_t)(img->len - FS4_SECTOR), true, st)) == CX_EABSENT)
		return cx_status_clear(st), cx_fail(st, CX_EIMAGE, "no valid DTOC header was found in the last "
						    "4 KiB of the file");
	return rc;
}
