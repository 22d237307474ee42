/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3.c — FS3/FS4 detection, the format table, the image start, the FS3 header and BOOT2
 * (fs3-format.md §1, §2, §8). The TOCs are fs3_toc.c, the FS4 front fs3_fs4.c, the
 * device and info sections fs3_info.c. */
#include <stdio.h>
#include <string.h>

#include "image/crc16.h"
#include "image/fs3.h"
#include "util/bytes.h"

#define FS3_VERSION_OFF 0x24     /* FS3_IND_ADDR: image_format_version byte, §1.1 */
#define FS3_VERSION 3            /* IMG_VER_FS3, §1.1 */
#define FS4_VERSION_OFF 0x10     /* image_format_version byte of FS4, §1.1 */
#define FS4_VERSION 1            /* IsFS4Image: "1 is the current version", §1.1 */
#define FS3_BOOT2_OFF 0x38       /* FS3_BOOT_START = FS2_BOOT_START, §2.1 */
#define FS3_LOG2_DEFAULT 21      /* FS3_LOG_CHUNK_SIZE when the byte is 0, §2.1 */
#define FS3_SECTOR 0x1000        /* FS3_DEFAULT_SECTOR_SIZE: ITOC search step, §2.2 */
#define FS3_MAX_BIN_MAJOR 1      /* FS3_MAX_BIN_VER_MAJOR / FS4_MAX_BIN_VER_MAJOR, §2.1 */
#define BOOT2_N_MIN 4            /* checkBoot2: size < 4 is "unexpected size", §2.1 */
#define BOOT2_N_MAX 1048576      /* checkBoot2: size > 1 MiB dwords likewise, §2.1 */
#define BOOT2_EXTRA_DWORDS 4     /* header dwords and CRC around the code, fs2-format.md §1.3 */

/* _cntx_image_start_pos: where FindAllImageStart looks for the magic, §8. */
static const uint32_t start_pos[] = {0, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000,
				     0x200000, 0x400000, 0x800000, 0x1000000};

static const struct fs3_format formats[] = {
	/* _cntx_magic_pattern ("MTFW" + 3 random dwords), §1.1 */
	{FMT_FS3, "FS3", {0x4D544657, 0x8CDFD000, 0xDEAD9270, 0x4154BEEF}, false, false, false, true},
	/* _fs4_magic_pattern, §1.1 */
	{FMT_FS4, "FS4", {0x4D544657, 0xABCDEF00, 0xFADE1234, 0x5678DEAD}, true, true, true, false},
};

const struct fs3_format *fs3_format_of(enum fs3_fmt fmt)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].fmt == fmt)
			return &formats[i];
	return NULL;
}

static bool magic_at(const uint8_t *buf, size_t len, uint32_t off, const uint32_t magic[4])
{
	if ((uint64_t)off + 16 > len)
		return false;
	for (int i = 0; i < 4; i++)
		if (be32(buf + off + 4 * i) != magic[i])
			return false;
	return true;
}

/* FindAllImageStart: the magic's positions, in ascending order; returns how many. */
static int find_starts(const uint8_t *buf, size_t len, const uint32_t magic[4], uint32_t out[10])
{
	int n = 0;

	for (size_t i = 0; i < sizeof(start_pos) / sizeof(start_pos[0]); i++)
		if (magic_at(buf, len, start_pos[i], magic))
			out[n++] = start_pos[i];
	return n;
}

enum fs3_fmt fs3_detect(const uint8_t *buf, size_t len)
{
	uint32_t s[10];

	/* CheckFwFormat: FS4 first (its version byte must be 1), then FS2's magic (§1.1). */
	if (find_starts(buf, len, formats[1].magic, s) > 0)
		return (uint64_t)s[0] + FS4_VERSION_OFF < len && buf[s[0] + FS4_VERSION_OFF] == FS4_VERSION
			       ? FMT_FS4 : FMT_UNKNOWN;
	if (find_starts(buf, len, formats[0].magic, s) > 0)
		return (uint64_t)s[0] + FS3_VERSION_OFF < len && buf[s[0] + FS3_VERSION_OFF] == FS3_VERSION
			       ? FMT_FS3 : FMT_FS2;
	return FMT_UNKNOWN;
}

struct fs3_item *fs3_add_item(struct fs3_image *img, struct cx_status *st)
{
	if (img->nitems >= FS3_MAX_ITEMS) {
		cx_fail(st, CX_EIMAGE, "more than %d checked items: not a real image", FS3_MAX_ITEMS);
		return NULL;
	}
	struct fs3_item *it = &img->items[img->nitems++];
	memset(it, 0, sizeof(*it));
	it->entry = -1;
	return it;
}

int fs3_need(struct fs3_image *img, uint64_t off, uint64_t len, struct cx_status *st)
{
	if (!img->need || off >= img->len || !len)
		return CX_OK;
	if (off + len > img->len)
		len = img->len - off;
	return img->need->read(img->need->ctx, (uint32_t)off, (uint32_t)len, st);
}

bool fs3_reads_all(const struct fs3_image *img)
{
	return !img->need || img->need->reads == FS3_READS_ALL;
}

bool fs3_reads_query_only(const struct fs3_image *img)
{
	return img->need && img->need->reads == FS3_READS_QUERY;
}

bool fs3_reads_section(const struct fs3_image *img, const struct fs3_entry *e)
{
	return fs3_reads_all(img) || fs3_query_reads(e->type) ||
	       (img->need->reads == FS3_READS_BURN && (e->device_data || e->in_dtoc));
}

int fs3_check_boot2(struct fs3_image *img, uint32_t off, uint32_t *next, struct cx_status *st)
{
	int rc;

	if ((uint64_t)off + 8 > img->len)
		return cx_fail(st, CX_EIMAGE, "BOOT2 at 0x%x: the file ends inside its header", off);
	if ((rc = fs3_need(img, off, 8, st)))
		return rc;
	uint32_t n = be32(img->buf + off + 4);
	if (n < BOOT2_N_MIN || n > BOOT2_N_MAX)
		return cx_fail(st, CX_EIMAGE, "BOOT2 at 0x%x: unexpected size (0x%x dwords)", off, n);
	uint64_t len = ((uint64_t)n + BOOT2_EXTRA_DWORDS) * 4;
	if (off + len > img->len)
		return cx_fail(st, CX_EIMAGE, "BOOT2 at 0x%x: its 0x%llx bytes run past the end of the file",
			       off, (unsigned long long)len);
	/* A quick query reads BOOT2's size only (FS3_CHECKB2, fs3-format.md §10): its CRC is then
	 * of what the buffer holds, and fs3_verdict_query() does not look at it. */
	if (fs3_reads_all(img) && (rc = fs3_need(img, off, len, st)))
		return rc;
	struct fs3_item *it = fs3_add_item(img, st);
	if (!it)
		return st->code;
	it->kind = FS3_ITEM_BOOT2;
	it->off = off;
	it->len = (uint32_t)len;
	it->crc_calc = crc16_be(img->buf + off, len - 4);
	it->crc_stored = be32(img->buf + off + len - 4);
	it->ok = it->crc_stored == it->crc_calc;
	img->boot2_off = off;
	*next = off + (uint32_t)len;
	return CX_OK;
}

static int check_bin_version(unsigned major, unsigned minor, struct cx_status *st)
{
	if (major > FS3_MAX_BIN_MAJOR)
		return cx_fail(st, CX_EUNSUPPORTED, "unsupported binary version (%u.%u): newer than this tool knows",
			       major, minor);
	return CX_OK;
}

/* FS3: header dword 9, BOOT2 at 0x38, the ITOC at the next 4 KiB boundary or a later one (§2). */
static int parse_fs3_front(struct fs3_image *img, struct cx_status *st)
{
	uint32_t d9 = be32(img->buf + img->start + FS3_VERSION_OFF), next;
	int rc;

	img->log2_slot = (d9 >> 16) & 0xff ? (d9 >> 16) & 0xff : FS3_LOG2_DEFAULT;
	img->bin_major = (d9 >> 8) & 0xff;
	img->bin_minor = d9 & 0xff;
	if ((rc = check_bin_version(img->bin_major, img->bin_minor, st)))
		return rc;
	if ((rc = fs3_check_boot2(img, img->start + FS3_BOOT2_OFF, &next, st)))
		return rc;
	uint64_t off = ((uint64_t)next - img->start + FS3_SECTOR - 1) / FS3_SECTOR * FS3_SECTOR;
	uint64_t end = img->len;
	/* Read from a card: within the slot only (fs3_parse_need()). */
	if (img->need && img->log2_slot < 32 && img->start + ((uint64_t)1 << img->log2_slot) < end)
		end = img->start + ((uint64_t)1 << img->log2_slot);
	for (; img->start + off + 32 <= end; off += FS3_SECTOR) {
		rc = fs3_parse_toc(img, img->start + (uint32_t)off, false, st);
		if (rc != CX_EABSENT)
			return rc;
		cx_status_clear(st);
	}
	return cx_fail(st, CX_EIMAGE, "no valid ITOC was found");
}

static int locate(struct fs3_image *img, struct cx_status *st)
{
	uint32_t s[10];
	int n = find_starts(img->buf, img->len, img->fmt->magic, s);

	if (n == 0)
		return cx_fail(st, CX_EIMAGE, "no valid %s image found", img->fmt->name);
	/* Fs4Operations::getImgStart refuses two; Fs3Operations takes the first (§8). */
	if (n > 1 && img->fmt->fmt == FMT_FS4)
		return cx_fail(st, CX_EIMAGE, "more than one FS4 image found in the file (at 0x%x and 0x%x)",
			       s[0], s[1]);
	img->start = s[0];
	if ((uint64_t)img->start + FS3_BOOT2_OFF > img->len)
		return cx_fail(st, CX_EIMAGE, "the image at 0x%x is truncated inside its header", img->start);
	return CX_OK;
}

static int parse(const uint8_t *buf, size_t len, const struct fs3_need *need, bool dev_lost_ok,
		 struct fs3_image *img, struct cx_status *st)
{
	int rc;

	memset(img, 0, sizeof(*img));
	img->dev_lost_ok = dev_lost_ok;
	img->buf = buf;
	img->len = len;
	img->need = need;
	img->rom_entry = img->ini_entry = img->info_entry = -1;
	enum fs3_fmt f = fs3_detect(buf, len);
	if (f != FMT_FS3 && f != FMT_FS4)
		return cx_fail(st, CX_EIMAGE, "not an FS3 or FS4 image");
	if (len > FS3_MAX_FILE)
		return cx_fail(st, CX_EIMAGE, "the file is larger than any flash (%zu bytes)", len);
	img->fmt = fs3_format_of(f);
	if ((rc = locate(img, st)))
		return rc;
	rc = img->fmt->hw_pointers ? fs3_parse_fs4_front(img, st) : parse_fs3_front(img, st);
	if (rc)
		return rc;
	return fs3_parse_sections(img, st);
}

int fs3_parse(const uint8_t *buf, size_t len, struct fs3_image *img, struct cx_status *st)
{
	return parse(buf, len, NULL, false, img, st);
}

int fs3_parse_need(const uint8_t *buf, size_t len, const struct fs3_need *need, struct fs3_image *img,
		   struct cx_status *st)
{
	int rc = parse(buf, len, need, false, img, st);

	img->need = NULL;
	return rc;
}

int fs3_parse_dev_lost(const uint8_t *buf, size_t len, struct fs3_image *img, struct cx_status *st)
{
	return parse(buf, len, NULL, true, img, st);
}

static const char *item_what(const struct fs3_item *it, char tmp[24])
{
	const char *n;

	if (it->kind == FS3_ITEM_BOOT2)
		return "BOOT2";
	if ((n = fs3_sect_name(it->type)))
		return n;
	snprintf(tmp, 24, "section 0x%x", it->type);
	return tmp;
}

/* The section types a quick query reads, so checks: mstflint 4.21 fs3_ops.cpp
 * IsFs3SectionReadable (quickQuery) takes those GetImageInfoFromSection knows, fs3-format.md §10. */
static const uint8_t query_reads[] = {
	0xe0, 0x10, 0xe1, /* MFG_INFO, IMAGE_INFO, DEV_INFO */
	0xa0, 0xa3, 0x18, /* IMAGE_SIGNATURE_256, IMAGE_SIGNATURE_512, ROM_CODE */
	0xa1, 0xa4,       /* PUBLIC_KEYS_2048, PUBLIC_KEYS_4096 */
};

bool fs3_query_reads(uint8_t type)
{
	for (size_t i = 0; i < sizeof(query_reads); i++)
		if (query_reads[i] == type)
			return true;
	return false;
}

static bool query_checks(const struct fs3_item *it)
{
	if (it->kind == FS3_ITEM_BOOT2)
		return false; /* FS3_CHECKB2 with !quickQuery: its size only, fs3-format.md §10 */
	if (it->kind != FS3_ITEM_SECTION || it->entry < 0)
		return true; /* a TOC header, or the FS4 pointers, tools area, hashes table */
	for (size_t i = 0; i < sizeof(query_reads); i++)
		if (query_reads[i] == it->type)
			return true;
	return false;
}

static int verdict(const struct fs3_image *img, bool query, struct cx_status *st)
{
	char tmp[24];

	for (int i = 0; i < img->nitems; i++) {
		const struct fs3_item *it = &img->items[i];
		if (query && !query_checks(it))
			continue;
		if (!it->ok)
			return cx_fail(st, CX_EIMAGE, "%s at 0x%x: wrong CRC (exp:0x%x, act:0x%x)",
				       item_what(it, tmp), it->off, it->crc_calc, it->crc_stored);
	}
	return CX_OK;
}

int fs3_verdict(const struct fs3_image *img, struct cx_status *st)
{
	return verdict(img, false, st);
}

int fs3_verdict_query(const struct fs3_image *img, struct cx_status *st)
{
	return verdict(img, true, st);
}

const uint8_t *fs3_entry_data(const struct fs3_image *img, const struct fs3_entry *e)
{
	return img->buf + e->data_off;
}
