/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_write.c — the menu's write screens (rescue/flow_update.c): "Update or cross-flash"
 * and "Burn a file", whole sessions on the rig (tests/support/wizard_rig.h).
 *
 *   an HP card backed up and cross-flashed to the stock image, keeping its GUIDs/MACs, and
 *     the next boot's check of that write;
 *   a wrong confirmation word writes nothing;
 *   a ConnectX-3 Pro image is listed as REFUSED for a ConnectX-3 and never offered, nor an
 *     image of another chunk size; no library, nothing offered;
 *   "Burn a file" on a card in recovery mode points at Unbrick. */

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "wizard_checks.h"
#include "wizard_rig.h"

/* Back up all, then cross-flash the HP card to the stock image: its own GUIDs/MACs kept, the
 * backup just made taken as the write's own; the next starts check that write (before the
 * cold restart: the old FW still runs; after it: as written, recorded once). */
static void test_backup_then_crossflash(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n;
	int equal;

	const uint8_t *orig = keep_flash(r, c, &n);

	/* 1 back up all, 2 update, the word, Enter: keep the settings, Enter: power off now. */
	expect_run(r, "1\n2\nFLASH\n\n\n", CX_OK);
	expect_said(r, "OEM HP");
	expect_said(r, "PSID " HP_PSID "  FW 2.40.5030");
	expect_said(r, "backup on the stick: NONE YET");
	expect_said(r, "library: OK stock.bin");
	expect_said(r, "card 0000:01:00.0: backed up");
	expect_said(r, "== crossflash: card 0000:01:00.0");
	expect_said(r, "the card keeps its own GUIDs and MACs (node GUID 0002c90300c0ffe0)");
	expect_said(r, "OK: FW 2.40.5030 -> 2.42.5000, PSID " HP_PSID " -> " STOCK_PSID);
	expect_said(r, "Power off for a cold restart");
	expect_said(r, "Powering off.");
	expect_said(r, ": not written again");
	expect_not_said(r, "FAILED");

	struct pending *v;
	int np;

	/* Started again before the cold restart: the card still runs the old FW, and is told so. */
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "(running 2.40.5030 until a cold restart)");
	expect_said(r, "WARNING: card 0000:01:00.0 runs FW 2.40.5030, but FW 2.42.5000 was written (crossflash)");
	expect_history(r, 0, "\"action\":\"boot-check\"", "\"result\":\"ok\"", NULL);
	assert_int_equal(pending_count(r), 1); /* kept for the next boot */

	/* The card: the stock firmware with its own identity, after a cold restart. */
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);

	/* One bundle: the menu's backup, which the write then found equal to the card's flash and
	 * took as its own backup (not written again). */
	assert_int_equal(bundles(r, orig, n, &equal), 1);
	assert_int_equal(equal, 1);

	expect_history(r, 1, "\"action\":\"backup\"", "\"result\":\"ok\"", "\"node_guid\":\"0002c90300c0ffe0\"");
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"ok\"", "\"psid\":\"" STOCK_PSID "\"");
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"from\":{\"psid\":\"" HP_PSID "\",\"fw\":\"2.40.5030\"}",
		       NULL);

	v = records(r, &np);
	assert_int_equal(np, 1);
	assert_string_equal(v[0].state, "written");
	assert_string_equal(v[0].action, "crossflash");
	assert_string_equal(v[0].guid, "0002c90300c0ffe0");
	assert_string_equal(v[0].to_fw, "2.42.5000");
	assert_string_equal(v[0].to_psid, STOCK_PSID);
	free(v);

	/* The next boot: the wizard sees the card run what was written, and settles the record
	 * (checked in this boot: another console's wizard may still tell its user; pending.h). */
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "after the cold restart card 0000:01:00.0 runs FW 2.42.5000, as written");
	expect_said(r, "backup on the stick: yes");
	expect_history(r, 1, "\"action\":\"boot-check\"", "\"result\":\"ok\"", NULL);
	v = records(r, &np);
	assert_int_equal(np, 1);
	assert_string_equal(v[0].state, "checked");
	free(v);
	/* Told again in the same boot, written down once. */
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "after the cold restart card 0000:01:00.0 runs FW 2.42.5000, as written");
	expect_history(r, 1, "\"action\":\"boot-check\"", "\"result\":\"ok\"", NULL);
}

/* A wrong confirmation word: nothing written, not even a backup, and no job record. */
static void test_wrong_word_writes_nothing(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n;
	int equal;

	const uint8_t *orig = watch_flash(r, c, &n);

	expect_run(r, "2\nflash\n", CX_EDECLINED);
	expect_said(r, "== crossflash: card 0000:01:00.0");
	expect_said(r, "cancelled: nothing written");
	expect_not_said(r, "Power off for a cold restart");
	expect_untouched(c, orig, n);
	assert_int_equal(bundles(r, orig, n, &equal), 0); /* the backup comes after the word */
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"declined\"", NULL);
	expect_history(r, 0, "\"result\":\"ok\"", NULL, NULL);
	assert_int_equal(count_files(r->data), 2); /* logs/ and history.jsonl: no pending/ */
}

static void test_burn_file_lists_refused(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n;

	add_image(r, "pro.bin", PRO_IMAGE, NULL, 0);
	const uint8_t *orig = watch_flash(r, c, &n);

	/* 3 burn a file; the menu offers stock.bin and "back"; 2 goes back; then the input ends. */
	expect_run(r, "3\n2\n", CX_EDECLINED);
	expect_said(r, "  - REFUSED pro.bin: ");
	expect_said(r, "  - OK      stock.bin: ");
	const char *menu = strstr(r->out, "Burn which file?");
	if (!menu) {
		dump(r);
		fail_msg("no file menu");
	}
	assert_non_null(strstr(menu, "  1. "));
	assert_non_null(strstr(menu, "stock.bin (OK)"));
	assert_non_null(strstr(menu, "  2. back to the menu"));
	assert_null(strstr(menu, "pro.bin"));
	expect_said(r, "back to the menu");
	expect_untouched(c, orig, n);

	/* With only the Pro image in the library there is nothing to offer at all. */
	char path[256];
	snprintf(path, sizeof(path), "%s/stock.bin", r->fw);
	assert_int_equal(unlink(path), 0);
	expect_run(r, "3\n", CX_EDECLINED);
	expect_said(r, "  - REFUSED pro.bin: ");
	expect_said(r, "no image in the library may go onto card 0000:01:00.0");
	expect_not_said(r, "Burn which file?");
	assert_int_equal(cxsim_counters(c)->erases, 0);
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);
}

/* A library image of the card's own PSID built with another chunk size (64 KiB, the
 * card's 512 KiB): burn_card() refuses it (ops/guard.h), so the inventory neither
 * recommends nor offers it, and says why (issue 17: it was OK, and the burn refused
 * it after the typed word). */
static void test_chunk_size_mismatch_never_offered(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = old_stock_card(r);
	size_t n;

	add_image(r, "chunk64k.bin", STOCK_IMAGE " --chunk-log 0", NULL, 0);
	const uint8_t *orig = watch_flash(r, c, &n);
	expect_run(r, "2\n3\n", CX_EDECLINED);
	expect_said(r, "no card has a recommended image");
	expect_said(r, "  - REFUSED chunk64k.bin: ");
	expect_said(r, "the image's chunk size (0x10000) differs from the card's (0x80000)");
	expect_said(r, "no image in the library may go onto card 0000:01:00.0");
	expect_not_said(r, "Type FLASH");
	expect_untouched(c, orig, n);
}

/* The library cannot be read: the wizard says why, offers no image, and writes nothing. */
static void test_no_library(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n;

	r->o.boards = "/nonexistent/boards.txt";
	const uint8_t *orig = watch_flash(r, c, &n);
	expect_run(r, "2\n3\n", CX_EDECLINED);
	expect_said(r, "library: not available (");
	expect_said(r, "no card has a recommended image");
	expect_said(r, "no card can be judged");
	expect_untouched(c, orig, n);
}

/* "Burn a file" on a card in recovery mode: its identity cannot be read, so the wizard
 * points at Unbrick before asking for the word (not at cxflash's command-line options). */
static void test_burn_file_on_recovery_card(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n;

	brick(c);
	const uint8_t *wiped = watch_flash(r, c, &n);
	expect_run(r, "3\n1\nFLASH\n", CX_EDECLINED);
	expect_said(r, "is in recovery mode");
	expect_said(r, "Unbrick");
	expect_not_said(r, "Type FLASH");
	expect_not_said(r, "--guid");
	expect_untouched(c, wiped, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_backup_then_crossflash),
		WIZARD_TEST(test_wrong_word_writes_nothing),
		WIZARD_TEST(test_burn_file_lists_refused),
		WIZARD_TEST(test_chunk_size_mismatch_never_offered),
		WIZARD_TEST(test_no_library),
		WIZARD_TEST(test_burn_file_on_recovery_card),
	};
	return RUN_WIZARD_TESTS(tests);
}
