/* SPDX-License-Identifier: GPL-2.0-or-later */
/* device_io.h — an opened card as the struct failsafe_io that failsafe.h and restore_order.h write through.
 *
 * Writes go through the diff-aware writer (write_region, ops/write_region.h), reads
 * straight to the flash, the boot address to the chip. The caller holds the
 * flash semaphores for the whole session; the bytes erased and programmed add
 * up in the struct for the caller's report. With a shadow of the flash the
 * writes plan from memory instead of reading again (see shadow below).
 */
#ifndef CX_DEVICE_IO_H
#define CX_DEVICE_IO_H

#include "ops/device.h"
#include "ops/failsafe.h"
#include "ops/write_region.h"

struct device_io {
	struct device *d;
	write_progress_fn *progress;  /* may be NULL */
	void *progress_arg;
	const char *if_failed;        /* what a failed write means for the card (write_region.h) */
	/* NULL: each write plans by reading what it changes (write_region). Else the
	 * whole flash as the caller read it, the lock held since: writes plan from it
	 * (write_region_known) and it follows every write that succeeds; after a write
	 * that fails it is dropped (set to NULL: the caller keeps its own pointer to free). */
	uint8_t *shadow;
	uint64_t bytes_erased, bytes_programmed; /* out */
};

/* io writes, reads and sets the boot address of x->d; x must outlive io. */
void device_io_init(struct failsafe_io *io, struct device_io *x);

#endif
