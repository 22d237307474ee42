/* SPDX-License-Identifier: GPL-2.0-or-later */
/* device.c — opening, locking, reading and closing a card. */
#include <stdlib.h>
#include <string.h>

#include "ops/device.h"
#include "util/signals.h"

#define READ_PIECE (64u << 10) /* check for a deferred signal this often while reading */

int device_attach(struct device *d, struct cfg_dev cfg, const struct pci_card *pci, bool clear_sem,
		  struct cx_status *st)
{
	int rc;

	memset(d, 0, sizeof(*d));
	d->pci = *pci;
	d->cfg = cfg;
	d->opened = true;
	sig_defer_begin();
	if ((rc = chip_open(&d->chip, &d->cfg, pci->device, st)))
		return rc;
	d->have_chip = true;
	if (clear_sem && (rc = chip_clear_semaphores(&d->chip, st)))
		return rc;
	/* Identification touches the gateway: hold the semaphore while we do it. */
	if ((rc = chip_lock(&d->chip, st)))
		return rc;
	rc = flash_open(&d->flash, &d->chip, st);
	chip_unlock(&d->chip);
	if (rc)
		return rc;
	d->have_flash = true;
	return CX_OK;
}

int device_open(struct device *d, const char *sysfs_root, const char *bdf, bool clear_sem,
		struct cx_status *st)
{
	struct pci_card pci;
	struct cfg_dev cfg;
	int rc;

	memset(d, 0, sizeof(*d));
	if ((rc = pci_find(sysfs_root, bdf, &pci, st)))
		return rc;
	if ((rc = cfg_open_sysfs(&cfg, sysfs_root, pci.bdf, st)))
		return rc;
	return device_attach(d, cfg, &pci, clear_sem, st);
}

int device_lock(struct device *d, struct cx_status *st)
{
	return chip_lock(&d->chip, st);
}

static int read_cb(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	struct device *d = ctx;

	while (len) {
		uint32_t n = len < READ_PIECE ? len : READ_PIECE;
		if (sig_pending())
			return cx_fail(st, CX_EINTR, "interrupted while reading the flash: nothing was written");
		if (flash_read(&d->flash, addr, buf, n, st))
			return st->code;
		addr += n;
		buf += n;
		len -= n;
	}
	return CX_OK;
}

int device_read_image(struct device *d, struct dev_image *img, struct cx_status *st)
{
	int rc = device_lock(d, st);

	if (rc)
		return rc;
	rc = devimage_read(img, read_cb, d, d->flash.size, d->chip.desc->start_positions, st);
	chip_unlock(&d->chip);
	return rc;
}

int device_read_image_meta(struct device *d, struct dev_image *img, struct cx_status *st)
{
	int rc = device_lock(d, st);

	if (rc)
		return rc;
	rc = devimage_read_meta(img, read_cb, d, d->flash.size, d->chip.desc->start_positions, st);
	chip_unlock(&d->chip);
	return rc;
}

int device_read_flash(struct device *d, uint8_t **buf, struct cx_status *st)
{
	int rc;

	if (!(*buf = malloc(d->flash.size)))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	if ((rc = device_lock(d, st)))
		return rc;
	rc = read_cb(d, 0, *buf, d->flash.size, st);
	chip_unlock(&d->chip);
	return rc;
}

void device_close(struct device *d)
{
	if (!d->opened)
		return;
	if (d->have_chip)
		chip_close(&d->chip);
	cfg_close(&d->cfg);
	d->opened = false;
	sig_defer_end();
}
