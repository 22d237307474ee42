/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_guids.c — GUID/MAC decoding, derivation, parsing and checks
 * (fs2-format.md §3.1) and flint's -guid/-mac expansion (§3.4). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "image/guids.h"
#include "image/patch.h"

/* Entries as big-endian bytes, written out independently of util/bytes.h. */
static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static void fill(uint8_t *data, const uint64_t *v, int n)
{
	for (int i = 0; i < n; i++)
		put64(data + 8 * i, v[i]);
}

static struct cx_status st;

static void reset_status(void)
{
	cx_status_clear(&st);
}

/* §3.1: MAC = GUID bytes 0,1,2,5,6,7. */
static void test_mac_from_guid(void **state)
{
	(void)state;
	assert_true(guids_mac_from_guid(0x0002c903000a1b21ull) == 0x0002c90a1b21ull);
	assert_true(guids_mac_from_guid(0x0002c9000100d051ull) == 0x0002c900d051ull);
	/* bytes 11 22 33 44 55 66 77 88 → 11 22 33 66 77 88 */
	assert_true(guids_mac_from_guid(0x1122334455667788ull) == 0x112233667788ull);
	assert_true(guids_mac_from_guid(UINT64_MAX) == 0xFFFFFFFFFFFFull);
	assert_true(guids_mac_from_guid(0) == 0);
}

static void test_mac_is_blank(void **state)
{
	(void)state;
	assert_true(guids_mac_is_blank(0x0000FFFFFFFFFFFFull));
	assert_true(guids_mac_is_blank(UINT64_MAX));
	assert_false(guids_mac_is_blank(0x0000FFFFFFFFFFFEull));
	assert_false(guids_mac_is_blank(0x0000FFFEFFFFFFFFull));
	assert_false(guids_mac_is_blank(0x0002c9000001ull));
}

static void test_decode_six(void **state)
{
	(void)state;
	const uint64_t v[6] = {0x0002c9000100d050ull, 0x0002c9000100d051ull, 0x0002c9000100d052ull,
			       0x0002c9000100d053ull, 0x0002c9000001ull, 0x0002c9000002ull};
	uint8_t data[48];
	struct fs2_guids g;

	fill(data, v, 6);
	guids_decode(data, 6, &g);
	assert_int_equal(g.n, 6);
	assert_false(g.blank);
	assert_false(g.macs_derived);
	for (int i = 0; i < 6; i++)
		assert_true(g.raw[i] == v[i]);
	for (int i = 0; i < 4; i++)
		assert_true(g.guid[i] == v[i]);
	assert_true(g.mac[0] == 0x0002c9000001ull);
	assert_true(g.mac[1] == 0x0002c9000002ull);
}

/* Four entries (old ConnectX-2): MACs derived from port GUIDs 1 and 2. */
static void test_decode_four(void **state)
{
	(void)state;
	const uint64_t v[4] = {0x0002c903000a1b20ull, 0x0002c903000a1b21ull, 0x0002c903000a1b22ull,
			       0x0002c903000a1b23ull};
	uint8_t data[32];
	struct fs2_guids g;

	fill(data, v, 4);
	guids_decode(data, 4, &g);
	assert_int_equal(g.n, 4);
	assert_false(g.blank);
	assert_true(g.macs_derived);
	for (int i = 0; i < 4; i++)
		assert_true(g.guid[i] == v[i]);
	assert_true(g.mac[0] == 0x0002c90a1b21ull);
	assert_true(g.mac[1] == 0x0002c90a1b22ull);
}

/* Six entries whose MACs are blank (both forms of §3.1's blank test): derived. */
static void test_decode_six_blank_macs(void **state)
{
	(void)state;
	const uint64_t blanks[2] = {0x0000FFFFFFFFFFFFull, UINT64_MAX};

	for (int b = 0; b < 2; b++) {
		const uint64_t v[6] = {0x0002c903000a1b20ull, 0x0002c903000a1b21ull,
				       0x0002c903000a1b22ull, 0x0002c903000a1b23ull, blanks[b], blanks[b]};
		uint8_t data[48];
		struct fs2_guids g;

		fill(data, v, 6);
		guids_decode(data, 6, &g);
		assert_int_equal(g.n, 6);
		assert_false(g.blank);
		assert_true(g.macs_derived);
		assert_true(g.raw[4] == blanks[b]);
		assert_true(g.mac[0] == 0x0002c90a1b21ull);
		assert_true(g.mac[1] == 0x0002c90a1b22ull);
	}
}

/* Only one MAC blank: flint derives only when both are, so both are kept. */
static void test_decode_one_blank_mac(void **state)
{
	(void)state;
	const uint64_t v[6] = {0x0002c903000a1b20ull, 0x0002c903000a1b21ull, 0x0002c903000a1b22ull,
			       0x0002c903000a1b23ull, 0x0002c9000001ull, 0x0000FFFFFFFFFFFFull};
	uint8_t data[48];
	struct fs2_guids g;

	fill(data, v, 6);
	guids_decode(data, 6, &g);
	assert_false(g.macs_derived);
	assert_true(g.mac[0] == 0x0002c9000001ull);
	assert_true(g.mac[1] == 0x0000FFFFFFFFFFFFull);
}

/* All entries all-ones: blank, MACs shown as stored (nothing to derive). */
static void test_decode_all_blank(void **state)
{
	(void)state;
	uint8_t data[48];
	struct fs2_guids g;

	memset(data, 0xFF, sizeof(data));
	guids_decode(data, 6, &g);
	assert_int_equal(g.n, 6);
	assert_true(g.blank);
	assert_false(g.macs_derived);
	for (int i = 0; i < 4; i++)
		assert_true(g.guid[i] == UINT64_MAX);
	assert_true(g.mac[0] == UINT64_MAX);
	assert_true(g.mac[1] == UINT64_MAX);

	/* one non-FF byte anywhere makes it not blank */
	for (int i = 0; i < 48; i++) {
		data[i] = 0xFE;
		guids_decode(data, 6, &g);
		assert_false(g.blank);
		data[i] = 0xFF;
	}
}

/* Empty section: not "blank" (nothing is all-ones), nothing decoded. */
static void test_decode_empty(void **state)
{
	(void)state;
	uint8_t data[8] = {0};
	struct fs2_guids g;

	memset(&g, 0xA5, sizeof(g));
	guids_decode(data, 0, &g);
	assert_int_equal(g.n, 0);
	assert_false(g.blank);
	assert_true(g.guid[0] == 0);
	assert_true(g.mac[0] == 0);
}

struct parse_ok {
	const char *s;
	uint64_t v;
};

static void test_parse_guid_ok(void **state)
{
	(void)state;
	static const struct parse_ok ok[] = {
		{"0002c903000a1b21", 0x0002c903000a1b21ull},
		{"0x0002c903000a1b21", 0x0002c903000a1b21ull},
		{"0X0002C903000A1B21", 0x0002c903000a1b21ull},
		{"2c903000a1b21", 0x0002c903000a1b21ull},
		{"00:02:c9:03:00:0a:1b:21", 0x0002c903000a1b21ull},
		{"0x00:02:C9:03:00:0A:1B:21", 0x0002c903000a1b21ull},
		{"ffffffffffffffff", UINT64_MAX},
		{"0", 0},
		{"1", 1},
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t v = 0x5A5A5A5A5A5A5A5Aull;
		reset_status();
		assert_int_equal(guids_parse_guid(ok[i].s, &v, &st), CX_OK);
		assert_int_equal(st.code, CX_OK);
		assert_true(v == ok[i].v);
	}
}

static void test_parse_guid_bad(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"", "0x", "0X", "xyz", "12g4", "0x12345678901234567", "12345678901234567",
		"00:02:c9:03:00:0a:1b:21:00", ":12", "12:", "12::34", " 12", "12 ", "-1",
		"0x-12", "+12", "0x0x12",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 0;
		reset_status();
		assert_int_equal(guids_parse_guid(bad[i], &v, &st), CX_EVALUE);
		assert_int_equal(st.code, CX_EVALUE);
		assert_true(strlen(st.msg) > 0);
	}
}

static void test_parse_mac_ok(void **state)
{
	(void)state;
	static const struct parse_ok ok[] = {
		{"0002c90a1b21", 0x0002c90a1b21ull},
		{"0x0002c90a1b21", 0x0002c90a1b21ull},
		{"2c90a1b21", 0x0002c90a1b21ull},
		{"00:02:c9:0a:1b:21", 0x0002c90a1b21ull},
		{"00-02-C9-0A-1B-21", 0x0002c90a1b21ull},
		{"feffffffffff", 0xfeffffffffffull},  /* bit 40 clear */
		{"0", 0},
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t v = 0x5A5A5A5A5A5A5A5Aull;
		reset_status();
		assert_int_equal(guids_parse_mac(ok[i].s, &v, &st), CX_OK);
		assert_true(v == ok[i].v);
	}
}

static void test_parse_mac_bad(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"", "0x", "xyz", "0002c90a1b2g", "10002c90a1b21" /* 13 digits */,
		"00:02:c9:0a:1b:21:00", ":00:02", "00:", "00::02", "0002c90a1b21 ",
		"010000000000" /* multicast bit 40 */, "ffffffffffff" /* multicast too */,
		"0x0100:0000:0000",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 0;
		reset_status();
		assert_int_equal(guids_parse_mac(bad[i], &v, &st), CX_EVALUE);
		assert_true(strlen(st.msg) > 0);
	}
}

static void test_check_mac(void **state)
{
	(void)state;
	reset_status();
	assert_int_equal(guids_check_mac(0x0002c90a1b21ull, &st), CX_OK);
	assert_int_equal(guids_check_mac(0xFEFFFFFFFFFFull, &st), CX_OK);
	assert_int_equal(guids_check_mac(0, &st), CX_OK);
	assert_int_equal(st.code, CX_OK);

	reset_status();
	assert_int_equal(guids_check_mac(1ull << 40, &st), CX_EVALUE);
	assert_non_null(strstr(st.msg, "multicast"));

	reset_status();
	assert_int_equal(guids_check_mac(0x0002c90a1b21ull | (1ull << 40), &st), CX_EVALUE);

	reset_status();
	assert_int_equal(guids_check_mac(1ull << 48, &st), CX_EVALUE);
	assert_non_null(strstr(st.msg, "48"));

	reset_status();
	assert_int_equal(guids_check_mac(0x8000000000000000ull, &st), CX_EVALUE);
	assert_true(strlen(st.msg) > 0);

	/* every bit 48..63 alone is rejected, every bit 0..47 except 40 accepted */
	for (int b = 0; b < 64; b++) {
		reset_status();
		int want = (b >= 48 || b == 40) ? CX_EVALUE : CX_OK;
		assert_int_equal(guids_check_mac(1ull << b, &st), want);
	}
}

/* The first failure is kept: a second cx_fail does not overwrite it. */
static void test_status_first_failure_kept(void **state)
{
	(void)state;
	reset_status();
	assert_int_equal(guids_check_mac(1ull << 40, &st), CX_EVALUE);
	char first[CX_MSG_MAX];
	strcpy(first, st.msg);
	uint64_t v;
	assert_int_equal(guids_parse_guid("zz", &v, &st), CX_EVALUE);
	assert_string_equal(st.msg, first);
}

/* flint's incrGuid expansions, §3.4: g..g+3 and m, m+1, with carry. */
static void test_expand(void **state)
{
	(void)state;
	uint64_t g[GUIDS_NGUID], m[GUIDS_NMAC];

	patch_expand_guid(0x0002c9000100d050ull, g);
	assert_true(g[0] == 0x0002c9000100d050ull);
	assert_true(g[1] == 0x0002c9000100d051ull);
	assert_true(g[2] == 0x0002c9000100d052ull);
	assert_true(g[3] == 0x0002c9000100d053ull);

	patch_expand_guid(0x00000000FFFFFFFEull, g);
	assert_true(g[1] == 0x00000000FFFFFFFFull);
	assert_true(g[2] == 0x0000000100000000ull);
	assert_true(g[3] == 0x0000000100000001ull);

	patch_expand_mac(0x0002c9000001ull, m);
	assert_true(m[0] == 0x0002c9000001ull);
	assert_true(m[1] == 0x0002c9000002ull);

	patch_expand_mac(0x0002c9ffffffull, m);
	assert_true(m[1] == 0x0002ca000000ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mac_from_guid),
		cmocka_unit_test(test_mac_is_blank),
		cmocka_unit_test(test_decode_six),
		cmocka_unit_test(test_decode_four),
		cmocka_unit_test(test_decode_six_blank_macs),
		cmocka_unit_test(test_decode_one_blank_mac),
		cmocka_unit_test(test_decode_all_blank),
		cmocka_unit_test(test_decode_empty),
		cmocka_unit_test(test_parse_guid_ok),
		cmocka_unit_test(test_parse_guid_bad),
		cmocka_unit_test(test_parse_mac_ok),
		cmocka_unit_test(test_parse_mac_bad),
		cmocka_unit_test(test_check_mac),
		cmocka_unit_test(test_status_first_failure_kept),
		cmocka_unit_test(test_expand),
	};
	return cmocka_run_group_tests_name("guids", tests, NULL, NULL);
}
