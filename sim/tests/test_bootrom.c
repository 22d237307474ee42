/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_bootrom.c — the model's boot ROM on images made by build/host/mkfs2.
 *
 * mkfs2 ($CXR_BUILD/host/mkfs2, CXR_BUILD defaults to "build"; run from the
 * repo root) writes the images into a temporary directory. Every scan runs on
 * an exact-size heap copy of the flash, so ASan catches any read past it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootrom.h"
#include "fs2_lite.h"

#define MIB 0x100000u

static char tmpdir[64];
static char mkfs2[512];

struct ment {
	char name[40];
	unsigned off, size;
};
static struct ment map[128];
static unsigned nmap;

static int group_setup(void **state)
{
	const char *bld = getenv("CXR_BUILD");

	(void)state;
	snprintf(mkfs2, sizeof(mkfs2), "%s/host/mkfs2", bld && *bld ? bld : "build");
	if (access(mkfs2, X_OK)) {
		fprintf(stderr, "test_bootrom: %s not found; run make build/host/mkfs2\n", mkfs2);
		return -1;
	}
	strcpy(tmpdir, "/tmp/test_bootrom.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	char p[128];

	(void)state;
	snprintf(p, sizeof(p), "%s/img.bin", tmpdir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/img.map", tmpdir);
	unlink(p);
	rmdir(tmpdir);
	return 0;
}

/* Run mkfs2 with args; return the file (malloc'd) and load its map. */
static uint8_t *gen(const char *args, size_t *len)
{
	char cmd[1024], path[128], line[160];
	uint8_t *buf;
	FILE *f;
	long n;

	snprintf(cmd, sizeof(cmd), "'%s' -o '%s/img.bin' --map '%s/img.map' %s",
		 mkfs2, tmpdir, tmpdir, args);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/img.bin", tmpdir);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	assert_true(n > 0);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;

	snprintf(path, sizeof(path), "%s/img.map", tmpdir);
	f = fopen(path, "r");
	assert_non_null(f);
	for (nmap = 0; nmap < 128 && fgets(line, sizeof(line), f);)
		if (sscanf(line, "%39s %x %x", map[nmap].name, &map[nmap].off, &map[nmap].size) == 3)
			nmap++;
	fclose(f);
	return buf;
}

static const struct ment *ment(const char *name)
{
	for (unsigned i = 0; i < nmap; i++)
		if (!strcmp(map[i].name, name))
			return &map[i];
	fail_msg("no %s in the map", name);
	return NULL;
}

/* End of the image (the last section, FW_CONF). */
static unsigned img_end(void)
{
	const struct ment *e = ment("sect_FW_CONF");

	return e->off + e->size;
}

static struct cxsim_boot scan_n(const uint8_t *flash, size_t size, unsigned npos)
{
	struct cxsim_boot b;
	uint8_t *copy = malloc(size ? size : 1);

	assert_non_null(copy);
	memcpy(copy, flash, size);
	memset(&b, 0xA5, sizeof(b));	/* scan must set everything */
	bootrom_scan(copy, size, npos, &b);
	free(copy);
	return b;
}

static struct cxsim_boot scan(const uint8_t *flash, size_t size)
{
	return scan_n(flash, size, 10);
}

static void not_booted(const struct cxsim_boot *b, const char *why)
{
	assert_false(b->booted);
	assert_int_equal(b->nvalid, 0);
	if (!strstr(b->why, why))
		fail_msg("why = \"%s\", expected \"%s\" in it", b->why, why);
}

/* Recompute the CRC of the section at contiguous off (GPH + data + CRC = size). */
static void fix_crc(uint8_t *img, unsigned off, unsigned size)
{
	uint16_t crc = FS2L_CRC_INIT;

	for (unsigned i = off; i < off + size - 4; i++)
		crc = fs2l_crc_byte(crc, img[i]);
	crc = fs2l_crc_final(crc);
	memcpy(img + off + size - 4, (uint8_t[4]){ 0, 0, (uint8_t)(crc >> 8), (uint8_t)crc }, 4);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* mstflint's Crc16, bit by bit as fs2-format.md §2.1 states it. */
static uint16_t crc_ref(const uint32_t *d, unsigned n)
{
	uint32_t crc = 0xFFFF;

	for (unsigned i = 0; i < n * 32 + 16; i++) {
		unsigned bit = i < n * 32 ? (d[i / 32] >> (31 - i % 32)) & 1 : 0;
		uint32_t top = crc & 0x8000;

		crc = ((crc << 1) | bit) & 0xFFFF;
		if (top)
			crc ^= 0x100B;
	}
	return (uint16_t)(crc ^ 0xFFFF);
}

static uint16_t crc_lite(const uint32_t *d, unsigned n)
{
	uint16_t crc = FS2L_CRC_INIT;

	for (unsigned i = 0; i < n; i++)
		for (int s = 24; s >= 0; s -= 8)
			crc = fs2l_crc_byte(crc, (uint8_t)(d[i] >> s));
	return fs2l_crc_final(crc);
}

static void test_crc16(void **state)
{
	static const uint32_t zero[] = { 0 }, ones[] = { 0xFFFFFFFF }, seq[] = { 1, 2, 3, 4 },
		magic[] = { 0x4D544657, 0x8CDFD000, 0xDEAD9270, 0x4154BEEF };
	uint32_t rnd[64];

	(void)state;
	assert_int_equal(crc_lite(zero, 1), 0x0009);
	assert_int_equal(crc_lite(ones, 1), 0xC41A);
	assert_int_equal(crc_lite(seq, 4), 0xF6F1);
	assert_int_equal(crc_lite(magic, 4), 0xD3D0);
	srand(7);
	for (unsigned t = 0; t < 200; t++) {
		unsigned n = (unsigned)rand() % 64;

		for (unsigned i = 0; i < n; i++)
			rnd[i] = (uint32_t)rand() << 16 ^ (uint32_t)rand();
		assert_int_equal(crc_lite(rnd, n), crc_ref(rnd, n));
	}
	/* The table form equals the bit-by-bit rule for every register and byte. */
	for (unsigned crc = 0; crc <= 0xFFFF; crc += 7)
		for (unsigned b = 0; b < 256; b++)
			assert_int_equal(fs2l_crc_byte((uint16_t)crc, (uint8_t)b), fs2l_crc_byte_slow((uint16_t)crc, (uint8_t)b));
}

static void test_slot0(void **state)
{
	size_t n;
	uint8_t *f = gen("--chip cx3 --dump 0 --fw 2.42.5000 --psid MT_TEST0001 --vsd hello-vsd "
			 "--guid 0002c903000a1b20 --mac 0002c90a1b20", &n);
	struct cxsim_boot b = scan(f, n);

	(void)state;
	assert_true(b.booted);
	assert_string_equal(b.why, "");
	assert_int_equal(b.nvalid, 1);
	assert_int_equal(b.start, 0);
	assert_int_equal(b.slot, 0);
	assert_true(b.failsafe);
	assert_int_equal(b.fw_ver[0], 2);
	assert_int_equal(b.fw_ver[1], 42);
	assert_int_equal(b.fw_ver[2], 5000);
	assert_int_equal(b.dev_type, 4099);
	assert_string_equal(b.psid, "MT_TEST0001");
	assert_string_equal(b.vsd, "hello-vsd");
	assert_int_equal(b.nguids, 6);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(b.guids[i], 0x0002c903000a1b20ull + i);
	assert_int_equal(b.macs[0], 0x0002c90a1b20ull);
	assert_int_equal(b.macs[1], 0x0002c90a1b21ull);
	free(f);
}

static void test_slot1(void **state)
{
	size_t n;
	uint8_t *f = gen("--chip cx3 --dump 1 --fw 2.40.7004 --psid MT_SLOT1 "
			 "--guid 0002c90300112230 --mac 0002c9112230", &n);
	struct cxsim_boot b = scan(f, n);

	(void)state;
	assert_true(b.booted);
	assert_int_equal(b.nvalid, 1);
	assert_int_equal(b.start, 0x80000);
	assert_int_equal(b.slot, 1);
	assert_int_equal(b.fw_ver[0], 2);
	assert_int_equal(b.fw_ver[1], 40);
	assert_int_equal(b.fw_ver[2], 7004);
	assert_string_equal(b.psid, "MT_SLOT1");
	assert_int_equal(b.guids[0], 0x0002c90300112230ull);
	assert_int_equal(b.guids[3], 0x0002c90300112233ull);
	assert_int_equal(b.macs[0], 0x0002c9112230ull);
	assert_int_equal(b.macs[1], 0x0002c9112231ull);
	free(f);
}

/* Contiguous address a of the image in slot (chunks of 2^log2c bytes) -> physical. */
static size_t zebra(size_t a, unsigned log2c, unsigned slot)
{
	size_t c = (size_t)1 << log2c;

	return (a % c) + ((a / c) * 2 + slot) * c;
}

/* 64 KiB chunks and an image over 2 chunks long: only a zebra read finds its tail. */
static void test_slot1_zebra(void **state)
{
	size_t n;
	uint8_t *f = gen("--chip cx3pro --dump 1 --chunk-log 0 --ddr 8 --psid MT_ZEBRA", &n);
	struct cxsim_boot b;

	(void)state;
	assert_true(img_end() > 0x20000);
	b = scan(f, n);
	assert_true(b.booted);
	assert_int_equal(b.start, 0x10000);
	assert_int_equal(b.slot, 1);
	assert_int_equal(b.dev_type, 4103);
	assert_string_equal(b.psid, "MT_ZEBRA");
	/* A byte of the last section, found through the zebra translation. */
	f[zebra(ment("sect_FW_CONF")->off + 20, 16, 1)] ^= 0x40;
	b = scan(f, n);
	not_booted(&b, "section at");
	free(f);
}

/* Slot 0 from image a, slot 1 from image b (512 KiB chunks, 2 MiB dumps). */
static uint8_t *both_slots(size_t *n)
{
	size_t na, nb;
	uint8_t *a = gen("--dump 0 --fw 2.10.700 --guid 0002c90300000100", &na);
	uint8_t *b = gen("--dump 1 --fw 2.42.5000 --guid 0002c90300000200", &nb);

	assert_int_equal(na, nb);
	for (size_t p = 0; p < na; p++)
		if ((p >> 19) & 1)
			a[p] = b[p];
	free(b);
	*n = na;
	return a;
}

static void test_both_slots(void **state)
{
	size_t n;
	uint8_t *f = both_slots(&n);
	struct cxsim_boot b = scan(f, n);

	(void)state;
	assert_true(b.booted);
	assert_int_equal(b.nvalid, 2);
	assert_int_equal(b.start, 0);
	assert_int_equal(b.slot, 0);
	assert_int_equal(b.fw_ver[1], 10);
	assert_int_equal(b.guids[0], 0x0002c90300000100ull);
	free(f);
}

static void test_both_one_corrupt(void **state)
{
	size_t n;
	uint8_t *f = both_slots(&n);
	unsigned d = ment("sect_DDR_1")->off + 100;
	struct cxsim_boot b;

	(void)state;
	f[0x80000 + d] ^= 1;		/* slot 1 broken: slot 0 boots, alone */
	b = scan(f, n);
	assert_true(b.booted);
	assert_int_equal(b.nvalid, 1);
	assert_int_equal(b.slot, 0);
	assert_int_equal(b.fw_ver[1], 10);

	f[0x80000 + d] ^= 1;		/* slot 0 broken instead: slot 1 boots */
	f[d] ^= 1;
	b = scan(f, n);
	assert_true(b.booted);
	assert_int_equal(b.nvalid, 1);
	assert_int_equal(b.start, 0x80000);
	assert_int_equal(b.slot, 1);
	assert_int_equal(b.fw_ver[1], 42);
	assert_int_equal(b.guids[0], 0x0002c90300000200ull);
	free(f);
}

static void test_corrupt_only_image(void **state)
{
	size_t n;
	uint8_t *f = gen("--dump 0", &n);
	const struct ment *cnf = ment("sect_CNF_0"), *rom = ment("sect_ROM"),
		*guid = ment("sect_GUID"), *b2 = ment("boot2_1");
	char s_cnf[32], s_rom[32], s_guid[32], s_b2[32];
	struct {
		unsigned off;
		const char *why;
	} c[] = {
		{ 0, "no FS2 magic at any start position" },
		{ 15, "no FS2 magic at any start position" },
		{ cnf->off + 20, s_cnf },		/* section data */
		{ rom->off + rom->size - 1, s_rom },	/* a stored section CRC */
		{ guid->off + 16, s_guid },
		{ b2->off + 40, s_b2 },			/* BOOT2 code */
		{ 0x2B, "FS info word" },
		{ 0x2E, "image-info pointer" },
		{ 0x23, "full-image CRC" },
	};

	(void)state;
	snprintf(s_cnf, sizeof(s_cnf), "section at 0x%x", cnf->off);
	snprintf(s_rom, sizeof(s_rom), "section at 0x%x", rom->off);
	snprintf(s_guid, sizeof(s_guid), "section at 0x%x", guid->off);
	snprintf(s_b2, sizeof(s_b2), "BOOT2 at 0x%x", b2->off);
	assert_true(scan(f, n).booted);
	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct cxsim_boot b;

		f[c[i].off] ^= 0x10;
		b = scan(f, n);
		not_booted(&b, c[i].why);
		f[c[i].off] ^= 0x10;
	}
	free(f);
}

static void test_no_mic_skips_full_crc(void **state)
{
	size_t n;
	uint8_t *f = gen("--dump 0 --no-mic", &n);

	(void)state;
	f[0x23] ^= 0x10;
	assert_true(scan(f, n).booted);
	free(f);
}

static void test_erased(void **state)
{
	uint8_t *f = malloc(2 * MIB);
	struct cxsim_boot b;

	(void)state;
	assert_non_null(f);
	memset(f, 0xFF, 2 * MIB);
	b = scan(f, 2 * MIB);
	not_booted(&b, "no FS2 magic at any start position");
	memset(f, 0, 2 * MIB);
	b = scan(f, 2 * MIB);
	not_booted(&b, "no FS2 magic at any start position");
	b = scan(f, 0);
	not_booted(&b, "no FS2 magic at any start position");
	free(f);
}

static void test_cx2_positions(void **state)
{
	size_t n;
	uint8_t *f = gen("--chip cx2 --dump 1 --chunk-log 5 --flash-size 0x800000 --fw 2.9.1000", &n);
	struct cxsim_boot b;

	(void)state;
	assert_int_equal(n, 8 * MIB);
	b = scan_n(f, n, 6);
	not_booted(&b, "no FS2 magic at any start position");
	b = scan_n(f, n, 10);
	assert_true(b.booted);
	assert_int_equal(b.start, 0x200000);
	assert_int_equal(b.slot, 1);
	assert_int_equal(b.dev_type, 26428);
	assert_int_equal(b.fw_ver[0], 2);
	assert_int_equal(b.fw_ver[1], 9);
	assert_int_equal(b.fw_ver[2], 1000);
	free(f);
}

static void test_old_guids(void **state)
{
	size_t n;
	uint8_t *f = gen("--chip cx2 --dump 0 --old-guids --guid 123456789abcdef0", &n);
	struct cxsim_boot b = scan(f, n);

	(void)state;
	assert_true(b.booted);
	assert_int_equal(b.nguids, 4);
	assert_int_equal(b.guids[1], 0x123456789abcdef1ull);
	assert_int_equal(b.guids[3], 0x123456789abcdef3ull);
	assert_int_equal(b.macs[0], 0x123456bcdef1ull);	/* bytes 0,1,2,5,6,7 */
	assert_int_equal(b.macs[1], 0x123456bcdef2ull);
	free(f);
}

static void test_truncated(void **state)
{
	size_t n;
	uint8_t *f = gen("--dump 0", &n);
	unsigned end = img_end();

	(void)state;
	assert_true(scan(f, end).booted);
	for (unsigned i = 0; i < nmap; i++) {
		unsigned cut[] = { map[i].off + 1, map[i].off + map[i].size / 2,
				   map[i].off + map[i].size - 1 };

		for (unsigned k = 0; k < 3; k++) {
			struct cxsim_boot b;

			if (cut[k] < 16 || cut[k] >= end)
				continue;
			b = scan(f, cut[k]);
			assert_false(b.booted);
			assert_int_equal(b.nvalid, 0);
			assert_true(strstr(b.why, "image at 0x0: ") == b.why);
		}
	}
	free(f);
}

/* Design choice: a blank-GUID image boots (see bootrom.c). */
static void test_blank_guids(void **state)
{
	size_t n;
	uint8_t *f = gen("--dump 0 --blank-guids", &n);
	unsigned end = img_end(), g = ment("sect_GUID")->off;
	uint16_t crc = FS2L_CRC_INIT;
	struct cxsim_boot b = scan(f, n);

	(void)state;
	assert_true(b.booted);
	assert_int_equal(b.nguids, 6);
	assert_int_equal(b.guids[0], UINT64_MAX);
	assert_int_equal(f[0x22], 0xFF);
	assert_int_equal(f[0x23], 0xFF);

	/* A real full CRC (over the file as stored) is accepted too ... */
	for (unsigned i = 0; i < end; i++)
		crc = fs2l_crc_byte(crc, i == 0x22 || i == 0x23 ? 0xFF : f[i]);
	crc = fs2l_crc_final(crc);
	f[0x22] = (uint8_t)(crc >> 8), f[0x23] = (uint8_t)crc;
	assert_true(scan(f, n).booted);
	/* ... a wrong one is not. */
	f[0x23] ^= 1;
	b = scan(f, n);
	not_booted(&b, "full-image CRC");
	f[0x22] = f[0x23] = 0xFF;

	/* Blank only if the first entry is all-FF. */
	f[g + 16 + 7] = 0xFE;
	b = scan(f, n);
	not_booted(&b, "CRC");
	free(f);
}

static void test_start_rules(void **state)
{
	size_t n, nf = 2 * MIB;
	uint8_t *f, *flash = malloc(nf);
	struct cxsim_boot b;

	(void)state;
	assert_non_null(flash);
	f = gen("--no-failsafe --dump 0", &n);
	b = scan(f, n);
	assert_true(b.booted);
	assert_false(b.failsafe);
	assert_int_equal(b.start, 0);
	free(f);

	/* A contiguous non-failsafe image at 0x80000: never valid there. */
	f = gen("--no-failsafe", &n);
	memset(flash, 0xFF, nf);
	memcpy(flash + 0x80000, f, n);
	b = scan(flash, nf);
	not_booted(&b, "non-failsafe");
	free(f);

	/* A failsafe image (512 KiB chunks) at 0x10000: not at 0 or its chunk size. */
	f = gen("", &n);
	memset(flash, 0xFF, nf);
	memcpy(flash + 0x10000, f, n);
	b = scan(flash, nf);
	not_booted(&b, "0x80000 chunks");
	free(f);
	free(flash);
}

static void test_chain_and_info(void **state)
{
	size_t n;
	uint8_t *f = gen("--dump 0", &n);
	const struct ment *fc = ment("sect_FW_CONF"), *ii = ment("sect_IMAGE_INFO"),
		*t20 = ment("info_tag_20"), *end = ment("info_tag_255");
	uint8_t *save = malloc(n);
	struct cxsim_boot b;

	(void)state;
	assert_non_null(save);
	memcpy(save, f, n);

	put_be32(f + fc->off + 12, ment("sect_CNF_1")->off);	/* last section -> earlier one */
	fix_crc(f, fc->off, fc->size);
	b = scan(f, n);
	not_booted(&b, "loops");

	put_be32(f + fc->off + 12, 0x00F00000);		/* next section past the flash */
	fix_crc(f, fc->off, fc->size);
	b = scan(f, n);
	not_booted(&b, "outside the flash");

	memcpy(f, save, n);
	put_be32(f + fc->off + 4, 0x00100001);		/* over 4 MiB of data: too large */
	fix_crc(f, fc->off, fc->size);
	b = scan(f, n);
	not_booted(&b, "too large");

	memcpy(f, save, n);
	put_be32(f + end->off, 0xFE000000);		/* no end tag */
	fix_crc(f, ii->off, ii->size);
	b = scan(f, n);
	not_booted(&b, "IMAGE_INFO");

	memcpy(f, save, n);
	put_be32(f + t20->off, 0xFF000000);		/* end tag too early */
	fix_crc(f, ii->off, ii->size);
	b = scan(f, n);
	not_booted(&b, "IMAGE_INFO: end tag");

	memcpy(f, save, n);
	fix_crc(f, ii->off, ii->size);			/* a no-op: the helper is right */
	assert_true(scan(f, n).booted);
	free(save);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc16),
		cmocka_unit_test(test_slot0),
		cmocka_unit_test(test_slot1),
		cmocka_unit_test(test_slot1_zebra),
		cmocka_unit_test(test_both_slots),
		cmocka_unit_test(test_both_one_corrupt),
		cmocka_unit_test(test_corrupt_only_image),
		cmocka_unit_test(test_no_mic_skips_full_crc),
		cmocka_unit_test(test_erased),
		cmocka_unit_test(test_cx2_positions),
		cmocka_unit_test(test_old_guids),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_blank_guids),
		cmocka_unit_test(test_start_rules),
		cmocka_unit_test(test_chain_and_info),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
