/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_data_area.c — where backups go (rescue/data_area.c), whole sessions on the rig
 * (tests/support/wizard_rig.h), as /init hands it over (data-area.sh: $CXR_DATA_KIND,
 * $CXR_DATA_DEV, $CXR_DATA_ID, $CXR_DATA_WP, $CXR_DATA_SEEN):
 *
 *   the first screen names the stick's partition and ID, and no RAM word is asked;
 *   no stick: the screen says so and lists what /init saw, each with why it was not taken;
 *   a write-protected stick is named as such;
 *   backups in RAM only: a cross-flash needs FLASH, then its own word RAM; anything else
 *     writes nothing (not even the backup); with RAM typed, the card is written;
 *   RAM with a PXE server's upload is not "RAM only": no RAM word;
 *   an unattended job that writes is refused whole in RAM only, nothing written. */

#include <stdio.h>
#include <string.h>

#include "rescue/data_area.h"
#include "wizard_checks.h"
#include "wizard_rig.h"
#include "wizard_upload.h"

/* The verdicts data-area.sh writes, as the wizard reads them. */
static const char *seen_lines =
	"/dev/sda1 vfat \"ESP\": not taken: FAT, but not labelled CXRESCUE (not ours: never mounted)\n"
	"/dev/sr0 iso9660 \"CXRESCUE\": not taken: ISO 9660 (a CD, virtual media or the cxrescue ISO itself)\n";

static void in_ram(struct rig *r, const char *wp)
{
	static char seen[160];

	snprintf(seen, sizeof(seen), "%s/data-seen", r->root);
	FILE *f = fopen(seen, "w");
	assert_non_null(f);
	fputs(seen_lines, f);
	fclose(f);
	r->o.data_kind = "ram";
	r->o.data_wp = wp;
	r->o.data_seen = seen;
}

static void test_stick_is_named(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n;

	r->o.data_dev = "/dev/sdb1";
	r->o.data_id = "0123456789abcdef";
	watch_flash(r, c, &n);
	expect_run(r, "2\nFLASH\n\n\n", CX_OK);
	expect_said(r, "Backups and logs go to the cxrescue stick /dev/sdb1 (ID 0123456789abcdef): ");
	expect_not_said(r, "Type " RAM_WORD);
	expect_not_said(r, "LOST at power-off");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
}

static void test_no_stick_lists_what_was_seen(void **state)
{
	struct rig *r = *state;

	hp_card(r);
	in_ram(r, NULL);
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "WARNING: no cxrescue stick was found: backups and logs stay in RAM");
	expect_said(r, "LOST at power-off");
	size_t at = said_at(r, "What this machine has");
	assert_true(said_at(r, "    /dev/sda1 vfat \"ESP\": not taken: FAT, but not labelled CXRESCUE") > at);
	assert_true(said_at(r, "    /dev/sr0 iso9660 \"CXRESCUE\": not taken: ISO 9660") > at);
}

static void test_write_protected_stick_is_named(void **state)
{
	struct rig *r = *state;

	hp_card(r);
	in_ram(r, "/dev/sdb1");
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "WARNING: the cxrescue stick /dev/sdb1 is WRITE-PROTECTED: backups and logs stay in RAM");
	expect_said(r, "Unlock its write-protect switch");
	expect_not_said(r, "What this machine has");
}

/* FLASH typed, but not RAM: nothing written, not even the backup. */
static void test_ram_word_refused_writes_nothing(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n;
	int equal;

	in_ram(r, "/dev/sdb1");
	const uint8_t *orig = watch_flash(r, c, &n);
	expect_run(r, "2\nFLASH\nyes\n", CX_EDECLINED);
	size_t warn = said_at(r, "WARNING: the cxrescue stick /dev/sdb1 is WRITE-PROTECTED: the backup made before "
				 "this write stays in RAM");
	assert_true(said_at(r, "Type " RAM_WORD " to write with the backup in RAM only") > warn);
	expect_said(r, "cancelled: nothing written");
	expect_untouched(c, orig, n);
	assert_int_equal(bundles(r, orig, n, &equal), 0);
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"declined\"", NULL);
}

static void test_ram_word_typed_writes(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	size_t n;
	int equal;

	in_ram(r, NULL);
	const uint8_t *orig = keep_flash(r, c, &n);
	expect_run(r, "2\nFLASH\n" RAM_WORD "\n\n\n", CX_OK);
	expect_said(r, "WARNING: no cxrescue stick was found: the backup made before this write stays in RAM");
	expect_said(r, "confirmed with " RAM_WORD ": the backup stays in RAM only");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	assert_int_equal(bundles(r, orig, n, &equal), 1); /* made all the same, in RAM */
	assert_int_equal(equal, 1);
}

/* A PXE boot keeps its data in RAM, but every backup reaches the server first. */
static void test_ram_with_upload_asks_no_ram_word(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_with_stock(r);
	char path[256];

	in_ram(r, NULL);
	upload_script(r, 0, path, sizeof(path));
	r->o.upload_cmd = path;
	expect_run(r, "2\nFLASH\n\n\n", CX_OK);
	expect_said(r, "sent to the PXE server");
	expect_not_said(r, "Type " RAM_WORD);
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
}

static void test_job_refused_in_ram(void **state)
{
	struct rig *r = *state;
	const uint8_t *hp, *stock;
	size_t n;

	two_cards(r, &hp, &stock, &n);
	in_ram(r, "/dev/sdb1");
	r->o.job = JOB_UPDATE;
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "the update job writes cards, but the cxrescue stick /dev/sdb1 is WRITE-PROTECTED: their "
		       "backups would stay in RAM and be LOST at power-off; nothing written");
	expect_untouched(r->cards[0], hp, n);
	expect_untouched(r->cards[1], stock, n);
	expect_not_said(r, "Type " RAM_WORD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_stick_is_named),
		WIZARD_TEST(test_no_stick_lists_what_was_seen),
		WIZARD_TEST(test_write_protected_stick_is_named),
		WIZARD_TEST(test_ram_word_refused_writes_nothing),
		WIZARD_TEST(test_ram_word_typed_writes),
		WIZARD_TEST(test_ram_with_upload_asks_no_ram_word),
		WIZARD_TEST(test_job_refused_in_ram),
	};
	return RUN_WIZARD_TESTS(tests);
}
