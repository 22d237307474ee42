/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_cx4_restore.c — the wizard writes a backup back onto a ConnectX-4 Lx (rescue/
 * flow_restore.c, step_restore.h, job=restore in job_run.c), whole sessions on the rig with the
 * HPE card of wizard_cx4_card.h:
 *
 *   in recovery mode, cross-flashed, then its bundle restored from the menu: its PSID and FW
 *     back, its device data (GUIDs, MACs) never touched, no device-data question;
 *   its firmware running, the same through the firmware;
 *   its DEV_INFO erased ("GUIDs lost"): the device-data question after the typed word, naming
 *     the base GUID and MAC before -> after; yes writes them back, no writes nothing;
 *   job=restore: the bundle onto the card after a cross-flash; a bundle whose device data
 *     differs refused without cxrescue.device_data=1 (nothing written, no backup), written
 *     with it;
 *   a bundle of another card: not offered by the menu, refused by the job, nothing written;
 *   a card with secure firmware: not offered, refused by the job.
 *
 * Judged by the card model (sim/core: its flash bytes, its counters, the image its boot ROM
 * finds), which shares no code with cxflash, and by what the wizard left on the stick. */

#include "wizard_cx4_card.h"

#define DEVINFO_AT 0x1b000u   /* the builder's DEV_INFO unit (fs3_builder.h f3_build) */
#define OTHER_GUID 0x0002c9030022bb00ull

/* The card boots the HPE image again, from slot 0, and its flash is the bundle's byte for byte. */
static void expect_restored(struct cxsim_card *c, const char *bundle)
{
	expect_flash_is_bundle(c, bundle);
	const struct cxsim_boot *b = cold_boot(c);
	assert_int_equal(b->fs, 3);
	assert_string_equal(b->psid, OEM_PSID);
	assert_int_equal(b->fw_ver[0], 14);
	assert_int_equal(b->fw_ver[1], 32);
	assert_int_equal(b->fw_ver[2], 1);
	assert_int_equal(b->slot, 0);
}

/* The card's DEV_INFO unit erased: the identity a card loses ("GUIDs lost"). */
static void lose_devinfo(struct cxsim_card *c)
{
	size_t m;
	uint8_t *f = cxsim_flash(c, &m);

	memset(f + DEVINFO_AT, 0xff, 0x1000);
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
}

/* The card as it is, cross-flashed to the stock image by the crossflash job (a bundle of it as
 * it was made first, in backups/): the path of that bundle into bundle. */
static void crossflash_first(struct rig *r, struct cxsim_card *c, const uint8_t *before, size_t n, char *bundle,
			     size_t len)
{
	char name[BACKUP_NAME_MAX];

	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	expect_run(r, "", CX_OK);
	expect_stock_devdata_kept(c, before, n);
	expect_backup_of(r, before, n);
	only_bundle(r, name, sizeof(name));
	snprintf(bundle, len, "%s/backups/%s", r->data, name);
	clear_reports(r);
	r->o.job = JOB_NONE;
	r->o.yes = false;
}

/* Menu 4 on the card in recovery mode after a cross-flash: its bundle offered (by its base
 * GUID), the plan, the word, the backup of the flash as it is now first, the write of the image
 * area only (the device data is the bundle's: no question), the power-off. */
static void test_recovery_restored_after_crossflash(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card(r, &before, &n);
	char bundle[BACKUP_PATH_MAX];
	int equal;

	crossflash_first(r, c, before, n, bundle, sizeof(bundle));
	const uint8_t *crossed = watch_flash(r, c, &n);
	expect_run(r, "4\n1\nFLASH\n1\n", CX_OK);
	expect_not_said(r, "is not in the wizard");
	expect_said(r, "Restore which backup?");
	expect_said(r, "PSID " OEM_PSID "  FW 14.32.0001  node GUID " BASE_GUID);
	expect_said(r, "== unbrick: card " BDF1 " (ConnectX-4 Lx");
	expect_said(r, "its device data, GUIDs and MACs, only if");
	size_t word = said_at(r, "Type FLASH"), bk = said_at(r, "    backup written: ");
	size_t ok = said_at(r, "card " BDF1 ": OK: the backup is on the flash, read back and verified");
	assert_true(word < bk && bk < ok && ok < said_at(r, "Powering off."));
	expect_not_said(r, "device data (its GUIDs");
	expect_not_said(r, "its device data too");
	expect_not_said(r, "FAILED");
	assert_true(cxsim_counters(c)->bytes_programmed > 0);
	expect_restored(c, bundle);
	assert_null(sc_devdata_diff(&card_img, before, cxsim_flash(c, &(size_t){0}), n));
	/* the bundle of the cross-flashed card, made before the write */
	assert_int_equal(bundles(r, crossed, n, &equal), 2);
	assert_int_equal(equal, 1);
	expect_history(r, 1, "\"action\":\"unbrick\"", "\"result\":\"ok\"", "\"psid\":\"" OEM_PSID "\"");
}

/* The same with its firmware running: the restore goes through the firmware (ICMD), the card
 * boots the HPE image after the cold restart. */
static void test_running_restored_after_crossflash(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card_mode(r, false, CXSIM_ICMD_OK, &before, &n);
	char bundle[BACKUP_PATH_MAX];

	crossflash_first(r, c, before, n, bundle, sizeof(bundle));
	cold_boot(c); /* it runs the stock image now */
	watch_flash(r, c, &n);
	expect_run(r, "4\n1\nFLASH\n1\n", CX_OK);
	expect_said(r, "its firmware runs (cxflash reaches its flash through it)");
	expect_said(r, "    offered: update / cross-flash, burn a file, restore, GUIDs/MACs, settings\n");
	expect_said(r, "== restore: card " BDF1 " (ConnectX-4 Lx");
	expect_said(r, "card " BDF1 ": OK: the backup is on the flash, read back and verified");
	expect_not_said(r, "FAILED");
	assert_true(cxsim_counters(c)->bytes_programmed > 0);
	expect_restored(c, bundle);
	expect_history(r, 1, "\"action\":\"restore\"", "\"result\":\"ok\"", NULL);
}

/* DEV_INFO erased after the backup: the card cannot say who it is. Menu 4 offers its family's
 * bundles; after the word, the device-data question (default no) names the GUID and MAC the
 * bundle gives back. No: nothing written, not even a backup; the flash byte for byte as it was.
 * Yes: the whole bundle, its device data too. */
static void test_lost_devinfo_question(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card(r, &before, &n);
	struct backup_result b;
	int equal;

	backup_outside(r, c, &b);
	lose_devinfo(c);
	const uint8_t *lost = watch_flash(r, c, &n);
	assert_memory_not_equal(lost, before, n);

	/* no (Enter: the default) */
	expect_run(r, "4\n1\nFLASH\n\n10\n", CX_OK);
	expect_said(r, "The backup's device data (its GUIDs, MACs, VPD and settings) is not the card's.");
	expect_said(r, "Write the bundle's device data onto " BDF1 " too (base GUID (none valid) ");
	expect_said(r, "-> " BASE_GUID ", base MAC ");
	expect_said(r, "-> " BASE_MAC ")? [y/N]: ");
	expect_said(r, "the backup's device data was not written back (answered no), and its firmware is not "
		       "restored without it: nothing written");
	expect_not_said(r, "backup written");
	expect_untouched(c, lost, n);
	assert_int_equal(bundles(r, NULL, 0, &equal), 1); /* the old one only */
	assert_int_equal(pending_count(r), 0);

	/* yes */
	expect_run(r, "4\n1\nFLASH\ny\n1\n", CX_OK);
	expect_said(r, "  device data: yes, written back after the firmware");
	expect_said(r, "card " BDF1 ": OK: the backup is on the flash, its device data too, read back and verified");
	expect_said(r, "    backup written: "); /* the flash without its DEV_INFO, kept first */
	expect_flash_is_bundle(c, b.path);
	assert_memory_equal(cxsim_flash(c, &(size_t){0}), before, n);
	assert_int_equal(bundles(r, lost, n, &equal), 2);
	assert_int_equal(equal, 1);
	expect_history(r, 1, "\"action\":\"unbrick\"", "\"result\":\"ok\"", b.name);
}

/* job=restore yes=1 on the card after a cross-flash: the bundle found by its base GUID, written
 * back unattended (the backup first), the report ok. */
static void test_job_restore_after_crossflash(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card(r, &before, &n);
	struct backup_result b;
	char val[BACKUP_PATH_MAX];

	server_bundle(r, 0, &b);
	char bundle[BACKUP_PATH_MAX];
	crossflash_first(r, c, before, n, bundle, sizeof(bundle));
	const uint8_t *crossed = watch_flash(r, c, &n);
	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;
	expect_run(r, "", CX_OK);
	expect_said(r, "card " BDF1 ": ok: the backup ");
	expect_said(r, "The job is done: powering off.");
	expect_not_said(r, "refused");
	expect_restored(c, b.path);
	char *rep = report_text(r);
	expect_card_result(rep, BDF1, "ok");
	report_backup(rep, BDF1, val, sizeof(val));
	free(rep);
	expect_bundle_flash(val, crossed, n);
}

/* job=restore of a bundle whose device data the card lost: refused without device_data=1 (no
 * backup, nothing written, the reason names the option); written whole with it. */
static void test_job_restore_device_data_option(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card(r, &before, &n);
	struct backup_result b;
	int equal;

	server_bundle(r, 0, &b);
	lose_devinfo(c);
	const uint8_t *lost = watch_flash(r, c, &n);
	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "card " BDF1 ": refused: the bundle's device data differs from the card's (base GUID (none "
		       "valid) ");
	expect_said(r, "cxrescue.device_data=1 on the job's command line; nothing written");
	expect_untouched(c, lost, n);
	assert_int_equal(bundles(r, NULL, 0, &equal), 0);
	assert_int_equal(pending_count(r), 0);
	char *rep = report_text(r);
	expect_card_result(rep, BDF1, "refused");
	free(rep);

	clear_reports(r);
	r->o.device_data = true;
	expect_run(r, "", CX_OK);
	expect_said(r, "(cards: all, yes=1, device_data=1)");
	expect_said(r, "  allowed by cxrescue.device_data=1: Write the bundle's device data onto " BDF1);
	expect_said(r, "card " BDF1 ": ok: the backup ");
	expect_said(r, "written back and verified, its device data too");
	expect_restored(c, b.path);
	assert_memory_equal(cxsim_flash(c, &(size_t){0}), before, n);
	assert_int_equal(bundles(r, lost, n, &equal), 1);
	assert_int_equal(equal, 1);
}

/* A bundle of another card (another base GUID): the menu offers none, the job refuses it;
 * nothing written, no backup made. */
static void test_other_cards_bundle_refused(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card(r, &before, &n);
	struct backup_result b;
	int equal;

	backup_outside(r, c, &b);
	fc_card_devdata(&card_img, OTHER_GUID); /* another HPE card in the slot now */
	sc_install(c, &card_img, 0);
	const uint8_t *other = watch_flash(r, c, &n);
	expect_run(r, "4\n10\n", CX_OK);
	expect_said(r, "there is no backup of card " BDF1 " holding firmware on the stick");
	expect_not_said(r, "Type FLASH");
	expect_untouched(c, other, n);

	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;
	r->o.device_data = true;
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "card " BDF1 ": refused: no chosen card takes the bundle of ConnectX-4 Lx " BASE_GUID);
	expect_untouched(c, other, n);
	assert_int_equal(bundles(r, NULL, 0, &equal), 1); /* backup_outside's only */
	assert_int_equal(pending_count(r), 0);
}

/* A running card with secure firmware: the menu says why and offers no card, the job refuses
 * it; nothing written, no backup. */
static void test_secure_fw_not_restored(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card_mode(r, false, CXSIM_ICMD_SECURE_FW, &before, &n);
	struct backup_result b;
	int equal;

	server_bundle(r, 0, &b);
	before = watch_flash(r, c, &n);
	expect_run(r, "4\n10\n", CX_OK);
	expect_said(r, "card " BDF1 " (ConnectX-4 Lx A0): it runs secure firmware");
	expect_said(r, "no card a backup can be written back to");
	expect_not_said(r, "Type FLASH");
	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "card " BDF1 ": refused: it runs secure firmware");
	expect_untouched(c, before, n);
	assert_int_equal(bundles(r, NULL, 0, &equal), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_recovery_restored_after_crossflash),
		WIZARD_TEST(test_running_restored_after_crossflash),
		WIZARD_TEST(test_lost_devinfo_question),
		WIZARD_TEST(test_job_restore_after_crossflash),
		WIZARD_TEST(test_job_restore_device_data_option),
		WIZARD_TEST(test_other_cards_bundle_refused),
		WIZARD_TEST(test_secure_fw_not_restored),
	};
	return RUN_WIZARD_TESTS(tests);
}
