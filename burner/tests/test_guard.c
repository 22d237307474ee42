/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_guard.c — the pre-burn rules: chip family, revision, size, PSID, version. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/guard.h"
#include "mkimage.h"

struct img {
	uint8_t *buf;
	size_t len;
	struct fs2_image fs;
};

static void gen(const char *opts, struct img *im)
{
	struct cx_status st = {0};
	char o[512];

	snprintf(o, sizeof(o), "%s", opts);
	im->buf = mkimage(o, &im->len);
	assert_int_equal(fs2_parse(im->buf, im->len, &im->fs, &st), CX_OK);
}

static struct guard_verdict check(uint16_t hw, uint8_t rev, const struct img *now, const char *opts,
				  bool allow_psid)
{
	struct img im;
	struct guard_verdict v;
	struct guard_card c = {hw, rev, 2u << 20, now == NULL, now ? &now->fs : NULL};
	struct guard_opts o = {.allow_psid_change = allow_psid};

	gen(opts, &im);
	guard_check(&c, &im.fs, &o, &v);
	free(im.buf);
	return v;
}

static void test_family_and_revision(void **state)
{
	(void)state;
	struct guard_verdict v = check(0x1F7, 0, NULL, "--chip cx3 --ddr 1", false);
	assert_int_equal(v.code, CX_EMISMATCH);
	assert_non_null(strstr(v.reason, "ConnectX-3 (HW 0x1f5)"));
	v = check(0x1F5, 1, NULL, "--chip cx3pro --ddr 1", false);
	assert_int_equal(v.code, CX_EMISMATCH);
	v = check(0x1F5, 1, NULL, "--chip cx3 --rev 0 --ddr 1", false); /* A0 image, A1 card */
	assert_int_equal(v.code, CX_EMISMATCH);
	assert_non_null(strstr(v.reason, "revision"));
	v = check(0x1F5, 1, NULL, "--chip cx3 --rev 1 --ddr 1", false);
	assert_int_equal(v.code, CX_OK);
	v = check(0x190, 0xB0, NULL, "--chip cx2 --ddr 1", false);
	assert_int_equal(v.code, CX_OK);
	v = check(0x190, 0xB0, NULL, "--chip cx3 --ddr 1", false);
	assert_int_equal(v.code, CX_EMISMATCH);
}

static void test_psid_and_versions(void **state)
{
	(void)state;
	struct img now;
	gen("--chip cx3 --ddr 1 --fw 2.40.7000 --psid HP_0280210019", &now);

	struct guard_verdict v = check(0x1F5, 1, &now, "--chip cx3 --ddr 1 --fw 2.42.5000", false);
	assert_int_equal(v.code, CX_EMISMATCH);
	assert_non_null(strstr(v.reason, "--allow_psid_change"));
	v = check(0x1F5, 1, &now, "--chip cx3 --ddr 1 --fw 2.42.5000", true);
	assert_int_equal(v.code, CX_OK);
	assert_int_equal(v.nquestions, 1);
	assert_non_null(strstr(v.questions[0], "HP_0280210019"));

	v = check(0x1F5, 1, &now, "--chip cx3 --ddr 1 --fw 2.42.5000 --psid HP_0280210019", false);
	assert_int_equal(v.code, CX_OK);
	assert_int_equal(v.nquestions, 0);
	v = check(0x1F5, 1, &now, "--chip cx3 --ddr 1 --fw 2.40.7000 --psid HP_0280210019", false);
	assert_int_equal(v.nquestions, 1);
	assert_non_null(strstr(v.questions[0], "again"));
	v = check(0x1F5, 1, &now, "--chip cx3 --ddr 1 --fw 2.10.100 --psid HP_0280210019", false);
	assert_int_equal(v.nquestions, 1);
	assert_non_null(strstr(v.questions[0], "Downgrade"));
	/* Recovery: no PSID or version to compare with. */
	v = check(0x1F5, 1, NULL, "--chip cx3 --ddr 1 --psid MT_1090120019", false);
	assert_int_equal(v.code, CX_OK);
	assert_int_equal(v.nquestions, 0);
	free(now.buf);
}

static void test_size(void **state)
{
	(void)state;
	struct img im;
	gen("--chip cx3 --ddr 1", &im);
	/* Tag 19 = 2 sectors of 4 KiB, no pad: half of 2 MiB minus 8 KiB (fs2-format.md §1.5's example). */
	assert_int_equal(guard_max_image_size(&im.fs, 2u << 20), 0x100000 - 0x2000);
	free(im.buf);
	/* 1.25 MiB of DDR does not fit a failsafe slot of a 2 MiB flash. */
	struct guard_verdict v = check(0x1F5, 1, NULL, "--chip cx3 --ddr 64 --ddr-size 0x5000", false);
	assert_int_equal(v.code, CX_EMISMATCH);
	assert_non_null(strstr(v.reason, "fit"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_family_and_revision),
		cmocka_unit_test(test_psid_and_versions),
		cmocka_unit_test(test_size),
	};
	return cmocka_run_group_tests_name("guard", tests, NULL, NULL);
}
