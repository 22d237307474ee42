/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_fs3_devinfo.c — image/fs3_devinfo.h on flashes in memory from the tests' builder: where
 * sg's new DEV_INFO goes and what it holds, the layouts refused, and the FS3 ITOC repointed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "fs3_card.h"
#include "image/fs3_devinfo.h"

#define GUID 0x0002c90300beef00ull
#define MAC 0x0002c9beef00ull

static struct f3 b;

static uint8_t *flash_of(bool fs4, bool override, bool below, struct fs3_image *img)
{
	struct f3_spec s = f3_defaults(fs4);
	struct cx_status st = {0};

	s.override_en = override;
	f3_build(&b, &s);
	if (below)
		fc_move(&b, 0xe1, 0x19000); /* MFG_INFO (0x1a000) - 4 KiB */
	uint8_t *f = fc_flash(&b, 0);
	if (fs3_parse_dev_lost(f, fc_flash_size(fs4), img, &st))
		fail_msg("parse: %s", st.msg);
	return f;
}

static int plan(const struct fs3_image *img, bool allow, struct fs3_devinfo_plan *p, struct cx_status *st)
{
	const struct fs3_sg_request rq = {true, true, GUID, MAC};
	return fs3_devinfo_plan(img, &rq, allow, p, st);
}

static void expect(int want, int got, const struct cx_status *st, const char *words)
{
	if (want != got || (words && !strstr(st->msg, words)))
		fail_msg("expected %d (%s), got %d: %s", want, words ? words : "", got, st->msg);
}

/* FS3 as mstflint expects it: the new one 8 KiB below MFG_INFO, the ITOC repointed, the flash
 * then parsing strictly with the new GUID/MAC and every CRC right. */
static void test_fs3_places_and_repoint(void **state)
{
	static struct fs3_image img, after;
	static struct fs3_devinfo_plan p;
	struct cx_status st = {0};
	(void)state;

	uint8_t *f = flash_of(false, true, true, &img);
	expect(CX_OK, plan(&img, false, &p, &st), &st, NULL);
	assert_true(p.old_valid);
	assert_int_equal(p.old_addr, 0x19000);
	assert_int_equal(p.target, 0x18000);
	assert_false(p.same);
	expect(CX_OK, fs3_devinfo_repoint(f, fc_flash_size(false), &img, &p, &st), &st, NULL);
	expect(CX_OK, fs3_parse(f, fc_flash_size(false), &after, &st), &st, NULL);
	expect(CX_OK, fs3_verdict(&after, &st), &st, NULL);
	assert_true(after.dev.guids[0].uid == GUID);
	assert_true((after.dev.macs[0].uid & 0xffffffffffffull) == MAC);
	assert_string_equal(after.dev.vsd, "device vsd"); /* the old one's kept */
	free(f);
}

/* The builder's own FS3 layout (DEV_INFO above MFG_INFO): refused as mstflint refuses it. */
static void test_fs3_unexpected_place(void **state)
{
	static struct fs3_image img;
	static struct fs3_devinfo_plan p;
	struct cx_status st = {0};
	(void)state;

	uint8_t *f = flash_of(false, true, false, &img);
	expect(CX_EUNSUPPORTED, plan(&img, false, &p, &st), &st, "not 4 or 8 KiB below");
	free(f);
}

/* FS4 whose spare DEV_INFO says no CRC: the DTOC would have to change, refused. */
static void test_fs4_spare_without_crc(void **state)
{
	static struct fs3_image img;
	static struct fs3_devinfo_plan p;
	struct cx_status st = {0};
	(void)state;

	uint8_t *f = flash_of(true, true, false, &img);
	expect(CX_EUNSUPPORTED, plan(&img, false, &p, &st), &st, "in the DTOC");
	free(f);
}

/* A lost FS3 DEV_INFO: a fresh one, MFG_INFO's allocation, the signature and version 2. */
static void test_fs3_fresh_from_mfg(void **state)
{
	static struct fs3_image img;
	static struct fs3_devinfo_plan p;
	struct cx_status st = {0};
	(void)state;

	uint8_t *f = flash_of(false, true, true, &img);
	memset(f + 0x19000, 0xff, 0x200);
	expect(CX_OK, fs3_parse_dev_lost(f, fc_flash_size(false), &img, &st), &st, NULL);
	expect(CX_OK, plan(&img, false, &p, &st), &st, NULL);
	assert_false(p.old_valid);
	assert_true(p.fresh);
	assert_int_equal(p.target, 0x18000);
	assert_int_equal(f3_crc(p.data, p.len), p.crc);
	assert_int_equal(p.data[0], 0x6d);          /* "mDev" */
	assert_int_equal(p.data[0x12], 2);          /* version 2.0: major [16:8] */
	assert_int_equal(p.data[0x23], 8);          /* MFG_INFO's number of GUIDs */
	free(f);
}

static void test_refusals(void **state)
{
	static struct fs3_image img;
	static struct fs3_devinfo_plan p;
	struct cx_status st = {0};
	(void)state;

	uint8_t *f = flash_of(false, false, true, &img);
	expect(CX_EUNSUPPORTED, plan(&img, false, &p, &st), &st, "guids override is not set");
	cx_status_clear(&st);
	expect(CX_EVALUE, plan(&img, true, &p, &st), &st, "factory GUID");
	cx_status_clear(&st);
	const struct fs3_sg_request none = {false, false, 0, 0};
	expect(CX_EUSAGE, fs3_devinfo_plan(&img, &none, false, &p, &st), &st, NULL);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fs3_places_and_repoint), cmocka_unit_test(test_fs3_unexpected_place),
		cmocka_unit_test(test_fs4_spare_without_crc),  cmocka_unit_test(test_fs3_fresh_from_mfg),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
