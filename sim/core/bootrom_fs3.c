/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bootrom_fs3.c — the boot ROM's verdict on a ConnectX-4 / 4 Lx (FS3) or ConnectX-5 (FS4)
 * flash: is there an image that would boot, in which slot, with which version and PSID.
 *
 * The simulator's own minimal reader of docs/fs3-format.md; it shares no code with
 * burner/ or sim/mkfs3/ (only fs2_lite.h, the model's own CRC16, §2.3). What it checks:
 *  - where: the magic at slot 0, or at 1 << L for a slot size L (17..24) that the image
 *    found there declares itself (FS3: dword 9 [23:16], 0 meaning 21, §2.1; FS4: the tools
 *    area's log2_img_slot_size, §4.3). FS3 and FS4 are not zebra-striped (§8);
 *  - FS3: the FS2 magic with format byte 3 at +0x24 (§1.1); FS4: the FS4 magic with
 *    image_format_version 1 at +0x10 (§1.1), and the tools area's CRC (§4.3);
 *  - BOOT2's CRC16 (§2.1; FS4: at the boot2 HW pointer, §4.4);
 *  - the ITOC header's signature and CRC16 (§3.1): FS3 at the first 4 KiB boundary
 *    after BOOT2, or a later 4 KiB one (§2.2); FS4 at the toc HW pointer or one sector on
 *    (§4.4);
 *  - then, not a condition to boot: the FW version and PSID of IMAGE_INFO (type 0x10, §5),
 *    when the ITOC lists it inside the flash.
 * Not checked (UNCONFIRMED what the ROM checks beyond this): the FS4 HW-pointer CRCs,
 * section CRCs, the DTOC and device data, signatures. Both slots valid: the lower one
 * boots (as for FS2; what silicon does is UNCONFIRMED).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bootrom.h"
#include "fs2_lite.h"

#define FS3_IND 0x24            /* format [31:24], log2 slot [23:16], fs3-format.md §2.1 */
#define FS3_FORMAT 3            /* IMG_VER_FS3, §1.1 */
#define FS3_LOG_DEFAULT 21      /* log2 slot 0 means 21 (FS3_LOG_CHUNK_SIZE), §2.1 */
#define FS3_BOOT2 0x38          /* BOOT2 at image + 0x38, §2.1 */
#define FS4_FMT_VER 0x10        /* image_format_version [31:24] = 1, §1.1 */
#define FS4_HW_PTRS 0x18        /* 16 HW pointers {ptr, crc}, §4.1 */
#define HWP_BOOT2 1             /* boot2 pointer index, §4.1 */
#define HWP_TOC 2               /* toc pointer index, §4.1 */
#define HWP_TOOLS 3             /* tools pointer index, §4.1 */
#define TOOLS_DWORDS 16         /* tools area 0x40 bytes, CRC in dword 15, §4.3 */
#define SECTOR 0x1000           /* FS3/FS4_DEFAULT_SECTOR_SIZE, §2.2, §4.4 */
#define ITOC_SEARCH 16          /* FS3: sectors tried after the first for the ITOC (a bound) */
#define BOOT2_MIN_N 4u          /* fs2-format.md §1.3 */
#define BOOT2_MAX_N 1048576u
#define TOC_ENTRY 32            /* header and entries are 32 bytes, §3.1/§3.2 */
#define TOC_MAX 64              /* MAX_TOCS_NUM, §3.2 */
#define T_IMAGE_INFO 0x10       /* §5 */
#define T_END 0xFF              /* FS3_END, §3.2 */
#define E_ADDR_MASK 0x7FFFFFFCu /* entry dword 5 flash_addr [30:2], §3.2 */
#define E_RELATIVE (1u << 31)   /* FS3 relative_addr, §3.2 */
#define LOG_MIN 17              /* mkfs3 --slot-log range: the slot sizes looked at */
#define LOG_MAX 24

static const uint32_t fs3_magic[4] = {0x4D544657, 0x8CDFD000, 0xDEAD9270, 0x4154BEEF}; /* §1.1 */
static const uint32_t fs4_magic[4] = {0x4D544657, 0xABCDEF00, 0xFADE1234, 0x5678DEAD}; /* §1.1 */
static const uint32_t itoc_sig[4] = {0x49544F43, 0x04081516, 0x2342CAFA, 0xBACAFE00};  /* §3.1 */

struct fimg {
	const uint8_t *f;
	size_t size;
	uint32_t start;         /* the image's first byte in the flash */
	unsigned fs;
	char err[96];
};

static bool fail(struct fimg *m, const char *what, uint32_t off)
{
	snprintf(m->err, sizeof(m->err), "%s at image + 0x%x", what, off);
	return false;
}

/* The big-endian dword at image + off; false when outside the flash. */
static bool rd(const struct fimg *m, uint64_t off, uint32_t *v)
{
	uint64_t p = (uint64_t)m->start + off;

	if (p + 4 > m->size)
		return false;
	*v = fs2l_be32(m->f + p);
	return true;
}

/* Does the stored CRC16 ([15:0] of the dword after them) match n dwords at image + off? */
static bool crc_ok(const struct fimg *m, uint64_t off, uint32_t n)
{
	uint64_t p = (uint64_t)m->start + off;
	uint16_t crc = FS2L_CRC_INIT;
	uint32_t stored;

	if (p + 4ull * n + 4 > m->size)
		return false;
	for (uint64_t i = 0; i < 4ull * n; i++)
		crc = fs2l_crc_byte(crc, m->f[p + i]);
	stored = fs2l_be32(m->f + p + 4ull * n);
	return (stored & 0xFFFF) == fs2l_crc_final(crc);
}

static bool words_match(const struct fimg *m, uint64_t off, const uint32_t w[4])
{
	uint32_t v;

	for (unsigned i = 0; i < 4; i++)
		if (!rd(m, off + 4 * i, &v) || v != w[i])
			return false;
	return true;
}

/* BOOT2 at image + off ([w0][N][N dwords][w][CRC]); *end is the byte after it. */
static bool check_boot2(struct fimg *m, uint32_t off, uint32_t *end)
{
	uint32_t n;

	if (!rd(m, off + 4, &n) || n < BOOT2_MIN_N || n > BOOT2_MAX_N)
		return fail(m, "BOOT2 with an unexpected size", off);
	if (!crc_ok(m, off, n + 3))
		return fail(m, "BOOT2 with a wrong CRC", off);
	*end = off + 4 * (n + 4);
	return true;
}

static bool toc_header_ok(const struct fimg *m, uint32_t off)
{
	return words_match(m, off, itoc_sig) && crc_ok(m, off, 7);
}

/* The slot size an image at m->start declares, or 0 (not an image of this format). */
static unsigned declared_log(const struct fimg *m)
{
	uint32_t v, tools;

	if (m->fs == 3) {
		if (!words_match(m, 0, fs3_magic) || !rd(m, FS3_IND, &v) || v >> 24 != FS3_FORMAT)
			return 0;
		return ((v >> 16) & 0xFF) ? (v >> 16) & 0xFF : FS3_LOG_DEFAULT;
	}
	if (!words_match(m, 0, fs4_magic) || !rd(m, FS4_FMT_VER, &v) || v >> 24 != 1 ||
	    !rd(m, FS4_HW_PTRS + 8 * HWP_TOOLS, &tools) || !rd(m, tools + 4ull, &v))
		return 0;
	return v >> 16;
}

/* FW version and PSID from IMAGE_INFO, if the ITOC at toc lists it (§5). */
static void read_info(const struct fimg *m, uint32_t toc, struct cxsim_boot *b)
{
	for (unsigned i = 1; i < TOC_MAX; i++) {
		uint32_t e = toc + TOC_ENTRY * i, w0, w5, a, v1, v2;

		if (!rd(m, e, &w0) || w0 >> 24 == T_END)
			return;
		if (w0 >> 24 != T_IMAGE_INFO || !rd(m, e + 20, &w5))
			continue;
		a = w5 & E_ADDR_MASK;
		if (m->fs == 3 && !(w5 & E_RELATIVE))
			a -= m->start; /* absolute in the flash */
		if (!rd(m, a + 4ull, &v1) || !rd(m, a + 8ull, &v2) || m->start + (uint64_t)a + 0x34 > m->size)
			return;
		b->fw_ver[0] = (uint16_t)(v1 >> 16);
		b->fw_ver[1] = (uint16_t)(v2 >> 16);
		b->fw_ver[2] = (uint16_t)v2;
		memcpy(b->psid, m->f + m->start + a + 0x24, 16);
		b->psid[16] = '\0';
		for (char *p = b->psid; *p; p++)
			if (*p < 0x20 || *p > 0x7E)
				*p = '?';
		return;
	}
}

/* The FS3 ITOC after BOOT2: the first 4 KiB boundary with a signature (§2.2). */
static bool fs3_toc(struct fimg *m, uint32_t boot2_end, uint32_t *toc)
{
	uint32_t a = (boot2_end + SECTOR - 1) & ~(SECTOR - 1);

	for (unsigned i = 0; i <= ITOC_SEARCH; i++, a += SECTOR)
		if (words_match(m, a, itoc_sig)) {
			*toc = a;
			return toc_header_ok(m, a) || fail(m, "ITOC header with a wrong CRC", a);
		}
	return fail(m, "no ITOC after BOOT2", boot2_end);
}

static bool fs4_parts(struct fimg *m, uint32_t *toc)
{
	uint32_t tools, boot2, end;

	if (!rd(m, FS4_HW_PTRS + 8 * HWP_TOOLS, &tools) || !crc_ok(m, tools, TOOLS_DWORDS - 1))
		return fail(m, "tools area with a wrong CRC", FS4_HW_PTRS);
	if (!rd(m, FS4_HW_PTRS + 8 * HWP_BOOT2, &boot2) || !check_boot2(m, boot2, &end))
		return false;
	if (!rd(m, FS4_HW_PTRS + 8 * HWP_TOC, toc))
		return fail(m, "no toc pointer", FS4_HW_PTRS);
	if (toc_header_ok(m, *toc))
		return true;
	*toc += SECTOR;
	return toc_header_ok(m, *toc) || fail(m, "no valid ITOC header", *toc - SECTOR);
}

static bool check_image(struct fimg *m, struct cxsim_boot *b)
{
	uint32_t end, toc;

	if (m->fs == 3) {
		if (!check_boot2(m, FS3_BOOT2, &end) || !fs3_toc(m, end, &toc))
			return false;
	} else if (!fs4_parts(m, &toc)) {
		return false;
	}
	b->booted = true;
	b->start = m->start;
	read_info(m, toc, b);
	return true;
}

/* Try the image at start for slot size log (0: slot 0, any size). */
static bool try_slot(struct fimg *m, uint32_t start, unsigned want_log, struct cxsim_boot *cand)
{
	unsigned log;

	m->start = start;
	log = declared_log(m);
	if (!log || (want_log && log != want_log))
		return false;
	memset(cand, 0, sizeof(*cand));
	cand->slot_log = log;
	cand->slot = start ? 1 : 0;
	return check_image(m, cand);
}

void bootrom_scan_fs3(const uint8_t *flash, size_t size, unsigned fs, struct cxsim_boot *b)
{
	struct fimg m = {.f = flash, .size = size, .fs = fs};
	struct cxsim_boot cand;
	char why0[140] = "";

	memset(b, 0, sizeof(*b));
	if (try_slot(&m, 0, 0, &cand))
		*b = cand, b->nvalid = 1;
	else if (m.err[0])
		snprintf(why0, sizeof(why0), "slot 0: %s", m.err);
	for (unsigned log = LOG_MIN; log <= LOG_MAX && (1ull << log) < size; log++) {
		m.err[0] = '\0';
		if (try_slot(&m, 1u << log, log, &cand)) {
			if (!b->nvalid++)
				*b = cand, b->nvalid = 1;
			break;
		}
		if (m.err[0] && !why0[0])
			snprintf(why0, sizeof(why0), "slot 1 (0x%x): %s", 1u << log, m.err);
	}
	b->fs = fs;
	b->failsafe = true; /* FS3/FS4 images are always burnt failsafe (two slots) */
	if (!b->nvalid)
		snprintf(b->why, sizeof(b->why), "%s", why0[0] ? why0 :
			 fs == 3 ? "no FS3 image in slot 0 or 1" : "no FS4 image in slot 0 or 1");
}
