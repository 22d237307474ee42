/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_restore.c — restore_card() against the card model in process: a bundle made
 * with backup_card() comes back byte for byte after burns moved the image (also when
 * the card runs from the very slot the bundle must rewrite), refusals write nothing,
 * a recovery-mode card is restored from its bundle, and a power cut at every k-th
 * config access of the hardest restore always leaves a card that boots. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/burn.h"
#include "ops/restore.h"
#include "ops/restore_order.h"
#include "card_fixture.h"
#include "card_ops.h"
#include "flint_view.h"
#include "sim_cfg.h"
#include "mkimage.h"
#include "scratch.h"

#define CARD_GUID 0x0002c90300c0ffe0ull
#define CARD_MAC 0x0002c9c0ffe0ull
#define IMG "--chip cx3 --ddr 2 --ddr-size 0x2000"

/* A CX3 card (W25Q16 unless part) holding FW 2.<minor>.0 with the card's identity in slot 'slot'. */
static struct cxsim_card *card(const char *part, enum cxsim_chip chip, int minor, int slot, uint64_t guid)
{
	char o[300];

	snprintf(o, sizeof(o), "--chip %s --ddr 2 --ddr-size 0x2000 --fw 2.%d.0 --guid %016llx --mac %012llx",
		 chip == CXSIM_CX3PRO ? "cx3pro" : "cx3", minor, (unsigned long long)guid,
		 (unsigned long long)(guid & 0xffffffull) | 0x0002c9000000ull);
	return card_new(&(struct card_spec){.chip = chip, .part = part, .image = o, .slot = slot});
}

static void burn(struct cxsim_card *c, int minor)
{
	/* Each image's own ROM (its seed's bytes): the burns change the ROM section too, as
	 * the power-cut campaigns below were laid out for (--rom keep would keep the card's). */
	struct burn_opts o = {.rom = ROM_IMAGE};
	struct burn_result r;
	struct cx_status st = {0};
	char opts[200];

	snprintf(opts, sizeof(opts), IMG " --fw 2.%d.0 --seed %d", minor, minor);
	if (run_burn(c, opts, &o, &r, &st))
		fail_msg("burn 2.%d: %s", minor, st.msg);
	cxsim_power_cycle(c);
}

static int restore(struct cxsim_card *c, const char *bundle, struct restore_opts *o, struct restore_result *r,
		   struct cx_status *st)
{
	struct device d;

	card_open(&d, c);
	int rc = restore_card(&d, bundle, o, r, st);
	device_close(&d);
	cxsim_power_cycle(c);
	return rc;
}

/* After two burns the card runs from slot 0 again, with other firmware: the
 * bundle's slot 0 cannot be rewritten in place, so the restore goes through slot 1. */
static void test_restore_gives_back_the_flash(void **state)
{
	(void)state;
	char dir[64];
	struct backup_result b;
	struct restore_result r;
	struct cx_status st = {0};
	int asked = 0;
	size_t n, m;

	scratch_dir(dir, sizeof(dir), "restore");
	struct cxsim_card *c = card("W25Q16", CXSIM_CX3, 40, 0, CARD_GUID);
	uint8_t *orig = flash_copy(c, &n);
	card_backup(c, dir, &b);
	for (int burns = 1; burns <= 2; burns++) {
		for (int k = 1; k <= burns; k++)
			burn(c, 40 + k); /* one burn: the card runs from slot 1; two: from slot 0 again */
		struct restore_opts o = {.hooks.confirm = confirm_yes, .hooks.confirm_ctx = &asked};
		cx_status_clear(&st);
		assert_int_equal(restore(c, b.path, &o, &r, &st), CX_OK);
		assert_true(r.identity_checked);
		assert_int_equal(r.plan.used_copy, burns == 2);
		uint8_t *now = cxsim_flash(c, &m);
		assert_int_equal(m, n);
		assert_memory_equal(now, orig, n);
		assert_string_equal(r.flash_sha256, b.flash_sha256);
		assert_int_equal(cxsim_boot_info(c)->fw_ver[1], 40);
		assert_int_equal(cxsim_boot_info(c)->guids[0], CARD_GUID);
	}
	assert_int_equal(asked, 0); /* the same card: no question */

	/* Once more onto a card that already equals the bundle: nothing written. */
	struct restore_opts o = {0};
	struct cxsim_card *same = card("W25Q16", CXSIM_CX3, 40, 0, CARD_GUID);
	cxsim_counters_reset(same);
	assert_int_equal(restore(same, b.path, &o, &r, &st), CX_OK);
	assert_true(r.nothing_to_do);
	assert_int_equal(cxsim_counters(same)->erases, 0);
	cxsim_free(same);
	free(orig);
	cxsim_free(c);
	rm_rf(dir);
}

static void expect_refused(struct cxsim_card *c, const char *bundle, struct restore_opts *o, int code,
			   const char *words)
{
	struct restore_result r;
	struct cx_status st = {0};
	size_t n;
	uint8_t *before = flash_copy(c, &n);

	cxsim_counters_reset(c);
	assert_int_equal(restore(c, bundle, o, &r, &st), code);
	if (!strstr(st.msg, words))
		fail_msg("'%s' does not say '%s'", st.msg, words);
	assert_int_equal(cxsim_counters(c)->erases, 0);
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);
	assert_memory_equal(cxsim_flash(c, &n), before, n);
	free(before);
}

static void test_refusals_write_nothing(void **state)
{
	(void)state;
	char dir[64], path[BACKUP_PATH_MAX + 16];
	struct backup_result b;
	struct restore_opts o = {0};
	int asked = 0;

	scratch_dir(dir, sizeof(dir), "restore");
	struct cxsim_card *mine = card("W25Q16", CXSIM_CX3, 40, 0, CARD_GUID);
	card_backup(mine, dir, &b);

	/* Another card of the same kind: refused, and with --force only after a yes. */
	struct cxsim_card *other = card("W25Q16", CXSIM_CX3, 41, 1, 0x0002c90300aaaa00ull);
	expect_refused(other, b.path, &o, CX_EMISMATCH, "another card");
	o.force = true;
	expect_refused(other, b.path, &o, CX_EDECLINED, "another card");
	o.hooks.confirm = confirm_yes;
	o.hooks.confirm_ctx = &asked;
	struct restore_result r;
	struct cx_status st = {0};
	assert_int_equal(restore(other, b.path, &o, &r, &st), CX_OK);
	assert_int_equal(asked, 1);
	assert_int_equal(cxsim_boot_info(other)->guids[0], CARD_GUID);
	cxsim_free(other);

	/* Another chip, and a bundle whose flash.bin changed: never, force or not. */
	struct cxsim_card *pro = card("W25Q16", CXSIM_CX3PRO, 40, 0, CARD_GUID);
	expect_refused(pro, b.path, &o, CX_EMISMATCH, "ConnectX-3 Pro");
	cxsim_free(pro);
	snprintf(path, sizeof(path), "%s/flash.bin", b.path);
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	fseek(f, 0x1234, SEEK_SET);
	fputc(0x5a, f);
	fclose(f);
	expect_refused(mine, b.path, &o, CX_EIMAGE, "flash.bin");
	cxsim_free(mine);
	rm_rf(dir);
}

/* A card in recovery mode cannot say who it is: the user is asked, then the bundle brings it back. */
static void test_recovery_card_restored(void **state)
{
	(void)state;
	char dir[64];
	struct backup_result b;
	struct restore_result r;
	struct cx_status st = {0};
	int asked = 0;
	size_t n;

	scratch_dir(dir, sizeof(dir), "restore");
	struct cxsim_card *c = card("M25P16", CXSIM_CX3, 40, 1, CARD_GUID);
	card_backup(c, dir, &b);
	uint8_t *flash = cxsim_flash(c, &n);
	memset(flash, 0xFF, n); /* a flash that lost everything */
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
	assert_int_equal(cxsim_pci_device_now(c), 0x1f6); /* recovery ID = HW ID + 1 */
	struct restore_opts o = {0};
	expect_refused(c, b.path, &o, CX_EDECLINED, "recovery mode");
	o.hooks.confirm = confirm_yes;
	o.hooks.confirm_ctx = &asked;
	assert_int_equal(restore(c, b.path, &o, &r, &st), CX_OK);
	assert_int_equal(asked, 1);
	assert_int_equal(cxsim_pci_device_now(c), 0x1003);
	assert_int_equal(cxsim_boot_info(c)->guids[0], CARD_GUID);
	assert_int_equal(cxsim_boot_info(c)->fw_ver[1], 40);
	cxsim_free(c);
	rm_rf(dir);
}

/* Power cut during the restore that must go through the other slot. */
struct campaign {
	bool armed;
	uint64_t accesses, cuts, booted[3];
	unsigned every, minor[3]; /* the FW minors a cut may boot; booted[i] counts minor[i] */
	char failure[CX_MSG_MAX + 200];
};

static void cut_here(void *ctx, struct cxsim_card *card)
{
	struct campaign *k = ctx;

	if (!k->armed || ++k->accesses % k->every || k->failure[0])
		return;
	struct cxsim_card *clone = cxsim_clone(card);
	if (!clone) {
		snprintf(k->failure, sizeof(k->failure), "out of memory");
		return;
	}
	cxsim_power_cycle(clone);
	const struct cxsim_boot *b = cxsim_boot_info(clone);
	struct flint_view fv = {0};
	const char *why = flint_view_lowest_whole(clone, &fv);
	k->cuts++;
	if (why)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: %s", (unsigned long long)k->accesses, why);
	else if (fv.minor != b->fw_ver[1])
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: flint would read FW minor %u, the boot "
			 "ROM boots %u", (unsigned long long)k->accesses, fv.minor, b->fw_ver[1]);
	else if (!b->booted)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: recovery mode (%s)",
			 (unsigned long long)k->accesses, b->why);
	else if (b->guids[0] != CARD_GUID)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: identity lost", (unsigned long long)k->accesses);
	else if (b->fw_ver[1] == k->minor[0])
		k->booted[0]++;
	else if (b->fw_ver[1] == k->minor[1])
		k->booted[1]++;
	else if (k->minor[2] && b->fw_ver[1] == k->minor[2])
		k->booted[2]++;
	else
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: boots FW minor %u",
			 (unsigned long long)k->accesses, b->fw_ver[1]);
	cxsim_free(clone);
}

static int arm(void *ctx, struct cx_status *st)
{
	(void)st;
	((struct campaign *)ctx)->armed = true;
	return CX_OK;
}

/* A card at FW 40 in slot 0, burned 'before' times (41, 42, ...), backed up, burned 'after'
 * times more, then restored from that bundle under k's cuts (armed once the restore's own
 * backup is made): every cut must boot, and the flash must end as the bundle. */
static void campaign_restore(int before, int after, struct campaign *k, struct restore_result *r)
{
	char dir[64];
	struct backup_result b;
	struct cx_status st = {0};
	size_t n;
	int minor = 40;

	scratch_dir(dir, sizeof(dir), "restore");
	struct cxsim_card *c = card("W25Q16", CXSIM_CX3, minor, 0, CARD_GUID);
	for (int i = 0; i < before; i++)
		burn(c, ++minor);
	uint8_t *orig = flash_copy(c, &n);
	card_backup(c, dir, &b);
	for (int i = 0; i < after; i++)
		burn(c, ++minor);
	struct restore_opts o = {.hooks.before_write = arm, .hooks.before_ctx = k};
	sim_cfg_set_hook(cut_here, k);
	int rc = restore(c, b.path, &o, r, &st);
	sim_cfg_set_hook(NULL, NULL);
	if (k->failure[0])
		fail_msg("%s", k->failure);
	if (rc)
		fail_msg("restore: %s", st.msg);
	assert_memory_equal(cxsim_flash(c, &n), orig, n);
	free(orig);
	cxsim_free(c);
	rm_rf(dir);
}

/* Two burns after the backup put the card back on slot 0: the bundle's slot 1 is blank,
 * so the restore must copy the bundle's image through it. */
static void test_powercut_during_restore(void **state)
{
	(void)state;
	struct restore_result r;

	/* A cut every 100 accesses: the restore plans from its one read of the flash
	 * (write_procedure.h) and reads back only what it writes, ~205,000 accesses where it
	 * took 2 M when it read the flash twice more; the campaign keeps its 2,000 cuts. */
	struct campaign k = {.every = 100, .minor = {40, 42}};
	campaign_restore(0, 2, &k, &r);
	assert_true(r.plan.used_copy);
	printf("restore by way of the other slot: %llu config accesses while writing and verifying, %llu cut "
	       "points: %llu booted the old FW, %llu the bundle's\n", (unsigned long long)k.accesses,
	       (unsigned long long)k.cuts, (unsigned long long)k.booted[1], (unsigned long long)k.booted[0]);
	assert_true(k.cuts >= 2000);
	assert_true(k.booted[0] > 0 && k.booted[1] > 0);
}

/* A bundle made after two burns holds, in its other slot, the image the second burn
 * left there (41, magic zeroed). The card then moved on by two more burns (44 runs): its
 * running slot must change, and the restore lets that older image carry the card while
 * it does (restore_order.h used_old) instead of copying the bundle's image through the other
 * slot. A cut every 100 accesses boots the card's FW, the older image or the bundle's
 * (42), always with the card's identity. */
static void test_powercut_restore_via_older_image(void **state)
{
	(void)state;
	struct restore_result r;
	struct campaign k = {.every = 100, .minor = {42, 44, 41}};

	campaign_restore(2, 2, &k, &r);
	assert_true(r.plan.used_old);
	assert_false(r.plan.used_copy);
	printf("restore by way of the older image: %llu cut points: %llu booted the card's FW, %llu the older "
	       "image, %llu the bundle's\n", (unsigned long long)k.cuts, (unsigned long long)k.booted[1],
	       (unsigned long long)k.booted[2], (unsigned long long)k.booted[0]);
	assert_true(k.cuts >= 1000);
	assert_true(k.booted[0] > 0 && k.booted[1] > 0 && k.booted[2] > 0);
}

/* Which way the plan goes, from the flash bytes alone (rewrite_inspect): a change
 * anywhere in the running image's slot (its chunks, also those past the other slot's
 * start) needs another whole image meanwhile, a change only in the other slot does not; the bundle's older image serves only when it is
 * whole and the card's. */
static void test_plan_sees_the_whole_slot(void **state)
{
	(void)state;
	struct rewrite_info info;
	struct cx_status st = {0};
	size_t n;
	struct cxsim_card *c = card("W25Q16", CXSIM_CX3, 40, 0, CARD_GUID);
	burn(c, 41);
	burn(c, 42);
	uint8_t *want = flash_copy(c, &n), *have = flash_copy(c, &n);
	struct rewrite_plan p = {(uint32_t)n, 6, have, want};

	have[0x5000] ^= 0xFF; /* inside the running image's first chunk */
	assert_int_equal(rewrite_inspect(&p, &info, &st), CX_OK);
	assert_true(info.used_old);
	uint32_t chunk = info.copy_start; /* slot 1 starts one chunk in (fs2-format.md §1.5) */
	assert_true(chunk >= 0x10000 && 3 * chunk <= n);
	have[0x5000] ^= 0xFF;

	have[2 * chunk + 0x5000] ^= 0xFF; /* slot 0's second chunk, past slot 1's start */
	assert_int_equal(rewrite_inspect(&p, &info, &st), CX_OK);
	assert_true(info.used_old);
	have[2 * chunk + 0x5000] ^= 0xFF;

	have[chunk + 0x5000] ^= 0xFF; /* slot 1's: the running image is not touched */
	assert_int_equal(rewrite_inspect(&p, &info, &st), CX_OK);
	assert_false(info.used_old || info.used_copy);
	have[chunk + 0x5000] ^= 0xFF;

	have[0x5000] ^= 0xFF;
	want[chunk + 0x48] ^= 0xFF; /* its BOOT2 (fs2-format.md §1.3) no longer verifies: the copy it is */
	assert_int_equal(rewrite_inspect(&p, &info, &st), CX_OK);
	assert_false(info.used_old);
	assert_true(info.used_copy);
	free(want);
	free(have);
	cxsim_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restore_gives_back_the_flash),
		cmocka_unit_test(test_refusals_write_nothing),
		cmocka_unit_test(test_recovery_card_restored),
		cmocka_unit_test(test_powercut_during_restore),
		cmocka_unit_test(test_powercut_restore_via_older_image),
		cmocka_unit_test(test_plan_sees_the_whole_slot),
	};
	return cmocka_run_group_tests_name("restore", tests, NULL, NULL);
}
