/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_powercut_fs3_card.c — power cuts during a cross-PSID FS3 (ConnectX-4 Lx) and FS4
 * (ConnectX-5) burn on the card model, in process, through burn_card().
 *
 * The model cuts power at config-access granularity (cxsim_clone + cxsim_power_cycle, as
 * test_powercut.c does): a page program cut while the part is busy keeps the share of its
 * bytes its elapsed time gives, an erase cut leaves its sector's bytes undefined
 * (sim/core/spi_nor.c spi_nor_power_loss). The burn runs once per layout; a cut point is
 * every flash write command the moment it is sent (erase or page program: the k-th, for
 * every k), and every `every`-th config access from the first write on, which lands inside
 * commands (the part busy) and between them. At each, a clone of the card is powered off
 * and on, and:
 *   - the model's own boot ROM (sim/core/bootrom_fs3.c, no code shared with cxflash) must
 *     boot an image, the card's old one from its slot or the file's from the other;
 *   - every device section and FS4's DTOC must be byte for byte as before (identity kept);
 *   - a second burn_card() from there must finish with the file's image booting, alone.
 *     Cut states are often the same flash (a program cut at its start changes nothing):
 *     the retry runs once per distinct state of the bytes the burn can change (both slots'
 *     image spans), which decides what a deterministic retry does; of those, the ones of
 *     cuts at the last 8 write commands and at erases, every other page program's, and
 *     every third of the cuts between commands.
 * Layouts: two image sizes (the builder's, and a 64 KiB section more), slot 0 to 1 and 1
 * to 0, 1 and 2 MiB slots in a 4 MiB part (each cut clones the card, flash and all), so
 * that each format gets 2,000 cut points and more.
 *
 * cxflash's own report of the state (r.out.state, write_procedure.c observe_fs3) is checked
 * by a second campaign: a fresh burn per cut whose power drops and comes back at once
 * (cxsim_power_cycle on the card itself, mid-burn) and whose gateway then stays busy until
 * the burner gives up its command, as a card that lost power fails it; the state cxflash
 * then reads must be what the model boots (CARD_OLD_BOOTS / CARD_NEW_BOOTS; never
 * CARD_PARTIAL, since neither format's order leaves a card without an image). */
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
#include "ops/burn.h"
#include "sim_cfg.h"

#define MIN_CUTS 2000
#define IMG_SPAN 0x1a000u /* the builder's image part: what a burn of it writes in a slot */

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
		sc_grow(&card_img, 0xa000, L->grow / 2, 7); /* the card's image smaller than the file's */
	fc_card_devdata(&card_img, SC_GUID);
	sc_set_slot_log(&file_img, L->slot_log);
	sc_set_slot_log(&card_img, L->slot_log);
}

static struct cxsim_card *new_card(const struct layout *L)
{
	/* A 4 MiB part for the small slots: each cut clones the card, flash and all. */
	struct cxsim_card *c = sc_new_part(L->chip, false, "W25Q32");

	assert_non_null(c);
	sc_install(c, &card_img, L->slot);
	sc_older(c, &card_img, L->slot ^ 1);
	assert_true(cxsim_boot_info(c)->booted);
	return c;
}

/* Flash write commands sent so far, and of them erases. */
static uint64_t writes(const struct cxsim_card *c, uint64_t *erases)
{
	const uint64_t *op = cxsim_counters(c)->gw_by_opcode;

	*erases = op[0x20] + op[0xD8] + op[0x21] + op[0xDC] + op[0x52] + op[0xC7] + op[0x60];
	return *erases + op[0x02] + op[0x12];
}

enum verdict { V_OLD, V_NEW, V_NONE };

struct camp {
	const struct layout *L;
	struct cxsim_card *card;
	uint8_t *before;
	size_t n;
	uint32_t old_start, target;
	uint64_t every, accesses, w_seen, erases_seen;
	bool last_erase;            /* the last write command sent was an erase */
	uint64_t cuts, at_command, after_erase, after_program;
	uint64_t booted[2], two_images, retries, nothing_to_do, inner_new;
	uint64_t w0, wcmds;         /* write commands before the burn, and the burn's */
	uint64_t write_accesses;    /* count_burn: config accesses from the first write command on */
	uint64_t *seen;             /* hashes of the cut states retried */
	size_t nseen, capseen;
	char failure[CX_MSG_MAX + 200];
};

static struct burn_opts cross_opts(void)
{
	return (struct burn_opts){.guard.allow_psid_change = true, .hooks.confirm = confirm_yes};
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

/* A second burn from the cut state: the file's image boots, alone, the device data kept. */
static void retry(struct camp *k, struct cxsim_card *clone, uint64_t at)
{
	struct device d;
	struct burn_opts o = cross_opts();
	struct burn_result r;
	struct cx_status st = {0};
	size_t n;

	card_open_listed(&d, clone);
	int rc = burn_card(&d, file_img.buf, file_img.len, &o, &r, &st);
	device_close(&d);
	k->retries++;
	/* The clone's counters run on from the card's: the burn up to the cut and the retry held
	 * the 5th-generation lock for every transaction, never with cache replacement on. */
	const struct cxsim_counters *t = cxsim_counters(clone);
	if (t->gw_without_sem || t->gw_cache_rep_on) {
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: %llu gateway transactions without the "
			 "lock, %llu with cache replacement on", (unsigned long long)at,
			 (unsigned long long)t->gw_without_sem, (unsigned long long)t->gw_cache_rep_on);
		return;
	}
	if (rc) {
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: the second burn fails: %s",
			 (unsigned long long)at, st.msg);
		return;
	}
	cxsim_power_cycle(clone);
	const struct cxsim_boot *b = cxsim_boot_info(clone);
	const char *why = sc_devdata_diff(&card_img, k->before, cxsim_flash(clone, &n), k->n);
	/* Nothing to do: the new image alone boots already, from r.start still. */
	uint32_t start = r.start;
	enum card_state want = r.nothing_to_do ? CARD_UNTOUCHED : CARD_NEW_BOOTS;
	k->nothing_to_do += r.nothing_to_do;
	if (!b->booted || b->nvalid != 1 || strcmp(b->psid, file_img.s.psid) || b->start != start ||
	    r.out.state != want || why)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: after the second burn the card boots "
			 "%s at 0x%x (%u valid, the burn says 0x%x, %s)%s%s", (unsigned long long)at, b->psid, b->start,
			 b->nvalid, r.start, card_state_name(r.out.state), why ? ": " : "", why ? why : "");
}

static void cut(struct camp *k, struct cxsim_card *card, bool at_command)
{
	struct cxsim_card *clone = cxsim_clone(card);
	size_t n;
	const char *why;

	if (!clone) {
		snprintf(k->failure, sizeof(k->failure), "out of memory");
		return;
	}
	cxsim_power_cycle(clone);
	k->cuts++;
	k->at_command += at_command;
	k->after_erase += k->last_erase;
	k->after_program += !k->last_erase;
	enum verdict v = model_verdict(clone, k->old_start, k->target, &why);
	const uint8_t *f = cxsim_flash(clone, &n);
	const char *dev = sc_devdata_diff(&card_img, k->before, f, k->n);
	if (v == V_NONE)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu (write command %llu): the card does not "
			 "boot: %s", (unsigned long long)k->accesses, (unsigned long long)k->w_seen, why);
	else if (dev)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: %s", (unsigned long long)k->accesses, dev);
	if (k->failure[0]) {
		cxsim_free(clone);
		return;
	}
	k->booted[v]++;
	k->two_images += cxsim_boot_info(clone)->nvalid > 1;
	/* Burned again: every distinct state a cut at the last 8 write commands (the magics, the
	 * old one's zeroing) or at an erase leaves, at every other page program, and every third
	 * distinct one of the cuts between commands (mostly a page program cut short inside the
	 * new slot's body, the same case again; the runtime stays under two minutes under ASan). */
	uint64_t h = fnv(fnv(0xcbf29ce484222325ull, f + k->old_start, IMG_SPAN), f + k->target, IMG_SPAN);
	bool near_end = k->w_seen - k->w0 + 8 > k->wcmds; /* the magics' writes, the old one's zeroing */
	if (!seen_before(k, h) && (near_end || (at_command ? k->last_erase || k->w_seen % 2 : k->inner_new++ % 3 == 0)))
		retry(k, clone, k->accesses);
	cxsim_free(clone);
}


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
		cut(k, card, true);
	} else if (w && k->accesses % k->every == 0) {
		cut(k, card, false);
	}
}

static void count_hook(void *ctx, struct cxsim_card *card)
{
	struct camp *k = ctx;
	uint64_t e;

	k->write_accesses += writes(card, &e) != k->w_seen;
}

/* The whole burn once, to count its write commands and the config accesses from the first. */
static void count_burn(const struct layout *L, uint64_t *accesses, uint64_t *wcmds)
{
	struct camp k = {.card = new_card(L)};
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
	*accesses = k.write_accesses;
	*wcmds = writes(k.card, &e) - k.w_seen;
	cxsim_free(k.card);
}

struct totals {
	uint64_t cuts, at_command, after_erase, after_program, booted[2], two_images, retries, wcmds;
};

static void campaign(const struct layout *L, uint64_t target_cuts, struct totals *t)
{
	struct camp k = {.L = L};
	uint64_t acc, wcmds;
	struct burn_opts o = cross_opts();
	struct burn_result r;
	struct cx_status st = {0};

	images(L);
	count_burn(L, &acc, &wcmds);
	k.every = acc / (target_cuts > wcmds ? target_cuts - wcmds : 1);
	if (k.every < 1)
		k.every = 1;
	k.card = new_card(L);
	k.before = sc_snapshot(k.card, &k.n);
	uint32_t s = 1u << sc_slot_log(&card_img);
	k.old_start = (uint32_t)L->slot * s;
	k.target = k.old_start ^ s;
	{
		uint64_t e;
		k.w_seen = k.w0 = writes(k.card, &e);
		k.erases_seen = e;
		k.wcmds = wcmds;
	}
	sim_cfg_set_hook(cut_hook, &k);
	int rc = run_burn_image(k.card, file_img.buf, file_img.len, &o, &r, &st);
	sim_cfg_set_hook(NULL, NULL);
	printf("  %s slot %d->%d, %u KiB section, %u KiB slots: %llu write commands, %llu cut points (every %llu "
	       "accesses and at each command): old boots %llu, new boots %llu (two whole images %llu), %llu "
	       "distinct states burned again\n",
	       cxsim_chip_name(L->chip), L->slot, L->slot ^ 1, L->grow / 1024, s / 1024, (unsigned long long)wcmds,
	       (unsigned long long)k.cuts, (unsigned long long)k.every, (unsigned long long)k.booted[V_OLD],
	       (unsigned long long)k.booted[V_NEW], (unsigned long long)k.two_images, (unsigned long long)k.retries);
	if (k.failure[0])
		fail_msg("%s slot %d: %s", cxsim_chip_name(L->chip), L->slot, k.failure);
	if (rc)
		fail_msg("the burn itself: %s", st.msg);
	assert_int_equal(k.at_command, wcmds); /* every write command was cut at */
	assert_true(k.booted[V_OLD] > 0 && k.booted[V_NEW] > 0);
	t->cuts += k.cuts, t->at_command += k.at_command, t->after_erase += k.after_erase;
	t->after_program += k.after_program, t->booted[0] += k.booted[0], t->booted[1] += k.booted[1];
	t->two_images += k.two_images, t->retries += k.retries, t->wcmds += wcmds;
	free(k.seen);
	free(k.before);
	cxsim_free(k.card);
}

static void chip_campaign(enum cxsim_chip chip)
{
	const struct layout L[] = {
		{chip, 0, 0, 20}, {chip, 1, 0, 20}, {chip, 0, 0x10000, 21}, {chip, 1, 0x10000, 21},
	};
	struct totals t = {0};

	printf("%s (%s):\n", cxsim_chip_name(chip), fs4_of(chip) ? "FS4" : "FS3");
	for (unsigned i = 0; i < sizeof(L) / sizeof(L[0]); i++)
		campaign(&L[i], MIN_CUTS / 4 + 20, &t);
	printf("%s total: %llu cut points (%llu at a write command, %llu after an erase was sent, %llu after a "
	       "program), of %llu write commands: old image boots %llu, new image boots %llu, neither 0; two whole "
	       "images %llu; %llu second burns, all finished\n",
	       cxsim_chip_name(chip), (unsigned long long)t.cuts, (unsigned long long)t.at_command,
	       (unsigned long long)t.after_erase, (unsigned long long)t.after_program, (unsigned long long)t.wcmds,
	       (unsigned long long)t.booted[0], (unsigned long long)t.booted[1], (unsigned long long)t.two_images,
	       (unsigned long long)t.retries);
	assert_true(t.cuts >= MIN_CUTS);
	if (fs4_of(chip))
		assert_true(t.two_images > 0); /* the state of the known problem was reached, and burned again */
}

/* The power drops and comes back at once, the delay-th config access after the cut_w-th
 * write command of the burn was sent; the gateway then stays busy until the burner has given
 * up the command it was running (a stuck command stays stuck in the model: 64 reads do). */
struct brownout {
	struct cxsim_card *card;
	uint64_t w0, cut_w, delay, after, reads_at;
	int phase;                  /* 0 before the cut, 1 stuck, 2 answering again */
};

static void brownout_hook(void *ctx, struct cxsim_card *card)
{
	struct brownout *b = ctx;
	uint64_t e;

	if (card != b->card)
		return;
	if (b->phase == 0 && writes(card, &e) - b->w0 >= b->cut_w && b->after++ >= b->delay) {
		cxsim_power_cycle(card);
		cxsim_params_mut(card)->stuck_busy = true;
		b->reads_at = cxsim_counters(card)->cr_reads;
		b->phase = 1;
	} else if (b->phase == 1 && cxsim_counters(card)->cr_reads - b->reads_at >= 64) {
		cxsim_params_mut(card)->stuck_busy = false;
		b->phase = 2;
	}
}

/* One burn cut as above: what cxflash reports must be what the model then boots. Returns
 * the state; counts it in seen[]. */
static void state_cut(const struct layout *L, uint64_t cut_w, uint64_t delay, unsigned seen[4])
{
	struct brownout b = {.card = new_card(L), .cut_w = cut_w, .delay = delay};
	struct burn_opts o = cross_opts();
	struct burn_result r;
	struct cx_status st = {0};
	uint32_t s = 1u << sc_slot_log(&card_img), old = (uint32_t)L->slot * s;
	const char *why;
	size_t n;
	uint8_t *before = sc_snapshot(b.card, &n);

	b.w0 = writes(b.card, &(uint64_t){0});
	sim_cfg_set_hook(brownout_hook, &b);
	int rc = run_burn_image(b.card, file_img.buf, file_img.len, &o, &r, &st);
	sim_cfg_set_hook(NULL, NULL);
	assert_int_equal(b.phase, 2);
	cxsim_params_mut(b.card)->stuck_busy = false;
	cxsim_power_cycle(b.card);
	enum verdict v = model_verdict(b.card, old, old ^ s, &why);
	enum card_state want = v == V_OLD ? CARD_OLD_BOOTS : v == V_NEW ? CARD_NEW_BOOTS : CARD_PARTIAL;
	if (rc == CX_OK || r.out.state != want || v == V_NONE)
		fail_msg("%s slot %d, cut %llu accesses after write command %llu: the burn returned %d, says %s; the "
			 "model boots %s (%s): %s", cxsim_chip_name(L->chip), L->slot, (unsigned long long)delay,
			 (unsigned long long)cut_w, rc, card_state_name(r.out.state),
			 v == V_OLD ? "the old image" : v == V_NEW ? "the new image" : "neither", why, st.msg);
	if (v != V_NONE && !strstr(st.msg, card_state_sentence(r.out.state)) && !strstr(st.msg, "safe to power off"))
		fail_msg("'%s' does not say the card's state", st.msg);
	const char *dev = sc_devdata_diff(&card_img, before, cxsim_flash(b.card, &n), n);
	if (dev)
		fail_msg("cut after write command %llu: %s", (unsigned long long)cut_w, dev);
	seen[r.out.state]++;
	free(before);
	cxsim_free(b.card);
}

static void state_campaign(enum cxsim_chip chip)
{
	unsigned seen[4] = {0}, runs = 0;

	for (int slot = 0; slot < 2; slot++) {
		const struct layout L = {chip, slot, 0, 20};
		uint64_t acc, wcmds;

		images(&L);
		count_burn(&L, &acc, &wcmds);
		/* Every 4th write command, and each of the last 8 (magic, old magic), cut as it is
		 * sent and 40 accesses on (inside it, or past it). */
		for (uint64_t w = 1; w <= wcmds; w++)
			if (w % 4 == 1 || w + 8 > wcmds)
				for (uint64_t delay = 0; delay <= 40; delay += 40, runs++)
					state_cut(&L, w, delay, seen);
	}
	printf("%s: %u burns cut (power off and on, the burner's command failing): cxflash said old-image-boots "
	       "%u, new-image-boots %u, partly-written %u, untouched %u; each what the model boots\n",
	       cxsim_chip_name(chip), runs, seen[CARD_OLD_BOOTS], seen[CARD_NEW_BOOTS], seen[CARD_PARTIAL],
	       seen[CARD_UNTOUCHED]);
	assert_int_equal(seen[CARD_PARTIAL] + seen[CARD_UNTOUCHED], 0);
	assert_true(seen[CARD_OLD_BOOTS] > 0 && seen[CARD_NEW_BOOTS] > 0);
}

static void test_cx4lx_state(void **state)
{
	(void)state;
	state_campaign(CXSIM_CX4LX);
}

static void test_cx5_state(void **state)
{
	(void)state;
	state_campaign(CXSIM_CX5);
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
		cmocka_unit_test(test_cx4lx_state),
		cmocka_unit_test(test_cx5_state),
		cmocka_unit_test(test_cx4lx_cuts),
		cmocka_unit_test(test_cx5_cuts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
