/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_restore.c — the menu's "Restore a backup" and "Unbrick" (rescue/flow_restore.c,
 * flow_unbrick.c), whole sessions on the rig (tests/support/wizard_rig.h):
 *
 *   a card in recovery mode unbricked from its backup, or with a library image and the
 *     backup's identity, the GUIDs its damaged flash still holds, or its sticker's values;
 *   the bundles offered: never one of a wiped flash, never a damaged one;
 *   back up, cross-flash, then restore the backup from the menu. */

#include <stdio.h>
#include <string.h>

#include "wizard_checks.h"
#include "wizard_rig.h"

/* A card in recovery mode unbricked from the bundle made of it some earlier day: its flash is
 * the bundle's again, byte for byte, and it boots as it did. */
static void test_unbrick_from_backup(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	struct backup_result b;
	size_t n;
	int equal;

	const uint8_t *orig = keep_flash(r, c, &n);
	backup_outside(r, c, &b);
	brick(c);
	assert_int_equal(cxsim_pci_device_now(c), 0x1f6);

	/* 5 unbrick, 1 restore a backup, 1 the bundle, the word, Enter: power off now. */
	expect_run(r, "5\n1\n1\nFLASH\n\n", CX_OK);
	expect_said(r, "RECOVERY MODE (flash recovery)");
	expect_said(r, b.name);
	expect_said(r, "== unbrick: card 0000:01:00.0");
	expect_said(r, "OK: the backup is on the flash, read back and verified");
	expect_said(r, "REMOVE IT now");
	expect_not_said(r, "FAILED");

	size_t m;
	const uint8_t *now = cxsim_flash(c, &m);
	assert_int_equal(m, n);
	assert_memory_equal(now, orig, n);
	expect_boots(c, HP_PSID, 40, 5030, G_A, M_A);
	assert_int_equal(cxsim_pci_device_now(c), 0x1003);

	/* The old bundle, and the one of the wiped flash made before the restore. */
	assert_int_equal(bundles(r, orig, n, &equal), 2);
	assert_int_equal(equal, 1);
	expect_history(r, 1, "\"action\":\"unbrick\"", "\"result\":\"ok\"", b.name);
}

/* The other way with a backup: a library image, judged against what the bundle says the
 * card was (the HP board, so the stock image is its cross-flash), with the bundle's GUIDs/MACs. */
static void test_unbrick_image_with_bundle_identity(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	struct backup_result b;

	add_image(r, "pro.bin", PRO_IMAGE, NULL, 0);
	backup_outside(r, c, &b);
	brick(c);

	/* 5 unbrick, 2 image + backup's identity, 1 the bundle, 1 the image, the word, Enter. */
	expect_run(r, "5\n2\n1\n1\nFLASH\n\n", CX_OK);
	expect_said(r, "Burn which image?");
	expect_said(r, "  1. stock.bin (OK): " HP_PSID " 2.40.5030 -> " STOCK_PSID " 2.42.5000: cross-flash");
	expect_not_said(r, "pro.bin (");
	expect_said(r, "identity: node GUID 0002c90300c0ffe0");
	expect_said(r, "MACs 0002c9c0ffe0 0002c9c0ffe1");
	expect_said(r, "Power off for a cold restart");
	expect_not_said(r, "FAILED");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_history(r, 1, "\"action\":\"unbrick\"", "\"result\":\"ok\"", "\"psid\":\"" STOCK_PSID "\"");
}

/* BOOT2's code changed, so its CRC fails (fs2-format.md §1.3): the card comes up in recovery
 * mode, but the GUID section after it is whole. */
#define BOOT2_CODE_BYTE (0x38 + 0x20) /* a byte inside the first BOOT2 (fs2-format.md §1.2, §1.3) */

static void test_unbrick_keeps_the_damaged_flash_guids(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n;

	cxsim_flash(c, &n)[BOOT2_CODE_BYTE] ^= 0xFF;
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
	assert_false(cxsim_boot_info(c)->booted);

	/* 5 unbrick, 1 keep the GUIDs the flash holds (offered first), 1 the image, the word, Enter. */
	expect_run(r, "5\n1\n1\nFLASH\n\n", CX_OK);
	expect_said(r, "Its flash still holds the GUID section of an image whose CRC is good: node GUID\n"
		       "0002c90300c0ffe0");
	expect_said(r, "  1. Burn a library image, keeping the GUIDs/MACs its flash still holds (node GUID "
		       "0002c90300c0ffe0)");
	expect_said(r, "identity: kept from the card's damaged flash (its GUID section's CRC is good): node GUID "
		       "0002c90300c0ffe0");
	expect_said(r, "its GUIDs and MACs were kept from its damaged flash");
	expect_not_said(r, "sticker shows");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_history(r, 1, "\"action\":\"unbrick\"", "\"result\":\"ok\"", "\"psid\":\"" STOCK_PSID "\"");
}

/* An erased flash holds no GUIDs: the menu is the usual one, and says they cannot be read. */
static void test_unbrick_erased_flash_offers_no_kept_guids(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);

	brick(c);
	expect_run(r, "5\n4\n", CX_EDECLINED);
	expect_said(r, "Its GUIDs and MACs cannot be read from it.");
	expect_not_said(r, "keeping the GUIDs/MACs its flash still holds");
}

/* No backup: a library image with the GUIDs and MACs typed from the card's sticker. */
static void test_unbrick_from_sticker(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);

	brick(c);

	expect_run(r, "5\n3\n1\n" STICKER_G_TYPED "\n" STICKER_G_TYPED "\n" STICKER_M_TYPED "\n" STICKER_M_TYPED
		     "\nFLASH\n\n", CX_OK);
	expect_said(r, "Burn which image?");
	expect_said(r, "You typed 0002c90300123450.");
	expect_said(r, "You typed 0002c9123450.");
	expect_said(r, "identity: node GUID 0002c90300123450, port GUIDs 0002c90300123451 0002c90300123452, "
		       "MACs 0002c9123450 0002c9123451");
	/* What the card was: recovery mode, with no version (not "FW 0.0.0000" or "(none)"). */
	expect_said(r, "OK: recovery mode, no readable image -> FW 2.42.5000, PSID " STOCK_PSID ", written");
	expect_not_said(r, "(none)");
	expect_said(r, "Power off for a cold restart");
	expect_not_said(r, "FAILED");
	expect_boots(c, STOCK_PSID, 42, 5000, STICKER_G, STICKER_M);
	expect_history(r, 1, "\"action\":\"unbrick\"", "\"result\":\"ok\"", "\"psid\":\"" STOCK_PSID "\"");

	int np;
	struct pending *v = records(r, &np);
	assert_int_equal(np, 1);
	assert_string_equal(v[0].state, "written");
	assert_string_equal(v[0].identity, "sticker:0002c90300123450,0002c9123450");
	free(v);
}

/* An unbrick from a backup offers the bundles that hold firmware: a bundle of the wiped
 * flash (every unbrick makes one before writing) would leave the card in recovery mode. */
static void test_unbrick_skips_empty_bundles(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	struct backup_result good, wiped;

	backup_outside(r, c, &good);
	brick(c);
	backup_outside(r, c, &wiped);
	assert_true(wiped.recovery);

	expect_run(r, "5\n1\n1\nFLASH\n\n", CX_OK);
	expect_said(r, good.name);
	const char *menu = strstr(r->out, "Which backup?"), *end = menu ? strstr(menu, "back to the menu") : NULL;
	assert_non_null(end);
	const char *w = strstr(menu, wiped.name), *g = strstr(menu, good.name);
	assert_true(!w || w > end); /* not in the menu (a later bundle of the wiped flash starts the same) */
	assert_true(g && g < end);
	expect_boots(c, HP_PSID, 40, 5030, G_A, M_A);
}

/* A bundle that fails its check is named, and never offered. */
static void test_damaged_backup_not_offered(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	struct backup_result b;
	char path[BACKUP_PATH_MAX + 32];
	size_t n;

	backup_outside(r, c, &b);
	snprintf(path, sizeof(path), "%s/flash.bin", b.path);
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0x1000, SEEK_SET), 0);
	assert_int_equal(fputc(0x5a, f), 0x5a);
	assert_int_equal(fclose(f), 0);
	brick(c);
	const uint8_t *wiped = watch_flash(r, c, &n);

	expect_run(r, "5\n1\n", CX_EDECLINED);
	expect_said(r, "WARNING: the backup ");
	expect_said(r, "is damaged and will not be used");
	expect_said(r, "there is no backup of card 0000:01:00.0");
	expect_not_said(r, "Which backup?");
	expect_untouched(c, wiped, n);
}

/* Back up, cross-flash, then restore the backup from the menu: the original flash again. */
static void test_restore_after_crossflash(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n, m;

	const uint8_t *orig = keep_flash(r, c, &n);
	/* 1 back up, 2 update, the word, Enter: keep the settings, 2 back to the menu, 4 restore,
	 * 1 the newest bundle, the word (the power-off screen came already), 10 power off. */
	expect_run(r, "1\n2\nFLASH\n\n2\n4\n1\nFLASH\n10\n", CX_OK);
	expect_said(r, "Restore which backup?");
	expect_said(r, "== restore: card 0000:01:00.0");
	expect_said(r, "OK: the backup is on the flash, read back and verified");
	expect_not_said(r, "FAILED");
	const uint8_t *now = cxsim_flash(c, &m);
	assert_int_equal(m, n);
	assert_memory_equal(now, orig, n);
	expect_boots(c, HP_PSID, 40, 5030, G_A, M_A);
	expect_history(r, 1, "\"action\":\"restore\"", "\"result\":\"ok\"", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_unbrick_from_backup),
		WIZARD_TEST(test_unbrick_image_with_bundle_identity),
		WIZARD_TEST(test_unbrick_keeps_the_damaged_flash_guids),
		WIZARD_TEST(test_unbrick_erased_flash_offers_no_kept_guids),
		WIZARD_TEST(test_unbrick_from_sticker),
		WIZARD_TEST(test_unbrick_skips_empty_bundles),
		WIZARD_TEST(test_damaged_backup_not_offered),
		WIZARD_TEST(test_restore_after_crossflash),
	};
	return RUN_WIZARD_TESTS(tests);
}
