/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rom_insert.c — splicing an expansion ROM into an FS2 image the way flint's burn does
 * (fs2-format.md §4.5; the rules and the upstream line numbers are in rom_insert.h). */
#include <stdlib.h>
#include <string.h>

#include "image/crc16.h"
#include "image/rom_insert.h"
#include "util/bytes.h"

#define ROM_INDEX 2                  /* the ROM becomes the 2nd section of the chain, §4.5 */
#define GPH_OFF_SIZE 4               /* GPH dword 1: size, §1.4 */
#define GPH_OFF_PARAM 8              /* GPH dword 2: param, §1.4 */
#define GPH_OFF_NEXT 12              /* GPH dword 3: next, §1.4 */
#define CRC_DWORD 4                  /* the CRC dword after a section's data, §1.4 */
#define CRC_RESERVED_MASK 0x00FF0000 /* 0x20 bits 23:16, cleared by UpdateRomInImage, §1.2 */
#define FULL_CRC_MASK 0xFFFF         /* 0x20 bits 15:0, the full-image CRC, §2.2 */
#define BLANK_CRC 0xFFFF             /* GUID and full CRC of a blank-GUID image, §2.2 */
#define INFO_PTR_ADDR_MASK 0xFFFFFF  /* 0x2C bits 23:0 hold the address, §1.2 */
#define ROM_SLOT (-1)                /* a plan entry that stands for the new ROM section */

/* Index into img->items[] of the first ROM section holding data, or -1. An empty ROM
 * section is "no ROM" to flint (exp_rom_found = data not empty), so it is to us. */
static int first_rom(const struct fs2_image *img)
{
	for (int i = 0; i < img->nitems; i++) {
		const struct fs2_item *it = &img->items[i];
		if (it->kind == FS2_ITEM_SECTION && it->type == FS2_ROM && it->data_len > 0)
			return i;
	}
	return -1;
}

int rom_sect_data(const struct fs2_image *img, const uint8_t **rom, size_t *len,
		  struct cx_status *st)
{
	int i = img ? first_rom(img) : -1;

	if (i < 0)
		return cx_fail(st, CX_EABSENT, "the image has no expansion ROM (no ROM section with data)");
	*rom = img->buf + img->items[i].data_off;
	*len = img->items[i].data_len;
	return CX_OK;
}

bool rom_carry_needed(const struct fs2_image *card, const struct fs2_image *img,
		      bool use_image_rom)
{
	return !use_image_rom && card && img && first_rom(card) >= 0 && first_rom(img) < 0;
}

/* The new chain as item indexes (ROM_SLOT for the new ROM): flint's walk, which puts the
 * ROM before the 2nd section or in place of an old ROM section, whichever comes first,
 * and drops old ROM sections. A one-section chain gets the ROM appended. Without a new
 * ROM (rom_remove), the old ones are only dropped. */
static int make_plan(const struct fs2_image *p, int *plan, bool with_rom)
{
	int k = 0, n = 0;
	bool placed = !with_rom;

	for (int i = 0; i < p->nitems; i++) {
		const struct fs2_item *it = &p->items[i];
		if (it->kind != FS2_ITEM_SECTION)
			continue;
		k++;
		if (!placed && (k == ROM_INDEX || it->type == FS2_ROM)) {
			plan[n++] = ROM_SLOT;
			placed = true;
		}
		if (it->type != FS2_ROM)
			plan[n++] = i;
	}
	if (!placed)
		plan[n++] = ROM_SLOT;
	return n;
}

/* One section at o+pos: header, data, CRC dword (a blank GUID section keeps its blank
 * mark instead, see rom_insert.h). Returns the address after it. */
static uint32_t put_section(uint8_t *o, uint32_t pos, const uint32_t gph[4], const uint8_t *data,
			    uint32_t dlen, bool blank)
{
	uint8_t *s = o + pos;

	for (int i = 0; i < 4; i++)
		put_be32(s + 4 * i, gph[i]);
	memcpy(s + FS2_GPH_SIZE, data, dlen);
	put_be32(s + FS2_GPH_SIZE + dlen, blank ? BLANK_CRC : crc16_be(s, FS2_GPH_SIZE + dlen));
	return pos + FS2_GPH_SIZE + dlen + CRC_DWORD;
}

/* Header, BOOT2s and the planned sections into o (total bytes, zeroed); the header
 * pointers and size are set here, the CRC word at 0x20 by the caller. */
static void build(uint8_t *o, uint32_t total, const struct fs2_image *p, const int *plan, int n,
		  const uint8_t *rom, uint32_t rom_len, uint32_t chain_end)
{
	uint32_t pos = FS2_BOOT2_START;

	memcpy(o, p->buf, FS2_BOOT2_START);
	for (int i = 0; i < p->nitems; i++)
		if (p->items[i].kind == FS2_ITEM_BOOT2) {
			memcpy(o + pos, p->buf + p->items[i].off, p->items[i].len);
			pos += p->items[i].len;
		}
	for (int j = 0; j < n; j++) {
		const struct fs2_item *it = plan[j] == ROM_SLOT ? NULL : &p->items[plan[j]];
		uint32_t dlen = it ? it->data_len : rom_len;
		uint32_t next = j + 1 < n ? pos + FS2_GPH_SIZE + dlen + CRC_DWORD : chain_end;
		if (!it) {
			const uint32_t gph[4] = {FS2_ROM, rom_len / 4, 0, next};
			pos = put_section(o, pos, gph, rom, rom_len, false);
			continue;
		}
		const uint8_t *g = p->buf + it->off;
		const uint32_t gph[4] = {it->type, be32(g + GPH_OFF_SIZE), be32(g + GPH_OFF_PARAM), next};
		if (plan[j] == p->guid_sect)
			put_be32(o + FS2_OFF_GUID_PTR, pos + FS2_GPH_SIZE);
		if (plan[j] == p->info_sect) {
			uint32_t a = pos + FS2_GPH_SIZE;
			/* The checksum byte makes the 4 bytes sum to 0 mod 256, §1.2. */
			uint8_t cs = (uint8_t)(0 - (a & 0xFF) - (a >> 8 & 0xFF) - (a >> 16 & 0xFF));
			put_be32(o + FS2_OFF_INFO_PTR, (uint32_t)cs << 24 | a);
		}
		pos = put_section(o, pos, gph, p->buf + it->data_off, dlen, it->blank);
	}
	put_be32(o + FS2_OFF_IMG_SIZE, total);
}

static int check_args(const uint8_t *img, const uint8_t *rom, size_t rom_len, uint8_t **out,
		      size_t *out_len, struct cx_status *st)
{
	if (!img || (!rom && rom_len) || !out || !out_len)
		return cx_fail(st, CX_EVALUE, "internal: rom_update called without an image, ROM or output");
	if (!rom)
		return CX_OK; /* removing */
	if (rom_len == 0)
		return cx_fail(st, CX_EVALUE, "the ROM is empty: nothing to add");
	if (rom_len % 4)
		return cx_fail(st, CX_EVALUE, "the ROM is %zu bytes: a ROM section holds whole dwords",
			       rom_len);
	if (rom_len > FS2_MAX_SECTION)
		return cx_fail(st, CX_EVALUE,
			       "the ROM is %zu bytes: larger than an FS2 section may be (0x%x bytes)",
			       rom_len, FS2_MAX_SECTION);
	return CX_OK;
}

/* The input must be a sound image; blank GUIDs are fine (the burn sets them later). Per
 * mode: ROM_ADD wants no ROM data, ROM_DROP wants some, ROM_SWAP either. */
static int check_image(const uint8_t *img, size_t len, struct fs2_image *p, enum rom_mode mode,
		       struct cx_status *st)
{
	struct cx_status why = {0};
	int rc = fs2_parse(img, len, p, &why);

	if (rc == CX_OK)
		rc = fs2_verdict(p, &why);
	if (rc != CX_OK && rc != CX_EBLANK)
		return cx_fail(st, rc, "cannot %s this image: %s", mode == ROM_DROP ? "remove the ROM of" : "add a ROM to",
			       why.msg);
	int r = first_rom(p);
	if (r >= 0 && mode == ROM_ADD)
		return cx_fail(st, CX_EUNSUPPORTED,
			       "the image already has a ROM (0x%x bytes at 0x%x): it is burned as it is",
			       p->items[r].data_len, p->items[r].off);
	if (r < 0 && mode == ROM_DROP)
		return cx_fail(st, CX_EABSENT, "the image has no expansion ROM: nothing to remove");
	return CX_OK;
}

/* Bytes of the new image: header, BOOT2s, the planned sections. */
static uint64_t new_size(const struct fs2_image *p, const int *plan, int n, size_t rom_len)
{
	uint64_t total = FS2_BOOT2_START;

	for (int i = 0; i < p->nitems; i++)
		if (p->items[i].kind == FS2_ITEM_BOOT2)
			total += p->items[i].len;
	for (int j = 0; j < n; j++)
		total += plan[j] == ROM_SLOT ? FS2_GPH_SIZE + rom_len + CRC_DWORD : p->items[plan[j]].len;
	return total;
}

/* The splice proper, on the parsed input p (reused for the final check). */
static int splice(struct fs2_image *p, const uint8_t *img, const uint8_t *rom, size_t rom_len,
		  uint8_t **out, size_t *out_len, struct cx_status *st)
{
	int plan[FS2_MAX_SECTIONS + 1];
	bool blank_full = p->items[p->nitems - 1].blank; /* full CRC stays 0xFFFF, §3.1 */
	int last = p->nitems - 2; /* the last section: the items end with the full-image one */
	uint32_t chain_end = be32(img + p->items[last].off + GPH_OFF_NEXT);
	int n = make_plan(p, plan, rom != NULL);
	uint64_t total = new_size(p, plan, n, rom_len);

	/* Beyond 16 MiB the 24-bit IMAGE_INFO pointer could not name its section. */
	if (total > FS2_MAX_IMAGE || total > INFO_PTR_ADDR_MASK)
		return cx_fail(st, CX_EVALUE,
			       "with the 0x%zx-byte ROM the image would be 0x%llx bytes: too large",
			       rom_len, (unsigned long long)total);
	uint8_t *o = calloc(1, total);
	if (!o)
		return cx_fail(st, CX_ENOMEM, "out of memory adding the ROM");
	build(o, (uint32_t)total, p, plan, n, rom, (uint32_t)rom_len, chain_end);

	uint32_t w = be32(o + FS2_OFF_FULL_CRC) & ~(uint32_t)(CRC_RESERVED_MASK | FULL_CRC_MASK);
	put_be32(o + FS2_OFF_FULL_CRC, w | FULL_CRC_MASK);
	if (!blank_full)
		put_be32(o + FS2_OFF_FULL_CRC, w | fs2_full_crc(o, total));

	/* flint re-verifies its result before burning it (IntegrateDevRomInImage); so do we. */
	struct cx_status why = {0};
	int rc = fs2_parse(o, total, p, &why);
	if (rc == CX_OK)
		rc = fs2_verdict(p, &why);
	if (rc != CX_OK && rc != CX_EBLANK) {
		free(o);
		return cx_fail(st, CX_EIMAGE, "internal error: the image with the ROM does not verify: %s",
			       why.msg);
	}
	*out = o;
	*out_len = total;
	return CX_OK;
}

int rom_update(const uint8_t *img, size_t len, const uint8_t *rom, size_t rom_len, enum rom_mode mode,
	       uint8_t **out, size_t *out_len, struct cx_status *st)
{
	struct fs2_image *p;
	int rc;

	if (out)
		*out = NULL;
	if (!rom != (mode == ROM_DROP))
		return cx_fail(st, CX_EVALUE, "internal: rom_update given a ROM to remove or none to add");
	if ((rc = check_args(img, rom, rom_len, out, out_len, st)))
		return rc;
	if (!(p = malloc(sizeof(*p))))
		return cx_fail(st, CX_ENOMEM, "out of memory rebuilding the image");
	rc = check_image(img, len, p, mode, st);
	if (rc == CX_OK)
		rc = splice(p, img, rom, rom_len, out, out_len, st);
	free(p);
	return rc;
}

int rom_insert(const uint8_t *img, size_t len, const uint8_t *rom, size_t rom_len,
	       uint8_t **out, size_t *out_len, struct cx_status *st)
{
	return rom_update(img, len, rom, rom_len, ROM_ADD, out, out_len, st);
}
