/* SPDX-License-Identifier: GPL-2.0-or-later */
/* device_io.c — failsafe_io over an opened card (device_io.h). */
#include <string.h>

#include "ops/device_io.h"

static int io_write(void *ctx, uint32_t phys, const uint8_t *want, uint32_t len, struct cx_status *st)
{
	struct device_io *x = ctx;
	struct write_progress wp = {.fn = x->progress, .arg = x->progress_arg, .if_failed = x->if_failed};
	int rc = x->shadow ? write_region_known(&x->d->flash, phys, x->shadow + phys, want, len, &wp, st)
			   : write_region(&x->d->flash, phys, want, len, false, &wp, st);

	if (!rc && x->shadow)
		memcpy(x->shadow + phys, want, len);
	else if (rc)
		x->shadow = NULL; /* the flash may differ from it now: a later write reads (the owner frees it) */

	x->bytes_erased += wp.r.bytes_erased;
	x->bytes_programmed += wp.r.bytes_programmed;
	return rc;
}

static int io_read(void *ctx, uint32_t phys, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	struct device_io *x = ctx;
	return flash_read(&x->d->flash, phys, buf, len, st);
}

static int io_boot(void *ctx, uint32_t start, struct cx_status *st)
{
	struct device_io *x = ctx;
	return chip_set_boot_addr(&x->d->chip, start, st);
}

void device_io_init(struct failsafe_io *io, struct device_io *x)
{
	*io = (struct failsafe_io){io_write, io_read, io_boot, NULL, x};
}
