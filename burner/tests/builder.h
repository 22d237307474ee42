/* SPDX-License-Identifier: GPL-2.0-or-later */
/* builder.h — a tiny FS2 image builder for the unit tests.
 *
 * Written from fs2-format.md alone and sharing no code with burner/image, so
 * a parser bug cannot hide behind the same bug in the builder: its own CRC16
 * (§2.1, bit by bit), its own big-endian helpers, its own tag list (§3.2).
 *
 * Layout (contiguous addresses):
 *   0x00 magic | 0x10 boot data | 0x20 dev_rev, full CRC | 0x24 format, boot
 *   version | 0x28 FS info | 0x2C info pointer | 0x30 size | 0x34 GUID pointer
 *   0x38 BOOT2 [BOOT2] CNF [ROM] GUID IMAGE_INFO FW_CONF (next = 0xFF000000)
 *
 * b_build() makes a complete, valid image from a spec; tests then poke at
 * b->buf and call b_seal() to recompute every CRC when they want only a
 * structural fault to remain.
 */
#ifndef CX_TEST_BUILDER_H
#define CX_TEST_BUILDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define B_MAX 16384
#define B_MAXSECT 1024
#define B_END 0xFF000000u

struct b_spec {
	int nguids;           /* entries in the GUID section (4 or 6) */
	uint64_t guid[6];     /* node, port1, port2, sys, mac1, mac2 */
	bool blank;           /* all-FF entries, GUID CRC 0xFFFF, full CRC 0xFFFF */
	bool mic;             /* IMAGE_INFO tag 11 present (enables the full CRC) */
	bool vsd_tag;         /* IMAGE_INFO tag 5 present */
	bool two_boot2;
	bool rom;             /* a ROM section with a PXE 3.4.752 record */
	const char *vsd;
	const char *psid;
	uint32_t fs_info;     /* dword 0x28 */
	uint8_t dev_rev;      /* byte 0x20 */
	uint8_t format;       /* byte 0x24 */
};

struct b_sect {
	uint32_t off, type, dlen;
};

struct b_img {
	uint8_t buf[B_MAX];
	size_t len;
	bool blank;
	int nboot2;
	uint32_t boot2_off[2], boot2_len[2];
	int nsect;
	struct b_sect sect[B_MAXSECT];
	int cnf, rom, guid, info, fwconf; /* indexes into sect[], -1 if absent */
	uint32_t psid_off, vsd_off;       /* absolute offsets of the tag payloads */
};

static const char b_ini_text[] =
	";; Generated automatically by iniprep tool on a test bench from ./test.prs\n"
	"[PS_INFO]\nName = MCX312B-XCC_Ax\nDescription = ConnectX-3 Pro EN test card\n"
	"[ADAPTER]\nPSID = MT_1200111023\nadapter_dev_id = 0x1007\n"
	"[FW]\nlog_flashdev_size = 21\nlog_flash_sector_size = 2\n";

static inline struct b_spec b_defaults(void)
{
	struct b_spec s = {
		.nguids = 6,
		.guid = {0x0002c9000100d050ull, 0x0002c9000100d051ull, 0x0002c9000100d052ull,
			 0x0002c9000100d053ull, 0x0002c9000001ull, 0x0002c9000002ull},
		.mic = true,
		.vsd_tag = true,
		.vsd = "n/a",
		.psid = "MT_1200111023",
		.fs_info = 0xF500000B, /* failsafe, 512 KiB chunks, §1.2 */
		.dev_rev = 0xA1,
	};
	return s;
}

static inline void b_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline uint32_t b_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void b_put64(uint8_t *p, uint64_t v)
{
	b_put32(p, (uint32_t)(v >> 32));
	b_put32(p + 4, (uint32_t)v);
}

/* §2.1 literally: register 0xFFFF, bits MSB first entering at the LSB, poly
 * 0x100B on carry-out, 16 zero bits to finish, XOR 0xFFFF. */
static inline uint16_t b_crc(const uint8_t *p, size_t len)
{
	uint32_t c = 0xFFFF;

	for (size_t i = 0; i < len * 8 + 16; i++) {
		unsigned bit = i < len * 8 ? (p[i / 8] >> (7 - i % 8)) & 1 : 0;
		uint32_t top = c & 0x8000;
		c = ((c << 1) | bit) & 0xFFFF;
		if (top)
			c ^= 0x100B;
	}
	return (uint16_t)(c ^ 0xFFFF);
}

/* The full-image CRC of §2.2: whole buffer, 0x20 bits 15:0 taken as 0xFFFF. */
static inline uint16_t b_full_crc(const uint8_t *buf, size_t len)
{
	uint8_t *tmp = malloc(len);
	uint16_t c;

	memcpy(tmp, buf, len);
	tmp[0x22] = tmp[0x23] = 0xFF;
	c = b_crc(tmp, len);
	free(tmp);
	return c;
}

static inline uint32_t b_boot2(struct b_img *b, uint32_t w0, uint32_t n, uint32_t w_extra)
{
	uint32_t off = (uint32_t)b->len;
	uint8_t *p = b->buf + off;

	b_put32(p, w0);
	b_put32(p + 4, n);
	for (uint32_t i = 0; i < n; i++)
		b_put32(p + 8 + 4 * i, 0x10203040u * (i + 1) + w0);
	b_put32(p + 8 + 4 * n, w_extra);
	b_put32(p + 12 + 4 * n, 0); /* CRC, set by b_seal */
	b->boot2_off[b->nboot2] = off;
	b->boot2_len[b->nboot2++] = (n + 4) * 4;
	b->len += (n + 4) * 4;
	return off;
}

/* Append a section: GPH (next linked by b_link), dlen data bytes, CRC dword. */
static inline int b_sect(struct b_img *b, uint32_t type, uint32_t size_field, uint32_t param,
			 const void *data, uint32_t dlen)
{
	int i = b->nsect++;
	uint8_t *p = b->buf + b->len;

	b_put32(p, type);
	b_put32(p + 4, size_field);
	b_put32(p + 8, param);
	b_put32(p + 12, 0);
	if (dlen)
		memcpy(p + 16, data, dlen);
	b_put32(p + 16 + dlen, 0);
	b->sect[i].off = (uint32_t)b->len;
	b->sect[i].type = type;
	b->sect[i].dlen = dlen;
	b->len += 16 + dlen + 4;
	return i;
}

/* Chain the sections in order; the last one ends the list. */
static inline void b_link(struct b_img *b)
{
	for (int i = 0; i < b->nsect; i++)
		b_put32(b->buf + b->sect[i].off + 12, i + 1 < b->nsect ? b->sect[i + 1].off : B_END);
}

/* Recompute every CRC: BOOT2s, sections (a blank GUID section gets 0xFFFF),
 * then the full-image CRC (0xFFFF for a blank image). */
static inline void b_seal(struct b_img *b)
{
	for (int i = 0; i < b->nboot2; i++) {
		uint8_t *p = b->buf + b->boot2_off[i];
		uint32_t len = b->boot2_len[i];
		b_put32(p + len - 4, b_crc(p, len - 4));
	}
	for (int i = 0; i < b->nsect; i++) {
		uint8_t *p = b->buf + b->sect[i].off;
		uint32_t dlen = b->sect[i].dlen;
		uint16_t c = (b->blank && i == b->guid) ? 0xFFFF : b_crc(p, 16 + dlen);
		b_put32(p + 16 + dlen, c);
	}
	uint32_t w = b_get32(b->buf + 0x20) & 0xFFFF0000u;
	b_put32(b->buf + 0x20, w | (b->blank ? 0xFFFF : b_full_crc(b->buf, b->len)));
}

/* Append tag id with len payload bytes from src (NULL: zeros). */
static inline uint32_t b_tag(uint8_t *list, uint32_t *n, unsigned id, const void *src, uint32_t len)
{
	b_put32(list + *n, (uint32_t)id << 24 | len);
	memset(list + *n + 4, 0, len);
	if (src)
		memcpy(list + *n + 4, src, len);
	*n += 4 + len;
	return *n - len; /* payload offset */
}

static inline uint32_t b_tag_dw(uint8_t *list, uint32_t *n, unsigned id, int cnt, uint32_t d0,
				uint32_t d1, uint32_t d2)
{
	uint8_t p[12];

	b_put32(p, d0);
	b_put32(p + 4, d1);
	b_put32(p + 8, d2);
	return b_tag(list, n, id, p, 4 * (uint32_t)cnt);
}

static inline uint32_t b_tag_str(uint8_t *list, uint32_t *n, unsigned id, const char *s, uint32_t len)
{
	uint32_t at = b_tag(list, n, id, NULL, len);
	size_t sl = strlen(s);

	memcpy(list + at, s, sl < len ? sl : len);
	return at;
}

/* The IMAGE_INFO tag list, in the real image's order (§3.2). */
static inline uint32_t b_info_list(const struct b_spec *s, uint8_t *list, uint32_t *psid_at,
				   uint32_t *vsd_at)
{
	uint32_t n = 0;

	b_tag_dw(list, &n, 0, 1, 1, 0, 0);
	b_tag_dw(list, &n, 1, 2, 0x00020000, 0x002a1388, 0);   /* 2.42.5000 */
	b_tag_dw(list, &n, 2, 2, 0x00140336, 0x20170905, 0);   /* 2017-09-05 */
	b_tag_dw(list, &n, 3, 1, 0x00001007, 0, 0);            /* 4103, CX3-Pro */
	b_tag_dw(list, &n, 10, 2, 0x000001f7, 0, 0);
	b_tag_dw(list, &n, 8, 1, 0x000015b3, 0, 0);
	*psid_at = b_tag_str(list, &n, 4, s->psid, 16);
	*vsd_at = 0;
	if (s->vsd_tag)
		*vsd_at = b_tag_str(list, &n, 5, s->vsd, 208);
	b_tag_str(list, &n, 7, "02.42.50.00", 16);
	if (s->mic)
		b_tag_dw(list, &n, 11, 2, 0x00020000, 0, 0);
	b_tag_dw(list, &n, 19, 3, 2, 0, 2);
	b_tag_str(list, &n, 20, "cx3pro_MCX312B_2mb.prs", 24);
	b_tag(list, &n, 0xFF, NULL, 0);
	return n;
}

static inline void b_build(struct b_img *b, const struct b_spec *s)
{
	static const uint32_t magic[4] = {0x4D544657, 0x8CDFD000, 0xDEAD9270, 0x4154BEEF};
	static const uint32_t boot_data[4] = {0x80343811, 0x80c00000, 0xbdc80807, 0x00000002};
	uint8_t tmp[1024];

	memset(b, 0, sizeof(*b));
	b->cnf = b->rom = b->guid = b->info = b->fwconf = -1;
	b->blank = s->blank;
	for (int i = 0; i < 4; i++) {
		b_put32(b->buf + 4 * i, magic[i]);
		b_put32(b->buf + 0x10 + 4 * i, boot_data[i]);
	}
	b_put32(b->buf + 0x20, (uint32_t)s->dev_rev << 24);
	b_put32(b->buf + 0x24, (uint32_t)s->format << 24 | 0x00000004);
	b_put32(b->buf + 0x28, s->fs_info);
	b->len = 0x38;

	b_boot2(b, 0x00100040, 4, 0x00100044);
	if (s->two_boot2)
		b_boot2(b, 0x00100654, 7, 0x00100658);

	/* CNF: (CR-space address, value, mask) triples, §1.4 */
	static const uint32_t cnf[9] = {0x1F064, 0x0002002A, 0xFFFFFFFF, 0x1F068, 0x13880000,
					0xFFFF0000, 0x1F99C, 0x00800000, 0x00800000};
	for (int i = 0; i < 9; i++)
		b_put32(tmp + 4 * i, cnf[i]);
	b->cnf = b_sect(b, 2, 9, 0, tmp, 36);

	if (s->rom) {
		/* 0x55AA option ROM with "mlxsign:" + PXE 3.4.752, AMD64 (§4.5) */
		static const uint8_t rec[12] = {0x03, 0x00, 0x10, 0x00, 0xF0, 0x02, 0x04, 0x00,
						0xFF, 0x11, 0x07, 0x10};
		memset(tmp, 0, 64);
		tmp[0] = 0x55;
		tmp[1] = 0xAA;
		tmp[2] = 0x01;
		memcpy(tmp + 20, "mlxsign:", 8);
		memcpy(tmp + 28, rec, 12);
		b->rom = b_sect(b, 5, 16, 0, tmp, 64);
	}

	for (int i = 0; i < s->nguids; i++)
		b_put64(tmp + 8 * i, s->blank ? UINT64_MAX : s->guid[i]);
	b->guid = b_sect(b, 6, 2 * (uint32_t)s->nguids, 0, tmp, 8 * (uint32_t)s->nguids);

	uint32_t psid_at, vsd_at;
	uint32_t ilen = b_info_list(s, tmp, &psid_at, &vsd_at);
	b->info = b_sect(b, 10, ilen / 4, 0, tmp, ilen);
	b->psid_off = b->sect[b->info].off + 16 + psid_at;
	b->vsd_off = s->vsd_tag ? b->sect[b->info].off + 16 + vsd_at : 0;

	uLongf zlen = sizeof(tmp);
	memset(tmp, 0, sizeof(tmp));
	if (compress(tmp, &zlen, (const Bytef *)b_ini_text, sizeof(b_ini_text) - 1) != Z_OK)
		abort();
	uint32_t zpad = ((uint32_t)zlen + 3) & ~3u;
	b->fwconf = b_sect(b, 9, zpad / 4, 0, tmp, zpad);

	b_link(b);
	uint32_t info_data = b->sect[b->info].off + 16;
	uint8_t cs = (uint8_t)(0x100 - ((info_data & 0xFF) + (info_data >> 8 & 0xFF) +
					(info_data >> 16 & 0xFF)));
	b_put32(b->buf + 0x2C, (uint32_t)cs << 24 | info_data);
	b_put32(b->buf + 0x30, (uint32_t)b->len);
	b_put32(b->buf + 0x34, b->sect[b->guid].off + 16);
	b_seal(b);
}

/* An exact-size heap copy of the first len bytes, so ASan catches overreads. */
static inline uint8_t *b_dup(const struct b_img *b, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	if (!p)
		abort();
	memcpy(p, b->buf, len);
	return p;
}

#endif
