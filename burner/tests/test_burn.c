/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_burn.c — burn_card() against the card model in process: failsafe slot switches
 * with the card's identity kept, nothing written when nothing changes (and a damaged
 * copy of the same image burned again), refusals that write nothing, a recovery burn
 * with a given identity, the check after the write, the backup's read as the plan of the
 * default path (and not once the flash changed after it). The cost of a burn is measured by
 * bench_burn.c (make bench), not here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/zebra.h"
#include "ops/backup.h"
#include "ops/burn.h"
#include "util/bytes.h"
#include "card_fixture.h"
#include "card_ops.h"
#include "sim_cfg.h"
#include "mkimage.h"

#define CARD_GUID "0002c90300c0ffe0"
#define CARD_MAC "0002c9c0ffe0"

static uint8_t *gen(const char *opts, size_t *len)
{
	return mkimage(opts, len);
}

/* A card holding an image (as a dump in slot 'slot') made from opts, or blank. */
static struct cxsim_card *card(enum cxsim_chip chip, const char *part, const char *opts, int slot)
{
	return card_new(&(struct card_spec){.chip = chip, .part = part, .image = opts, .slot = slot});
}

static void test_burn_switches_slots_and_keeps_identity(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3, "W25Q16",
				    "--chip cx3 --ddr 3 --fw 2.40.7000 --guid " CARD_GUID " --mac " CARD_MAC " --vsd MINE", 0);
	struct burn_opts o = {0};
	struct burn_result r;
	struct cx_status st = {0};

	assert_int_equal(run_burn(c, "--chip cx3 --ddr 3 --fw 2.42.5000 --seed 3", &o, &r, &st), CX_OK);
	assert_int_equal(r.start, 0x80000);
	char from[48];
	assert_true(r.had_image);
	assert_string_equal(burn_from_text(&r, from, sizeof(from)), "FW 2.40.7000");
	cxsim_power_cycle(c);
	const struct cxsim_boot *b = cxsim_boot_info(c);
	assert_true(b->booted);
	assert_int_equal(b->slot, 1);
	assert_int_equal(b->fw_ver[1], 42);
	assert_int_equal(b->guids[0], 0x0002c90300c0ffe0ull);
	assert_int_equal(b->macs[1], 0x0002c9c0ffe1ull);
	assert_string_equal(b->vsd, "MINE");
	assert_int_equal(b->nvalid, 1);

	/* The same again: nothing to write, no erase, no program. */
	cxsim_counters_reset(c);
	int asked = 0;
	o.hooks.confirm = confirm_yes;
	o.hooks.confirm_ctx = &asked;
	assert_int_equal(run_burn(c, "--chip cx3 --ddr 3 --fw 2.42.5000 --seed 3", &o, &r, &st), CX_OK);
	assert_true(r.nothing_to_do);
	assert_int_equal(asked, 1); /* "already has firmware ... burn it again?" */
	assert_int_equal(cxsim_counters(c)->erases, 0);
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);

	/* Back to slot 0 with an older image: asks, then goes. */
	assert_int_equal(run_burn(c, "--chip cx3 --ddr 2 --fw 2.40.7000", &o, &r, &st), CX_OK);
	assert_int_equal(r.start, 0);
	cxsim_power_cycle(c);
	assert_int_equal(cxsim_boot_info(c)->slot, 0);
	assert_int_equal(cxsim_boot_info(c)->guids[0], 0x0002c90300c0ffe0ull);
	assert_int_equal(cxsim_counters(c)->gw_without_sem, 0);
	cxsim_free(c);
}

static void test_refusals_write_nothing(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3, "W25Q16", "--chip cx3 --ddr 2 --psid HP_0280210019", 0);
	struct burn_opts o = {0};
	struct burn_result r;
	struct cx_status st = {0};

	cxsim_counters_reset(c);
	assert_int_equal(run_burn(c, "--chip cx3pro --ddr 2 --psid HP_0280210019", &o, &r, &st), CX_EMISMATCH);
	cx_status_clear(&st);
	assert_int_equal(run_burn(c, "--chip cx3 --rev 0 --ddr 2 --psid HP_0280210019", &o, &r, &st), CX_EMISMATCH);
	cx_status_clear(&st);
	assert_int_equal(run_burn(c, "--chip cx3 --ddr 2 --fw 2.42.5000", &o, &r, &st), CX_EMISMATCH);
	assert_non_null(strstr(st.msg, "PSID"));
	cx_status_clear(&st);
	/* Allowed, but the question is not answered: declined. */
	o.guard.allow_psid_change = true;
	assert_int_equal(run_burn(c, "--chip cx3 --ddr 2 --fw 2.42.5000", &o, &r, &st), CX_EDECLINED);
	assert_int_equal(cxsim_counters(c)->erases, 0);
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);
	/* Answered: cross-flashed to the stock PSID, identity kept. */
	int asked = 0;
	o.hooks.confirm = confirm_yes;
	o.hooks.confirm_ctx = &asked;
	cx_status_clear(&st);
	assert_int_equal(run_burn(c, "--chip cx3 --ddr 2 --fw 2.42.5000", &o, &r, &st), CX_OK);
	cxsim_power_cycle(c);
	assert_string_equal(cxsim_boot_info(c)->psid, "MT_1090120019");
	cxsim_free(c);
}

static void test_recovery_burn_with_given_identity(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3PRO, "M25P16", NULL, 0);
	struct burn_opts o = {0};
	struct burn_result r;
	struct cx_status st = {0};

	assert_int_equal(cxsim_pci_device_now(c), 0x01f8);
	assert_int_equal(run_burn(c, "--chip cx3pro --ddr 2", &o, &r, &st), CX_EVALUE); /* no identity */
	assert_non_null(strstr(st.msg, "recovery"));
	o.ident.given.have_guids = o.ident.given.have_macs = true;
	patch_expand_guid(0x0002c90300123400ull, o.ident.given.guid);
	patch_expand_mac(0x0002c9123400ull, o.ident.given.mac);
	cx_status_clear(&st);
	assert_int_equal(run_burn(c, "--chip cx3pro --ddr 2", &o, &r, &st), CX_OK);
	/* What it was: recovery mode, no image; not a version 0.0.0. */
	char from[48];
	assert_false(r.had_image);
	assert_string_equal(burn_from_text(&r, from, sizeof(from)), "recovery mode, no readable image");
	cxsim_power_cycle(c);
	assert_int_equal(cxsim_pci_device_now(c), 0x1007);
	assert_int_equal(cxsim_boot_info(c)->guids[2], 0x0002c90300123402ull);
	assert_int_equal(cxsim_boot_info(c)->macs[0], 0x0002c9123400ull);
	cxsim_free(c);
}

/* A recovery-mode card whose image is damaged only in its code (BOOT2's CRC, as
 * `cxsim create --corrupt` does) still holds a GUID section whose CRC is good:
 * mstflint 3.8 keeps those GUIDs (hw-access.md §9.2 D6), and so does the burn,
 * saying where they came from. With that section's CRC broken too, the GUIDs
 * are not trusted: the burn refuses as before and writes nothing. */
static void test_recovery_burn_keeps_readable_guids(void **state)
{
	(void)state;
	for (int guid_ok = 1; guid_ok >= 0; guid_ok--) {
		struct cxsim_card *c = card(CXSIM_CX3, "W25Q16",
					    "--chip cx3 --ddr 2 --guid " CARD_GUID " --mac " CARD_MAC, 0);
		struct burn_opts o = {0};
		struct burn_result r;
		struct cx_status st = {0};
		size_t size;
		uint8_t *m = cxsim_flash(c, &size);

		m[FS2_BOOT2_START + 8] ^= 0xA5;          /* BOOT2's first code dword: nothing boots */
		if (!guid_ok)
			m[be32(m + FS2_OFF_GUID_PTR) + 3] ^= 0x01; /* a GUID byte: the section's CRC fails */
		cxsim_flash_changed(c);
		cxsim_power_cycle(c);
		assert_int_equal(cxsim_pci_device_now(c), 0x01f6);
		cxsim_counters_reset(c);
		int rc = run_burn(c, "--chip cx3 --ddr 2 --fw 2.42.5000", &o, &r, &st);
		if (!guid_ok) {
			assert_int_equal(rc, CX_EVALUE);
			assert_non_null(strstr(st.msg, "no GUIDs can be read"));
			assert_int_equal(cxsim_counters(c)->erases, 0);
			assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);
			cxsim_free(c);
			continue;
		}
		assert_int_equal(rc, CX_OK);
		assert_int_equal(r.guid_source, ID_SRC_DAMAGED);
		assert_string_equal(identity_source_name(r.guid_source), "damaged-image");
		cxsim_power_cycle(c);
		assert_int_equal(cxsim_pci_device_now(c), 0x1003);
		assert_int_equal(cxsim_boot_info(c)->guids[0], 0x0002c90300c0ffe0ull);
		assert_int_equal(cxsim_boot_info(c)->guids[3], 0x0002c90300c0ffe3ull);
		assert_int_equal(cxsim_boot_info(c)->macs[1], 0x0002c9c0ffe1ull);
		cxsim_free(c);
	}
}

/* A copy of the same image with one byte damaged (versions and the stored
 * CRCs of every header the checks read say "same") is found by comparing the
 * card's bytes, and burned again into the other slot. */
static void test_damaged_copy_is_burned_again(void **state)
{
	(void)state;
	const char *opts = "--chip cx3 --ddr 4 --fw 2.42.5000 --seed 5";
	struct cxsim_card *c = card(CXSIM_CX3, "W25Q16", opts, 0);
	struct burn_opts o = {0};
	struct burn_result r;
	struct cx_status st = {0};
	int asked = 0;

	o.hooks.confirm = confirm_yes;
	o.hooks.confirm_ctx = &asked;
	cxsim_counters_reset(c);
	assert_int_equal(run_burn(c, opts, &o, &r, &st), CX_OK);
	assert_true(r.nothing_to_do);
	assert_int_equal(cxsim_counters(c)->erases + cxsim_counters(c)->bytes_programmed, 0);

	/* Damage one byte of the last DDR section on the card's flash (slot 0). */
	size_t len, fsize;
	uint8_t *img = gen(opts, &len);
	struct fs2_image *pi = malloc(sizeof(*pi));
	assert_non_null(pi);
	assert_int_equal(fs2_parse(img, len, pi, &st), CX_OK);
	uint32_t at = 0;
	for (int i = 0; i < pi->nitems; i++)
		if (pi->items[i].kind == FS2_ITEM_SECTION && pi->items[i].type == FS2_DDR)
			at = pi->items[i].data_off + 8;
	assert_true(at > 0);
	uint8_t *flash = cxsim_flash(c, &fsize);
	flash[zebra_cont2phys(at, pi->log2chunk, 0)] ^= 0x01;
	cxsim_flash_changed(c);
	free(pi);
	free(img);

	cxsim_counters_reset(c);
	assert_int_equal(run_burn(c, opts, &o, &r, &st), CX_OK);
	assert_false(r.nothing_to_do);
	assert_int_equal(r.start, 0x80000);
	cxsim_power_cycle(c);
	assert_true(cxsim_boot_info(c)->booted);
	assert_int_equal(cxsim_boot_info(c)->slot, 1);
	assert_int_equal(cxsim_boot_info(c)->nvalid, 1);
	cxsim_free(c);
}

/* The check after the write is not decoration: a header of the new image
 * that changes after its own verify (here: by hand, once the old signature
 * is gone, the last write of a burn) fails the burn. */
struct spoil {
	uint32_t at;                 /* the byte to flip, once the old signature is zeroed */
	bool done;
};

static void spoil_after_invalidation(void *ctx, struct cxsim_card *card)
{
	struct spoil *sp = ctx;
	size_t size;
	uint8_t *flash = cxsim_flash(card, &size);

	if (sp->done || flash[0] || flash[1] || flash[2] || flash[3])
		return;
	flash[sp->at] ^= 0x01;
	cxsim_flash_changed(card);
	sp->done = true;
}

static void test_check_after_the_write(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3, "W25Q16", "--chip cx3 --ddr 3 --fw 2.40.7000", 0);
	struct burn_opts o = {0};
	struct burn_result r;
	struct cx_status st = {0};
	struct spoil sp = {0x80000 + FS2_OFF_IMG_SIZE + 3, false}; /* the new slot's image size field */

	sim_cfg_set_hook(spoil_after_invalidation, &sp);
	int rc = run_burn(c, "--chip cx3 --ddr 3 --fw 2.42.5000 --seed 3", &o, &r, &st);
	sim_cfg_set_hook(NULL, NULL);
	assert_true(sp.done);
	assert_int_equal(rc, CX_EFLASH);
	assert_non_null(strstr(st.msg, "read-back after the burn does not match the image at 0x80000"));
	cxsim_free(c);
}

/* The default path: the backup's whole read (two reads agreeing, ops/backup.h) is the
 * burn's plan. */
struct backup_then {
	struct device *d;
	char dir[64];
	bool scribble;               /* then program 16 zero bytes where the new image goes */
	uint32_t at;
};

static int backup_then(void *ctx, struct cx_status *st)
{
	struct backup_then *x = ctx;
	struct backup_result b;
	static const uint8_t zero[16];

	if (backup_card(x->d, x->dir, &b, st))
		return st->code;
	if (x->scribble && (flash_prepare_write(&x->d->flash, st) || flash_program(&x->d->flash, x->at, zero, 16, st)))
		return st->code;
	return CX_OK;
}

static void backup_and_burn(bool scribble)
{
	struct cxsim_card *c = card(CXSIM_CX3, "W25Q16",
				    "--chip cx3 --ddr 8 --fw 2.40.7000 --guid " CARD_GUID " --mac " CARD_MAC, 0);
	struct backup_then x = {.scribble = scribble, .at = 0x80000 + 0x1000};
	struct burn_opts o = {.hooks.before_write = backup_then, .hooks.before_ctx = &x};
	struct burn_result r;
	struct cx_status st = {0};
	struct device d;
	size_t len;
	uint8_t *img = gen("--chip cx3 --ddr 8 --fw 2.42.5000 --seed 3", &len);

	snprintf(x.dir, sizeof(x.dir), "/tmp/cxtest-burn-XXXXXX");
	assert_non_null(mkdtemp(x.dir));
	x.d = &d;
	card_open(&d, c);
	uint32_t size = d.flash.size;
	int rc = burn_card(&d, img, len, &o, &r, &st);
	device_close(&d);
	assert_int_equal(rc, CX_OK);
	assert_true(r.out.backed_up);
	assert_int_equal(r.start, 0x80000);
	expect_cold_boot(c, 42, 0x0002c90300c0ffe0ull, 0x0002c9c0ffe0ull);
	if (!scribble) {
		/* The backup's two reads, the read-back of what was programmed, the walks
		 * before and after (a few KiB): the other slot is not read again to plan. */
		assert_true(r.out.bytes_read <= 2ull * size + r.out.bytes_programmed + 32 * 1024);
		assert_int_equal(r.out.bytes_erased, 0);
	} else {
		/* A flash changed after the backup is not planned from it: the unit holding
		 * the zeros was read, erased and written again. */
		assert_true(r.out.bytes_erased > 0);
	}
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", x.dir);
	assert_int_equal(system(cmd), 0);
	free(img);
	cxsim_free(c);
}

static void test_backup_read_is_the_plan(void **state)
{
	(void)state;
	backup_and_burn(false);
}

static void test_changed_flash_is_read_again(void **state)
{
	(void)state;
	backup_and_burn(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burn_switches_slots_and_keeps_identity),
		cmocka_unit_test(test_refusals_write_nothing),
		cmocka_unit_test(test_recovery_burn_with_given_identity),
		cmocka_unit_test(test_recovery_burn_keeps_readable_guids),
		cmocka_unit_test(test_damaged_copy_is_burned_again),
		cmocka_unit_test(test_check_after_the_write),
		cmocka_unit_test(test_backup_read_is_the_plan),
		cmocka_unit_test(test_changed_flash_is_read_again),
	};
	return cmocka_run_group_tests_name("burn", tests, NULL, NULL);
}
