/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_fs3.c — parsing and verifying FS3/FS4 images built in memory by fs3_builder.h
 * (fs3-format.md §1–§8): valid images, each CRC kind damaged, structural faults, bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/fs3.h"
#include "image/hw_crc.h"
#include "fs3_builder.h"

static struct f3 b;
static struct fs3_image img;
static struct cx_status st;
static uint8_t *cur;

/* Parse the first len bytes of b from an exact-size heap copy (kept until the next call). */
static int parse_len(size_t len)
{
	free(cur);
	cur = malloc(len);
	memcpy(cur, b.buf, len);
	cx_status_clear(&st);
	return fs3_parse(cur, len, &img, &st);
}

static int parse(void)
{
	return parse_len(b.len);
}

static int verdict(void)
{
	cx_status_clear(&st);
	return fs3_verdict(&img, &st);
}

static void build(bool fs4)
{
	struct f3_spec s = f3_defaults(fs4);
	s.rom = s.ini = true;
	f3_build(&b, &s);
}

static const struct fs3_item *item_named(uint8_t type)
{
	for (int i = 0; i < img.nitems; i++)
		if (img.items[i].type == type && img.items[i].kind != FS3_ITEM_BOOT2)
			return &img.items[i];
	return NULL;
}

static int count_bad(void)
{
	int n = 0;
	for (int i = 0; i < img.nitems; i++)
		n += !img.items[i].ok;
	return n;
}

static void test_hw_crc_matches_bitwise_reference(void **state)
{
	(void)state;
	uint8_t p[6];
	for (unsigned seed = 0; seed < 2000; seed++) {
		for (int i = 0; i < 6; i++)
			p[i] = (uint8_t)(seed * 131u + (unsigned)i * 29u + (seed >> 3) * (unsigned)i);
		assert_int_equal(hw_crc(p, 6), f3_hw_crc(p, 6));
	}
	memset(p, 0, sizeof(p));
	assert_int_equal(hw_crc(p, 6), 0); /* §4.2: a pointer of all ones passes as 0/0 */
}

static void test_detect(void **state)
{
	(void)state;
	build(false);
	assert_int_equal(fs3_detect(b.buf, b.len), FMT_FS3);
	build(true);
	assert_int_equal(fs3_detect(b.buf, b.len), FMT_FS4);
	b.buf[0x10] = 2; /* FS4 magic, unknown version: no format */
	assert_int_equal(fs3_detect(b.buf, b.len), FMT_UNKNOWN);
	build(false);
	b.buf[0x24] = 1; /* FS2 magic, any other version byte: FS2 */
	assert_int_equal(fs3_detect(b.buf, b.len), FMT_FS2);
	assert_int_equal(fs3_detect(b.buf, 8), FMT_UNKNOWN);
}

static void test_fs3_valid(void **state)
{
	(void)state;
	build(false);
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(verdict(), CX_OK);
	assert_string_equal(img.fmt->name, "FS3");
	assert_int_equal(img.itoc_off, F3_ITOC);
	assert_int_equal(img.info.fw_ver[0], 14);
	assert_int_equal(img.info.fw_ver[1], 32);
	assert_int_equal(img.info.fw_ver[2], 1010);
	assert_string_equal(img.info.psid, "MT_2420110034");
	assert_int_equal(img.info.hw_ids[0], 0x20b);
	assert_true(img.info.signed_fw && img.info.mcc_en && !img.info.secure_fw);
	assert_string_equal(img.info.name, "MCX4121A-ACA_Ax");
	assert_true(img.mfg.present && img.mfg.guids_override_en && img.mfg.new_format);
	assert_true(img.dev.present && img.dev.new_format);
	assert_true(img.dev.guids[0].uid == 0x98039b0300a1b2c0ull && img.dev.guids[0].num == 8);
	assert_true(img.dev.macs[0].uid == 0x98039ba1b2c0ull && img.dev.macs[0].step == 1);
	assert_string_equal(img.dev.vsd, "device vsd");
	assert_int_equal(img.nroms, 1);
	assert_int_equal(img.roms[0].product, 0x10);
	assert_true(img.ini_entry >= 0 && img.rom_entry >= 0);
	/* RESET_INFO has no CRC: shown, never wrong */
	assert_int_equal(item_named(0x20)->crc, FS3_CRC_NONE);
	assert_true(item_named(0x20)->ok);
}

static void test_fs4_valid(void **state)
{
	(void)state;
	build(true);
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(verdict(), CX_OK);
	assert_string_equal(img.fmt->name, "FS4");
	assert_int_equal(img.items[0].kind, FS3_ITEM_SECTION);
	assert_int_equal(img.items[0].type, 0xfb); /* 16 HW pointers first */
	assert_int_equal(img.items[16].type, 0xfc); /* then the tools area */
	assert_int_equal(img.items[17].kind, FS3_ITEM_BOOT2);
	assert_int_equal(img.log2_slot, 0x16);
	assert_int_equal(img.dtoc_off, F3_DTOC);
	assert_int_equal(img.info.fw_ver[0], 16);
	assert_int_equal(img.ndev_valid, 1); /* the erased spare DEV_INFO does not count */
	assert_int_equal(item_named(0x09)->crc, FS3_CRC_IN_SECTION);
}

static void test_fs4_hashes_table(void **state)
{
	(void)state;
	struct f3_spec s = f3_defaults(true);
	s.hashes = true;
	f3_build(&b, &s);
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(verdict(), CX_OK);
	assert_non_null(item_named(0xfa));
	assert_int_equal(item_named(0xfa)->len, 0x804);
	b.buf[F4_HASHES + 0x40] ^= 1; /* inside the table: its CRC */
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(verdict(), CX_EIMAGE);
	f3_write(&b);
	b.buf[F4_HASHES] ^= 1; /* the header: its own CRC, a line only when wrong */
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(count_bad(), 2);
}

/* Each CRC kind damaged: the item is wrong, the parse goes on, every one is recorded. */
static void test_crc_kinds_damaged(void **state)
{
	(void)state;
	build(true);
	b.buf[0x5000 + 3] ^= 0x40;     /* MAIN_CODE: CRC in the entry */
	b.buf[0x6000 + 3] ^= 0x40;     /* HW_MAIN_CFG: CRC in its last dword */
	b.buf[0x7000 + 3] ^= 0x40;     /* RESET_INFO: no CRC */
	b.buf[0x1000 + 12] ^= 0x40;    /* BOOT2 */
	b.buf[F4_TOOLS + 8] ^= 0x40;   /* tools area */
	b.buf[0x1e000 + 5] ^= 0x40;    /* VPD_R0 in the DTOC */
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(count_bad(), 5);
	assert_false(item_named(0x03)->ok);
	assert_false(item_named(0x09)->ok);
	assert_true(item_named(0x20)->ok);
	assert_false(item_named(0xfc)->ok);
	assert_false(item_named(0xe3)->ok);
	assert_int_equal(verdict(), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "wrong CRC"));
}

static void test_fs3_section_crc_and_header(void **state)
{
	(void)state;
	build(false);
	b.buf[0x4000 + 0x200] ^= 1;  /* IMAGE_INFO: not read when its CRC is wrong */
	b.buf[F3_ITOC + 16] ^= 1;    /* the ITOC header's CRC: used anyway, reported */
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(count_bad(), 2);
	assert_false(img.info.present);
	assert_false(item_named(0xfd)->ok);
}

static void test_bad_hw_pointer_crc(void **state)
{
	(void)state;
	build(true);
	b.buf[0x18 + 8 * 12 + 7] ^= 1; /* public_key pointer's stored CRC */
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(count_bad(), 1);
	assert_false(img.items[12].ok);
	assert_int_equal(img.items[12].off, 0x18 + 8 * 12);
	assert_int_equal(verdict(), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "HW_POINTERS"));
}

static void test_entry_crc_is_structural(void **state)
{
	(void)state;
	build(false);
	b.buf[F3_ITOC + 32 + 32 + 8] ^= 1; /* entry 1's param1 */
	assert_int_equal(parse(), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "entry 1 CRC"));
}

static void test_truncated_itoc(void **state)
{
	(void)state;
	build(false);
	/* The file ends inside the ITOC's first entry. */
	assert_int_equal(parse_len(F3_ITOC + 32 + 16), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "truncated"));
	/* ... or inside its header: no ITOC at all */
	assert_int_equal(parse_len(F3_ITOC + 16), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "no valid ITOC"));
}

static void test_too_many_entries(void **state)
{
	(void)state;
	build(false);
	b.n = 0;
	for (int i = 0; i < 70; i++)
		f3_add(&b, 0x20, 0x4000, 0x40, F3_NONE, false);
	f3_add(&b, 0xe0, 0x1a000, 0x140, F3_IN_ENTRY, true);
	f3_write(&b);
	assert_int_equal(parse(), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "more than 63 entries"));
	/* 63 entries before the end marker are allowed */
	b.n = 0;
	for (int i = 0; i < 62; i++)
		f3_add(&b, 0x20, 0x4000, 0x40, F3_NONE, false);
	f3_add(&b, 0xe0, 0x1a000, 0x140, F3_IN_ENTRY, true);
	f3_write(&b);
	assert_int_equal(parse(), CX_OK);
}

static void drop_type(uint8_t type)
{
	int k = 0;
	for (int i = 0; i < b.n; i++)
		if (b.ents[i].type != type)
			b.ents[k++] = b.ents[i];
	b.n = k;
	f3_write(&b);
}

static void test_missing_mfg_info(void **state)
{
	(void)state;
	build(false);
	drop_type(0xe0);
	assert_int_equal(parse(), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "MFG_INFO"));
	build(true);
	drop_type(0xe0);
	assert_int_equal(parse(), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "MFG_INFO"));
}

static void test_fs4_dev_info_count(void **state)
{
	(void)state;
	build(true);
	drop_type(0xe1);
	assert_int_equal(parse(), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "no \"DEV_INFO\""));
	build(true);
	f3_add(&b, 0xe1, 0x19000, 0x200, F3_IN_SECTION, true);
	f3_write(&b);
	assert_int_equal(parse(), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "two \"DEV_INFO\""));
}

static void test_dtoc_misplaced(void **state)
{
	(void)state;
	build(true);
	/* The DTOC must be in the last 4 KiB: a longer file moves "the end" past it. */
	free(cur);
	cur = malloc(F3_LEN + 0x1000);
	memcpy(cur, b.buf, F3_LEN);
	memset(cur + F3_LEN, 0xff, 0x1000);
	cx_status_clear(&st);
	assert_int_equal(fs3_parse(cur, F3_LEN + 0x1000, &img, &st), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "DTOC"));
}

static void test_itoc_retry_one_sector_on(void **state)
{
	(void)state;
	build(true);
	/* Point toc_ptr one sector early at an erased sector: the ITOC is found at +4 KiB. */
	f3_hwptr(&b, 2, F4_ITOC - 0x1000);
	memset(b.buf + F4_ITOC - 0x1000, 0xff, 0x1000);
	assert_int_equal(parse(), CX_OK);
	assert_int_equal(img.itoc_off, F4_ITOC);
	/* No ITOC at either place */
	f3_hwptr(&b, 2, 0x10000);
	assert_int_equal(parse(), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "ITOC"));
}

static void test_bounds(void **state)
{
	(void)state;
	/* A section past the end of the file */
	build(false);
	assert_int_equal(parse_len(0x5100), CX_EIMAGE); /* MAIN_CODE is 0x5000-0x51ff */
	assert_non_null(strstr(st.msg, "past the end"));
	/* HW pointers past the end: tools, boot2, toc, hashes */
	static const int ptrs[] = {3, 1, 15};
	for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++) {
		build(true);
		f3_hwptr(&b, ptrs[i], 0xfffff000u);
		assert_int_equal(parse(), CX_EIMAGE);
		assert_non_null(strstr(st.msg, "past the end"));
	}
	/* A BOOT2 size out of range */
	build(false);
	f3_put32(b.buf + 0x38 + 4, 0x7fffffff);
	assert_int_equal(parse(), CX_EIMAGE);
	/* Every prefix of a valid image fails cleanly or parses (ASan watches the reads) */
	build(true);
	for (size_t len = 0; len < F3_LEN; len += 0x3f1)
		(void)parse_len(len);
	build(false);
	for (size_t len = 0; len < F3_LEN; len += 0x3f1)
		(void)parse_len(len);
}

/* A raw dump of a whole flash: the image in the second slot, FS3 device data at absolute
 * addresses, FS4's DTOC in the dump's last 4 KiB (§8). */
static void test_flash_dump(void **state)
{
	(void)state;
	size_t len = 0x200000;
	uint8_t *dump = malloc(len);

	build(true);
	memset(dump, 0xff, len);
	memcpy(dump + 0x100000, b.buf, F3_LEN);              /* the image in slot 1 */
	memcpy(dump + 0x1a000, b.buf + 0x1a000, 0x5000);     /* device sections: absolute */
	memcpy(dump + len - 0x1000, b.buf + F3_DTOC, 0x1000);/* the DTOC in the last 4 KiB */
	cx_status_clear(&st);
	free(cur);
	cur = dump;
	assert_int_equal(fs3_parse(dump, len, &img, &st), CX_OK);
	assert_int_equal(fs3_verdict(&img, &st), CX_OK);
	assert_int_equal(img.start, 0x100000);
	assert_true(img.dev.present && img.mfg.present);
	/* A second FS4 magic (an old slot not erased) is refused, as upstream */
	memcpy(dump, b.buf, 0x20);
	cx_status_clear(&st);
	assert_int_equal(fs3_parse(dump, len, &img, &st), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "more than one"));
}

static void test_fs3_dump_slot1(void **state)
{
	(void)state;
	size_t len = 0x400000;
	uint8_t *dump = malloc(len);

	build(false);
	memset(dump, 0xff, len);
	memcpy(dump + 0x200000, b.buf, 0xa000);              /* relative sections move with it */
	memcpy(dump + 0x1a000, b.buf + 0x1a000, 0x6000);     /* device data stays absolute */
	free(cur);
	cur = dump;
	cx_status_clear(&st);
	assert_int_equal(fs3_parse(dump, len, &img, &st), CX_OK);
	assert_int_equal(fs3_verdict(&img, &st), CX_OK);
	assert_int_equal(img.start, 0x200000);
	assert_string_equal(img.info.psid, "MT_2420110034");
}

/* MFG_INFO 0.x and DEV_INFO 1.x: two GUID and two MAC allocations each (§6.1, §6.2). */
static void test_old_uid_layout(void **state)
{
	(void)state;
	struct f3_spec s = f3_defaults(false);
	s.old_uids = true;
	f3_build(&b, &s);
	assert_int_equal(parse(), CX_OK);
	assert_false(img.dev.new_format);
	assert_false(img.mfg.new_format);
	assert_true(img.dev.guids[1].uid == 0x98039b0300a1b2c8ull && img.dev.guids[1].step == 1);
	assert_true(img.dev.macs[0].uid == 0x98039ba1b2d0ull && img.dev.macs[0].num == 2);
	assert_true(img.dev.macs[1].uid == 0 && img.mfg.macs[1].uid == 0x98039ba1b2c1ull);
}

static void test_unknown_versions(void **state)
{
	(void)state;
	build(false);
	b.buf[0x4000] = 1; /* IMAGE_INFO major 1 */
	f3_write(&b);
	assert_int_equal(parse(), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "IMAGE_INFO format"));
	build(false);
	f3_put32(b.buf + 0x24, 3u << 24 | 0x15u << 16 | 2u << 8); /* bin version 2.0 */
	assert_int_equal(parse(), CX_EUNSUPPORTED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hw_crc_matches_bitwise_reference),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_fs3_valid),
		cmocka_unit_test(test_fs4_valid),
		cmocka_unit_test(test_fs4_hashes_table),
		cmocka_unit_test(test_crc_kinds_damaged),
		cmocka_unit_test(test_fs3_section_crc_and_header),
		cmocka_unit_test(test_bad_hw_pointer_crc),
		cmocka_unit_test(test_entry_crc_is_structural),
		cmocka_unit_test(test_truncated_itoc),
		cmocka_unit_test(test_too_many_entries),
		cmocka_unit_test(test_missing_mfg_info),
		cmocka_unit_test(test_fs4_dev_info_count),
		cmocka_unit_test(test_dtoc_misplaced),
		cmocka_unit_test(test_itoc_retry_one_sector_on),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_flash_dump),
		cmocka_unit_test(test_fs3_dump_slot1),
		cmocka_unit_test(test_old_uid_layout),
		cmocka_unit_test(test_unknown_versions),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(cur);
	return rc;
}
