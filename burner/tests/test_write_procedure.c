/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_write_procedure.c — the card's state after a write (ops/write_procedure.h, ops/card_state.h)
 * against the card model in process: a burn that succeeds leaves new-image-boots, one that
 * writes nothing (dry run, already there, refused) leaves untouched and the model counts no
 * erase or program; a failure in a failsafe burn's body leaves old-image-boots and the card
 * boots its old firmware; the failures that used to say nothing about the card (the check
 * after a burn, the in-place sg read-back, a read failing in a verify) set the state and put
 * its sentence in the message; a restore that fails half way says a state that agrees with
 * what the card then boots. Each state is checked against the model: what it erased and
 * programmed, and what its boot ROM (and flint's reading, flint_view.h) finds after a
 * power cycle.
 *
 * Most failures come from a gateway that stays busy for a while (busy_window): the command
 * running then fails, and the card answers again when the state is read, so the state is
 * observed on a readable card. That campaign found three ways the state was wrong: a failed
 * first erase or program counted as "untouched", a part still busy read as no image, and a
 * restore's temporary copy in the other slot not taken for the bundle's image. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/patch.h"
#include "image/zebra.h"
#include "ops/burn.h"
#include "ops/card_state.h"
#include "ops/restore.h"
#include "ops/setid.h"
#include "flint_view.h"
#include "sim_cfg.h"
#include "card_fixture.h"
#include "card_ops.h"
#include "mkimage.h"
#include "scratch.h"

#define CARD_GUID 0x0002c90300c0ffe0ull
#define OLD_FW "--chip cx3 --ddr 3 --fw 2.40.7000 --guid 0002c90300c0ffe0 --mac 0002c9c0ffe0"
#define NEW_FW "--chip cx3 --ddr 3 --fw 2.42.5000 --seed 3"

/* A CX3 card (W25Q16) holding the image made from opts in slot 'slot'. */
static struct cxsim_card *card(const char *opts, int slot)
{
	struct cxsim_card *c = card_new(&(struct card_spec){.chip = CXSIM_CX3, .image = opts, .slot = slot});

	assert_true(cxsim_boot_info(c)->booted);
	return c;
}


/* The before_write and after hooks: when and with what they ran. */
struct spy {
	struct cxsim_card *c;
	int backups, afters;
	int after_rc;
	struct write_outcome after_out;
	void (*arm)(void *ctx);      /* called by the backup: a fault starts with the write */
	void *arm_ctx;
};

static int spy_backup(void *ctx, struct cx_status *st)
{
	struct spy *s = ctx;

	(void)st;
	s->backups++;
	if (s->arm)
		s->arm(s->arm_ctx);
	return CX_OK;
}

static void spy_after(void *ctx, int rc, const struct cx_status *st, const struct write_outcome *out)
{
	struct spy *s = ctx;

	(void)st;
	s->afters++;
	s->after_rc = rc;
	s->after_out = *out;
}

static void spy_burn_opts(struct burn_opts *o, struct spy *s)
{
	o->hooks.before_write = spy_backup;
	o->hooks.before_ctx = s;
	o->hooks.after = spy_after;
	o->hooks.after_ctx = s;
}

/* The model's counts agree with the outcome's, and the after hook saw the same outcome.
 * After a failure the command that failed may have been carried out by the flash but
 * not counted by cxflash (flash.h counts an erase or a page once it has finished): at
 * most one erase (64 KiB) and one page (256 bytes) more on the model's side. */
static void assert_counted(struct cxsim_card *c, const struct write_outcome *out, const struct spy *s, int rc)
{
	const struct cxsim_counters *k = cxsim_counters(c);

	if (rc == CX_OK) {
		assert_int_equal(out->bytes_erased, k->bytes_erased);
		assert_int_equal(out->bytes_programmed, k->bytes_programmed);
	} else {
		assert_in_range(k->bytes_erased - out->bytes_erased, 0, 65536);
		assert_true(out->bytes_erased <= k->bytes_erased);
		assert_true(out->bytes_programmed <= k->bytes_programmed);
		assert_in_range(k->bytes_programmed - out->bytes_programmed, 0, 256);
	}
	assert_int_equal(s->afters, 1);
	assert_int_equal(s->after_rc, rc);
	assert_int_equal(s->after_out.state, out->state);
	assert_int_equal(s->after_out.bytes_programmed, out->bytes_programmed);
}

/* Nothing reached the flash: the model erased and programmed nothing, the flash is as before. */
static void assert_untouched(struct cxsim_card *c, const uint8_t *before, const struct write_outcome *out)
{
	size_t n;
	const uint8_t *now = cxsim_flash(c, &n);

	assert_int_equal(out->state, CARD_UNTOUCHED);
	assert_int_equal(cxsim_counters(c)->erases, 0);
	assert_int_equal(cxsim_counters(c)->bytes_erased, 0);
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);
	assert_int_equal(out->bytes_erased, 0);
	assert_int_equal(out->bytes_programmed, 0);
	assert_memory_equal(now, before, n);
}

/* After a power cycle the boot ROM boots FW 2.<minor>, and flint reads the same. */
static void assert_boots(struct cxsim_card *c, unsigned minor)
{
	struct flint_view fv = {0};
	const char *why;

	cxsim_power_cycle(c);
	assert_true(cxsim_boot_info(c)->booted);
	assert_int_equal(cxsim_boot_info(c)->fw_ver[1], minor);
	if ((why = flint_view_lowest_whole(c, &fv)))
		fail_msg("flint would not read the image: %s", why);
	assert_int_equal(fv.minor, minor);
}

static void assert_says(const struct cx_status *st, const char *words)
{
	if (!strstr(st->msg, words))
		fail_msg("'%s' does not say '%s'", st->msg, words);
}

/* ---- the names ---- */

static void test_names_and_sentences(void **state)
{
	(void)state;
	static const char *const names[] = {"untouched", "old-image-boots", "new-image-boots", "partly-written"};
	const enum card_state all[] = {CARD_UNTOUCHED, CARD_OLD_BOOTS, CARD_NEW_BOOTS, CARD_PARTIAL};

	for (int i = 0; i < 4; i++) {
		assert_string_equal(card_state_name(all[i]), names[i]);
		const char *s = card_state_sentence(all[i]);
		assert_non_null(s);
		assert_true(strlen(s) > 20);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(card_state_sentence(all[j]), s);
	}
	/* The two that leave the old image say it is safe; the partial one says not to power off. */
	assert_non_null(strstr(card_state_sentence(CARD_UNTOUCHED), "safe to power off"));
	assert_non_null(strstr(card_state_sentence(CARD_OLD_BOOTS), "safe to power off"));
	assert_non_null(strstr(card_state_sentence(CARD_PARTIAL), "do not power off"));
	assert_null(strstr(card_state_sentence(CARD_PARTIAL), "safe to"));
	assert_null(strstr(card_state_sentence(CARD_NEW_BOOTS), "do not"));
	/* Out of range, either way: a word, never a crash or another state's text. */
	const enum card_state bad[] = {(enum card_state)4, (enum card_state)-1, (enum card_state)1000};
	for (int i = 0; i < 3; i++) {
		assert_string_equal(card_state_name(bad[i]), "unknown");
		assert_string_equal(card_state_sentence(bad[i]), "unknown state");
	}
}

/* ---- burn: what writes nothing ---- */

static void test_burn_success_new_image_boots(void **state)
{
	(void)state;
	struct cxsim_card *c = card(OLD_FW, 0);
	struct spy s = {.c = c};
	struct burn_opts o = {0};
	struct burn_result r;
	struct cx_status st = {0};

	spy_burn_opts(&o, &s);
	cxsim_counters_reset(c);
	assert_int_equal(run_burn(c, NEW_FW, &o, &r, &st), CX_OK);
	assert_int_equal(r.out.state, CARD_NEW_BOOTS);
	assert_false(r.out.nothing_to_do);
	assert_false(r.out.dry_run);
	assert_true(r.out.backed_up);
	assert_int_equal(s.backups, 1);
	assert_true(r.out.bytes_programmed > 0);
	assert_true(r.out.bytes_read > 0);
	assert_counted(c, &r.out, &s, CX_OK);
	assert_int_equal(r.start, 0x80000);
	assert_boots(c, 42);
	assert_int_equal(cxsim_boot_info(c)->slot, 1);
	assert_int_equal(cxsim_boot_info(c)->guids[0], CARD_GUID);
	cxsim_free(c);
}

static void test_burn_dry_run_and_same_image_untouched(void **state)
{
	(void)state;
	struct cxsim_card *c = card(OLD_FW, 0);
	size_t n;
	uint8_t *before = flash_copy(c, &n);
	struct spy s = {.c = c};
	struct burn_opts o = {0};
	struct burn_result r;
	struct cx_status st = {0};
	int asked = 0;

	spy_burn_opts(&o, &s);
	o.dry_run = true;
	cxsim_counters_reset(c);
	assert_int_equal(run_burn(c, NEW_FW, &o, &r, &st), CX_OK);
	assert_true(r.out.dry_run);
	assert_false(r.out.backed_up);
	assert_int_equal(s.backups, 0);
	assert_untouched(c, before, &r.out);
	assert_counted(c, &r.out, &s, CX_OK);

	/* The image the card holds, with the card's identity: nothing to do. */
	o.dry_run = false;
	o.hooks.confirm = confirm_yes;
	o.hooks.confirm_ctx = &asked;
	s.afters = 0;
	cxsim_counters_reset(c);
	assert_int_equal(run_burn(c, "--chip cx3 --ddr 3 --fw 2.40.7000", &o, &r, &st), CX_OK);
	assert_int_equal(asked, 1); /* "already has firmware ... burn it again?" */
	assert_true(r.out.nothing_to_do);
	assert_false(r.out.backed_up);
	assert_int_equal(s.backups, 0);
	assert_untouched(c, before, &r.out);
	assert_counted(c, &r.out, &s, CX_OK);
	assert_boots(c, 40);
	free(before);
	cxsim_free(c);
}

/* Every refusal: untouched, the backup never ran, the model counted nothing. */
static void expect_refused(struct cxsim_card *c, const char *img, struct burn_opts *o, int code, const char *words)
{
	size_t n;
	uint8_t *before = flash_copy(c, &n);
	struct spy s = {.c = c};
	struct burn_result r;
	struct cx_status st = {0};

	spy_burn_opts(o, &s);
	cxsim_counters_reset(c);
	assert_int_equal(run_burn(c, img, o, &r, &st), code);
	assert_says(&st, words);
	assert_int_equal(s.backups, 0);
	assert_false(r.out.backed_up);
	assert_untouched(c, before, &r.out);
	assert_counted(c, &r.out, &s, code);
	/* A refusal is not "the flash changed": no state sentence is added. */
	assert_null(strstr(st.msg, card_state_sentence(CARD_UNTOUCHED)));
	free(before);
}

static void test_burn_refused_untouched(void **state)
{
	(void)state;
	struct cxsim_card *c = card(OLD_FW " --psid HP_0280210019", 0);
	struct burn_opts o = {0};

	/* A guard: a ConnectX-3 Pro image on a ConnectX-3. */
	expect_refused(c, "--chip cx3pro --ddr 3 --psid HP_0280210019", &o, CX_EMISMATCH, "ConnectX-3 Pro");
	/* Another PSID, allowed but not confirmed: the question is declined. */
	o.guard.allow_psid_change = true;
	expect_refused(c, NEW_FW, &o, CX_EDECLINED, "");
	/* Confirmed, but the part is write-protected. */
	o.hooks.confirm = confirm_yes;
	cxsim_params_mut(c)->write_protect = true;
	cxsim_power_cycle(c);
	expect_refused(c, NEW_FW, &o, CX_EPROTECTED, "");
	/* A dry run on the write-protected part says so too, and writes nothing. */
	o.dry_run = true;
	expect_refused(c, NEW_FW, &o, CX_EPROTECTED, "");
	assert_boots(c, 40);
	cxsim_free(c);
}

/* Another agent holds the flash semaphore once the card is open: the burn cannot
 * even read the card's image, and the card is untouched. */
static void test_burn_held_semaphore_untouched(void **state)
{
	(void)state;
	struct cxsim_card *c = card(OLD_FW, 0);
	size_t n, len;
	uint8_t *before = flash_copy(c, &n), *img = mkimage(NEW_FW, &len);
	struct spy s = {.c = c};
	struct burn_opts o = {.hooks.confirm = confirm_yes};
	struct burn_result r;
	struct cx_status st = {0};
	struct device d;

	spy_burn_opts(&o, &s);
	card_open(&d, c);
	cxsim_params_mut(c)->sem_held_gpio = true;
	cxsim_power_cycle(c); /* the model takes the semaphore's holder at reset */
	cxsim_counters_reset(c);
	int rc = burn_card(&d, img, len, &o, &r, &st);
	device_close(&d);
	assert_int_not_equal(rc, CX_OK);
	assert_int_equal(s.backups, 0);
	assert_untouched(c, before, &r.out);
	assert_counted(c, &r.out, &s, rc);
	assert_int_equal(cxsim_counters(c)->gw_without_sem, 0);
	cxsim_params_mut(c)->sem_held_gpio = false;
	assert_boots(c, 40);
	free(img);
	free(before);
	cxsim_free(c);
}

/* ---- burn: failures that changed the flash ---- */

/* A burn of NEW_FW (backup and history hooks spied on) while hook runs after every
 * config access (NULL: none): it fails with CX_EFLASH after the backup, and the counts agree. */
static void burn_fails(struct cxsim_card *c, void (*hook)(void *ctx, struct cxsim_card *card), void *ctx,
		       struct burn_result *r, struct cx_status *st)
{
	struct spy s = {.c = c};
	struct burn_opts o = {0};

	spy_burn_opts(&o, &s);
	cxsim_counters_reset(c);
	sim_cfg_set_hook(hook, ctx);
	int rc = run_burn(c, NEW_FW, &o, r, st);
	sim_cfg_set_hook(NULL, NULL);
	assert_int_equal(rc, CX_EFLASH);
	assert_true(r->out.backed_up);
	assert_int_equal(s.backups, 1);
	assert_counted(c, &r->out, &s, rc);
}

/* Bits of one byte of the new slot's body that never change: the program of the
 * body fails its verify, before the new signature and the switch. */
static void test_burn_body_failure_old_image_boots(void **state)
{
	(void)state;
	struct cxsim_card *c = card(OLD_FW, 0);
	size_t len, n;
	uint8_t *img = mkimage(NEW_FW, &len);
	struct fs2_image *pi = malloc(sizeof(*pi));
	struct cx_status st = {0};

	assert_non_null(pi);
	assert_int_equal(fs2_parse(img, len, pi, &st), CX_OK);
	uint32_t cont = (uint32_t)len / 2;
	while (img[cont] == 0xFF)
		cont++;
	uint32_t phys = zebra_cont2phys(cont, pi->log2chunk, 1);
	const uint8_t *flash = cxsim_flash(c, &n);
	assert_int_equal(flash[phys], 0xFF); /* slot 1 is blank: the program must clear bits */
	cxsim_params_mut(c)->stuck_addr = phys;
	cxsim_params_mut(c)->stuck_mask = (uint8_t)~img[cont];
	free(pi);
	free(img);

	struct burn_result r;
	burn_fails(c, NULL, NULL, &r, &st);
	assert_int_equal(r.out.state, CARD_OLD_BOOTS);
	assert_true(r.out.bytes_programmed > 0);
	assert_says(&st, "verify failed");
	assert_says(&st, "the card's running image is intact");
	assert_boots(c, 40);
	assert_int_equal(cxsim_boot_info(c)->slot, 0);
	assert_int_equal(cxsim_boot_info(c)->guids[0], CARD_GUID);
	cxsim_free(c);
}

/* The check after a burn (burn.c verify) reads the card's image again: a change
 * made once the old signature is zeroed is found, and the message says the state. */
struct after_zero {
	bool done;
	uint32_t at;                 /* flip a bit of this byte (0: none) */
	bool give_back_sig;          /* write the old signature's first dword back ... */
	uint64_t reads_after;        /* ... once this many flash bytes were read after the zeroing */
	uint64_t mark;
	uint8_t sig[4];
};

static void after_zero_hook(void *ctx, struct cxsim_card *card)
{
	struct after_zero *z = ctx;
	size_t size;
	uint8_t *flash = cxsim_flash(card, &size);

	if (z->done || flash[0] || flash[1] || flash[2] || flash[3])
		return;
	if (!z->mark)
		z->mark = cxsim_counters(card)->bytes_read + 1;
	if (cxsim_counters(card)->bytes_read + 1 - z->mark < z->reads_after)
		return;
	if (z->at)
		flash[z->at] ^= 0x01;
	if (z->give_back_sig)
		memcpy(flash, z->sig, 4);
	cxsim_flash_changed(card);
	z->done = true;
}

static void test_burn_check_after_the_write_says_the_state(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		struct cxsim_card *c = card(OLD_FW, 0);
		size_t n;
		/* k = 1: the signature comes back once the zeroing's own verify has read it
		 * (the first read after it), before the check after the burn looks. */
		struct after_zero z = {.at = k ? 0 : 0x80000 + FS2_OFF_IMG_SIZE + 3, .give_back_sig = k == 1,
				       .reads_after = (uint64_t)k};
		memcpy(z.sig, cxsim_flash(c, &n), 4);
		struct burn_result r;
		struct cx_status st = {0};

		burn_fails(c, after_zero_hook, &z, &r, &st);
		assert_true(z.done);
		assert_int_not_equal(r.out.state, CARD_UNTOUCHED);
		assert_says(&st, card_state_sentence(r.out.state));
		if (k == 0) {
			/* The new slot's image size is wrong: neither image walks as written. */
			assert_says(&st, "read-back after the burn does not match the image at 0x80000");
			assert_int_equal(r.out.state, CARD_PARTIAL);
		} else {
			/* The old signature is back: the card's first image is the old one again. */
			assert_says(&st, "after the burn the card's first image is at 0x0, not the new one at 0x80000");
			assert_int_equal(r.out.state, CARD_OLD_BOOTS);
			assert_boots(c, 40);
		}
		cxsim_free(c);
	}
}

/* A fault that makes flash commands fail for a while: the gateway stays busy
 * (cxsim's stuck_busy) from the moment trigger() says so until the burner has
 * given up on the command it was running (it polls FL_GW_BUSY_POLLS times; a
 * stuck command stays busy after the fault ends), then the card answers again,
 * so the state after the failure is read from a card that can be read. */
struct busy_window {
	bool (*trigger)(struct busy_window *b, struct cxsim_card *c);
	uint64_t at;                 /* a trigger's own count */
	uint64_t accesses;
	bool on, done;
	uint64_t reads_at_start;
	const uint8_t *want;         /* trigger data */
	uint32_t addr, len;
	uint64_t mark;
};

static void busy_hook(void *ctx, struct cxsim_card *c)
{
	struct busy_window *b = ctx;

	b->accesses++;
	if (b->done)
		return;
	if (!b->on) {
		if (b->trigger(b, c)) {
			b->on = true;
			b->reads_at_start = cxsim_counters(c)->cr_reads;
			cxsim_params_mut(c)->stuck_busy = true;
		}
		return;
	}
	/* A stuck command's BUSY stays set in the model after the fault ends: once some
	 * reads have passed (a command was started and is being polled), the fault
	 * can end; the burner's next command runs normally. */
	if (cxsim_counters(c)->cr_reads - b->reads_at_start >= 64) {
		cxsim_params_mut(c)->stuck_busy = false;
		b->done = true;
	}
}

/* The bytes [addr, addr + len) hold want, and then 'at' more flash bytes were read. */
static bool after_written_and_read(struct busy_window *b, struct cxsim_card *c)
{
	size_t n;
	const uint8_t *flash = cxsim_flash(c, &n);

	if (!b->mark) {
		if (memcmp(flash + b->addr, b->want, b->len))
			return false;
		b->mark = cxsim_counters(c)->bytes_read + 1;
		return false;
	}
	return cxsim_counters(c)->bytes_read + 1 - b->mark >= b->at;
}

/* The check after the burn cannot read the card: the message says which state the
 * card is in (the read that follows finds the new image, complete). */
static void test_burn_check_after_the_write_read_fails(void **state)
{
	(void)state;
	struct cxsim_card *c = card(OLD_FW, 0);
	static const uint8_t zero[4];
	struct busy_window b = {.trigger = after_written_and_read, .want = zero, .addr = 0, .len = 4, .at = 64};
	struct burn_result r;
	struct cx_status st = {0};

	burn_fails(c, busy_hook, &b, &r, &st);
	assert_true(b.done);
	assert_says(&st, "stuck busy");
	assert_int_equal(r.out.state, CARD_NEW_BOOTS);
	assert_says(&st, card_state_sentence(CARD_NEW_BOOTS));
	assert_boots(c, 42);
	cxsim_free(c);
}

/* The same fault in the body of the burn, a little after its first program: the
 * card answers again when the state is read, and the old image is what boots. */
static bool after_programmed(struct busy_window *b, struct cxsim_card *c)
{
	return cxsim_counters(c)->bytes_programmed >= b->at;
}

static void test_burn_body_fault_old_image_boots(void **state)
{
	(void)state;
	for (uint64_t at = 1; at <= 16384; at *= 8) {
		struct cxsim_card *c = card(OLD_FW, 0);
		struct busy_window b = {.trigger = after_programmed, .at = at};
		struct burn_result r;
		struct cx_status st = {0};

		burn_fails(c, busy_hook, &b, &r, &st);
		assert_true(b.done);
		assert_true(r.out.bytes_programmed > 0);
		assert_int_equal(r.out.state, CARD_OLD_BOOTS);
		assert_says(&st, "stuck busy");
		assert_says(&st, "the card's running image is intact");
		assert_boots(c, 40);
		assert_int_equal(cxsim_boot_info(c)->slot, 0);
		cxsim_free(c);
	}
}

/* ---- restore ---- */

/* Burn FW 2.<minor>, newer than the card's: no question. */
static void burn(struct cxsim_card *c, int minor)
{
	struct burn_opts o = {0};
	struct burn_result r;
	struct cx_status st = {0};
	char opts[200];

	snprintf(opts, sizeof(opts), "--chip cx3 --ddr 3 --fw 2.%d.0 --seed %d", minor, minor);
	if (run_burn(c, opts, &o, &r, &st))
		fail_msg("burn 2.%d: %s", minor, st.msg);
	cxsim_power_cycle(c);
}

static int run_restore(struct cxsim_card *c, const char *bundle, struct restore_opts *o, struct restore_result *r,
		       struct cx_status *st)
{
	struct device d;

	card_open(&d, c);
	int rc = restore_card(&d, bundle, o, r, st);
	device_close(&d);
	return rc;
}

static void spy_restore_opts(struct restore_opts *o, struct spy *s)
{
	o->hooks.before_write = spy_backup;
	o->hooks.before_ctx = s;
	o->hooks.after = spy_after;
	o->hooks.after_ctx = s;
}

/* A card of FW 2.40 in slot 0 and its bundle; then 'burns' newer burns (one: the
 * card runs FW 2.41 from slot 1; two: FW 2.42 from slot 0, so the restore goes by
 * way of a copy in slot 1, restore_order.h). */
struct restore_case {
	char dir[64];
	struct backup_result bundle;
	struct cxsim_card *card;
	uint8_t *flash;              /* the bundle's flash */
	size_t size;
	unsigned old_minor;
};

static void restore_case(struct restore_case *k, int burns)
{
	scratch_dir(k->dir, sizeof(k->dir), "cardwrite");
	k->card = card(OLD_FW, 0);
	k->flash = flash_copy(k->card, &k->size);
	card_backup(k->card, k->dir, &k->bundle);
	for (int i = 1; i <= burns; i++)
		burn(k->card, 40 + i);
	k->old_minor = 40 + (unsigned)burns;
	assert_int_equal(cxsim_boot_info(k->card)->fw_ver[1], k->old_minor);
}

static void restore_case_free(struct restore_case *k)
{
	free(k->flash);
	cxsim_free(k->card);
	rm_rf(k->dir);
}

static void test_restore_success_and_nothing_to_do(void **state)
{
	(void)state;
	struct restore_case k;
	struct restore_result r;
	struct cx_status st = {0};
	size_t n;

	restore_case(&k, 2);
	struct spy s = {.c = k.card};
	struct restore_opts o = {0};
	spy_restore_opts(&o, &s);

	/* A dry run plans and writes nothing. */
	uint8_t *before = flash_copy(k.card, &n);
	o.dry_run = true;
	cxsim_counters_reset(k.card);
	assert_int_equal(run_restore(k.card, k.bundle.path, &o, &r, &st), CX_OK);
	assert_true(r.out.dry_run);
	assert_int_equal(s.backups, 0);
	assert_untouched(k.card, before, &r.out);
	assert_counted(k.card, &r.out, &s, CX_OK);
	free(before);

	o.dry_run = false;
	s.afters = 0;
	cxsim_counters_reset(k.card);
	assert_int_equal(run_restore(k.card, k.bundle.path, &o, &r, &st), CX_OK);
	assert_int_equal(r.out.state, CARD_NEW_BOOTS);
	assert_true(r.plan.used_copy);
	assert_true(r.out.backed_up);
	assert_int_equal(s.backups, 1);
	assert_true(r.out.bytes_erased > 0 && r.out.bytes_programmed > 0);
	assert_counted(k.card, &r.out, &s, CX_OK);
	assert_memory_equal(cxsim_flash(k.card, &n), k.flash, k.size);
	assert_boots(k.card, 40);

	/* Again: the flash equals the bundle, nothing to do. */
	s.afters = 0;
	cxsim_counters_reset(k.card);
	assert_int_equal(run_restore(k.card, k.bundle.path, &o, &r, &st), CX_OK);
	assert_true(r.out.nothing_to_do);
	assert_untouched(k.card, k.flash, &r.out);
	assert_counted(k.card, &r.out, &s, CX_OK);
	assert_int_equal(s.backups, 1);
	restore_case_free(&k);
}

/* A fault that starts at the at-th config access after the backup. */
static bool after_backup(struct busy_window *b, struct cxsim_card *c)
{
	(void)c;
	return b->mark && b->accesses - b->mark >= b->at;
}

static void arm_at_backup(void *ctx)
{
	struct busy_window *b = ctx;
	b->mark = b->accesses;
}

/* What a failed restore says against what the card then boots: old-image-boots
 * exactly when it boots the old firmware, new-image-boots exactly when it boots the
 * bundle's (from the bundle's slot or from the temporary copy), untouched only
 * when the model counted no erase and no program; never partly-written, since
 * the order of restore_order.h keeps a whole image at every instant and the card
 * answers when the state is read. Returns the state. */
static enum card_state restore_fails_at(const struct restore_case *k, uint64_t at, bool *failed, bool *from_copy)
{
	struct cxsim_card *c = cxsim_clone(k->card);
	struct busy_window b = {.trigger = after_backup, .at = at};
	struct spy s = {.c = c, .arm = arm_at_backup, .arm_ctx = &b};
	struct restore_opts o = {0};
	struct restore_result r;
	struct cx_status st = {0};

	assert_non_null(c);
	spy_restore_opts(&o, &s);
	cxsim_counters_reset(c);
	sim_cfg_set_hook(busy_hook, &b);
	int rc = run_restore(c, k->bundle.path, &o, &r, &st);
	sim_cfg_set_hook(NULL, NULL);
	assert_counted(c, &r.out, &s, rc);
	*failed = rc != CX_OK;
	bool touched = cxsim_counters(c)->erases || cxsim_counters(c)->bytes_programmed;
	size_t n, n0;
	const uint8_t *now = cxsim_flash(c, &n), *before = cxsim_flash(k->card, &n0);
	bool same = n == n0 && !memcmp(now, before, n); /* n read only after both calls set it */
	cxsim_power_cycle(c);
	struct flint_view fv = {0};
	const char *why = flint_view_lowest_whole(c, &fv);
	const struct cxsim_boot *boot = cxsim_boot_info(c);
	if (why || !boot->booted || fv.minor != boot->fw_ver[1])
		fail_msg("fault at %llu: the card does not boot a whole image (%s)", (unsigned long long)at,
			 why ? why : boot->why);
	unsigned m = boot->fw_ver[1];
	*from_copy = m == 40 && boot->start != r.plan.boot_start;
	if (rc == CX_OK) {
		assert_int_equal(r.out.state, CARD_NEW_BOOTS);
		assert_memory_equal(cxsim_flash(c, &n), k->flash, k->size);
	} else if (r.out.state == CARD_UNTOUCHED) {
		if (touched || !same)
			fail_msg("fault at %llu: untouched, but the flash changed: %s", (unsigned long long)at, st.msg);
		assert_int_equal(m, k->old_minor);
	} else if (r.out.state != (m == 40 ? CARD_NEW_BOOTS : CARD_OLD_BOOTS) || (m != 40 && m != k->old_minor)) {
		fail_msg("fault at %llu: the state is %s, the card boots FW 2.%u (old 2.%u, the bundle's 2.40%s): %s",
			 (unsigned long long)at, card_state_name(r.out.state), m, k->old_minor,
			 *from_copy ? ", from the temporary copy" : "", st.msg);
	} else if (!strstr(st.msg, card_state_sentence(r.out.state)) && !strstr(st.msg, "safe to power off")) {
		fail_msg("fault at %llu: '%s' does not say the card is safe", (unsigned long long)at, st.msg);
	}
	enum card_state got = r.out.state;
	cxsim_free(c);
	return got;
}

static void restore_campaign(int burns)
{
	struct restore_case k;
	unsigned seen[4] = {0}, copies = 0, runs = 0;
	bool failed = true, from_copy;

	restore_case(&k, burns);
	for (uint64_t at = 1; failed; at = at * 5 / 4 + 1000, runs++) {
		enum card_state s = restore_fails_at(&k, at, &failed, &from_copy);
		if (failed) {
			seen[s]++;
			copies += from_copy;
		}
	}
	printf("restore after %d burn(s): %u faults, %u untouched, %u old-image-boots, %u new-image-boots "
	       "(%u from the temporary copy)\n", burns, runs - 1, seen[CARD_UNTOUCHED], seen[CARD_OLD_BOOTS],
	       seen[CARD_NEW_BOOTS], copies);
	assert_true(seen[CARD_OLD_BOOTS] > 0);
	assert_true(seen[CARD_NEW_BOOTS] > 0);
	assert_int_equal(seen[CARD_PARTIAL], 0);
	if (burns == 2)
		assert_true(copies > 0);
	restore_case_free(&k);
}

static void test_restore_failure_agrees_with_the_boot(void **state)
{
	(void)state;
	restore_campaign(1);
	restore_campaign(2);
}

/* The power goes 100,000 config accesses into the write (the copy into the other slot). */
static void cut_later(void *ctx)
{
	struct cxsim_card *c = ctx;
	const struct cxsim_counters *k = cxsim_counters(c);

	cxsim_params_mut(c)->power_cut_after = k->cfg_reads + k->cfg_writes + 100000;
}

/* A real power cut in the middle: the card cannot be read when the state is
 * taken, so nothing is claimed that the card does not bear out. */
static void test_restore_power_cut(void **state)
{
	(void)state;
	struct restore_case k;
	struct restore_result r;
	struct cx_status st = {0};

	restore_case(&k, 2);
	struct spy s = {.c = k.card, .arm = cut_later, .arm_ctx = k.card};
	struct restore_opts o = {0};
	spy_restore_opts(&o, &s);
	cxsim_power_cycle(k.card); /* the model counts accesses towards the cut from here */
	cxsim_counters_reset(k.card);
	int rc = run_restore(k.card, k.bundle.path, &o, &r, &st);
	assert_int_not_equal(rc, CX_OK);
	assert_false(cxsim_powered(k.card));
	assert_int_not_equal(r.out.state, CARD_UNTOUCHED);
	assert_true(cxsim_counters(k.card)->bytes_programmed > 0);
	cxsim_power_cycle(k.card);
	assert_true(cxsim_boot_info(k.card)->booted);
	unsigned m = cxsim_boot_info(k.card)->fw_ver[1];
	if (r.out.state == CARD_OLD_BOOTS)
		assert_int_equal(m, 42);
	if (r.out.state == CARD_NEW_BOOTS)
		assert_int_equal(m, 40);
	/* Run again: the bundle comes back whole. */
	s.afters = 0;
	cx_status_clear(&st);
	assert_int_equal(run_restore(k.card, k.bundle.path, &o, &r, &st), CX_OK);
	assert_int_equal(r.out.state, CARD_NEW_BOOTS);
	size_t n;
	assert_memory_equal(cxsim_flash(k.card, &n), k.flash, k.size);
	restore_case_free(&k);
}

/* ---- sg on a card ---- */

#define NEW_GUID 0x0002c90300abc120ull
#define NEW_MAC 0x0002c9abc120ull

/* What cxflash sg -d does below the CLI: read, patch the GUIDs, write. */
static int set_guids(struct cxsim_card *c, struct setid_opts *o, struct setid_result *r, struct cx_status *st)
{
	struct device d;
	struct dev_image cur;
	struct guid_request g = {.have_guids = true, .have_macs = true};
	uint8_t *want = NULL;

	patch_expand_guid(NEW_GUID, g.guid);
	patch_expand_mac(NEW_MAC, g.mac);
	card_open(&d, c);
	int rc = setid_read(&d, &cur, st);
	if (!rc) {
		want = malloc(cur.len);
		assert_non_null(want);
		memcpy(want, cur.buf, cur.len);
		rc = patch_guids(want, &cur.img, &g, st);
	}
	if (!rc)
		rc = setid_write(&d, &cur, want, o, r, st);
	device_close(&d);
	devimage_free(&cur);
	free(want);
	return rc;
}

/* The failsafe re-burn (GUIDs already set): new-image-boots, the new GUIDs boot. */
static void test_sg_reburn_new_image_boots(void **state)
{
	(void)state;
	struct cxsim_card *c = card(OLD_FW, 0);
	struct setid_opts o = {0};
	struct setid_result r;
	struct cx_status st = {0};

	cxsim_counters_reset(c);
	assert_int_equal(set_guids(c, &o, &r, &st), CX_OK);
	assert_false(r.in_place);
	assert_int_equal(r.out.state, CARD_NEW_BOOTS);
	assert_int_equal(r.out.bytes_programmed, cxsim_counters(c)->bytes_programmed);
	assert_boots(c, 40);
	assert_int_equal(cxsim_boot_info(c)->guids[0], NEW_GUID);
	cxsim_free(c);
}

/* Blank GUIDs in place: once the full-image CRC (the last run written) is on the
 * flash and its own verify has read it, a GUID byte is put back to 0xFF: the
 * read-back of every run (setid.c read_back) finds it, and the message says the
 * state. */
struct unprogram {
	uint32_t crc_at, guid_at;
	uint8_t crc[2];
	uint64_t mark;
	bool done;
};

static void unprogram_hook(void *ctx, struct cxsim_card *card)
{
	struct unprogram *u = ctx;
	size_t n;
	uint8_t *flash = cxsim_flash(card, &n);

	if (u->done || memcmp(flash + u->crc_at, u->crc, 2))
		return;
	if (!u->mark) {
		u->mark = cxsim_counters(card)->bytes_read + 1;
		return;
	}
	if (cxsim_counters(card)->bytes_read + 1 == u->mark)
		return;
	flash[u->guid_at] = 0xFF;
	cxsim_flash_changed(card);
	u->done = true;
}

/* A card with blank GUIDs, and the image sg --in-place should leave on it. */
struct blank_card {
	struct cxsim_card *c;
	struct fs2_image img;
	uint8_t *want;
};

static void blank_guid_card(struct blank_card *k)
{
	size_t n;
	struct cx_status st = {0};
	struct guid_request g = {.have_guids = true, .have_macs = true};

	k->c = card("--chip cx3 --ddr 3 --fw 2.40.7000 --blank-guids", 0);
	const uint8_t *flash = cxsim_flash(k->c, &n);
	/* The image as the card holds it (slot 0, first chunk: physical = contiguous), patched. */
	assert_int_equal(fs2_parse(flash, 0x80000, &k->img, &st), CX_OK);
	k->want = malloc(k->img.last_addr);
	assert_non_null(k->want);
	memcpy(k->want, flash, k->img.last_addr);
	patch_expand_guid(NEW_GUID, g.guid);
	patch_expand_mac(NEW_MAC, g.mac);
	assert_int_equal(patch_guids(k->want, &k->img, &g, &st), CX_OK);
}

static void blank_card_free(struct blank_card *k)
{
	free(k->want);
	cxsim_free(k->c);
}

/* sg --in-place on it with a fault hook: it fails (CX_EFLASH) in place. */
static void in_place_fails(struct blank_card *k, void (*hook)(void *ctx, struct cxsim_card *card), void *ctx,
			   struct setid_result *r, struct cx_status *st)
{
	struct setid_opts o = {.in_place = true};

	cxsim_counters_reset(k->c);
	sim_cfg_set_hook(hook, ctx);
	int rc = set_guids(k->c, &o, r, st);
	sim_cfg_set_hook(NULL, NULL);
	assert_int_equal(rc, CX_EFLASH);
	assert_true(r->in_place);
	assert_int_equal(cxsim_counters(k->c)->erases, 0);
	assert_true(cxsim_counters(k->c)->bytes_programmed > 0);
}

static void test_sg_in_place_read_back_says_the_state(void **state)
{
	(void)state;
	struct blank_card k;
	struct setid_result r;
	struct cx_status st = {0};

	blank_guid_card(&k);
	const struct fs2_item *gs = &k.img.items[k.img.guid_sect];
	struct unprogram u = {.crc_at = FS2_OFF_FULL_CRC + 2, .guid_at = gs->data_off + 1};
	memcpy(u.crc, k.want + u.crc_at, 2);
	assert_int_not_equal(k.want[u.guid_at], 0xFF);
	in_place_fails(&k, unprogram_hook, &u, &r, &st);
	assert_true(u.done);
	assert_int_equal(r.out.bytes_programmed, cxsim_counters(k.c)->bytes_programmed);
	assert_says(&st, "read-back after the write does not match");
	/* Neither the old GUID section (blank) nor the new one: partly written. */
	assert_int_equal(r.out.state, CARD_PARTIAL);
	assert_says(&st, card_state_sentence(CARD_PARTIAL));
	blank_card_free(&k);
}

/* The read-back itself cannot read (the gateway stuck for a while): the state is
 * read once the card answers, and the flash holds the new GUIDs whole. */
static void test_sg_in_place_read_back_fails(void **state)
{
	(void)state;
	struct blank_card k;
	struct setid_result r;
	struct cx_status st = {0};

	blank_guid_card(&k);
	struct busy_window b = {.trigger = after_written_and_read, .want = k.want + FS2_OFF_FULL_CRC + 2,
				.addr = FS2_OFF_FULL_CRC + 2, .len = 2, .at = 1};
	in_place_fails(&k, busy_hook, &b, &r, &st);
	assert_true(b.done);
	assert_says(&st, "stuck busy");
	assert_int_equal(r.out.state, CARD_NEW_BOOTS);
	assert_says(&st, card_state_sentence(CARD_NEW_BOOTS));
	assert_boots(k.c, 40);
	assert_int_equal(cxsim_boot_info(k.c)->guids[0], NEW_GUID);
	blank_card_free(&k);
}

/* The first program of the in-place write (the GUID section, over the running
 * image) is carried out, then the flash stops answering for a while: the flash
 * changed although no program finished, so the state is not "untouched"; the
 * GUIDs are new and the CRC old, which is neither image. */
static void test_sg_in_place_first_program_fails(void **state)
{
	(void)state;
	struct blank_card k;
	struct setid_result r;
	struct cx_status st = {0};
	size_t n;

	blank_guid_card(&k);
	uint8_t *before = flash_copy(k.c, &n);
	struct busy_window b = {.trigger = after_programmed, .at = 1};
	in_place_fails(&k, busy_hook, &b, &r, &st);
	assert_true(b.done);
	assert_memory_not_equal(cxsim_flash(k.c, &n), before, n);
	assert_int_equal(r.out.state, CARD_PARTIAL);
	assert_says(&st, "run the same sg again before powering off");
	free(before);
	blank_card_free(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_sentences),
		cmocka_unit_test(test_burn_success_new_image_boots),
		cmocka_unit_test(test_burn_dry_run_and_same_image_untouched),
		cmocka_unit_test(test_burn_refused_untouched),
		cmocka_unit_test(test_burn_held_semaphore_untouched),
		cmocka_unit_test(test_burn_body_failure_old_image_boots),
		cmocka_unit_test(test_burn_check_after_the_write_says_the_state),
		cmocka_unit_test(test_burn_check_after_the_write_read_fails),
		cmocka_unit_test(test_burn_body_fault_old_image_boots),
		cmocka_unit_test(test_restore_success_and_nothing_to_do),
		cmocka_unit_test(test_restore_failure_agrees_with_the_boot),
		cmocka_unit_test(test_restore_power_cut),
		cmocka_unit_test(test_sg_reburn_new_image_boots),
		cmocka_unit_test(test_sg_in_place_read_back_says_the_state),
		cmocka_unit_test(test_sg_in_place_read_back_fails),
		cmocka_unit_test(test_sg_in_place_first_program_fails),
	};
	return cmocka_run_group_tests_name("card_write", tests, NULL, NULL);
}
