/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_cardinfo.c — ops/cardinfo.c on in-process simulated cards: an OEM card's identity,
 * image and board .ini; a card in recovery mode; a card whose flash holds no image. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkimage.h"
#include "ops/cardinfo.h"
#include "card_fixture.h"
#include "sim_cfg.h"

#define BDF "0000:01:00.0"
#define HP_PSID "HP_0280210019"
#define HP_SUBSYS_VENDOR 0x103c

static struct cxsim_card *card(const char *opts)
{
	struct cxsim_params p;

	cxsim_params_default(&p, CXSIM_CX3);
	p.subsys_vendor = HP_SUBSYS_VENDOR;
	return card_new_with(&p, opts);
}

static void read_info(struct cxsim_card *c, struct cardinfo *ci)
{
	struct device d;
	struct cfg_dev cfg;
	struct cx_status st = {0};
	struct pci_card pci = {.bdf = BDF, .device = cxsim_pci_device_now(c),
			       .subsys_vendor = HP_SUBSYS_VENDOR};

	sim_cfg_attach(&cfg, c, pci.bdf);
	assert_int_equal(device_attach(&d, cfg, &pci, false, &st), CX_OK);
	assert_int_equal(cardinfo_read(&d, ci, &st), CX_OK);
	device_close(&d);
}

static void test_oem_card(void **state)
{
	struct cxsim_card *c = card("--chip cx3 --psid " HP_PSID " --fw 2.40.5030 --ddr 2 --ddr-size 0x1000");
	struct cardinfo ci;

	(void)state;
	read_info(c, &ci);
	assert_string_equal(ci.chip, "ConnectX-3 A1");
	assert_int_equal(ci.hw_id, 0x1f5);
	assert_false(ci.recovery);
	assert_true(ci.have_image);
	assert_string_equal(ci.f.img.info.psid, HP_PSID);
	assert_int_equal(ci.f.img.info.fw_ver[1], 40);
	assert_true(ci.have_running);
	assert_int_equal(ci.running[2], 5030);
	assert_non_null(ci.ini);
	assert_non_null(strstr(ci.ini, "PSID = " HP_PSID));
	assert_string_equal(ci.oem, "HP");
	assert_true(ci.flash_size >= (1u << 20));
	assert_string_equal(ci.image_error, "");
	cardinfo_free(&ci);
	cardinfo_free(&ci); /* twice is harmless */
	cxsim_free(c);
}

static void test_recovery_card(void **state)
{
	struct cxsim_card *c = card(NULL); /* an empty flash boots into recovery */
	struct cardinfo ci;

	(void)state;
	read_info(c, &ci);
	assert_true(ci.recovery);
	assert_false(ci.have_image);
	assert_null(ci.ini);
	assert_non_null(strstr(ci.image_error, "recovery"));
	assert_string_equal(ci.oem, "HP"); /* the subsystem vendor still says whose */
	cardinfo_free(&ci);
	cxsim_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oem_card),
		cmocka_unit_test(test_recovery_card),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
