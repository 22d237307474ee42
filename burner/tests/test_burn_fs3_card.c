/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_burn_fs3_card.c — burn_card() of an FS3/FS4 image onto a ConnectX-4, 4 Lx (FS3) and 5
 * (FS4) card model in recovery mode, in process, through device_attach: the whole card path
 * (chip lock, flash, reader, write procedure, failsafe order). The card holds an OEM image
 * (PSID HP_...) and its own device data; the file is stock (MT_...). Judged by the model's
 * own state (its flash array, its counters, its boot ROM's verdict: sim/core/bootrom_fs3.c,
 * which shares no code with cxflash), never by cxflash's reader alone. The power cuts:
 * test_powercut_fs3_card.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "card_fixture.h"
#include "card_ops.h"
#include "fs3_card.h"
#include "fs3_sim_card.h"
#include "ops/backup.h"
#include "ops/burn.h"
#include "ops/devimage_fs3.h"
#include "scratch.h"

struct chipcase {
	enum cxsim_chip chip;
	bool fs4;
	uint32_t hw_id;
	const char *card_psid, *file_psid;
};

static const struct chipcase cases[] = {
	{CXSIM_CX4, false, 0x209, "HP_2420110034", "MT_2420110034"},
	{CXSIM_CX4LX, false, 0x20b, "HP_2420110034", "MT_2420110034"},
	{CXSIM_CX5, true, 0x20d, "HP_0000000008", "MT_0000000008"},
};

static struct f3 card_img, file_img;

/* The card's OEM image (older FW, its own device data) and a stock file of another PSID. */
static void images(const struct chipcase *k)
{
	struct f3_spec s = f3_defaults(k->fs4);

	s.hw_id = k->hw_id;
	s.rom = true;
	s.ini = true;
	s.psid = k->file_psid;
	f3_build(&file_img, &s);
	s.psid = k->card_psid;
	s.ver[2] = 1; /* an older firmware on the card */
	f3_build(&card_img, &s);
	fc_card_devdata(&card_img, SC_GUID);
}

struct rig {
	struct cxsim_card *c;
	struct device d;
	uint8_t *before;
	size_t n;
	uint64_t erased0, programmed0, erases0;
};

static void rig_open(struct rig *r, const struct chipcase *k, int slot, bool wp)
{
	memset(r, 0, sizeof(*r));
	images(k);
	r->c = sc_new(k->chip, wp);
	assert_non_null(r->c);
	sc_install(r->c, &card_img, slot);
	sc_older(r->c, &card_img, slot ^ 1);
	const struct cxsim_boot *b = cxsim_boot_info(r->c);
	assert_true(b->booted);
	assert_int_equal(b->start, (uint32_t)slot << sc_slot_log(&card_img));
	assert_string_equal(b->psid, k->card_psid);
	card_open_listed(&r->d, r->c);
	r->before = sc_snapshot(r->c, &r->n);
	assert_non_null(r->before);
	const struct cxsim_counters *t = cxsim_counters(r->c);
	r->erased0 = t->bytes_erased;
	r->programmed0 = t->bytes_programmed;
	r->erases0 = t->erases;
}

static void rig_close(struct rig *r)
{
	const struct cxsim_counters *t = cxsim_counters(r->c);

	/* Every gateway transaction under the 5th-generation lock, none with cache replacement on. */
	assert_int_equal(t->gw_without_sem, 0);
	assert_int_equal(t->gw_cache_rep_on, 0);
	device_close(&r->d);
	cxsim_free(r->c);
	free(r->before);
}

/* Nothing written: the model's flash array as before, its counters saw no erase or program. */
static void nothing_written(struct rig *r)
{
	size_t n;
	const struct cxsim_counters *t = cxsim_counters(r->c);

	assert_memory_equal(cxsim_flash(r->c, &n), r->before, r->n);
	assert_int_equal(t->erases, r->erases0);
	assert_int_equal(t->bytes_programmed, r->programmed0);
}

static int burn(struct rig *r, const struct f3 *file, struct burn_opts *o, struct burn_result *res,
		struct cx_status *st)
{
	cx_status_clear(st);
	return burn_card(&r->d, file->buf, file->len, o, res, st);
}

static void expect_refused(struct rig *r, const struct f3 *file, struct burn_opts *o, int code, const char *says)
{
	struct burn_result res;
	struct cx_status st = {0};
	int rc = burn(r, file, o, &res, &st);

	if (rc != code || (says && !strstr(st.msg, says)))
		fail_msg("expected code %d saying '%s', got %d: %s", code, says ? says : "", rc, st.msg);
	assert_false(res.out.state == CARD_NEW_BOOTS || res.out.state == CARD_PARTIAL);
	nothing_written(r);
}

static int declined(void *ctx, const char *q, struct cx_status *st)
{
	(void)ctx;
	(void)q;
	return cx_fail(st, CX_EINTR, "declined");
}

/* The cross-PSID burn, refused twice, then done: the model boots the file's image from the
 * other slot, with the card's device data byte for byte. */
static void cross_burn(const struct chipcase *k, int slot)
{
	struct rig r;
	struct burn_opts o = {0};
	struct burn_result res;
	struct cx_status st = {0};
	int asked = 0;
	uint32_t s = 1u << sc_slot_log(&card_img), old = (uint32_t)slot * s;

	rig_open(&r, k, slot, false);
	s = 1u << sc_slot_log(&card_img), old = (uint32_t)slot * s;
	expect_refused(&r, &file_img, &o, CX_EMISMATCH, "--allow_psid_change");
	o.guard.allow_psid_change = true;
	/* no confirm hook: the question is a no */
	expect_refused(&r, &file_img, &o, CX_EDECLINED, "not confirmed: nothing written");
	o.hooks.confirm = declined;
	expect_refused(&r, &file_img, &o, CX_EINTR, "declined");
	o.hooks.confirm = confirm_yes;
	o.hooks.confirm_ctx = &asked;
	int rc = burn(&r, &file_img, &o, &res, &st);
	if (rc)
		fail_msg("burn: %s", st.msg);
	assert_int_equal(asked, 1);

	size_t n;
	const uint8_t *now = cxsim_flash(r.c, &n);
	const struct cxsim_counters *t = cxsim_counters(r.c);
	assert_int_equal(res.out.state, CARD_NEW_BOOTS);
	assert_false(res.nothing_to_do);
	assert_int_equal(res.start, old ^ s);
	assert_true(res.had_image);
	assert_memory_equal(res.old_fw, card_img.s.ver, sizeof(res.old_fw));
	assert_memory_equal(res.new_fw, file_img.s.ver, sizeof(res.new_fw));
	assert_string_equal(res.old_psid, k->card_psid);
	assert_string_equal(res.new_psid, k->file_psid);
	assert_true(res.bytes_programmed > 0 && res.bytes_erased > 0);
	assert_int_equal(res.bytes_erased, t->bytes_erased - r.erased0);
	assert_int_equal(res.bytes_programmed, t->bytes_programmed - r.programmed0);
	assert_null(sc_devdata_diff(&card_img, r.before, now, n));
	assert_int_equal(now[old] | now[old + 1] | now[old + 2] | now[old + 3], 0); /* the old magic's dword */
	assert_memory_equal(now + (old ^ s), file_img.buf, 16);                 /* the new one */

	/* The model's boot ROM, after a power cycle: the file's image, from the other slot. */
	cxsim_power_cycle(r.c);
	const struct cxsim_boot *b = cxsim_boot_info(r.c);
	assert_true(b->booted);
	assert_int_equal(b->start, old ^ s);
	assert_int_equal(b->nvalid, 1);
	assert_string_equal(b->psid, k->file_psid);
	assert_memory_equal(b->fw_ver, file_img.s.ver, sizeof(b->fw_ver));

	/* The same image again: nothing to do, nothing written. */
	device_close(&r.d);
	card_open_listed(&r.d, r.c);
	free(r.before);
	r.before = sc_snapshot(r.c, &r.n);
	r.erases0 = t->erases, r.programmed0 = t->bytes_programmed;
	rc = burn(&r, &file_img, &o, &res, &st);
	if (rc)
		fail_msg("second burn: %s", st.msg);
	assert_true(res.nothing_to_do);
	assert_true(res.out.nothing_to_do);
	assert_int_equal(res.start, old ^ s); /* where the image is */
	assert_int_equal(res.bytes_erased + res.bytes_programmed, 0);
	nothing_written(&r);
	rig_close(&r);
}

static void test_cross_psid_burn(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (int slot = 0; slot < 2; slot++)
			cross_burn(&cases[i], slot);
}

/* Two whole images, as a burn cut between its new magic and the old magic's zeroing leaves
 * them: the model boots the lower one; cxflash's reader of the card takes that one (on FS4,
 * where mstflint refuses such a flash, too), and a burn from there finishes with one image,
 * the file's, booting: not "nothing to do" while the other is there (fs3-format.md §11.3). */
static void test_two_images(void **state)
{
	(void)state;
	for (int i = 0; i < 4; i++) { /* cx4lx, cx5; slot 0 and 1 */
		const struct chipcase *k = &cases[1 + i / 2];
		int slot = i % 2;
		struct rig r;
		struct burn_opts o = {.guard.allow_psid_change = true, .hooks.confirm = confirm_yes};
		struct burn_result res;
		struct cx_status st = {0};
		struct devfs3 img;
		size_t n;

		rig_open(&r, k, slot, false);
		uint32_t s = 1u << sc_slot_log(&card_img), old = (uint32_t)slot * s;
		if (burn(&r, &file_img, &o, &res, &st))
			fail_msg("burn: %s", st.msg);
		device_close(&r.d);
		uint8_t *f = cxsim_flash(r.c, &n);
		memcpy(f + old, r.before + old, 4); /* the cut: the old magic not zeroed yet */
		cxsim_flash_changed(r.c);
		cxsim_power_cycle(r.c);
		const struct cxsim_boot *b = cxsim_boot_info(r.c);
		assert_true(b->booted);
		assert_int_equal(b->nvalid, 2);
		assert_int_equal(b->start, 0);
		assert_string_equal(b->psid, slot ? k->file_psid : k->card_psid);

		card_open_listed(&r.d, r.c);
		if (device_read_fs3(&r.d, &img, &st))
			fail_msg("read: %s", st.msg);
		assert_int_equal(img.img.start, b->start);
		assert_int_equal(img.set_aside, s);
		devfs3_free(&img);
		if (burn(&r, &file_img, &o, &res, &st))
			fail_msg("burn from two images: %s", st.msg);
		assert_false(res.nothing_to_do);
		assert_int_equal(res.out.state, CARD_NEW_BOOTS);
		cxsim_power_cycle(r.c);
		assert_true(b->booted);
		assert_int_equal(b->nvalid, 1);
		assert_int_equal(b->start, res.start);
		assert_string_equal(b->psid, k->file_psid);
		assert_null(sc_devdata_diff(&card_img, r.before, cxsim_flash(r.c, &n), r.n));
		device_close(&r.d);
		card_open_listed(&r.d, r.c);
		rig_close(&r);
	}
}

/* A dry run reads and plans, and writes nothing. */
static void test_dry_run(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rig r;
		struct burn_opts o = {.dry_run = true, .guard.allow_psid_change = true, .hooks.confirm = confirm_yes};
		struct burn_result res;
		struct cx_status st = {0};

		rig_open(&r, &cases[i], 0, false);
		assert_int_equal(burn(&r, &file_img, &o, &res, &st), CX_OK);
		assert_true(res.out.dry_run);
		assert_int_equal(res.start, 1u << sc_slot_log(&card_img)); /* where it would go */
		assert_int_equal(res.out.state, CARD_UNTOUCHED);
		nothing_written(&r);
		rig_close(&r);
	}
}

/* A write-protected part: CX_EPROTECTED before anything is written. */
static void test_write_protected(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rig r;
		struct burn_opts o = {.guard.allow_psid_change = true, .hooks.confirm = confirm_yes};

		rig_open(&r, &cases[i], 0, true);
		expect_refused(&r, &file_img, &o, CX_EPROTECTED, NULL);
		rig_close(&r);
	}
}

/* Refusals that read the card: no image (an erased flash), damaged device data. */
static void test_card_refusals(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct chipcase *k = &cases[i];
		struct burn_opts o = {.guard.allow_psid_change = true, .hooks.confirm = confirm_yes};
		struct rig r;
		size_t n;

		/* Erased: no image, so no device data to keep. */
		rig_open(&r, k, 0, false);
		device_close(&r.d);
		uint8_t *f = cxsim_flash(r.c, &n);
		memset(f, 0xff, n);
		cxsim_flash_changed(r.c);
		cxsim_power_cycle(r.c);
		assert_false(cxsim_boot_info(r.c)->booted);
		card_open_listed(&r.d, r.c);
		free(r.before);
		r.before = sc_snapshot(r.c, &r.n);
		expect_refused(&r, &file_img, &o, CX_EIMAGE, "holds no valid");
		rig_close(&r);

		/* DEV_INFO damaged (a byte of its GUIDs): its CRC no longer matches. */
		rig_open(&r, k, 1, false);
		device_close(&r.d);
		cxsim_flash(r.c, &n)[0x1b000 + 0x22] ^= 0x10;
		cxsim_flash_changed(r.c);
		cxsim_power_cycle(r.c);
		assert_true(cxsim_boot_info(r.c)->booted); /* the boot ROM does not look at device data */
		card_open_listed(&r.d, r.c);
		free(r.before);
		r.before = sc_snapshot(r.c, &r.n);
		struct burn_result res;
		struct cx_status st = {0};
		int rc = burn(&r, &file_img, &o, &res, &st);
		if (rc == CX_OK || !strstr(st.msg, "DEV_INFO"))
			fail_msg("%s: damaged DEV_INFO: %d %s", cxsim_chip_name(k->chip), rc, st.msg);
		nothing_written(&r);
		rig_close(&r);
	}
}

/* Files that do not fit: the other format, another chip's HW ID. */
static void test_file_refusals(void **state)
{
	(void)state;
	struct burn_opts o = {.guard.allow_psid_change = true, .hooks.confirm = confirm_yes};
	static struct f3 other;

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct chipcase *k = &cases[i];
		struct rig r;

		rig_open(&r, k, 0, false);
		/* The other format: FS4 on an FS3 card, FS3 on a ConnectX-5. */
		struct f3_spec s = f3_defaults(!k->fs4);
		f3_build(&other, &s);
		expect_refused(&r, &other, &o, CX_EMISMATCH, NULL);
		/* The right format, another chip's HW ID. */
		s = f3_defaults(k->fs4);
		s.hw_id = k->hw_id == 0x209 ? 0x20b : 0x209;
		s.psid = k->card_psid;
		f3_build(&other, &s);
		expect_refused(&r, &other, &o, CX_EMISMATCH, NULL);
		/* A file whose IMAGE_INFO does not match its CRC. */
		other = file_img;
		other.buf[0x4000 + 0x30] ^= 1;
		expect_refused(&r, &other, &o, CX_EIMAGE, "the image file does not verify");
		rig_close(&r);
	}
}

/* What would change a signed image or the card's device data: refused, nothing written. */
static void test_options_refused(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rig r;

		rig_open(&r, &cases[i], 0, false);
		for (int which = 0; which < 5; which++) {
			struct burn_opts o = {.guard.allow_psid_change = true, .hooks.confirm = confirm_yes};
			if (which == 0)
				o.ident.given.have_guids = true;
			else if (which == 1)
				o.ident.given.have_macs = true;
			else if (which == 2)
				o.ident.vsd = "a new vsd";
			else if (which == 3)
				o.rom = ROM_IMAGE;
			else
				o.nofs = true;
			expect_refused(&r, &file_img, &o, CX_EUNSUPPORTED, "nothing was written");
		}
		rig_close(&r);
	}
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long len;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	*n = (size_t)len;
	return buf;
}

/* A backup bundle of such a card: its format, PSID, base GUID and MAC, and its whole flash. */
static void test_backup(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct chipcase *k = &cases[i];
		struct rig r;
		struct backup_result b;
		struct cx_status st = {0};
		char dir[256], path[BACKUP_PATH_MAX + 32];
		size_t n, fn;

		rig_open(&r, k, 1, false);
		scratch_dir(dir, sizeof(dir), "fs3card");
		if (backup_card(&r.d, dir, &b, &st))
			fail_msg("backup: %s", st.msg);
		snprintf(path, sizeof(path), "%s/identity.json", b.path);
		char *id = slurp(path, &n);
		if (!strstr(id, k->fs4 ? "\"FS4\"" : "\"FS3\"") || !strstr(id, "image_format") ||
		    !strstr(id, k->card_psid) || !strstr(id, "0002c9030011aa00") || !strstr(id, "0002c9030011"))
			fail_msg("%s: identity.json lacks the format, PSID, GUID or MAC:\n%s", cxsim_chip_name(k->chip), id);
		free(id);
		snprintf(path, sizeof(path), "%s/flash.bin", b.path);
		char *fl = slurp(path, &fn);
		assert_int_equal(fn, r.n);
		assert_memory_equal(fl, cxsim_flash(r.c, &n), fn);
		free(fl);
		rm_rf(dir);
		nothing_written(&r);
		rig_close(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cross_psid_burn),
		cmocka_unit_test(test_two_images),
		cmocka_unit_test(test_dry_run),
		cmocka_unit_test(test_write_protected),
		cmocka_unit_test(test_card_refusals),
		cmocka_unit_test(test_file_refusals),
		cmocka_unit_test(test_options_refused),
		cmocka_unit_test(test_backup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
