/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bootrom.c — the model's boot ROM: find and check the FS2 image a card boots.
 *
 * The simulator's own small FS2 reader (fs2-format.md §1–§3); it shares no
 * code with burner/ or sim/mkfs2/. Every read goes through img_byte(), which
 * refuses any physical address outside [flash, flash + size), so no content
 * of the flash can make it read outside the array.
 *
 * Choices where the documents leave the hardware's behaviour open:
 *  - Both slots valid: the image at the lower address boots, as mstflint
 *    picks it (fs2-format.md §1.1, §1.5). What the hardware ROM loader does
 *    is UNCONFIRMED.
 *  - Blank GUIDs (GUID section CRC 0xFFFF, first entry all-FF): the image is
 *    valid and boots, with the all-FF GUIDs/MACs as stored. mstflint's checkGen
 *    accepts such a section; only its query step refuses "BLANK GUIDS", and
 *    real cards with blank GUIDs reportedly boot firmware (UNCONFIRMED). Its
 *    full-image CRC (tag 11) may be 0xFFFF or a real one.
 *  - Identity comes from the first GUID and IMAGE_INFO sections met in the
 *    section chain (the 0x34 GUID pointer is not used). An image without a
 *    GUID section boots with nguids 0; without IMAGE_INFO, with no version.
 *  - The image-size word (0x30) is not checked, as mstflint's verify doesn't.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bootrom.h"
#include "fs2_lite.h"

#define MAX_SECTIONS	512		/* chain length bound (a real image has ~20) */
#define MAX_SECT_BYTES	0x400000u	/* MAX_SECTION_SIZE, §1.4 */
#define BOOT2_MIN_N	4u		/* §1.3 */
#define BOOT2_MAX_N	1048576u
#define T_EMT		4u
#define T_GUID		6u
#define T_INFO		10u

static const uint32_t start_pos[] = {
	0, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000,
	0x200000, 0x400000, 0x800000, 0x1000000, 0x2000000,
};
static const uint8_t magic[16] = {
	0x4D, 0x54, 0x46, 0x57, 0x8C, 0xDF, 0xD0, 0x00,
	0xDE, 0xAD, 0x92, 0x70, 0x41, 0x54, 0xBE, 0xEF,
};

struct img {
	const uint8_t *f;
	size_t size;
	bool zebra;		/* read through the failsafe translation (§1.5) */
	unsigned log2c, slot;
	uint16_t full[2];	/* full-image CRC: [0] fed stored section CRCs, [1] computed */
	bool blank, mic, have_guid, have_info;
	char err[120];
};

static bool fail(struct img *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
	return false;
}

const uint16_t *fs2l_crc_table(void)
{
	static uint16_t t[256];
	static int made;

	if (!made) {
		for (unsigned i = 0; i < 256; i++)
			t[i] = fs2l_crc_byte_slow(0, (uint8_t)i);
		made = 1;
	}
	return t;
}

/* Contiguous image address -> flash byte; false when that lies outside the flash. */
static bool img_byte(const struct img *m, uint64_t a, uint8_t *v)
{
	uint64_t p = a;

	if (m->zebra) {
		uint64_t low = a & ((1ull << m->log2c) - 1);

		p = low | (uint64_t)m->slot << m->log2c | (a >> m->log2c) << (m->log2c + 1);
	}
	if (p >= m->size)
		return false;
	*v = m->f[p];
	return true;
}

static bool img_be32(const struct img *m, uint64_t a, uint32_t *v)
{
	uint8_t b[4];

	for (unsigned i = 0; i < 4; i++)
		if (!img_byte(m, a + i, &b[i]))
			return false;
	*v = fs2l_be32(b);
	return true;
}

/* Feed len bytes at contiguous a into *crc and into both full-image CRCs; false
 * when a byte lies outside the flash. A run of bytes that img_byte() would map to
 * consecutive flash bytes (all of them, or one zebra chunk) is read in one go. */
static bool img_crc(struct img *m, uint64_t a, uint64_t len, uint16_t *crc)
{
	const uint16_t *t = fs2l_crc_table();
	uint16_t c = *crc, f0 = m->full[0], f1 = m->full[1];

	while (len) {
		uint64_t p = a, run = len;

		if (m->zebra) {
			uint64_t chunk = 1ull << m->log2c, low = a & (chunk - 1);

			p = low | (uint64_t)m->slot << m->log2c | (a >> m->log2c) << (m->log2c + 1);
			if (run > chunk - low)
				run = chunk - low;
		}
		if (p >= m->size || run > m->size - p)
			return false;
		for (const uint8_t *v = m->f + p, *end = v + run; v < end; v++) {
			c = (uint16_t)(c << 8) ^ t[(c >> 8) ^ *v];
			f0 = (uint16_t)(f0 << 8) ^ t[(f0 >> 8) ^ *v];
			f1 = (uint16_t)(f1 << 8) ^ t[(f1 >> 8) ^ *v];
		}
		a += run;
		len -= run;
	}
	*crc = c;
	m->full[0] = f0;
	m->full[1] = f1;
	return true;
}

static void full_add32(struct img *m, int which, uint32_t v)
{
	for (int s = 24; s >= 0; s -= 8)
		m->full[which] = fs2l_crc_byte(m->full[which], (uint8_t)(v >> s));
}

/* One BOOT2 at a (§1.3); *next = what follows it. */
static bool check_boot2(struct img *m, uint32_t a, uint32_t *next)
{
	uint32_t n, stored;
	uint16_t crc = FS2L_CRC_INIT;

	if (!img_be32(m, a + 4ull, &n))
		return fail(m, "BOOT2 at 0x%x is outside the flash", a);
	if (n < BOOT2_MIN_N || n > BOOT2_MAX_N)
		return fail(m, "BOOT2 at 0x%x: bad size %u dwords", a, n);
	if (!img_crc(m, a, (n + 3ull) * 4, &crc) || !img_be32(m, a + (n + 3ull) * 4, &stored))
		return fail(m, "BOOT2 at 0x%x runs past the end of the flash", a);
	crc = fs2l_crc_final(crc);
	if (stored != crc)
		return fail(m, "BOOT2 at 0x%x: CRC 0x%04x, stored 0x%08x", a, crc, stored);
	full_add32(m, 0, stored);
	full_add32(m, 1, stored);
	*next = a + (n + 4) * 4;
	return true;
}

/* IMAGE_INFO tag list (§3.2): data at d, dlen bytes. */
static bool parse_info(struct img *m, uint32_t d, uint32_t dlen, struct cxsim_boot *b)
{
	for (uint32_t off = 0;;) {
		uint32_t hdr, id, len, w[2] = { 0, 0 };

		if (off + 4ull > dlen || !img_be32(m, (uint64_t)d + off, &hdr))
			return fail(m, "IMAGE_INFO: no end tag");
		id = hdr >> 24;
		len = hdr & 0xFFFFFF;
		if (id == 0xFF) {
			if (off + 4 != dlen)
				return fail(m, "IMAGE_INFO: end tag at +0x%x, not at the end (+0x%x)",
					    off, dlen - 4);
			return true;
		}
		if (off + 4ull + len > dlen)
			return fail(m, "IMAGE_INFO: tag %u runs past the section end", id);
		for (unsigned i = 0; i < 2 && (i + 1) * 4 <= len; i++)
			img_be32(m, (uint64_t)d + off + 4 + i * 4, &w[i]);
		if (id == 1 && len >= 8) {
			b->fw_ver[0] = (uint16_t)(w[0] >> 16);
			b->fw_ver[1] = (uint16_t)(w[1] >> 16);
			b->fw_ver[2] = (uint16_t)w[1];
		} else if (id == 3 && len >= 4) {
			b->dev_type = (uint16_t)w[0];
		} else if (id == 4 || id == 5) {
			char *s = id == 4 ? b->psid : b->vsd;
			uint32_t max = id == 4 ? sizeof(b->psid) - 1 : sizeof(b->vsd) - 1;

			memset(s, 0, max + 1);
			for (uint32_t i = 0; i < len && i < max; i++)
				img_byte(m, (uint64_t)d + off + 4 + i, (uint8_t *)&s[i]);
		} else if (id == 11) {
			m->mic = true;
		}
		off += 4 + len;
	}
}

static void read_guids(struct img *m, uint32_t d, uint32_t dlen, struct cxsim_boot *b)
{
	uint64_t g[6] = { 0 };
	unsigned n = dlen / 8;

	for (unsigned i = 0; i < n && i < 6; i++) {
		uint32_t h = 0, l = 0;

		img_be32(m, (uint64_t)d + i * 8, &h);
		img_be32(m, (uint64_t)d + i * 8 + 4, &l);
		g[i] = (uint64_t)h << 32 | l;
	}
	b->nguids = (int)n;
	memcpy(b->guids, g, sizeof(b->guids));
	if (n >= 6) {
		b->macs[0] = g[4];
		b->macs[1] = g[5];
	} else {	/* §3.1: drop the middle 16 bits of the port GUIDs */
		for (unsigned i = 0; i < 2; i++)
			b->macs[i] = n > i + 1 ? (g[i + 1] >> 40) << 24 | (g[i + 1] & 0xFFFFFF) : 0;
	}
}

/* The section chain from a (§1.4, §2.2). */
static bool check_sections(struct img *m, uint32_t a, struct cxsim_boot *b)
{
	uint32_t seen[MAX_SECTIONS];

	for (unsigned k = 0;; k++) {
		uint32_t gph[4], stored, dlen;
		uint16_t crc = FS2L_CRC_INIT;

		if (k == MAX_SECTIONS)
			return fail(m, "more than %u sections", MAX_SECTIONS);
		for (unsigned i = 0; i < k; i++)
			if (seen[i] == a)
				return fail(m, "section chain loops back to 0x%x", a);
		seen[k] = a;
		for (unsigned i = 0; i < 4; i++)
			if (!img_be32(m, a + i * 4ull, &gph[i]))
				return fail(m, "section at 0x%x is outside the flash", a);
		if (gph[0] == T_EMT ? gph[1] > MAX_SECT_BYTES : gph[1] > MAX_SECT_BYTES / 4)
			return fail(m, "section at 0x%x (type %u): size 0x%x too large", a, gph[0], gph[1]);
		dlen = gph[0] == T_EMT ? (gph[1] + 3) & ~3u : gph[1] * 4;
		if (!img_crc(m, a, 16ull + dlen, &crc) || !img_be32(m, a + 16ull + dlen, &stored))
			return fail(m, "section at 0x%x (type %u) runs past the end of the flash",
				    a, gph[0]);
		crc = fs2l_crc_final(crc);
		if (stored != crc) {
			uint32_t g0 = 0, g1 = 0;

			if (gph[0] != T_GUID || stored != 0xFFFF || dlen < 8 ||
			    !img_be32(m, a + 16ull, &g0) || !img_be32(m, a + 20ull, &g1) ||
			    g0 != 0xFFFFFFFF || g1 != 0xFFFFFFFF)
				return fail(m, "section at 0x%x (type %u): CRC 0x%04x, stored 0x%08x",
					    a, gph[0], crc, stored);
			m->blank = true;
		}
		full_add32(m, 0, stored);
		full_add32(m, 1, crc);
		if (gph[0] == T_GUID && !m->have_guid) {
			m->have_guid = true;
			read_guids(m, a + 16, dlen, b);
		} else if (gph[0] == T_INFO && !m->have_info) {
			m->have_info = true;
			if (!parse_info(m, a + 16, dlen, b))
				return false;
		}
		if (gph[3] == 0 || gph[3] == 0xFF000000)
			return true;
		a = gph[3];
	}
}

static bool sum8_zero(uint32_t w)
{
	return ((w + (w >> 8) + (w >> 16) + (w >> 24)) & 0xFF) == 0;
}

/* Validate the image whose magic is at physical start; fill *b on success. */
static bool check_image(struct img *m, uint32_t start, struct cxsim_boot *b)
{
	uint8_t hdr[0x38];
	uint32_t fsinfo, infoptr, next, t;
	uint16_t stored_full, f0, f1;

	if (start + sizeof(hdr) > m->size)
		return fail(m, "header runs past the end of the flash");
	memcpy(hdr, m->f + start, sizeof(hdr));
	if (hdr[0x24] == 3)
		return fail(m, "FS3 image (format version 3), not FS2");
	fsinfo = fs2l_be32(hdr + 0x28);
	infoptr = fs2l_be32(hdr + 0x2C);
	if (!sum8_zero(fsinfo))
		return fail(m, "FS info word 0x%08x: bad checksum", fsinfo);
	if (!sum8_zero(infoptr))
		return fail(m, "image-info pointer 0x%08x: bad checksum", infoptr);
	b->failsafe = fsinfo & 8;
	m->log2c = (fsinfo & 7) + 16;
	if (b->failsafe) {
		if (start != 0 && start != 1u << m->log2c)
			return fail(m, "failsafe image with 0x%x chunks can't start here",
				    1u << m->log2c);
		m->zebra = true;
		m->slot = start != 0;
	} else if (start != 0) {
		return fail(m, "non-failsafe image not at 0");
	}
	b->start = start;
	b->slot = m->slot;

	/* Full-image CRC: the header with 0x20 bits 15:0 read as 0xFFFF (§2.2). */
	stored_full = (uint16_t)(hdr[0x22] << 8 | hdr[0x23]);
	hdr[0x22] = hdr[0x23] = 0xFF;
	m->full[0] = m->full[1] = FS2L_CRC_INIT;
	for (unsigned i = 0; i < sizeof(hdr); i++)
		m->full[0] = m->full[1] = fs2l_crc_byte(m->full[0], hdr[i]);

	if (!check_boot2(m, 0x38, &next))
		return false;
	/* A second BOOT2 follows when the next "type" is not a section type (§1.3). */
	if (img_be32(m, next, &t) && (t < 1 || t > 12) && !check_boot2(m, next, &next))
		return false;
	if (!check_sections(m, next, b))
		return false;

	f0 = fs2l_crc_final(m->full[0]);
	f1 = fs2l_crc_final(m->full[1]);
	if (m->mic && stored_full != f1 &&
	    !(m->blank && (stored_full == 0xFFFF || stored_full == f0)))
		return fail(m, "full-image CRC 0x%04x, stored 0x%04x", f1, stored_full);
	return true;
}

void bootrom_scan(const uint8_t *flash, size_t size, unsigned npos, struct cxsim_boot *b)
{
	bool tried = false;

	memset(b, 0, sizeof(*b));
	if (npos > sizeof(start_pos) / sizeof(start_pos[0]))
		npos = sizeof(start_pos) / sizeof(start_pos[0]);
	for (unsigned i = 0; i < npos; i++) {
		uint32_t s = start_pos[i];
		struct img m = { .f = flash, .size = size };
		struct cxsim_boot cand = { 0 };

		if (s + 16ull > size || memcmp(flash + s, magic, sizeof(magic)))
			continue;
		if (check_image(&m, s, &cand)) {
			/* The lowest valid address boots (UNCONFIRMED, see the top). */
			if (b->nvalid++ == 0) {
				cand.booted = true;
				*b = cand;
				b->nvalid = 1;
			}
		} else if (!tried) {	/* the reason comes from the first candidate */
			snprintf(b->why, sizeof(b->why), "image at 0x%x: %s", s, m.err);
		}
		tried = true;
	}
	if (!b->nvalid && !tried)
		snprintf(b->why, sizeof(b->why), "no FS2 magic at any start position");
	if (b->nvalid)
		b->why[0] = '\0';
}
