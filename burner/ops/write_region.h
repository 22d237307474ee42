/* SPDX-License-Identifier: GPL-2.0-or-later */
/* write_region.h — carrying a plan (plan.h) out on a card's flash, and writing a region in one call.
 *
 * write_execute() runs the plan's steps in address order. A step is one erase
 * unit: its kept bytes (outside the region) are read, the unit is erased,
 * its ranges are programmed at once, so no unit stays erased longer than
 * needed (fs2-format.md §4.1 erases and programs sector by sector the same
 * way). Program-only steps just program.
 *
 * Verify: flash_program() reads back every page it programs (flash.h), and
 * every want range holds a byte that is sent, so the programmed bytes are
 * compared there; write_execute() then reads the rest of each erased unit
 * (0xFF, or the kept bytes) and compares it. Every byte an erase or program
 * can have changed is compared once, and no byte is read twice.
 *
 * What CX_OK from write_region() proves, and what callers may build on
 * (ops/burn.c drops a whole-image read-back on it): every byte of the region
 * an erase or program could change was read back after it and compared, and
 * every other byte was read while planning and found equal to want (only
 * identical and program-only units are left unerased, and those are read
 * whole). Bytes outside the region are unchanged: kept bytes are read whole
 * before their unit's erase and verified after it.
 *
 * Interruption: sig_pending() (util/signals.h) is checked before each step,
 * a point where no unit is half done; a pending signal stops the write with
 * CX_EINTR. The caller must have called sig_defer_begin().
 *
 * Failures say whether the card is safe (style.md Lessons 7): while no erase
 * or program command has been sent, "nothing on the flash was changed: safe
 * to power off"; after that, the caller's wp->if_failed if it gave one (only
 * the caller knows whether the region was the running image or the unused
 * failsafe slot), else a warning that the region is partly rewritten and must
 * not be left so. The report gives the address (fail_addr) and how far the
 * write got (done_upto) for the caller's own message and recovery command.
 *
 * Locking: the caller holds the flash semaphores (chip_lock) for the whole
 * call. write_execute() calls flash_prepare_write() before the first step, so
 * a write-protected part is refused before anything is erased.
 *
 * Costs: write_geometry() gives the planner the part's erase units and a
 * time model built from datasheet typicals (write_region.c): the plan's est_ns can
 * be compared with what the write took.
 */
#ifndef CX_WRITE_REGION_H
#define CX_WRITE_REGION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "flash/flash.h"
#include "ops/plan.h"
#include "util/status.h"

#define WRITE_PHASE_READ "read"      /* write_region: reading what the flash holds (as far as the
                                      * plan needs: plan.h); done may jump past units not read whole */
#define WRITE_PHASE_WRITE "write"    /* erasing, programming and verifying */

struct write_report {
	/* The plan. */
	uint32_t plan_erases;
	uint64_t plan_erase_bytes, plan_program_bytes, plan_keep_bytes;
	uint64_t est_ns;             /* plan's modelled time (write_region adds the reading that
	                              * planning did) */
	uint64_t plan_read_bytes;    /* write_region: bytes read while planning (plan.h read_bytes) */
	bool nothing_to_do;
	uint32_t steps_total, steps_done;

	/* What was done: deltas of struct flash_stats over the call. */
	uint64_t erase_ops, bytes_erased, bytes_programmed, pages_programmed, bytes_read;
	uint64_t elapsed_ns;         /* wall clock (CLOCK_MONOTONIC) */

	/* Where it stopped. */
	bool touched;                /* an erase or program command was sent */
	uint32_t done_upto;          /* the units below this address are complete */
	uint32_t fail_addr;          /* on failure: the byte that failed verify, else the failing
	                              * operation's start (or the unit where an interrupt stopped) */
};

struct write_progress;

/* Called at the start of each phase and after each step: done and total are
 * bytes (of the region read, or of the erase units written). A write phase
 * with total 0 is a plan with nothing to do. */
typedef void write_progress_fn(const struct write_progress *wp, const char *phase, uint64_t done,
			       uint64_t total);

struct write_progress {
	write_progress_fn *fn;       /* in: may be NULL */
	void *arg;                   /* in: for fn */
	const char *if_failed;       /* in: what a failure after the first change means for the card,
	                              * e.g. "the running image is intact: safe to power off"; NULL:
	                              * the generic "do not power off" warning */
	FILE *out;                   /* in: where write_region's dry run lists the plan (NULL: stdout) */
	struct write_report r;       /* out */
};

/* The part's erase units and time model for plan_make(). */
void write_geometry(const struct flash *f, struct plan_geom *g);

/* Carry out p, planned for want at base (= p->base). wp may be NULL. */
int write_execute(struct flash *f, const struct plan *p, const uint8_t *want, uint32_t base,
		  struct write_progress *wp, struct cx_status *st);

/* Make [base, base + len) hold want: plan, reading what the flash holds as
 * far as the plan needs it (plan_make_reading: a unit that must be erased is
 * read only up to its first 16 bytes that need the erase; identical and
 * program-only units are read whole), then execute (dry_run: list the plan
 * instead and change nothing; the listing is the plan a full read would
 * give). A signal or a failed read while planning changes nothing. wp may be
 * NULL. */
int write_region(struct flash *f, uint32_t base, const uint8_t *want, uint32_t len, bool dry_run,
		 struct write_progress *wp, struct cx_status *st);

/* The same, planned from have: what the flash holds at [base, base + len), as
 * the caller read it under the lock it still holds (a restore reads the whole
 * flash once to decide; reading it again to plan would read it twice). The
 * proof of write_region()'s CX_OK then rests on have: every unit the plan
 * leaves alone was read there and found equal to want, and every byte an
 * erase or program could change is read back after it, as above. */
int write_region_known(struct flash *f, uint32_t base, const uint8_t *have, const uint8_t *want, uint32_t len,
		       struct write_progress *wp, struct cx_status *st);

#endif
