/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_job_settings.c — settings= (rescue/job_settings.c), whole sessions on the rig
 * (tests/support/wizard_rig.h): set after a crossflash (exactly the settings' records
 * written, the next boot has them, the report's before -> after); a bad name, a bad value
 * or a port one card lacks refuses the whole job with nothing written, flash or settings;
 * firmware not started: the card is written and fails on its settings; job=settings alone,
 * and beside a ConnectX-2, which fails with its reason and is sent nothing. */

#include <string.h>

#include "wizard_checks.h"
#include "wizard_rig.h"

/* A bad settings= refuses the whole job before anything is written: flash and settings. */
static void settings_refused(struct rig *r, const char *settings, const char *why)
{
	const uint8_t *hp, *other;
	size_t n;
	int equal;

	two_cards(r, &hp, &other, &n);
	r->o.job = JOB_CROSSFLASH;
	r->o.allow_risky = true;
	r->o.settings = settings;
	expect_run(r, "", CX_EDECLINED);              /* the wizard stayed up; then the input ended */
	expect_said(r, why);
	expect_said(r, "card 0000:02:00.0: refused: settings=: ");
	expect_untouched(r->cards[0], hp, n);
	expect_untouched(r->cards[1], other, n);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(cxsim_counters(r->cards[i])->nv_write_cmds, 0);
		assert_int_equal(cxsim_nv_count(r->cards[i]), 0);
	}
	assert_int_equal(bundles(r, NULL, 0, &equal), 0);  /* not even a backup */
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "refused");
	expect_card_result(rep, "0000:02:00.0", "refused");
	assert_non_null(strstr(rep, why));
	free(rep);
}

/* A crossflash with settings=: the write, then exactly the two port-type records; the report
 * has each setting before and after, as mstconfig prints them. */
static void test_job_settings_after_crossflash(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);

	cxsim_counters_reset(c);
	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	r->o.settings = "LINK_TYPE_P1=ETH,LINK_TYPE_P2=eth";
	expect_run(r, "", CX_OK);
	expect_said(r, "card 0000:01:00.0: ok: stock.bin written and verified; settings set for the next cold boot");
	assert_int_equal(cxsim_counters(c)->nv_write_cmds, 2);   /* one record per port, nothing else */
	assert_int_equal(cxsim_counters(c)->nv_writes, 2);
	assert_int_equal(nv_value(c, "LINK_TYPE_P1"), 2);
	assert_int_equal(nv_value(c, "LINK_TYPE_P2"), 2);
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	assert_int_equal(nv_value(c, "LINK_TYPE_P1"), 2);          /* kept with the card */
	char *rep = report_text(r);
	assert_non_null(strstr(rep, "\"settings\":\"LINK_TYPE_P1=ETH,LINK_TYPE_P2=eth\""));
	assert_non_null(strstr(rep, "\"settings\":[{\"name\":\"LINK_TYPE_P1\",\"before\":\"VPI(3)\",\"after\":"
				    "\"ETH(2)\"},{\"name\":\"LINK_TYPE_P2\",\"before\":\"VPI(3)\",\"after\":\"ETH(2)\"}]"));
	expect_card_result(rep, "0000:01:00.0", "ok");
	free(rep);
	expect_history(r, 1, "\"action\":\"settings\"", "\"result\":\"ok\"",
		       "LINK_TYPE_P1 VPI(3) -> ETH(2), LINK_TYPE_P2 VPI(3) -> ETH(2)");
}

/* settings= names a setting there is none of. */
static void test_job_settings_unknown_name(void **state)
{
	settings_refused(*state, "LINK_TYPE_P1=ETH,LINK_SPEED=40G", "unknown setting LINK_SPEED");
}

/* settings= gives a setting a value it cannot take. */
static void test_job_settings_bad_value(void **state)
{
	settings_refused(*state, "LINK_TYPE_P1=ETHERNET", "LINK_TYPE_P1=ETHERNET: not a value of LINK_TYPE_P1");
}

/* A port the second card lacks: its own check refuses the job, the first card is not written. */
static void test_job_settings_port_a_card_lacks(void **state)
{
	struct rig *r = *state;
	const uint8_t *hp, *other;
	size_t n;

	two_cards(r, &hp, &other, &n);
	cxsim_params_mut(r->cards[1])->tools.ports = 1;
	r->o.allow_risky = true;
	r->o.job = JOB_CROSSFLASH;
	r->o.settings = "LINK_TYPE_P2=ETH";
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: refused: settings=: card 0000:02:00.0: LINK_TYPE_P2: this card has "
			 "one port; nothing written");
	expect_untouched(r->cards[0], hp, n);
	expect_untouched(r->cards[1], other, n);
	assert_int_equal(cxsim_counters(r->cards[0])->nv_write_cmds + cxsim_counters(r->cards[1])->nv_write_cmds, 0);
}

/* Firmware not started (status 4): the card is still written, and fails on its settings. */
static void test_job_settings_firmware_not_started(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);

	cxsim_params_mut(c)->hcr_fault = CXSIM_HCR_NOT_STARTED;
	cxsim_counters_reset(c);
	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	r->o.settings = "SRIOV_EN=1";
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: failed: stock.bin written and verified; settings not set: ");
	expect_said(r, "not started");
	assert_int_equal(cxsim_counters(c)->nv_write_cmds, 0);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "failed");
	assert_non_null(strstr(rep, "\"card_state\":\"new-image-boots\"")); /* its flash is written */
	assert_non_null(strstr(rep, "{\"name\":\"SRIOV_EN\",\"before\":null,\"after\":null}"));
	free(rep);
	expect_history(r, 1, "\"action\":\"settings\"", "\"result\":\"failed\"", "not started");
	cxsim_params_mut(c)->hcr_fault = CXSIM_HCR_OK;
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
}

/* job=settings: no image written, only the SR-IOV record. */
static void test_job_settings_alone(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	size_t n;
	const uint8_t *f = watch_flash(r, c, &n);

	r->o.job = JOB_SETTINGS;
	r->o.yes = true;
	r->o.settings = "SRIOV_EN=True,NUM_OF_VFS=16";
	expect_run(r, "", CX_OK);
	expect_said(r, "card 0000:01:00.0: ok: 2 of 2 settings changed, for the next cold boot");
	expect_untouched(c, f, n);
	assert_int_equal(cxsim_counters(c)->nv_write_cmds, 1);
	assert_int_equal(nv_value(c, "SRIOV_EN"), 1);
	assert_int_equal(nv_value(c, "NUM_OF_VFS"), 16);
	char *rep = report_text(r);
	assert_non_null(strstr(rep, "\"job\":\"settings\""));
	assert_non_null(strstr(rep, "{\"name\":\"NUM_OF_VFS\",\"before\":\"8\",\"after\":\"16\"}"));
	assert_non_null(strstr(rep, "\"backup\":null"));
	free(rep);
}

/* job=settings on a ConnectX-2 beside a ConnectX-3: the CX3 gets its settings, the CX2 fails with
 * the reason (it has no settings store) and nothing is sent to it or written; the job fails. */
static void test_job_settings_connectx2(void **state)
{
	struct rig *r = *state;
	size_t n;
	struct cxsim_card *cx3 = hp_card(r);
	struct cxsim_card *cx2 = add_chip_card(r, CXSIM_CX2, CX2_OPTS);

	const uint8_t *f2 = watch_flash(r, cx2, &n);
	cxsim_counters_reset(cx3);
	r->o.job = JOB_SETTINGS;
	r->o.yes = true;
	r->o.settings = "LINK_TYPE_P1=ETH";
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: ok: 1 of 1 settings changed, for the next cold boot");
	expect_said(r, "card 0000:02:00.0: failed: settings not set: 0000:02:00.0: a ConnectX-2 has no "
		       "settings store");
	assert_int_equal(nv_value(cx3, "LINK_TYPE_P1"), 2);
	assert_int_equal(cxsim_counters(cx2)->tools_cmds, 0);
	expect_untouched(cx2, f2, n);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "ok");
	expect_card_result(rep, "0000:02:00.0", "failed");
	assert_non_null(strstr(rep, "\"result\":\"failed\",\"settings\":\"LINK_TYPE_P1=ETH\""));
	free(rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_job_settings_after_crossflash),
		WIZARD_TEST(test_job_settings_unknown_name),
		WIZARD_TEST(test_job_settings_bad_value),
		WIZARD_TEST(test_job_settings_port_a_card_lacks),
		WIZARD_TEST(test_job_settings_firmware_not_started),
		WIZARD_TEST(test_job_settings_alone),
		WIZARD_TEST(test_job_settings_connectx2),
	};
	return RUN_WIZARD_TESTS(tests);
}
