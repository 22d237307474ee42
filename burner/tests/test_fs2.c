/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_fs2.c — parsing and verifying FS2 images built in memory (fs2-format.md §1–§3). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/fs2.h"
#include "builder.h"

static struct b_img b;
static struct fs2_image img;
static struct cx_status st;

/* Parse the first len bytes of b from an exact-size heap copy. The copy is
 * kept until the next call so img (which points into it) stays valid. */
static uint8_t *cur;
static int parse_len(size_t len)
{
	free(cur);
	cur = b_dup(&b, len);
	cx_status_clear(&st);
	return fs2_parse(cur, len, &img, &st);
}

static int parse(void)
{
	return parse_len(b.len);
}

static int verdict(void)
{
	cx_status_clear(&st);
	return fs2_verdict(&img, &st);
}

static int teardown(void **state)
{
	(void)state;
	free(cur);
	cur = NULL;
	return 0;
}

static void build(const struct b_spec *s)
{
	b_build(&b, s);
}

static void build_default(void)
{
	struct b_spec s = b_defaults();
	build(&s);
}

static void build_full(void)
{
	struct b_spec s = b_defaults();
	s.two_boot2 = true;
	s.rom = true;
	build(&s);
}

static void expect_parse_fails(int code, const char *needle)
{
	assert_int_equal(parse(), code);
	assert_int_equal(st.code, code);
	assert_true(strlen(st.msg) > 0);
	if (needle && !strstr(st.msg, needle))
		fail_msg("message \"%s\" lacks \"%s\"", st.msg, needle);
}

/* Items in image order: BOOT2(s), sections, full image. */
static void check_items(void)
{
	int k = 0;

	assert_int_equal(img.nitems, b.nboot2 + b.nsect + 1);
	assert_int_equal(img.nboot2, b.nboot2);
	for (int i = 0; i < b.nboot2; i++, k++) {
		const struct fs2_item *it = &img.items[k];
		assert_int_equal(it->kind, FS2_ITEM_BOOT2);
		assert_int_equal(it->off, b.boot2_off[i]);
		assert_int_equal(it->len, b.boot2_len[i]);
		assert_int_equal(it->data_len, b.boot2_len[i] - 16);
		assert_int_equal(it->crc_stored, b_get32(b.buf + b.boot2_off[i] + b.boot2_len[i] - 4));
		assert_int_equal(it->crc_calc, it->crc_stored);
		assert_true(it->ok);
	}
	for (int i = 0; i < b.nsect; i++, k++) {
		const struct fs2_item *it = &img.items[k];
		assert_int_equal(it->kind, FS2_ITEM_SECTION);
		assert_int_equal(it->type, b.sect[i].type);
		assert_int_equal(it->off, b.sect[i].off);
		assert_int_equal(it->len, 16 + b.sect[i].dlen + 4);
		assert_int_equal(it->data_off, b.sect[i].off + 16);
		assert_int_equal(it->data_len, b.sect[i].dlen);
		assert_int_equal(it->crc_stored, b_get32(b.buf + b.sect[i].off + 16 + b.sect[i].dlen));
		assert_true(it->ok);
	}
	assert_int_equal(img.items[k].kind, FS2_ITEM_FULL);
	assert_true(img.items[k].ok);
}

static void test_parse_ok(void **state)
{
	(void)state;
	build_default();
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(st.code, CX_OK);

	assert_ptr_equal(img.buf, cur);
	assert_int_equal(img.len, b.len);
	assert_int_equal(img.dev_rev, 0xA1);
	assert_int_equal(img.fs_info, 0xF500000B);
	assert_true(img.failsafe);
	assert_int_equal(img.log2chunk, 19);
	assert_int_equal(img.info_ptr, b.sect[b.info].off + 16);
	assert_int_equal(img.img_size, b.len);
	assert_int_equal(img.guid_ptr, b.sect[b.guid].off + 16);
	assert_int_equal(img.last_addr, b.len);
	check_items();

	/* section indexes count the BOOT2 items */
	assert_int_equal(img.guid_sect, 1 + b.guid);
	assert_int_equal(img.info_sect, 1 + b.info);
	assert_int_equal(img.fwconf_sect, 1 + b.fwconf);
	assert_int_equal(img.rom_sect, -1);
	assert_int_equal(img.nroms, 0);

	/* decoded contents */
	assert_int_equal(img.guids.n, 6);
	assert_false(img.guids.blank);
	assert_true(img.guids.guid[0] == 0x0002c9000100d050ull);
	assert_true(img.guids.guid[3] == 0x0002c9000100d053ull);
	assert_true(img.guids.mac[0] == 0x0002c9000001ull);
	assert_true(img.guids.mac[1] == 0x0002c9000002ull);
	assert_string_equal(img.info.psid, "MT_1200111023");
	assert_string_equal(img.info.vsd, "n/a");
	assert_int_equal(img.info.fw_ver[1], 42);
	assert_int_equal(img.info.dev_type, 4103);
	assert_int_equal(img.info.payload_off[TAG_VSD] + img.items[img.info_sect].data_off, b.vsd_off);

	/* full CRC: checked (tag 11) and equal to the builder's, both ways */
	assert_true(img.has_full_crc);
	assert_int_equal(img.full_crc_stored, b_get32(b.buf + 0x20) & 0xFFFF);
	assert_int_equal(img.full_crc_calc, img.full_crc_stored);
	assert_int_equal(fs2_full_crc(cur, b.len), img.full_crc_stored);
	assert_int_equal(fs2_full_crc(cur, b.len), b_full_crc(b.buf, b.len));

	assert_int_equal(verdict(), CX_OK);
	assert_int_equal(st.code, CX_OK);
}

/* Two BOOT2 blocks and a ROM section. */
static void test_parse_two_boot2_rom(void **state)
{
	(void)state;
	char tmp[12];

	build_full();
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(img.nboot2, 2);
	check_items();
	assert_int_equal(img.items[1].off, 0x38 + 32);
	assert_int_equal(img.items[1].data_len, 7 * 4);
	assert_int_equal(img.rom_sect, 2 + b.rom);
	assert_int_equal(img.nroms, 1);
	assert_string_equal(rom_type_name(img.roms[0].product, tmp), "PXE");
	assert_int_equal(img.roms[0].ver[0], 3);
	assert_int_equal(img.roms[0].ver[1], 4);
	assert_int_equal(img.roms[0].ver[2], 752);
	assert_int_equal(img.roms[0].cpu, 1);
	assert_int_equal(verdict(), CX_OK);

	/* any first dword outside 1..12 makes a second BOOT2 (§1.3): 0 and 13 too */
	static const uint32_t w0s[] = {0, 13, 0xFFFFFFFF};
	for (size_t i = 0; i < sizeof(w0s) / sizeof(w0s[0]); i++) {
		build_full();
		b_put32(b.buf + b.boot2_off[1], w0s[i]);
		b_seal(&b);
		assert_int_equal(parse(), CX_OK);
		assert_int_equal(img.nboot2, 2);
		check_items();
		assert_int_equal(verdict(), CX_OK);
	}
	/* 1..12 there means a section: this "BOOT2" then parses as a broken one */
	build_full();
	b_put32(b.buf + b.boot2_off[1], 1);
	b_seal(&b);
	expect_parse_fails(CX_EIMAGE, NULL);
}

/* Four GUIDs: MACs derived; no tag 11: full CRC not checked. */
static void test_parse_variants(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();

	s.nguids = 4;
	s.guid[1] = 0x0002c903000a1b21ull;
	s.guid[2] = 0x0002c903000a1b22ull;
	build(&s);
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(img.guids.n, 4);
	assert_true(img.guids.macs_derived);
	assert_true(img.guids.mac[0] == 0x0002c90a1b21ull);
	assert_true(img.guids.mac[1] == 0x0002c90a1b22ull);
	assert_int_equal(verdict(), CX_OK);

	s = b_defaults();
	s.mic = false;
	build(&s);
	assert_int_equal(parse(), CX_OK);
	assert_false(img.has_full_crc);
	assert_int_equal(verdict(), CX_OK);
	/* a wrong full CRC is then not a failure (flint prints no Full Image line) */
	b.buf[0x23] ^= 0x5A;
	assert_int_equal(parse(), CX_OK);
	assert_true(img.items[img.nitems - 1].ok);
	assert_int_equal(verdict(), CX_OK);
}

/* FS info word decoding, §1.5. */
static void test_fs_info_decode(void **state)
{
	(void)state;
	static const struct {
		uint32_t w;
		bool fs;
		unsigned log2;
	} cases[] = {
		{0xF500000B, true, 19}, {0xF600000A, true, 18}, {0xF8000008, true, 16},
		{0xF100000F, true, 23}, {0x00000000, false, 16}, {0xF9000007, false, 23},
		{0x01FF0000, false, 16},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct b_spec s = b_defaults();
		s.fs_info = cases[i].w;
		build(&s);
		assert_int_equal(parse(), CX_OK);
		assert_int_equal(img.fs_info, cases[i].w);
		assert_int_equal(img.failsafe, cases[i].fs);
		assert_int_equal(img.log2chunk, cases[i].log2);
		assert_int_equal(verdict(), CX_OK);
	}
}

/* Byte 0x24: 3 is FS3 (unsupported); any other value is FS2, §1.1. */
static void test_format_byte(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();

	s.format = 3;
	build(&s);
	expect_parse_fails(CX_EUNSUPPORTED, NULL);

	s.format = 1;
	build(&s);
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(verdict(), CX_OK);
}

static void test_no_magic(void **state)
{
	(void)state;
	for (int i = 0; i < 16; i++) {
		build_default();
		b.buf[i] ^= 0x01;
		expect_parse_fails(CX_EIMAGE, NULL);
	}
}

/* Flip one byte of each item's *content* in turn: the image still parses and
 * the verdict names that item. */
static void test_flip_each_item(void **state)
{
	(void)state;
	char tmp[24];

	build_full();
	int nitems = b.nboot2 + b.nsect;
	for (int k = 0; k < nitems; k++) {
		uint32_t at;
		const char *name;
		build_full();
		if (k < b.nboot2) {
			at = b.boot2_off[k] + 12; /* a code dword */
			name = "BOOT2";
		} else {
			int i = k - b.nboot2;
			/* IMAGE_INFO: inside the VSD text so the tag list stays sound */
			at = i == b.info ? b.vsd_off + 100 : b.sect[i].off + 16 + 3;
			name = fs2_sect_name(b.sect[i].type, tmp);
		}
		b.buf[at] ^= 0x10;
		assert_int_equal(parse(), CX_OK);
		assert_false(img.items[k].ok);
		assert_int_not_equal(img.items[k].crc_calc, img.items[k].crc_stored);
		for (int j = 0; j < nitems; j++)
			if (j != k)
				assert_true(img.items[j].ok);
		/* the data changed, so the full CRC does too */
		assert_false(img.items[nitems].ok);
		assert_int_equal(verdict(), CX_EIMAGE);
		if (!strstr(st.msg, name))
			fail_msg("item %d: message \"%s\" lacks \"%s\"", k, st.msg, name);
		char off[16];
		snprintf(off, sizeof(off), "0x%x", img.items[k].off);
		assert_non_null(strstr(st.msg, off));
	}
}

/* Flip the low byte of each stored CRC: only that item is wrong. A section
 * enters the full CRC with its *computed* CRC, BOOT2 with its stored one (§2.2). */
static void test_flip_stored_crcs(void **state)
{
	(void)state;
	build_full();
	int nitems = b.nboot2 + b.nsect;
	for (int k = 0; k < nitems; k++) {
		uint32_t at;
		build_full();
		if (k < b.nboot2)
			at = b.boot2_off[k] + b.boot2_len[k] - 1;
		else
			at = b.sect[k - b.nboot2].off + 16 + b.sect[k - b.nboot2].dlen + 3;
		b.buf[at] ^= 0x01;
		assert_int_equal(parse(), CX_OK);
		assert_false(img.items[k].ok);
		assert_int_equal(img.items[nitems].ok, k >= b.nboot2);
		assert_int_equal(verdict(), CX_EIMAGE);
	}
	/* non-zero upper half of a stored CRC dword fails too (compared as u32) */
	build_full();
	b.buf[b.sect[b.cnf].off + 16 + 36] = 0x01;
	assert_int_equal(parse(), CX_OK);
	assert_false(img.items[b.nboot2 + b.cnf].ok);
	assert_int_equal(verdict(), CX_EIMAGE);
}

/* The full CRC at 0x20, and header bytes only it covers. */
static void test_flip_full_crc(void **state)
{
	(void)state;
	static const uint32_t at[] = {0x22, 0x23, 0x20, 0x10, 0x1F, 0x25, 0x30 + 3};

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		build_default();
		b.buf[at[i]] ^= 0x04;
		assert_int_equal(parse(), CX_OK);
		for (int k = 0; k < img.nitems - 1; k++)
			assert_true(img.items[k].ok);
		assert_false(img.items[img.nitems - 1].ok);
		assert_int_equal(verdict(), CX_EIMAGE);
		assert_non_null(strstr(st.msg, "full image"));
	}
}

static void test_fs_info_checksum(void **state)
{
	(void)state;
	for (int d = 1; d < 256; d++) {
		build_default();
		b.buf[0x28] = (uint8_t)(b.buf[0x28] + d);
		b_seal(&b);
		expect_parse_fails(CX_EIMAGE, NULL);
	}
	/* any other byte of the word */
	for (int i = 1; i < 4; i++) {
		build_default();
		b.buf[0x28 + i] ^= 0x20;
		b_seal(&b);
		expect_parse_fails(CX_EIMAGE, NULL);
	}
}

static void test_info_ptr_checksum(void **state)
{
	(void)state;
	for (int i = 0; i < 4; i++)
		for (int d = 1; d < 256; d += 17) {
			build_default();
			b.buf[0x2C + i] = (uint8_t)(b.buf[0x2C + i] + d);
			b_seal(&b);
			expect_parse_fails(CX_EIMAGE, NULL);
		}
}

/* Header pointers that name the wrong place. */
static void test_bad_pointers(void **state)
{
	(void)state;
	/* GUID pointer at the GPH instead of the data */
	build_default();
	b_put32(b.buf + 0x34, b.sect[b.guid].off);
	b_seal(&b);
	expect_parse_fails(CX_EIMAGE, "GUID");

	/* info pointer at the GUID data, with a correct checksum byte */
	build_default();
	uint32_t a = b.sect[b.guid].off + 16;
	uint8_t cs = (uint8_t)(0x100 - ((a & 0xFF) + (a >> 8 & 0xFF) + (a >> 16 & 0xFF)));
	b_put32(b.buf + 0x2C, (uint32_t)cs << 24 | a);
	b_seal(&b);
	expect_parse_fails(CX_EIMAGE, NULL);

	/* no GUID section at all (retyped as User Data) */
	build_default();
	b_put32(b.buf + b.sect[b.guid].off, 8);
	b_seal(&b);
	expect_parse_fails(CX_EIMAGE, "GUID");

	/* an info pointer but no Image Info section (retyped as User Data) */
	build_default();
	b_put32(b.buf + b.sect[b.info].off, 8);
	b_seal(&b);
	expect_parse_fails(CX_EIMAGE, NULL);
}

/* A broken tag list inside IMAGE_INFO stops the parse. */
static void test_bad_info_tags(void **state)
{
	(void)state;
	build_default();
	/* the end tag is the last dword of the section data: give it a length */
	uint32_t end = b.sect[b.info].off + 16 + b.sect[b.info].dlen - 4;
	assert_int_equal(b_get32(b.buf + end), 0xFF000000);
	b_put32(b.buf + end, 0x01000000); /* tag 1, len 0: no end tag */
	b_seal(&b);
	expect_parse_fails(CX_EIMAGE, NULL);
}

/* Cut the image at every byte: always a clean CX_EIMAGE (ASan watches the
 * exact-size copies). */
static void test_truncations(void **state)
{
	(void)state;
	for (int v = 0; v < 2; v++) {
		if (v)
			build_full();
		else
			build_default();
		size_t full = b.len;
		for (size_t len = 0; len < full; len++) {
			assert_int_equal(parse_len(len), CX_EIMAGE);
			assert_true(strlen(st.msg) > 0);
		}
		assert_int_equal(parse_len(full), CX_OK);
	}
}

/* A bigger BOOT2 size than the image holds, or out of range. */
static void test_boot2_sizes(void **state)
{
	(void)state;
	static const uint32_t bad[] = {0, 3, 0x100001, 0xFFFFFFFF, 0x100000, 5000};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		build_default();
		b_put32(b.buf + 0x38 + 4, bad[i]);
		expect_parse_fails(CX_EIMAGE, "BOOT2");

		build_full();
		b_put32(b.buf + b.boot2_off[1] + 4, bad[i]);
		expect_parse_fails(CX_EIMAGE, "BOOT2");
	}
}

/* A chain whose next points back (or at itself) loops. */
static void test_loop(void **state)
{
	(void)state;
	build_default();
	int last = b.nsect - 1;
	uint32_t targets[] = {b.sect[0].off, b.sect[last].off, b.sect[1].off, 0x38};

	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		build_default();
		b_put32(b.buf + b.sect[last].off + 12, targets[i]);
		b_seal(&b);
		expect_parse_fails(CX_EIMAGE, "loop");
	}
	/* the GUID section pointing back at CNF */
	build_default();
	b_put32(b.buf + b.sect[b.guid].off + 12, b.sect[b.cnf].off);
	b_seal(&b);
	expect_parse_fails(CX_EIMAGE, "loop");
}

/* next pointing past the image, or into the middle of the data. */
static void test_next_out_of_range(void **state)
{
	(void)state;
	static const uint32_t targets[] = {0x00FFFFFF, 0xFEFFFFFF, 0xFFFFFFFF, 0x80000000};

	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		build_default();
		b_put32(b.buf + b.sect[b.nsect - 1].off + 12, targets[i]);
		b_seal(&b);
		expect_parse_fails(CX_EIMAGE, NULL);
	}
	/* the last section's next = its own end: a header of zeros is not there */
	build_default();
	b_put32(b.buf + b.sect[b.nsect - 1].off + 12, (uint32_t)b.len);
	b_seal(&b);
	expect_parse_fails(CX_EIMAGE, NULL);
}

/* next = 0 also ends the list (§1.4). */
static void test_end_zero(void **state)
{
	(void)state;
	build_default();
	b_put32(b.buf + b.sect[b.nsect - 1].off + 12, 0);
	b_seal(&b);
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(verdict(), CX_OK);
	assert_int_equal(img.last_addr, b.len);
}

/* MAX_SECTION_SIZE = 0x400000 bytes of data (§1.4). */
static void test_section_too_big(void **state)
{
	(void)state;
	/* dword sizes: 0x100001 dwords = 4 MiB + 4 */
	build_default();
	b_put32(b.buf + b.sect[b.fwconf].off + 4, 0x100001);
	expect_parse_fails(CX_EIMAGE, NULL);
	build_default();
	b_put32(b.buf + b.sect[b.cnf].off + 4, 0xFFFFFFFF);
	expect_parse_fails(CX_EIMAGE, NULL);
	/* exactly the limit is not "too big", but does not fit: still EIMAGE */
	build_default();
	b_put32(b.buf + b.sect[b.fwconf].off + 4, 0x100000);
	expect_parse_fails(CX_EIMAGE, "past the end");

	/* EMT (type 4) counts bytes, rounded up to 4 */
	build_default();
	b_put32(b.buf + b.sect[b.fwconf].off, 4);
	b_put32(b.buf + b.sect[b.fwconf].off + 4, 0x400001);
	expect_parse_fails(CX_EIMAGE, "larger");
	build_default();
	b_put32(b.buf + b.sect[b.fwconf].off, 4);
	b_put32(b.buf + b.sect[b.fwconf].off + 4, 0xFFFFFFFF);
	expect_parse_fails(CX_EIMAGE, NULL);
}

/* EMT sizes are in bytes: a 7-byte EMT section occupies 8 data bytes. */
static void test_emt_bytes(void **state)
{
	(void)state;
	build_default();
	uint32_t fc = b.sect[b.fwconf].off;
	uint32_t dlen = b.sect[b.fwconf].dlen;
	b_put32(b.buf + fc, 4);
	b_put32(b.buf + fc + 4, dlen - 1); /* rounds back up to dlen */
	b.sect[b.fwconf].type = 4;
	b_seal(&b);
	assert_int_equal(parse(), CX_OK);
	const struct fs2_item *it = &img.items[1 + b.fwconf];
	assert_int_equal(it->type, 4);
	assert_int_equal(it->data_len, dlen);
	assert_true(it->ok);
	assert_int_equal(img.fwconf_sect, -1);
	assert_int_equal(verdict(), CX_OK);
}

/* An unknown section type later in the chain: parsed, CRC checked, named. */
static void test_unknown_type(void **state)
{
	(void)state;
	char tmp[24];

	build_default();
	b_put32(b.buf + b.sect[b.fwconf].off, 13);
	b.sect[b.fwconf].type = 13;
	b_seal(&b);
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(img.items[1 + b.fwconf].type, 13);
	assert_true(img.items[1 + b.fwconf].ok);
	assert_int_equal(verdict(), CX_OK);
	b.buf[b.sect[b.fwconf].off + 16] ^= 1;
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(verdict(), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "UNKNOWN (13)"));

	assert_string_equal(fs2_sect_name(1, tmp), "DDR");
	assert_string_equal(fs2_sect_name(2, tmp), "Configuration");
	assert_string_equal(fs2_sect_name(6, tmp), "GUID");
	assert_string_equal(fs2_sect_name(9, tmp), "FW Configuration");
	assert_string_equal(fs2_sect_name(10, tmp), "Image Info");
	assert_string_equal(fs2_sect_name(12, tmp), "Hash File");
	assert_string_equal(fs2_sect_name(0, tmp), "UNKNOWN (0)");
	assert_string_equal(fs2_sect_name(200, tmp), "UNKNOWN (200)");
}

/* A hostile chain of many tiny sections is bounded. */
static void test_many_sections(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	static const int counts[] = {200, 600};

	for (int c = 0; c < 2; c++) {
		build(&s);
		/* rebuild after BOOT2: GUID, then empty User Data sections */
		b.len = b.sect[0].off;
		b.nsect = 0;
		uint8_t g[48];
		for (int i = 0; i < 6; i++)
			b_put64(g + 8 * i, s.guid[i]);
		b.guid = b_sect(&b, 6, 12, 0, g, 48);
		b.info = b.cnf = b.fwconf = -1;
		for (int i = 0; i < counts[c]; i++)
			b_sect(&b, 8, 0, 0, NULL, 0);
		b_link(&b);
		b_put32(b.buf + 0x2C, 0);
		b_put32(b.buf + 0x34, b.sect[b.guid].off + 16);
		b_put32(b.buf + 0x30, (uint32_t)b.len);
		b_seal(&b);
		if (counts[c] < FS2_MAX_SECTIONS - 10) {
			assert_int_equal(parse(), CX_OK);
			assert_int_equal(img.nitems, 1 + 1 + counts[c] + 1);
			assert_int_equal(img.info_ptr, 0);
			assert_int_equal(img.info_sect, -1);
			assert_int_equal(verdict(), CX_OK);
		} else {
			expect_parse_fails(CX_EIMAGE, NULL);
		}
	}
}

/* Blank GUIDs: sound structure, verdict CX_EBLANK (§3.1). */
static void test_blank(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();

	s.blank = true;
	build(&s);
	assert_int_equal(b_get32(b.buf + 0x20) & 0xFFFF, 0xFFFF);
	assert_int_equal(parse(), CX_OK);
	assert_true(img.guids.blank);
	const struct fs2_item *g = &img.items[img.guid_sect];
	assert_true(g->blank);
	assert_true(g->ok);
	assert_int_equal(g->crc_stored, 0xFFFF);
	assert_true(img.items[img.nitems - 1].blank);
	assert_true(img.items[img.nitems - 1].ok);
	assert_int_equal(verdict(), CX_EBLANK);
	assert_int_equal(st.code, CX_EBLANK);
	assert_true(strlen(st.msg) > 0);

	/* a real CRC problem elsewhere wins over blank */
	b.buf[b.sect[b.cnf].off + 20] ^= 1;
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(verdict(), CX_EIMAGE);

	/* blank entries with a GUID CRC that is neither 0xFFFF nor right */
	build(&s);
	b_put32(b.buf + b.sect[b.guid].off + 16 + b.sect[b.guid].dlen, 0x1234);
	assert_int_equal(parse(), CX_OK);
	assert_false(img.items[img.guid_sect].ok);
	assert_int_equal(verdict(), CX_EIMAGE);

	/* CRC 0xFFFF but a non-blank node GUID is just a wrong CRC */
	build(&s);
	b.buf[b.sect[b.guid].off + 16] = 0x00;
	assert_int_equal(parse(), CX_OK);
	assert_false(img.items[img.guid_sect].blank);
	assert_false(img.items[img.guid_sect].ok);
	assert_int_equal(verdict(), CX_EIMAGE);
}

/* All-ones entries under a real (computed) GUID CRC are not "blank": flint's
 * Fs2Query wants the 0xFFFF CRC too (fs2-format.md §3.1, §2.2). */
static void test_all_ones_with_real_crc(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();

	for (int i = 0; i < 6; i++)
		s.guid[i] = UINT64_MAX;
	build(&s);
	assert_int_not_equal(b_get32(b.buf + b.sect[b.guid].off + 16 + 48), 0xFFFF);
	assert_int_equal(parse(), CX_OK);
	assert_false(img.guids.blank);
	assert_false(img.items[img.guid_sect].blank);
	assert_true(img.items[img.guid_sect].ok);
	assert_false(img.items[img.nitems - 1].blank);
	assert_true(img.items[img.nitems - 1].ok);
	assert_int_equal(verdict(), CX_OK);
}

static void put_magic(uint8_t *p)
{
	b_put32(p, 0x4D544657);
	b_put32(p + 4, 0x8CDFD000);
	b_put32(p + 8, 0xDEAD9270);
	b_put32(p + 12, 0x4154BEEF);
}

static void test_has_magic(void **state)
{
	(void)state;
	uint8_t m[16];

	put_magic(m);
	assert_true(fs2_has_magic(m));
	for (int i = 0; i < 16; i++) {
		m[i] ^= 0x80;
		assert_false(fs2_has_magic(m));
		m[i] ^= 0x80;
	}
	/* the FS4 pattern is not FS2 (§1.1) */
	b_put32(m + 4, 0xABCDEF00);
	b_put32(m + 8, 0xFADE1234);
	b_put32(m + 12, 0x5678DEAD);
	assert_false(fs2_has_magic(m));
}

/* fs2_locate on raw dumps with 0, 1, 2 and 3 magics. */
static void test_locate(void **state)
{
	(void)state;
	const size_t len = 0x100000 + 16;
	uint8_t *flash = malloc(len);
	uint32_t starts[2];
	int n;

	assert_non_null(flash);
	assert_int_equal(fs2_nstart_pos, 11);
	assert_int_equal(fs2_start_pos[0], 0);
	assert_int_equal(fs2_start_pos[10], 0x2000000);

	/* 0: erased flash; and a magic at a non-candidate address */
	memset(flash, 0xFF, len);
	put_magic(flash + 0x8000);
	cx_status_clear(&st);
	n = 9;
	assert_int_equal(fs2_locate(flash, len, starts, &n, &st), CX_EIMAGE);
	assert_int_equal(n, 0);
	assert_true(strlen(st.msg) > 0);

	/* 1: slot 1 of a 512 KiB-chunk flash */
	memset(flash, 0xFF, len);
	put_magic(flash + 0x80000);
	cx_status_clear(&st);
	assert_int_equal(fs2_locate(flash, len, starts, &n, &st), CX_OK);
	assert_int_equal(n, 1);
	assert_int_equal(starts[0], 0x80000);

	/* 2: both slots, lowest first */
	put_magic(flash);
	cx_status_clear(&st);
	assert_int_equal(fs2_locate(flash, len, starts, &n, &st), CX_OK);
	assert_int_equal(n, 2);
	assert_int_equal(starts[0], 0);
	assert_int_equal(starts[1], 0x80000);

	/* 3: too many */
	put_magic(flash + 0x100000);
	cx_status_clear(&st);
	assert_int_equal(fs2_locate(flash, len, starts, &n, &st), CX_EIMAGE);
	assert_int_equal(n, 0);
	assert_non_null(strstr(st.msg, "0x100000"));

	/* a magic that does not fully fit before the end is not looked at */
	cx_status_clear(&st);
	assert_int_equal(fs2_locate(flash, len - 1, starts, &n, &st), CX_OK);
	assert_int_equal(n, 2);
	free(flash);

	/* a tiny buffer: nothing fits */
	uint8_t *tiny = malloc(15);
	assert_non_null(tiny);
	put_magic(flash = malloc(16));
	memcpy(tiny, flash, 15);
	cx_status_clear(&st);
	assert_int_equal(fs2_locate(tiny, 15, starts, &n, &st), CX_EIMAGE);
	cx_status_clear(&st);
	assert_int_equal(fs2_locate(flash, 16, starts, &n, &st), CX_OK);
	assert_int_equal(n, 1);
	free(tiny);
	free(flash);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_parse_ok, teardown),
		cmocka_unit_test_teardown(test_parse_two_boot2_rom, teardown),
		cmocka_unit_test_teardown(test_parse_variants, teardown),
		cmocka_unit_test_teardown(test_fs_info_decode, teardown),
		cmocka_unit_test_teardown(test_format_byte, teardown),
		cmocka_unit_test_teardown(test_no_magic, teardown),
		cmocka_unit_test_teardown(test_flip_each_item, teardown),
		cmocka_unit_test_teardown(test_flip_stored_crcs, teardown),
		cmocka_unit_test_teardown(test_flip_full_crc, teardown),
		cmocka_unit_test_teardown(test_fs_info_checksum, teardown),
		cmocka_unit_test_teardown(test_info_ptr_checksum, teardown),
		cmocka_unit_test_teardown(test_bad_pointers, teardown),
		cmocka_unit_test_teardown(test_bad_info_tags, teardown),
		cmocka_unit_test_teardown(test_truncations, teardown),
		cmocka_unit_test_teardown(test_boot2_sizes, teardown),
		cmocka_unit_test_teardown(test_loop, teardown),
		cmocka_unit_test_teardown(test_next_out_of_range, teardown),
		cmocka_unit_test_teardown(test_end_zero, teardown),
		cmocka_unit_test_teardown(test_section_too_big, teardown),
		cmocka_unit_test_teardown(test_emt_bytes, teardown),
		cmocka_unit_test_teardown(test_unknown_type, teardown),
		cmocka_unit_test_teardown(test_many_sections, teardown),
		cmocka_unit_test_teardown(test_blank, teardown),
		cmocka_unit_test_teardown(test_all_ones_with_real_crc, teardown),
		cmocka_unit_test(test_has_magic),
		cmocka_unit_test(test_locate),
	};
	return cmocka_run_group_tests_name("fs2", tests, NULL, NULL);
}
