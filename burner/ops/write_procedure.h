/* SPDX-License-Identifier: GPL-2.0-or-later */
/* write_procedure.h — the one procedure every write to a card goes through.
 *
 * A burn, a recovery burn, a restore, sg/sv on a card (and whatever writes a
 * card next) are each an op: a check, a plan and a write. card_write_run()
 * runs them in the one order design.md promises, and sets the card's state
 * (card_state.h) on every path (ops/README.md draws the chain under it, from
 * the op down to the flash, and how to add a kind of write):
 *
 *   1. check    everything that can refuse: the op's guards and its questions
 *               (cw_ask). It reads what it needs with its own short locks, so
 *               the flash semaphores are not held while a person thinks.
 *   2. plan     under the flash semaphores, held from here to the end: the op
 *               reads what the write is planned from (a restore's whole flash,
 *               a burn's comparison with the card's image) and may find that
 *               the card already holds it (nothing_to_do). Holding the lock
 *               from this read to the write means the bytes planned from are
 *               the bytes written over: no other tool can change them between.
 *   3. writable a part whose protection cannot be cleared is refused here,
 *               before the backup (a whole read for nothing otherwise).
 *   4. dry run  stops here: nothing was written.
 *   5. backup   hooks->before_write (the front end's backup; it reads under the
 *               same lock, device_lock() nests).
 *   6. write    the op's write, the part made writable first.
 *   7. verify   what the write's own per-unit verify (ops/write_region.h) cannot prove.
 *   8. after    hooks->after, once, on every path (a refusal too), the lock
 *               released and the card still open: the front end's record of
 *               the write (the wizard's history line and job record,
 *               rescue/step_record.c). cxflash keeps no history: it prints its
 *               report from the outcome after the call. A write refused before
 *               its op calls card_write_run() (set-ids' own checks, a card that
 *               could not be opened) has no run and no after: its caller
 *               records it.
 *
 * The state after a failure is observed, not assumed: when an erase or program
 * command was sent (flash_stats.write_cmds: one that then failed may have been
 * carried out), the image the card boots (the lowest signed one, as the boot
 * ROM and flint take it: devimage_read_meta(), 2.5 KiB) is read, once the part
 * has finished what the failure left running, and compared with the image it
 * booted before and with the image being written (the op names both: where
 * each starts and its contiguous bytes). Found at the same start with every
 * byte the walk read equal (its headers, GUIDs and IMAGE_INFO): that image
 * boots; neither, or unreadable: partly-written. The walk's bytes are enough
 * there because every writer here puts an image's signature last
 * (failsafe.h, restore_order.h): a signature that walks to the expected headers
 * means the body under it was written and verified before it. The state's sentence
 * is appended to st's message, so a one-line error says it too.
 */
#ifndef CX_WRITE_PROCEDURE_H
#define CX_WRITE_PROCEDURE_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/card_state.h"
#include "ops/device.h"
#include "ops/write_region.h"

struct write_outcome;

/* What a front end brings to a write. Every member may be NULL. */
struct write_hooks {
	/* Ask a yes/no question; CX_OK for yes. NULL: every question is a refusal. */
	int (*confirm)(void *ctx, const char *question, struct cx_status *st);
	void *confirm_ctx;
	/* After the checks and the plan, before the first write: the backup. */
	int (*before_write)(void *ctx, struct cx_status *st);
	void *before_ctx;
	write_progress_fn *progress;
	void *progress_arg;
	/* Once at the end of every run, refused ones included: the history (step 8).
	 * Per run: set-ids in place that turns out to need an erase is two runs
	 * (setid.h), the in-place one with nothing to do, then the re-burn. */
	void (*after)(void *ctx, int rc, const struct cx_status *st, const struct write_outcome *out);
	void *after_ctx;
};

/* What a run did: the front ends print from this. */
struct write_outcome {
	enum card_state state;
	bool nothing_to_do;          /* the card already held it: nothing written */
	bool dry_run;                /* stopped after the checks and the plan */
	bool backed_up;              /* before_write ran and succeeded */
	uint64_t bytes_erased, bytes_programmed;
	uint64_t bytes_read;         /* flash bytes read from the plan to the end (the backup's too) */
};

struct card_write;

struct card_write_op {
	const char *what;            /* "burn", "restore", "set-ids": for messages */
	int (*check)(struct card_write *w, struct cx_status *st);   /* may be NULL */
	int (*plan)(struct card_write *w, struct cx_status *st);    /* under the lock; may be NULL */
	int (*write)(struct card_write *w, struct cx_status *st);   /* under the lock, part writable */
	int (*verify)(struct card_write *w, struct cx_status *st);  /* under the lock; may be NULL */
};

struct card_write {
	struct device *d;
	const struct card_write_op *op;
	void *ctx;                   /* the op's own state */
	const struct write_hooks *hooks; /* may be NULL */
	bool dry_run;
	/* Set by the op for the state after a failure (see the top): the image the
	 * card booted before and the image being written (unset: none), and that
	 * image at another start, where the card boots it from for a while (a
	 * restore's temporary copy in the other slot, restore_order.h). */
	struct cw_image {
		bool set;
		uint32_t start;          /* physical start */
		const uint8_t *buf;      /* contiguous image bytes (a meta read's zeros are never compared) */
		size_t len;
	} old_boot, new_boot, new_copy;
	struct write_outcome out;
};

/* Run w->op on w->d as above. out is filled on every path. */
int card_write_run(struct card_write *w, struct cx_status *st);

/* Ask one question through w's hooks (a refusal without a confirm hook). */
int cw_ask(const struct card_write *w, const char *question, struct cx_status *st);

/* The progress hook in the form write_region.h and device_io.h take. */
write_progress_fn *cw_progress(const struct card_write *w, void **arg);

/* x describes the image of d (a read of the card, or of a flash copy in memory). */
void cw_image_of(struct cw_image *x, const struct dev_image *d);

#endif
