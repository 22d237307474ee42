/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_powercut_fw_card.c — power cuts during a cross-PSID FS3 (ConnectX-4 Lx) and FS4
 * (ConnectX-5) burn_card() on a card whose firmware RUNS, so that every erase and program is
 * asked of that firmware (MFBE/MFBA over ICMD, hw-access.md §3.14), in process.
 *
 * The card model (fs3_sim_card.h sc_new_running) runs its firmware from a valid image; a burn
 * writes the other slot through it, zeroes the old magic, writes no boot address. Cut points,
 * at config-access granularity (cxsim_clone + cxsim_power_cycle of the clone, as
 * test_powercut_fs3_card.c does):
 *   - every write command (MFBE or an MFBA write) the moment the model has carried it out,
 *     the k-th for every k: the ICMD go bit still set, cxflash holding both semaphores;
 *   - every `every`-th config access from the first write command on (between commands, in
 *     the middle of an ICMD command's mailbox or its polls);
 *   - every write command torn. The model's firmware does a whole MFBA/MFBE on the flash
 *     when go is written (sim/core/fw_flash.c runs it on its own clock to the end), so no
 *     config access falls inside the flash operation itself. What a real cut there leaves
 *     is what spi_nor.c's power loss does on the gateway path: an erase's sector of
 *     undefined bytes, a program's first part of its bytes. The test makes those states on
 *     the clone from the command's range (cxsim_set_flash_sink) and the bytes before it: a
 *     program cut at 1/3 and 2/3 of its changed bytes, an erase's whole sector undefined.
 * At each cut, judged by the MODEL alone (cxsim_boot_info after the power cycle):
 *   - it boots an image: the card's old one from its slot or the file's from the other;
 *   - every device section (MFG_INFO, DEV_INFO, NV, VPD) and FS4's DTOC is byte for byte as
 *     before (identity kept);
 *   - a second burn_card() from there (the firmware booted again: through it once more)
 *     finishes with the file's image booting alone, no gateway transaction, every ICMD
 *     command under its semaphore. It runs once per distinct state of both slots' image
 *     spans, for a share of them (the runtime): cuts at the last 8 write commands (the
 *     magics) and at erases, whole or torn; of the others every 4th program's, every 4th
 *     torn program's and every 8th cut between commands.
 * Layouts: the card's image in slot 0 and in slot 1, an older image (magic zeroed) in the
 * other, two image sizes with 1 and 2 MiB slots in a 4 MiB part (every cut clones the card). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "card_fixture.h"
#include "card_ops.h"
#include "fs3_card.h"
#include "fs3_sim_card.h"
#include "ops/burn.h"
#include "sim_cfg.h"

#define MIN_CUTS 2000
#define BETWEEN 120      /* cuts between commands per layout, evenly spread */
#define IMG_SPAN 0x1a000u  /* the builder's image part: what a burn of it writes in a slot */
#define EV_MAX 0x10000u    /* the largest range one command changes: a 64 KiB erase */

struct layout {
	enum cxsim_chip chip;
	int slot;          /* the card's image: 0 or 1 */
	uint32_t grow;     /* bytes of an extra section (0: the builder's image) */
	unsigned slot_log; /* log2 of the slot size: 20 or 21 (the flash is 4 MiB) */
};

static struct f3 card_img, file_img;

static bool fs4_of(enum cxsim_chip c)
{
	return c == CXSIM_CX5;
}

static const char *card_psid(bool fs4)
{
	return fs4 ? "HP_0000000008" : "HP_2420110034";
}

static void images(const struct layout *L)
{
	bool fs4 = fs4_of(L->chip);
	struct f3_spec s = f3_defaults(fs4);

	s.rom = s.ini = true;
	f3_build(&file_img, &s);
	if (L->grow)
		sc_grow(&file_img, 0xa000, L->grow, 3);
	s.psid = card_psid(fs4);
	s.ver[2] = 1;
	f3_build(&card_img, &s);
	if (L->grow)
		sc_grow(&card_img, 0xa000, L->grow / 2, 7);
	fc_card_devdata(&card_img, SC_GUID);
	sc_set_slot_log(&file_img, L->slot_log);
	sc_set_slot_log(&card_img, L->slot_log);
}

static struct cxsim_card *new_card(const struct layout *L)
{
	struct cxsim_card *c = sc_new_running(L->chip, false, "W25Q32", CXSIM_ICMD_OK);

	assert_non_null(c);
	sc_install(c, &card_img, L->slot);
	sc_older(c, &card_img, L->slot ^ 1);
	assert_true(cxsim_boot_info(c)->booted);
	assert_true(cxsim_fw_running(c)); /* the burn goes through the firmware */
	return c;
}

/* Write commands the firmware has carried out (erases, and programs by the bytes they sent:
 * each MFBA write is one page program), and of them erases. */
static uint64_t writes(const struct cxsim_card *c, uint64_t *erases)
{
	const struct cxsim_counters *k = cxsim_counters(c);

	*erases = k->erases;
	return k->erases + k->bytes_programmed;
}

enum verdict { V_OLD, V_NEW, V_NONE };

/* The last change the model made to the flash (its sink), with the bytes before it. */
struct event {
	uint32_t off, len;
	uint8_t old[EV_MAX];
};

struct camp {
	const struct layout *L;
	struct cxsim_card *card;
	uint8_t *before, *shadow;   /* the flash before the burn; as of the last change */
	size_t n;
	uint32_t old_start, target;
	uint64_t every, accesses, w_seen, erases_seen, cmds_seen, wcmds;
	bool last_erase;
	struct event ev;
	uint64_t cuts, at_command, torn, between, booted[2], two_images, retries, nothing_to_do, n_between, n_torn;
	uint64_t *seen;             /* hashes of the cut states retried */
	size_t nseen, capseen;
	char failure[CX_MSG_MAX + 200];
};

static struct burn_opts cross_opts(void)
{
	return (struct burn_opts){.guard.allow_psid_change = true, .hooks.confirm = confirm_yes};
}

static void sink(void *ctx, size_t off, size_t len)
{
	struct camp *k = ctx;

	if (len > EV_MAX) { /* not a command's: cxsim_flash_changed */
		k->ev.len = 0;
	} else {
		k->ev.off = (uint32_t)off, k->ev.len = (uint32_t)len;
		memcpy(k->ev.old, k->shadow + off, len);
	}
	memcpy(k->shadow + off, cxsim_flash(k->card, &(size_t){0}) + off, len);
}

/* What the model boots after a power-on: the card's old image, the file's, or neither. */
static enum verdict model_verdict(struct cxsim_card *c, uint32_t old_start, uint32_t target, const char **why)
{
	const struct cxsim_boot *b = cxsim_boot_info(c);
	bool fs4 = fs4_of(cxsim_get_params(c)->chip);

	*why = b->booted ? "it boots neither the old nor the new image" : b->why;
	if (!b->booted)
		return V_NONE;
	if (b->start == old_start && !strcmp(b->psid, card_psid(fs4)) && b->fw_ver[2] == 1)
		return V_OLD;
	if (b->start == target && !strcmp(b->psid, file_img.s.psid) && b->fw_ver[2] == file_img.s.ver[2])
		return V_NEW;
	return V_NONE;
}

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static bool seen_before(struct camp *k, uint64_t h)
{
	for (size_t i = 0; i < k->nseen; i++)
		if (k->seen[i] == h)
			return true;
	if (k->nseen == k->capseen) {
		k->capseen = k->capseen ? 2 * k->capseen : 256;
		k->seen = realloc(k->seen, k->capseen * sizeof(*k->seen));
		assert_non_null(k->seen);
	}
	k->seen[k->nseen++] = h;
	return false;
}

/* A second burn from the cut state: through the firmware again, the file's image boots,
 * alone, the device data kept. */
static void retry(struct camp *k, struct cxsim_card *clone, const char *at)
{
	struct device d;
	struct burn_opts o = cross_opts();
	struct burn_result r;
	struct cx_status st = {0};
	size_t n;

	cxsim_counters_reset(clone);
	card_open_listed(&d, clone);
	int rc = burn_card(&d, file_img.buf, file_img.len, &o, &r, &st);
	device_close(&d);
	k->retries++;
	const struct cxsim_counters *t = cxsim_counters(clone);
	if (t->gw_cmds || t->icmd_without_sem || t->unmodelled || !t->fw_flash_cmds) {
		snprintf(k->failure, sizeof(k->failure), "%s: the second burn sent %llu gateway transactions, %llu "
			 "ICMD commands without the semaphore, %llu unmodelled accesses, %llu firmware flash commands",
			 at, (unsigned long long)t->gw_cmds, (unsigned long long)t->icmd_without_sem,
			 (unsigned long long)t->unmodelled, (unsigned long long)t->fw_flash_cmds);
		return;
	}
	if (rc) {
		snprintf(k->failure, sizeof(k->failure), "%s: the second burn fails: %s", at, st.msg);
		return;
	}
	cxsim_power_cycle(clone);
	const struct cxsim_boot *b = cxsim_boot_info(clone);
	const char *why = sc_devdata_diff(&card_img, k->before, cxsim_flash(clone, &n), k->n);
	enum card_state want = r.nothing_to_do ? CARD_UNTOUCHED : CARD_NEW_BOOTS;
	k->nothing_to_do += r.nothing_to_do;
	if (!b->booted || b->nvalid != 1 || strcmp(b->psid, file_img.s.psid) || b->start != r.start ||
	    r.out.state != want || why)
		snprintf(k->failure, sizeof(k->failure), "%s: after the second burn the card boots %s at 0x%x (%u "
			 "valid, the burn says 0x%x, %s)%s%s", at, b->psid, b->start, b->nvalid, r.start,
			 card_state_name(r.out.state), why ? ": " : "", why ? why : "");
}

/* The clone's last command undone and done in part: frac thirds of a program's changed
 * bytes, or (frac 0) an erase's sector of undefined bytes (a function of the address). */
static void tear(struct camp *k, struct cxsim_card *clone, unsigned frac)
{
	uint8_t *f = cxsim_flash(clone, &(size_t){0}) + k->ev.off;
	uint32_t keep = k->ev.len * frac / 3;

	if (!frac)
		for (uint32_t i = 0; i < k->ev.len; i++)
			f[i] = (uint8_t)(fnv(0x9e3779b97f4a7c15ull, (const uint8_t *)&(uint32_t){k->ev.off + i}, 4) >> 17);
	else
		memcpy(f + keep, k->ev.old + keep, k->ev.len - keep);
	cxsim_flash_changed(clone);
}

enum cut_kind { CUT_COMMAND, CUT_TORN, CUT_BETWEEN };

/* Cut the power on a clone of the card now (torn: its last command torn, frac as tear()). */
static void cut(struct camp *k, enum cut_kind kind, unsigned frac)
{
	struct cxsim_card *clone = cxsim_clone(k->card);
	char at[96];
	size_t n;
	const char *why;

	if (!clone) {
		snprintf(k->failure, sizeof(k->failure), "out of memory");
		return;
	}
	snprintf(at, sizeof(at), "cut at access %llu (write command %llu%s, %u/3)", (unsigned long long)k->accesses,
		 (unsigned long long)k->cmds_seen, kind == CUT_TORN ? " torn" : "", frac);
	if (kind == CUT_TORN)
		tear(k, clone, frac);
	cxsim_power_cycle(clone);
	k->cuts++;
	k->at_command += kind == CUT_COMMAND, k->torn += kind == CUT_TORN, k->between += kind == CUT_BETWEEN;
	enum verdict v = model_verdict(clone, k->old_start, k->target, &why);
	const uint8_t *f = cxsim_flash(clone, &n);
	const char *dev = sc_devdata_diff(&card_img, k->before, f, k->n);
	if (v == V_NONE)
		snprintf(k->failure, sizeof(k->failure), "%s: the card does not boot: %s", at, why);
	else if (dev)
		snprintf(k->failure, sizeof(k->failure), "%s: %s", at, dev);
	if (!k->failure[0]) {
		k->booted[v]++;
		k->two_images += cxsim_boot_info(clone)->nvalid > 1;
		uint64_t h = fnv(fnv(0xcbf29ce484222325ull, f + k->old_start, IMG_SPAN), f + k->target, IMG_SPAN);
		uint64_t w = k->cmds_seen;
		bool pick = w + 8 > k->wcmds || k->last_erase ||
			    (kind == CUT_COMMAND ? w % 4 == 0 : kind == CUT_TORN ? k->n_torn++ % 4 == 0
										: k->n_between++ % 8 == 0);
		if (!seen_before(k, h) && pick)
			retry(k, clone, at);
	}
	cxsim_free(clone);
}

/* Write commands, counted as the model carried them out: an erase, or a program (its bytes
 * counter moved). cmds counts them for the campaign's numbering. */
static void cut_hook(void *ctx, struct cxsim_card *card)
{
	struct camp *k = ctx;
	uint64_t e, w;

	if (card != k->card || k->failure[0])
		return; /* a retry's clone, or already failed */
	k->accesses++;
	w = writes(card, &e);
	if (w != k->w_seen) {
		k->last_erase = e != k->erases_seen;
		k->w_seen = w, k->erases_seen = e;
		k->cmds_seen++;
		cut(k, CUT_COMMAND, 0);
		if (k->ev.len && k->last_erase)
			cut(k, CUT_TORN, 0);
		else if (k->ev.len)
			for (unsigned frac = 1; frac < 3 && !k->failure[0]; frac++)
				cut(k, CUT_TORN, frac);
		k->ev.len = 0; /* a program that changed no byte calls no sink: nothing to tear */
	} else if (k->cmds_seen && k->accesses % k->every == 0) {
		cut(k, CUT_BETWEEN, 0);
	}
}

struct count {
	struct cxsim_card *card;
	uint64_t w_seen, cmds, accesses; /* accesses from the first write command on */
};

static void count_hook(void *ctx, struct cxsim_card *card)
{
	struct count *k = ctx;
	uint64_t e, w = writes(card, &e);

	if (card != k->card)
		return;
	k->cmds += w != k->w_seen;
	k->w_seen = w;
	k->accesses += k->cmds > 0;
}

/* The whole burn once: its write commands, and the config accesses from the first one on. */
static void count_burn(const struct layout *L, uint64_t *accesses, uint64_t *wcmds)
{
	struct count k = {.card = new_card(L)};
	struct burn_opts o = cross_opts();
	struct burn_result r;
	struct cx_status st = {0};
	uint64_t e;

	k.w_seen = writes(k.card, &e);
	sim_cfg_set_hook(count_hook, &k);
	int rc = run_burn_image(k.card, file_img.buf, file_img.len, &o, &r, &st);
	sim_cfg_set_hook(NULL, NULL);
	if (rc)
		fail_msg("burn: %s", st.msg);
	assert_int_equal(cxsim_counters(k.card)->gw_cmds, 0); /* all through the firmware */
	*accesses = k.accesses;
	*wcmds = k.cmds;
	cxsim_free(k.card);
}

struct totals {
	uint64_t cuts, at_command, torn, between, booted[2], two_images, retries, wcmds;
};

static void campaign(const struct layout *L, struct totals *t)
{
	struct camp *k = calloc(1, sizeof(*k));
	uint64_t acc, wcmds, e;
	struct burn_opts o = cross_opts();
	struct burn_result r;
	struct cx_status st = {0};

	assert_non_null(k);
	images(L);
	count_burn(L, &acc, &wcmds);
	k->L = L;
	k->every = acc / BETWEEN > 1 ? acc / BETWEEN : 1;
	k->wcmds = wcmds;
	k->card = new_card(L);
	k->before = sc_snapshot(k->card, &k->n);
	k->shadow = sc_snapshot(k->card, &k->n);
	uint32_t s = 1u << sc_slot_log(&card_img);
	k->old_start = (uint32_t)L->slot * s;
	k->target = k->old_start ^ s;
	k->w_seen = writes(k->card, &e);
	k->erases_seen = e;
	cxsim_set_flash_sink(k->card, sink, k);
	sim_cfg_set_hook(cut_hook, k);
	int rc = run_burn_image(k->card, file_img.buf, file_img.len, &o, &r, &st);
	sim_cfg_set_hook(NULL, NULL);
	printf("  %s slot %d->%d, %u KiB section, %u KiB slots: %llu write commands, %llu cuts (%llu at a command, "
	       "%llu torn, %llu between, every %llu accesses): old boots %llu, new boots %llu (two whole images %llu), "
	       "%llu second burns\n", cxsim_chip_name(L->chip), L->slot, L->slot ^ 1, L->grow / 1024, s / 1024,
	       (unsigned long long)wcmds, (unsigned long long)k->cuts, (unsigned long long)k->at_command,
	       (unsigned long long)k->torn, (unsigned long long)k->between, (unsigned long long)k->every,
	       (unsigned long long)k->booted[V_OLD], (unsigned long long)k->booted[V_NEW],
	       (unsigned long long)k->two_images, (unsigned long long)k->retries);
	if (k->failure[0])
		fail_msg("%s slot %d: %s", cxsim_chip_name(L->chip), L->slot, k->failure);
	if (rc)
		fail_msg("the burn itself: %s", st.msg);
	assert_int_equal(k->at_command, wcmds); /* every write command was cut at */
	assert_true(k->booted[V_OLD] > 0 && k->booted[V_NEW] > 0);
	t->cuts += k->cuts, t->at_command += k->at_command, t->torn += k->torn, t->between += k->between;
	t->booted[0] += k->booted[0], t->booted[1] += k->booted[1], t->two_images += k->two_images;
	t->retries += k->retries, t->wcmds += wcmds;
	free(k->seen);
	free(k->before);
	free(k->shadow);
	cxsim_free(k->card);
	free(k);
}

static void chip_campaign(enum cxsim_chip chip)
{
	const struct layout L[] = {
		{chip, 0, 0, 20}, {chip, 1, 0, 20}, {chip, 0, 0x10000, 21}, {chip, 1, 0x10000, 21},
	};
	struct totals t = {0};
	clock_t t0 = clock();

	printf("%s (%s), burned through its running firmware:\n", cxsim_chip_name(chip), fs4_of(chip) ? "FS4" : "FS3");
	for (unsigned i = 0; i < sizeof(L) / sizeof(L[0]); i++)
		campaign(&L[i], &t);
	printf("%s total: %llu cuts (%llu at a write command, %llu inside one: torn, %llu between commands) of %llu "
	       "write commands: old image boots %llu, new image boots %llu, neither 0, device data changed 0; two "
	       "whole images %llu; %llu second burns, all finished; %.1f s CPU\n",
	       cxsim_chip_name(chip), (unsigned long long)t.cuts, (unsigned long long)t.at_command,
	       (unsigned long long)t.torn, (unsigned long long)t.between, (unsigned long long)t.wcmds,
	       (unsigned long long)t.booted[0], (unsigned long long)t.booted[1], (unsigned long long)t.two_images,
	       (unsigned long long)t.retries, (double)(clock() - t0) / CLOCKS_PER_SEC);
	assert_true(t.cuts >= MIN_CUTS);
}

static void test_cx4lx_cuts(void **state)
{
	(void)state;
	chip_campaign(CXSIM_CX4LX);
}

static void test_cx5_cuts(void **state)
{
	(void)state;
	chip_campaign(CXSIM_CX5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cx4lx_cuts),
		cmocka_unit_test(test_cx5_cuts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
