/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_steps.c — the steps every write of the wizard goes through before it writes,
 * seen from the menu's cross-flash (whole sessions on the rig, tests/support/wizard_rig.h):
 *
 *   the read-only probe before the first write (rescue/step_probe.c): a write-protected
 *     flash (and a lockdown file, on the first screen too) shown before the typed word;
 *     declined, nothing written; a healthy card, nothing shown;
 *   the backup before a write (rescue/step_backup.c): none can be made, nothing is written;
 *     a bundle equal to the card's flash is taken as the write's backup (one whole read),
 *     a changed flash or a damaged bundle gets a new one;
 *   and the history line after it (rescue/step_record.c), written inside the write's run: a
 *     SIGTERM during the write leaves "interrupted", and the job record stays "writing". */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scratch.h"
#include "sim_cfg.h"
#include "util/fileio.h"
#include "wizard_checks.h"
#include "wizard_rig.h"

/* A write-protected flash: the probe's finding is on the screen before the typed word,
 * and the user, warned, declines: nothing is written. A lockdown file shows on the first
 * screen. */
static void test_probe_finding_before_the_word(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	char lock[200];
	size_t n;

	cxsim_params_mut(c)->write_protect = true;
	cxsim_power_cycle(c);
	snprintf(lock, sizeof(lock), "%s/lockdown", r->root);
	write_text(lock, "none [integrity] confidentiality\n");
	setenv("CXFLASH_LOCKDOWN_FILE", lock, 1);
	const uint8_t *orig = watch_flash(r, c, &n);

	int rc = run(r, "2\nno\n");
	unsetenv("CXFLASH_LOCKDOWN_FILE");
	expect_rc(r, rc, CX_EDECLINED);
	size_t lockdown = said_at(r, "WARNING: the kernel is locked down: Secure Boot's lockdown (integrity) forbids");
	assert_true(lockdown < said_at(r, "== Mellanox ConnectX cards in this machine ==") + 60);
	size_t checked = said_at(r, "Before writing, card 0000:01:00.0 was checked (read-only); it found:");
	size_t finding = said_at(r, "  PROBLEM protection: status register 0x");
	size_t verdict = said_at(r, "The card is NOT safe to write (2 problems above)");
	size_t word = said_at(r, "Type " "FLASH" " to write the card");
	assert_true(said_at(r, "== crossflash: card 0000:01:00.0") < checked);
	assert_true(checked < finding && finding < verdict && verdict < word);
	said_at(r, "  PROBLEM lockdown: Secure Boot's lockdown (integrity)");
	expect_said(r, "cancelled: nothing written");
	expect_untouched(c, orig, n);
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"declined\"", NULL);
}

/* A healthy card: the probe finds nothing to say, and the session goes on as before. */
static void test_probe_quiet_on_a_healthy_card(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n;

	const uint8_t *orig = watch_flash(r, c, &n);
	expect_run(r, "2\nno\n", CX_EDECLINED);
	said_at(r, "Type " "FLASH" " to write the card");
	expect_not_said(r, "Before writing, card");
	expect_not_said(r, "locked down");
	expect_untouched(c, orig, n);
}

/* The backup before a write cannot be made: nothing is written, the wizard stays up. */
static void test_no_backup_no_write(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	char path[256];
	size_t n;

	snprintf(path, sizeof(path), "%s/backups", r->data);
	write_text(path, "not a folder\n");
	const uint8_t *orig = watch_flash(r, c, &n);

	expect_run(r, "2\nFLASH\n", CX_EDECLINED);
	expect_said(r, "*** FAILED: ");
	expect_said(r, "*** The wizard stays up; nothing is powered off.");
	expect_not_said(r, "Power off for a cold restart");
	expect_untouched(c, orig, n);
	expect_history(r, 0, "\"result\":\"ok\"", NULL, NULL);
	assert_int_equal(pending_count(r), 0);
}

/* Backed up in one session, cross-flashed in the next: the write reads the flash once (its
 * model's bytes read: one whole flash, plus the burn's and the inventory's small reads, never
 * the two whole reads of a new bundle), finds it equal to that bundle, says so, and records
 * that bundle as the write's backup; no second bundle. */
static void test_write_reuses_an_identical_backup(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	char name[256], said[400];
	size_t n;
	int equal;

	const uint8_t *orig = keep_flash(r, c, &n);
	expect_run(r, "1\n", CX_EDECLINED);
	only_bundle(r, name, sizeof(name));

	cxsim_counters_reset(c);
	expect_run(r, "2\nFLASH\n\n\n", CX_OK);
	uint64_t rd = cxsim_counters(c)->bytes_read;
	if (rd < n || rd >= 2 * n)
		fail_msg("%llu bytes read from a %zu-byte flash: expected one whole read", (unsigned long long)rd, n);
	snprintf(said, sizeof(said), "the card's flash equals backup %s, made at 20", name);
	expect_said(r, said);
	expect_said(r, ": not written again");
	expect_not_said(r, "backup written:");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	assert_int_equal(bundles(r, orig, n, &equal), 1);
	assert_int_equal(equal, 1);
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"ok\"", name);
}

/* The flash differs from the newest bundle by one byte outside the image: a new bundle of the
 * card as it is, from the comparing read and one more (two whole reads, not three). */
static void test_write_backs_up_a_changed_flash(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n;
	int equal;

	expect_run(r, "1\n", CX_EDECLINED);
	uint8_t *f = cxsim_flash(c, &n);
	f[n - 1] ^= 0x5a;
	cxsim_flash_changed(c);
	const uint8_t *now = watch_flash(r, c, &n);

	expect_run(r, "2\nFLASH\n\n\n", CX_OK);
	uint64_t rd = cxsim_counters(c)->bytes_read;
	if (rd < 2 * n || rd >= 3 * n)
		fail_msg("%llu bytes read from a %zu-byte flash: expected two whole reads", (unsigned long long)rd, n);
	expect_not_said(r, "not written again");
	expect_said(r, "backup written:");
	assert_int_equal(bundles(r, now, n, &equal), 2);
	assert_int_equal(equal, 1); /* the new one; the first holds the flash before the change */
}

/* The newest bundle no longer verifies (one byte of its flash.bin changed on the stick): it is
 * never taken as the write's backup; a new bundle is written. */
static void test_write_backs_up_over_a_damaged_bundle(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	char name[256], path[600];
	struct cx_status st = {0};
	uint8_t *buf;
	size_t n, len;
	int equal;

	const uint8_t *orig = keep_flash(r, c, &n);
	expect_run(r, "1\n", CX_EDECLINED);
	only_bundle(r, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/backups/%s/flash.bin", r->data, name);
	assert_int_equal(file_read(path, 64u << 20, &buf, &len, &st), CX_OK);
	buf[len / 2] ^= 0x01;
	assert_int_equal(file_write(path, buf, len, &st), CX_OK);
	free(buf);

	expect_run(r, "2\nFLASH\n\n\n", CX_OK);
	expect_not_said(r, "not written again");
	expect_said(r, "backup written:");
	assert_int_equal(bundles(r, orig, n, &equal), 2);
	assert_int_equal(equal, 1); /* the new one */
}

/* The card model raises SIGTERM once the write has programmed something (after the backup). */
static void term_once_writing(void *ctx, struct cxsim_card *card)
{
	bool *sent = ctx;

	if (!*sent && cxsim_counters(card)->bytes_programmed) {
		*sent = true;
		raise(SIGTERM);
	}
}

/* /init's SIGTERM (or Ctrl-C) in the middle of a write: the signal waits while the card is
 * open (util/signals.h), the write stops at its next safe point, and the history says
 * "interrupted" before the signal ends the process at device_close(): the wizard writes it
 * from the write procedure's after hook, inside the run (ops/write_procedure.h, step 8), not
 * after the call returns, which the process does not live to see. The job record stays
 * "writing", so the next start offers to finish the job. */
static void test_signal_during_a_write_leaves_its_history(void **state)
{
	struct rig *r = *state;
	bool sent = false;
	int np, status;

	hp_with_stock(r);
	sim_cfg_set_hook(term_once_writing, &sent);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(run(r, "2\nFLASH\n\n\n") == CX_OK ? 3 : 4); /* not reached: SIGTERM ends it */
	sim_cfg_set_hook(NULL, NULL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"interrupted\"", NULL);
	struct pending *v = records(r, &np);
	assert_int_equal(np, 1);
	assert_string_equal(v[0].state, "writing");
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_probe_finding_before_the_word),
		WIZARD_TEST(test_probe_quiet_on_a_healthy_card),
		WIZARD_TEST(test_no_backup_no_write),
		WIZARD_TEST(test_write_reuses_an_identical_backup),
		WIZARD_TEST(test_write_backs_up_a_changed_flash),
		WIZARD_TEST(test_write_backs_up_over_a_damaged_bundle),
		WIZARD_TEST(test_signal_during_a_write_leaves_its_history),
	};
	return RUN_WIZARD_TESTS(tests);
}
