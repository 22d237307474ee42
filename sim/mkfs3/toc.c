/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ITOC/DTOC header and entries (mstflint fs3_ops.cpp VerifyTOC, fs4_ops.cpp
 * verifyTocHeader/verifyTocEntries; tools_layouts
 * cibfw_itoc_header/cibfw_itoc_entry for FS3, image_layout_itoc_header/
 * image_layout_itoc_entry for FS4). Every field is big-endian; each header
 * and entry carries the FS2 CRC16 of its first 7 dwords in dword 7 [15:0].
 */
#include <string.h>

#include "be.h"
#include "crc16.h"
#include "image.h"

#define ITOC_ASCII	0x49544f43u	/* fs3_ops.h ITOC_ASCII "ITOC" */
#define DTOC_ASCII	0x44544f43u	/* fs4_ops.h DTOC_ASCII "DTOC" */
#define TOC_RAND1	0x04081516u	/* fs3_ops.h TOC_RAND1..3 */
#define TOC_RAND2	0x2342cafau
#define TOC_RAND3	0xbacafe00u
#define TOC_VERSION	0		/* itoc_header.version */
#define TOC_VERSION_OFF	0x13		/* its byte: bit offset 152 */
#define TOC_NUM_OFF	0x17		/* image_layout_itoc_header.num_of_entries, bit offset 184 */
#define TOC_CRC_DW	7		/* itoc_entry_crc at bit offset 240 */
#define E_TYPE_SHIFT	24		/* entry dword 0: type [31:24] */
#define E_SIZE_SHIFT	2		/* size in dwords at [23:2] (bit offset 8, 22 bits) */
#define E_SIZE_MASK	0x3FFFFFu
#define E_ADDR_DW	5		/* flash_addr [30:2] (bit offset 161, 29 bits) */
#define E_ADDR_MASK	0x7FFFFFFCu
#define E_RELATIVE	(1u << 31)	/* FS3 relative_addr (bit offset 160) */
#define E_CRC_DW	6		/* section_crc [15:0] (bit offset 208) */
#define E_FS3_NO_CRC	(1u << 16)	/* cibfw no_crc, bit offset 207 */
#define E_FS3_DEV_DATA	(1u << 17)	/* cibfw device_data, bit offset 206 */
#define E_FS4_CRC_SHIFT	16		/* image_layout crc kind [18:16] (bit offset 205, 3 bits) */
#define FS4_CRC_IN_ENTRY 0		/* fs4_ops.h INITOCENTRY */
#define FS4_CRC_NONE	1		/* NOCRC */
#define FS4_CRC_IN_SECTION 2		/* INSECTION */

static void seal(uint8_t *p)
{
	put_be32(p + 4 * TOC_CRC_DW, crc16_fs2(p, 4 * TOC_CRC_DW));
}

void toc_header(uint8_t *p, int dtoc, enum fw_format f, unsigned int n_entries)
{
	memset(p, 0, TOC_HDR_LEN);
	put_be32(p, dtoc ? DTOC_ASCII : ITOC_ASCII);
	put_be32(p + 4, TOC_RAND1);
	put_be32(p + 8, TOC_RAND2);
	put_be32(p + 12, TOC_RAND3);
	p[TOC_VERSION_OFF] = TOC_VERSION;
	if (f == FMT_FS4)
		p[TOC_NUM_OFF] = (uint8_t)n_entries;
	seal(p);
}

void toc_entry(uint8_t *p, enum fw_format f, const struct sect *s, uint32_t flash_addr)
{
	uint32_t dw6;

	memset(p, 0, TOC_ENTRY_LEN);
	put_be32(p, (uint32_t)s->type << E_TYPE_SHIFT | ((s->len / 4) & E_SIZE_MASK) << E_SIZE_SHIFT);
	if (f == FMT_FS3) {
		/* Image sections are relative to the slot; device data is absolute. */
		put_be32(p + 4 * E_ADDR_DW, (flash_addr & E_ADDR_MASK) | (s->dev ? 0 : E_RELATIVE));
		dw6 = (s->no_crc ? E_FS3_NO_CRC : 0) | (s->dev ? E_FS3_DEV_DATA : 0);
	} else {
		put_be32(p + 4 * E_ADDR_DW, flash_addr & E_ADDR_MASK);
		dw6 = (uint32_t)(s->no_crc ? FS4_CRC_NONE : s->in_section ? FS4_CRC_IN_SECTION :
				 FS4_CRC_IN_ENTRY) << E_FS4_CRC_SHIFT;
	}
	/* No-CRC and in-section sections keep 0 here, as fs4_ops.cpp CreateDtoc writes them. */
	if (!s->no_crc && !s->in_section)
		dw6 |= crc16_fs2(s->data, s->len);
	put_be32(p + 4 * E_CRC_DW, dw6);
	seal(p);
}

void toc_end(uint8_t *p)
{
	memset(p, 0xFF, TOC_ENTRY_LEN);	/* type 0xff = FS3_END; the rest erased flash */
}
