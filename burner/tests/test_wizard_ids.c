/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_ids.c — the menu's "Set a card's GUIDs/MACs" (rescue/flow_ids.c), whole sessions
 * on the rig (tests/support/wizard_rig.h): from the sticker on a card with its own identity,
 * with blank GUIDs, with a ConnectX-2 image of 4 GUIDs (no MACs); a card that carries a
 * release image's placeholder identity gets the item as its default, and a backup's identity
 * is offered beside the sticker. */

#include "card_image.h"
#include "wizard_checks.h"
#include "wizard_rig.h"

/* The sticker's GUIDs/MACs typed onto a card that has an identity of its own: the firmware
 * stays, a backup is made first. */
static void test_set_ids(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n;
	int equal;

	const uint8_t *orig = keep_flash(r, c, &n);
	expect_run(r, "6\n" STICKER_G_TYPED "\n" STICKER_G_TYPED "\n" STICKER_M_TYPED "\n" STICKER_M_TYPED
		     "\nFLASH\n\n", CX_OK);
	expect_said(r, "Card 0000:01:00.0 now has node GUID 0002c90300c0ffe0, MACs 0002c9c0ffe0 0002c9c0ffe1");
	expect_said(r, "new: GUIDs 0002c90300123450 0002c90300123451 0002c90300123452 0002c90300123453");
	expect_said(r, "GUIDs/MACs set");
	expect_said(r, "Power off for a cold restart");
	expect_not_said(r, "FAILED");
	/* The firmware stays; only the identity changed. */
	expect_boots(c, HP_PSID, 40, 5030, STICKER_G, STICKER_M);
	assert_int_equal(bundles(r, orig, n, &equal), 1);
	assert_int_equal(equal, 1);
	expect_history(r, 1, "\"action\":\"set-ids\"", "\"result\":\"ok\"", "0002c90300123450");
}

/* A card whose GUIDs are blank gets its identity from the sticker. */
static void test_set_ids_on_blank_guids(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = add_chip_card(r, CXSIM_CX3, "--chip cx3 --fw 2.40.5030 --blank-guids " SMALL);

	expect_run(r, "6\n" STICKER_G_TYPED "\n" STICKER_G_TYPED "\n" STICKER_M_TYPED "\n" STICKER_M_TYPED
		     "\nFLASH\n\n", CX_OK);
	expect_said(r, "GUIDs/MACs: blank");
	expect_said(r, "GUIDs/MACs set");
	expect_not_said(r, "FAILED");
	expect_boots(c, STOCK_PSID, 40, 5030, STICKER_G, STICKER_M);
}

/* A ConnectX-2 image with 4 GUID entries stores no MACs (they derive from the port GUIDs):
 * the wizard asks for the GUID only, and sets it. */
static void test_set_ids_on_four_guid_image(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = add_chip_card(r, CXSIM_CX2, CX2_OPTS);
	const struct cxsim_boot *b = cxsim_boot_info(c);
	assert_true(b->booted);
	assert_int_equal(b->nguids, 4);
	expect_run(r, "6\n" STICKER_G_TYPED "\n" STICKER_G_TYPED "\nFLASH\n\n", CX_OK);
	expect_said(r, "GUIDs/MACs set");
	expect_not_said(r, "FAILED");
	expect_not_said(r, "port 1 MAC");
	expect_said(r, "MACs  0002c9123451 0002c9123452 (from the port GUIDs");
	b = cold_boot(c);
	assert_int_equal(b->nguids, 4);
	for (int k = 0; k < 4; k++)
		assert_int_equal(b->guids[k], STICKER_G + (uint64_t)k);
	assert_int_equal(b->macs[0], 0x0002c9123451ull); /* the model derives them from the port GUIDs */
	assert_int_equal(b->macs[1], 0x0002c9123452ull);
	expect_history(r, 1, "\"action\":\"set-ids\"", "\"result\":\"ok\"", NULL);
}

/* A stock image burned with --use_image_guids: the card carries the release image's
 * placeholder GUIDs/MACs (ops/placeholder.h). The inventory says it has no identity of its
 * own, the menu's default is Set GUIDs/MACs (Enter alone chooses it, ahead of the backup it
 * has not had), and after the sticker's values the card boots with them and the line is gone. */
#define PLACEHOLDER_G 0x0002c9000100d050ull
#define PLACEHOLDER_M 0x0002c9000001ull

static void test_placeholder_identity_offers_set_ids(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = add_card(r, STOCK_IMAGE, 0x15b3, 0x0022, PLACEHOLDER_G, PLACEHOLDER_M);

	expect_run(r, "\n" STICKER_G_TYPED "\n" STICKER_G_TYPED "\n" STICKER_M_TYPED "\n" STICKER_M_TYPED
		     "\nFLASH\n\n", CX_OK);
	expect_said(r, "node GUID 0002c9000100d050  MACs 0002c9000001 0002c9000002\n"
		       "    NO IDENTITY OF ITS OWN: its node GUID is a release image's placeholder (illumos MELLANOX.h");
	expect_said(r, "Next: choose \"Set a card's GUIDs/MACs\"");
	expect_said(r, "  6. Set a card's GUIDs/MACs\n");
	expect_said(r, "Choose 1-10 [6]: ");
	expect_said(r, "Card 0000:01:00.0 now has node GUID 0002c9000100d050");
	expect_said(r, "GUIDs/MACs set");
	expect_not_said(r, "FAILED");
	expect_boots(c, STOCK_PSID, 42, 5000, STICKER_G, STICKER_M);
	expect_history(r, 1, "\"action\":\"set-ids\"", "\"result\":\"ok\"", "0002c90300123450");

	/* Its own identity now: no such line, and the default is no longer Set GUIDs/MACs. */
	run(r, "");
	expect_not_said(r, "NO IDENTITY OF ITS OWN");
	expect_not_said(r, "Choose 1-10 [6]: ");
}

/* The card was backed up with its own identity, then burned with --use_image_guids: Set
 * GUIDs/MACs (the default) offers that backup's identity beside the sticker, and puts it back. */
static void test_placeholder_identity_from_a_backup(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);

	expect_run(r, "1\n", CX_EDECLINED);
	card_install(c, HP_OPTS " --guid 0002c9000100d050 --mac 0002c9000001", 0);
	expect_run(r, "\n2\nFLASH\n\n", CX_OK);
	expect_said(r, "NO IDENTITY OF ITS OWN");
	expect_said(r, "backup on the stick: NONE YET"); /* its bundle has its own GUID, not this one */
	expect_said(r, "Where do the GUIDs/MACs come from?");
	expect_said(r, "  1. Type them from the card's sticker\n");
	expect_said(r, "  2. From backup cx3-" HP_PSID "-0002c90300c0ffe0-");
	expect_said(r, "new: GUIDs 0002c90300c0ffe0 0002c90300c0ffe1 0002c90300c0ffe2 0002c90300c0ffe3");
	expect_said(r, "GUIDs/MACs set (node GUID 0002c90300c0ffe0 from backup cx3-");
	expect_not_said(r, "FAILED");
	expect_boots(c, HP_PSID, 40, 5030, G_A, M_A);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_set_ids),
		WIZARD_TEST(test_set_ids_on_blank_guids),
		WIZARD_TEST(test_set_ids_on_four_guid_image),
		WIZARD_TEST(test_placeholder_identity_offers_set_ids),
		WIZARD_TEST(test_placeholder_identity_from_a_backup),
	};
	return RUN_WIZARD_TESTS(tests);
}
