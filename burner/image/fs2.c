/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs2.c — parsing and checking an FS2 image held in memory (fs2-format.md §1–§3). */
#include <stdio.h>
#include <string.h>

#include "image/crc16.h"
#include "image/fs2.h"
#include "image/zebra.h"
#include "util/bytes.h"

/* Magic pattern, fs2-format.md §1.1 (_cntx_magic_pattern). */
static const uint32_t fs2_magic[4] = {0x4D544657, 0x8CDFD000, 0xDEAD9270, 0x4154BEEF};

/* 0 plus every possible chunk size, §1.1 (_cntx_image_start_pos). */
const uint32_t fs2_start_pos[] = {0, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000,
				  0x200000, 0x400000, 0x800000, 0x1000000, 0x2000000};
const unsigned fs2_nstart_pos = sizeof(fs2_start_pos) / sizeof(fs2_start_pos[0]);

#define FS_INFO_FAILSAFE 0x8    /* bit 3 of the FS info word, §1.5 */
#define FS_INFO_LOG2_MASK 0x7   /* bits 2:0 = log2(chunk) - 16, §1.5 */
#define INFO_PTR_ADDR_MASK 0xFFFFFF /* 0x2C bits 23:0, §1.2 */
#define BOOT2_N_MIN 4           /* CheckBoot2 bounds, §1.3 */
#define BOOT2_N_MAX 1048576
#define BOOT2_EXTRA_DWORDS 4    /* w0, N, w_extra, CRC around the code, §1.3 */
#define SECT_END_FF 0xFF000000  /* `next` values that end the chain, §1.4 */
#define SECT_END_ZERO 0
#define FULL_CRC_MASK 0xFFFF    /* 0x20 bits 15:0, §2.2 */
#define BLANK_CRC 0xFFFF        /* GUID-section and full CRC of a blank image, §2.2 */

static const char *const sect_names[] = {
	"UNKNOWN (0 - Reserved)", "DDR", "Configuration", "Jump addresses", "EMT Service",
	"ROM", "GUID", "BOARD ID", "User Data", "FW Configuration", "Image Info", "DDRZ",
	"Hash File",
};

const char *fs2_sect_name(uint32_t type, char tmp[24])
{
	if (type >= 1 && type <= FS2_SECT_LAST_KNOWN)
		return sect_names[type];
	snprintf(tmp, 24, "UNKNOWN (%d)", (int)type);
	return tmp;
}

bool fs2_has_magic(const uint8_t *buf)
{
	for (int i = 0; i < 4; i++)
		if (be32(buf + 4 * i) != fs2_magic[i])
			return false;
	return true;
}

int fs2_locate(const uint8_t *flash, size_t len, uint32_t starts[2], int *nstarts,
	       struct cx_status *st)
{
	uint32_t found[sizeof(fs2_start_pos) / sizeof(fs2_start_pos[0])];
	int n = 0;

	for (unsigned i = 0; i < fs2_nstart_pos; i++)
		if (fs2_start_pos[i] + FS2_MAGIC_LEN <= len && fs2_has_magic(flash + fs2_start_pos[i]))
			found[n++] = fs2_start_pos[i];
	*nstarts = 0;
	if (n == 0)
		return cx_fail(st, CX_EIMAGE, "no FS2 image found: no magic at any start position");
	if (n > 2)
		return cx_fail(st, CX_EIMAGE,
			       "more than two images found (at 0x%x, 0x%x and 0x%x): the flash or file is corrupt",
			       found[0], found[1], found[2]);
	for (int i = 0; i < n; i++)
		starts[i] = found[i];
	*nstarts = n;
	return CX_OK;
}

uint16_t fs2_full_crc(const uint8_t *buf, size_t len)
{
	struct crc16 c;

	crc16_init(&c);
	for (size_t off = 0; off + 4 <= len; off += 4) {
		uint32_t v = be32(buf + off);
		if (off == FS2_OFF_FULL_CRC)
			v |= FULL_CRC_MASK;
		crc16_add_dword(&c, v);
	}
	return crc16_finish(&c);
}

static struct fs2_item *add_item(struct fs2_image *img)
{
	struct fs2_item *it = &img->items[img->nitems++];

	memset(it, 0, sizeof(*it));
	return it;
}

/* BOOT2 at off: [w0][N][N code dwords][w_extra][CRC], §1.3. */
static int parse_boot2(struct fs2_image *img, uint32_t off, uint32_t *next, struct crc16 *full,
		       struct cx_status *st)
{
	if ((uint64_t)off + 8 > img->len)
		return cx_fail(st, CX_EIMAGE, "BOOT2 at 0x%x: image truncated inside its header", off);
	uint32_t n = be32(img->buf + off + 4);
	if (n < BOOT2_N_MIN || n > BOOT2_N_MAX)
		return cx_fail(st, CX_EIMAGE, "BOOT2 at 0x%x: code size %u dwords is out of range (%u..%u)",
			       off, n, BOOT2_N_MIN, BOOT2_N_MAX);
	uint64_t len = ((uint64_t)n + BOOT2_EXTRA_DWORDS) * 4;
	if (off + len > img->len)
		return cx_fail(st, CX_EIMAGE,
			       "BOOT2 at 0x%x: its 0x%llx bytes run past the end of the image (0x%zx)", off,
			       (unsigned long long)len, img->len);

	struct fs2_item *it = add_item(img);
	it->kind = FS2_ITEM_BOOT2;
	it->off = off;
	it->len = (uint32_t)len;
	it->data_len = n * 4;
	it->crc_calc = crc16_be(img->buf + off, len - 4);
	it->crc_stored = be32(img->buf + off + len - 4);
	it->ok = it->crc_stored == it->crc_calc;
	crc16_add_be(full, img->buf + off, len);
	img->nboot2++;
	*next = off + (uint32_t)len;
	return CX_OK;
}

static int parse_section(struct fs2_image *img, uint32_t off, uint32_t *next, struct crc16 *full,
			 struct cx_status *st)
{
	char tmp[24];

	if ((uint64_t)off + FS2_GPH_SIZE > img->len)
		return cx_fail(st, CX_EIMAGE,
			       "section header at 0x%x: runs past the end of the image (0x%zx): truncated?",
			       off, img->len);
	const uint8_t *g = img->buf + off;
	uint32_t type = be32(g), size = be32(g + 4);
	uint64_t dlen = type == FS2_EMT ? ((uint64_t)size + 3) / 4 * 4 : (uint64_t)size * 4;
	const char *name = fs2_sect_name(type, tmp);

	if (dlen > FS2_MAX_SECTION)
		return cx_fail(st, CX_EIMAGE, "section %s at 0x%x: size 0x%llx is larger than the 0x%x limit",
			       name, off, (unsigned long long)dlen, FS2_MAX_SECTION);
	if (off + FS2_GPH_SIZE + dlen + 4 > img->len)
		return cx_fail(st, CX_EIMAGE,
			       "section %s at 0x%x: its 0x%llx bytes run past the end of the image (0x%zx): truncated?",
			       name, off, (unsigned long long)(FS2_GPH_SIZE + dlen + 4), img->len);
	if (img->nitems >= FS2_MAX_SECTIONS)
		return cx_fail(st, CX_EIMAGE, "more than %d sections: the section chain is corrupt",
			       FS2_MAX_SECTIONS);

	struct fs2_item *it = add_item(img);
	it->kind = FS2_ITEM_SECTION;
	it->type = type;
	it->off = off;
	it->len = (uint32_t)(FS2_GPH_SIZE + dlen + 4);
	it->data_off = off + FS2_GPH_SIZE;
	it->data_len = (uint32_t)dlen;
	it->param = be32(g + 8);
	it->crc_calc = crc16_be(g, FS2_GPH_SIZE + dlen);
	it->crc_stored = be32(g + FS2_GPH_SIZE + dlen);
	/* Blank-GUID rule: stored CRC 0xFFFF and an all-ones node GUID, §2.2. */
	if (type == FS2_GUID && it->crc_stored == BLANK_CRC && dlen >= 8 &&
	    be64(g + FS2_GPH_SIZE) == UINT64_MAX)
		it->blank = true;
	it->ok = it->blank || it->crc_stored == it->crc_calc;
	/* The full CRC takes each section with its computed CRC, §2.2. */
	crc16_add_be(full, g, FS2_GPH_SIZE + dlen);
	crc16_add_dword(full, it->crc_calc);

	int idx = img->nitems - 1;
	if (type == FS2_GUID && img->guid_sect < 0)
		img->guid_sect = idx;
	else if (type == FS2_IMG_INFO && img->info_sect < 0)
		img->info_sect = idx;
	else if (type == FS2_ROM && img->rom_sect < 0)
		img->rom_sect = idx;
	else if (type == FS2_FW_CONF && img->fwconf_sect < 0)
		img->fwconf_sect = idx;

	img->last_addr = off + it->len;
	*next = be32(g + 12);
	return CX_OK;
}

static int parse_header(struct fs2_image *img, struct cx_status *st)
{
	const uint8_t *b = img->buf;

	if (img->len < FS2_BOOT2_START)
		return cx_fail(st, CX_EIMAGE, "image is %zu bytes: too short for an FS2 header (%d bytes)",
			       img->len, FS2_BOOT2_START);
	if (!fs2_has_magic(b))
		return cx_fail(st, CX_EIMAGE, "no FS2 magic at the start of the image");
	if (b[FS2_OFF_BOOT_VER] == FS2_FORMAT_FS3)
		return cx_fail(st, CX_EUNSUPPORTED,
			       "this is an FS3 image (ConnectX-4 or later), not FS2: not supported");
	img->dev_rev = b[FS2_OFF_FULL_CRC];
	img->full_crc_stored = be32(b + FS2_OFF_FULL_CRC) & FULL_CRC_MASK;
	img->fs_info = be32(b + FS2_OFF_FS_INFO);
	if (byte_sum32(img->fs_info))
		return cx_fail(st, CX_EIMAGE, "corrupted FS info word 0x%08x at 0x%x: checksum byte is wrong",
			       img->fs_info, FS2_OFF_FS_INFO);
	img->failsafe = img->fs_info & FS_INFO_FAILSAFE;
	img->log2chunk = (img->fs_info & FS_INFO_LOG2_MASK) + ZEBRA_LOG2CHUNK_MIN;
	uint32_t ip = be32(b + FS2_OFF_INFO_PTR);
	if (ip && byte_sum32(ip))
		return cx_fail(st, CX_EIMAGE,
			       "corrupted image-info pointer 0x%08x at 0x%x: checksum byte is wrong", ip,
			       FS2_OFF_INFO_PTR);
	img->info_ptr = ip & INFO_PTR_ADDR_MASK;
	img->img_size = be32(b + FS2_OFF_IMG_SIZE);
	img->guid_ptr = be32(b + FS2_OFF_GUID_PTR);
	return CX_OK;
}

static int parse_chain(struct fs2_image *img, struct crc16 *full, struct cx_status *st)
{
	uint32_t next;
	int rc = parse_boot2(img, FS2_BOOT2_START, &next, full, st);

	if (rc)
		return rc;
	/* A second BOOT2 sits where the first section would, §1.3. */
	if ((uint64_t)next + 4 <= img->len) {
		uint32_t t = be32(img->buf + next);
		if (t < 1 || t > FS2_SECT_LAST_KNOWN) {
			if ((rc = parse_boot2(img, next, &next, full, st)))
				return rc;
		}
	}
	while (next != SECT_END_ZERO && next != SECT_END_FF) {
		uint32_t here = next;
		if ((rc = parse_section(img, here, &next, full, st)))
			return rc;
		if (next != SECT_END_ZERO && next != SECT_END_FF && next <= here)
			return cx_fail(st, CX_EIMAGE,
				       "section at 0x%x points back to 0x%x: the section chain loops", here, next);
	}
	return CX_OK;
}

/* The header pointers must name the sections the chain found. */
static int check_pointers(struct fs2_image *img, struct cx_status *st)
{
	if (img->guid_sect >= 0) {
		const struct fs2_item *g = &img->items[img->guid_sect];
		if (img->guid_ptr != g->data_off)
			return cx_fail(st, CX_EIMAGE,
				       "GUID pointer 0x%x at 0x%x does not point at the GUID section data (0x%x)",
				       img->guid_ptr, FS2_OFF_GUID_PTR, g->data_off);
		int n = (int)(g->data_len / 8);
		if (n > GUIDS_MAX)
			return cx_fail(st, CX_EIMAGE, "GUID section at 0x%x holds %d entries: more than %d",
				       g->off, n, GUIDS_MAX);
		guids_decode(img->buf + g->data_off, n, &img->guids);
		/* Blank also takes the blank CRC (Fs2Query, §3.1): all-ones
		 * entries under a real CRC are ordinary values. */
		if ((g->crc_stored & 0xFFFF) != BLANK_CRC)
			img->guids.blank = false;
	}
	if (img->info_sect >= 0) {
		const struct fs2_item *in = &img->items[img->info_sect];
		if (img->info_ptr && img->info_ptr != in->data_off)
			return cx_fail(st, CX_EIMAGE,
				       "image-info pointer 0x%x does not point at the Image Info section data (0x%x)",
				       img->info_ptr, in->data_off);
		int rc = info_parse(img->buf + in->data_off, in->data_len, in->data_off, &img->info, st);
		if (rc)
			return rc;
	} else if (img->info_ptr) {
		return cx_fail(st, CX_EIMAGE, "image-info pointer 0x%x names no Image Info section",
			       img->info_ptr);
	}
	if (img->rom_sect >= 0) {
		const struct fs2_item *r = &img->items[img->rom_sect];
		img->nroms = rom_parse(img->buf + r->data_off, r->data_len, img->roms);
	}
	return CX_OK;
}

int fs2_parse(const uint8_t *buf, size_t len, struct fs2_image *img, struct cx_status *st)
{
	struct crc16 full;
	int rc;

	memset(img, 0, sizeof(*img));
	img->buf = buf;
	img->len = len;
	img->guid_sect = img->info_sect = img->rom_sect = img->fwconf_sect = -1;
	if ((rc = parse_header(img, st)))
		return rc;

	/* The header's part of the full CRC has 0x20 bits 15:0 forced to 0xFFFF, §2.2. */
	crc16_init(&full);
	for (uint32_t off = 0; off < FS2_BOOT2_START; off += 4)
		crc16_add_dword(&full, be32(buf + off) | (off == FS2_OFF_FULL_CRC ? FULL_CRC_MASK : 0));
	if ((rc = parse_chain(img, &full, st)))
		return rc;
	if (img->guid_sect < 0)
		return cx_fail(st, CX_EIMAGE, "image has no GUID section");
	if ((rc = check_pointers(img, st)))
		return rc;

	img->full_crc_calc = crc16_finish(&full);
	/* flint checks the full CRC only when tag 11 (MIC version) is present,
	 * §2.3; a blank-GUID image carries 0xFFFF there, §3.1. */
	img->has_full_crc = img->info.have[TAG_MIC_VERSION];
	struct fs2_item *f = add_item(img);
	f->kind = FS2_ITEM_FULL;
	f->off = 0;
	f->len = img->last_addr;
	f->crc_stored = img->full_crc_stored;
	f->crc_calc = img->full_crc_calc;
	f->blank = img->guids.blank && img->full_crc_stored == BLANK_CRC;
	f->ok = !img->has_full_crc || f->blank || f->crc_stored == f->crc_calc;
	return CX_OK;
}

int fs2_verdict(const struct fs2_image *img, struct cx_status *st)
{
	char tmp[24];

	for (int i = 0; i < img->nitems; i++) {
		const struct fs2_item *it = &img->items[i];
		if (it->ok || it->unread)
			continue;
		const char *what = it->kind == FS2_ITEM_BOOT2 ? "BOOT2"
				   : it->kind == FS2_ITEM_FULL ? "full image"
							       : fs2_sect_name(it->type, tmp);
		return cx_fail(st, CX_EIMAGE, "%s at 0x%x: wrong CRC (stored 0x%x, computed 0x%x)", what,
			       it->off, it->crc_stored, it->crc_calc);
	}
	if (img->guids.blank)
		return cx_fail(st, CX_EBLANK,
			       "image has blank GUIDs: its structure is sound, but a card cannot boot it until GUIDs are set");
	return CX_OK;
}
