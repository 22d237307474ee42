/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard_rom.c — the boot ROM (issue 19; rescue/step_rom.c, flow_bootrom.c), whole sessions
 * on the rig (tests/support/wizard_rig.h): a cross-flash of a card with HP's CLP + UEFI + PXE
 * keeps them by default, takes the image's or none when asked, asks nothing when they are
 * the same; a resumed write takes the choice from its job record and refuses a ROM file that
 * changed; jobs' rom= (none, a file) and the report's ROM before and after; the menu's
 * "Boot ROM: remove or replace" (declined, removed, then HP's set put back from the library). */

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "image/imgfile.h"
#include "mkimage.h"
#include "scratch.h"
#include "util/fileio.h"
#include "util/sha256.h"
#include "wizard_checks.h"
#include "wizard_rig.h"

/* HP's 544+ ROM set (mkfs2 --roms: CLP 8025, UEFI 14.11.49, PXE 3.4.754) on a ConnectX-3. */
#define HP_ROMS " --roms clp:8025,uefi:14.11.49,pxe:3.4.754"
#define HP_ROM_TEXT "CLP 8025, UEFI 14.11.49, PXE 3.4.754"

/* A copy of the ROM section's data of the image in flash (a card's, striped) or in a file
 * (contiguous); NULL with *len 0 when it has none. */
static uint8_t *rom_of(const uint8_t *buf, size_t n, bool striped, size_t *len)
{
	struct imgfile f;
	struct cx_status st = {0};
	uint8_t *out = NULL;

	assert_int_equal(imgfile_open_mem(&f, buf, n, striped, &st), CX_OK);
	*len = 0;
	if (f.img.rom_sect >= 0) {
		const struct fs2_item *it = &f.img.items[f.img.rom_sect];
		assert_non_null(out = malloc(it->data_len));
		memcpy(out, f.cont + it->data_off, it->data_len);
		*len = it->data_len;
	}
	imgfile_close(&f);
	return out;
}

static uint8_t *card_rom(struct cxsim_card *c, size_t *len)
{
	size_t n;
	const uint8_t *f = cxsim_flash(c, &n);

	return rom_of(f, n, true, len);
}

static uint8_t *file_rom(const char *path, size_t *len)
{
	struct cx_status st = {0};
	uint8_t *buf, *rom;
	size_t n;

	assert_int_equal(file_read(path, 1u << 24, &buf, &n, &st), CX_OK);
	rom = rom_of(buf, n, false, len);
	free(buf);
	return rom;
}

static void expect_rom(struct cxsim_card *c, const uint8_t *want, size_t want_len)
{
	size_t len;
	uint8_t *now = card_rom(c, &len);

	assert_int_equal(len, want_len);
	if (want_len)
		assert_memory_equal(now, want, want_len);
	free(now);
}

/* The boot ROM the one job record on the stick names (rescue/pending.h), into out. */
static void record_rom(struct rig *r, char *out, size_t n)
{
	int np;
	struct pending *v = records(r, &np);

	assert_int_equal(np, 1);
	snprintf(out, n, "%s", v[0].rom);
	free(v);
}

/* Give the one "writing" record on the stick the boot ROM choice rom. */
static void set_record_rom(struct rig *r, const char *rom)
{
	struct cx_status st = {0};
	int np;
	struct pending *v = records(r, &np);

	assert_int_equal(np, 1);
	snprintf(v[0].rom, sizeof(v[0].rom), "%s", rom);
	assert_int_equal(pending_write(r->data, &v[0], &st), CX_OK);
	free(v);
}

/* An HP card with HP's ROMs, the stock image (PXE 3.4.752 only) in the library. */
static struct cxsim_card *hp_rom_card(struct rig *r, const uint8_t **rom, size_t *rom_len)
{
	struct cxsim_card *c = add_card(r, HP_OPTS HP_ROMS, HP_SUBSYS_VENDOR, HP_SUBSYS_DEVICE, G_A, M_A);

	add_stock(r);
	*rom = keep(r, card_rom(c, rom_len));
	return c;
}

/* The cross-flash of an HP card to stock keeps its UEFI ROM by default (Enter). */
static void test_crossflash_keeps_uefi_rom(void **state)
{
	struct rig *r = *state;
	const uint8_t *rom;
	size_t len;
	struct cxsim_card *c = hp_rom_card(r, &rom, &len);

	/* 2 update, Enter: the default ROM choice, the word, Enter: keep the settings, Enter:
	 * power off now. */
	expect_run(r, "2\n\nFLASH\n\n\n", CX_OK);
	expect_said(r, "ROM " HP_ROM_TEXT "\n");
	expect_said(r, "The card's boot ROM and the image's differ (the card's has UEFI, the image's has not).");
	expect_said(r, "  1. keep the card's: " HP_ROM_TEXT "\n  2. take the image's: PXE 3.4.752\n"
		       "  3. no boot ROM (PXE/UEFI boot from this card off)\n");
	expect_said(r, "Choose 1-3 [1]: ");
	expect_said(r, "boot ROM: " HP_ROM_TEXT " -> " HP_ROM_TEXT " (the card's)");
	expect_not_said(r, "FAILED");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_rom(c, rom, len);
}

/* The image's ROM, or none, when the user says so. */
static void test_crossflash_rom_image_or_none(void **state)
{
	struct rig *r = *state;
	const uint8_t *rom, *stock_rom;
	size_t len, stock_len;
	struct cxsim_card *c = hp_rom_card(r, &rom, &len);

	stock_rom = keep(r, file_rom(r->stock, &stock_len));
	expect_run(r, "2\n2\nFLASH\n\n\n", CX_OK);
	expect_said(r, "boot ROM: " HP_ROM_TEXT " -> PXE 3.4.752 (the image's)");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_rom(c, stock_rom, stock_len);
}

/* No boot ROM at all, when the user says so; the job record keeps that choice. */
static void test_crossflash_rom_none(void **state)
{
	struct rig *r = *state;
	const uint8_t *rom;
	size_t len;
	struct cxsim_card *c = hp_rom_card(r, &rom, &len);

	expect_run(r, "2\n3\nFLASH\n\n\n", CX_OK);
	expect_said(r, "boot ROM: " HP_ROM_TEXT " -> none");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_rom(c, NULL, 0);
	char rec[PENDING_PATH_MAX];
	record_rom(r, rec, sizeof(rec)); /* the job record keeps the choice for a resumed write */
	assert_string_equal(rec, "none");
}

/* A cross-flash a power cut interrupted after the user chose "no boot ROM": finishing it
 * takes that choice from the job record and does not ask again. */
static void test_pending_rom_choice_not_asked_again(void **state)
{
	struct rig *r = *state;
	const uint8_t *rom;
	size_t len;
	struct cxsim_card *c = hp_rom_card(r, &rom, &len);

	pend(r, "crossflash", G_A, r->stock, true, "card");
	set_record_rom(r, "none");
	expect_run(r, "y\nFLASH\n\n\n", CX_OK);
	expect_said(r, "was INTERRUPTED");
	expect_not_said(r, "Boot ROM of the new firmware?");
	expect_said(r, "boot ROM: " HP_ROM_TEXT " -> none");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_rom(c, NULL, 0);
}

/* The record's ROM file changed since the write began: refused, nothing written. */
static void test_pending_rom_file_changed(void **state)
{
	struct rig *r = *state;
	const uint8_t *rom;
	size_t len, n;
	char path[300], rec[PENDING_PATH_MAX];
	struct cxsim_card *c = hp_rom_card(r, &rom, &len);
	const uint8_t *before = keep_flash(r, c, &n);

	snprintf(path, sizeof(path), "%s/other.rom", r->data);
	write_file(path, rom, len);
	pend(r, "crossflash", G_A, r->stock, true, "card");
	snprintf(rec, sizeof(rec), PENDING_ROM_FILE "%064d:%s", 0, path);
	set_record_rom(r, rec);
	cxsim_counters_reset(c);
	int rc = run(r, "y\nFLASH\n\n");
	assert_int_not_equal(rc, CX_OK);
	expect_said(r, "is not the one the interrupted write took");
	expect_untouched(c, before, n);
}

/* The same ROM on both sides: no question. */
static void test_same_rom_no_question(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = old_stock_card(r);
	size_t len;

	add_stock(r);
	uint8_t *rom = card_rom(c, &len);
	expect_run(r, "2\nFLASH\n\n", CX_OK);
	expect_not_said(r, "Boot ROM of the new firmware?");
	expect_said(r, "boot ROM: PXE 3.4.752 -> PXE 3.4.752 (the image's)");
	expect_boots(c, STOCK_PSID, 42, 5000, G_B, M_B);
	free(rom);
}

/* Unattended: no rom= keeps the card's UEFI ROM; the report says the ROM before and after. */
static void test_job_crossflash_rom_default_and_none(void **state)
{
	struct rig *r = *state;
	const uint8_t *rom;
	size_t len;
	struct cxsim_card *c = hp_rom_card(r, &rom, &len);

	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	expect_run(r, "", CX_OK);
	expect_said(r, "boot ROM: " HP_ROM_TEXT " -> " HP_ROM_TEXT " (the card's)");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_rom(c, rom, len);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "ok");
	assert_non_null(strstr(rep, "\"rom_before\":\"" HP_ROM_TEXT "\",\"rom_after\":\"" HP_ROM_TEXT "\""));
	free(rep);
}

/* rom=none: the job writes the image without a boot ROM. */
static void test_job_rom_none(void **state)
{
	struct rig *r = *state;
	const uint8_t *rom;
	size_t len;
	struct cxsim_card *c = hp_rom_card(r, &rom, &len);

	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	r->o.rom = "none";
	expect_run(r, "", CX_OK);
	expect_said(r, "boot ROM: " HP_ROM_TEXT " -> none");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_rom(c, NULL, 0);
	char *rep = report_text(r);
	assert_non_null(strstr(rep, "\"rom_before\":\"" HP_ROM_TEXT "\",\"rom_after\":\"none\""));
	free(rep);
}

/* rom=FILE: a ROM file in the data folder's firmware/ (the stick's, or a PXE server's). */
static void test_job_rom_file(void **state)
{
	struct rig *r = *state;
	const uint8_t *rom;
	uint8_t *want;
	size_t len, want_len;
	char dir[256], path[300], args[400];
	struct cx_status st = {0};
	struct cxsim_card *c = hp_rom_card(r, &rom, &len);

	snprintf(dir, sizeof(dir), "%s/firmware", r->data);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/uefi.rom", dir);
	snprintf(args, sizeof(args), "--rom-only %s --chip cx3 --roms uefi:14.11.50", path);
	mkfs2_run(args);
	assert_int_equal(file_read(path, 1u << 20, &want, &want_len, &st), CX_OK);
	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	r->o.rom = "uefi.rom";
	expect_run(r, "", CX_OK);
	expect_said(r, "boot ROM: " HP_ROM_TEXT " -> UEFI 14.11.50 (the file uefi.rom)");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_rom(c, want, want_len);
	char rec[PENDING_PATH_MAX], hex[SHA256_HEX_LEN + 1], want_rec[PENDING_PATH_MAX];
	uint8_t d[SHA256_LEN];
	sha256(want, want_len, d);
	snprintf(want_rec, sizeof(want_rec), PENDING_ROM_FILE "%s:%s", sha256_hex(d, hex), path);
	record_rom(r, rec, sizeof(rec));
	assert_string_equal(rec, want_rec);

	/* A file that is not there: that card refused, nothing written. */
	const uint8_t *before = watch_flash(r, c, &len);
	add_image(r, "stock2.bin", "--chip cx3 --fw 2.42.5100 " SMALL LIB_FLASH, NULL, 0);
	r->o.rom = "missing.rom";
	expect_run(r, "", CX_EDECLINED);
	expect_said(r, "missing.rom");
	expect_untouched(c, before, len);
	free(want);
}

/* The menu's "Boot ROM: remove or replace": remove, then put HP's ROMs back from the library. */
static void test_menu_boot_rom_remove_and_replace(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = old_stock_card(r);
	char hp[256];
	size_t n, len;

	add_image(r, "hp.bin", HP_OPTS HP_ROMS, hp, sizeof(hp));
	const uint8_t *orig = watch_flash(r, c, &n);
	uint8_t *hp_rom = file_rom(hp, &len);

	/* 7 boot ROM, the word declined: nothing written. */
	expect_run(r, "7\n1\nno\n", CX_EDECLINED);
	expect_said(r, "Card 0000:01:00.0 (" STOCK_PSID ", FW 2.40.5030) boot ROM: PXE 3.4.752");
	expect_said(r, "  1. Remove it: no boot ROM");
	expect_said(r, "  2. " HP_ROM_TEXT "  (1, library " HP_PSID ", hp.bin)");
	expect_said(r, "  3. CLP 8025 alone  (1.1, library");
	expect_said(r, "  4. UEFI 14.11.49 alone  (1.2, library");
	expect_untouched(c, orig, n);

	/* 7 boot ROM, 1 remove, the word, Enter: power off. */
	expect_run(r, "7\n1\nFLASH\n\n", CX_OK);
	expect_said(r, "boot ROM: PXE 3.4.752 -> none");
	expect_said(r, "The firmware, GUIDs, MACs and VSD stay as they are.");
	expect_said(r, "OK: boot ROM: PXE 3.4.752 -> none, written and verified");
	expect_boots(c, STOCK_PSID, 40, 5030, G_B, M_B);
	expect_rom(c, NULL, 0);
	expect_history(r, 1, "\"action\":\"boot-rom\"", "\"result\":\"ok\"", NULL);

	/* 7 boot ROM, 1: HP's whole set (no Remove row now), the word. */
	expect_run(r, "7\n1\nFLASH\n\n", CX_OK);
	expect_said(r, "boot ROM: none -> " HP_ROM_TEXT);
	expect_boots(c, STOCK_PSID, 40, 5030, G_B, M_B);
	expect_rom(c, hp_rom, len);
	free(hp_rom);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WIZARD_TEST(test_crossflash_keeps_uefi_rom),
		WIZARD_TEST(test_crossflash_rom_image_or_none),
		WIZARD_TEST(test_crossflash_rom_none),
		WIZARD_TEST(test_pending_rom_choice_not_asked_again),
		WIZARD_TEST(test_pending_rom_file_changed),
		WIZARD_TEST(test_same_rom_no_question),
		WIZARD_TEST(test_job_crossflash_rom_default_and_none),
		WIZARD_TEST(test_job_rom_none),
		WIZARD_TEST(test_job_rom_file),
		WIZARD_TEST(test_menu_boot_rom_remove_and_replace),
	};
	return RUN_WIZARD_TESTS(tests);
}
