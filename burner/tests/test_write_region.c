/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_write_region.c — burner/ops/write_region.c: plans carried out on the card model in process.
 *
 * Claims are checked on the model's own counters and flash array (sim/core,
 * which shares no code with cxflash): what was erased, what was programmed,
 * what the flash holds after each unit, after a failure, after an interrupt. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/chip.h"
#include "flash/flash.h"
#include "flash/spi.h"
#include "ops/plan.h"
#include "ops/write_region.h"
#include "prng.h"
#include "sim_cfg.h"
#include "util/signals.h"

#define KIB 1024u
#define OP_WRSR 0x01
#define OP_PP 0x02
#define OP_WREN 0x06
#define OP_SSE 0x20
#define OP_SE 0xD8
#define BP_UPPER_64K 0x04          /* BP2..BP0 = 1: the top 64 KiB protected (spi_nor.c) */

struct rig {
	struct cxsim_card *card;
	struct cfg_dev cfg;
	struct chip chip;
	struct flash f;
	struct cx_status st;
	uint8_t *m;                   /* the model's flash array */
	uint8_t *before;              /* a copy of it before the write */
	size_t size;
};


static const struct cxsim_counters *cnt(struct rig *r)
{
	return cxsim_counters(r->card);
}

static uint64_t accesses(struct rig *r)
{
	return cnt(r)->cfg_reads + cnt(r)->cfg_writes;
}

static void open_card(struct rig *r, const char *part, bool wp, bool stuck)
{
	struct cxsim_params p;

	memset(r, 0, sizeof(*r));
	cxsim_params_default(&p, CXSIM_CX3);
	snprintf(p.flash_part, sizeof(p.flash_part), "%s", part);
	p.write_protect = wp;
	r->card = cxsim_new(&p);
	assert_non_null(r->card);
	sim_cfg_attach(&r->cfg, r->card, "0000:01:00.0");
	assert_int_equal(chip_open(&r->chip, &r->cfg, cxsim_pci_device_now(r->card), 0, &r->st), CX_OK);
	assert_int_equal(chip_lock(&r->chip, &r->st), CX_OK);
	assert_int_equal(flash_open(&r->f, &r->chip, &r->st), CX_OK);
	r->m = cxsim_flash(r->card, &r->size);
	assert_int_equal(r->size, r->f.size);
	r->before = malloc(r->size);
	assert_non_null(r->before);
	memcpy(r->before, r->m, r->size);
	cxsim_params_mut(r->card)->stuck_busy = stuck;
}

/* The flash holds random data (a previous image), remembered in before[]. */
static void fill_model(struct rig *r, uint32_t seed)
{
	prng_fill(r->m, r->size, seed);
	cxsim_flash_changed(r->card);
	memcpy(r->before, r->m, r->size);
	cxsim_counters_reset(r->card);
}

static void done(struct rig *r)
{
	assert_int_equal(cnt(r)->gw_without_sem, 0);
	chip_close(&r->chip);
	cxsim_free(r->card);
	free(r->before);
}

/* want for [base, base + len): the current content, to be changed by the caller. */
static uint8_t *current(struct rig *r, uint32_t base, uint32_t len)
{
	uint8_t *w = malloc(len);

	assert_non_null(w);
	memcpy(w, r->m + base, len);
	return w;
}

/* The model holds want in the region and what it held before everywhere else. */
static void assert_written(struct rig *r, uint32_t base, const uint8_t *want, uint32_t len)
{
	assert_memory_equal(r->m + base, want, len);
	assert_memory_equal(r->m, r->before, base);
	assert_memory_equal(r->m + base + len, r->before + base + len, r->size - base - len);
}

static uint64_t erases(struct rig *r)
{
	return cnt(r)->gw_by_opcode[OP_SSE] + cnt(r)->gw_by_opcode[OP_SE];
}

/* ---- nothing to do ---- */

static void test_matching_region_costs_nothing(void **state)
{
	static const char *parts[] = {"W25Q16", "M25P16", "SST25VF016B"};
	(void)state;

	for (unsigned i = 0; i < 3; i++) {
		struct write_progress wp = {0};
		struct rig r;

		open_card(&r, parts[i], false, false);
		fill_model(&r, 100 + i);
		uint8_t *want = current(&r, 0x10003, 0xEFFF0);
		assert_int_equal(write_region(&r.f, 0x10003, want, 0xEFFF0, false, &wp, &r.st), CX_OK);
		assert_true(wp.r.nothing_to_do);
		/* Not one erase, program, write enable or status write reached the flash. */
		assert_int_equal(erases(&r), 0);
		assert_int_equal(cnt(&r)->bytes_erased + cnt(&r)->bytes_programmed, 0);
		assert_int_equal(cnt(&r)->gw_by_opcode[OP_PP] + cnt(&r)->gw_by_opcode[OP_WREN], 0);
		assert_int_equal(cnt(&r)->gw_by_opcode[OP_WRSR], 0);
		assert_int_equal(wp.r.bytes_read, (0xEFFF0 + 3 + 15) / 16 * 16);
		assert_false(wp.r.touched);
		assert_written(&r, 0x10003, want, 0xEFFF0);
		free(want);
		done(&r);
	}
}

/* ---- one byte with a 0→1 bit ---- */

static void one_bit_up(const char *part, uint32_t unit, uint8_t opcode)
{
	const uint32_t base = 0x40000, len = 0x80000, at = 0x7A123;
	struct write_progress wp = {0};
	struct rig r;

	open_card(&r, part, false, false);
	fill_model(&r, 7);
	r.m[at] = 0x5A;
	cxsim_flash_changed(r.card);
	memcpy(r.before, r.m, r.size);
	uint8_t *want = current(&r, base, len);
	want[at - base] = 0xDA; /* bit 7: 0 → 1 */
	assert_int_equal(write_region(&r.f, base, want, len, false, &wp, &r.st), CX_OK);
	assert_int_equal(erases(&r), 1);
	assert_int_equal(cnt(&r)->gw_by_opcode[opcode], 1);
	assert_int_equal(cnt(&r)->bytes_erased, unit);
	/* The unit was programmed back, and nothing else: at most its size (0xFF blocks are skipped). */
	assert_true(cnt(&r)->bytes_programmed > 0 && cnt(&r)->bytes_programmed <= unit);
	assert_int_equal(wp.r.erase_ops, 1);
	assert_int_equal(wp.r.plan_erases, 1);
	assert_int_equal(wp.r.bytes_programmed, cnt(&r)->bytes_programmed);
	assert_written(&r, base, want, len);
	free(want);
	done(&r);
}

static void test_one_bit_up_w25q_one_4k_erase(void **state)
{
	(void)state;
	one_bit_up("W25Q16", 0x1000, OP_SSE);
}

static void test_one_bit_up_m25p_one_64k_erase(void **state)
{
	(void)state;
	one_bit_up("M25P16", 0x10000, OP_SE);
}

/* Only 1→0 changes: programmed in place, no erase. */
static void test_clear_bits_no_erase(void **state)
{
	struct write_progress wp = {0};
	struct rig r;
	(void)state;

	open_card(&r, "M25P16", false, false);
	fill_model(&r, 8);
	uint8_t *want = current(&r, 0, 0x100000);
	for (uint32_t a = 0x1234; a < 0x100000; a += 0x10001)
		want[a] &= 0x0F;
	assert_int_equal(write_region(&r.f, 0, want, 0x100000, false, &wp, &r.st), CX_OK);
	assert_int_equal(erases(&r), 0);
	assert_true(cnt(&r)->bytes_programmed > 0 && cnt(&r)->bytes_programmed <= 16 * 16);
	assert_written(&r, 0, want, 0x100000);
	free(want);
	done(&r);
}

/* ---- random data, read back; each unit complete before the next begins ---- */

struct watch {
	struct rig *r;
	uint32_t base, len;
	const uint8_t *want;
	uint32_t lo;                  /* first unit of the plan */
	uint64_t last_done, calls;
	bool saw_read;
};

/* After each step: everything below done_upto is final, everything above as before. */
static void watch_units(const struct write_progress *wp, const char *phase, uint64_t d, uint64_t total)
{
	struct watch *w = wp->arg;
	struct rig *r = w->r;
	uint32_t upto = wp->r.done_upto;

	if (!strcmp(phase, WRITE_PHASE_READ)) {
		w->saw_read = true;
		assert_true(d <= total && total == w->len);
		return;
	}
	assert_string_equal(phase, WRITE_PHASE_WRITE);
	assert_true(d >= w->last_done && d <= total);
	w->last_done = d;
	w->calls++;
	if (!wp->r.steps_done)
		return;
	for (uint32_t a = w->lo; a < upto; a++) {
		bool in = a >= w->base && a - w->base < w->len;

		if (r->m[a] != (in ? w->want[a - w->base] : r->before[a]))
			fail_msg("0x%06x is not final after the unit below 0x%06x", a, upto);
	}
	assert_memory_equal(r->m + upto, r->before + upto, r->size - upto);
}

static void roundtrip(const char *part, uint32_t base, uint32_t len, uint32_t seed)
{
	struct write_progress wp = {0};
	struct watch w = {0};
	struct rig r;

	open_card(&r, part, false, false);
	fill_model(&r, seed);
	uint8_t *want = malloc(len), *got = malloc(len);
	assert_true(want && got);
	prng_fill(want, len, seed + 1);
	w = (struct watch){.r = &r, .base = base, .len = len, .want = want,
			   .lo = base & ~(flash_erase_unit(&r.f) - 1)};
	wp.fn = watch_units;
	wp.arg = &w;
	assert_int_equal(write_region(&r.f, base, want, len, false, &wp, &r.st), CX_OK);
	assert_true(w.saw_read);
	assert_int_equal(w.calls, wp.r.steps_total + 1);
	assert_int_equal(wp.r.steps_done, wp.r.steps_total);
	assert_true(wp.r.plan_keep_bytes > 0); /* the region is unaligned: outside bytes were kept */
	assert_int_equal(flash_read(&r.f, base, got, len, &r.st), CX_OK);
	assert_memory_equal(got, want, len);
	assert_written(&r, base, want, len);
	/* Written again: nothing to do. */
	cxsim_counters_reset(r.card);
	assert_int_equal(write_region(&r.f, base, want, len, false, NULL, &r.st), CX_OK);
	assert_int_equal(erases(&r) + cnt(&r)->bytes_programmed, 0);
	free(want);
	free(got);
	done(&r);
}

static void test_random_roundtrip(void **state)
{
	(void)state;
	roundtrip("W25Q16", 0x1F003, 0x31234, 21);
	roundtrip("M25P16", 0x2FFF1, 0x10020, 22);
	roundtrip("SST25VF016B", 0x1234F, 0x2001, 23);
	roundtrip("W25Q32", 0x3A0101, 0x5EFF, 24);
}

/* ---- dry run ---- */

static void test_dry_run(void **state)
{
	struct write_progress wp = {0};
	char *text = NULL;
	size_t size = 0;
	struct rig r;
	(void)state;

	open_card(&r, "W25Q16", false, false);
	fill_model(&r, 30);
	for (uint32_t a = 0x80000; a < 0x81000; a++) /* no 0xFF: the sector is one program range */
		r.m[a] = r.m[a] == 0xFF ? 0xFE : r.m[a];
	cxsim_flash_changed(r.card);
	memcpy(r.before, r.m, r.size);
	uint8_t *want = current(&r, 0x80000, 0x10000);
	want[0x123] = (uint8_t)~r.m[0x80123];
	wp.out = open_memstream(&text, &size);
	assert_non_null(wp.out);
	assert_int_equal(write_region(&r.f, 0x80000, want, 0x10000, true, &wp, &r.st), CX_OK);
	fclose(wp.out);
	assert_non_null(strstr(text, "erase 4 KiB at 0x80000\nprogram 4096 bytes at 0x80000\n"));
	assert_non_null(strstr(text, "total: 1 erase"));
	assert_int_equal(wp.r.plan_erases, 1);
	assert_int_equal(erases(&r) + cnt(&r)->bytes_programmed + cnt(&r)->gw_by_opcode[OP_WREN], 0);
	assert_memory_equal(r.m, r.before, r.size);
	free(text);
	free(want);
	done(&r);
}

/* The listing from a region read only as far as planning needs is the plan
 * a full read gives: identical, program-only and erased units, kept bytes. */
static void test_dry_run_is_the_full_plan(void **state)
{
	const uint32_t base = 0x30123, len = 0x42000;
	struct write_progress wp = {0};
	char *text = NULL, *full = NULL;
	size_t size = 0, fsize = 0;
	struct plan_geom g;
	struct plan p;
	struct rig r;
	(void)state;

	open_card(&r, "W25Q16", false, false);
	fill_model(&r, 31);
	r.m[0x72100] = 0x00; /* the last unit, partly covered, will need an erase */
	cxsim_flash_changed(r.card);
	memcpy(r.before, r.m, r.size);
	uint8_t *want = current(&r, base, len);
	want[0x72100 - base] = 0x01;
	for (uint32_t a = 0x31000; a < 0x33000; a++) /* two units only clear bits */
		want[a - base] &= 0x5A;
	prng_fill(want + (0x40000 - base), 0x15000, 32); /* a block and more need erases */
	wp.out = open_memstream(&text, &size);
	assert_non_null(wp.out);
	assert_int_equal(write_region(&r.f, base, want, len, true, &wp, &r.st), CX_OK);
	fclose(wp.out);
	assert_int_equal(erases(&r) + cnt(&r)->bytes_programmed, 0);
	/* Less was read than the region: the erased units were read one block each. */
	assert_true(wp.r.bytes_read < len - 0x10000);

	write_geometry(&r.f, &g);
	assert_int_equal(plan_make(r.m + base, want, base, len, &g, &p), CX_OK);
	FILE *f = open_memstream(&full, &fsize);
	assert_non_null(f);
	plan_print(&p, f);
	fclose(f);
	assert_string_equal(text, full);
	assert_non_null(strstr(text, "keep "));
	assert_non_null(strstr(text, "erase 64 KiB at 0x40000\n"));
	plan_free(&p);
	free(text);
	free(full);
	free(want);
	done(&r);
}

/* Reads on a write where every unit needs an erase: one block of each unit
 * while planning, then the verify (every byte once). */
static void test_reads_what_the_plan_needs(void **state)
{
	const uint32_t base = 0x20000, len = 0x40000;
	struct write_progress wp = {.fn = watch_units};
	struct watch w;
	struct rig r;
	(void)state;

	open_card(&r, "W25Q16", false, false);
	fill_model(&r, 33);
	for (uint32_t a = base; a < base + len; a += 0x1000) /* a 0 bit in each unit's first block */
		r.m[a] = 0x00;
	cxsim_flash_changed(r.card);
	memcpy(r.before, r.m, r.size);
	uint8_t *want = malloc(len);
	assert_non_null(want);
	prng_fill(want, len, 34);
	for (uint32_t a = 0; a < len; a += 0x1000)
		want[a] |= 0x01;
	w = (struct watch){.r = &r, .base = base, .len = len, .want = want, .lo = base};
	wp.arg = &w;
	assert_int_equal(write_region(&r.f, base, want, len, false, &wp, &r.st), CX_OK);
	assert_true(w.saw_read);
	assert_int_equal(wp.r.bytes_erased, len);
	assert_int_equal(wp.r.plan_read_bytes, len / 0x1000 * 16);
	/* The verify reads each byte once; a block is read twice where a program
	 * range and a gap of 0xFF bytes after the erase meet inside it. */
	assert_true(cnt(&r)->bytes_read >= wp.r.plan_read_bytes + len);
	assert_true(cnt(&r)->bytes_read < wp.r.plan_read_bytes + len + len / 256);
	assert_written(&r, base, want, len);
	free(want);
	done(&r);
}

/* ---- refusals and failures ---- */

/* A plan made for 4 KiB sectors, run on a part that erases 64 KiB: refused whole. */
static void test_foreign_plan_refused(void **state)
{
	const struct plan_geom g4k = {1, {{0x1000, 45000000}}, 256, 420000, 1625, 875};
	struct write_progress wp = {0};
	struct plan p;
	struct rig r;
	(void)state;

	open_card(&r, "M25P16", false, false);
	fill_model(&r, 35);
	uint8_t *want = current(&r, 0x20000, 0x3000);
	want[0x2000] = (uint8_t)~want[0x2000];
	want[0x10] &= 0x0F;
	assert_int_equal(plan_make(r.m + 0x20000, want, 0x20000, 0x3000, &g4k, &p), CX_OK);
	assert_int_equal(write_execute(&r.f, &p, want, 0x20000, &wp, &r.st), CX_EVALUE);
	assert_non_null(strstr(r.st.msg, "nothing was changed"));
	assert_int_equal(cnt(&r)->gw_by_opcode[OP_WREN] + cnt(&r)->bytes_programmed, 0);
	/* Asked for at another address than planned for: refused too. */
	cx_status_clear(&r.st);
	assert_int_equal(write_execute(&r.f, &p, want, 0x21000, &wp, &r.st), CX_EVALUE);
	assert_int_equal(cnt(&r)->gw_by_opcode[OP_WREN], 0);
	assert_memory_equal(r.m, r.before, r.size);
	plan_free(&p);
	free(want);
	done(&r);
}

static void test_write_protected_refused(void **state)
{
	static const char *parts[] = {"W25Q16", "M25P16"};
	(void)state;

	for (unsigned i = 0; i < 2; i++) {
		struct write_progress wp = {0};
		struct rig r;

		open_card(&r, parts[i], true, false);
		fill_model(&r, 40);
		uint8_t *want = malloc(0x20000);
		assert_non_null(want);
		prng_fill(want, 0x20000, 41);
		assert_int_equal(write_region(&r.f, 0x20000, want, 0x20000, false, &wp, &r.st), CX_EPROTECTED);
		assert_non_null(strstr(r.st.msg, "write-protected"));
		assert_non_null(strstr(r.st.msg, "Nothing was erased"));
		assert_int_equal(erases(&r) + cnt(&r)->bytes_erased + cnt(&r)->bytes_programmed, 0);
		assert_int_equal(cnt(&r)->gw_by_opcode[OP_WREN], 0);
		assert_false(wp.r.touched);
		assert_memory_equal(r.m, r.before, r.size);
		free(want);
		done(&r);
	}
}

static void stop_after(const struct write_progress *wp, const char *phase, uint64_t d, uint64_t t)
{
	struct rig *r = wp->arg;

	(void)d, (void)t;
	if (!strcmp(phase, WRITE_PHASE_WRITE) && wp->r.steps_done == 2)
		cxsim_params_mut(r->card)->stuck_busy = true;
}

static void test_stuck_busy(void **state)
{
	struct write_progress wp = {0};
	struct rig r;
	uint8_t *want = malloc(0x40000);
	(void)state;

	assert_non_null(want);
	prng_fill(want, 0x40000, 51);

	/* Stuck from the start: the read fails, nothing is erased, and it says so. */
	open_card(&r, "W25Q16", false, true);
	assert_int_equal(write_region(&r.f, 0x40000, want, 0x40000, false, &wp, &r.st), CX_EFLASH);
	assert_non_null(strstr(r.st.msg, "stuck busy"));
	assert_non_null(strstr(r.st.msg, "nothing on the flash was changed: safe to power off"));
	assert_int_equal(cnt(&r)->erases + cnt(&r)->bytes_programmed, 0);
	assert_false(wp.r.touched);
	done(&r);

	/* Stuck after two units: a clean failure that says the card is not safe. */
	open_card(&r, "W25Q16", false, false);
	fill_model(&r, 52);
	wp = (struct write_progress){.fn = stop_after, .arg = &r};
	assert_int_equal(write_region(&r.f, 0x40000, want, 0x40000, false, &wp, &r.st), CX_EFLASH);
	assert_non_null(strstr(r.st.msg, "stuck busy"));
	assert_non_null(strstr(r.st.msg, "do not power off"));
	assert_non_null(strstr(r.st.msg, "complete below 0x"));
	assert_true(wp.r.touched);
	assert_int_equal(wp.r.steps_done, 2);
	assert_int_equal(wp.r.fail_addr, wp.r.done_upto); /* the third unit, where it stopped */
	/* The two finished units hold the new data; the rest is as it was. */
	assert_memory_equal(r.m + 0x40000, want, wp.r.done_upto - 0x40000);
	assert_memory_equal(r.m + wp.r.done_upto, r.before + wp.r.done_upto, r.size - wp.r.done_upto);
	done(&r);

	/* The caller knows better (e.g. the unused failsafe slot): its words are used. */
	open_card(&r, "W25Q16", false, false);
	fill_model(&r, 53);
	wp = (struct write_progress){.fn = stop_after, .arg = &r,
				     .if_failed = "the running image is intact: safe to power off"};
	assert_int_equal(write_region(&r.f, 0x40000, want, 0x40000, false, &wp, &r.st), CX_EFLASH);
	assert_non_null(strstr(r.st.msg, "stuck busy"));
	assert_non_null(strstr(r.st.msg, "; the running image is intact: safe to power off"));
	assert_null(strstr(r.st.msg, "do not power off"));
	done(&r);
	free(want);
}

static void cut_power_after_one(const struct write_progress *wp, const char *phase, uint64_t d, uint64_t t)
{
	struct rig *r = wp->arg;

	(void)d, (void)t;
	if (!strcmp(phase, WRITE_PHASE_WRITE) && wp->r.steps_done == 1)
		cxsim_params_mut(r->card)->power_cut_after = accesses(r) + 20000;
}

/* The card loses power in the middle of the second unit: CX_ENODEV, and not safe. */
static void test_card_gone(void **state)
{
	struct write_progress wp = {0};
	struct rig r;
	uint8_t *want = malloc(0x40000);
	(void)state;

	assert_non_null(want);
	prng_fill(want, 0x40000, 55);
	open_card(&r, "M25P16", false, false);
	fill_model(&r, 56);
	wp = (struct write_progress){.fn = cut_power_after_one, .arg = &r};
	assert_int_equal(write_region(&r.f, 0x40000, want, 0x40000, false, &wp, &r.st), CX_ENODEV);
	assert_false(cxsim_powered(r.card));
	assert_non_null(strstr(r.st.msg, "partly rewritten (complete below 0x050000)"));
	assert_int_equal(wp.r.steps_done, 1);
	assert_memory_equal(r.m + 0x40000, want, 0x10000);
	chip_close(&r.chip);
	cxsim_free(r.card);
	free(r.before);
	free(want);
}

/* Protect the top 64 KiB behind the flash layer's back (after flash_prepare_write):
 * the part then ignores erase and program there, and only the verify can tell. */
static void protect_top(struct rig *r)
{
	assert_int_equal(flash_prepare_write(&r->f, &r->st), CX_OK);
	assert_int_equal(fl_spi_wrsr(&r->f, BP_UPPER_64K, &r->st), CX_OK);
	cxsim_counters_reset(r->card);
}

static void test_verify_failures(void **state)
{
	const uint32_t base = 0x1F0000, len = 0x2000;
	struct write_progress wp = {0};
	struct plan_geom g;
	struct plan p;
	char addr[48];
	struct rig r;
	uint32_t first = 0;
	(void)state;

	/* An erase that did nothing: want is all 0xFF, so our read-back of the erased unit catches it. */
	open_card(&r, "W25Q16", false, false);
	fill_model(&r, 60);
	protect_top(&r);
	uint8_t *want = malloc(len);
	assert_non_null(want);
	memset(want, 0xFF, len);
	write_geometry(&r.f, &g);
	assert_int_equal(plan_make(r.m + base, want, base, len, &g, &p), CX_OK);
	assert_int_equal(p.erase_ops, 2);
	assert_int_equal(p.program_bytes, 0);
	while (r.m[base + first] == 0xFF)
		first++;
	assert_int_equal(write_execute(&r.f, &p, want, base, &wp, &r.st), CX_EFLASH);
	snprintf(addr, sizeof(addr), "verify failed at 0x%06x", base + first);
	assert_non_null(strstr(r.st.msg, addr));
	assert_non_null(strstr(r.st.msg, "partly rewritten: do not power off"));
	assert_int_equal(wp.r.fail_addr, base + first);
	assert_int_equal(wp.r.steps_done, 0);
	assert_int_equal(cnt(&r)->bytes_erased, 0); /* the model refused it */
	plan_free(&p);
	done(&r);

	/* A program that did nothing: the flash layer's read-back catches it; the
	 * report still names the exact byte. */
	open_card(&r, "W25Q16", false, false);
	fill_model(&r, 61);
	protect_top(&r);
	prng_fill(want, len, 62);
	assert_int_equal(plan_make(r.m + base, want, base, len, &g, &p), CX_OK);
	assert_true(p.program_bytes > 0);
	first = 0;
	while (r.m[base + first] == want[first])
		first++;
	wp.if_failed = "slot 1 is being written, slot 0 still boots: safe to power off";
	assert_int_equal(write_execute(&r.f, &p, want, base, &wp, &r.st), CX_EFLASH);
	snprintf(addr, sizeof(addr), "verify failed at 0x%06x", base + first);
	assert_non_null(strstr(r.st.msg, addr));
	assert_non_null(strstr(r.st.msg, wp.if_failed));
	assert_int_equal(wp.r.fail_addr, base + first);
	plan_free(&p);
	done(&r);
	free(want);
}

/* ---- interruption ---- */

static void interrupt_after(const struct write_progress *wp, const char *phase, uint64_t d, uint64_t t)
{
	(void)d, (void)t;
	if (!strcmp(phase, WRITE_PHASE_WRITE) && wp->r.steps_done == 3)
		raise(SIGINT); /* deferred: only sig_pending() sees it */
}

/* Drop a deferred SIGINT, then end the deferral (it would kill us otherwise). */
static void discard_sigint(void)
{
	signal(SIGINT, SIG_IGN);  /* a pending signal set to SIG_IGN is discarded (POSIX) */
	sig_defer_end();
	signal(SIGINT, SIG_DFL);
}

static void test_interrupted(void **state)
{
	const uint32_t base = 0x20000, len = 0x60000;
	struct write_progress wp = {.fn = interrupt_after};
	struct rig r;
	bool pending;
	int rc;
	(void)state;

	uint8_t *want = malloc(len);
	assert_non_null(want);
	prng_fill(want, len, 71);

	open_card(&r, "W25Q16", false, false);
	fill_model(&r, 70);
	/* Nothing may fail between raise() and discard_sigint(): the signal would kill us. */
	sig_defer_begin();
	rc = write_region(&r.f, base, want, len, false, &wp, &r.st);
	pending = sig_pending();
	discard_sigint();
	assert_int_equal(rc, CX_EINTR);
	assert_true(pending);
	assert_false(sig_pending());
	assert_non_null(strstr(r.st.msg, "interrupted"));
	assert_non_null(strstr(r.st.msg, "do not power off"));
	/* Stopped at a unit boundary: three whole units written, the next one untouched. */
	assert_int_equal(wp.r.steps_done, 3);
	assert_int_equal(wp.r.fail_addr, wp.r.done_upto);
	assert_int_equal(wp.r.done_upto % flash_erase_unit(&r.f), 0);
	assert_memory_equal(r.m + base, want, wp.r.done_upto - base);
	assert_memory_equal(r.m + wp.r.done_upto, r.before + wp.r.done_upto, r.size - wp.r.done_upto);
	assert_int_equal(cnt(&r)->erases, 3);

	/* A signal already pending: stops while reading, before anything is changed. */
	cxsim_counters_reset(r.card);
	memcpy(r.before, r.m, r.size);
	cx_status_clear(&r.st);
	sig_defer_begin();
	raise(SIGINT);
	rc = write_region(&r.f, base, want, len, false, NULL, &r.st);
	discard_sigint();
	assert_int_equal(rc, CX_EINTR);
	assert_non_null(strstr(r.st.msg, "nothing on the flash was changed: safe to power off"));
	assert_int_equal(cnt(&r)->erases + cnt(&r)->bytes_programmed, 0);
	assert_memory_equal(r.m, r.before, r.size);
	done(&r);
	free(want);
}

/* ---- measurements (printed, not asserted) ---- */

static void measure_one(struct rig *r, const char *what, uint32_t base, const uint8_t *want, uint32_t len)
{
	struct write_progress wp = {0};
	uint64_t a0 = accesses(r), t0 = cnt(r)->time_ns;

	assert_int_equal(write_region(&r->f, base, want, len, false, &wp, &r->st), CX_OK);
	assert_memory_equal(r->m + base, want, len);
	print_message("  %-24s model %7.2f s (plan estimate %7.2f s), %8llu config accesses, %3llu erases "
		      "(%4llu KiB), %7llu bytes programmed, %7llu read\n", what,
		      (cnt(r)->time_ns - t0) / 1e9, wp.r.est_ns / 1e9, (unsigned long long)(accesses(r) - a0),
		      (unsigned long long)wp.r.erase_ops, (unsigned long long)(wp.r.bytes_erased / KIB),
		      (unsigned long long)wp.r.bytes_programmed, (unsigned long long)wp.r.bytes_read);
}

static void measure(const char *part)
{
	const uint32_t base = 0, len = 960 * KIB;
	struct rig r;
	uint8_t *want = malloc(len), *other = malloc(len);

	assert_true(want && other);
	prng_fill(want, len, 90);
	prng_fill(other, len, 91);
	print_message("%s, 960 KiB of random data:\n", part);

	open_card(&r, part, false, false); /* blank: a first burn */
	measure_one(&r, "first burn (blank flash)", base, want, len);
	measure_one(&r, "the same again", base, want, len);
	want[0x54321] = (uint8_t)~want[0x54321];
	measure_one(&r, "one byte changed", base, want, len);
	measure_one(&r, "other random data", base, other, len);
	done(&r);

	/* The baseline: erase everything, program everything (flint's way). */
	open_card(&r, part, false, false);
	uint64_t a0 = accesses(&r), t0 = cnt(&r)->time_ns;
	assert_int_equal(flash_erase(&r.f, base, len, &r.st), CX_OK);
	assert_int_equal(flash_program(&r.f, base, want, len, &r.st), CX_OK);
	print_message("  %-24s model %7.2f s, %8llu config accesses\n", "erase+program all", (cnt(&r)->time_ns - t0) / 1e9,
		      (unsigned long long)(accesses(&r) - a0));
	done(&r);
	free(want);
	free(other);
}

static void test_measure(void **state)
{
	(void)state;
	measure("W25Q16");
	measure("M25P16");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matching_region_costs_nothing),
		cmocka_unit_test(test_one_bit_up_w25q_one_4k_erase),
		cmocka_unit_test(test_one_bit_up_m25p_one_64k_erase),
		cmocka_unit_test(test_clear_bits_no_erase),
		cmocka_unit_test(test_random_roundtrip),
		cmocka_unit_test(test_dry_run),
		cmocka_unit_test(test_dry_run_is_the_full_plan),
		cmocka_unit_test(test_reads_what_the_plan_needs),
		cmocka_unit_test(test_foreign_plan_refused),
		cmocka_unit_test(test_write_protected_refused),
		cmocka_unit_test(test_stuck_busy),
		cmocka_unit_test(test_card_gone),
		cmocka_unit_test(test_verify_failures),
		cmocka_unit_test(test_interrupted),
		cmocka_unit_test(test_measure),
	};
	setvbuf(stdout, NULL, _IONBF, 0); /* a stray signal must not eat the failure report */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
