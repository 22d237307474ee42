/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_cx4_running.c — the wizard on a ConnectX-4 Lx whose firmware runs (rescue/wizard.h:
 * wizard_card.fs3, ci.recovery false): the HPE 640SFP28 of wizard_cx4_card.h not strapped, so
 * cxflash reaches its flash through its firmware (ICMD: MFBA/MFBE, hw-access.md §3.14). Its
 * inventory lines; cross-flashed from the menu (the backup first, the word, its GUIDs/MACs
 * kept, the port type and SR-IOV screen, the power-off) and by the crossflash job with
 * settings=; its settings set and reset from the menu; and a card that runs secure firmware
 * offered nothing that writes, refused by a job, nothing written.
 *
 * Judged by the card model (sim/core: its flash, the image its boot ROM finds, its settings
 * store, its counters), which shares no code with cxflash, and by what the wizard left on the
 * stick. */

#include "wizard_cx4_card.h"

/* Menu 2 on the running card: the inventory says it runs, the plan says the burn goes through
 * its firmware; backup, word, burn, the port type and SR-IOV screen (Enter keeps them), the
 * power-off. After a cold restart the next boot finds it running what was written. */
static void test_running_crossflash_from_the_menu(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card_mode(r, false, CXSIM_ICMD_OK, &before, &n);

	expect_run(r, "2\nFLASH\n\n1\n", CX_OK);
	expect_said(r, " 1. " BDF1 "  ConnectX-4 Lx");
	expect_said(r, "    its firmware runs (cxflash reaches its flash through it); its flash holds an FS3 image\n"
		       "    PSID " OEM_PSID "  FW 14.32.0001\n"
		       "    base GUID " BASE_GUID "  base MAC " BASE_MAC " (its device data: every burn keeps them)\n"
		       "    offered: update / cross-flash, burn a file, restore, GUIDs/MACs, settings\n"
		       "    not yet: boot ROM\n");
	expect_not_said(r, "RECOVERY MODE");
	expect_not_said(r, "in recovery mode only");
	expect_not_said(r, "PROBLEM");
	expect_said(r, "    library: OK stock-cx4lx.bin: " OEM_PSID " 14.32.1 -> " STOCK_FS3_PSID " 14.32.1010: "
		       "cross-flash, upgrade\n");
	expect_said(r, "  from: PSID " OEM_PSID "    FW 14.32.0001   (FS3 image; through its running firmware)");
	expect_said(r, "  identity: the card keeps its own GUIDs and MACs (base GUID " BASE_GUID);
	size_t word = said_at(r, "Type FLASH"), bk = said_at(r, "    backup written: ");
	size_t writing = said_at(r, "Writing stock-cx4lx.bin onto " BDF1), ok = said_at(r, "card " BDF1 ": OK: FW 14.32.0001");
	size_t screen = said_at(r, "== Port type and SR-IOV: card " BDF1), off = said_at(r, "Powering off.");
	assert_true(word < bk && bk < writing && writing < ok && ok < screen && screen < off);
	expect_said(r, "card " BDF1 ": settings kept, nothing written");
	expect_said(r, "  2. plug in and power on.\n"); /* no jumper to take off */
	expect_not_said(r, "FAILED");
	assert_int_equal(cxsim_counters(c)->nv_write_cmds, 0);
	expect_stock_devdata_kept(c, before, n); /* a cold boot of the model */
	expect_backup_of(r, before, n);
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"ok\"", "\"psid\":\"" STOCK_FS3_PSID "\"");
	/* The next boot, after that cold restart: it runs what was written, and the wizard says so. */
	expect_run(r, "10\n", CX_OK);
	expect_said(r, "after the cold restart card " BDF1 " runs FW 14.32.1010, as written (crossflash)");
	expect_said(r, "    PSID " STOCK_FS3_PSID "  FW 14.32.1010\n");
	expect_history(r, 1, "\"action\":\"boot-check\"", "\"result\":\"ok\"", NULL);
}

/* Menu 8 on the running card: every setting of the GEN5 table it offers, one set (the word, a
 * backup first, the card's store written), then a reset (the store emptied). */
static void test_running_settings_set_and_reset(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card_mode(r, false, CXSIM_ICMD_OK, &before, &n);

	expect_run(r, "8\n1\nSRIOV_EN=1\nFLASH\n10\n", CX_OK);
	expect_said(r, "== Card settings: card " BDF1 " (ConnectX-4 Lx A0), for its next boot ==\n");
	expect_said(r, "  LINK_TYPE_P1 ");
	expect_said(r, "  EXP_ROM_UEFI_x86_ENABLE ");
	expect_not_said(r, "  LOG_BAR_SIZE"); /* a ConnectX-3 row */
	expect_said(r, "== settings: card " BDF1 " ==\n  SRIOV_EN                 False(0) -> True(1)\n");
	expect_said(r, "before changing its settings");
	expect_said(r, "card " BDF1 ": OK: SRIOV_EN False(0) -> True(1). The new values take effect at the next cold boot");
	assert_int_equal(nv_value(c, "SRIOV_EN"), 1);
	expect_backup_of(r, before, n);
	expect_untouched(c, before, n); /* the flash: settings are the firmware's store */
	expect_history(r, 1, "\"action\":\"settings\"", "\"result\":\"ok\"", "SRIOV_EN False(0) -> True(1)");
	/* reset: the store forgotten, SR-IOV back to its default */
	expect_run(r, "8\n2\nFLASH\n10\n", CX_OK);
	expect_said(r, "  SRIOV_EN                 True(1)  (default False(0))");
	expect_said(r, "card " BDF1 ": OK: SRIOV_EN True(1) -> False(0)");
	assert_int_equal(cxsim_nv_count(c), 0);
}

/* job=crossflash with settings=: the burn through the firmware, then SRIOV_EN and NUM_OF_VFS
 * in the card's store; the report has them before and after. Then job=verify asks the FW it
 * runs (MGIR): the old one before a cold restart (failed: the restart was not cold), the one
 * written after it. */
static void test_running_crossflash_job_with_settings(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card_mode(r, false, CXSIM_ICMD_OK, &before, &n);

	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	r->o.settings = "SRIOV_EN=True,NUM_OF_VFS=4";
	expect_run(r, "", CX_OK);
	expect_said(r, "card " BDF1 ": ok: stock-cx4lx.bin written and verified; settings set for the next cold boot");
	assert_int_equal(nv_value(c, "SRIOV_EN"), 1);
	assert_int_equal(nv_value(c, "NUM_OF_VFS"), 4);
	expect_backup_of(r, before, n);
	char *rep = report_text(r);
	expect_card_result(rep, BDF1, "ok");
	assert_non_null(strstr(rep, "{\"name\":\"SRIOV_EN\",\"before\":\"False(0)\",\"after\":\"True(1)\"}"));
	assert_non_null(strstr(rep, "\"name\":\"NUM_OF_VFS\""));
	free(rep);
	expect_history(r, 1, "\"action\":\"settings\"", "\"result\":\"ok\"", "NUM_OF_VFS");

	/* verify without the cold restart: the old firmware still runs */
	clear_reports(r);
	r->o.job = JOB_VERIFY;
	r->o.yes = false;
	r->o.settings = NULL;
	r->o.exit_after_job = true;
	r->o.expect = BASE_GUID ":" STOCK_FS3_PSID ":14.32.1010:14.32.0001";
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "card " BDF1 ": failed: running the old firmware 14.32.0001, not the 14.32.1010 on its flash: "
		       "the restart was not cold");
	/* after it (the model's cold boot): ok */
	expect_stock_devdata_kept(c, before, n);
	clear_reports(r);
	expect_run(r, "", CX_OK);
	expect_said(r, "card " BDF1 ": ok: running FW 14.32.1010, the one written (" STOCK_FS3_PSID ")");
}

/* job=settings alone, a setting only ConnectX-4 and later have (EXP_ROM_UEFI_x86_ENABLE, on by
 * default: turned off): checked against the card's generation, set, the flash untouched. */
static void test_running_settings_job(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card_mode(r, false, CXSIM_ICMD_OK, &before, &n);

	r->o.job = JOB_SETTINGS;
	r->o.yes = true;
	r->o.settings = "SRIOV_EN=1,NUM_OF_VFS=8,EXP_ROM_UEFI_x86_ENABLE=0";
	expect_run(r, "", CX_OK);
	expect_said(r, "card " BDF1 ": ok: 3 of 3 settings changed, for the next cold boot");
	assert_int_equal(nv_value(c, "SRIOV_EN"), 1);
	assert_int_equal(nv_value(c, "NUM_OF_VFS"), 8);
	assert_int_equal(nv_value(c, "EXP_ROM_UEFI_x86_ENABLE"), 0);
	expect_untouched(c, before, n);
	/* a name neither generation has, and a bad value of this generation's name: refused
	 * before anything is sent, each with its own reason */
	r->o.settings = "NO_SUCH_SETTING=1";
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "unknown setting NO_SUCH_SETTING");
	r->o.settings = "LEGACY_BOOT_PROTOCOL=bogus";
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "LEGACY_BOOT_PROTOCOL=bogus");
	expect_not_said(r, "unknown setting");
	expect_untouched(c, before, n);
	assert_int_equal(nv_value(c, "LEGACY_BOOT_PROTOCOL"), -1); /* never stored */
}

/* A running card with secure firmware: shown with why and what works (recovery mode);
 * update, burn a file and settings do not offer it; the crossflash job refuses it before a
 * backup; nothing written, no settings command sent. Backing it up still works. */
static void test_running_secure_fw_refused(void **state)
{
	struct rig *r = *state;
	const uint8_t *before;
	size_t n;
	struct cxsim_card *c = hpe_card_mode(r, false, CXSIM_ICMD_SECURE_FW, &before, &n);

	expect_run(r, "2\n3\n8\n10\n", CX_OK);
	expect_said(r, "    PSID " OEM_PSID "  FW 14.32.0001\n");
	expect_said(r, "    NOTHING THAT WRITES IS OFFERED: it runs secure firmware, which takes a new image only "
		       "through its own signed update (MCC), which cxflash does not do. What works: recovery mode");
	expect_not_said(r, "    offered: ");
	expect_said(r, "no card has a recommended image in the library");
	expect_said(r, "no card can be judged");
	expect_said(r, "no card whose settings cxflash reaches");
	expect_not_said(r, "Type FLASH");
	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "card " BDF1 ": refused: it runs secure firmware");
	expect_untouched(c, before, n);
	assert_int_equal(cxsim_counters(c)->nv_write_cmds, 0);
	int equal = 0;
	assert_int_equal(bundles(r, NULL, 0, &equal), 0);
	/* reading it is no write: "Back up all cards" takes it */
	r->o.job = JOB_NONE;
	r->o.yes = false;
	expect_run(r, "1\n10\n", CX_OK);
	expect_said(r, "card " BDF1 ": backed up");
	expect_backup_of(r, before, n);
	expect_untouched(c, before, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_running_crossflash_from_the_menu),
		WIZARD_TEST(test_running_settings_set_and_reset),
		WIZARD_TEST(test_running_crossflash_job_with_settings),
		WIZARD_TEST(test_running_settings_job),
		WIZARD_TEST(test_running_secure_fw_refused),
	};
	return RUN_WIZARD_TESTS(tests);
}
