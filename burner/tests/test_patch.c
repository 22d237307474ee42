/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_patch.c — GUID/MAC/VSD patches and the FW_CONF inflater
 * (fs2-format.md §3.1, §3.3, §1.4 type 9).
 *
 * The strongest check here: a patched image must be byte-for-byte the image
 * the independent builder makes with the new values from the start — the
 * patch touched exactly the value bytes, the section CRC and 0x20 bits 15:0.
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
#include "image/ini.h"
#include "image/patch.h"
#include "builder.h"

static struct b_img b, want;
static struct fs2_image img, img2;
static struct cx_status st;
static uint8_t *buf, *orig;

/* Build spec s into buf (exact-size heap block) and parse it. */
static void load(const struct b_spec *s)
{
	free(buf);
	free(orig);
	b_build(&b, s);
	buf = b_dup(&b, b.len);
	orig = b_dup(&b, b.len);
	cx_status_clear(&st);
	assert_int_equal(fs2_parse(buf, b.len, &img, &st), CX_OK);
}

static int teardown(void **state)
{
	(void)state;
	free(buf);
	free(orig);
	buf = orig = NULL;
	return 0;
}

/* buf equals what the builder makes from spec s. */
static void expect_equals_build(const struct b_spec *s)
{
	b_build(&want, s);
	assert_int_equal(want.len, b.len);
	for (size_t i = 0; i < b.len; i++)
		if (buf[i] != want.buf[i])
			fail_msg("patched image differs from the built one at 0x%zx: 0x%02x, want 0x%02x",
				 i, buf[i], want.buf[i]);
}

/* The patched buffer parses, verifies (want_verdict), and reads back. */
static void reparse(int want_verdict)
{
	struct cx_status s2 = {0};

	assert_int_equal(fs2_parse(buf, b.len, &img2, &s2), CX_OK);
	assert_int_equal(fs2_verdict(&img2, &s2), want_verdict);
}

static void expect_unchanged(void)
{
	assert_memory_equal(buf, orig, b.len);
}

static struct guid_request req_guids(uint64_t base)
{
	struct guid_request r = {.have_guids = true};
	patch_expand_guid(base, r.guid);
	return r;
}

static struct guid_request req_macs(uint64_t base)
{
	struct guid_request r = {.have_macs = true};
	patch_expand_mac(base, r.mac);
	return r;
}

static void test_guids_only(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	struct guid_request r = req_guids(0x0002c903000a1b20ull);

	load(&s);
	assert_int_equal(patch_guids(buf, &img, &r, &st), CX_OK);
	assert_int_equal(st.code, CX_OK);
	reparse(CX_OK);
	for (int i = 0; i < 4; i++)
		assert_true(img2.guids.guid[i] == 0x0002c903000a1b20ull + (uint64_t)i);
	/* MACs kept */
	assert_true(img2.guids.mac[0] == 0x0002c9000001ull);
	assert_true(img2.guids.mac[1] == 0x0002c9000002ull);
	for (int i = 0; i < 4; i++)
		s.guid[i] = 0x0002c903000a1b20ull + (uint64_t)i;
	expect_equals_build(&s);
}

static void test_macs_only(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	struct guid_request r = req_macs(0x0002c9abcdefull);

	load(&s);
	assert_int_equal(patch_guids(buf, &img, &r, &st), CX_OK);
	reparse(CX_OK);
	assert_true(img2.guids.mac[0] == 0x0002c9abcdefull);
	assert_true(img2.guids.mac[1] == 0x0002c9abcdf0ull);
	assert_true(img2.guids.guid[0] == 0x0002c9000100d050ull);
	assert_true(img2.guids.guid[3] == 0x0002c9000100d053ull);
	s.guid[4] = 0x0002c9abcdefull;
	s.guid[5] = 0x0002c9abcdf0ull;
	expect_equals_build(&s);
}

static void test_both(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	struct guid_request r = {.have_guids = true, .have_macs = true,
				 .guid = {0x1111111111111111ull, 0x2222222222222222ull,
					  0x3333333333333333ull, 0x4444444444444444ull},
				 .mac = {0x00aabbccddeeull, 0x0000123456789abcull}};

	s.two_boot2 = true;
	s.rom = true;
	load(&s);
	assert_int_equal(patch_guids(buf, &img, &r, &st), CX_OK);
	reparse(CX_OK);
	for (int i = 0; i < 4; i++)
		assert_true(img2.guids.guid[i] == r.guid[i]);
	assert_true(img2.guids.mac[0] == 0x00aabbccddeeull);
	assert_true(img2.guids.mac[1] == 0x0000123456789abcull);
	for (int i = 0; i < 4; i++)
		s.guid[i] = r.guid[i];
	s.guid[4] = r.mac[0];
	s.guid[5] = r.mac[1];
	expect_equals_build(&s);
}

/* Patching without tag 11 still keeps 0x20 right (flint always writes it). */
static void test_no_mic_full_crc_written(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	struct guid_request r = req_guids(0x0002c9000200e000ull);

	s.mic = false;
	load(&s);
	assert_int_equal(patch_guids(buf, &img, &r, &st), CX_OK);
	for (int i = 0; i < 4; i++)
		s.guid[i] = 0x0002c9000200e000ull + (uint64_t)i;
	expect_equals_build(&s);
}

/* A 4-entry section: MACs cannot be set; GUIDs can. */
static void test_four_entries(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	struct guid_request r = req_macs(0x0002c9abcdefull);

	s.nguids = 4;
	load(&s);
	assert_int_equal(patch_guids(buf, &img, &r, &st), CX_EUNSUPPORTED);
	assert_true(strlen(st.msg) > 0);
	expect_unchanged();

	r.have_guids = true;
	patch_expand_guid(0x0002c903000a1b20ull, r.guid);
	cx_status_clear(&st);
	assert_int_equal(patch_guids(buf, &img, &r, &st), CX_EUNSUPPORTED);
	expect_unchanged();

	r = req_guids(0x0002c903000a1b20ull);
	cx_status_clear(&st);
	assert_int_equal(patch_guids(buf, &img, &r, &st), CX_OK);
	reparse(CX_OK);
	assert_int_equal(img2.guids.n, 4);
	assert_true(img2.guids.mac[0] == 0x0002c90a1b21ull); /* derived from the new port GUIDs */
	for (int i = 0; i < 4; i++)
		s.guid[i] = 0x0002c903000a1b20ull + (uint64_t)i;
	expect_equals_build(&s);
}

/* An invalid requested MAC (multicast, > 48 bits) leaves the buffer alone. */
static void test_invalid_mac_request(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	static const uint64_t bad[][2] = {
		{0x010000000000ull, 0x0002c9000002ull},
		{0x0002c9000001ull, 0x0102c9000002ull},
		{0x1000000000000ull, 0x0002c9000002ull},
		{0x0002c9000001ull, UINT64_MAX},
	};

	load(&s);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct guid_request r = {.have_guids = true, .have_macs = true,
					 .mac = {bad[i][0], bad[i][1]}};
		patch_expand_guid(0x0002c903000a1b20ull, r.guid);
		cx_status_clear(&st);
		assert_int_equal(patch_guids(buf, &img, &r, &st), CX_EVALUE);
		assert_true(strlen(st.msg) > 0);
		expect_unchanged();
	}
}

/* Like flint, keeping an invalid stored MAC is refused; a blank stored MAC
 * pair is kept as is. */
static void test_stored_macs(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	struct guid_request r = req_guids(0x0002c903000a1b20ull);

	s.guid[5] = 0x0102c9000002ull; /* multicast */
	load(&s);
	assert_int_equal(patch_guids(buf, &img, &r, &st), CX_EVALUE);
	expect_unchanged();

	s = b_defaults();
	s.guid[4] = s.guid[5] = 0x0000FFFFFFFFFFFFull;
	load(&s);
	assert_int_equal(patch_guids(buf, &img, &r, &st), CX_OK);
	reparse(CX_OK);
	for (int i = 0; i < 4; i++)
		s.guid[i] = 0x0002c903000a1b20ull + (uint64_t)i;
	expect_equals_build(&s);
}

/* Blank GUIDs: both groups needed (a 6-entry section); the result is exactly
 * the non-blank image. */
static void test_blank_image(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	struct guid_request r = req_guids(0x0002c903000a1b20ull);

	s.blank = true;
	load(&s);
	assert_int_equal(patch_guids(buf, &img, &r, &st), CX_EVALUE);
	expect_unchanged();
	r = req_macs(0x0002c9abcdefull);
	cx_status_clear(&st);
	assert_int_equal(patch_guids(buf, &img, &r, &st), CX_EVALUE);
	expect_unchanged();

	r.have_guids = true;
	patch_expand_guid(0x0002c903000a1b20ull, r.guid);
	cx_status_clear(&st);
	assert_int_equal(patch_guids(buf, &img, &r, &st), CX_OK);
	reparse(CX_OK);
	assert_false(img2.guids.blank);
	s.blank = false;
	for (int i = 0; i < 4; i++)
		s.guid[i] = r.guid[i];
	s.guid[4] = r.mac[0];
	s.guid[5] = r.mac[1];
	expect_equals_build(&s);

	/* a blank 4-entry image needs only the GUIDs */
	s = b_defaults();
	s.blank = true;
	s.nguids = 4;
	load(&s);
	r = req_guids(0x0002c903000a1b20ull);
	assert_int_equal(patch_guids(buf, &img, &r, &st), CX_OK);
	reparse(CX_OK);
	s.blank = false;
	for (int i = 0; i < 4; i++)
		s.guid[i] = r.guid[i];
	expect_equals_build(&s);
}

static void test_vsd(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();

	load(&s);
	assert_int_equal(patch_vsd(buf, &img, "hello, world", &st), CX_OK);
	reparse(CX_OK);
	assert_string_equal(img2.info.vsd, "hello, world");
	/* "n/a" fully replaced, the rest zero-padded */
	s.vsd = "hello, world";
	expect_equals_build(&s);
	for (uint32_t i = 12; i < 208; i++)
		assert_int_equal(buf[b.vsd_off + i], 0);

	/* a shorter one over a longer one: the old tail is zeroed */
	free(orig);
	orig = NULL;
	assert_int_equal(fs2_parse(buf, b.len, &img, &st), CX_OK);
	assert_int_equal(patch_vsd(buf, &img, "ab", &st), CX_OK);
	reparse(CX_OK);
	assert_string_equal(img2.info.vsd, "ab");
	s.vsd = "ab";
	expect_equals_build(&s);

	/* empty */
	assert_int_equal(fs2_parse(buf, b.len, &img, &st), CX_OK);
	assert_int_equal(patch_vsd(buf, &img, "", &st), CX_OK);
	reparse(CX_OK);
	assert_string_equal(img2.info.vsd, "");
	s.vsd = "";
	expect_equals_build(&s);
}

static void test_vsd_lengths(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	char v[300];

	memset(v, 'x', sizeof(v));
	v[208] = '\0';
	load(&s);
	assert_int_equal(patch_vsd(buf, &img, v, &st), CX_OK);
	reparse(CX_OK);
	assert_int_equal(strlen(img2.info.vsd), 208);
	s.vsd = v;
	expect_equals_build(&s);

	s = b_defaults();
	load(&s);
	v[208] = 'x';
	v[209] = '\0';
	assert_int_equal(patch_vsd(buf, &img, v, &st), CX_EVALUE);
	assert_true(strlen(st.msg) > 0);
	expect_unchanged();
	v[299] = '\0';
	cx_status_clear(&st);
	assert_int_equal(patch_vsd(buf, &img, v, &st), CX_EVALUE);
	expect_unchanged();
}

/* A blank image keeps its full CRC at 0xFFFF when the VSD changes. */
static void test_vsd_blank(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();

	s.blank = true;
	load(&s);
	assert_int_equal(patch_vsd(buf, &img, "blank card", &st), CX_OK);
	reparse(CX_EBLANK);
	assert_string_equal(img2.info.vsd, "blank card");
	assert_int_equal(buf[0x22], 0xFF);
	assert_int_equal(buf[0x23], 0xFF);
	s.vsd = "blank card";
	expect_equals_build(&s);
}

/* All-ones GUID entries with a real CRC are values, not blank: the VSD patch
 * must update the full CRC like for any image. */
static void test_vsd_all_ones_guids(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();

	for (int i = 0; i < 6; i++)
		s.guid[i] = UINT64_MAX;
	load(&s);
	assert_int_equal(patch_vsd(buf, &img, "ones", &st), CX_OK);
	reparse(CX_OK);
	s.vsd = "ones";
	expect_equals_build(&s);
}

static void test_vsd_absent(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();

	s.vsd_tag = false;
	load(&s);
	assert_int_equal(patch_vsd(buf, &img, "x", &st), CX_EABSENT);
	expect_unchanged();
}

/* patch_section_crc / patch_full_crc restore exactly the stored values. */
static void test_crc_helpers(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();

	s.rom = true;
	load(&s);
	for (int i = 0; i < img.nitems - 1; i++) {
		const struct fs2_item *it = &img.items[i];
		if (it->kind != FS2_ITEM_SECTION)
			continue;
		uint8_t *crc = buf + it->data_off + it->data_len;
		memset(crc, 0xAB, 4);
		patch_section_crc(buf, it);
		assert_memory_equal(crc, orig + it->data_off + it->data_len, 4);
	}
	buf[0x22] ^= 0xFF;
	buf[0x23] ^= 0x0F;
	patch_full_crc(buf, &img);
	expect_unchanged();
	/* dev_rev (0x20) and bits 23:16 are kept */
	buf[0x21] = 0x5A;
	patch_full_crc(buf, &img);
	assert_int_equal(buf[0x20], 0xA1);
	assert_int_equal(buf[0x21], 0x5A);
}

/* ---- ini_inflate ---- */

static void test_ini_round_trip(void **state)
{
	(void)state;
	static const char text[] = "[PS_INFO]\nName = test\n[FW]\nlog_flashdev_size = 21\n";
	uint8_t z[256];
	uLongf zlen = sizeof(z);
	char *out = NULL;
	size_t n = 0;

	assert_int_equal(compress(z, &zlen, (const Bytef *)text, sizeof(text) - 1), Z_OK);
	cx_status_clear(&st);
	assert_int_equal(ini_inflate(z, zlen, &out, &n, &st), CX_OK);
	assert_non_null(out);
	assert_int_equal(n, sizeof(text) - 1);
	assert_string_equal(out, text);
	free(out);
}

/* The FW_CONF section of a built image: zlib stream plus zero padding. */
static void test_ini_from_image(void **state)
{
	(void)state;
	struct b_spec s = b_defaults();
	char *out = NULL;
	size_t n = 0;

	load(&s);
	assert_true(img.fwconf_sect >= 0);
	const struct fs2_item *it = &img.items[img.fwconf_sect];
	assert_int_equal(ini_inflate(buf + it->data_off, it->data_len, &out, &n, &st), CX_OK);
	assert_int_equal(n, strlen(b_ini_text));
	assert_string_equal(out, b_ini_text);
	free(out);
}

static void test_ini_corrupt(void **state)
{
	(void)state;
	static const char text[] = "[PS_INFO]\nName = some board that is long enough\n";
	uint8_t z[256];
	uLongf zlen = sizeof(z);
	char *out = (char *)1;
	size_t n = 99;

	assert_int_equal(compress(z, &zlen, (const Bytef *)text, sizeof(text) - 1), Z_OK);

	/* a bad header */
	uint8_t bad[256];
	memcpy(bad, z, zlen);
	bad[0] ^= 0xFF;
	cx_status_clear(&st);
	assert_int_equal(ini_inflate(bad, zlen, &out, &n, &st), CX_EIMAGE);
	assert_null(out);
	assert_int_equal(n, 0);
	assert_true(strlen(st.msg) > 0);

	/* a bad adler32 trailer */
	memcpy(bad, z, zlen);
	bad[zlen - 1] ^= 0x01;
	cx_status_clear(&st);
	assert_int_equal(ini_inflate(bad, zlen, &out, &n, &st), CX_EIMAGE);
	assert_null(out);

	/* every truncation, from exact-size copies */
	for (size_t len = 0; len < zlen; len++) {
		uint8_t *cut = malloc(len ? len : 1);
		assert_non_null(cut);
		memcpy(cut, z, len);
		cx_status_clear(&st);
		assert_int_equal(ini_inflate(cut, len, &out, &n, &st), CX_EIMAGE);
		assert_null(out);
		free(cut);
	}

	/* not zlib at all */
	memset(bad, 0, sizeof(bad));
	cx_status_clear(&st);
	assert_int_equal(ini_inflate(bad, sizeof(bad), &out, &n, &st), CX_EIMAGE);
}

/* Output capped at INI_MAX_TEXT: 2 MiB of zeros is refused; exactly 1 MiB fits. */
static void test_ini_cap(void **state)
{
	(void)state;
	const size_t sizes[] = {2u << 20, INI_MAX_TEXT + 1, INI_MAX_TEXT};
	const int want[] = {CX_EIMAGE, CX_EIMAGE, CX_OK};

	for (int k = 0; k < 3; k++) {
		uint8_t *zeros = calloc(1, sizes[k]);
		uLongf zlen = compressBound(sizes[k]);
		uint8_t *z = malloc(zlen);
		char *out = NULL;
		size_t n = 0;

		assert_non_null(zeros);
		assert_non_null(z);
		assert_int_equal(compress(z, &zlen, zeros, sizes[k]), Z_OK);
		cx_status_clear(&st);
		assert_int_equal(ini_inflate(z, zlen, &out, &n, &st), want[k]);
		if (want[k] == CX_OK) {
			assert_non_null(out);
			assert_int_equal(n, sizes[k]);
			assert_int_equal(out[n], '\0');
		} else {
			assert_null(out);
			assert_true(strlen(st.msg) > 0);
		}
		free(out);
		free(z);
		free(zeros);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_guids_only, teardown),
		cmocka_unit_test_teardown(test_macs_only, teardown),
		cmocka_unit_test_teardown(test_both, teardown),
		cmocka_unit_test_teardown(test_no_mic_full_crc_written, teardown),
		cmocka_unit_test_teardown(test_four_entries, teardown),
		cmocka_unit_test_teardown(test_invalid_mac_request, teardown),
		cmocka_unit_test_teardown(test_stored_macs, teardown),
		cmocka_unit_test_teardown(test_blank_image, teardown),
		cmocka_unit_test_teardown(test_vsd, teardown),
		cmocka_unit_test_teardown(test_vsd_lengths, teardown),
		cmocka_unit_test_teardown(test_vsd_blank, teardown),
		cmocka_unit_test_teardown(test_vsd_all_ones_guids, teardown),
		cmocka_unit_test_teardown(test_vsd_absent, teardown),
		cmocka_unit_test_teardown(test_crc_helpers, teardown),
		cmocka_unit_test(test_ini_round_trip),
		cmocka_unit_test_teardown(test_ini_from_image, teardown),
		cmocka_unit_test(test_ini_corrupt),
		cmocka_unit_test(test_ini_cap),
	};
	return cmocka_run_group_tests_name("patch", tests, NULL, NULL);
}
