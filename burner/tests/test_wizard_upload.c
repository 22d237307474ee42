/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_upload.c — $CXR_UPLOAD: every backup uploaded before the first write
 * (rescue/write_upload.c), and after=exit, whole sessions on the rig
 * (tests/support/wizard_rig.h, the upload command's stand-in: wizard_upload.h). Nothing is
 * written when a backup did not reach the server (a restore, a burn, a menu write) unless
 * upload=optional; the upload command starts with no signal blocked; after=exit returns the
 * job's code, also when the job cannot run. */

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "scratch.h"
#include "wizard_checks.h"
#include "wizard_rig.h"
#include "wizard_upload.h"

/* The backup before a restore did not reach the server: nothing is written; the backup is
 * kept and the report names it. */
static void test_upload_failed_restore_writes_nothing(void **state)
{
	struct rig *r = *state;
	struct backup_result b;
	char upload[128], bk[BACKUP_PATH_MAX];
	size_t n;
	int equal;

	struct cxsim_card *c = hp_card(r);
	server_bundle(r, 0, &b);
	brick(c);
	const uint8_t *wiped = watch_flash(r, c, &n);
	upload_script(r, 1, upload, sizeof(upload));
	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;
	r->o.upload_cmd = upload;

	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "did not reach the server (the upload failed with status 1)");
	expect_said(r, "nothing is written to the card");
	expect_not_said(r, "Writing the backup onto");
	expect_untouched(c, wiped, n);
	assert_int_equal(pending_count(r), 0);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "failed");
	assert_non_null(strstr(rep, "did not reach the server"));
	report_backup(rep, "0000:01:00.0", bk, sizeof(bk));
	free(rep);
	expect_bundle_flash(bk, wiped, n);
	assert_int_equal(bundles(r, wiped, n, &equal), 1);
	assert_int_equal(equal, 1);
	expect_upload_of(r, bk);
	expect_history(r, 0, "\"action\":\"unbrick\"", "\"result\":\"ok\"", NULL);
}

/* The same for a burn (job=update), with an upload command that does not exist. */
static void test_upload_missing_command_refuses_burn(void **state)
{
	struct rig *r = *state;
	const uint8_t *hp, *stock;
	size_t n;
	char upload[128], bk[BACKUP_PATH_MAX];
	int equal;

	two_cards(r, &hp, &stock, &n);
	snprintf(upload, sizeof(upload), "%s/no-such-upload", r->root);
	r->o.job = JOB_UPDATE;
	r->o.job_card = "02:00.0";
	r->o.upload_cmd = upload;

	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "could not be run");
	expect_said(r, "card 0000:02:00.0: failed: ");
	expect_not_said(r, "Writing stock.bin onto");
	expect_untouched(r->cards[1], stock, n);
	expect_untouched(r->cards[0], hp, n);
	assert_int_equal(pending_count(r), 0);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:02:00.0", "failed");
	report_backup(rep, "0000:02:00.0", bk, sizeof(bk));
	free(rep);
	expect_bundle_flash(bk, stock, n);
	assert_int_equal(bundles(r, stock, n, &equal), 1);
	assert_int_equal(equal, 1);
	expect_history(r, 0, "\"action\":\"update\"", "\"result\":\"ok\"", NULL);
}

/* A burn waits for the upload: the server got the card's flash as it was, before the first
 * write; the upload command was given the bundle the report names. */
static void test_upload_before_burn(void **state)
{
	struct rig *r = *state;
	const uint8_t *hp, *stock;
	size_t n;
	char upload[128], bk[BACKUP_PATH_MAX];
	struct first_write fw = {.r = r};

	two_cards(r, &hp, &stock, &n);
	upload_script(r, 0, upload, sizeof(upload));
	watch_first_write(r->cards[1], &fw);
	r->o.job = JOB_UPDATE;
	r->o.job_card = "02:00.0";
	r->o.upload_cmd = upload;

	int rc = run(r, "");
	watch_first_write(r->cards[1], NULL);
	expect_rc(r, rc, CX_OK);
	expect_said(r, "card 0000:02:00.0: ok: stock.bin written and verified");
	expect_boots(r->cards[1], STOCK_PSID, 42, 5000, G_B, M_B);
	assert_true(fw.changes > 0);
	assert_int_equal(fw.uploads_before, 1);
	expect_uploaded(r, stock, n);
	char *rep = report_text(r);
	report_backup(rep, "0000:02:00.0", bk, sizeof(bk));
	free(rep);
	expect_bundle_flash(bk, stock, n);
	expect_upload_of(r, bk);
	expect_untouched(r->cards[0], hp, n);
}

/* upload=optional: a failed upload is a WARNING, and the write goes on. */
static void test_upload_optional_goes_on(void **state)
{
	struct rig *r = *state;
	const uint8_t *hp, *stock;
	size_t n;
	char upload[128], bk[BACKUP_PATH_MAX];

	two_cards(r, &hp, &stock, &n);
	upload_script(r, 1, upload, sizeof(upload));
	r->o.job = JOB_UPDATE;
	r->o.job_card = "02:00.0";
	r->o.upload_cmd = upload;
	r->o.upload_optional = true;

	expect_run(r, "", CX_OK);
	expect_said(r, "WARNING: the backup did not reach the server (the upload failed with status 1); "
		       "upload=optional: going on");
	expect_said(r, "card 0000:02:00.0: ok: stock.bin written and verified");
	expect_boots(r->cards[1], STOCK_PSID, 42, 5000, G_B, M_B);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:02:00.0", "ok");
	report_backup(rep, "0000:02:00.0", bk, sizeof(bk));
	free(rep);
	expect_bundle_flash(bk, stock, n);
	expect_upload_of(r, bk);
}

/* From the menu too: the backups are uploaded, and a write whose backup did not reach the
 * server writes nothing. */
static void test_upload_failed_menu_write(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	char upload[128];
	size_t n;
	int equal;

	const uint8_t *orig = watch_flash(r, c, &n);
	upload_script(r, 3, upload, sizeof(upload));
	r->o.upload_cmd = upload;

	/* 1 back up all, 2 update, the word; then the input ends. */
	expect_run(r, "1\n2\nFLASH\n", CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: backup FAILED: the backup ");
	expect_said(r, "the upload failed with status 3");
	expect_said(r, "*** FAILED: ");
	expect_not_said(r, "Power off for a cold restart");
	expect_untouched(c, orig, n);
	/* One bundle, kept if not uploaded; the write found it equal to the card and offered it to
	 * the server again (the second call), which refused it again. */
	assert_int_equal(upload_calls(r, NULL, 0), 2);
	assert_int_equal(bundles(r, orig, n, &equal), 1);
	assert_int_equal(equal, 1);
	assert_int_equal(pending_count(r), 0);
	expect_history(r, 0, "\"action\":\"crossflash\"", "\"result\":\"ok\"", NULL);
}

/* job=backup with an upload that fails, after=exit: the job's failure code, not the menu;
 * the backup written is in the report. */
static void test_upload_failed_backup_job_after_exit(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	char upload[128], bk[BACKUP_PATH_MAX], val[32];
	size_t n;

	const uint8_t *orig = watch_flash(r, c, &n);
	upload_script(r, 1, upload, sizeof(upload));
	r->o.job = JOB_BACKUP;
	r->o.upload_cmd = upload;
	r->o.exit_after_job = true;

	expect_run(r, "8\n", CX_EDECLINED); /* 8: the menu's power off, were the menu shown */
	expect_said(r, "The job did not complete");
	expect_not_said(r, "Choose 1-");
	expect_not_said(r, "The wizard stays up");
	expect_not_said(r, "Powering off.");
	expect_untouched(c, orig, n);
	char *rep = report_text(r);
	report_value(rep, NULL, "result", val, sizeof(val));
	assert_string_equal(val, "failed");
	expect_card_result(rep, "0000:01:00.0", "failed");
	assert_non_null(strstr(rep, "did not reach the server"));
	report_backup(rep, "0000:01:00.0", bk, sizeof(bk));
	assert_null(strstr(rep, "\"bundle\""));
	free(rep);
	expect_bundle_flash(bk, orig, n);
	assert_int_equal(upload_calls(r, NULL, 0), 1);
	expect_uploaded(r, orig, n);
}

/* after=exit when the job cannot even run (another console holds the lock): that code. */
static void test_after_exit_lock_busy(void **state)
{
	struct rig *r = *state;
	struct session other;

	hp_card(r);
	lock_elsewhere(r, &other);
	r->o.job = JOB_INVENTORY;
	r->o.exit_after_job = true;

	int rc = run(r, "8\n");
	session_close(&other);
	expect_rc(r, rc, CX_EBUSY);
	expect_said(r, "the job did not run");
	expect_not_said(r, "Choose 1-");
	expect_not_said(r, "Powering off.");
}

/* The upload command must not start with SIGINT, SIGTERM, SIGHUP and SIGQUIT blocked. The
 * wizard defers them while a card is open (util/signals.h), and the upload runs then; a
 * blocked mask survives exec, so the command's own `timeout 120 tftp ...` (BusyBox timeout
 * sends SIGTERM) could never end a stuck transfer, and neither Ctrl-C on the console nor
 * /init's SIGTERM at power-off would reach it. The command is a bash script: bash keeps the
 * mask it was started with, as BusyBox ash does (dash, /bin/sh here, clears it). */
static void test_upload_signals_not_blocked(void **state)
{
	struct rig *r = *state;
	char upload[128], seen[128], text[512];
	const unsigned long long deferred = 1ull << (SIGHUP - 1) | 1ull << (SIGINT - 1) | 1ull << (SIGQUIT - 1) |
					    1ull << (SIGTERM - 1);
	sigset_t now;

	hp_card(r);
	snprintf(upload, sizeof(upload), "%s/upload-mask", r->root);
	snprintf(seen, sizeof(seen), "%s/sigblk", r->root);
	/* Builtins only: a forked sed reads bash's own mask while bash blocks SIGINT, SIGTERM and
	 * SIGCHLD around its fork and wait (seen: SigBlk 0x14002), which is not what we exec'd. */
	snprintf(text, sizeof(text), "#!/usr/bin/env bash\nwhile read -r k v; do [ \"$k\" = SigBlk: ] && "
		 "printf '%%s\\n' \"$v\" > '%s'; done < /proc/$$/status\nexit 0\n", seen);
	write_text(upload, text);
	assert_int_equal(chmod(upload, 0755), 0);
	/* Not blocked here, before the wizard opens a card. */
	assert_int_equal(sigprocmask(SIG_BLOCK, NULL, &now), 0);
	assert_false(sigismember(&now, SIGTERM) || sigismember(&now, SIGINT));
	r->o.job = JOB_BACKUP;
	r->o.upload_cmd = upload;

	expect_run(r, "", CX_OK);
	expect_said(r, "the server holds the backup");
	char *mask = read_text(seen);
	assert_non_null(mask);
	unsigned long long m = strtoull(mask, NULL, 16);
	if (m & deferred)
		fail_msg("the upload command started with signals blocked: SigBlk %.16s (SIGHUP, SIGINT, SIGQUIT, "
			 "SIGTERM are 0x4007)", mask);
	free(mask);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_upload_failed_restore_writes_nothing),
		WIZARD_TEST(test_upload_missing_command_refuses_burn),
		WIZARD_TEST(test_upload_before_burn),
		WIZARD_TEST(test_upload_optional_goes_on),
		WIZARD_TEST(test_upload_failed_menu_write),
		WIZARD_TEST(test_upload_failed_backup_job_after_exit),
		WIZARD_TEST(test_after_exit_lock_busy),
		WIZARD_TEST(test_upload_signals_not_blocked),
	};
	return RUN_WIZARD_TESTS(tests);
}
