/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_info.c — the IMAGE_INFO tag list, fs2-format.md §3.2. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "image/info.h"

/* A little tag-list writer, independent of info.c. */
struct tl {
	uint8_t b[1024];
	size_t n;
};

static void tl_dw(struct tl *t, uint32_t v)
{
	t->b[t->n++] = (uint8_t)(v >> 24);
	t->b[t->n++] = (uint8_t)(v >> 16);
	t->b[t->n++] = (uint8_t)(v >> 8);
	t->b[t->n++] = (uint8_t)v;
}

static void tl_hdr(struct tl *t, unsigned id, uint32_t len)
{
	tl_dw(t, (uint32_t)id << 24 | len);
}

/* A string payload NUL-padded to len bytes. */
static void tl_str(struct tl *t, unsigned id, const char *s, size_t len)
{
	tl_hdr(t, id, (uint32_t)len);
	memset(t->b + t->n, 0, len);
	memcpy(t->b + t->n, s, strlen(s) < len ? strlen(s) : len);
	t->n += len;
}

/* The tag list of the real CX3-Pro 2.42.5000 image, in its order (§3.2):
 * 0, 1, 2, 3, 10, 8, 4, 5, 7, 11, 19, 20, 0xFF. */
static void real_list(struct tl *t)
{
	t->n = 0;
	tl_hdr(t, 0, 4);  tl_dw(t, 1);
	tl_hdr(t, 1, 8);  tl_dw(t, 0x00020000); tl_dw(t, 0x002a1388);
	tl_hdr(t, 2, 8);  tl_dw(t, 0x00140336); tl_dw(t, 0x20170905);
	tl_hdr(t, 3, 4);  tl_dw(t, 0x00001007);
	tl_hdr(t, 10, 8); tl_dw(t, 0x000001f7); tl_dw(t, 0);
	tl_hdr(t, 8, 4);  tl_dw(t, 0x000015b3);
	tl_str(t, 4, "MT_1200111023", 16);
	tl_str(t, 5, "n/a", 208);
	tl_str(t, 7, "02.42.50.00", 16);
	tl_hdr(t, 11, 8); tl_dw(t, 0x00020000); tl_dw(t, 0);
	tl_hdr(t, 19, 12); tl_dw(t, 2); tl_dw(t, 0); tl_dw(t, 2);
	tl_str(t, 20, "cx3pro_MCX312B_2mb.prs", 24);
	tl_hdr(t, 0xFF, 0);
}

static struct fs2_info info;
static struct cx_status st;

/* Parse from an exact-size heap copy so ASan sees any read past the list. */
static int parse(const uint8_t *p, size_t len, uint32_t base)
{
	uint8_t *copy = malloc(len ? len : 1);
	assert_non_null(copy);
	memcpy(copy, p, len);
	cx_status_clear(&st);
	int rc = info_parse(copy, len, base, &info, &st);
	free(copy);
	return rc;
}

static void test_real_order(void **state)
{
	(void)state;
	struct tl t;

	real_list(&t);
	/* The real section is 372 bytes (§3.2): our list must match. */
	assert_int_equal(t.n, 372);
	assert_int_equal(parse(t.b, t.n, 0x6a0), CX_OK);
	assert_int_equal(st.code, CX_OK);

	assert_int_equal(info.format_rev, 1);
	assert_int_equal(info.fw_ver[0], 2);
	assert_int_equal(info.fw_ver[1], 42);
	assert_int_equal(info.fw_ver[2], 5000);
	assert_int_equal(info.build_time, 0x00140336);
	assert_int_equal(info.build_date, 0x20170905);
	assert_int_equal(info.build_date >> 16, 0x2017);
	assert_int_equal((info.build_date >> 8) & 0xff, 0x09);
	assert_int_equal(info.build_date & 0xff, 0x05);
	assert_int_equal(info.dev_type, 4103);
	assert_string_equal(info.psid, "MT_1200111023");
	assert_string_equal(info.vsd, "n/a");
	assert_string_equal(info.product_ver, "02.42.50.00");
	assert_int_equal(info.vsd_vendor_id, 0x15b3);
	assert_int_equal(info.nhw_ids, 1);
	assert_int_equal(info.hw_ids[0], 0x1f7);
	assert_int_equal(info.mic_ver[0], 2);
	assert_int_equal(info.mic_ver[1], 0);
	assert_int_equal(info.mic_ver[2], 0);
	assert_int_equal(info.config_sectors, 2);
	assert_int_equal(info.config_pad, 0);
	assert_true(info.have_sector_size);
	assert_int_equal(info.log2_sector_kib, 2);
	assert_string_equal(info.prs_name, "cx3pro_MCX312B_2mb.prs");
	assert_false(info.is_ga);

	/* which tags were seen */
	static const unsigned present[] = {0, 1, 2, 3, 4, 5, 7, 8, 10, 11, 19, 20};
	int seen = 0;
	for (unsigned id = 0; id < TAG_MAX; id++)
		seen += info.have[id];
	assert_int_equal(seen, (int)(sizeof(present) / sizeof(present[0])));
	for (size_t i = 0; i < sizeof(present) / sizeof(present[0]); i++)
		assert_true(info.have[present[i]]);
	assert_false(info.have[TAG_END]);
	assert_false(info.have[TAG_IS_GA]);

	/* payload offsets and lengths, worked out by hand from the list above */
	static const struct { unsigned id; uint32_t off, len; } where[] = {
		{0, 4, 4}, {1, 12, 8}, {2, 24, 8}, {3, 36, 4}, {10, 44, 8}, {8, 56, 4},
		{4, 64, 16}, {5, 84, 208}, {7, 296, 16}, {11, 316, 8}, {19, 328, 12},
		{20, 344, 24},
	};
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		assert_int_equal(info.payload_off[where[i].id], where[i].off);
		assert_int_equal(info.payload_len[where[i].id], where[i].len);
	}
	/* the VSD offset really is where the VSD text sits */
	assert_memory_equal(t.b + info.payload_off[TAG_VSD], "n/a", 4);
}

/* HW ids list: stops at the 0 terminator; tag 9 and tag 19 without a sector size. */
static void test_hw_ids_and_misc(void **state)
{
	(void)state;
	struct tl t = {.n = 0};

	tl_hdr(&t, 10, 16);
	tl_dw(&t, 0x000001f7); tl_dw(&t, 0x00A001f5); tl_dw(&t, 0); tl_dw(&t, 0x190);
	tl_hdr(&t, 9, 4); tl_dw(&t, 1);
	tl_hdr(&t, 19, 8); tl_dw(&t, 3); tl_dw(&t, 1);
	tl_hdr(&t, 3, 4); tl_dw(&t, 0xABCD673C); /* only bits 15:0 are the id: 26428 */
	tl_hdr(&t, 0xFF, 0);
	assert_int_equal(parse(t.b, t.n, 0), CX_OK);
	assert_int_equal(info.nhw_ids, 2);
	assert_int_equal(info.hw_ids[0], 0x1f7);
	assert_int_equal(info.hw_ids[1], 0x00A001f5);
	assert_true(info.is_ga);
	assert_int_equal(info.config_sectors, 3);
	assert_int_equal(info.config_pad, 1);
	assert_false(info.have_sector_size);
	assert_int_equal(info.dev_type, 26428);
}

/* A 16-character PSID without a NUL, and unknown tag ids, are fine. */
static void test_full_length_strings(void **state)
{
	(void)state;
	struct tl t = {.n = 0};

	tl_str(&t, 4, "ABCDEFGHIJKLMNOP", 16);
	tl_str(&t, 7, "0123456789abcdef", 16);
	tl_hdr(&t, 0x42, 8); tl_dw(&t, 0xdeadbeef); tl_dw(&t, 0);
	tl_hdr(&t, 0xFF, 0);
	assert_int_equal(parse(t.b, t.n, 0), CX_OK);
	assert_string_equal(info.psid, "ABCDEFGHIJKLMNOP");
	assert_string_equal(info.product_ver, "0123456789abcdef");
	assert_true(info.have[0x42]);
	assert_int_equal(info.payload_off[0x42], 44);
	assert_int_equal(info.payload_len[0x42], 8);
}

/* Only the end tag: OK, nothing present. */
static void test_only_end(void **state)
{
	(void)state;
	struct tl t = {.n = 0};

	tl_hdr(&t, 0xFF, 0);
	assert_int_equal(parse(t.b, t.n, 0), CX_OK);
	for (unsigned id = 0; id < TAG_MAX; id++)
		assert_false(info.have[id]);
}

static void expect_eimage(const uint8_t *p, size_t len)
{
	assert_int_equal(parse(p, len, 0x100), CX_EIMAGE);
	assert_int_equal(st.code, CX_EIMAGE);
	assert_true(strlen(st.msg) > 0);
}

/* A tag whose length runs past the section. */
static void test_err_tag_past_end(void **state)
{
	(void)state;
	struct tl t = {.n = 0};

	tl_hdr(&t, 0, 4); tl_dw(&t, 1);
	tl_hdr(&t, 4, 16); /* claims 16 bytes, only 4 remain (the end tag) */
	tl_hdr(&t, 0xFF, 0);
	expect_eimage(t.b, t.n);

	/* huge length (0xFFFFFF) */
	t.n = 0;
	tl_hdr(&t, 5, 0xFFFFFF);
	tl_hdr(&t, 0xFF, 0);
	expect_eimage(t.b, t.n);

	/* the real list with the VSD tag one byte too long */
	real_list(&t);
	t.b[80 + 3] = 209; /* tag 5 header at 80: 208 → 209 */
	expect_eimage(t.b, t.n);
}

/* The end tag is not at the end of the section. */
static void test_err_end_not_last(void **state)
{
	(void)state;
	struct tl t = {.n = 0};

	tl_hdr(&t, 0, 4); tl_dw(&t, 1);
	tl_hdr(&t, 0xFF, 0);
	tl_dw(&t, 0); /* trailing padding */
	expect_eimage(t.b, t.n);

	/* the real list with an extra dword */
	real_list(&t);
	tl_dw(&t, 0xFF000000);
	expect_eimage(t.b, t.n);

	/* an end tag that claims a payload, even if it reaches exactly the end */
	t.n = 0;
	tl_hdr(&t, 0xFF, 4);
	tl_dw(&t, 0);
	expect_eimage(t.b, t.n);
}

/* No end tag at all, and lists cut off at every byte. */
static void test_err_no_end(void **state)
{
	(void)state;
	struct tl t = {.n = 0};

	tl_hdr(&t, 0, 4); tl_dw(&t, 1);
	tl_hdr(&t, 3, 4); tl_dw(&t, 0x1007);
	expect_eimage(t.b, t.n);

	real_list(&t);
	for (size_t len = 0; len < t.n; len++)
		expect_eimage(t.b, len);
}

static void test_err_empty(void **state)
{
	(void)state;
	uint8_t dummy[4] = {0xFF, 0, 0, 0};

	expect_eimage(dummy, 0);
	/* 1..3 bytes: not even a tag header */
	for (size_t len = 1; len < 4; len++)
		expect_eimage(dummy, len);
}

/* flint's version format: a four-digit build, and a four-digit minor from 100 on. */
static void test_fw_version_format(void **state)
{
	(void)state;
	char v[24];

	fmt_fw_version(v, sizeof(v), (const uint16_t[3]){2, 42, 5000});
	assert_string_equal(v, "2.42.5000");
	fmt_fw_version(v, sizeof(v), (const uint16_t[3]){2, 9, 1200});
	assert_string_equal(v, "2.9.1200");
	fmt_fw_version(v, sizeof(v), (const uint16_t[3]){2, 99, 12});
	assert_string_equal(v, "2.99.0012");
	fmt_fw_version(v, sizeof(v), (const uint16_t[3]){14, 100, 2000});
	assert_string_equal(v, "14.0100.2000");
	fmt_fw_version(v, 5, (const uint16_t[3]){2, 42, 5000});
	assert_string_equal(v, "2.42");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_order),
		cmocka_unit_test(test_hw_ids_and_misc),
		cmocka_unit_test(test_full_length_strings),
		cmocka_unit_test(test_only_end),
		cmocka_unit_test(test_err_tag_past_end),
		cmocka_unit_test(test_err_end_not_last),
		cmocka_unit_test(test_err_no_end),
		cmocka_unit_test(test_err_empty),
		cmocka_unit_test(test_fw_version_format),
	};
	return cmocka_run_group_tests_name("info", tests, NULL, NULL);
}
