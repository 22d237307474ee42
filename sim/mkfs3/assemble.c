/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bytes of a planned image (image.h): header, BOOT2, sections, TOCs, FS4 headers, map. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "be.h"
#include "content.h"
#include "crc16.h"
#include "image.h"
#include "rng.h"

/* fw_ops.cpp _cntx_magic_pattern (FS2/FS3) and _fs4_magic_pattern. */
static const uint32_t fs3_magic[4] = { 0x4D544657u, 0x8CDFD000u, 0xDEAD9270u, 0x4154BEEFu };
static const uint32_t fs4_magic[4] = { 0x4D544657u, 0xABCDEF00u, 0xFADE1234u, 0x5678DEADu };

#define FS3_IND_OFF		0x24	/* fw_ops.cpp FS3_IND_ADDR: version [31:24], log2 slot [23:16], bin ver [15:0] */
#define FS3_IMG_VERSION		3	/* IMG_VER_FS3 */
#define FS3_BIN_VERSION		0x0101u	/* FS3_MIN_BIN_VER 1.1 (fs3_ops.h) */
#define FS4_VERSION_OFF		0x10	/* IsFS4Image: image_format_version byte at +0x10 */
#define FS4_IMG_VERSION		1
#define IMG_VERSION_SHIFT	24	/* the format version byte is the dword's top byte */
#define FS3_SLOT_LOG_SHIFT	16	/* log2 slot size [23:16] (FsVerifyAux EXTRACT(.., 16, 8)) */
#define BOOT2_SEED_SALT		0xB0072u	/* BOOT2 filler comes from its own stream */

static void header(struct image *im)
{
	uint8_t *p = im->d + im->slot;
	const uint32_t *magic = im->c->format == FMT_FS3 ? fs3_magic : fs4_magic;
	unsigned int i;

	memset(p, 0, im->boot2);
	for (i = 0; i < 4; i++)
		put_be32(p + 4 * i, magic[i]);
	if (im->c->format == FMT_FS3)
		put_be32(p + FS3_IND_OFF, (uint32_t)FS3_IMG_VERSION << IMG_VERSION_SHIFT |
			 (uint32_t)im->c->slot_log << FS3_SLOT_LOG_SHIFT | FS3_BIN_VERSION);
	else
		put_be32(p + FS4_VERSION_OFF, (uint32_t)FS4_IMG_VERSION << IMG_VERSION_SHIFT);
	map_add(&im->m, im->slot, im->c->format == FMT_FS3 ? FS3_BOOT2_OFF : FS4_HW_PTR_OFF, "header");
}

/* fw_ops.cpp checkBoot2: w0, size N (dwords), N + 1 dwords, CRC16 of all before it. */
static void boot2(struct image *im)
{
	uint8_t *p = im->d + im->slot + im->boot2;
	uint32_t n = im->boot2_len / 4 - 4;
	struct rng r;

	rng_seed(&r, im->c->seed ^ BOOT2_SEED_SALT);
	put_be32(p, 0);
	put_be32(p + 4, n);
	rng_fill(&r, p + 8, 4 * (n + 1));
	put_be32(p + im->boot2_len - 4, crc16_fs2(p, im->boot2_len - 4));
	map_add(&im->m, im->slot + im->boot2, im->boot2_len, "boot2");
}

static uint32_t abs_addr(const struct image *im, const struct sect *s)
{
	return s->dev ? s->addr : im->slot + s->addr;
}

static void sections(struct image *im)
{
	unsigned int i, seen;

	for (i = 0; i < im->n; i++) {
		struct sect *s = &im->s[i];
		unsigned int k;

		if (s->shared)
			continue;
		memcpy(im->d + abs_addr(im, s), s->data, s->len);
		for (k = 0, seen = 0; k < i; k++)
			seen += im->s[k].type == s->type && !im->s[k].shared;
		if (seen)
			map_add(&im->m, abs_addr(im, s), s->len, "sect_%s_%u", s->name, seen);
		else
			map_add(&im->m, abs_addr(im, s), s->len, "sect_%s", s->name);
		if (s->type == ST_ROM_CODE) {
			const struct map *rm = rom_map();

			for (k = 0; k < rm->n; k++)
				map_add(&im->m, abs_addr(im, s) + rm->e[k].off, rm->e[k].size, "%s",
					rm->e[k].name);
		}
	}
}

/* One TOC at absolute address at: the entries of sections with dev == dev (FS3: all). */
static void toc(struct image *im, uint32_t at, int dtoc)
{
	enum fw_format f = im->c->format;
	const char *kind = dtoc ? "dtoc" : "itoc";
	uint8_t *e = im->d + at + TOC_HDR_LEN;
	unsigned int i, n = 0;

	for (i = 0; i < im->n; i++) {
		struct sect *s = &im->s[i];

		if (f == FMT_FS4 && s->dev != dtoc)
			continue;
		s->entry = (uint32_t)(e - im->d);
		toc_entry(e, f, s, s->addr);
		map_add(&im->m, s->entry, TOC_ENTRY_LEN, "%s_entry_%u", kind, n);
		e += TOC_ENTRY_LEN;
		n++;
	}
	if (!dtoc && has_damage(im->c, DMG_ITOC_TRUNC, 0))
		memset(e, 0, im->d + at + TOC_AREA - e);	/* entries of type 0, none 0xff */
	else
		toc_end(e);
	toc_header(im->d + at, dtoc, f, n);
	map_add(&im->m, at, TOC_HDR_LEN + (n + 1) * TOC_ENTRY_LEN, "%s", kind);
}

void image_assemble(struct image *im)
{
	im->d = malloc(im->size);
	if (!im->d) {
		fprintf(stderr, "mkfs3: out of memory\n");
		exit(1);
	}
	memset(im->d, 0xFF, im->size);	/* erased flash */
	header(im);
	boot2(im);
	sections(im);
	toc(im, im->slot + im->itoc, 0);
	if (im->c->format == FMT_FS4) {
		toc(im, im->dtoc, 1);
		fs4_tools_area(im);
		fs4_hashes_table(im);
		fs4_hw_pointers(im);
		map_add(&im->m, im->slot + FS4_HW_PTR_OFF, FS4_HW_PTR_COUNT * FS4_HW_PTR_ENTRY,
			"hw_pointers");
		map_add(&im->m, im->slot + im->tools, FS4_TOOLS_LEN, "tools_area");
		map_add(&im->m, im->slot + im->hashes, im->hashes_len, "hashes_table");
	}
	if (im->c->dump)
		map_add(&im->m, im->slot, 1u << im->c->slot_log, "dump_slot_%u", im->c->dump_slot);
	if (im->c->dump_both) {
		uint32_t slot_len = 1u << im->c->slot_log;

		/* The same image again in slot 1: what a card holds after a failsafe burn of it. */
		memcpy(im->d + slot_len, im->d, slot_len);
		map_add(&im->m, slot_len, slot_len, "dump_slot_1");
	}
}
