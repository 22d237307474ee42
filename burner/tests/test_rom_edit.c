/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_rom_edit.c — drom and brom on an image in memory, the ROM file checks, the Product
 * Version gate and the room rule (image/rom_edit.h, fs2-format.md §4.5, §9, §1.5).
 *
 * The strongest check: mkfs2 puts the ROM where flint does, so removing it and putting
 * it back must give the original image byte for byte, and the image without it must have
 * every pointer (0x2C with its checksum byte, 0x30, 0x34), every section CRC and the
 * full-image CRC right, checked here field by field against the parse, not only by
 * fs2_verdict(). Multi-ROM sections (CLP + UEFI + PXE, as HP's) are built here from
 * single PCI images, each with its own header, PCIR and checksum.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/crc16.h"
#include "image/fs2.h"
#include "image/rom_edit.h"
#include "image/rom_insert.h"
#include "builder.h"
#include "mkimage.h"
#include "parsed_image.h"

#define SMALL "--ddr 2 --ddr-size 0x1000 "
#define BLOCK 512
#define DEV_CX3 4099    /* mkfs2 --chip cx3 device id */
#define DEV_CX3PRO 4103 /* mkfs2 --chip cx3pro device id */

static struct fs2_image img, res;
static struct cx_status st;

static void put_le16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	put_le16(p, v & 0xffff);
	put_le16(p + 2, v >> 16);
}

/* One PCI option-ROM image at p of blocks*512 bytes (PCI Firmware Spec 3.0, 5.1): header,
 * PCIR at 0x20 (device devid, length, last-image bit), an mlxsign: record (product,
 * ver, devid) at 0x40, filler, and the last byte making the 8-bit sum 0 (or 1 when bad). */
static void pci_image(uint8_t *p, unsigned blocks, uint16_t product, const uint16_t ver[3],
		      uint16_t devid, bool last, bool bad_sum)
{
	size_t len = (size_t)blocks * BLOCK;
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 13 + product);
	p[0] = 0x55;
	p[1] = 0xAA;
	p[2] = (uint8_t)blocks;
	put_le16(p + 0x18, 0x20);
	memcpy(p + 0x20, "PCIR", 4);
	put_le16(p + 0x24, 0x15B3);
	put_le16(p + 0x26, devid);
	put_le16(p + 0x30, blocks);
	p[0x34] = product == 0x11 ? 3 : 0; /* code type: EFI or x86 */
	p[0x35] = last ? 0x80 : 0;
	memcpy(p + 0x40, "mlxsign:", 8);
	put_le32(p + 0x48, (uint32_t)product << 16 | (ver[0] & 0xff));
	put_le32(p + 0x4C, (uint32_t)ver[1] << 16 | ver[2]);
	put_le32(p + 0x50, (uint32_t)devid << 16 | 1u << 8 | 0xff); /* port 0, AMD64, proto N/A */
	p[len - 1] = 0;
	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + p[i]);
	p[len - 1] = (uint8_t)((bad_sum ? 1 : 0) - sum);
}

/* HP's set (fs2-format.md §9): CLP 8025-like, UEFI 14.11.49, PXE 3.4.754, 3+4+2 blocks. */
static const uint16_t V_CLP[3] = {1, 8, 25}, V_UEFI[3] = {14, 11, 49}, V_PXE[3] = {3, 4, 754};
#define HP_LEN ((3 + 4 + 2) * BLOCK)

static void hp_rom(uint8_t *r, uint16_t devid, int bad_at)
{
	pci_image(r, 3, 0x12, V_CLP, devid, false, bad_at == 0);
	pci_image(r + 3 * BLOCK, 4, 0x11, V_UEFI, devid, false, bad_at == 1);
	pci_image(r + 7 * BLOCK, 2, 0x10, V_PXE, devid, true, bad_at == 2);
}

/* Every pointer and CRC of a result, field by field. */
static void check_pointers(const uint8_t *o, size_t len)
{
	parse_ok(o, len, &res, CX_OK);
	assert_int_equal(b_get32(o + 0x30), len);
	assert_int_equal(res.last_addr, len);
	assert_int_equal(b_get32(o + 0x34), res.items[res.guid_sect].data_off);
	uint32_t ip = b_get32(o + 0x2C);
	assert_int_equal(ip & 0xFFFFFF, res.items[res.info_sect].data_off);
	assert_int_equal((uint8_t)(ip + (ip >> 8) + (ip >> 16) + (ip >> 24)), 0);
	assert_int_equal(b_get32(o + 0x20) >> 16 & 0xFF, 0);
	for (int i = 0; i < res.nitems; i++) {
		const struct fs2_item *it = &res.items[i];
		if (it->kind != FS2_ITEM_SECTION)
			continue;
		assert_int_equal(b_get32(o + it->off + it->len - 4) & 0xFFFF, crc16_be(o + it->off, it->len - 4));
		uint32_t next = b_get32(o + it->off + 12);
		if (next != 0xFF000000u)
			assert_int_equal(next, it->off + it->len);
	}
	assert_int_equal(b_get32(o + 0x20) & 0xFFFF, fs2_full_crc(o, len));
}

/* drom then brom of the same ROM: the original image, byte for byte. */
static void check_round_trip(const char *opts)
{
	size_t la, lr, lb;
	uint8_t *removed = NULL, *back = NULL;
	uint8_t *a = mkimage(opts, &la);

	parse_ok(a, la, &img, CX_OK);
	const struct fs2_item *rs = &img.items[img.rom_sect];
	uint32_t rom_off = rs->data_off, rom_len = rs->data_len;
	assert_int_equal(rom_remove(a, la, &removed, &lr, &st), CX_OK);
	assert_int_equal(lr, la - 16 - rom_len - 4);
	check_pointers(removed, lr);
	assert_int_equal(res.rom_sect, -1);
	assert_int_equal(res.nroms, 0);
	assert_string_equal(res.info.psid, img.info.psid);
	assert_memory_equal(&res.guids, &img.guids, sizeof(res.guids));
	assert_int_equal(rom_insert(removed, lr, a + rom_off, rom_len, &back, &lb, &st), CX_OK);
	assert_int_equal(lb, la);
	assert_memory_equal(back, a, la);
	/* brom over the ROM already there: the same bytes again. */
	free(back);
	assert_int_equal(rom_replace(a, la, a + rom_off, rom_len, &back, &lb, &st), CX_OK);
	assert_int_equal(lb, la);
	assert_memory_equal(back, a, la);
	free(back);
	free(removed);
	free(a);
}

static void test_round_trip_cx3(void **state)
{
	(void)state;
	check_round_trip(SMALL "--chip cx3 --vsd hello");
}

static void test_round_trip_cx3pro_uefi(void **state)
{
	(void)state;
	check_round_trip(SMALL "--chip cx3pro --rom-product 0x11 --rom-ver 14.11.45 --ddr 5");
}

static void test_round_trip_cx2_nomic(void **state)
{
	(void)state;
	check_round_trip(SMALL "--chip cx2 --old-guids --no-mic --no-fw-conf");
}

/* The image without a ROM is, but for the ROM, what mkfs2 --no-rom makes: same header
 * pointers and section addresses (the filler after the ROM differs, by mkfs2's seeding). */
static void test_remove_matches_no_rom(void **state)
{
	(void)state;
	size_t la, lb, lr;
	uint8_t *out = NULL;
	uint8_t *a = mkimage(SMALL "--chip cx3", &la), *nb = mkimage(SMALL "--chip cx3 --no-rom", &lb);

	assert_int_equal(rom_remove(a, la, &out, &lr, &st), CX_OK);
	assert_int_equal(lr, lb);
	assert_memory_equal(out + 0x24, nb + 0x24, FS2_BOOT2_START - 0x24);
	parse_ok(nb, lb, &img, CX_OK);
	parse_ok(out, lr, &res, CX_OK);
	assert_int_equal(res.nitems, img.nitems);
	for (int i = 0; i < res.nitems; i++) {
		assert_int_equal(res.items[i].off, img.items[i].off);
		assert_int_equal(res.items[i].type, img.items[i].type);
	}
	free(out);
	free(a);
	free(nb);
}

static void test_remove_without_rom(void **state)
{
	(void)state;
	size_t la, lr = 7;
	uint8_t *out = (uint8_t *)"sentinel";
	uint8_t *a = mkimage(SMALL "--no-rom", &la);

	cx_status_clear(&st);
	assert_int_equal(rom_remove(a, la, &out, &lr, &st), CX_EABSENT);
	assert_null(out);
	assert_non_null(strstr(st.msg, "no expansion ROM"));
	/* and a broken image is refused before anything else */
	a[0x40] ^= 1;
	cx_status_clear(&st);
	assert_int_equal(rom_remove(a, la, &out, &lr, &st), CX_EIMAGE);
	assert_null(out);
	free(a);
}

/* HP's three ROMs: walked, parsed (type, version, devid, extent, checksum), and brom'd
 * into a stock image in place of its PXE: the image then shows all three. */
static void test_multi_rom(void **state)
{
	(void)state;
	static uint8_t r[HP_LEN];
	struct rom_info ri[ROM_MAX_IMAGES];
	struct rom_chain c;
	size_t la, lo;
	uint8_t *out = NULL;

	hp_rom(r, DEV_CX3PRO, -1);
	rom_walk(r, sizeof(r), &c);
	assert_int_equal(c.state, ROM_CHAIN_OK);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.end, HP_LEN);
	assert_int_equal(rom_parse(r, sizeof(r), ri), 3);
	const uint16_t prod[3] = {0x12, 0x11, 0x10}, offs[3] = {0, 3 * BLOCK, 7 * BLOCK}, lens[3] = {3, 4, 2};
	const uint16_t *vers[3] = {V_CLP, V_UEFI, V_PXE};
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ri[i].product, prod[i]);
		assert_memory_equal(ri[i].ver, vers[i], sizeof(V_CLP));
		assert_int_equal(ri[i].devid, DEV_CX3PRO);
		assert_int_equal(ri[i].cpu, 1);
		assert_int_equal(ri[i].off, offs[i]);
		assert_int_equal(ri[i].len, lens[i] * BLOCK);
		assert_int_equal(ri[i].csum_ok, prod[i] == 0x11 ? -1 : 1);
	}
	cx_status_clear(&st);
	uint8_t *a = mkimage(SMALL "--chip cx3pro", &la);
	parse_ok(a, la, &img, CX_OK);
	assert_int_equal(rom_file_check(r, sizeof(r), &img, &st), CX_OK);
	assert_string_equal(st.msg, "");
	assert_int_equal(rom_replace(a, la, r, sizeof(r), &out, &lo, &st), CX_OK);
	check_pointers(out, lo);
	assert_int_equal(res.nroms, 3);
	assert_int_equal(res.roms[2].ver[2], 754);
	assert_int_equal(res.items[res.rom_sect].data_len, HP_LEN);
	assert_memory_equal(out + res.items[res.rom_sect].data_off, r, HP_LEN);
	assert_int_equal(lo, la - img.items[img.rom_sect].data_len + HP_LEN);
	free(out);
	free(a);
}

static void expect_refused(const uint8_t *r, size_t len, const struct fs2_image *p, int code, const char *word)
{
	uint8_t *copy = malloc(len ? len : 1); /* exact size: ASan sees any overread */

	assert_non_null(copy);
	memcpy(copy, r, len);
	cx_status_clear(&st);
	assert_int_equal(rom_file_check(copy, len, p, &st), code);
	if (!strstr(st.msg, word))
		fail_msg("message '%s' lacks '%s'", st.msg, word);
	assert_null(strchr(st.msg, '\n'));
	free(copy);
}

static void test_file_check_refusals(void **state)
{
	(void)state;
	static uint8_t r[HP_LEN];
	size_t la;
	uint8_t *a = mkimage(SMALL "--chip cx3pro", &la);

	parse_ok(a, la, &img, CX_OK);
	expect_refused(a, la, &img, CX_EVALUE, "firmware image");
	hp_rom(r, DEV_CX3PRO, -1);
	/* truncated: inside the last image, and right after a non-last one */
	expect_refused(r, HP_LEN - BLOCK, &img, CX_EIMAGE, "truncated");
	expect_refused(r, 7 * BLOCK, &img, CX_EIMAGE, "truncated");
	expect_refused(r, 7 * BLOCK + 16, &img, CX_EIMAGE, "truncated");
	/* a non-last image followed by something that is not an image */
	uint8_t save = r[7 * BLOCK];
	r[7 * BLOCK] = 0;
	expect_refused(r, HP_LEN, &img, CX_EIMAGE, "malformed ROM: no sound PCI image at 0xe00");
	r[7 * BLOCK] = save;
	/* no header at all, and not whole dwords */
	expect_refused(r + 1, HP_LEN - 4, &img, CX_EVALUE, "55 AA");
	static uint8_t r2[HP_LEN + 2];
	memcpy(r2, r, HP_LEN);
	expect_refused(r2, HP_LEN + 2, &img, CX_EVALUE, "whole dwords");
	expect_refused(r, HP_LEN, &img, CX_OK, "");
	/* bad checksums: the CLP's and the PXE's are judged, the UEFI's is not (mstflint) */
	hp_rom(r, DEV_CX3PRO, 0);
	expect_refused(r, HP_LEN, &img, CX_ECHECKSUM, "CLP");
	hp_rom(r, DEV_CX3PRO, 2);
	expect_refused(r, HP_LEN, &img, CX_ECHECKSUM, "PXE ROM at 0xe00");
	hp_rom(r, DEV_CX3PRO, 1);
	expect_refused(r, HP_LEN, &img, CX_OK, "");
	/* no mlxsign: record */
	hp_rom(r, DEV_CX3PRO, -1);
	for (int i = 0; i < 3; i++)
		r[(i == 0 ? 0 : i == 1 ? 3 : 7) * BLOCK + 0x40] = 'M';
	expect_refused(r, HP_LEN, &img, CX_EVALUE, "mlxsign");
	free(a);
}

/* A ROM for another device: CX_OK, and the warning in st->msg with st->code CX_OK. */
static void test_file_check_devid_warning(void **state)
{
	(void)state;
	static uint8_t r[HP_LEN];
	size_t la;
	uint8_t *a = mkimage(SMALL "--chip cx3pro", &la);

	parse_ok(a, la, &img, CX_OK);
	hp_rom(r, DEV_CX3, -1);
	cx_status_clear(&st);
	assert_int_equal(rom_file_check(r, sizeof(r), &img, &st), CX_OK);
	assert_int_equal(st.code, CX_OK);
	assert_non_null(strstr(st.msg, "-W-"));
	assert_non_null(strstr(st.msg, "device 4103"));
	assert_non_null(strstr(st.msg, "device 4099"));
	/* a generic ROM (devid 0) is for any device; no image: no devid check */
	hp_rom(r, 0, -1);
	expect_refused(r, HP_LEN, &img, CX_OK, "");
	assert_string_equal(st.msg, "");
	hp_rom(r, DEV_CX3, -1);
	expect_refused(r, HP_LEN, NULL, CX_OK, "");
	assert_string_equal(st.msg, "");
	free(a);
}

static void test_change_allowed(void **state)
{
	(void)state;
	size_t la, lb;
	uint8_t *a = mkimage(SMALL, &la), *nb = mkimage(SMALL "--no-product-ver", &lb);

	parse_ok(a, la, &img, CX_OK);
	cx_status_clear(&st);
	assert_int_equal(rom_change_allowed(&img, false, &st), CX_EUNSUPPORTED);
	assert_non_null(strstr(st.msg, "--allow_rom_change"));
	assert_int_equal(rom_change_allowed(&img, true, &st), CX_OK);
	parse_ok(nb, lb, &img, CX_OK);
	cx_status_clear(&st);
	assert_int_equal(rom_change_allowed(&img, false, &st), CX_OK);
	free(a);
	free(nb);
}

/* GetMaxImageSize: mkfs2's tag 19 is the real image's (2 sectors of 4 KiB, no pad), so
 * on 2 MiB: failsafe 0x100000 - 0x2000 (fs2-format.md §1.5's example); non-failsafe
 * 0x200000 - 2 * 0x2000. */
static void test_fits(void **state)
{
	(void)state;
	size_t la, lb;
	uint8_t *a = mkimage(SMALL, &la), *nb = mkimage(SMALL "--no-failsafe", &lb);

	parse_ok(a, la, &img, CX_OK);
	assert_int_equal(rom_max_image_size(&img, 2u << 20), 0xFE000);
	cx_status_clear(&st);
	assert_int_equal(rom_fits(&img, 0xFE000, 2u << 20, &st), CX_OK);
	assert_int_equal(rom_fits(&img, 0xFE001, 2u << 20, &st), CX_EMISMATCH);
	assert_non_null(strstr(st.msg, "0xfe000"));
	assert_int_equal(rom_max_image_size(&img, 0x1000), 0);
	parse_ok(nb, lb, &img, CX_OK);
	assert_int_equal(rom_max_image_size(&img, 2u << 20), 0x1FC000);
	free(a);
	free(nb);
}

/* A ROM that makes the image too large for the format, and bad arguments. */
static void test_replace_refusals(void **state)
{
	(void)state;
	size_t la, lo = 0;
	uint8_t *out = (uint8_t *)"sentinel";
	uint8_t *a = mkimage(SMALL, &la);
	static uint8_t r[HP_LEN];

	hp_rom(r, DEV_CX3, -1);
	cx_status_clear(&st);
	assert_int_equal(rom_replace(a, la, r, HP_LEN - 2, &out, &lo, &st), CX_EVALUE);
	assert_null(out);
	cx_status_clear(&st);
	assert_int_equal(rom_replace(a, la, NULL, 0, &out, &lo, &st), CX_EVALUE);
	cx_status_clear(&st);
	assert_int_equal(rom_update(a, la, r, HP_LEN, ROM_DROP, &out, &lo, &st), CX_EVALUE);
	/* brom onto an image without a ROM is an insert */
	free(a);
	a = mkimage(SMALL "--no-rom", &la);
	assert_int_equal(rom_replace(a, la, r, HP_LEN, &out, &lo, &st), CX_OK);
	check_pointers(out, lo);
	assert_int_equal(res.nroms, 3);
	free(out);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_cx3),
		cmocka_unit_test(test_round_trip_cx3pro_uefi),
		cmocka_unit_test(test_round_trip_cx2_nomic),
		cmocka_unit_test(test_remove_matches_no_rom),
		cmocka_unit_test(test_remove_without_rom),
		cmocka_unit_test(test_multi_rom),
		cmocka_unit_test(test_file_check_refusals),
		cmocka_unit_test(test_file_check_devid_warning),
		cmocka_unit_test(test_change_allowed),
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_replace_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
