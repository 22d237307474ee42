/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_powercut_restore_fs3.c — power cuts during a restore of a backup bundle onto a
 * ConnectX-4 Lx (FS3) and a ConnectX-5 (FS4) on the card model, in process, through
 * restore_card() (ops/restore_fs3.h, ops/restore_order_fs3.h).
 *
 * Two kinds of write, each on both chips, the card's image in slot 0 and in slot 1:
 *   - slot restore: the bundle is the card as it was (its OEM image, its device data);
 *     the card was then cross-flashed to another image (burn_card(): the other slot, the
 *     old magic zeroed); the restore writes the image area back, the device area alone;
 *   - device-data restore (--device-data): the card holds the same image with other
 *     device data (another base GUID and MAC, NV data, VPD); the restore writes the
 *     bundle's device area back (on FS3 its image area too: the ITOC keeps the device
 *     sections' CRCs, so the card runs the slot that changes and the order goes through
 *     the other slot first).
 * The part is 2 MiB (W25Q16), 1 MiB slots: each cut clones the card, and the backup and the
 * restore read the whole flash through the model, so the smallest flash that holds both
 * slots keeps the campaign's runtime down (FS4's DTOC then sits in slot 1's span, after
 * the image, as device data may, fs3-format.md §11.1).
 * Cut points are as in test_powercut_fs3_card.c: every flash write command the moment it
 * is sent, and every `every`-th config access from the first write on (inside commands:
 * the model keeps a share of a page program's bytes and leaves an erased sector undefined).
 * At each, a clone of the card is powered off and on, and:
 *   - the model's own boot ROM (sim/core/bootrom_fs3.c) boots an image, the card's or the
 *     bundle's (its PSID one of the two);
 *   - the identity is never lost: at a DEV_INFO place one of the two TOCs lists, or the
 *     temporary place of ops/restore_order_fs3.h, the 512 bytes of the card's old DEV_INFO
 *     or of the bundle's are whole;
 *   - a slot restore leaves every device section and FS4's DTOC byte for byte as before.
 * After the uncut run the flash is the bundle's flash.bin, byte for byte.
 *
 * The same two kinds again on a card whose firmware RUNS (fs3_sim_card.h sc_new_running, the
 * test_*_running tests): the cross-flash, the backup's reads and the restore all go through
 * that firmware (MFBA/MFBE over ICMD, hw-access.md §3.14), no gateway transaction. A write
 * command is then one the firmware carried out (an erase, or a program: its bytes counter
 * moved). The firmware does each whole when go is written, so no config access falls inside
 * one: the cuts are at each command, at every `every`-th access, and each command torn on the
 * clone as test_powercut_fw_card.c tears them (an erase's range undefined, a third and two
 * thirds of a program's bytes: tear()). After each cut the card boots one of the two images
 * with its firmware running again (so the next restore can go through it), its identity whole.
 * Fewer cuts per layout (RUNNING_CUTS a chip, both kinds and slots: at least 2,000 in all). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "card_fixture.h"
#include "card_ops.h"
#include "fs3_card.h"
#include "fs3_sim_card.h"
#include "ops/restore.h"
#include "scratch.h"
#include "sim_cfg.h"

#define MIN_CUTS 2000            /* per kind of write and format, the brief's floor */
#define RUNNING_CUTS 1000        /* per chip with its firmware running, both kinds: 2,000 across both */
#define OTHER_GUID 0x0002c9030022bb00ull
#define DEVINFO_AT 0x1b000u      /* the builder's DEV_INFO (fs3_builder.h f3_build) */
#define DEVINFO_LEN 0x200u
#define SPARE_AT 0x1c000u        /* FS4's listed spare DEV_INFO */
#define FS3_TEMP_AT 0x19000u     /* MFG_INFO (0x1a000) - 4 KiB: FS3's other copy place */
#define EV_MAX 0x10000u          /* the most one firmware command changes: a 64 KiB erase */

enum kind { K_SLOTS, K_DEVICE };

struct layout {
	enum cxsim_chip chip;
	int slot;
	enum kind kind;
	bool running;            /* the card's firmware runs: cxflash writes through it (MFBA/MFBE) */
};

static struct f3 card_img, file_img, other_img;

static bool fs4_of(enum cxsim_chip c)
{
	return c == CXSIM_CX5;
}

struct camp {
	struct cxsim_card *card;
	const struct layout *L;
	uint8_t *before, *bundle;      /* the card before the restore; the bundle's flash */
	size_t n;
	uint64_t every, accesses, w_seen, cmds, cuts, at_command, booted_new, write_accesses;
	/* running: the flash as of the last change (the model's sink), and that change with the
	 * bytes it replaced, for the torn cuts; torn counts them */
	uint8_t *shadow, *ev_old;
	uint32_t ev_off, ev_len;
	uint64_t erases_seen, torn;
	char failure[CX_MSG_MAX + 200];
};

/* The model's flash sink (running campaigns): remember the command's range and old bytes. */
static void sink(void *ctx, size_t off, size_t len)
{
	struct camp *k = ctx;

	k->ev_len = 0;
	if (len <= EV_MAX) { /* larger: cxsim_flash_changed, no command's */
		k->ev_off = (uint32_t)off, k->ev_len = (uint32_t)len;
		memcpy(k->ev_old, k->shadow + off, len);
	}
	memcpy(k->shadow + off, cxsim_flash(k->card, &(size_t){0}) + off, len);
}

/* The firmware does an MFBE/MFBA whole when go is written, so no config access falls inside
 * one; what a cut there leaves is made on the clone (as test_powercut_fw_card.c does): frac 0
 * an erase's range of undefined bytes (a function of the address), frac 1 or 2 that many
 * thirds of a program's changed bytes, the rest as before. */
static void tear(const struct camp *k, struct cxsim_card *clone, unsigned frac)
{
	uint8_t *f = cxsim_flash(clone, &(size_t){0}) + k->ev_off;
	uint32_t keep = k->ev_len * frac / 3;

	if (!frac)
		for (uint32_t i = 0; i < k->ev_len; i++)
			f[i] = (uint8_t)((k->ev_off + i) * 0x9e3779b1u >> 24);
	else
		memcpy(f + keep, k->ev_old + keep, k->ev_len - keep);
	cxsim_flash_changed(clone);
}

/* Write commands so far: the gateway's erase and program opcodes, or with the firmware running
 * the erases and programs it carried out (a program moves the bytes counter). */
static uint64_t writes(const struct cxsim_card *c, bool running)
{
	const uint64_t *op = cxsim_counters(c)->gw_by_opcode;

	if (running)
		return cxsim_counters(c)->erases + cxsim_counters(c)->bytes_programmed;
	return op[0x20] + op[0xD8] + op[0x21] + op[0xDC] + op[0x52] + op[0xC7] + op[0x60] + op[0x02] + op[0x12];
}

/* The card's old DEV_INFO or the bundle's, whole at one of the places it may be. */
static bool identity_kept(const struct camp *k, const uint8_t *f)
{
	const uint32_t at[] = {DEVINFO_AT, SPARE_AT, FS3_TEMP_AT};

	for (unsigned i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		if (!memcmp(f + at[i], k->before + DEVINFO_AT, DEVINFO_LEN) ||
		    !memcmp(f + at[i], k->bundle + DEVINFO_AT, DEVINFO_LEN))
			return true;
	return false;
}

/* Cut the power on a clone of the card now; torn: its last command torn first (frac: tear()). */
static void cut(struct camp *k, struct cxsim_card *card, bool at_command, bool torn, unsigned frac)
{
	struct cxsim_card *clone = cxsim_clone(card);
	size_t n;

	if (!clone) {
		snprintf(k->failure, sizeof(k->failure), "out of memory");
		return;
	}
	if (torn)
		tear(k, clone, frac);
	k->torn += torn;
	cxsim_power_cycle(clone);
	k->cuts++;
	k->at_command += at_command;
	const struct cxsim_boot *b = cxsim_boot_info(clone);
	const uint8_t *f = cxsim_flash(clone, &n);
	bool fs4 = fs4_of(k->L->chip);
	const char *dev = k->L->kind == K_SLOTS ? sc_devdata_diff(&card_img, k->before, f, n) : NULL;
	bool oem = b->booted && !strcmp(b->psid, card_img.s.psid);
	bool stock = b->booted && !strcmp(b->psid, file_img.s.psid);

	if (!oem && !stock)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu (write command %llu): the card boots %s",
			 (unsigned long long)k->accesses, (unsigned long long)k->cmds, b->booted ? b->psid : b->why);
	else if (k->L->running && !cxsim_fw_running(clone)) /* the next restore goes through it */
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu (write command %llu): %s boots but its "
			 "firmware does not run", (unsigned long long)k->accesses, (unsigned long long)k->cmds, b->psid);
	else if (!identity_kept(k, f))
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu (write command %llu): no whole DEV_INFO, "
			 "neither the card's nor the bundle's (%s)", (unsigned long long)k->accesses,
			 (unsigned long long)k->cmds, fs4 ? "FS4" : "FS3");
	else if (dev)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: a slot restore changed the device data: %s",
			 (unsigned long long)k->accesses, dev);
	k->booted_new += stock;
	cxsim_free(clone);
}

static void cut_hook(void *ctx, struct cxsim_card *card)
{
	struct camp *k = ctx;

	if (card != k->card || k->failure[0])
		return;
	k->accesses++;
	uint64_t w = writes(card, k->L->running);
	if (w != k->w_seen) {
		k->w_seen = w;
		k->cmds++;
		cut(k, card, true, false, 0);
		bool erase = cxsim_counters(card)->erases != k->erases_seen;
		k->erases_seen = cxsim_counters(card)->erases;
		if (k->L->running && k->ev_len) /* a program that changed no byte called no sink */
			for (unsigned frac = erase ? 0 : 1; frac < (erase ? 1u : 3u) && !k->failure[0]; frac++)
				cut(k, card, false, true, frac);
		k->ev_len = 0;
	} else if (k->every && w && k->accesses % k->every == 0) {
		cut(k, card, false, false, 0);
	}
}

static void count_hook(void *ctx, struct cxsim_card *card)
{
	struct camp *k = ctx;

	uint64_t w = writes(card, k->L->running);

	k->cmds += w != k->w_seen;
	k->w_seen = w;
	k->write_accesses += k->cmds > 0;
}

static void images(const struct layout *L)
{
	bool fs4 = fs4_of(L->chip);
	struct f3_spec s = f3_defaults(fs4);

	f3_build(&file_img, &s);   /* the stock image the card was cross-flashed to */
	s.psid = fs4 ? "HP_0000000008" : "HP_2420110034";
	s.ver[2] = 1;
	f3_build(&card_img, &s);
	other_img = card_img;
	fc_card_devdata(&card_img, SC_GUID);
	fc_card_devdata(&other_img, OTHER_GUID);
	sc_set_slot_log(&file_img, 20);
	sc_set_slot_log(&card_img, 20);
	sc_set_slot_log(&other_img, 20);
}

/* The card as the bundle holds it, backed up into dir (when bundle_dir is empty; else that
 * bundle is the card's already); then as the restore finds it. */
static struct cxsim_card *prepare(const struct layout *L, const char *dir, char *bundle_dir, uint8_t **bundle)
{
	struct cxsim_card *c = L->running ? sc_new_running(L->chip, false, "W25Q16", CXSIM_ICMD_OK)
					  : sc_new_part(L->chip, false, "W25Q16");
	struct backup_result b;
	size_t n;

	assert_non_null(c);
	sc_install(c, &card_img, L->slot);
	assert_true(cxsim_fw_running(c) == L->running);
	if (!bundle_dir[0]) {
		card_backup(c, dir, &b);
		snprintf(bundle_dir, BACKUP_PATH_MAX, "%s", b.path);
	}
	*bundle = sc_snapshot(c, &n);
	if (L->kind == K_SLOTS) {
		struct burn_opts o = {.guard.allow_psid_change = true, .hooks.confirm = confirm_yes};
		struct burn_result r;
		struct cx_status st = {0};
		if (run_burn_image(c, file_img.buf, file_img.len, &o, &r, &st))
			fail_msg("cross-flash: %s", st.msg);
	} else {
		sc_install(c, &other_img, L->slot);
	}
	cxsim_power_cycle(c);
	if (L->running) { /* it runs the stock image (or its own with other device data) */
		assert_true(cxsim_fw_running(c));
		cxsim_counters_reset(c); /* the restore's own commands from here */
	}
	return c;
}

static int restore(struct cxsim_card *c, const struct layout *L, const char *dir, struct restore_result *r,
		   struct cx_status *st)
{
	struct restore_opts o = {.force = L->kind == K_DEVICE, .device_data = L->kind == K_DEVICE,
				 .hooks.confirm = confirm_yes};
	struct device d;

	card_open_listed(&d, c);
	int rc = restore_card(&d, dir, &o, r, st);
	device_close(&d);
	return rc;
}

static uint64_t campaign(const struct layout *L, uint64_t target)
{
	char dir[64], bdir[BACKUP_PATH_MAX] = "";
	struct camp k = {.L = L};
	struct restore_result r;
	struct cx_status st = {0};
	size_t n;

	images(L);
	scratch_dir(dir, sizeof(dir), "rfs3");
	/* once, to count the config accesses from the first write command on */
	k.card = prepare(L, dir, bdir, &k.bundle);
	k.w_seen = writes(k.card, L->running);
	sim_cfg_set_hook(count_hook, &k);
	int rc = restore(k.card, L, bdir, &r, &st);
	sim_cfg_set_hook(NULL, NULL);
	if (rc) {
		cxsim_free(k.card);
		free(k.bundle);
		rm_rf(dir);
		fail_msg("restore: %s", st.msg);
	}
	uint64_t wcmds = k.cmds;
	const struct cxsim_counters *t = cxsim_counters(k.card);
	if (L->running && (t->gw_cmds || !t->fw_flash_cmds || t->icmd_without_sem))
		fail_msg("the restore through the firmware sent %llu gateway transactions, %llu firmware flash commands, "
			 "%llu ICMD commands without the semaphore", (unsigned long long)t->gw_cmds,
			 (unsigned long long)t->fw_flash_cmds, (unsigned long long)t->icmd_without_sem);
	const uint8_t *f = cxsim_flash(k.card, &n);
	assert_memory_equal(f, k.bundle, n); /* the flash is the bundle's flash.bin */
	cxsim_power_cycle(k.card);
	assert_string_equal(cxsim_boot_info(k.card)->psid, card_img.s.psid);
	cxsim_free(k.card);
	free(k.bundle);

	k.card = prepare(L, dir, bdir, &k.bundle);
	k.before = sc_snapshot(k.card, &k.n);
	k.every = k.write_accesses / (target > wcmds ? target - wcmds : 1);
	if (k.every < 1)
		k.every = 1;
	k.accesses = k.cmds = 0;
	k.w_seen = writes(k.card, L->running);
	if (L->running) {
		k.shadow = sc_snapshot(k.card, &n);
		assert_non_null(k.ev_old = malloc(EV_MAX));
		k.erases_seen = cxsim_counters(k.card)->erases;
		cxsim_set_flash_sink(k.card, sink, &k);
	}
	sim_cfg_set_hook(cut_hook, &k);
	rc = restore(k.card, L, bdir, &r, &st);
	sim_cfg_set_hook(NULL, NULL);
	char torn[48] = "";
	if (L->running)
		snprintf(torn, sizeof(torn), " (%llu inside a command: torn)", (unsigned long long)k.torn);
	printf("  %s %s%s, image in slot %d: %llu write commands (%llu bytes erased, %llu programmed%s), %llu cuts%s: "
	       "the card's own image (the bundle's) boots after %llu, the stock one after %llu; identity whole at "
	       "every one\n",
	       cxsim_chip_name(L->chip), L->kind == K_SLOTS ? "slot restore" : "device-data restore",
	       L->running ? " through the running firmware" : "", L->slot, (unsigned long long)wcmds,
	       (unsigned long long)r.bytes_erased, (unsigned long long)r.bytes_programmed,
	       r.plan.used_copy ? ", through the other slot" : "", (unsigned long long)k.cuts, torn,
	       (unsigned long long)(k.cuts - k.booted_new), (unsigned long long)k.booted_new);
	if (k.failure[0])
		fail_msg("%s slot %d: %s", cxsim_chip_name(L->chip), L->slot, k.failure);
	if (rc)
		fail_msg("the restore itself: %s", st.msg);
	assert_int_equal(k.at_command, wcmds);
	if (L->kind == K_SLOTS) /* both images booted at some cut: the campaign crossed the switch */
		assert_true(k.booted_new > 0 && k.cuts > k.booted_new);
	assert_memory_equal(cxsim_flash(k.card, &n), k.bundle, n);
	free(k.before);
	free(k.bundle);
	free(k.shadow);
	free(k.ev_old);
	cxsim_free(k.card);
	rm_rf(dir);
	return k.cuts;
}

static void kind_campaign(enum cxsim_chip chip, enum kind kind)
{
	uint64_t cuts = 0;

	for (int slot = 0; slot < 2; slot++)
		cuts += campaign(&(struct layout){chip, slot, kind, false}, MIN_CUTS / 2 + 20);
	printf("%s %s: %llu cut points, none unbootable, none without a whole DEV_INFO\n", cxsim_chip_name(chip),
	       kind == K_SLOTS ? "slot restore" : "device-data restore", (unsigned long long)cuts);
	assert_true(cuts >= MIN_CUTS);
}

/* Both kinds and both slots on a card whose firmware runs: RUNNING_CUTS in all. */
static void running_campaign(enum cxsim_chip chip)
{
	uint64_t cuts = 0;

	for (int kind = K_SLOTS; kind <= K_DEVICE; kind++)
		for (int slot = 0; slot < 2; slot++)
			cuts += campaign(&(struct layout){chip, slot, (enum kind)kind, true}, RUNNING_CUTS / 4 + 20);
	printf("%s through its running firmware, slot and device-data restores: %llu cut points, none unbootable, "
	       "none without its firmware running, none without a whole DEV_INFO\n", cxsim_chip_name(chip),
	       (unsigned long long)cuts);
	assert_true(cuts >= RUNNING_CUTS);
}

static void test_cx4lx_slots(void **state)
{
	(void)state;
	kind_campaign(CXSIM_CX4LX, K_SLOTS);
}

static void test_cx5_slots(void **state)
{
	(void)state;
	kind_campaign(CXSIM_CX5, K_SLOTS);
}

static void test_cx4lx_device(void **state)
{
	(void)state;
	kind_campaign(CXSIM_CX4LX, K_DEVICE);
}

static void test_cx5_device(void **state)
{
	(void)state;
	kind_campaign(CXSIM_CX5, K_DEVICE);
}

static void test_cx4lx_running(void **state)
{
	(void)state;
	running_campaign(CXSIM_CX4LX);
}

static void test_cx5_running(void **state)
{
	(void)state;
	running_campaign(CXSIM_CX5);
}

/* An argument runs only the tests whose name holds it (e.g. cx5_device). */
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cx4lx_slots),
		cmocka_unit_test(test_cx5_slots),
		cmocka_unit_test(test_cx4lx_device),
		cmocka_unit_test(test_cx5_device),
		cmocka_unit_test(test_cx4lx_running),
		cmocka_unit_test(test_cx5_running),
	};
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
