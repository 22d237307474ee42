/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_jobs.c — the unattended jobs (rescue/job_run.c, job_write.c, job_report.c), whole sessions on the rig
 * (tests/support/wizard_rig.h): job=crossflash (a RISKY target refused unless allowed),
 * job=update, a writing job without yes=1, a card in recovery mode never written by a job,
 * job=backup of one card, job=inventory; job=verify before and after a cold restart, a flash
 * that contradicts the write report, a card not written, a bad expect=. Each job's report in
 * reports/ is checked as well as the cards. */

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "wizard_checks.h"
#include "wizard_rig.h"

/* job=crossflash with the real board table, which calls the HP card's cross-flash RISKY:
 * that card refused and untouched, the stock card updated; the report says which and why. */
static void test_job_risky_refused(void **state)
{
	struct rig *r = *state;
	const uint8_t *hp;
	size_t n;

	two_cards(r, &hp, NULL, &n);
	r->o.job = JOB_CROSSFLASH;
	expect_run(r, "", CX_EDECLINED); /* the wizard stayed up; then the input ended */
	expect_said(r, "library: RISKY stock.bin");
	expect_said(r, "card 0000:01:00.0: refused: stock.bin is RISKY for this card");
	expect_said(r, "card 0000:02:00.0: ok: stock.bin written and verified");
	expect_said(r, "The job did not complete");
	expect_not_said(r, "Powering off.");
	expect_untouched(r->cards[0], hp, n);
	expect_boots(r->cards[1], STOCK_PSID, 42, 5000, G_B, M_B);
	char *rep = report_text(r);
	assert_non_null(strstr(rep, "\"job\":\"crossflash\""));
	assert_non_null(strstr(rep, "\"allow_risky\":false"));
	assert_non_null(strstr(rep, "\"machine\":null"));   /* no DMI names given */
	expect_card_result(rep, "0000:01:00.0", "refused");
	expect_card_result(rep, "0000:02:00.0", "ok");
	/* The card as it was before the job. */
	assert_non_null(strstr(rep, "\"fw\":\"2.40.5030\""));
	free(rep);
	expect_history(r, 1, "\"action\":\"update\"", "\"result\":\"ok\"", "\"bdf\":\"0000:02:00.0\"");
	expect_history(r, 0, "\"bdf\":\"0000:01:00.0\"", NULL, NULL);
}

/* The same with allow_risky: both written, each backed up first, nothing asked. */
static void test_job_risky_allowed(void **state)
{
	struct rig *r = *state;
	const uint8_t *hp;
	size_t n;
	int equal;

	two_cards(r, &hp, NULL, &n);
	r->o.job = JOB_CROSSFLASH;
	r->o.allow_risky = true;
	expect_run(r, "", CX_OK);
	expect_said(r, "card 0000:01:00.0: ok: stock.bin written and verified");
	expect_said(r, "card 0000:02:00.0: ok: stock.bin written and verified");
	expect_said(r, "The job is done: powering off.");
	expect_not_said(r, "Port type and SR-IOV"); /* a job asks nothing (settings= is the job's) */
	assert_int_equal(cxsim_counters(r->cards[0])->nv_write_cmds, 0);
	expect_boots(r->cards[0], STOCK_PSID, 42, 5000, G_A, M_A);
	expect_boots(r->cards[1], STOCK_PSID, 42, 5000, G_B, M_B);
	char *rep = report_text(r);
	assert_non_null(strstr(rep, "\"result\":\"ok\",\"log\""));
	expect_card_result(rep, "0000:01:00.0", "ok");
	expect_card_result(rep, "0000:02:00.0", "ok");
	free(rep);
	assert_int_equal(bundles(r, hp, n, &equal), 2); /* one per card, before writing */
	assert_int_equal(equal, 1);
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"ok\"", "\"bdf\":\"0000:01:00.0\"");
}

/* job=update writes only an image of the card's own PSID; the write is traced. */
static void test_job_update(void **state)
{
	struct rig *r = *state;
	const uint8_t *hp;
	size_t n;

	two_cards(r, &hp, NULL, &n);
	r->o.job = JOB_UPDATE;
	expect_run(r, "", CX_OK);
	expect_said(r, "card 0000:01:00.0: nothing-to-do: no image of the card's own PSID");
	expect_said(r, "card 0000:02:00.0: ok: stock.bin written and verified");
	expect_untouched(r->cards[0], hp, n);
	expect_boots(r->cards[1], STOCK_PSID, 42, 5000, G_B, M_B);
	expect_one_trace(r, "update", "0000:02:00.0");
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "nothing-to-do");
	expect_card_result(rep, "0000:02:00.0", "ok");
	free(rep);
}

/* A writing job without yes=1 writes nothing. */
static void test_job_needs_yes(void **state)
{
	struct rig *r = *state;
	const uint8_t *hp, *stock;
	size_t n;

	two_cards(r, &hp, &stock, &n);
	r->o.job = JOB_UPDATE;
	r->o.yes = false;
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "it needs cxrescue.yes=1");
	expect_untouched(r->cards[0], hp, n);
	expect_untouched(r->cards[1], stock, n);
}

/* A card in recovery mode is never written by a job: unbricking is the menu's. */
static void test_job_refuses_recovery_card(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n;

	brick(c);
	const uint8_t *wiped = watch_flash(r, c, &n);
	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	r->o.allow_risky = true;
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: refused: the card is in recovery mode");
	expect_untouched(c, wiped, n);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "refused");
	assert_non_null(strstr(rep, "\"recovery\":true"));
	free(rep);
}

/* job=backup with card=: that card's bundle only; nothing written to either card. */
static void test_job_backup_one_card(void **state)
{
	struct rig *r = *state;
	const uint8_t *hp, *stock;
	size_t n;
	int equal;

	two_cards(r, &hp, &stock, &n);
	r->o.job = JOB_BACKUP;
	r->o.yes = false;
	r->o.job_card = "02:00.0";
	expect_run(r, "", CX_OK);
	expect_said(r, "The job is done: powering off.");
	assert_int_equal(bundles(r, stock, n, &equal), 1);
	assert_int_equal(equal, 1);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:02:00.0", "ok");
	assert_null(strstr(rep, "0000:01:00.0"));
	assert_non_null(strstr(rep, "\"card\":\"02:00.0\""));
	free(rep);
	expect_untouched(r->cards[0], hp, n);
	expect_untouched(r->cards[1], stock, n);
}

/* job=inventory: a report of both cards and of the machine, no bundle, nothing written. */
static void test_job_inventory(void **state)
{
	struct rig *r = *state;
	const uint8_t *hp, *stock;
	size_t n;
	int equal;

	two_cards(r, &hp, &stock, &n);
	r->o.job = JOB_INVENTORY;
	r->o.machine = "Dell Inc. PowerEdge R720 (BIOS 2.9.0)";
	expect_run(r, "", CX_OK);
	assert_int_equal(bundles(r, NULL, 0, &equal), 0);
	char *rep = report_text(r);
	assert_non_null(strstr(rep, "\"machine\":\"Dell Inc. PowerEdge R720 (BIOS 2.9.0)\""));
	expect_card_result(rep, "0000:01:00.0", "ok");
	expect_card_result(rep, "0000:02:00.0", "ok");
	assert_non_null(strstr(rep, "\"node_guid\":\"0002c90300c0ffe0\""));
	free(rep);
	expect_untouched(r->cards[0], hp, n);
	expect_untouched(r->cards[1], stock, n);
}

#define EXPECT_BOTH "0002c90300c0ffe0:" STOCK_PSID ":2.42.5000:2.40.5030,0002c90300b0bbb0:" STOCK_PSID ":2.42.5000:2.40.5030"

/* Both cards cross-flashed; verify before a cold restart says the old firmware runs (not
 * cold), after it says ok; nothing is ever written by verify. */
static void test_job_verify_cold_restart(void **state)
{
	struct rig *r = *state;
	const uint8_t *hp;
	size_t n, m;
	char val[200];

	two_cards(r, &hp, NULL, &n);
	r->o.job = JOB_CROSSFLASH;
	r->o.allow_risky = true;
	expect_run(r, "", CX_OK);
	clear_reports(r);
	const uint8_t *written = keep_flash(r, r->cards[0], &m);
	for (int i = 0; i < r->ncards; i++)
		cxsim_counters_reset(r->cards[i]);

	r->o.job = JOB_VERIFY;
	r->o.yes = false;
	r->o.allow_risky = false;
	r->o.exit_after_job = true;
	r->o.expect = EXPECT_BOTH;
	expect_run(r, "", CX_EDECLINED); /* a warm reboot: the cards still run 2.40.5030 */
	expect_said(r, "card 0000:01:00.0: failed: running the old firmware 2.40.5030, not the 2.42.5000 on its "
		    "flash: the restart was not cold");
	expect_said(r, "card 0000:02:00.0: failed: running the old firmware 2.40.5030");
	char *rep = report_text(r);
	report_value(rep, NULL, "job", val, sizeof(val));
	assert_string_equal(val, "verify");
	expect_card_result(rep, "0000:01:00.0", "failed");
	report_value(rep, "\"bdf\":\"0000:01:00.0\"", "running", val, sizeof(val));
	assert_string_equal(val, "2.40.5030");
	free(rep);
	for (int i = 0; i < r->ncards; i++)
		assert_int_equal(cxsim_counters(r->cards[i])->bytes_programmed, 0);

	clear_reports(r);
	for (int i = 0; i < r->ncards; i++)
		cxsim_power_cycle(r->cards[i]);
	expect_run(r, "", CX_OK);
	expect_said(r, "card 0000:01:00.0: ok: running FW 2.42.5000, the one written (" STOCK_PSID ")");
	expect_said(r, "card 0000:02:00.0: ok: running FW 2.42.5000");
	expect_said(r, "The job is done.");
	rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "ok");
	expect_card_result(rep, "0000:02:00.0", "ok");
	report_value(rep, "\"bdf\":\"0000:02:00.0\"", "running", val, sizeof(val));
	assert_string_equal(val, "2.42.5000");
	report_value(rep, "\"bdf\":\"0000:02:00.0\"", "psid", val, sizeof(val)); /* the card's, then to's */
	assert_string_equal(val, STOCK_PSID);
	assert_non_null(strstr(rep, "\"to\":{\"file\":null,\"sha256\":null,\"psid\":\"" STOCK_PSID "\",\"fw\":\"2.42.5000\"}"));
	assert_non_null(strstr(rep, "\"result\":\"ok\",\"log\""));
	free(rep);
	expect_untouched(r->cards[0], written, m);
}

/* A verify report contradicting the write report: the flash is not what was written; a card
 * the write did not name is nothing-to-do; a bad expect= checks nothing and reports nothing. */
static void test_job_verify_contradiction_and_bad_expect(void **state)
{
	struct rig *r = *state;
	const uint8_t *hp;
	size_t n;
	char dir[256];

	two_cards(r, &hp, NULL, &n);
	r->o.job = JOB_VERIFY;
	r->o.yes = false;
	r->o.exit_after_job = true;
	r->o.expect = "0002c90300b0bbb0:" STOCK_PSID ":2.42.5000:2.40.5030"; /* card 2, never written */
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: nothing-to-do: not written by the last job");
	expect_said(r, "card 0000:02:00.0: failed: the flash holds " STOCK_PSID " 2.40.5030, not the " STOCK_PSID
		    " 2.42.5000 the write report says was written");
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "nothing-to-do");
	expect_card_result(rep, "0000:02:00.0", "failed");
	free(rep);
	clear_reports(r);
	expect_untouched(r->cards[0], hp, n);

	static const char *const bad[] = {
		"0002c90300b0bbb0:" STOCK_PSID ":2.42.5000",          /* no OLD */
		"2c90300b0bbb0:" STOCK_PSID ":2.42.5000:-",           /* a short GUID */
		"0002c90300b0bbb0:" STOCK_PSID ":2.42:-",             /* not a FW version */
		"0002c90300b0bbb0:HP_0280210019_TOO_LONG:2.42.5000:-", /* a PSID of 22 letters */
		"0002c90300b0bbb0:A:2.42.5000:-,0002c90300b0bbb0:A:2.42.5000:-",
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		r->o.expect = bad[k];
		expect_run(r, "", CX_EVALUE);
		expect_said(r, "nothing checked");
		snprintf(dir, sizeof(dir), "%s/reports", r->data);
		DIR *d = opendir(dir);
		assert_non_null(d);
		int files = 0;
		for (struct dirent *de; (de = readdir(d));)
			files += de->d_name[0] != '.';
		closedir(d);
		assert_int_equal(files, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_job_risky_refused),
		WIZARD_TEST(test_job_risky_allowed),
		WIZARD_TEST(test_job_update),
		WIZARD_TEST(test_job_needs_yes),
		WIZARD_TEST(test_job_refuses_recovery_card),
		WIZARD_TEST(test_job_backup_one_card),
		WIZARD_TEST(test_job_inventory),
		WIZARD_TEST(test_job_verify_cold_restart),
		WIZARD_TEST(test_job_verify_contradiction_and_bad_expect),
	};
	return RUN_WIZARD_TESTS(tests);
}
