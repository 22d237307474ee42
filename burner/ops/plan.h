/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan.h — which erase units to erase and which bytes to program so that the
 * flash goes from what it holds to what it must hold, at the least modelled cost.
 *
 * No I/O of its own, so the policy is tested from tables like flashrom's
 * tests/erase_func_algo.c (style.md Lessons 6). plan_make() is given what
 * the flash holds; plan_make_reading() asks a callback for it as it goes
 * and reads no more than the decisions need (below). write_region.h carries a plan
 * out on a card.
 *
 * For each smallest erase unit ("sector") the region touches:
 *  - have == want                      → nothing;
 *  - have & want == want (only 1→0)    → program the differing bytes, no erase;
 *  - otherwise                         → the sector must be erased.
 * A larger unit (a 64 KiB block) replaces the erases of its sectors when its
 * modelled cost is lower: one block erase, then every sector in it programmed
 * again, against the sectors' own erases and programs. The geometry gives the
 * costs, so the choice follows the part (a W25Q's 45 ms sector erase against
 * its 150 ms block erase) and not a fixed habit.
 *
 * After an erase the unit reads 0xFF, so only the non-0xFF bytes of want are
 * programmed there. Programs are ranges that never cross a page (one page
 * program command each); runs of bytes that need programming in one page are
 * joined into one range when sending the bytes between them costs less than a
 * second command (then the bytes between are ones that program to what they
 * already are: 0xFF after an erase, or have == want).
 *
 * Regions that do not start or end on a sector boundary: bytes outside
 * [base, base + len) are never changed. When a sector the region only partly
 * covers has to be erased, its bytes outside the region are "kept": listed as
 * program ranges with src PLAN_FROM_FLASH, which the executor reads from the
 * flash just before that erase and programs back right after it. A block
 * erase is only chosen where it puts no more outside bytes at risk than the
 * sector erases would: every sector it covers that reaches outside the region
 * must need an erase anyway.
 *
 * What must be read: a sector that needs an erase is erased whatever the
 * rest of it holds, and its cost (refilling it from want, kept bytes and a
 * verify) does not depend on have either; only the sectors found identical
 * or program-only need every byte of have (a program-only sector programs
 * exactly the bytes that differ). So plan_make_reading() reads each sector's
 * bytes inside the region PLAN_READ_BLOCK at a time, in address order, and
 * stops at the first block holding a byte that needs an erase. It makes the
 * same plan plan_make() makes from the whole of have. Bytes outside the
 * region are never read here: the executor reads kept bytes in full, just
 * before the erase that takes them.
 *
 * The plan is a list of steps in address order. A step is one erase unit:
 * either erased and then programmed, or programmed only; its program ranges
 * follow it in address order. A step is the unit of interruption and of
 * verification in write_region.c.
 */
#ifndef CX_OPS_PLAN_H
#define CX_OPS_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PLAN_MAX_UNITS 3             /* erase sizes one part offers; ours have 1 or 2 (parts.h) */
#define PLAN_MAX_END (16u << 20)     /* 3-byte SPI addresses: no flash cxflash drives is larger (parts.h) */
#define PLAN_MAX_PAGE 4096u          /* largest program page the planner accepts (ours: 256) */
#define PLAN_MAX_RUNS_PER_PAGE 8     /* more runs in one page are joined: bounds the plan's size */
#define PLAN_READ_BLOCK 16u          /* plan_make_reading() reads this much at a time, aligned: the
                                      * flash's read transaction (hw-access.md §3.6), so stopping at
                                      * a block wastes no read */

/* One erase size and what one erase of it costs. */
struct plan_unit {
	uint32_t size;               /* bytes, a power of two */
	uint64_t erase_ns;           /* modelled time of one erase command, WIP wait included */
};

/* What the part can do and what it costs (write_region.c fills it from the part). */
struct plan_geom {
	unsigned nunits;
	struct plan_unit unit[PLAN_MAX_UNITS]; /* smallest first, each larger than the one before */
	uint32_t page;               /* a program range never crosses a page boundary (power of two) */
	uint64_t page_ns;            /* fixed cost of one program command (WREN, program time, WIP wait) */
	uint64_t prog_byte_ns;       /* per byte sent in a program, with its read-back */
	uint64_t read_byte_ns;       /* per byte read (verifying erased bytes, reading kept bytes) */
};

enum plan_src {
	PLAN_FROM_WANT,              /* bytes of want: inside the region */
	PLAN_FROM_FLASH,             /* kept bytes outside the region: read before the step's erase */
};

struct plan_range {
	uint32_t addr, len;
	enum plan_src src;
};

struct plan_step {
	uint32_t addr, size;         /* one erase unit, aligned to its size */
	bool erase;                  /* erase it first; false: program only (bits go 1→0) */
	uint32_t first, n;           /* its ranges: range[first] .. range[first + n - 1] */
};

struct plan {
	uint32_t base, len;          /* the region planned for */
	struct plan_step *step;      /* address order */
	uint32_t nsteps;
	struct plan_range *range;    /* address order; each inside its step's unit */
	uint32_t nranges;
	uint32_t cap_steps, cap_ranges;

	/* totals */
	uint32_t erase_ops;
	uint64_t erase_bytes;
	uint64_t program_bytes;      /* in ranges from want */
	uint64_t keep_bytes;         /* in ranges from the flash (an upper bound: 0xFF is not sent) */
	uint64_t est_ns;             /* modelled time to carry the plan out, verification included
	                              * (not the reading that made it: see read_bytes) */
	bool nothing_to_do;          /* the flash already holds want */
	uint64_t read_bytes;         /* bytes plan_make_reading() asked its callback for (0: plan_make) */
};

/* Read [addr, addr + len) of the flash into buf (len <= PLAN_READ_BLOCK, in
 * one aligned block). CX_OK, or the caller's error code: planning stops and
 * plan_make_reading() returns it (the callback keeps its own message). */
typedef int plan_read_fn(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len);

/* Plan [base, base + len): have = what the flash holds there, want = what it
 * must hold (len bytes each). p is always initialised, so plan_free() is safe
 * after a failure. CX_OK; CX_EVALUE for a region past PLAN_MAX_END or a
 * geometry that breaks the rules above; CX_ENOMEM. */
int plan_make(const uint8_t *have, const uint8_t *want, uint32_t base, uint32_t len,
	      const struct plan_geom *g, struct plan *p);

/* The same plan, reading what the flash holds through rd (see "What must be
 * read" above). The geometry and region are checked before the first read.
 * Errors as plan_make(), or rd's. */
int plan_make_reading(plan_read_fn *rd, void *ctx, const uint8_t *want, uint32_t base, uint32_t len,
		      const struct plan_geom *g, struct plan *p);

/* The --dry-run listing: "erase 64 KiB at 0x80000", "program 4096 bytes at
 * 0x80000" (adjacent ranges printed as one), then the totals. */
void plan_print(const struct plan *p, FILE *out);

void plan_free(struct plan *p);

#endif
