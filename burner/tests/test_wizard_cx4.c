/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_cx4.c — the wizard on a ConnectX-4 Lx in recovery mode (rescue/wizard.h:
 * wizard_card.fs3), whole sessions on the rig (tests/support/wizard_rig.h): an HPE 640SFP28
 * (PSID HP_2420110034, an FS3 image from the tests' builder, its own device data) strapped
 * into recovery mode, the stock MCX4121A-ACAT image (MT_2420110034) in the library, the real
 * board table (its stated HPE -> Mellanox row). Cross-flashed from the menu and by the
 * crossflash job, unbricked from the menu; the boot ROM said to be not there yet (its
 * GUIDs/MACs: test_wizard_cx4_ids.c), settings said to need the running firmware, nothing
 * written; a card whose flash holds no valid image refused. Its firmware running:
 * test_wizard_cx4_running.c; its backups restored: test_wizard_cx4_restore.c.
 *
 * The card and the checks of a cross-flash: wizard_cx4_card.h. Judged by the card model
 * (sim/core: its flash array, its counters, the image its boot ROM finds, which shares no
 * code with cxflash) and by what the wizard left on the stick. */

#include "wizard_cx4_card.h"

/* Menu 2, the one card, the word, power off: the inventory, the plan, the backup first, the
 * burn, no settings screen (no firmware runs to keep them), the power-off; the next boot (the card still strapped) says what
 * its flash holds. */
static void test_cx4lx_crossflash_from_the_menu(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card(r, &before, &n);

	expect_run(r, "2\nFLASH\n1\n", CX_OK);
	expect_said(r, " 1. " BDF1 "  ConnectX-4 Lx");
	expect_said(r, "    RECOVERY MODE (flash recovery): no firmware runs; its flash holds an FS3 image\n"
		       "    PSID " OEM_PSID "  FW 14.32.0001\n"
		       "    base GUID " BASE_GUID "  base MAC " BASE_MAC " (its device data: every burn keeps them)\n");
	expect_said(r, "    backup on the stick: NONE YET\n");
	expect_said(r, "    library: OK stock-cx4lx.bin: " OEM_PSID " 14.32.1 -> " STOCK_FS3_PSID " 14.32.1010: "
		       "cross-flash, upgrade\n");
	expect_said(r, "== crossflash: card " BDF1 " (ConnectX-4 Lx");
	expect_said(r, "  from: PSID " OEM_PSID);
	expect_said(r, "  to:   PSID " STOCK_FS3_PSID);
	expect_said(r, "  identity: the card keeps its own GUIDs and MACs (base GUID " BASE_GUID ", base MAC " BASE_MAC
		       "):\n    they are its device data (DEV_INFO), which an FS3/FS4 burn never writes\n");
	expect_said(r, "  boot ROM: the card's (in its signed image) -> ");
	/* the backup is written before the first byte of the burn, and the power-off comes last */
	size_t word = said_at(r, "Type FLASH"), bk = said_at(r, "    backup written: ");
	size_t writing = said_at(r, "Writing stock-cx4lx.bin onto " BDF1), ok = said_at(r, "card " BDF1 ": OK: FW 14.32.0001");
	assert_true(word < bk && bk < writing && writing < ok);
	assert_true(ok < said_at(r, "Powering off."));
	expect_said(r, "    offered: update / cross-flash, burn a file, unbrick, restore, GUIDs/MACs; settings: once "
		       "its firmware runs\n"
		       "    not yet: boot ROM\n");
	expect_said(r, "Port type and SR-IOV: card " BDF1 " is in recovery mode, and its settings are its running "
		       "firmware's");
	expect_not_said(r, "== Port type and SR-IOV");
	/* no trace: its backup's reads through the VSEC would not fit the stick */
	expect_said(r, "  no trace of this write: on a ConnectX-4/4 Lx/5 its backup's reads would make it too large");
	char traces[256];
	snprintf(traces, sizeof(traces), "%s/traces", r->data);
	assert_int_equal(count_files(traces), 0);
	expect_not_said(r, "FAILED");
	expect_stock_devdata_kept(c, before, n);
	expect_backup_of(r, before, n);
	expect_history(r, 1, "\"action\":\"backup\"", "\"psid\":\"" OEM_PSID "\"", "\"node_guid\":\"" BASE_GUID "\"");
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"ok\"", "\"psid\":\"" STOCK_FS3_PSID "\"");
	assert_int_equal(pending_count(r), 1); /* "written": checked after the cold restart */
	/* The next boot, the card still strapped: its flash holds what was written. */
	expect_run(r, "10\n", CX_OK);
	expect_said(r, "card " BDF1 " is still in recovery mode; its flash holds " STOCK_FS3_PSID " FW 14.32.1010, as "
		       "written (crossflash): power off, remove its flash-not-present jumper, and power on to run it");
	expect_said(r, "    PSID " STOCK_FS3_PSID "  FW 14.32.1010\n");
	expect_said(r, "    backup on the stick: yes\n");
}

/* Menu 5: the card in recovery mode, the image chosen, the word: the same burn as an
 * unbrick, its device data kept, no GUIDs asked for. */
static void test_cx4lx_unbrick(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card(r, &before, &n);

	expect_run(r, "5\n1\nFLASH\n1\n", CX_OK);
	expect_said(r, "Card " BDF1 " (ConnectX-4 Lx");
	expect_said(r, "Its flash holds an FS3 image, PSID " OEM_PSID ", FW 14.32.0001, and its device data (base GUID "
		       BASE_GUID ", base MAC " BASE_MAC ").\n");
	expect_said(r, "  1. stock-cx4lx.bin (OK): ");
	expect_said(r, "== unbrick: card " BDF1);
	expect_not_said(r, "sticker");
	expect_not_said(r, "Port type and SR-IOV");
	expect_not_said(r, "FAILED");
	expect_stock_devdata_kept(c, before, n);
	expect_backup_of(r, before, n);
	expect_history(r, 1, "\"action\":\"unbrick\"", "\"result\":\"ok\"", "\"node_guid\":\"" BASE_GUID "\"");
}

/* The backup of every card is the default and takes it; then the boot ROM:
 * one line each, the card not offered; settings: the card is in recovery mode, no firmware
 * runs to keep them; nothing written, no settings command sent. */
static void test_cx4lx_not_offered(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card(r, &before, &n);

	expect_run(r, "\n7\n8\n10\n", CX_OK);
	expect_said(r, "Choose 1-10 [1]: ");
	expect_said(r, "card " BDF1 ": backed up");
	expect_backup_of(r, before, n);
	expect_said(r, "changing the boot ROM (it is in the signed image: burn the image with the ROM you want) is "
		       "not in the wizard");
	expect_not_said(r, "changing the card settings is not in the wizard");
	expect_said(r, BDF1 ": the card is in flash-recovery mode: no firmware runs to keep its settings; burn an "
		       "image first; nothing written");
	expect_untouched(c, before, n);
	assert_int_equal(cxsim_counters(c)->nv_write_cmds, 0);
}

/* job=crossflash yes=1: the same burn unattended, the backup first, the report; then
 * job=verify checks the flash of the card, still strapped. */
static void test_cx4lx_crossflash_job(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card(r, &before, &n);

	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	expect_run(r, "", CX_OK);
	expect_said(r, "card " BDF1 ": ok: stock-cx4lx.bin written and verified");
	expect_said(r, "The job is done: powering off.");
	expect_stock_devdata_kept(c, before, n);
	expect_backup_of(r, before, n);
	char *rep = report_text(r);
	expect_card_result(rep, BDF1, "ok");
	char v[64];
	report_value(rep, NULL, "psid", v, sizeof(v));
	assert_string_equal(v, OEM_PSID); /* the card as it was */
	report_value(rep, NULL, "node_guid", v, sizeof(v));
	assert_string_equal(v, BASE_GUID);
	report_value(rep, "\"to\"", "psid", v, sizeof(v));
	assert_string_equal(v, STOCK_FS3_PSID);
	free(rep);

	/* job=verify at the next boot, the card still strapped: found by its base GUID, its flash
	 * checked (no firmware runs to ask), nothing written */
	clear_reports(r);
	before = watch_flash(r, c, &n);
	r->o.job = JOB_VERIFY;
	r->o.yes = false;
	r->o.exit_after_job = true;
	r->o.expect = BASE_GUID ":" STOCK_FS3_PSID ":14.32.1010:14.32.0001";
	expect_run(r, "", CX_OK);
	expect_said(r, "card " BDF1 ": ok: the flash holds " STOCK_FS3_PSID " 14.32.1010, the one written; the card is "
		       "in recovery mode (no firmware runs): remove its flash-not-present jumper to boot it");
	rep = report_text(r);
	expect_card_result(rep, BDF1, "ok");
	free(rep);
	expect_untouched(c, before, n);
	/* another PSID than the one written: failed */
	clear_reports(r);
	r->o.expect = BASE_GUID ":" OEM_PSID ":14.32.1010:14.32.0001";
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "card " BDF1 ": failed: the flash holds " STOCK_FS3_PSID " 14.32.1010, not the " OEM_PSID);
}

/* job=restore with a bundle of the card as it is: found by its base GUID, nothing to write,
 * nothing written (restores that write: test_wizard_cx4_restore.c). */
static void test_cx4lx_restore_job_nothing_to_do(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card(r, &before, &n);
	struct backup_result b;

	server_bundle(r, 0, &b);
	before = watch_flash(r, c, &n);
	r->o.job = JOB_RESTORE;
	r->o.yes = true;
	r->o.bundle = b.path;
	expect_run(r, "", CX_OK);
	expect_said(r, "card " BDF1 ": its flash already equals the backup: nothing written");
	expect_said(r, "card " BDF1 ": ok: the backup ");
	expect_untouched(c, before, n);
}

/* A ConnectX-4 Lx in recovery mode whose flash holds no valid image: said on the inventory,
 * backed up by "Back up all", refused by Unbrick and by a job, nothing written. */
static void test_cx4lx_without_image(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card(r, &before, &n);
	size_t m;

	uint8_t *f = cxsim_flash(c, &m);
	memset(f, 0xff, m);
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
	before = watch_flash(r, c, &n);
	expect_run(r, "1\n5\n10\n", CX_OK);
	expect_said(r, "RECOVERY MODE (flash recovery): no firmware runs; the flash holds no valid image");
	expect_said(r, "card " BDF1 ": backed up");
	expect_said(r, "its flash holds no valid image (");
	expect_said(r, "a burn cannot put it back, restoring one of the card's backups can (menu: Restore a backup)");
	expect_untouched(c, before, n);
	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "card " BDF1 ": refused: the card's flash holds no valid image");
	expect_untouched(c, before, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_cx4lx_crossflash_from_the_menu),
		WIZARD_TEST(test_cx4lx_unbrick),
		WIZARD_TEST(test_cx4lx_not_offered),
		WIZARD_TEST(test_cx4lx_crossflash_job),
		WIZARD_TEST(test_cx4lx_restore_job_nothing_to_do),
		WIZARD_TEST(test_cx4lx_without_image),
	};
	return RUN_WIZARD_TESTS(tests);
}
