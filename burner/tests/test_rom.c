/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_rom.c — expansion ROM version records, fs2-format.md §4.5. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "image/rom.h"

static void put_le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* One fake option ROM of len bytes (0x55AA header, filler) with an mlxsign
 * record at sig_off: "mlxsign:" then the three little-endian dwords. */
static void make_rom(uint8_t *p, size_t len, size_t sig_off, uint32_t d0, uint32_t d1, uint32_t d2)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + 3);
	p[0] = 0x55;
	p[1] = 0xAA;
	p[2] = (uint8_t)(len / 512);
	memcpy(p + sig_off, "mlxsign:", 8);
	put_le(p + sig_off + 8, d0);
	put_le(p + sig_off + 12, d1);
	put_le(p + sig_off + 16, d2);
}

/* PXE 3.4.752 (the real image's FlexBoot, §4.5), devid 0x1007, port 1, AMD64,
 * proto 0xff. d0 = product<<16 | ver0; d1 = ver1<<16 | ver2;
 * d2 = devid<<16 | port<<12 | cpu<<8 | proto. */
#define PXE_D0 0x00100003u
#define PXE_D1 0x000402F0u /* 4, 752 */
#define PXE_D2 0x100711FFu

static struct rom_info out[ROM_MAX_IMAGES];

/* Parse from an exact-size heap copy so ASan sees any overread. */
static int parse(const uint8_t *p, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	assert_non_null(copy);
	memcpy(copy, p, len);
	memset(out, 0xA5, sizeof(out));
	int n = rom_parse(copy, len, out);
	free(copy);
	return n;
}

static void test_pxe(void **state)
{
	(void)state;
	uint8_t rom[1024];
	char tmp[12];

	make_rom(rom, sizeof(rom), 0x1A4, PXE_D0, PXE_D1, PXE_D2);
	assert_int_equal(parse(rom, sizeof(rom)), 1);
	assert_int_equal(out[0].product, 0x10);
	assert_int_equal(out[0].ver[0], 3);
	assert_int_equal(out[0].ver[1], 4);
	assert_int_equal(out[0].ver[2], 752);
	assert_true(out[0].has_dev);
	assert_int_equal(out[0].devid, 0x1007);
	assert_int_equal(out[0].port, 1);
	assert_int_equal(out[0].cpu, 1);
	assert_int_equal(out[0].proto, 0xFF);
	assert_string_equal(rom_type_name(out[0].product, tmp), "PXE");
	assert_string_equal(rom_cpu_name(out[0].cpu, tmp), "AMD64");
}

/* The record decodes the same wherever it sits, even unaligned. */
static void test_unaligned(void **state)
{
	(void)state;
	uint8_t rom[256];

	for (size_t off = 0; off + 20 <= sizeof(rom); off += 13) {
		make_rom(rom, sizeof(rom), off < 3 ? 3 : off, 0x00110002u, 0x000E002Du, 0x1003A201u);
		assert_int_equal(parse(rom, sizeof(rom)), 1);
		assert_int_equal(out[0].product, 0x11); /* UEFI 2.14.45 */
		assert_int_equal(out[0].ver[0], 2);
		assert_int_equal(out[0].ver[1], 14);
		assert_int_equal(out[0].ver[2], 45);
		assert_int_equal(out[0].devid, 0x1003);
		assert_int_equal(out[0].port, 0xA);
		assert_int_equal(out[0].cpu, 2);
		assert_int_equal(out[0].proto, 1);
	}
}

/* Two ROMs back to back (PXE then UEFI). */
static void test_two_concatenated(void **state)
{
	(void)state;
	uint8_t rom[2048];
	char tmp[12];

	make_rom(rom, 1024, 0x200, PXE_D0, PXE_D1, PXE_D2);
	make_rom(rom + 1024, 1024, 0x40, 0x0011000Eu, 0x000B0032u, 0x10072000u);
	assert_int_equal(parse(rom, sizeof(rom)), 2);
	assert_int_equal(out[0].product, 0x10);
	assert_int_equal(out[0].ver[2], 752);
	assert_int_equal(out[1].product, 0x11);
	assert_int_equal(out[1].ver[0], 14);
	assert_int_equal(out[1].ver[1], 11);
	assert_int_equal(out[1].ver[2], 50);
	assert_int_equal(out[1].cpu, 0);
	assert_int_equal(out[1].port, 2);
	assert_int_equal(out[1].proto, 0);
	assert_string_equal(rom_type_name(out[1].product, tmp), "UEFI");
}

/* At most ROM_MAX_IMAGES records are reported, and out[] is not overrun. */
static void test_cap(void **state)
{
	(void)state;
	enum { N = 7, ONE = 64 };
	uint8_t rom[N * ONE];

	for (int i = 0; i < N; i++)
		make_rom(rom + i * ONE, ONE, 8, 0x00100000u | (uint32_t)i, PXE_D1, PXE_D2);
	assert_int_equal(parse(rom, sizeof(rom)), ROM_MAX_IMAGES);
	for (int i = 0; i < ROM_MAX_IMAGES; i++)
		assert_int_equal(out[i].ver[0], i);
}

/* CLP (0x12) has no port or protocol; an old product (< 0x10) no third dword. */
static void test_clp_and_old(void **state)
{
	(void)state;
	uint8_t rom[128];
	char tmp[12];

	make_rom(rom, sizeof(rom), 16, 0x00120001u, 0x00020003u, 0x1003F1FFu);
	assert_int_equal(parse(rom, sizeof(rom)), 1);
	assert_int_equal(out[0].product, 0x12);
	assert_true(out[0].has_dev);
	assert_int_equal(out[0].devid, 0x1003);
	assert_int_equal(out[0].cpu, 1);
	assert_int_equal(out[0].port, 0);
	assert_int_equal(out[0].proto, 0xFF);
	assert_string_equal(rom_type_name(0x12, tmp), "CLP");

	make_rom(rom, sizeof(rom), 16, 0x00020001u, 0x00020003u, 0x1003F1FFu);
	assert_int_equal(parse(rom, sizeof(rom)), 1);
	assert_int_equal(out[0].product, 2);
	assert_false(out[0].has_dev);
	assert_int_equal(out[0].devid, 0);
	assert_int_equal(out[0].ver[0], 1);
	assert_int_equal(out[0].ver[1], 2);
	assert_int_equal(out[0].ver[2], 3);
	assert_string_equal(rom_type_name(2, tmp), "CLP2");
}

/* A record cut off by the end of the buffer: whatever is reported, nothing
 * past the buffer is read (exact-size heap copy under ASan) and the missing
 * dwords are not invented. */
static void test_cut_off(void **state)
{
	(void)state;
	uint8_t rom[96];

	make_rom(rom, sizeof(rom), 60, PXE_D0, PXE_D1, PXE_D2);
	/* the full record ends at 60 + 20 = 80 */
	assert_int_equal(parse(rom, 80), 1);
	assert_true(out[0].has_dev);
	for (size_t len = 72; len < 80; len++) {
		assert_int_equal(parse(rom, len), 1);
		assert_int_equal(out[0].product, 0x10); /* d0 is complete from 72 on */
		assert_int_equal(out[0].ver[0], 3);
		assert_false(out[0].has_dev);
		assert_int_equal(out[0].devid, 0);
		assert_int_equal(out[0].cpu, 0);
		if (len >= 76) {
			assert_int_equal(out[0].ver[1], 4);
			assert_int_equal(out[0].ver[2], 752);
		} else {
			assert_int_equal(out[0].ver[1], 0);
			assert_int_equal(out[0].ver[2], 0);
		}
	}
	/* the tag fits but not a whole dword after it */
	for (size_t len = 68; len < 72; len++) {
		int n = parse(rom, len);
		assert_true(n == 0 || n == 1);
		if (n == 1)
			assert_false(out[0].has_dev);
	}
	/* the tag itself does not fit */
	for (size_t len = 60; len < 68; len++)
		assert_int_equal(parse(rom, len), 0);
	/* "mlxsign" without its colon at the very end: no record */
	assert_int_equal(parse(rom, 67), 0);
}

static void test_none(void **state)
{
	(void)state;
	uint8_t rom[512];

	make_rom(rom, sizeof(rom), 100, PXE_D0, PXE_D1, PXE_D2);
	memcpy(rom + 100, "mlxsigN:", 8);
	assert_int_equal(parse(rom, sizeof(rom)), 0);
	memcpy(rom + 100, "MLXSIGN:", 8);
	assert_int_equal(parse(rom, sizeof(rom)), 0);
	assert_int_equal(parse(rom, 0), 0);
	assert_int_equal(parse((const uint8_t *)"mlxsig", 6), 0);
}

/* A PCI image at p (PCI Firmware Spec 3.0, 5.1): blocks*512 bytes, PCIR at 0x20 with the
 * device id, length and last bit, a record of product at 0x40, a byte that makes the
 * first byte-2 blocks sum to 0 (plus bad). */
static void pci_image(uint8_t *p, unsigned blocks, uint16_t product, uint16_t devid, bool last, int bad)
{
	size_t len = blocks * 512u;
	uint8_t sum = 0;

	make_rom(p, len, 0x40, (uint32_t)product << 16 | 3, PXE_D1, (uint32_t)devid << 16 | 0x1FF);
	p[0x18] = 0x20;
	p[0x19] = 0;
	memcpy(p + 0x20, "PCIR", 4);
	p[0x26] = (uint8_t)devid;
	p[0x27] = (uint8_t)(devid >> 8);
	p[0x30] = (uint8_t)blocks;
	p[0x31] = 0;
	p[0x35] = last ? 0x80 : 0;
	p[len - 1] = 0;
	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + p[i]);
	p[len - 1] = (uint8_t)(bad - sum);
}

/* PXE, UEFI, CLP back to back: each record gets its image's extent and checksum; UEFI is
 * never judged (mstflint's exemption), a bad sum is seen in any judged image. */
static void test_pci_chain(void **state)
{
	(void)state;
	static uint8_t rom[6 * 512];
	struct rom_chain c;

	pci_image(rom, 1, 0x10, 0x1007, false, 0);
	pci_image(rom + 512, 2, 0x11, 0x1007, false, 1);
	pci_image(rom + 1536, 3, 0x12, 0x1003, true, 0);
	rom_walk(rom, sizeof(rom), &c);
	assert_int_equal(c.state, ROM_CHAIN_OK);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.end, sizeof(rom));
	assert_int_equal(c.img[2].devid, 0x1003);
	assert_int_equal(parse(rom, sizeof(rom)), 3);
	assert_int_equal(out[0].off, 0);
	assert_int_equal(out[0].len, 512);
	assert_int_equal(out[0].csum_ok, 1);
	assert_int_equal(out[1].off, 512);
	assert_int_equal(out[1].len, 1024);
	assert_int_equal(out[1].csum_ok, -1); /* UEFI: bad sum, not judged */
	assert_int_equal(out[2].off, 1536);
	assert_int_equal(out[2].len, 1536);
	assert_int_equal(out[2].csum_ok, 1);
	pci_image(rom + 1536, 3, 0x12, 0x1003, true, 1);
	assert_int_equal(parse(rom, sizeof(rom)), 3);
	assert_int_equal(out[0].csum_ok, 1);
	assert_int_equal(out[2].csum_ok, 0);
	/* padding after the last image is not an image */
	static uint8_t padded[6 * 512 + 64];
	memcpy(padded, rom, sizeof(rom));
	memset(padded + sizeof(rom), 0xFF, 64);
	rom_walk(padded, sizeof(padded), &c);
	assert_int_equal(c.state, ROM_CHAIN_OK);
	assert_int_equal(c.end, sizeof(rom));
}

/* Every cut of a chain: never a read outside (exact-size heap copy under ASan), and the
 * state says what is missing. */
static void test_pci_chain_cuts(void **state)
{
	(void)state;
	static uint8_t rom[3 * 512];
	struct rom_chain c;

	pci_image(rom, 1, 0x10, 0x1007, false, 0);
	pci_image(rom + 512, 2, 0x10, 0x1007, true, 0);
	for (size_t len = 0; len <= sizeof(rom); len++) {
		uint8_t *copy = malloc(len ? len : 1);
		assert_non_null(copy);
		memcpy(copy, rom, len);
		rom_walk(copy, len, &c);
		if (len < 0x1A)
			assert_int_equal(c.state, ROM_CHAIN_NONE);
		else if (len < sizeof(rom))
			assert_int_equal(c.state, ROM_CHAIN_TRUNCATED);
		else
			assert_int_equal(c.state, ROM_CHAIN_OK);
		assert_true(c.end <= len);
		struct rom_info ri[ROM_MAX_IMAGES];
		int n = rom_parse(copy, len, ri);
		for (int i = 0; i < n; i++)
			assert_true(ri[i].off + ri[i].len <= len);
		free(copy);
	}
}

/* What stops a walk: no header after a non-last image, a zero length, too many images,
 * and no 0x55AA at all (the records are still found, with no image around them). */
static void test_pci_chain_bad(void **state)
{
	(void)state;
	static uint8_t rom[(ROM_MAX_PCI + 1) * 512];
	struct rom_chain c;

	pci_image(rom, 1, 0x10, 0x1007, false, 0);
	memset(rom + 512, 0, 512);
	rom_walk(rom, 1024, &c);
	assert_int_equal(c.state, ROM_CHAIN_BAD);
	assert_int_equal(c.end, 512);
	pci_image(rom + 512, 1, 0x10, 0x1007, true, 0);
	rom[512 + 0x30] = 0;
	rom_walk(rom, 1024, &c);
	assert_int_equal(c.state, ROM_CHAIN_BAD);
	for (int i = 0; i <= ROM_MAX_PCI; i++)
		pci_image(rom + i * 512, 1, 0x10, 0x1007, i == ROM_MAX_PCI, 0);
	rom_walk(rom, sizeof(rom), &c);
	assert_int_equal(c.state, ROM_CHAIN_BAD);
	assert_int_equal(c.n, ROM_MAX_PCI);
	pci_image(rom, 1, 0x10, 0x1007, true, 1);
	rom[0] = 0;
	rom_walk(rom, 512, &c);
	assert_int_equal(c.state, ROM_CHAIN_NONE);
	assert_int_equal(parse(rom, 512), 1);
	assert_int_equal(out[0].off, 0);
	assert_int_equal(out[0].len, 512);
	assert_int_equal(out[0].csum_ok, -1);
}

/* Product 0xF (old CLP): one decimal version field from the free string, the devid from
 * its image's PCIR (mstflint's GetExpRomVerForOneRom 2039-2083). */
static void test_free_string_clp(void **state)
{
	(void)state;
	static uint8_t rom[512];

	pci_image(rom, 1, 0x0F, 0x1007, true, 0);
	put_le(rom + 0x48 + 12, 4 << 8 | 5); /* str_len 4, sign_len 5 dwords */
	memcpy(rom + 0x48 + 16, "8025", 4);
	assert_int_equal(parse(rom, sizeof(rom)), 1);
	assert_true(ROM_ONE_VERSION_FIELD(&out[0]));
	assert_int_equal(out[0].ver[0], 8025);
	assert_int_equal(out[0].ver[1], 0);
	assert_true(out[0].has_dev);
	assert_int_equal(out[0].devid, 0x1007);
	/* a signature too short for its string: the string is not read */
	put_le(rom + 0x48 + 12, 4 << 8 | 4);
	assert_int_equal(parse(rom, sizeof(rom)), 1);
	assert_int_equal(out[0].ver[0], 3);
	/* a string that runs off the end */
	put_le(rom + 0x48 + 12, 200 << 8 | 0xFF);
	assert_int_equal(parse(rom, 0x48 + 20), 1);
	assert_int_equal(out[0].ver[0], 3);
}

static void test_names(void **state)
{
	(void)state;
	char tmp[12];

	assert_string_equal(rom_type_name(0x13, tmp), "NVMe");
	assert_string_equal(rom_type_name(0x21, tmp), "FCODE");
	assert_string_equal(rom_type_name(0x99, tmp), "0x99");
	assert_string_equal(rom_cpu_name(2, tmp), "AARCH64");
	assert_string_equal(rom_cpu_name(3, tmp), "AMD64,AARCH64");
	assert_string_equal(rom_cpu_name(4, tmp), "IA32");
	assert_string_equal(rom_cpu_name(9, tmp), "0x9");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pxe),
		cmocka_unit_test(test_unaligned),
		cmocka_unit_test(test_two_concatenated),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_clp_and_old),
		cmocka_unit_test(test_cut_off),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_pci_chain),
		cmocka_unit_test(test_pci_chain_cuts),
		cmocka_unit_test(test_pci_chain_bad),
		cmocka_unit_test(test_free_string_clp),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests_name("rom", tests, NULL, NULL);
}
