/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3_builder.h — a tiny FS3/FS4 image builder for the unit tests.
 *
 * Written from fs3-format.md and sharing no code with burner/image (nor with any
 * generator): its own CRC16 (augmented, bit by bit), its own hardware-pointer
 * CRC (the MSB-first form of the polynomial on bit-reversed bytes, a different
 * derivation from the parser's reflected one), its own field packing.
 *
 * Layout of the 128 KiB file (addresses relative to the image start, 0):
 *   FS3: 0x0 magic | 0x24 format 3, log2 slot, bin version | 0x38 BOOT2 | 0x1000 ITOC
 *   FS4: 0x0 magic | 0x10 version 1 | 0x18 16 HW pointers | 0x500 tools area |
 *        0x1000 BOOT2 | 0x2000 hashes table (optional) | 0x3000 ITOC
 *   sections from 0x4000, one per 4 KiB; device data near the end (FS3: absolute
 *   addresses in the ITOC; FS4: listed by the DTOC in the last 4 KiB).
 * f3_build() makes a valid image; tests poke f3.ents[] or bytes and call
 * f3_write() to re-emit every TOC, CRC and pointer.
 */
#ifndef CX_TEST_FS3_BUILDER_H
#define CX_TEST_FS3_BUILDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define F3_LEN 0x20000
#define F3_MAX_ENTS 140
#define F3_ITOC 0x1000
#define F4_ITOC 0x3000
#define F4_TOOLS 0x500
#define F4_BOOT2 0x1000
#define F4_HASHES 0x2000
#define F3_DTOC (F3_LEN - 0x1000)

enum f3_crc { F3_IN_ENTRY = 0, F3_NONE = 1, F3_IN_SECTION = 2 };

struct f3_ent {
	uint8_t type;
	uint32_t addr;   /* as stored in the entry (bytes) */
	uint32_t size;   /* bytes */
	enum f3_crc crc;
	bool dtoc;       /* FS4: listed in the DTOC */
	bool abs;        /* FS3: absolute address (device data) */
};

struct f3_spec {
	bool fs4, rom, ini, hashes, override_en, signed_fw, secure_fw, mcc_en;
	bool old_uids;   /* MFG_INFO 0.x / DEV_INFO 1.x: two GUID and two MAC entries (§6.1) */
	const char *psid, *vsd;
	uint16_t ver[3];
	uint32_t hw_id;
};

struct f3 {
	uint8_t buf[F3_LEN];
	size_t len;
	struct f3_spec s;
	struct f3_ent ents[F3_MAX_ENTS];
	int n;
	uint32_t boot2;
};

static inline void f3_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* fs3-format.md §2.3: augmented CRC16, poly 0x100B, register 0xFFFF, XOR 0xFFFF at the end. */
static inline uint16_t f3_crc(const uint8_t *p, size_t len)
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

static inline uint32_t f3_rev(uint32_t v, int bits)
{
	uint32_t r = 0;

	for (int i = 0; i < bits; i++)
		if (v & (1u << i))
			r |= 1u << (bits - 1 - i);
	return r;
}

/* §4.2 in its MSB-first form: reflecting the reflected CRC back gives poly 0x100B run
 * on bit-reversed bytes, a reversed result, then the two bytes swapped. */
static inline uint16_t f3_hw_crc(const uint8_t *p, size_t len)
{
	uint32_t c = 0xFFFF;

	for (size_t i = 0; i < len; i++) {
		uint8_t b = i < 2 ? (uint8_t)~p[i] : p[i];
		c ^= f3_rev(b, 8) << 8;
		for (int k = 0; k < 8; k++)
			c = (c & 0x8000) ? ((c << 1) ^ 0x100B) & 0xFFFF : (c << 1) & 0xFFFF;
	}
	c = f3_rev(c, 16);
	return (uint16_t)(((c & 0xff) << 8) | (c >> 8));
}

static inline void f3_str(uint8_t *p, const char *s, size_t max)
{
	size_t n = strlen(s);
	memcpy(p, s, n < max ? n : max);
}

static inline void f3_uid(uint8_t *p, uint8_t num, uint8_t step, uint64_t uid)
{
	f3_put32(p, (uint32_t)step << 8 | num);
	f3_put32(p + 8, (uint32_t)(uid >> 32));
	f3_put32(p + 12, (uint32_t)uid);
}

static inline uint32_t f3_base(const struct f3 *b, const struct f3_ent *e)
{
	return (b->s.fs4 ? e->dtoc : e->abs) ? 0 : 0; /* the image starts at 0 in the file */
}

/* Fill a section's contents by type. */
static inline void f3_fill(struct f3 *b, const struct f3_ent *e)
{
	uint8_t *p = b->buf + f3_base(b, e) + e->addr;
	const struct f3_spec *s = &b->s;

	memset(p, 0, e->size);
	for (uint32_t i = 0; i < e->size; i++)
		p[i] = (uint8_t)(i * 7 + e->type);
	if (e->type == 0x10) { /* IMAGE_INFO 0.3 */
		memset(p, 0, e->size);
		f3_put32(p, 3u << 16 | (uint32_t)s->secure_fw << 15 | (uint32_t)s->signed_fw << 14 |
			 (uint32_t)s->mcc_en << 8);
		f3_put32(p + 4, (uint32_t)s->ver[0] << 16);
		f3_put32(p + 8, (uint32_t)s->ver[1] << 16 | s->ver[2]);
		f3_put32(p + 0x10, 0x2023u << 16 | 0x06 << 8 | 0x15);
		f3_str(p + 0x24, s->psid, 16);
		f3_str(p + 0x38, s->vsd, 208);
		f3_put32(p + 0x118, s->hw_id);
		f3_str(p + 0x1d0, "ConnectX-4 Lx EN network interface card; 25GbE dual-port SFP28", 256);
		f3_str(p + 0x340, "MCX4121A-ACA_Ax", 64);
	} else if (e->type == 0xe0) { /* MFG_INFO 1.0 */
		memset(p, 0, e->size);
		f3_str(p, s->psid, 16);
		f3_put32(p + 0x1c, (s->old_uids ? 0u : 1u) << 24 | s->override_en);
		f3_uid(p + 0x20, 8, 1, 0x98039b0300a1b2c0ull);
		f3_uid(p + 0x30, 8, 1, s->old_uids ? 0x98039b0300a1b2c8ull : 0x98039ba1b2c0ull);
		if (s->old_uids) {
			f3_uid(p + 0x40, 2, 1, 0x98039ba1b2c0ull);
			f3_uid(p + 0x50, 2, 1, 0x98039ba1b2c1ull);
		}
	} else if (e->type == 0xe1 && (e->size == 0x200)) { /* DEV_INFO 2.0 */
		memset(p, 0, e->size);
		f3_put32(p, 0x6d446576);
		f3_put32(p + 4, 0x496e666f);
		f3_put32(p + 8, 0x2342cafa);
		f3_put32(p + 12, 0xbacafe00);
		f3_put32(p + 0x10, (s->old_uids ? 1u : 2u) << 8);
		f3_uid(p + 0x20, 8, 1, 0x98039b0300a1b2c0ull);
		f3_uid(p + 0x30, 8, 1, s->old_uids ? 0x98039b0300a1b2c8ull : 0x98039ba1b2c0ull);
		if (s->old_uids) {
			f3_uid(p + 0x40, 2, 1, 0x98039ba1b2d0ull); /* differs from MFG_INFO's: "Orig" */
			f3_uid(p + 0x50, 0, 0, 0);                 /* N/A */
		}
		f3_str(p + 0x70, "device vsd", 208);
	} else if (e->type == 0xe1) { /* a spare DEV_INFO: erased */
		memset(p, 0xff, e->size);
	} else if (e->type == 0x30) { /* DBG_FW_INI: a zlib stream (§6.6) */
		static const char ini[] = "[PS_INFO]\nName = MCX4121A-ACA_Ax\n";
		uLongf zl = e->size;
		memset(p, 0, e->size);
		compress2(p, &zl, (const Bytef *)ini, sizeof(ini) - 1, 9);
	} else if (e->type == 0x18) { /* ROM: one PXE image with an mlxsign record */
		memset(p, 0, e->size);
		p[0] = 0x55, p[1] = 0xAA, p[2] = (uint8_t)(e->size / 512);
		memcpy(p + 0x40, "mlxsign:", 8);
		uint8_t rec[12] = {0x03, 0x00, 0x10, 0x00, 0xF0, 0x02, 0x04, 0x00, 0xFF, 0x11, 0x13, 0x10};
		memcpy(p + 0x48, rec, sizeof(rec)); /* PXE 3.4.752, devid 0x1013 (LE dwords) */
		uint8_t sum = 0;
		for (uint32_t i = 0; i < p[2] * 512u; i++)
			sum = (uint8_t)(sum + p[i]);
		p[0x7f] = (uint8_t)-sum;
	}
}

static inline void f3_entry(struct f3 *b, uint8_t *q, const struct f3_ent *e)
{
	uint8_t *d = b->buf + f3_base(b, e) + e->addr;
	uint32_t d6 = 0;

	memset(q, 0, 32);
	f3_put32(q, (uint32_t)e->type << 24 | (e->size / 4) << 2);
	f3_put32(q + 20, (b->s.fs4 ? 0 : (uint32_t)!e->abs << 31) | (e->addr / 4) << 2);
	if (e->crc == F3_IN_SECTION) {
		uint16_t c = f3_crc(d, e->size - 4);
		f3_put32(d + e->size - 4, c);
	}
	if (e->crc == F3_IN_ENTRY)
		d6 = f3_crc(d, e->size);
	if (b->s.fs4)
		d6 |= (uint32_t)e->crc << 16;
	else
		d6 |= (uint32_t)(e->crc == F3_NONE) << 16 | (uint32_t)e->abs << 17;
	f3_put32(q + 24, d6);
	f3_put32(q + 28, f3_crc(q, 28));
}

static inline void f3_toc(struct f3 *b, uint32_t off, bool dtoc)
{
	uint8_t *h = b->buf + off;
	int k = 0;

	memset(h, 0xff, 0x1000 < F3_LEN - off ? 0x1000 : F3_LEN - off);
	f3_put32(h, dtoc ? 0x44544f43 : 0x49544f43);
	f3_put32(h + 4, 0x04081516);
	f3_put32(h + 8, 0x2342cafa);
	f3_put32(h + 12, 0xbacafe00);
	f3_put32(h + 16, 1);
	f3_put32(h + 20, 0);
	f3_put32(h + 24, 0);
	f3_put32(h + 28, f3_crc(h, 28));
	for (int i = 0; i < b->n; i++)
		if (b->ents[i].dtoc == dtoc && 32 + (k + 2) * 32 <= 0x1000)
			f3_entry(b, h + 32 + 32 * k++, &b->ents[i]);
}

static inline void f3_boot2(struct f3 *b, uint32_t off)
{
	uint8_t *p = b->buf + off;

	f3_put32(p, 0xb002b002);
	f3_put32(p + 4, 8);
	for (int i = 0; i < 8; i++)
		f3_put32(p + 8 + 4 * i, 0x1000u * (uint32_t)i + 0x55);
	f3_put32(p + 40, 0);
	f3_put32(p + 44, f3_crc(p, 44));
	b->boot2 = off;
}

static inline void f3_hwptr(struct f3 *b, int i, uint32_t v)
{
	uint8_t *p = b->buf + 0x18 + 8 * i;

	f3_put32(p, v);
	f3_put32(p + 4, 0);
	f3_put32(p + 4, v == 0xffffffffu ? 0xffffffffu : f3_hw_crc(p, 6));
}

static inline void f4_front(struct f3 *b)
{
	static const uint32_t magic[4] = {0x4D544657, 0xABCDEF00, 0xFADE1234, 0x5678DEAD};
	uint8_t *t = b->buf + F4_TOOLS;

	for (int i = 0; i < 4; i++)
		f3_put32(b->buf + 4 * i, magic[i]);
	f3_put32(b->buf + 0x10, 1u << 24);
	for (int i = 0; i < 16; i++)
		f3_hwptr(b, i, i == 0 || (i >= 4 && i < 10) ? 0xffffffffu : 0);
	f3_hwptr(b, 1, F4_BOOT2);
	f3_hwptr(b, 2, F4_ITOC);
	f3_hwptr(b, 3, F4_TOOLS);
	f3_hwptr(b, 10, 0x4000);
	if (b->s.hashes) {
		uint8_t *h = b->buf + F4_HASHES;
		uint32_t size = 0xc + 0x10 + 28 * (8 + 64) + 8;
		f3_hwptr(b, 15, F4_HASHES);
		memset(h, 0, size);
		f3_put32(h + 4, size / 4);
		f3_put32(h + 8, f3_crc(h, 8));
		f3_put32(h + 0xc, 1);
		f3_put32(h + 0x10, 64u << 16 | 1u << 8 | 0);
		f3_put32(h + size - 4, f3_crc(h, size - 4));
	}
	memset(t, 0, 0x40);
	f3_put32(t, 1);
	f3_put32(t + 4, 0x16u << 16 | 1u << 8 | 0);
	f3_put32(t + 0x3c, f3_crc(t, 0x3c));
	f3_boot2(b, F4_BOOT2);
}

static inline void f3_front(struct f3 *b)
{
	static const uint32_t magic[4] = {0x4D544657, 0x8CDFD000, 0xDEAD9270, 0x4154BEEF};

	for (int i = 0; i < 4; i++)
		f3_put32(b->buf + 4 * i, magic[i]);
	f3_put32(b->buf + 0x24, 3u << 24 | 0x15u << 16 | 1u << 8 | 1);
	f3_boot2(b, 0x38);
}

/* Re-emit every section's contents? No: contents stay; TOCs, CRCs and pointers are rewritten. */
static inline void f3_write(struct f3 *b)
{
	if (b->s.fs4) {
		f4_front(b);
		f3_toc(b, F4_ITOC, false);
		f3_toc(b, F3_DTOC, true);
	} else {
		f3_front(b);
		f3_toc(b, F3_ITOC, false);
	}
}

static inline void f3_add(struct f3 *b, uint8_t type, uint32_t addr, uint32_t size, enum f3_crc crc, bool dev)
{
	struct f3_ent *e = &b->ents[b->n++];

	e->type = type, e->addr = addr, e->size = size, e->crc = crc;
	e->dtoc = b->s.fs4 && dev;
	e->abs = !b->s.fs4 && dev;
	f3_fill(b, e);
}

static inline struct f3_spec f3_defaults(bool fs4)
{
	struct f3_spec s = {.fs4 = fs4, .psid = "MT_2420110034", .vsd = "image vsd",
			    .ver = {14, 32, 1010}, .hw_id = 0x20b, .override_en = true, .signed_fw = true,
			    .mcc_en = true};
	if (fs4)
		s.ver[0] = 16, s.ver[1] = 35, s.ver[2] = 4030, s.hw_id = 0x20d, s.psid = "MT_0000000008";
	return s;
}

static inline void f3_build(struct f3 *b, const struct f3_spec *s)
{
	memset(b, 0, sizeof(*b));
	memset(b->buf, 0xff, sizeof(b->buf));
	b->len = F3_LEN;
	b->s = *s;
	f3_add(b, 0x10, 0x4000, 0x400, F3_IN_ENTRY, false);
	f3_add(b, 0x03, 0x5000, 0x200, F3_IN_ENTRY, false);
	f3_add(b, 0x09, 0x6000, 0x100, s->fs4 ? F3_IN_SECTION : F3_IN_ENTRY, false);
	f3_add(b, 0x20, 0x7000, 0x40, F3_NONE, false);
	if (s->rom)
		f3_add(b, 0x18, 0x8000, 0x400, F3_IN_ENTRY, false);
	if (s->ini)
		f3_add(b, 0x30, 0x9000, 0x80, F3_IN_ENTRY, false);
	f3_add(b, 0xe0, 0x1a000, 0x140, F3_IN_ENTRY, true);
	f3_add(b, 0xe1, 0x1b000, 0x200, s->fs4 ? F3_IN_SECTION : F3_IN_ENTRY, true);
	if (s->fs4)
		f3_add(b, 0xe1, 0x1c000, 0x1000, F3_NONE, true);
	f3_add(b, 0xe6, 0x1d000, 0x100, F3_NONE, true);
	f3_add(b, 0xe3, 0x1e000, 0x100, F3_IN_ENTRY, true);
	f3_write(b);
}

#endif
