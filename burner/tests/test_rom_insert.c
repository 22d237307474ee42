/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_rom_insert.c — splicing the card's expansion ROM into a new image
 * (image/rom_insert.h, fs2-format.md §4.5).
 *
 * The strongest check: two generated images that differ only by their ROM section
 * (mkfs2 with and without --no-rom, and the independent builder with and without .rom)
 * must become byte-identical once the ROM of one is spliced into the other: flint puts
 * the ROM second in the chain, exactly where both generators put it. The rest covers what
 * the generators never make (gaps, an out-of-order chain, trailing bytes, EMT sections,
 * a 0-terminated or one-section chain, an empty ROM section, blank GUIDs) and refusals.
 * mstflint's own burn is compared in tests/test_rom_insert_oracle.py.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/fs2.h"
#include "image/patch.h"
#include "image/rom_insert.h"
#include "builder.h"
#include "mkimage.h"
#include "parsed_image.h"

#define SMALL "--ddr 2 --ddr-size 0x1000 "

static struct fs2_image img, src, res;
static struct b_img b, want;
static struct cx_status st;

/* rom_insert() that must succeed; returns the new image (exact-size heap block). */
static uint8_t *insert_ok(const uint8_t *buf, size_t len, const uint8_t *rom, size_t rom_len,
			  size_t *out_len)
{
	uint8_t *out = NULL;

	cx_status_clear(&st);
	int rc = rom_insert(buf, len, rom, rom_len, &out, out_len, &st);
	if (rc != CX_OK)
		fail_msg("rom_insert: %d %s", rc, st.msg);
	assert_non_null(out);
	return out;
}

/* rom_insert() that must refuse with code and a message containing word. */
static void insert_refused(const uint8_t *buf, size_t len, const uint8_t *rom, size_t rom_len,
			   int code, const char *word)
{
	uint8_t *out = (uint8_t *)"sentinel";
	size_t out_len = 0;

	cx_status_clear(&st);
	assert_int_equal(rom_insert(buf, len, rom, rom_len, &out, &out_len, &st), code);
	assert_null(out);
	if (!strstr(st.msg, word))
		fail_msg("message '%s' lacks '%s'", st.msg, word);
}

static const struct fs2_item *nth_section(const struct fs2_image *p, int n)
{
	for (int i = 0; i < p->nitems; i++)
		if (p->items[i].kind == FS2_ITEM_SECTION && n-- == 0)
			return &p->items[i];
	return NULL;
}

static int nsections(const struct fs2_image *p)
{
	int n = 0;

	while (nth_section(p, n))
		n++;
	return n;
}

/* Every section of the input reappears, in chain order, with the same type, size
 * field, param and data; the ROM sits at position rom_at (0-based) of the result. */
static void expect_sections_kept(const struct fs2_image *in, const struct fs2_image *out, int rom_at)
{
	assert_int_equal(nsections(out), nsections(in) + 1);
	for (int i = 0, j = 0; j < nsections(out); j++) {
		const struct fs2_item *o = nth_section(out, j);
		if (j == rom_at) {
			assert_int_equal(o->type, FS2_ROM);
			assert_int_equal(o->param, 0);
			continue;
		}
		const struct fs2_item *s = nth_section(in, i++);
		assert_int_equal(o->type, s->type);
		assert_int_equal(o->param, s->param);
		assert_int_equal(b_get32(out->buf + o->off + 4), b_get32(in->buf + s->off + 4));
		assert_int_equal(o->data_len, s->data_len);
		assert_memory_equal(out->buf + o->data_off, in->buf + s->data_off, s->data_len);
	}
}

/* mkfs2 images with and without a ROM. mkfs2 draws its DDR/CNF filler after the ROM's,
 * so the two differ there; everything else must match: header (but the full CRC), the ROM
 * section byte for byte, every section's address and `next`. The builder pair below is
 * compared whole. */
static void check_mkfs2_pair(const char *opts)
{
	char with[512], without[512];
	size_t la, lb, lo, rom_len;
	const uint8_t *rom;

	snprintf(with, sizeof(with), SMALL "%s", opts);
	snprintf(without, sizeof(without), SMALL "%s --no-rom", opts);
	uint8_t *a = mkimage(with, &la), *nb = mkimage(without, &lb);
	parse_ok(a, la, &src, CX_OK);
	parse_ok(nb, lb, &img, CX_OK);
	cx_status_clear(&st);
	assert_int_equal(rom_sect_data(&src, &rom, &rom_len, &st), CX_OK);
	assert_true(rom_carry_needed(&src, &img, false));

	uint8_t *out = insert_ok(nb, lb, rom, rom_len, &lo);
	assert_int_equal(lo, la);
	parse_ok(out, lo, &res, CX_OK);
	expect_sections_kept(&img, &res, 1);
	assert_memory_equal(out, a, FS2_OFF_FULL_CRC + 2);
	assert_memory_equal(out + FS2_OFF_BOOT_VER, a + FS2_OFF_BOOT_VER, FS2_BOOT2_START - FS2_OFF_BOOT_VER);
	assert_int_equal(nsections(&res), nsections(&src));
	for (int j = 0; j < nsections(&res); j++) {
		const struct fs2_item *o = nth_section(&res, j), *w = nth_section(&src, j);
		assert_int_equal(o->off, w->off);
		assert_int_equal(b_get32(out + o->off + 12), b_get32(a + w->off + 12));
	}
	const struct fs2_item *r = nth_section(&res, 1);
	assert_memory_equal(out + r->off, a + r->off, r->len);
	assert_int_equal(res.nroms, src.nroms);
	assert_memory_equal(res.roms, src.roms, sizeof(res.roms));
	assert_memory_equal(&res.guids, &img.guids, sizeof(res.guids));
	assert_string_equal(res.info.psid, img.info.psid);
	assert_string_equal(res.info.vsd, img.info.vsd);
	assert_false(rom_carry_needed(&src, &res, false));
	free(out);
	free(a);
	free(nb);
}

static void test_mkfs2_cx3(void **state)
{
	(void)state;
	check_mkfs2_pair("--chip cx3 --vsd hello-vsd");
}

static void test_mkfs2_cx3pro_uefi(void **state)
{
	(void)state;
	check_mkfs2_pair("--chip cx3pro --rom-product 0x11 --rom-ver 14.11.40 --ddr 5");
}

static void test_mkfs2_cx2_old_guids(void **state)
{
	(void)state;
	check_mkfs2_pair("--chip cx2 --old-guids --no-mic --no-fw-conf");
}

/* The ROM of another card (another version) goes into a stock image unchanged. */
static void test_rom_from_other_image(void **state)
{
	(void)state;
	size_t la, lb, lo, rom_len;
	const uint8_t *rom;
	uint8_t *card = mkimage(SMALL "--rom-ver 3.4.999 --seed 9 --fw 2.40.7000", &la);
	uint8_t *nb = mkimage(SMALL "--no-rom --seed 3", &lb);

	parse_ok(card, la, &src, CX_OK);
	parse_ok(nb, lb, &img, CX_OK);
	assert_int_equal(rom_sect_data(&src, &rom, &rom_len, &st), CX_OK);
	uint8_t *out = insert_ok(nb, lb, rom, rom_len, &lo);
	assert_int_equal(lo, lb + 16 + rom_len + 4);
	parse_ok(out, lo, &res, CX_OK);
	expect_sections_kept(&img, &res, 1);
	assert_int_equal(res.nroms, 1);
	assert_int_equal(res.roms[0].ver[2], 999);
	assert_memory_equal(res.buf + nth_section(&res, 1)->data_off, rom, rom_len);
	/* Header: only 0x2C, 0x30, 0x34 and the CRC half of 0x20 changed. */
	assert_memory_equal(out, nb, 0x22);
	assert_memory_equal(out + 0x24, nb + 0x24, 8);
	assert_int_equal(b_get32(out + 0x30), lo);
	assert_int_equal(b_get32(out + 0x34), b_get32(nb + 0x34) + 16 + rom_len + 4);
	assert_int_equal(res.info_ptr, img.info_ptr + 16 + rom_len + 4);
	assert_memory_equal(out + 0x38, nb + 0x38, nth_section(&img, 0)->off - 0x38 + nth_section(&img, 0)->len);
	free(out);
	free(card);
	free(nb);
}

/* The independent builder, with one or two BOOT2 blocks. */
static void check_builder_pair(struct b_spec s)
{
	size_t lo;

	s.rom = true;
	b_build(&want, &s);
	s.rom = false;
	b_build(&b, &s);
	uint8_t *rom = want.buf + want.sect[want.rom].off + 16;
	uint8_t *out = insert_ok(b.buf, b.len, rom, want.sect[want.rom].dlen, &lo);
	assert_int_equal(lo, want.len);
	assert_memory_equal(out, want.buf, lo);
	free(out);
}

static void test_builder(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();

	check_builder_pair(s);
	s.two_boot2 = true;
	check_builder_pair(s);
	s.mic = false;
	s.nguids = 4;
	check_builder_pair(s);
}

/* flint clears 0x20 bits 23:16 (UpdateRomInImage 1569-1573), keeps 31:24. */
static void test_crc_word_bits_cleared(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	size_t lo;

	s.rom = true;
	b_build(&want, &s);
	s.rom = false;
	b_build(&b, &s);
	b.buf[0x21] = 0x5A;
	b_seal(&b);
	parse_ok(b.buf, b.len, &img, CX_OK);
	uint8_t *out = insert_ok(b.buf, b.len, want.buf + want.sect[want.rom].off + 16,
				 want.sect[want.rom].dlen, &lo);
	assert_int_equal(out[0x20], 0xA1);
	assert_int_equal(out[0x21], 0);
	assert_memory_equal(out, want.buf, lo);
	free(out);
}

/* A 64-byte ROM with a PXE record, like the builder's. */
static const uint8_t *small_rom(size_t *len)
{
	static struct b_img r;
	struct b_spec s = b_defaults();

	s.rom = true;
	b_build(&r, &s);
	*len = r.sect[r.rom].dlen;
	return r.buf + r.sect[r.rom].off + 16;
}

/* Remap the builder's named section indexes through map[] (-1: gone). */
static void remap(struct b_img *bi, const int *map)
{
	int *named[] = {&bi->cnf, &bi->rom, &bi->guid, &bi->info, &bi->fwconf};

	for (unsigned i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		*named[i] = *named[i] >= 0 ? map[*named[i]] : -1;
}

/* Chain b's sections order[0..n-1] without moving them (ascending, order[0] the section
 * right after BOOT2, where the chain starts, §1.4), relink and reseal, then set the full
 * CRC as verify computes it, over the chain only (§2.2). */
static void rechain(struct b_img *bi, const int *order, int n)
{
	static struct b_sect old[B_MAXSECT];
	int map[B_MAXSECT];
	struct fs2_image *p = malloc(sizeof(*p));
	struct cx_status s = {0};

	assert_non_null(p);
	memcpy(old, bi->sect, sizeof(old));
	for (int i = 0; i < bi->nsect; i++)
		map[i] = -1;
	for (int i = 0; i < n; i++) {
		bi->sect[i] = old[order[i]];
		map[order[i]] = i;
	}
	bi->nsect = n;
	remap(bi, map);
	b_link(bi);
	b_put32(bi->buf + 0x30, (uint32_t)bi->len);
	b_seal(bi);
	if (fs2_parse(bi->buf, bi->len, p, &s) != CX_OK)
		fail_msg("rechained image: %s", s.msg);
	b_put32(bi->buf + 0x20, (b_get32(bi->buf + 0x20) & 0xFFFF0000u) | p->full_crc_calc);
	free(p);
}

/* Lay b's sections out again, packed, in the order order[0..n-1] (others dropped), with
 * the header pointers, size and every CRC set. */
static void relay(struct b_img *bi, const int *order, int n)
{
	static struct b_img old;
	int map[B_MAXSECT];

	old = *bi;
	bi->len = old.boot2_off[old.nboot2 - 1] + old.boot2_len[old.nboot2 - 1];
	memset(bi->buf + bi->len, 0, B_MAX - bi->len);
	bi->nsect = 0;
	for (int i = 0; i < old.nsect; i++)
		map[i] = -1;
	for (int i = 0; i < n; i++) {
		const struct b_sect *s = &old.sect[order[i]];
		const uint8_t *g = old.buf + s->off;
		map[order[i]] = b_sect(bi, s->type, b_get32(g + 4), b_get32(g + 8), g + 16, s->dlen);
	}
	remap(bi, map);
	b_link(bi);
	uint32_t ip = 0;
	if (bi->info >= 0) {
		uint32_t a = bi->sect[bi->info].off + 16;
		ip = (uint32_t)(uint8_t)(0x100 - ((a & 0xFF) + (a >> 8 & 0xFF) + (a >> 16 & 0xFF))) << 24 | a;
	}
	b_put32(bi->buf + 0x2C, ip);
	b_put32(bi->buf + 0x30, (uint32_t)bi->len);
	b_put32(bi->buf + 0x34, bi->sect[bi->guid].off + 16);
	b_seal(bi);
}

/* A section left out of the chain (a gap) and trailing bytes: the result is packed in
 * chain order and the rest is dropped, as flint does. (Our parser refuses a chain that
 * points backwards, so the file order is always the chain order.) */
static void test_packs_in_chain_order(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	size_t lo, rl;
	const uint8_t *rom = small_rom(&rl);
	uint8_t gap[32];

	b_build(&b, &s);
	memset(gap, 0x77, sizeof(gap));
	b_sect(&b, 1, 8, 0x00102968, gap, sizeof(gap));
	const int layout[] = {0, 4, 1, 2, 3}; /* CNF, DDR, GUID, IMAGE_INFO, FW_CONF */
	relay(&b, layout, 5);
	b.len += 64;                          /* trailing bytes */
	const int chain[] = {0, 2, 3, 4};     /* the DDR is left out: a gap */
	rechain(&b, chain, 4);
	parse_ok(b.buf, b.len, &img, CX_OK);
	assert_int_equal(nsections(&img), 4);
	uint8_t *out = insert_ok(b.buf, b.len, rom, rl, &lo);
	parse_ok(out, lo, &res, CX_OK);
	expect_sections_kept(&img, &res, 1);
	assert_int_equal(lo, img.last_addr - 16 - sizeof(gap) - 4 + 16 + rl + 4);
	for (int j = 1; j < nsections(&res); j++)
		assert_int_equal(nth_section(&res, j)->off,
				 nth_section(&res, j - 1)->off + nth_section(&res, j - 1)->len);
	assert_int_equal(res.last_addr, lo);
	assert_int_equal(res.img_size, lo);
	free(out);
}

/* EMT's size field counts bytes (§1.4): the section survives whole (flint would break it). */
static void test_emt_section(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	size_t lo, rl;
	const uint8_t *rom = small_rom(&rl);
	uint8_t emt[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 0};

	b_build(&b, &s);
	b_sect(&b, FS2_EMT, 10, 0, emt, sizeof(emt));
	const int order[] = {0, 1, 2, 4, 3}; /* EMT before FW_CONF */
	relay(&b, order, 5);
	parse_ok(b.buf, b.len, &img, CX_OK);
	uint8_t *out = insert_ok(b.buf, b.len, rom, rl, &lo);
	parse_ok(out, lo, &res, CX_OK);
	expect_sections_kept(&img, &res, 1);
	const struct fs2_item *e = nth_section(&res, 4);
	assert_int_equal(e->type, FS2_EMT);
	assert_int_equal(b_get32(out + e->off + 4), 10);
	free(out);
}

/* A chain ended by next = 0 keeps its 0 (flint writes a pointer past the end). */
static void test_zero_terminated_chain(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	size_t lo, rl;
	const uint8_t *rom = small_rom(&rl);

	b_build(&b, &s);
	b_put32(b.buf + b.sect[b.nsect - 1].off + 12, 0);
	b_seal(&b);
	parse_ok(b.buf, b.len, &img, CX_OK);
	uint8_t *out = insert_ok(b.buf, b.len, rom, rl, &lo);
	parse_ok(out, lo, &res, CX_OK);
	expect_sections_kept(&img, &res, 1);
	const struct fs2_item *last = nth_section(&res, nsections(&res) - 1);
	assert_int_equal(b_get32(out + last->off + 12), 0);
	free(out);
}

/* A one-section chain: the ROM is appended (flint would drop it). */
static void test_single_section(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	size_t lo, rl;
	const uint8_t *rom = small_rom(&rl);

	b_build(&b, &s);
	const int order[] = {1}; /* GUID alone */
	relay(&b, order, 1);
	parse_ok(b.buf, b.len, &img, CX_OK);
	uint8_t *out = insert_ok(b.buf, b.len, rom, rl, &lo);
	parse_ok(out, lo, &res, CX_OK);
	expect_sections_kept(&img, &res, 1);
	assert_int_equal(b_get32(out + nth_section(&res, 0)->off + 12), nth_section(&res, 1)->off);
	assert_int_equal(b_get32(out + nth_section(&res, 1)->off + 12), B_END);
	assert_int_equal(res.nroms, 1);
	free(out);
}

/* An empty ROM section is "no ROM": dropped, and the new ROM takes the first of the
 * second position and the empty one's place (UpdateRomInImage 1507). */
static void test_empty_rom_section(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	size_t lo, rl;
	const uint8_t *rom = small_rom(&rl);

	/* Empty ROM at position 4 (after IMAGE_INFO): the new ROM goes second. */
	b_build(&b, &s);
	b_sect(&b, FS2_ROM, 0, 0, NULL, 0);
	const int late[] = {0, 1, 2, 4, 3};
	relay(&b, late, 5);
	parse_ok(b.buf, b.len, &img, CX_OK);
	s.rom = true;
	b_build(&want, &s);
	parse_ok(want.buf, want.len, &src, CX_OK);
	assert_true(rom_carry_needed(&src, &img, false));
	s.rom = false;
	uint8_t *out = insert_ok(b.buf, b.len, rom, rl, &lo);
	parse_ok(out, lo, &res, CX_OK);
	assert_int_equal(nsections(&res), 5);
	assert_int_equal(nth_section(&res, 1)->type, FS2_ROM);
	assert_int_equal(nth_section(&res, 1)->data_len, rl);
	assert_int_equal(nth_section(&res, 4)->type, FS2_FW_CONF);
	free(out);

	/* Empty ROM first in the chain: the new ROM goes first. */
	b_build(&b, &s);
	b_sect(&b, FS2_ROM, 0, 0, NULL, 0);
	const int early[] = {4, 0, 1, 2, 3};
	relay(&b, early, 5);
	parse_ok(b.buf, b.len, &img, CX_OK);
	out = insert_ok(b.buf, b.len, rom, rl, &lo);
	parse_ok(out, lo, &res, CX_OK);
	assert_int_equal(nsections(&res), 5);
	assert_int_equal(nth_section(&res, 0)->type, FS2_ROM);
	assert_int_equal(nth_section(&res, 1)->type, FS2_CNF);
	free(out);
}

/* A blank-GUID image stays blank; once the GUIDs are set it is the image flint burns. */
static void test_blank_guids(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	size_t lo;

	s.rom = true;
	b_build(&want, &s);
	s.rom = false;
	s.blank = true;
	b_build(&b, &s);
	uint8_t *out = insert_ok(b.buf, b.len, want.buf + want.sect[want.rom].off + 16,
				 want.sect[want.rom].dlen, &lo);
	parse_ok(out, lo, &res, CX_EBLANK);
	assert_int_equal(res.full_crc_stored, 0xFFFF);
	assert_int_equal(res.items[res.guid_sect].crc_stored, 0xFFFF);

	struct guid_request req = {.have_guids = true, .have_macs = true};
	memcpy(req.guid, s.guid, sizeof(req.guid));
	memcpy(req.mac, s.guid + GUIDS_NGUID, sizeof(req.mac));
	cx_status_clear(&st);
	assert_int_equal(patch_guids(out, &res, &req, &st), CX_OK);
	assert_int_equal(lo, want.len);
	assert_memory_equal(out, want.buf, lo);
	free(out);
}

/* A 4 MiB ROM (the section limit) fits; one dword more is refused. */
static void test_rom_size_limit(void **state)
{
	(void)state;
	size_t lo;
	uint8_t *rom = calloc(1, FS2_MAX_SECTION + 4);
	struct b_spec s = b_defaults();

	assert_non_null(rom);
	rom[0] = 0x55;
	rom[1] = 0xAA;
	b_build(&b, &s);
	uint8_t *out = insert_ok(b.buf, b.len, rom, FS2_MAX_SECTION, &lo);
	parse_ok(out, lo, &res, CX_OK);
	assert_int_equal(nth_section(&res, 1)->data_len, FS2_MAX_SECTION);
	free(out);
	insert_refused(b.buf, b.len, rom, FS2_MAX_SECTION + 4, CX_EVALUE, "larger than");
	free(rom);
}

static void test_refusals(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	size_t rl, lo;
	const uint8_t *rom = small_rom(&rl);
	uint8_t *out;

	b_build(&b, &s);
	uint8_t *exact = b_dup(&b, b.len);
	insert_refused(exact, b.len, rom, rl - 2, CX_EVALUE, "whole dwords");
	insert_refused(exact, b.len, rom, 0, CX_EVALUE, "empty");
	insert_refused(NULL, b.len, rom, rl, CX_EVALUE, "internal");
	insert_refused(exact, b.len, NULL, rl, CX_EVALUE, "internal");
	cx_status_clear(&st);
	assert_int_equal(rom_insert(exact, b.len, rom, rl, NULL, &lo, &st), CX_EVALUE);
	assert_int_equal(rom_insert(exact, b.len, rom, rl, &out, NULL, &st), CX_EVALUE);
	/* Truncated anywhere: refused by the parser, never read past the end (ASan). */
	for (size_t cut = 0; cut < b.len; cut += cut < 0x40 ? 1 : 52) {
		uint8_t *t = b_dup(&b, cut);
		insert_refused(t, cut, rom, rl, CX_EIMAGE, "cannot add a ROM");
		free(t);
	}
	/* A section with a wrong CRC. */
	exact[b.sect[b.cnf].off + 20] ^= 1;
	insert_refused(exact, b.len, rom, rl, CX_EIMAGE, "wrong CRC");
	free(exact);

	/* The image already has a ROM. */
	s.rom = true;
	b_build(&b, &s);
	parse_ok(b.buf, b.len, &img, CX_OK);
	insert_refused(b.buf, b.len, rom, rl, CX_EUNSUPPORTED, "already has a ROM");
	assert_false(rom_carry_needed(&img, &img, false));
}

/* Hostile images: random bytes of the header and section headers changed, every CRC then
 * made right so the damage reaches the structure checks. rom_insert() either refuses with
 * a message or returns an image that verifies; ASan/UBSan watch every access. */
static void test_mutations(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	size_t rl, lo;
	const uint8_t *rom = small_rom(&rl);
	uint32_t x = 12345;
	int ok = 0;

	for (int i = 0; i < 3000; i++) {
		s.two_boot2 = i & 1;
		b_build(&b, &s);
		for (int k = 0; k < 1 + i % 3; k++) {
			x = x * 1103515245u + 12345u;
			int sect = (int)(x >> 8) % (b.nsect + 1);
			uint32_t at = sect == b.nsect ? (x >> 16) % FS2_BOOT2_START
						      : b.sect[sect].off + (x >> 16) % 16;
			b.buf[at] = (uint8_t)(x >> 24);
		}
		b_seal(&b);
		uint8_t *in = b_dup(&b, b.len), *out = NULL;
		cx_status_clear(&st);
		int rc = rom_insert(in, b.len, rom, rl, &out, &lo, &st);
		if (rc == CX_OK) {
			struct cx_status s2 = {0};
			ok++;
			assert_int_equal(fs2_parse(out, lo, &res, &s2), CX_OK);
			rc = fs2_verdict(&res, &s2);
			assert_true(rc == CX_OK || rc == CX_EBLANK);
			int roms = 0;
			for (int j = 0; j < nsections(&res); j++)
				roms += nth_section(&res, j)->type == FS2_ROM;
			assert_int_equal(roms, 1);
			assert_int_equal(res.nroms, 1);
		} else {
			assert_null(out);
			assert_true(st.msg[0] != '\0');
		}
		free(out);
		free(in);
	}
	print_message("%d of 3000 damaged images took the ROM\n", ok);
	assert_true(ok > 0);
}

static void test_rule_and_extract(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	const uint8_t *rom;
	size_t rl;

	s.rom = true;
	b_build(&want, &s);
	parse_ok(want.buf, want.len, &src, CX_OK);
	s.rom = false;
	b_build(&b, &s);
	parse_ok(b.buf, b.len, &img, CX_OK);

	cx_status_clear(&st);
	assert_int_equal(rom_sect_data(&src, &rom, &rl, &st), CX_OK);
	assert_ptr_equal(rom, want.buf + want.sect[want.rom].off + 16);
	assert_int_equal(rl, want.sect[want.rom].dlen);
	assert_int_equal(rom_sect_data(&img, &rom, &rl, &st), CX_EABSENT);
	assert_non_null(strstr(st.msg, "no expansion ROM"));
	cx_status_clear(&st);
	assert_int_equal(rom_sect_data(NULL, &rom, &rl, &st), CX_EABSENT);

	assert_true(rom_carry_needed(&src, &img, false));    /* card ROM, image none */
	assert_false(rom_carry_needed(&src, &img, true));    /* -use_image_rom */
	assert_false(rom_carry_needed(&img, &img, false));   /* card has none */
	assert_false(rom_carry_needed(&src, &src, false));   /* the image's own ROM */
	assert_false(rom_carry_needed(NULL, &img, false));   /* card unreadable */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mkfs2_cx3),
		cmocka_unit_test(test_mkfs2_cx3pro_uefi),
		cmocka_unit_test(test_mkfs2_cx2_old_guids),
		cmocka_unit_test(test_rom_from_other_image),
		cmocka_unit_test(test_builder),
		cmocka_unit_test(test_crc_word_bits_cleared),
		cmocka_unit_test(test_packs_in_chain_order),
		cmocka_unit_test(test_emt_section),
		cmocka_unit_test(test_zero_terminated_chain),
		cmocka_unit_test(test_single_section),
		cmocka_unit_test(test_empty_rom_section),
		cmocka_unit_test(test_blank_guids),
		cmocka_unit_test(test_rom_size_limit),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_rule_and_extract),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
