/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3_toc.c — an ITOC or DTOC: its header, its entries, and each section's CRC
 * (fs3-format.md §3), then the sections every image must have (§6). */
#include <string.h>

#include "image/crc16.h"
#include "image/fs3.h"
#include "util/bytes.h"

#define TOC_ITOC_ASCII 0x49544f43 /* "ITOC": ITOC_ASCII, §3.1 */
#define TOC_DTOC_ASCII 0x44544f43 /* "DTOC": DTOC_ASCII, §4.5 */
#define TOC_RAND1 0x04081516      /* TOC_RAND1, §3.1 */
#define TOC_RAND2 0x2342cafa      /* TOC_RAND2, §3.1 */
#define TOC_RAND3 0xbacafe00      /* TOC_RAND3, §3.1 */
#define TOC_HEADER_SIZE 32        /* TOC_HEADER_SIZE, §3.1 */
#define TOC_ENTRY_SIZE 32         /* TOC_ENTRY_SIZE, §3.2 */
#define TOC_END 0xff              /* FS3_END, §3.2 */
#define TOC_TYPE_ITOC 0xfd        /* FS3_ITOC: the header's name in v, §3.1 */
#define TOC_TYPE_DTOC 0xfe        /* FS3_DTOC, §4.5 */
#define SECT_MFG_INFO 0xe0        /* FS3_MFG_INFO, §6.1 */
#define SECT_DEV_INFO 0xe1        /* FS3_DEV_INFO, §6.2 */
#define DEV_INFO_SIG0 0x6d446576  /* "mDev": DEV_INFO_SIG0, §6.2 */
#define DEV_INFO_SIG1 0x496e666f  /* "Info": DEV_INFO_SIG1, §6.2 */
#define LINE_CRC_DWORD 16         /* dword 16 of a cache_line_crc section: CRC or auth tag, §3.3 */

/* The header at off: CX_EABSENT without the signature (the caller may look further),
 * else an item with its CRC. */
static int toc_header(struct fs3_image *img, uint32_t off, bool dtoc, bool *crc_ok, struct cx_status *st)
{
	const uint8_t *p = img->buf + off;
	int rc;

	if ((uint64_t)off + TOC_HEADER_SIZE > img->len)
		return cx_fail(st, CX_EABSENT, "no %s header at 0x%x: past the end of the file", dtoc ? "DTOC" : "ITOC",
			       off);
	if ((rc = fs3_need(img, off, TOC_HEADER_SIZE, st)))
		return rc;
	if (be32(p) != (dtoc ? TOC_DTOC_ASCII : TOC_ITOC_ASCII) || be32(p + 4) != TOC_RAND1 ||
	    be32(p + 8) != TOC_RAND2 || be32(p + 12) != TOC_RAND3)
		return cx_fail(st, CX_EABSENT, "no %s signature at 0x%x", dtoc ? "DTOC" : "ITOC", off);
	uint16_t calc = crc16_be(p, TOC_HEADER_SIZE - 4);
	*crc_ok = calc == (be32(p + 28) & 0xffff);
	return CX_OK;
}

static void decode_entry(const struct fs3_image *img, const uint8_t *p, struct fs3_entry *e)
{
	uint32_t d0 = be32(p), d1 = be32(p + 4), d5 = be32(p + 20), d6 = be32(p + 24);

	memset(e, 0, sizeof(*e));
	e->type = (uint8_t)(d0 >> 24);
	e->size = ((d0 >> 2) & 0x3fffff) * 4;  /* [23:2] dwords, §3.2 */
	e->param0 = d1 & 0x3fffffff;
	e->cache_line_crc = (d1 >> 30) & 1;
	e->zipped = d1 >> 31;
	e->param1 = be32(p + 8);
	e->version = (uint16_t)(be32(p + 16) & 0xffff);
	e->flash_addr = ((d5 >> 2) & 0x1fffffff) * 4; /* [30:2] dwords, §3.2 */
	e->section_crc = (uint16_t)(d6 & 0xffff);
	if (img->fmt->relative_bit) {
		e->relative = d5 >> 31;
		e->no_crc = (d6 >> 16) & 1;
		e->device_data = (d6 >> 17) & 1;
	} else {
		e->crc_field = (d6 >> 16) & 7;
		e->encrypted = d6 >> 31;
	}
	e->entry_crc = (uint16_t)(be32(p + 28) & 0xffff);
}

/* Where the section is: FS3 by its relative bit, FS4 ITOC image-relative, DTOC absolute (§3.2). */
static uint64_t section_off(const struct fs3_image *img, const struct fs3_entry *e)
{
	bool rel = img->fmt->relative_bit ? e->relative : !e->in_dtoc;

	return (uint64_t)e->flash_addr + (rel ? img->start : 0);
}

static enum fs3_crc_kind crc_kind(const struct fs3_image *img, const struct fs3_entry *e)
{
	const uint8_t *d = img->buf + e->data_off;

	if (!img->fmt->crc_kind_field)
		return e->no_crc ? FS3_CRC_NONE : FS3_CRC_IN_ENTRY;
	/* An encrypted cache-line section carries 4-byte auth tags: its CRC is not checked (§3.3). */
	if (e->cache_line_crc && e->size >= (LINE_CRC_DWORD + 1) * 4 &&
	    (be32(d + LINE_CRC_DWORD * 4) & 0xffff0000))
		return FS3_CRC_NONE;
	/* Kinds 3..7 have no meaning upstream: it compares 0 with 0 (§3.2). */
	return e->crc_field <= FS3_CRC_IN_SECTION ? (enum fs3_crc_kind)e->crc_field : FS3_CRC_NONE;
}

static bool dev_info_signed(const struct fs3_image *img, const struct fs3_entry *e)
{
	const uint8_t *d = img->buf + e->data_off;

	return e->size >= 16 && be32(d) == DEV_INFO_SIG0 && be32(d + 4) == DEV_INFO_SIG1 &&
	       be32(d + 8) == TOC_RAND2 && be32(d + 12) == TOC_RAND3;
}

static int check_section(struct fs3_image *img, int idx, struct cx_status *st)
{
	struct fs3_entry *e = &img->entries[idx];
	const uint8_t *d = img->buf + e->data_off;
	int rc;

	/* FS4 skips a DEV_INFO without its signature (the spare copy), §6.2: a quick query reads
	 * its first 16 bytes, which say so; v and a burn (which compares the device data after it
	 * wrote) read it whole. */
	if (img->fmt->dtoc && e->type == SECT_DEV_INFO) {
		uint32_t n = fs3_reads_query_only(img) && e->size > 16 ? 16 : e->size;
		if ((rc = fs3_need(img, e->data_off, n, st)))
			return rc;
		if (!dev_info_signed(img, e))
			return CX_OK;
	}
	/* A section the read leaves out keeps what the buffer holds: its item means nothing. */
	if (fs3_reads_section(img, e) && (rc = fs3_need(img, e->data_off, e->size, st)))
		return rc;
	struct fs3_item *it = fs3_add_item(img, st);
	if (!it)
		return st->code;
	it->kind = FS3_ITEM_SECTION;
	it->type = e->type;
	it->off = e->data_off;
	it->len = e->size;
	it->entry = idx;
	it->crc = crc_kind(img, e);
	if (it->crc == FS3_CRC_IN_ENTRY) {
		it->crc_calc = crc16_be(d, e->size);
		it->crc_stored = e->section_crc;
	} else if (it->crc == FS3_CRC_IN_SECTION) {
		if (e->size < 4)
			return cx_fail(st, CX_EIMAGE, "section 0x%x at 0x%x: %u bytes cannot hold its CRC", e->type,
				       e->data_off, e->size);
		it->crc_calc = crc16_be(d, e->size - 4);
		it->crc_stored = be32(d + e->size - 4) & 0xffff;
	}
	it->ok = it->crc == FS3_CRC_NONE || it->crc_calc == it->crc_stored;
	if (e->type == SECT_DEV_INFO && (!img->fmt->dtoc || dev_info_signed(img, e)))
		img->ndev_valid++;
	/* Like upstream, only a section whose CRC holds is read for its contents. */
	return it->ok ? fs3_section_info(img, idx, st) : CX_OK;
}

static int read_entry(struct fs3_image *img, uint32_t eoff, int i, bool dtoc, struct cx_status *st)
{
	const char *what = dtoc ? "DTOC" : "ITOC";
	const uint8_t *p = img->buf + eoff;

	if (i + 1 >= FS3_MAX_TOCS)
		return cx_fail(st, CX_EIMAGE, "the %s has more than %d entries", what, FS3_MAX_TOCS - 1);
	uint16_t calc = crc16_be(p, TOC_ENTRY_SIZE - 4);
	struct fs3_entry *e = &img->entries[img->nentries];
	decode_entry(img, p, e);
	if (calc != e->entry_crc)
		return cx_fail(st, CX_EIMAGE, "bad %s entry %d CRC at 0x%x (exp:0x%x, act:0x%x)", what, i, eoff, calc,
			       e->entry_crc);
	e->entry_off = eoff;
	e->in_dtoc = dtoc;
	uint64_t off = section_off(img, e);
	if (off + e->size > img->len)
		return cx_fail(st, CX_EIMAGE, "%s entry %d: section 0x%x at 0x%llx (0x%x bytes) runs past the end "
			       "of the file (0x%zx)", what, i, e->type, (unsigned long long)off, e->size, img->len);
	e->data_off = (uint32_t)off;
	img->nentries++;
	if (!dtoc)
		img->nitoc++;
	return check_section(img, img->nentries - 1, st);
}

int fs3_parse_toc(struct fs3_image *img, uint32_t off, bool dtoc, struct cx_status *st)
{
	bool crc_ok;
	int rc = toc_header(img, off, dtoc, &crc_ok, st);

	if (rc)
		return rc;
	struct fs3_item *it = fs3_add_item(img, st);
	if (!it)
		return st->code;
	it->kind = FS3_ITEM_TOC_HEADER;
	it->type = dtoc ? TOC_TYPE_DTOC : TOC_TYPE_ITOC;
	it->off = off;
	it->len = TOC_HEADER_SIZE;
	it->crc_calc = crc16_be(img->buf + off, TOC_HEADER_SIZE - 4);
	it->crc_stored = be32(img->buf + off + 28) & 0xffff;
	it->ok = crc_ok;
	if (dtoc)
		img->dtoc_off = off;
	else
		img->itoc_off = off;
	for (int i = 0;; i++) {
		uint64_t eoff = (uint64_t)off + TOC_HEADER_SIZE + (uint64_t)i * TOC_ENTRY_SIZE;
		if (eoff + TOC_ENTRY_SIZE > img->len)
			return cx_fail(st, CX_EIMAGE, "the %s at 0x%x is truncated: entry %d runs past the end of "
				       "the file", dtoc ? "DTOC" : "ITOC", off, i);
		/* The entry before its type: an unread byte is 0xFF, the end marker's own value. */
		if ((rc = fs3_need(img, eoff, TOC_ENTRY_SIZE, st)))
			return rc;
		if (img->buf[eoff] == TOC_END)
			return CX_OK;
		if ((rc = read_entry(img, (uint32_t)eoff, i, dtoc, st)))
			return rc;
	}
}

/* Is there a valid header (signature and CRC) at off? For FS4's retry one sector on (§4.4). */
bool fs3_toc_valid(struct fs3_image *img, uint32_t off, bool dtoc)
{
	struct cx_status ignore = {0};
	bool crc_ok = false;

	return toc_header(img, off, dtoc, &crc_ok, &ignore) == CX_OK && crc_ok;
}

int fs3_parse_sections(struct fs3_image *img, struct cx_status *st)
{
	bool mfg = false;

	for (int i = img->fmt->dtoc ? img->nitoc : 0; i < img->nentries; i++)
		mfg |= img->entries[i].type == SECT_MFG_INFO;
	if (!mfg)
		return cx_fail(st, CX_EIMAGE, "no \"MFG_INFO\" info section%s", img->fmt->dtoc ? " in the DTOC" : "");
	if (img->dev_lost_ok)
		return CX_OK; /* sg puts it back (fs3_devinfo.h) */
	if (img->fmt->dtoc && img->ndev_valid == 0)
		return cx_fail(st, CX_EIMAGE, "no \"DEV_INFO\" info section");
	if (img->fmt->dtoc && img->ndev_valid > 1)
		return cx_fail(st, CX_EIMAGE, "two \"DEV_INFO\" info sections");
	return CX_OK;
}
