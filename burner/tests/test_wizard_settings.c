/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_settings.c — the card's settings from the menu (the model's settings interface;
 * rescue/flow_settings.c), whole sessions on the rig (tests/support/wizard_rig.h): the port
 * type and SR-IOV screen after a cross-flash the user watched only, Enter keeping every value
 * (no settings command that writes), a change writing exactly the chosen setting, and its
 * refusals (firmware not started, a one-port card with too many VFs, a wrong word); the
 * menu's "Card settings" (one NAME=VALUE, a backup first, reset; an unknown name, too many
 * VFs, a ConnectX-2 and a card in recovery mode refused with nothing sent). */

#include <stdbool.h>

#include "wizard_checks.h"
#include "wizard_rig.h"

/* The next-boot value of name the card's settings store holds; false when it holds none. */
static bool stored(struct cxsim_card *c, const char *name, uint32_t *v)
{
	long value = nv_value(c, name);

	if (value < 0)
		return false;
	*v = (uint32_t)value;
	return true;
}

static uint64_t nv_writes(struct cxsim_card *c)
{
	return cxsim_counters(c)->nv_write_cmds;
}

/* After a cross-flash the user watched, the port type and SR-IOV screen shows the next-boot
 * values; Enter keeps them and nothing is sent that writes. An update shows no such screen,
 * nor does an unattended cross-flash. */
static void test_settings_screen_keeps_by_default(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	struct cxsim_card *old = old_stock_card(r);

	add_stock(r);
	/* 2 update, card 1 (HP: a cross-flash), the word, Enter: keep, Enter: power off. */
	expect_run(r, "2\n1\nFLASH\n\n\n", CX_OK);
	size_t screen = said_at(r, "== Port type and SR-IOV: card 0000:01:00.0 ==\n"
				   "What the card will boot with (Enter keeps it):\n"
				   "  1. keep these settings\n  2. LINK_TYPE_P1: VPI(3)\n  3. LINK_TYPE_P2: VPI(3)\n"
				   "  4. SRIOV_EN: False(0)\n  5. NUM_OF_VFS: 8\nChoose 1-5 [1]: ");
	assert_true(said_at(r, "OK: FW 2.40.5030 -> 2.42.5000") < screen);
	assert_true(screen < said_at(r, "Power off for a cold restart"));
	expect_said(r, "card 0000:01:00.0: settings kept, nothing written");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	assert_int_equal(nv_writes(c), 0);
	assert_int_equal(cxsim_nv_count(c), 0);
	expect_history(r, 0, "\"action\":\"settings\"", NULL, NULL);

	/* An update (same PSID) of the other card: no screen. */
	expect_run(r, "2\n2\nFLASH\n\n", CX_OK);
	expect_said(r, "== update: card 0000:02:00.0");
	expect_not_said(r, "Port type and SR-IOV");
	expect_boots(old, STOCK_PSID, 42, 5000, G_B, M_B);
	assert_int_equal(nv_writes(old), 0);
}

/* A change on the screen writes exactly the chosen setting: one record, its other fields at
 * their defaults, the port's other record untouched; the history has it before and after,
 * and the value survives the cold restart. */
static void test_settings_screen_writes_the_choice(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	uint32_t v;

	/* 2 update, the word, 2 LINK_TYPE_P1, 2 ETH, 1 write, the word, Enter: power off. */
	expect_run(r, "2\nFLASH\n2\n2\n1\nFLASH\n\n", CX_OK);
	expect_said(r, "LINK_TYPE_P1:\n  1. IB(1)\n  2. ETH(2)\n  3. VPI(3)\nChoose 1-3 [3]: ");
	expect_said(r, "  1. write these changes\n  2. LINK_TYPE_P1: VPI(3) -> ETH(2)\n  3. LINK_TYPE_P2: VPI(3)\n");
	expect_said(r, "== settings: card 0000:01:00.0 ==\n  LINK_TYPE_P1             VPI(3) -> ETH(2)\n");
	expect_said(r, "card 0000:01:00.0: OK: LINK_TYPE_P1 VPI(3) -> ETH(2). The new values take effect at the next "
		       "cold boot");
	expect_said(r, "Power off for a cold restart");
	expect_not_said(r, "FAILED");
	assert_int_equal(nv_writes(c), 1);
	assert_int_equal(cxsim_nv_count(c), 1);
	assert_true(stored(c, "LINK_TYPE_P1", &v));
	assert_int_equal(v, 2);
	assert_true(stored(c, "PHY_TYPE_P1", &v));
	assert_int_equal(v, 2);             /* the profile's default, as mstconfig writes it */
	assert_false(stored(c, "LINK_TYPE_P2", &v));
	expect_history(r, 1, "\"action\":\"settings\"", "\"result\":\"ok\"",
		       "\"message\":\"LINK_TYPE_P1 VPI(3) -> ETH(2)\"");
	expect_history(r, 1, "\"action\":\"settings\"", "\"node_guid\":\"0002c90300c0ffe0\"", NULL);
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	assert_true(stored(c, "LINK_TYPE_P1", &v)); /* kept with the card over the power cycle */
	assert_int_equal(v, 2);
}

/* What the screen cannot do is one line, nothing is sent that writes, and the wizard goes
 * on to the power-off screen: firmware not started (and how: the installed system), too many
 * VFs on a one-port card (no LINK_TYPE_P2 row), and a wrong word. */
static void test_settings_screen_refusals(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *a = hp_card(r);
	struct cxsim_card *b = add_card(r, HP_OPTS, HP_SUBSYS_VENDOR, HP_SUBSYS_DEVICE, G_B, M_B);

	add_stock(r);
	cxsim_params_mut(a)->hcr_fault = CXSIM_HCR_NOT_STARTED;
	expect_run(r, "2\n1\nFLASH\n\n", CX_OK);
	expect_said(r, "Port type and SR-IOV: 0000:01:00.0: the card's firmware is not started (tools interface "
		       "status 4)");
	expect_said(r, "with mlx4_core loaded (the stick carries it as cxrescue/bin/cxflash) (README: \"Using cxflash "
		       "on your installed system\")\n");
	expect_not_said(r, "== Port type and SR-IOV");
	expect_said(r, "Powering off.");
	expect_boots(a, STOCK_PSID, 42, 5000, G_A, M_A);
	assert_int_equal(nv_writes(a), 0);

	cxsim_params_mut(b)->tools.ports = 1;
	/* 2 update, card 2, the word, 3 SRIOV_EN, 2 True, 4 NUM_OF_VFS, 200, 1 write; Enter: power off. */
	expect_run(r, "2\n2\nFLASH\n3\n2\n4\n200\n1\n\n", CX_OK);
	expect_said(r, "  1. keep these settings\n  2. LINK_TYPE_P1: VPI(3)\n  3. SRIOV_EN: False(0)\n"
		       "  4. NUM_OF_VFS: 8\nChoose 1-4 [1]: ");
	expect_said(r, "NUM_OF_VFS, a number (Enter keeps 8): ");
	expect_said(r, "  3. SRIOV_EN: False(0) -> True(1)\n  4. NUM_OF_VFS: 8 -> 200\n");
	expect_said(r, "Port type and SR-IOV: NUM_OF_VFS=200: this card has at most 127 VFs\n");
	expect_said(r, "Powering off.");
	assert_int_equal(nv_writes(b), 0);
	expect_history(r, 0, "\"action\":\"settings\"", NULL, NULL);
}

/* The typed word is the consent: anything else writes nothing, and the history says so. */
static void test_settings_screen_declined(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);

	expect_run(r, "2\nFLASH\n4\n2\n1\nflash\n\n", CX_OK);
	expect_said(r, "  SRIOV_EN                 False(0) -> True(1)\n");
	expect_said(r, "Port type and SR-IOV: cancelled: nothing written");
	expect_said(r, "Powering off.");
	assert_int_equal(nv_writes(c), 0);
	expect_history(r, 1, "\"action\":\"settings\"", "\"result\":\"declined\"", NULL);
}

/* The menu's "Card settings": the table with the defaults where they differ; one NAME=VALUE,
 * checked as `config set` checks it (unknown name, too many VFs: one line, nothing sent);
 * a card without a bundle on the stick is backed up first; reset puts every default back. */
static void test_card_settings_menu(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	uint32_t v;

	expect_run(r, "8\n1\nLINK_TYPE_P2=eth\nFLASH\n", CX_EDECLINED);
	expect_said(r, "  8. Card settings: port type, SR-IOV, boot options (next boot)\n");
	expect_said(r, "== Card settings: card 0000:01:00.0 (ConnectX-3 A1), for its next boot ==\n"
		       "  SRIOV_EN                 False(0)\n  NUM_OF_VFS               8\n");
	expect_said(r, "  LINK_TYPE_P2             VPI(3)\n");
	expect_said(r, "  1. change one setting (NAME=VALUE)\n  2. reset every setting to its default\n"
		       "  3. back to the menu\nChoose 1-3 [3]: ");
	expect_said(r, "Backing up 0000:01:00.0 (before changing its settings)");
	expect_said(r, "backup written: cx3-" HP_PSID "-0002c90300c0ffe0-");
	expect_said(r, "card 0000:01:00.0: OK: LINK_TYPE_P2 VPI(3) -> ETH(2).");
	expect_not_said(r, "Power off for a cold restart"); /* no firmware written */
	assert_int_equal(nv_writes(c), 1);
	assert_true(stored(c, "LINK_TYPE_P2", &v));
	assert_int_equal(v, 2);
	assert_false(stored(c, "LINK_TYPE_P1", &v));
	assert_int_equal(bundles(r, NULL, 0, &(int){0}), 1);

	/* Refused before anything is sent; the table shows the stored value and its default. */
	cxsim_counters_reset(c);
	expect_run(r, "8\n1\nFOO=1\n8\n1\nNUM_OF_VFS=999\n8\n1\nLINK_TYPE_P2\n", CX_EDECLINED);
	expect_said(r, "  LINK_TYPE_P2             ETH(2)  (default VPI(3))\n");
	expect_said(r, "unknown setting FOO ('cxflash -d BDF config q' lists this card's); nothing written\n");
	expect_said(r, "NUM_OF_VFS=999: this card has at most 127 VFs; nothing written\n");
	expect_said(r, "'LINK_TYPE_P2': a setting is NAME=VALUE (LINK_TYPE_P1=ETH); nothing written\n");
	expect_not_said(r, "FAILED");
	assert_int_equal(nv_writes(c), 0);

	/* Reset: every default back, the bundle on the stick is enough (no second backup). */
	expect_run(r, "8\n2\nFLASH\n", CX_EDECLINED);
	expect_said(r, "== settings: card 0000:01:00.0 ==\n  LINK_TYPE_P2             ETH(2) -> VPI(3)\n");
	expect_said(r, "card 0000:01:00.0: OK: LINK_TYPE_P2 ETH(2) -> VPI(3).");
	assert_int_equal(nv_writes(c), 1);
	assert_int_equal(cxsim_nv_count(c), 0);
	assert_int_equal(bundles(r, NULL, 0, &(int){0}), 1);
	expect_history(r, 2, "\"action\":\"settings\"", "\"result\":\"ok\"", NULL);
	expect_history(r, 1, "\"action\":\"settings\"", "\"message\":\"LINK_TYPE_P2 ETH(2) -> VPI(3)\"", NULL);
}

/* A ConnectX-2 and a card in recovery mode: the reason in one line, no tools command sent. */
static void test_card_settings_refused(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c2 = add_chip_card(r, CXSIM_CX2, CX2_OPTS);
	struct cxsim_card *dead = hp_card(r);
	brick(dead);
	cxsim_counters_reset(c2);
	cxsim_counters_reset(dead);
	expect_run(r, "8\n1\n8\n2\n", CX_EDECLINED);
	expect_said(r, "0000:01:00.0: a ConnectX-2 has no settings store (\"ConnectX-2 is not supported under "
		       "mstconfig\")");
	expect_said(r, "0000:02:00.0: the card is in flash-recovery mode: no firmware runs to keep its settings; "
		       "burn an image first; nothing written\n");
	expect_not_said(r, "FAILED");
	assert_int_equal(cxsim_counters(c2)->tools_cmds, 0);
	assert_int_equal(cxsim_counters(dead)->tools_cmds, 0);
	expect_history(r, 0, "\"action\":\"settings\"", NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_settings_screen_keeps_by_default),
		WIZARD_TEST(test_settings_screen_writes_the_choice),
		WIZARD_TEST(test_settings_screen_refusals),
		WIZARD_TEST(test_settings_screen_declined),
		WIZARD_TEST(test_card_settings_menu),
		WIZARD_TEST(test_card_settings_refused),
	};
	return RUN_WIZARD_TESTS(tests);
}
