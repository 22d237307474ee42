/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_cx4_ids.c — the menu's "Set a card's GUIDs/MACs" on a ConnectX-4, 4 Lx and 5
 * (rescue/flow_ids_fs3.c), whole sessions on the rig (wizard_rig.h): a ConnectX-4 Lx in
 * recovery mode whose DEV_INFO is lost gets the sticker's base GUID and MAC (FS3: the image
 * burned again into its other slot to name it); a running ConnectX-5 whose DEV_INFO is lost
 * gets its backup's (FS4: a DEV_INFO place its DTOC lists); a running ConnectX-4 whose MFG_INFO has
 * guids override off is refused anything but MFG_INFO's own values, which it gets only when
 * asked; a declined word and secure firmware write nothing.
 *
 * The cards come from the tests' builder laid out as mstflint expects a real card (as
 * test_setid_fs3_card.c: FS4 with two DEV_INFO places in its DTOC, the spare erased; FS3 with
 * its DEV_INFO 4 KiB below MFG_INFO), on a 4 MiB part with 1 MiB slots. What they hold after is
 * read from the model's flash by this file (the DEV_INFO signature, base GUID and MAC at the
 * layout's offsets, fs3-format.md §6.2) and what they boot by the model's boot ROM. */

#include "wizard_cx4_card.h"

#define DEV_A 0x1b000u        /* FS4: the builder's DEV_INFO, and its spare: */
#define DEV_B 0x1c000u
#define FS3_DEV 0x19000u      /* FS3: MFG_INFO - 4 KiB, and the second place: */
#define FS3_DEV2 0x18000u     /* MFG_INFO - 8 KiB */
#define DEV_LEN 0x200u
#define MFG_MAC 0x98039ba1b2c0ull /* the builder's MFG_INFO MAC (its GUID: SC_GUID) */
#define STICKER_GUID_TYPED "0002C903-00BEEF00"
#define STICKER_MAC_TYPED "00:02:c9:be:ef:00"
#define NEW_GUID 0x0002c90300beef00ull
#define NEW_MAC 0x0002c9beef00ull

static struct f3 img;

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* The card's image (builder defaults, its own device data), laid out as a real card's; the
 * model card strapped into recovery mode or its firmware running (fault from power-on). */
static struct cxsim_card *gen5_card(struct rig *r, enum cxsim_chip chip, bool recovery, bool override,
				    enum cxsim_icmd_fault fault)
{
	bool fs4 = chip == CXSIM_CX5;
	struct f3_spec s = f3_defaults(fs4);
	struct cxsim_params p;

	s.override_en = override;
	if (chip == CXSIM_CX4)
		s.hw_id = 0x209;
	f3_build(&img, &s);
	fc_card_devdata(&img, SC_GUID);
	if (fs4) {
		for (int i = 0; i < img.n; i++)
			if (img.ents[i].type == 0xe1 && img.ents[i].addr == DEV_B) {
				img.ents[i].size = DEV_LEN;
				img.ents[i].crc = F3_IN_SECTION;
			}
		f3_write(&img);
		memset(img.buf + DEV_B, 0xff, 0x1000);
		f3_write(&img);
	} else {
		fc_move(&img, 0xe1, FS3_DEV);
	}
	sc_set_slot_log(&img, 20);
	cxsim_params_default(&p, chip);
	p.recovery = recovery;
	p.icmd_fault = fault;
	snprintf(p.flash_part, sizeof(p.flash_part), "W25Q32");
	struct cxsim_card *c = add_params_card(r, &p);
	sc_install(c, &img, 0);
	assert_true(cxsim_boot_info(c)->booted);
	return c;
}

/* DEV_INFO lost: its place erased, as a card that lost it holds it. */
static void lose_dev_info(struct cxsim_card *c, bool fs4)
{
	size_t n;
	uint8_t *f = cxsim_flash(c, &n);

	memset(f + (fs4 ? DEV_A : FS3_DEV), 0xff, 0x1000);
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
}

/* A DEV_INFO at at, signed ("mDev"), with these bases. */
static void expect_dev_info(struct cxsim_card *c, uint32_t at, uint64_t guid, uint64_t mac)
{
	size_t n;
	const uint8_t *f = cxsim_flash(c, &n);

	assert_memory_equal(f + at, "mDevInfo", 8);
	assert_int_equal(get64(f + at + 0x28), guid);
	assert_int_equal(get64(f + at + 0x38) & 0xffffffffffffull, mac);
}

/* The bytes [from, to) as they were. */
static void expect_same(struct cxsim_card *c, const uint8_t *before, uint32_t from, uint32_t to)
{
	size_t n;
	const uint8_t *f = cxsim_flash(c, &n);

	assert_memory_equal(f + from, before + from, to - from);
}

/* The sticker's base GUID and MAC, typed twice each. */
#define STICKER STICKER_GUID_TYPED "\n" STICKER_GUID_TYPED "\n" STICKER_MAC_TYPED "\n" STICKER_MAC_TYPED "\n"

/* A ConnectX-4 Lx in recovery mode whose DEV_INFO is lost: offered though the inventory finds
 * no valid image; the sticker's values, a backup first, the word, the power-off. Its new
 * DEV_INFO is at the other place, the image burned again into slot 1 naming it; MFG_INFO and
 * every other device section as they were; it boots the same image. */
static void test_cx4lx_recovery_lost_dev_info_from_the_sticker(void **state)
{
	struct rig *r = *state;
	size_t n;
	struct cxsim_card *c = gen5_card(r, CXSIM_CX4LX, true, true, CXSIM_ICMD_OK);

	lose_dev_info(c, false);
	const uint8_t *before = watch_flash(r, c, &n);
	expect_run(r, "6\n" STICKER "FLASH\n\n", CX_OK);
	expect_said(r, "Card " BDF1 " (FS3) has no GUIDs/MACs: its DEV_INFO is lost (none, or damaged).\n");
	expect_said(r, "base GUID (16 hex digits from the card's sticker)");
	expect_said(r, "  new: base GUID 0002c90300beef00, base MAC 0002c9beef00 (the ports' follow from them)\n");
	size_t word = said_at(r, "Type FLASH"), bk = said_at(r, "    backup written: ");
	size_t ok = said_at(r, "card " BDF1 ": OK: GUIDs/MACs set (base GUID 0002c90300beef00, base MAC 0002c9beef00), "
			    "verified");
	assert_true(word < bk && bk < ok && ok < said_at(r, "Powering off."));
	expect_said(r, "REMOVE IT now"); /* the card was in recovery mode: the jumper */
	expect_not_said(r, "FAILED");
	expect_not_said(r, "not in the wizard");
	expect_dev_info(c, FS3_DEV2, NEW_GUID, NEW_MAC);
	assert_null(sc_devdata_diff(&img, before, cxsim_flash(c, &n), n)); /* the lost place, MFG_INFO, ... */
	const struct cxsim_boot *b = cold_boot(c);
	assert_int_equal(b->fs, 3);
	assert_string_equal(b->psid, img.s.psid);
	assert_int_equal(b->fw_ver[2], img.s.ver[2]);
	assert_int_equal(b->slot, 1);
	expect_backup_of(r, before, n);
	expect_history(r, 1, "\"action\":\"set-ids\"", "\"result\":\"ok\"", "0002c90300beef00");
}

/* A running ConnectX-5 backed up by the wizard, then its DEV_INFO lost: Set GUIDs/MACs offers
 * that backup's identity beside the sticker and puts it back through the running firmware, at
 * the DTOC's first place (none is valid); the image, the spare and the DTOC untouched. */
static void test_cx5_running_from_a_bundle(void **state)
{
	struct rig *r = *state;
	size_t n;
	struct cxsim_card *c = gen5_card(r, CXSIM_CX5, false, true, CXSIM_ICMD_OK);

	expect_run(r, "1\n", CX_EDECLINED);
	expect_said(r, "card " BDF1 ": backed up");
	lose_dev_info(c, true);
	const uint8_t *before = watch_flash(r, c, &n);
	expect_run(r, "6\n2\nFLASH\n\n", CX_OK);
	expect_said(r, "its firmware runs");
	expect_said(r, "Card " BDF1 " (FS4) has no GUIDs/MACs: its DEV_INFO is lost");
	expect_said(r, "Where do the GUIDs/MACs come from?");
	expect_said(r, "  1. Type them from the card's sticker\n");
	expect_said(r, "  2. From backup ");
	expect_said(r, ": base GUID " BASE_GUID ", base MAC " BASE_MAC " (card " BDF1);
	expect_said(r, "card " BDF1 ": OK: GUIDs/MACs set (base GUID " BASE_GUID " from backup ");
	expect_not_said(r, "FAILED");
	expect_not_said(r, "REMOVE IT now");
	expect_dev_info(c, DEV_A, SC_GUID, SC_GUID >> 16); /* none was valid: the DTOC's first place */
	expect_same(c, before, 0, DEV_A);  /* the image, MFG_INFO */
	expect_same(c, before, DEV_B, DEV_B + 0x1000); /* the spare, still erased */
	expect_same(c, before, n - 0x1000, n); /* the DTOC */
	assert_int_equal(cold_boot(c)->slot, 0);
	expect_history(r, 1, "\"action\":\"set-ids\"", "\"result\":\"ok\"", BASE_GUID);
}

/* A running ConnectX-4 whose MFG_INFO has guids override off and whose DEV_INFO is lost: one
 * line says why, the sticker is not asked; MFG_INFO's own values are a question of their own,
 * default no: Enter writes nothing; yes (and the word) writes them. */
static void test_cx4_override_off_only_mfg_values(void **state)
{
	struct rig *r = *state;
	size_t n;
	struct cxsim_card *c = gen5_card(r, CXSIM_CX4, false, false, CXSIM_ICMD_OK);

	lose_dev_info(c, false);
	const uint8_t *before = watch_flash(r, c, &n);
	expect_run(r, "6\n\n", CX_EDECLINED);
	expect_said(r, "  Its MFG_INFO does not let its GUIDs/MACs be changed (guids override is off: it uses the "
		       "factory's, base GUID " BASE_GUID ", base MAC 98039ba1b2c0).\n");
	expect_said(r, "Write MFG_INFO's own GUID/MAC into its DEV_INFO (nothing else can be set)? [y/N]: ");
	expect_said(r, "nothing written");
	expect_not_said(r, "from the card's sticker)");
	expect_not_said(r, "Type FLASH");
	expect_untouched(c, before, n);
	assert_int_equal(bundles(r, before, n, &(int){0}), 0);

	expect_run(r, "6\ny\nFLASH\n\n", CX_OK);
	expect_said(r, "card " BDF1 ": OK: GUIDs/MACs set (base GUID " BASE_GUID ", base MAC 98039ba1b2c0 from MFG_INFO)");
	expect_not_said(r, "FAILED");
	expect_dev_info(c, FS3_DEV2, SC_GUID, MFG_MAC);
	assert_null(sc_devdata_diff(&img, before, cxsim_flash(c, &n), n));
	assert_int_equal(cold_boot(c)->slot, 1);
	expect_backup_of(r, before, n);
	expect_history(r, 1, "\"action\":\"set-ids\"", "\"result\":\"ok\"", "from MFG_INFO");
}

/* A ConnectX-5 in recovery mode with its own DEV_INFO: the sticker's values typed, then not
 * the word: nothing written, no backup, the history says declined. */
static void test_cx5_declined_writes_nothing(void **state)
{
	struct rig *r = *state;
	size_t n;
	struct cxsim_card *c = gen5_card(r, CXSIM_CX5, true, true, CXSIM_ICMD_OK);
	const uint8_t *before = watch_flash(r, c, &n);

	expect_run(r, "6\n" STICKER "no\n", CX_EDECLINED);
	expect_said(r, "Card " BDF1 " (FS4) now has base GUID " BASE_GUID ", base MAC " BASE_MAC ".\n");
	expect_said(r, "Type FLASH");
	expect_untouched(c, before, n);
	assert_int_equal(bundles(r, before, n, &(int){0}), 0);
	expect_history(r, 1, "\"action\":\"set-ids\"", "\"result\":\"declined\"", NULL);
}

/* A running ConnectX-4 Lx with secure firmware: refused with the reason, nothing asked or written. */
static void test_secure_firmware_refused(void **state)
{
	struct rig *r = *state;
	size_t n;
	struct cxsim_card *c = gen5_card(r, CXSIM_CX4LX, false, true, CXSIM_ICMD_SECURE_FW);
	const uint8_t *before = watch_flash(r, c, &n);

	expect_run(r, "6\n", CX_EDECLINED);
	expect_said(r, "card " BDF1 ": it runs secure firmware");
	expect_said(r, "; nothing written");
	expect_not_said(r, "from the card's sticker)");
	expect_untouched(c, before, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_cx4lx_recovery_lost_dev_info_from_the_sticker),
		WIZARD_TEST(test_cx5_running_from_a_bundle),
		WIZARD_TEST(test_cx4_override_off_only_mfg_values),
		WIZARD_TEST(test_cx5_declined_writes_nothing),
		WIZARD_TEST(test_secure_firmware_refused),
	};
	return RUN_WIZARD_TESTS(tests);
}
