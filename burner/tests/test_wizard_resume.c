/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_resume.c — a write a power cut interrupted, found at the next start (the job
 * records of rescue/pending.h; rescue/flow_resume.c), whole sessions on the rig
 * (tests/support/wizard_rig.h): a cross-flash finished; an unbrick written again with the
 * identity its record names (the sticker's, the damaged flash's, a backup's); a restore
 * written again; declined, the record dropped; another console holding the session lock (its
 * write, if running, is not offered). */

#include <stdio.h>

#include "wizard_checks.h"
#include "wizard_rig.h"

/* A cross-flash the power cut interrupted: the next start offers to finish it, and does. */
static void test_pending_finished(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);

	pend(r, "crossflash", G_A, r->stock, true, "card");
	expect_run(r, "y\nFLASH\n\n\n", CX_OK);
	expect_said(r, "The crossflash of card 0000:01:00.0 (started 2026-11-24T10:46:00Z");
	expect_said(r, "was INTERRUPTED");
	expect_said(r, "Finish the job now");
	expect_said(r, "== crossflash: card 0000:01:00.0");
	expect_said(r, "Power off for a cold restart");
	expect_not_said(r, "FAILED");
	expect_not_said(r, "what next?"); /* straight to the power-off screen */
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);

	int np;
	struct pending *v = records(r, &np);
	assert_int_equal(np, 1);
	assert_string_equal(v[0].state, "written");
	free(v);
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"ok\"", NULL);
}

/* An interrupted unbrick whose job record names its identity as id: the wiped card is
 * written again with the sticker's values (STICKER_G, STICKER_M). */
static void resume_unbrick(struct rig *r, const char *id)
{
	struct cxsim_card *c = hp_with_stock(r);

	brick(c);
	pend(r, "unbrick", 0, r->stock, true, id);
	expect_run(r, "y\nFLASH\n\n", CX_OK);
	expect_said(r, "The card is in recovery mode now.");
	expect_said(r, "identity: node GUID 0002c90300123450");
	expect_said(r, "REMOVE IT now");
	expect_not_said(r, "FAILED");
	expect_boots(c, STOCK_PSID, 42, 5000, STICKER_G, STICKER_M);
}

/* An unbrick from the sticker a power cut interrupted: the same values go on the card. */
static void test_pending_sticker_unbrick(void **state)
{
	char id[64];

	snprintf(id, sizeof(id), "sticker:%016llx,%012llx", (unsigned long long)STICKER_G,
		 (unsigned long long)STICKER_M);
	resume_unbrick(*state, id);
}

/* The same with the values an unbrick kept from the damaged flash: the record holds them,
 * since the interrupted burn may have erased the section they came from (here: all of it). */
static void test_pending_damaged_image_unbrick(void **state)
{
	char id[160];

	snprintf(id, sizeof(id), PENDING_DAMAGED_FMT, (unsigned long long)STICKER_G, (unsigned long long)STICKER_G + 1,
		 (unsigned long long)STICKER_G + 2, (unsigned long long)STICKER_G + 3, (unsigned long long)STICKER_M,
		 (unsigned long long)STICKER_M + 1);
	resume_unbrick(*state, id);
}

/* The same with the GUIDs/MACs of a backup. */
static void test_pending_bundle_identity_unbrick(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	struct backup_result b;
	char id[BACKUP_PATH_MAX + 16];

	backup_outside(r, c, &b);
	brick(c);
	snprintf(id, sizeof(id), "bundle:%s", b.path);
	pend(r, "unbrick", 0, r->stock, true, id);

	expect_run(r, "y\nFLASH\n\n", CX_OK);
	expect_said(r, "identity: node GUID 0002c90300c0ffe0");
	expect_not_said(r, "FAILED");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
}

/* A restore the power cut interrupted is a restore again, of the same bundle. */
static void test_pending_restore(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	struct backup_result b;
	char id[BACKUP_PATH_MAX + 16];
	size_t n, m;

	const uint8_t *orig = keep_flash(r, c, &n);
	backup_outside(r, c, &b);
	brick(c);
	snprintf(id, sizeof(id), "bundle:%s", b.path);
	pend(r, "unbrick", 0, b.path, false, id);

	expect_run(r, "y\nFLASH\n\n", CX_OK);
	expect_said(r, "== unbrick: card 0000:01:00.0");
	expect_said(r, "OK: the backup is on the flash");
	expect_not_said(r, "FAILED");
	const uint8_t *now = cxsim_flash(c, &m);
	assert_int_equal(m, n);
	assert_memory_equal(now, orig, n);
	expect_boots(c, HP_PSID, 40, 5030, G_A, M_A);
}

/* Declined: the record is dropped, nothing is written. */
static void test_pending_declined(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n;

	pend(r, "update", G_A, r->stock, true, "card");
	const uint8_t *orig = watch_flash(r, c, &n);

	expect_run(r, "n\n", CX_EDECLINED);
	expect_said(r, "Left as it is; the record is dropped");
	expect_untouched(c, orig, n);
	assert_int_equal(pending_count(r), 0);
}

/* Another console holds the session lock: this one neither finishes the job nor writes
 * from the menu nor powers off under it. */
/* The HP card with its crossflash record left "writing", while another console holds the
 * session lock: the flash as it is now goes in *orig. */
static struct cxsim_card *pending_while_locked(struct rig *r, struct session *other, const uint8_t **orig,
					       size_t *n)
{
	struct cxsim_card *c = hp_with_stock(r);

	lock_elsewhere(r, other);
	pend(r, "crossflash", G_A, r->stock, true, "card");
	*orig = watch_flash(r, c, n);
	return c;
}

static void test_lock_held_elsewhere(void **state)
{
	struct rig *r = *state;
	struct session other;
	const uint8_t *orig;
	size_t n;
	struct cxsim_card *c = pending_while_locked(r, &other, &orig, &n);

	expect_run(r, "y\nFLASH\n\n2\nFLASH\n\n8\n", CX_EDECLINED);
	expect_said(r, "the wizard is busy on ttyS0");
	expect_not_said(r, "Powering off.");
	expect_untouched(c, orig, n);
	assert_int_equal(bundles(r, NULL, 0, &(int){0}), 0);

	/* Once the other console is done, the job is offered here. */
	session_close(&other);
	expect_run(r, "y\nFLASH\n\n\n", CX_OK);
	expect_said(r, "was INTERRUPTED");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
}

/* A write another console is running when this one starts: its record says "writing", as
 * an interrupted one does, but the session lock is held. Not offered, and nothing written. */
static void test_write_running_elsewhere_not_offered(void **state)
{
	struct rig *r = *state;
	struct session other;
	const uint8_t *orig;
	size_t n;
	struct cxsim_card *c = pending_while_locked(r, &other, &orig, &n);

	expect_run(r, "8\n", CX_EDECLINED);
	expect_said(r, "is not settled, and another console holds the session lock");
	expect_not_said(r, "INTERRUPTED");
	expect_not_said(r, "Finish the job now");
	expect_untouched(c, orig, n);
	assert_int_equal(pending_count(r), 1);
	session_close(&other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_pending_finished),
		WIZARD_TEST(test_pending_sticker_unbrick),
		WIZARD_TEST(test_pending_damaged_image_unbrick),
		WIZARD_TEST(test_pending_bundle_identity_unbrick),
		WIZARD_TEST(test_pending_restore),
		WIZARD_TEST(test_pending_declined),
		WIZARD_TEST(test_lock_held_elsewhere),
		WIZARD_TEST(test_write_running_elsewhere_not_offered),
	};
	return RUN_WIZARD_TESTS(tests);
}
