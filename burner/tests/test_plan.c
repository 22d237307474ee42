/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_plan.c — burner/ops/plan.c: which units are erased and which bytes programmed.
 *
 * Table-driven like flashrom's tests/erase_func_algo.c: a flash content, a
 * wanted content, and the exact erase/program list expected. Then a property
 * test: for many random contents and regions, carrying the plan out on a
 * simulated flash (erase → 0xFF, program → AND, kept bytes read before the
 * erase) gives exactly want in the region and leaves every other byte alone,
 * and the plan keeps its structural promises (plan.h). Every case is also
 * planned with plan_make_reading() from a reader that records what it is
 * asked for: the plan must be the same, and the reads exactly what plan.h
 * says (a sector that needs an erase up to its first block that needs it;
 * every other sector's bytes in the region whole; nothing outside). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/plan.h"
#include "prng.h"
#include "util/status.h"

#define KIB 1024u
#define FLASH (256 * KIB)         /* the simulated flash: four 64 KiB blocks */
#define MS 1000000ull
#define US 1000ull
#define MAXOPS 64

/* Geometries with fixed costs (write_region.c derives real ones from the part). */
static const struct plan_geom G4K64 = {   /* W25Q-like: 4 KiB sectors and 64 KiB blocks */
	2, {{4 * KIB, 45 * MS}, {64 * KIB, 150 * MS}}, 256, 420 * US, 1625, 875};
static const struct plan_geom G64 = {     /* M25P-like: 64 KiB only */
	1, {{64 * KIB, 600 * MS}}, 256, 660 * US, 1625, 875};
static const struct plan_geom G4K = {     /* W25X-like: 4 KiB only */
	1, {{4 * KIB, 45 * MS}}, 256, 420 * US, 1625, 875};
static const struct plan_geom GSST = {    /* SST-like: one command per byte, no page cost */
	1, {{64 * KIB, 20 * MS}}, 256, 0, 26 * US, 875};

static uint8_t have[FLASH], wantf[FLASH], sim[FLASH];

static uint32_t rng; /* prng32 state */

/* Random bytes with no 0xFF, so the expected ranges are whole pages. */
static void fill_noff(uint8_t *p, size_t n, uint32_t seed)
{
	rng = seed;
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(prng32(&rng) % 0xFF);
}

/* ---- the plan as a flat list, adjacent ranges of one source joined ---- */

struct op {
	char k;                   /* 'E' erase, 'P' program from want, 'K' keep (from the flash) */
	uint32_t a, n;
};

static unsigned flatten(const struct plan *p, struct op *o)
{
	unsigned n = 0;

	for (uint32_t s = 0; s < p->nsteps; s++) {
		const struct plan_step *st = &p->step[s];

		if (st->erase && n < MAXOPS)
			o[n++] = (struct op){'E', st->addr, st->size};
		for (uint32_t i = st->first; i < st->first + st->n; i++) {
			const struct plan_range *r = &p->range[i];
			char k = r->src == PLAN_FROM_WANT ? 'P' : 'K';

			if (n && o[n - 1].k == k && o[n - 1].a + o[n - 1].n == r->addr)
				o[n - 1].n += r->len;
			else if (n < MAXOPS)
				o[n++] = (struct op){k, r->addr, r->len};
		}
	}
	return n;
}

static bool same_ops(const struct op *a, const struct op *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (a[i].k != b[i].k || a[i].a != b[i].a || a[i].n != b[i].n)
			return false;
	return true;
}

static void print_ops(const char *what, const struct op *o, unsigned n)
{
	print_message("  %s:", what);
	for (unsigned i = 0; i < n; i++)
		print_message(" %c(0x%x,0x%x)", o[i].k, o[i].a, o[i].n);
	print_message("\n");
}

/* ---- a simulated flash that carries a plan out ---- */

static void apply(uint8_t *flash, const struct plan *p, const uint8_t *want)
{
	static uint8_t saved[FLASH];

	for (uint32_t s = 0; s < p->nsteps; s++) {
		const struct plan_step *st = &p->step[s];

		if (st->erase) {
			memcpy(saved, flash + st->addr, st->size);
			memset(flash + st->addr, 0xFF, st->size);
		}
		for (uint32_t i = st->first; i < st->first + st->n; i++) {
			const struct plan_range *r = &p->range[i];

			if (r->src == PLAN_FROM_FLASH)
				assert_true(st->erase); /* kept bytes only exist around an erase */
			for (uint32_t a = r->addr; a < r->addr + r->len; a++) {
				uint8_t v = r->src == PLAN_FROM_WANT ? want[a - p->base] : saved[a - st->addr];

				flash[a] &= v; /* NOR programming only clears bits */
			}
		}
	}
}

static bool in_region(const struct plan *p, uint32_t a)
{
	return a >= p->base && a - p->base < p->len;
}

/* The smallest unit at u needs an erase: some region byte needs a 0→1. */
static bool needs_erase(const struct plan *p, const uint8_t *h, const uint8_t *w, uint32_t u, uint32_t size)
{
	for (uint32_t a = u; a < u + size; a++)
		if (in_region(p, a) && (h[a] & w[a]) != w[a])
			return true;
	return false;
}

/* Structural promises of plan.h, on full-flash buffers h (have) and w (want). */
static void check_invariants(const struct plan *p, const struct plan_geom *g, const uint8_t *h, const uint8_t *w)
{
	uint64_t eb = 0, pb = 0, kb = 0;
	uint32_t eops = 0, next = 0, rnext = 0, ri = 0;
	uint32_t s0 = g->unit[0].size;

	for (uint32_t s = 0; s < p->nsteps; s++) {
		const struct plan_step *st = &p->step[s];
		bool size_ok = false;
		uint64_t keep = 0, outside = 0;

		for (unsigned k = 0; k < g->nunits; k++)
			size_ok |= st->size == g->unit[k].size;
		assert_true(size_ok);
		assert_int_equal(st->addr % st->size, 0);
		assert_true(st->addr >= next);                  /* address order, no overlap */
		next = st->addr + st->size;
		assert_int_equal(st->first, ri);                /* ranges follow their step */
		ri += st->n;
		if (!st->erase) {
			assert_int_equal(st->size, s0);          /* program-only: a smallest unit */
			assert_true(st->n > 0);
			assert_false(needs_erase(p, h, w, st->addr, st->size));
		} else {
			bool any = false;

			eops++;
			eb += st->size;
			/* An erase is there for a sector that needs one; a larger erase never
			 * reaches outside the region through a sector that does not. */
			for (uint32_t u = st->addr; u < st->addr + st->size; u += s0) {
				bool need = needs_erase(p, h, w, u, s0);
				bool partial = !in_region(p, u) || !in_region(p, u + s0 - 1);

				any |= need;
				if (partial)
					assert_true(need);
			}
			assert_true(any);
			for (uint32_t a = st->addr; a < st->addr + st->size; a++)
				outside += !in_region(p, a);
		}
		for (uint32_t i = st->first; i < st->first + st->n; i++) {
			const struct plan_range *r = &p->range[i];

			assert_true(r->len > 0);
			assert_true(r->addr >= st->addr && r->addr + r->len <= st->addr + st->size);
			assert_true(r->addr >= rnext);
			rnext = r->addr + r->len;
			assert_int_equal(r->addr / g->page, (r->addr + r->len - 1) / g->page); /* one page */
			for (uint32_t a = r->addr; a < r->addr + r->len; a++)
				assert_int_equal(in_region(p, a), r->src == PLAN_FROM_WANT);
			if (r->src == PLAN_FROM_WANT) {
				pb += r->len;
				/* A range starts and ends on a byte that must be sent. */
				if (st->erase) {
					assert_int_not_equal(w[r->addr], 0xFF);
					assert_int_not_equal(w[r->addr + r->len - 1], 0xFF);
				} else {
					assert_int_not_equal(w[r->addr], h[r->addr]);
					assert_int_not_equal(w[r->addr + r->len - 1], h[r->addr + r->len - 1]);
				}
			} else {
				kb += r->len;
				keep += r->len;
			}
		}
		if (st->erase)
			assert_int_equal(keep, outside);        /* every outside byte is kept */
	}
	assert_int_equal(ri, p->nranges);
	/* Every sector that needs an erase gets one. */
	for (uint32_t u = p->base & ~(s0 - 1); u < p->base + p->len; u += s0)
		if (needs_erase(p, h, w, u, s0)) {
			bool covered = false;

			for (uint32_t s = 0; s < p->nsteps; s++)
				covered |= p->step[s].erase && u >= p->step[s].addr &&
					   u < p->step[s].addr + p->step[s].size;
			assert_true(covered);
		}
	assert_int_equal(p->erase_ops, eops);
	assert_int_equal(p->erase_bytes, eb);
	assert_int_equal(p->program_bytes, pb);
	assert_int_equal(p->keep_bytes, kb);
	assert_int_equal(p->nothing_to_do, p->nsteps == 0);
	assert_int_equal(p->nothing_to_do, !memcmp(h + p->base, w + p->base, p->len));
	assert_int_equal(p->est_ns == 0, p->nothing_to_do);
}

/* ---- plan_make_reading: a reader over have that records what it is asked ---- */

static struct {
	bool read[FLASH];             /* bytes asked for */
	uint32_t next;                /* reads come in address order, no byte twice */
	uint64_t bytes;
	uint32_t fail_at;             /* fail a read that reaches this address (0: never) */
} rd;

static int mem_read(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len)
{
	(void)ctx;
	assert_true(len >= 1 && len <= PLAN_READ_BLOCK);
	assert_int_equal(addr / PLAN_READ_BLOCK, (addr + len - 1) / PLAN_READ_BLOCK); /* one block */
	assert_true(addr >= rd.next && addr + len <= FLASH);
	if (rd.fail_at && addr + len > rd.fail_at)
		return CX_EFLASH;
	memcpy(buf, have + addr, len);
	memset(rd.read + addr, 1, len);
	rd.next = addr + len;
	rd.bytes += len;
	return CX_OK;
}

static void reader_reset(void)
{
	memset(&rd, 0, sizeof(rd));
}

static void assert_same_plan(const struct plan *a, const struct plan *b)
{
	assert_int_equal(a->nsteps, b->nsteps);
	assert_int_equal(a->nranges, b->nranges);
	assert_memory_equal(a->step, b->step, a->nsteps * sizeof(*a->step));
	assert_memory_equal(a->range, b->range, a->nranges * sizeof(*a->range));
	assert_int_equal(a->erase_ops, b->erase_ops);
	assert_int_equal(a->erase_bytes, b->erase_bytes);
	assert_int_equal(a->program_bytes, b->program_bytes);
	assert_int_equal(a->keep_bytes, b->keep_bytes);
	assert_int_equal(a->est_ns, b->est_ns);
	assert_int_equal(a->nothing_to_do, b->nothing_to_do);
}

/* What plan_make_reading() must have read for [base, base + len). */
static void check_reads(const struct plan_geom *g, uint32_t base, uint32_t len)
{
	uint32_t s0 = g->unit[0].size, end = base + len;
	uint64_t expect = 0;

	for (uint32_t u = base & ~(s0 - 1); u < end; u += s0) {
		uint32_t lo = u > base ? u : base, hi = u + s0 < end ? u + s0 : end, stop = hi;

		for (uint32_t a = lo; a < hi; a++)
			if ((have[a] & wantf[a]) != wantf[a]) {
				stop = (a | (PLAN_READ_BLOCK - 1)) + 1;
				stop = stop < hi ? stop : hi;
				break;
			}
		for (uint32_t a = lo; a < hi; a++)
			if (rd.read[a] != (a < stop))
				fail_msg("0x%x %s read (sector 0x%x, read up to 0x%x)", a, rd.read[a] ? "was" : "was not",
					 u, stop);
		expect += stop - lo;
	}
	for (uint32_t a = 0; a < FLASH; a++)
		if (rd.read[a] && (a < base || a >= end))
			fail_msg("0x%x is outside the region and was read", a);
	assert_int_equal(rd.bytes, expect);
}

/* Plan have → wantf over [base, base + len), check it, carry it out on sim;
 * plan it again reading have, and compare. */
static void plan_and_apply(const struct plan_geom *g, uint32_t base, uint32_t len, struct plan *p)
{
	struct plan q;

	assert_int_equal(plan_make(have + base, wantf + base, base, len, g, p), CX_OK);
	check_invariants(p, g, have, wantf);
	assert_int_equal(p->read_bytes, 0);
	reader_reset();
	assert_int_equal(plan_make_reading(mem_read, NULL, wantf + base, base, len, g, &q), CX_OK);
	assert_same_plan(p, &q);
	assert_int_equal(q.read_bytes, rd.bytes);
	check_reads(g, base, len);
	plan_free(&q);
	memcpy(sim, have, FLASH);
	apply(sim, p, wantf + base);
	assert_memory_equal(sim + base, wantf + base, len);
	assert_memory_equal(sim, have, base);
	assert_memory_equal(sim + base + len, have + base + len, FLASH - base - len);
}

/* ---- the table ---- */

static void s_identical(void)
{
	fill_noff(have, FLASH, 1);
	memcpy(wantf, have, FLASH);
}

static void s_clear_bits(void)
{
	fill_noff(have, FLASH, 2);
	memcpy(wantf, have, FLASH);
	have[0x1010] = 0xF3, wantf[0x1010] = 0x03;
	have[0x1020] = 0x81, wantf[0x1020] = 0x01;
	have[0x2300] = 0x7E, wantf[0x2300] = 0x00;
}

static void s_one_up(void)
{
	fill_noff(have, FLASH, 3);
	memcpy(wantf, have, FLASH);
	have[0x5123] = 0x12, wantf[0x5123] = 0x92;
}

/* One 0→1 byte in each of the first n sectors of the block at 0x10000. */
static void sectors_up(unsigned n)
{
	fill_noff(have, FLASH, 4);
	memcpy(wantf, have, FLASH);
	for (unsigned i = 0; i < n; i++)
		have[0x10010 + i * 0x1000] = 0x00, wantf[0x10010 + i * 0x1000] = 0x40;
}

static void s_most(void) { sectors_up(12); }
static void s_two(void) { sectors_up(2); }

static void s_ff_sector(void)
{
	fill_noff(have, FLASH, 5);
	memcpy(wantf, have, FLASH);
	memset(wantf + 0x3000, 0xFF, 0x1000);
}

static void s_unaligned(void)
{
	fill_noff(have, FLASH, 6);
	memcpy(wantf, have, FLASH);
	have[0x10200] = 0x01, wantf[0x10200] = 0x03;
	have[0x11E00] = 0x10, wantf[0x11E00] = 0x30;
}

static void s_all_differ(void)
{
	fill_noff(have, FLASH, 7);
	fill_noff(wantf, FLASH, 8);
}

/* Want equals have in the first sector of the block at 0x20000, differs in the rest. */
static void s_first_sector_clean(void)
{
	s_all_differ();
	memcpy(wantf + 0x20000, have + 0x20000, 0x1000);
}

static void s_ff_image(void)
{
	/* An image that is mostly 0xFF (like an FS2 image's padding) into a blank flash. */
	memset(have, 0xFF, FLASH);
	memset(wantf, 0xFF, FLASH);
	fill_noff(wantf + 0x30000, 0x300, 9);
	fill_noff(wantf + 0x30500, 0x10, 10);
}

struct tcase {
	const char *name;
	const struct plan_geom *g;
	void (*setup)(void);
	uint32_t base, len;
	struct op ops[8];         /* expected, flattened; ends at k == 0 */
};

static const struct tcase cases[] = {
	{"identical: nothing", &G4K64, s_identical, 0, FLASH, {{0}}},
	{"identical on a 64K part: nothing", &G64, s_identical, 0x1234, 0x20000, {{0}}},
	{"only 1->0: programs of the changed bytes, no erase", &G4K64, s_clear_bits, 0, FLASH,
	 {{'P', 0x1010, 0x11}, {'P', 0x2300, 1}}},
	{"only 1->0 on a 64K part: no erase either", &G64, s_clear_bits, 0, FLASH,
	 {{'P', 0x1010, 0x11}, {'P', 0x2300, 1}}},
	{"only 1->0, byte-program part: runs not joined", &GSST, s_clear_bits, 0, FLASH,
	 {{'P', 0x1010, 1}, {'P', 0x1020, 1}, {'P', 0x2300, 1}}},
	{"one 0->1 byte, 4K part: one 4K erase, its sector programmed", &G4K64, s_one_up, 0, FLASH,
	 {{'E', 0x5000, 0x1000}, {'P', 0x5000, 0x1000}}},
	{"one 0->1 byte, 4K-only part", &G4K, s_one_up, 0, FLASH,
	 {{'E', 0x5000, 0x1000}, {'P', 0x5000, 0x1000}}},
	{"one 0->1 byte, 64K-only part: one 64K erase", &G64, s_one_up, 0, FLASH,
	 {{'E', 0, 0x10000}, {'P', 0, 0x10000}}},
	{"12 of 16 sectors need an erase: one 64K erase", &G4K64, s_most, 0, FLASH,
	 {{'E', 0x10000, 0x10000}, {'P', 0x10000, 0x10000}}},
	{"2 of 16 sectors need an erase: two 4K erases", &G4K64, s_two, 0, FLASH,
	 {{'E', 0x10000, 0x1000}, {'P', 0x10000, 0x1000}, {'E', 0x11000, 0x1000}, {'P', 0x11000, 0x1000}}},
	{"want all 0xFF in a changed sector: erase only", &G4K64, s_ff_sector, 0, FLASH,
	 {{'E', 0x3000, 0x1000}}},
	{"unaligned region: whole sectors, outside bytes kept", &G4K64, s_unaligned, 0x10100, 0x1E00,
	 {{'E', 0x10000, 0x1000}, {'K', 0x10000, 0x100}, {'P', 0x10100, 0xF00},
	  {'E', 0x11000, 0x1000}, {'P', 0x11000, 0xF00}, {'K', 0x11F00, 0x100}}},
	{"unaligned in one 64K block, edges need erasing: 64K erase, edges kept", &G4K64, s_all_differ,
	 0x20800, 0xF000,
	 {{'E', 0x20000, 0x10000}, {'K', 0x20000, 0x800}, {'P', 0x20800, 0xF000}, {'K', 0x2F800, 0x800}}},
	{"unaligned 64K-only part: the block, with both edges kept", &G64, s_unaligned, 0x10100, 0x1E00,
	 {{'E', 0x10000, 0x10000}, {'K', 0x10000, 0x100}, {'P', 0x10100, 0x1E00}, {'K', 0x11F00, 0xE100}}},
	{"sparse image into blank flash: program only the non-FF runs", &G4K64, s_ff_image, 0, FLASH,
	 {{'P', 0x30000, 0x300}, {'P', 0x30500, 0x10}}},
	{"region of one byte", &G4K64, s_one_up, 0x5123, 1,
	 {{'E', 0x5000, 0x1000}, {'K', 0x5000, 0x123}, {'P', 0x5123, 1}, {'K', 0x5124, 0xEDC}}},
};

static void test_table(void **state)
{
	(void)state;
	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct tcase *t = &cases[c];
		struct plan p;
		struct op got[MAXOPS];
		unsigned n, want_n = 0;

		t->setup();
		plan_and_apply(t->g, t->base, t->len, &p);
		n = flatten(&p, got);
		while (want_n < 8 && t->ops[want_n].k)
			want_n++;
		if (n != want_n || !same_ops(got, t->ops, n)) {
			print_message("case '%s':\n", t->name);
			print_ops("expected", t->ops, want_n);
			print_ops("planned ", got, n);
			fail_msg("plan differs for '%s'", t->name);
		}
		plan_free(&p);
	}
}

/* When the region's first sector is clean, a 64K erase would put bytes
 * outside the region at risk for nothing: 15 sector erases instead. */
static void test_block_erase_not_past_a_clean_edge(void **state)
{
	struct plan p;
	(void)state;

	s_first_sector_clean();
	plan_and_apply(&G4K64, 0x20800, 0xF800, &p);
	assert_int_equal(p.erase_ops, 15);
	for (uint32_t s = 0; s < p.nsteps; s++) {
		assert_int_equal(p.step[s].size, 0x1000);
		assert_int_not_equal(p.step[s].addr, 0x20000);
	}
	assert_int_equal(p.keep_bytes, 0);
	plan_free(&p);

	/* The same data as a whole aligned block: one 64K erase. */
	plan_and_apply(&G4K64, 0x20000, 0x10000, &p);
	assert_int_equal(p.erase_ops, 1);
	assert_int_equal(p.step[0].size, 0x10000);
	plan_free(&p);
}

/* The choice is by cost: the block erase takes over past a threshold of
 * sectors needing an erase, and never comes back below it. */
static void test_threshold_by_cost(void **state)
{
	int threshold = -1;
	(void)state;

	for (unsigned k = 1; k <= 16; k++) {
		struct plan p;
		bool block;

		sectors_up(k);
		plan_and_apply(&G4K64, 0, FLASH, &p);
		block = p.nsteps == 1 && p.step[0].size == 0x10000;
		if (!block)
			assert_int_equal(p.erase_ops, k);
		if (block && threshold < 0)
			threshold = (int)k;
		if (threshold >= 0)
			assert_true(block);
		plan_free(&p);
	}
	/* W25Q-like costs: 45 ms + 13.4 ms of programs per sector against 150 ms +
	 * all 16 sectors' programs, so the block wins from 7 sectors on. */
	assert_int_equal(threshold, 7);
	print_message("block erase from %d of 16 sectors on (4K 45 ms, 64K 150 ms)\n", threshold);

	/* A part whose block erase costs as much as 16 sector erases: never chosen. */
	struct plan_geom slow = G4K64;
	struct plan p;

	slow.unit[1].erase_ns = 16 * slow.unit[0].erase_ns;
	sectors_up(16);
	plan_and_apply(&slow, 0, FLASH, &p);
	assert_int_equal(p.erase_ops, 16);
	assert_int_equal(p.step[0].size, 0x1000);
	plan_free(&p);
}

/* The estimate is the modelled cost of what the plan does. */
static void test_estimate(void **state)
{
	struct plan p;
	(void)state;

	s_one_up();
	assert_int_equal(plan_make(have, wantf, 0, FLASH, &G4K64, &p), CX_OK);
	/* One 4K erase, 16 full page programs (no 0xFF byte), nothing left to read. */
	assert_int_equal(p.est_ns, 45 * MS + 16 * 420 * US + 4096 * 1625);
	plan_free(&p);

	s_ff_sector();
	assert_int_equal(plan_make(have, wantf, 0, FLASH, &G4K64, &p), CX_OK);
	/* One 4K erase, then reading its 4096 bytes back (they must be 0xFF). */
	assert_int_equal(p.est_ns, 45 * MS + 4096 * 875);
	plan_free(&p);

	s_clear_bits();
	assert_int_equal(plan_make(have, wantf, 0, FLASH, &G4K64, &p), CX_OK);
	assert_int_equal(p.est_ns, 2 * 420 * US + (0x11 + 1) * 1625);
	plan_free(&p);
}

static void test_print(void **state)
{
	char *text = NULL;
	size_t size = 0;
	struct plan p;
	FILE *f;
	(void)state;

	s_most();
	assert_int_equal(plan_make(have + 0x8000, wantf + 0x8000, 0x8000, 0x20000, &G4K64, &p), CX_OK);
	f = open_memstream(&text, &size);
	assert_non_null(f);
	plan_print(&p, f);
	fclose(f);
	assert_non_null(strstr(text, "erase 64 KiB at 0x10000\n"));
	assert_non_null(strstr(text, "program 65536 bytes at 0x10000\n"));
	assert_non_null(strstr(text, "total: 1 erase (64 KiB), 65536 bytes to program;"));
	assert_null(strstr(text, "keep"));
	free(text);
	plan_free(&p);

	s_unaligned();
	assert_int_equal(plan_make(have + 0x10100, wantf + 0x10100, 0x10100, 0x1E00, &G4K64, &p), CX_OK);
	f = open_memstream(&text, &size);
	plan_print(&p, f);
	fclose(f);
	assert_non_null(strstr(text, "erase 4 KiB at 0x10000\nkeep 256 bytes at 0x10000"));
	assert_non_null(strstr(text, "program 3840 bytes at 0x10100\n"));
	assert_non_null(strstr(text, "2 erases (8 KiB)"));
	free(text);
	plan_free(&p);

	s_identical();
	assert_int_equal(plan_make(have, wantf, 0, FLASH, &G4K64, &p), CX_OK);
	f = open_memstream(&text, &size);
	plan_print(&p, f);
	fclose(f);
	assert_non_null(strstr(text, "nothing to do"));
	free(text);
	plan_free(&p);
}

static void test_bounds(void **state)
{
	struct plan_geom g;
	struct plan p;
	(void)state;

	s_identical();
	/* Past the 3-byte address space. */
	assert_int_equal(plan_make(have, wantf, PLAN_MAX_END - 16, 17, &G4K64, &p), CX_EVALUE);
	assert_false(p.nothing_to_do);
	assert_int_equal(plan_make(have, wantf, 0xFFFFFFF0u, 0x20, &G4K64, &p), CX_EVALUE);
	plan_free(&p);
	/* Broken geometries. */
	g = G4K64, g.nunits = 0;
	assert_int_equal(plan_make(have, wantf, 0, 16, &g, &p), CX_EVALUE);
	g = G4K64, g.unit[1].size = 0x1000;   /* not larger than the one before */
	assert_int_equal(plan_make(have, wantf, 0, 16, &g, &p), CX_EVALUE);
	g = G4K64, g.unit[0].size = 0x1800;   /* not a power of two */
	assert_int_equal(plan_make(have, wantf, 0, 16, &g, &p), CX_EVALUE);
	g = G4K64, g.page = 0x2000;           /* page larger than a unit */
	assert_int_equal(plan_make(have, wantf, 0, 16, &g, &p), CX_EVALUE);
	g = G4K64, g.nunits = PLAN_MAX_UNITS + 1;
	assert_int_equal(plan_make(have, wantf, 0, 16, &g, &p), CX_EVALUE);
	/* An empty region: nothing to do. */
	assert_int_equal(plan_make(have, wantf, 0x100, 0, &G4K64, &p), CX_OK);
	assert_true(p.nothing_to_do);
	assert_int_equal(p.nsteps + p.nranges, 0);
	plan_free(&p);
	/* The last byte of the address space is fine. */
	static uint8_t one_h = 0x00, one_w = 0x01;
	assert_int_equal(plan_make(&one_h, &one_w, PLAN_MAX_END - 1, 1, &G4K64, &p), CX_OK);
	assert_int_equal(p.erase_ops, 1);
	assert_int_equal(p.step[0].addr, PLAN_MAX_END - 0x1000);
	plan_free(&p);
}

/* A failed read stops planning with the reader's code: no plan, not "nothing to do". */
static void test_read_failure(void **state)
{
	struct plan p;
	(void)state;

	s_identical();
	reader_reset();
	rd.fail_at = 0x12345;
	assert_int_equal(plan_make_reading(mem_read, NULL, wantf, 0, FLASH, &G4K64, &p), CX_EFLASH);
	assert_false(p.nothing_to_do);
	assert_int_equal(p.nsteps + p.nranges, 0);
	assert_int_equal(rd.next, 0x12340); /* read in order up to the failing block */
	plan_free(&p);
	/* A bad geometry is refused before any read. */
	struct plan_geom g = G4K64;
	g.nunits = 0;
	reader_reset();
	assert_int_equal(plan_make_reading(mem_read, NULL, wantf, 0, FLASH, &g, &p), CX_EVALUE);
	assert_int_equal(rd.bytes, 0);
}

/* Where every sector needs an erase, planning reads one block of each. */
static void test_reading_stops_early(void **state)
{
	struct plan p;
	(void)state;

	fill_noff(have, FLASH, 12);
	fill_noff(wantf, FLASH, 13);
	for (uint32_t a = 0; a < FLASH; a += 0x1000) /* make sure: a 0->1 bit in each first block */
		have[a] = 0x00, wantf[a] = 0x01;
	reader_reset();
	assert_int_equal(plan_make_reading(mem_read, NULL, wantf, 0, FLASH, &G4K64, &p), CX_OK);
	assert_int_equal(p.read_bytes, FLASH / 0x1000 * PLAN_READ_BLOCK);
	assert_int_equal(p.erase_bytes, FLASH);
	plan_free(&p);
	/* Blank flash, data wanted: program-only, so every byte is read. */
	memset(have, 0xFF, FLASH);
	reader_reset();
	assert_int_equal(plan_make_reading(mem_read, NULL, wantf, 0, FLASH, &G4K64, &p), CX_OK);
	assert_int_equal(p.read_bytes, FLASH);
	assert_int_equal(p.erase_ops, 0);
	plan_free(&p);
}

/* The plan's size stays bounded: alternating changed bytes on a byte-program
 * part would be 128 ranges a page; they are joined to PLAN_MAX_RUNS_PER_PAGE. */
static void test_size_bound(void **state)
{
	struct plan p;
	(void)state;

	fill_noff(have, FLASH, 11);
	memcpy(wantf, have, FLASH);
	for (uint32_t a = 0; a < FLASH; a += 2)
		have[a] = 0x0F, wantf[a] = 0x07;
	plan_and_apply(&GSST, 0, FLASH, &p);
	assert_int_equal(p.erase_ops, 0);
	assert_true(p.nranges <= FLASH / 256 * PLAN_MAX_RUNS_PER_PAGE);
	assert_true(p.nranges >= FLASH / 256);
	plan_free(&p);
}

/* ---- property test: random contents and regions ---- */

/* A sector of want derived from have in one of several ways. */
static void make_sector(uint8_t *h, uint8_t *w, uint32_t n, unsigned how)
{
	switch (how) {
	case 0: memcpy(w, h, n); break;                                        /* equal */
	case 1: for (uint32_t i = 0; i < n; i++) w[i] = h[i] & (uint8_t)prng32(&rng); break; /* only 1->0 */
	case 2: for (uint32_t i = 0; i < n; i++) w[i] = (uint8_t)prng32(&rng); break;       /* random */
	case 3: memset(w, 0xFF, n); break;                                     /* blank */
	case 4: memcpy(w, h, n); w[prng32(&rng) % n] |= (uint8_t)(1u << (prng32(&rng) % 8)); break; /* one bit up, maybe */
	case 5: memcpy(w, h, n);                                               /* a few 1->0 bytes */
		for (unsigned k = 0; k < 3; k++) { uint32_t i = prng32(&rng) % n; w[i] &= (uint8_t)prng32(&rng); }
		break;
	default: /* sparse: mostly 0xFF with a few runs */
		memset(w, 0xFF, n);
		for (unsigned k = 0; k < 4; k++) {
			uint32_t i = prng32(&rng) % n, len = prng32(&rng) % 300;
			for (uint32_t j = i; j < i + len && j < n; j++) w[j] = (uint8_t)prng32(&rng);
		}
	}
}

/* What the random cases exercised, so the property test cannot pass vacuously. */
static struct { unsigned plans, nothing, keeps, blocks, sectors, prog_only; } seen;

static void random_case(uint32_t seed, const struct plan_geom *g)
{
	struct plan p;
	uint32_t base, len;

	rng = seed;
	/* have: per 4 KiB, random, blank or mostly blank. */
	for (uint32_t s = 0; s < FLASH; s += 0x1000) {
		unsigned kind = prng32(&rng) % 4;

		for (uint32_t i = 0; i < 0x1000; i++)
			have[s + i] = kind == 0 ? 0xFF : kind == 1 && prng32(&rng) % 8 ? 0xFF : (uint8_t)prng32(&rng);
	}
	/* want: per 1 KiB piece, derived from have in one of the ways above. */
	for (uint32_t s = 0; s < FLASH; s += 0x400)
		make_sector(have + s, wantf + s, 0x400, prng32(&rng) % 8);
	base = prng32(&rng) % FLASH;
	len = prng32(&rng) % 4 ? prng32(&rng) % (FLASH - base) + 1 : FLASH - base;
	if (prng32(&rng) % 3 == 0)
		base &= ~0xFFFu, len = FLASH - base;
	plan_and_apply(g, base, len, &p);
	seen.plans++;
	seen.nothing += p.nothing_to_do;
	seen.keeps += p.keep_bytes > 0;
	for (uint32_t s = 0; s < p.nsteps; s++) {
		seen.blocks += p.step[s].erase && p.step[s].size > g->unit[0].size;
		seen.sectors += p.step[s].erase && p.step[s].size == g->unit[0].size;
		seen.prog_only += !p.step[s].erase;
	}
	plan_free(&p);
}

static void test_property_random(void **state)
{
	const struct plan_geom *geoms[] = {&G4K64, &G64, &G4K, &GSST};
	(void)state;

	for (uint32_t i = 0; i < 1200; i++)
		random_case(0x5EED0000u + i, geoms[i % 4]);
	print_message("%u random plans: %u with nothing to do, %u keeping outside bytes; steps: %u block "
		      "erases, %u sector erases, %u program-only\n", seen.plans, seen.nothing, seen.keeps,
		      seen.blocks, seen.sectors, seen.prog_only);
	assert_true(seen.keeps > 100 && seen.blocks > 100 && seen.sectors > 1000 && seen.prog_only > 1000);

	/* Small regions, where equal content (nothing to do) is likely. */
	for (uint32_t i = 0; i < 400; i++) {
		struct plan p;
		uint32_t base, len;

		fill_noff(have, FLASH, i);
		memcpy(wantf, have, FLASH);
		rng = 0xABCD0000u + i;
		base = prng32(&rng) % (FLASH - 0x3000);
		len = prng32(&rng) % 0x3000 + 1;
		make_sector(have + base, wantf + base, len, prng32(&rng) % 6);
		plan_and_apply(geoms[i % 4], base, len, &p);
		plan_free(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_block_erase_not_past_a_clean_edge),
		cmocka_unit_test(test_threshold_by_cost),
		cmocka_unit_test(test_estimate),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_size_bound),
		cmocka_unit_test(test_read_failure),
		cmocka_unit_test(test_reading_stops_early),
		cmocka_unit_test(test_property_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
