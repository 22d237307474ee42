/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_menu.c — the wizard's menu (rescue/menu.c), whole sessions on the rig
 * (tests/support/wizard_rig.h): its items and their numbers with and without a shell, the
 * default item, a number out of range, Power off; two cards, chosen from a menu, the list
 * read again, back to the menu after a write; the session lock and the prompt mark. */

#include <stdio.h>
#include <unistd.h>

#include "fs3_builder.h"
#include "wizard_checks.h"
#include "wizard_rig.h"

/* Without a shell the menu has 10 items, the last one Power off; with a backup missing the
 * default is "Back up all cards". */
static void test_menu_power_off(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n;

	const uint8_t *orig = watch_flash(r, c, &n);
	expect_run(r, "11\n10\n", CX_OK);
	expect_said(r, " 10. Power off\n");
	expect_said(r, "Choose 1-10 [1]: ");
	expect_said(r, "Please type a number from 1 to 10");
	expect_not_said(r, "Shell");
	expect_not_said(r, "Power off for a cold restart"); /* nothing was written */
	expect_said(r, "Powering off.");
	/* A board that stays on is told what to do, even before /init says it again. */
	expect_said(r, "it did not power off:\nswitch it off at its power switch or pull its power cord(s)");
	expect_untouched(c, orig, n);
}

/* With a shell the menu has 11 items: 10 is the shell, 11 power off. */
static void test_menu_with_shell(void **state)
{
	struct rig *r = *state;

	hp_card(r);
	r->o.shell = "/bin/true";
	expect_run(r, "10\n11\n", CX_OK);
	expect_said(r, " 10. Shell (type exit to come back)\n");
	expect_said(r, " 11. Power off\n");
	expect_said(r, "Powering off.");
}

/* Two cards: the card is chosen from a menu; the inventory is read again (9); after the
 * write the user goes back to the menu first, then powers off. The session lock and the
 * prompt mark are used. */
static void test_two_cards_interactive(void **state)
{
	struct rig *r = *state;
	char mark[128];
	size_t n;

	use_lock(r);
	snprintf(mark, sizeof(mark), "%s/prompt-mark", r->root);
	r->o.prompt_mark = mark;
	struct cxsim_card *hp = hp_card(r);
	struct cxsim_card *stock = old_stock_card(r);
	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	const uint8_t *orig = watch_flash(r, hp, &n);

	/* 9 list, 2 update, card 2, the word, 2 back to the menu, 10 power off. */
	expect_run(r, "9\n2\n2\nFLASH\n2\n10\n", CX_OK);
	expect_said(r, "Which card?");
	expect_said(r, "  1. 0000:01:00.0  ConnectX-3 A1  " HP_PSID "  FW 2.40.5030");
	expect_said(r, "  2. 0000:02:00.0  ConnectX-3 A1  " STOCK_PSID "  FW 2.40.5030");
	expect_said(r, "  3. back to the menu");
	expect_said(r, "== update: card 0000:02:00.0");
	expect_said(r, "Back to the menu (another card first)");
	expect_said(r, "Powering off.");
	expect_not_said(r, "FAILED");
	expect_not_said(r, "busy");
	expect_untouched(hp, orig, n);
	expect_boots(stock, STOCK_PSID, 42, 5000, G_B, M_B);
	assert_int_equal(access(mark, F_OK), 0);
	expect_history(r, 1, "\"action\":\"update\"", "\"result\":\"ok\"", "\"bdf\":\"0000:02:00.0\"");
}

static struct f3 fs3_image; /* 128 KiB: off the stack */

/* An FS3 image (the tests' own builder, fs3_builder.h) in the library folder. */
static void add_fs3_image(struct rig *r, const char *name)
{
	char p[256];
	struct f3_spec s = f3_defaults(false);
	FILE *f;

	f3_build(&fs3_image, &s);
	snprintf(p, sizeof(p), "%s/%s", r->fw, name);
	assert_non_null(f = fopen(p, "wb"));
	assert_int_equal(fwrite(fs3_image.buf, 1, fs3_image.len, f), fs3_image.len);
	assert_int_equal(fclose(f), 0);
}

/* A ConnectX-6 in the first slot (its identity only, cxsim's --hw-id: a family cxflash reads
 * files of only): the inventory names it and says in one line, the chip table's reason, that
 * nothing is offered for it; the card menu lists the two ConnectX-3 cards alone; the
 * ConnectX-6 gets no crspace write. An FS3 image in the library is counted and said to be
 * offered for ConnectX-4, 4 Lx and 5 cards (test_wizard_cx4.c has one in recovery mode,
 * test_wizard_cx4_running.c one whose firmware runs). */
static void test_files_only_card_shown_not_offered(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *lx = add_chip_card(r, CXSIM_CX3, STOCK_IMAGE);
	struct cxsim_params *p = cxsim_params_mut(lx);
	size_t n;

	p->hw_id = 0x20F;       /* ConnectX-6, dev/chip.c */
	p->pci_device = 0x101B;
	hp_card(r);
	old_stock_card(r);
	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	add_fs3_image(r, "cx4.bin");
	const uint8_t *orig = watch_flash(r, lx, &n);
	uint64_t writes = cxsim_counters(lx)->cr_writes;

	expect_run(r, "9\n2\n2\nFLASH\n2\n10\n", CX_OK);
	expect_said(r, " 1. 0000:01:00.0  ConnectX-6  15b3:101b");
	expect_said(r, "    ConnectX-6: its firmware is signed and the chip enforces it");
	expect_said(r, "; nothing is offered for this card\n");
	expect_said(r, "  1. 0000:02:00.0  ConnectX-3 A1  " HP_PSID);
	expect_said(r, "  2. 0000:03:00.0  ConnectX-3 A1  " STOCK_PSID);
	expect_said(r, "  3. back to the menu");
	expect_said(r, "== update: card 0000:03:00.0");
	expect_said(r, "Firmware library: 2 images: 2 usable\n  1 of them for ConnectX-4 and later (FS3/FS4): "
		       "offered for ConnectX-4, 4 Lx and 5 cards\n");
	expect_untouched(lx, orig, n);
	assert_int_equal(cxsim_counters(lx)->cr_writes, writes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_menu_power_off),
		WIZARD_TEST(test_menu_with_shell),
		WIZARD_TEST(test_two_cards_interactive),
		WIZARD_TEST(test_files_only_card_shown_not_offered),
	};
	return RUN_WIZARD_TESTS(tests);
}
