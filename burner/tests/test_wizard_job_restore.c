/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_job_restore.c — job=restore (rescue/job_restore.c), whole sessions on the rig
 * (tests/support/wizard_rig.h): a bundle written back onto the one card it fits (a card in
 * recovery mode, its identity unreadable; a readable card with its node GUID), refused for
 * two candidates until card= names one, for none, for a bundle without an image, without
 * yes=1, and where it would need an answer. */

#include <stdio.h>
#include <string.h>

#include "card_image.h"
#include "wizard_checks.h"
#include "wizard_rig.h"
#include "wizard_upload.h"

/* The unbrick of a PXE node: the server's copy of its backup (fetched into backups/, as
 * pxe.sh does) written back onto the card in recovery mode, without a question (its identity
 * cannot be read). The backup made first is uploaded before anything is written, and the
 * report names both. */
static void test_job_restore_unbricks_recovery_card(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	struct backup_result b;
	struct first_write fw = {.r = r};
	char upload[128], bk[BACKUP_PATH_MAX], val[BACKUP_PATH_MAX];
	size_t n;
	int equal;

	const uint8_t *orig = keep_flash(r, c, &n);
	backup_outside(r, c, &b);
	brick(c);
	const uint8_t *wiped = watch_flash(r, c, &n);
	watch_first_write(c, &fw);
	upload_script(r, 0, upload, sizeof(upload));
	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;
	r->o.upload_cmd = upload;

	int rc = run(r, "");
	watch_first_write(c, NULL);
	expect_rc(r, rc, CX_OK);
	expect_said(r, "card 0000:01:00.0: ok: the backup ");
	expect_said(r, "the server holds the backup");
	expect_said(r, "The job is done: powering off.");
	expect_not_said(r, "not allowed");
	/* The card: the bundle's flash, byte for byte; it boots as the node it was. */
	expect_flash_is_bundle(c, b.path);
	assert_memory_equal(cxsim_flash(c, &(size_t){0}), orig, n);
	assert_true(cxsim_counters(c)->bytes_programmed > 0);
	expect_boots(c, HP_PSID, 40, 5030, G_A, M_A);
	/* The upload came before the first change to the flash, and held the card as it was. */
	assert_true(fw.changes > 0);
	assert_int_equal(fw.uploads_before, 1);
	expect_uploaded(r, wiped, n);

	char *rep = report_text(r);
	report_value(rep, NULL, "job", val, sizeof(val));
	assert_string_equal(val, "restore");
	report_value(rep, NULL, "bundle", val, sizeof(val));
	assert_string_equal(val, b.name);
	report_value(rep, NULL, "result", val, sizeof(val));
	assert_string_equal(val, "ok");
	expect_card_result(rep, "0000:01:00.0", "ok");
	assert_non_null(strstr(rep, "\"recovery\":true"));
	report_backup(rep, "0000:01:00.0", bk, sizeof(bk));
	free(rep);
	/* The backup the report names: made before the write (the wiped flash), in the wizard's
	 * backups, and the one the upload command was given. */
	assert_non_null(strstr(bk, "/data/backups/"));
	expect_bundle_flash(bk, wiped, n);
	expect_upload_of(r, bk);
	assert_int_equal(bundles(r, wiped, n, &equal), 2); /* the node's own, and the one made first */
	assert_int_equal(equal, 1);
	assert_string_not_equal(bk, b.path);
	expect_history(r, 1, "\"action\":\"unbrick\"", "\"result\":\"ok\"", b.name);
}

/* Of two readable cards the bundle goes onto the one with its node GUID (changed firmware,
 * same identity); the other is left alone. after=exit: the wizard returns 0, no menu. */
static void test_job_restore_by_node_guid_after_exit(void **state)
{
	struct rig *r = *state;
	struct backup_result b;
	char val[BACKUP_PATH_MAX];
	size_t n, m;

	struct cxsim_card *other = old_stock_card(r);
	struct cxsim_card *c = hp_card(r);
	server_bundle(r, 1, &b);
	char opts[200];
	snprintf(opts, sizeof(opts), OLD_STOCK_OPTS " --guid %016llx --mac %012llx", (unsigned long long)G_A,
		 (unsigned long long)M_A);
	card_install(c, opts, 0); /* the node ran other firmware since */
	const uint8_t *changed = watch_flash(r, c, &n), *keep = watch_flash(r, other, &m);
	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;
	r->o.exit_after_job = true;

	expect_run(r, "8\n", CX_OK); /* 8: the menu's power off, were the menu shown */
	expect_said(r, "card 0000:01:00.0: nothing-to-do: not the card of the bundle");
	expect_said(r, "card 0000:02:00.0: ok: the backup ");
	expect_said(r, "The job is done.");
	expect_not_said(r, "powering off");
	expect_not_said(r, "Choose 1-");
	expect_not_said(r, "Powering off.");
	assert_true(cxsim_counters(c)->bytes_programmed > 0);
	expect_flash_is_bundle(c, b.path);
	expect_boots(c, HP_PSID, 40, 5030, G_A, M_A);
	expect_untouched(other, keep, m);
	char *rep = report_text(r);
	report_value(rep, NULL, "bundle", val, sizeof(val));
	assert_string_equal(val, b.name);
	expect_card_result(rep, "0000:01:00.0", "nothing-to-do");
	expect_card_result(rep, "0000:02:00.0", "ok");
	report_backup(rep, "0000:02:00.0", val, sizeof(val));
	expect_bundle_flash(val, changed, n);
	free(rep);
	expect_history(r, 1, "\"action\":\"restore\"", "\"result\":\"ok\"", "\"bdf\":\"0000:02:00.0\"");
}

/* Two cards in recovery mode could both take the bundle: nothing is written until card=
 * names one; then only that one is written. */
static void test_job_restore_two_candidates_need_card(void **state)
{
	struct rig *r = *state;
	struct backup_result b;
	size_t n, m;
	int equal;

	struct cxsim_card *c1 = hp_card(r);
	struct cxsim_card *c2 = add_card(r, HP_OPTS, HP_SUBSYS_VENDOR, HP_SUBSYS_DEVICE, G_B, M_B);
	server_bundle(r, 0, &b);
	brick(c1);
	brick(c2);
	const uint8_t *w1 = watch_flash(r, c1, &n), *w2 = watch_flash(r, c2, &m);
	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;

	expect_run(r, "", CX_EDECLINED); /* the wizard stayed up; then the input ended */
	expect_said(r, "2 cards could take the bundle of ConnectX-3 0002c90300c0ffe0: name one with cxrescue.card=");
	expect_said(r, "The job did not complete");
	expect_untouched(c1, w1, n);
	expect_untouched(c2, w2, m);
	assert_int_equal(bundles(r, NULL, 0, &equal), 0); /* not even a backup */
	assert_int_equal(pending_count(r), 0);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "refused");
	expect_card_result(rep, "0000:02:00.0", "refused");
	assert_non_null(strstr(rep, "\"result\":\"failed\""));
	free(rep);

	drop_reports(r);
	r->o.job_card = "01:00.0";
	expect_run(r, "", CX_OK);
	expect_said(r, "card 0000:01:00.0: ok: the backup ");
	expect_flash_is_bundle(c1, b.path);
	expect_boots(c1, HP_PSID, 40, 5030, G_A, M_A);
	expect_untouched(c2, w2, m);
	rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "ok");
	assert_null(strstr(rep, "0000:02:00.0"));
	free(rep);
}

/* No chosen card fits: a readable ConnectX-3 with another node GUID, a ConnectX-2 in
 * recovery mode (its identity unreadable, but another family). Nothing is written. */
static void test_job_restore_no_card_fits(void **state)
{
	struct rig *r = *state;
	struct backup_result b;
	char opts[200];
	size_t n, m;
	int equal;

	struct cxsim_card *c1 = hp_card(r);
	server_bundle(r, 0, &b);
	snprintf(opts, sizeof(opts), HP_OPTS " --guid %016llx --mac %012llx", (unsigned long long)G_B,
		 (unsigned long long)M_B);
	card_install(c1, opts, 0); /* another card in the slot now */
	struct cxsim_card *c2 = add_chip_card(r, CXSIM_CX2, NULL);
	brick(c2);
	assert_int_equal(cxsim_pci_device_now(c2), 0x191);
	const uint8_t *f1 = watch_flash(r, c1, &n), *f2 = watch_flash(r, c2, &m);
	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;

	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "no chosen card takes the bundle of ConnectX-3 0002c90300c0ffe0");
	expect_untouched(c1, f1, n);
	expect_untouched(c2, f2, m);
	assert_int_equal(bundles(r, NULL, 0, &equal), 0);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "refused");
	expect_card_result(rep, "0000:02:00.0", "refused");
	free(rep);
}

/* job=restore writes only with yes=1, and never a bundle without a firmware image (the
 * card would stay in recovery mode). */
static void test_job_restore_needs_yes_and_an_image(void **state)
{
	struct rig *r = *state;
	struct backup_result good, empty;
	char val[BACKUP_NAME_MAX];
	size_t n;
	int equal;

	struct cxsim_card *c = hp_card(r);
	server_bundle(r, 0, &good);
	brick(c);
	server_bundle(r, 0, &empty);
	assert_false(empty.have_image);
	const uint8_t *wiped = watch_flash(r, c, &n);
	r->o.job = JOB_RESTORE;
	r->o.bundle = good.path;
	r->o.yes = false;

	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "the restore job writes cards: it needs cxrescue.yes=1");
	expect_untouched(c, wiped, n);

	r->o.bundle = empty.path;
	r->o.yes = true;
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: refused: the bundle ");
	expect_said(r, "holds no firmware image");
	expect_untouched(c, wiped, n);
	assert_int_equal(bundles(r, NULL, 0, &equal), 0);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "refused");
	report_value(rep, NULL, "bundle", val, sizeof(val));
	assert_string_equal(val, empty.name);
	free(rep);
}

/* Only the question about an unreadable identity is taken as answered: a bundle whose image
 * is not failsafe still asks, and unattended that is a refusal before anything is written. */
static void test_job_restore_other_questions_refuse(void **state)
{
	struct rig *r = *state;
	struct backup_result b;
	size_t n;
	int equal;

	struct cxsim_card *c = add_card(r, HP_OPTS " --no-failsafe", HP_SUBSYS_VENDOR, HP_SUBSYS_DEVICE, G_A, M_A);
	server_bundle(r, 0, &b);
	assert_true(b.have_image);
	brick(c);
	const uint8_t *wiped = watch_flash(r, c, &n);
	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;

	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: failed: unattended, not allowed: ");
	expect_said(r, "not failsafe");
	expect_not_said(r, "identity cannot be compared");
	expect_untouched(c, wiped, n);
	assert_int_equal(bundles(r, NULL, 0, &equal), 0); /* refused before the backup */
	assert_int_equal(pending_count(r), 0);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "failed");
	free(rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_job_restore_unbricks_recovery_card),
		WIZARD_TEST(test_job_restore_by_node_guid_after_exit),
		WIZARD_TEST(test_job_restore_two_candidates_need_card),
		WIZARD_TEST(test_job_restore_no_card_fits),
		WIZARD_TEST(test_job_restore_needs_yes_and_an_image),
		WIZARD_TEST(test_job_restore_other_questions_refuse),
	};
	return RUN_WIZARD_TESTS(tests);
}
