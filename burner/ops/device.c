/* SPDX-License-Identifier: GPL-2.0-or-later */
/* device.c — opening, locking, reading and closing a card. */
#include <stdlib.h>
#include <string.h>

#include "dev/lockdown.h"
#include "ops/device.h"
#include "ops/device_trace.h"
#include "util/signals.h"

#define READ_PIECE (64u << 10) /* check for a deferred signal this often while reading */

#define PCI_ID_CX3 0x1003      /* mtcr maps BAR0 only on these two IDs, hw-access.md §2.1 */
#define PCI_ID_CX3PRO 0x1007

static const char *access_wanted(void)
{
	const char *a = getenv("CXFLASH_ACCESS");
	return a && *a ? a : "auto";
}

static bool wanted(const char *method)
{
	return !strcmp(access_wanted(), method);
}

/* Up to the chip: config space, the access method, the chip and recovery mode. */
static int attach_chip(struct device *d, struct cfg_dev cfg, struct crmem mem, const struct pci_card *pci,
		       bool clear_sem, struct cx_status *st)
{
	int rc;

	memset(d, 0, sizeof(*d));
	d->pci = *pci;
	d->cfg = cfg;
	d->opened = true;
	sig_defer_begin();
	unsigned flags = (clear_sem ? CR_CLEAR_SEM : 0) | (wanted("config") ? CR_WINDOW : 0);
	if ((rc = chip_open(&d->chip, &d->cfg, pci->device, flags, st))) {
		crmem_close(&mem);
		return rc;
	}
	d->have_chip = true;
	bool bar_ok = !d->chip.recovery && d->chip.desc->family != CXF_CX2 && !wanted("config") &&
		      !wanted("vsec") && cr_use_mem(&d->chip.cr, mem);
	if (!bar_ok) {
		crmem_close(&mem);
		if (wanted("bar0"))
			return cx_fail(st, CX_ENODEV, "%s: BAR0 access is not usable on this card "
				       "(CXFLASH_ACCESS=bar0); unset it to use config cycles", pci->bdf);
	}
	if (wanted("vsec") && !d->chip.cr.use_vsec)
		return cx_fail(st, CX_ENODEV, "%s: the VSEC gateway is not usable: %s (CXFLASH_ACCESS=vsec); "
			       "unset it to use the 0x58/0x5c window", pci->bdf, d->chip.cr.no_vsec);
	if (clear_sem && (rc = chip_clear_semaphores(&d->chip, st)))
		return rc;
	return CX_OK;
}

int device_open_flash(struct device *d, struct cx_status *st)
{
	int rc;

	/* Identification touches the gateway: hold the semaphore while we do it. */
	if (!(rc = chip_lock(&d->chip, st))) {
		rc = flash_open(&d->flash, &d->chip, st);
		chip_unlock(&d->chip);
		d->have_flash = !rc;
	}
	/* Here too, not only in open_bdf: probe opens the chip first and the flash later,
	 * and a trace must still name the part it talked to. */
	device_trace_ident(d, rc);
	return rc;
}

int device_attach_mem(struct device *d, struct cfg_dev cfg, struct crmem mem, const struct pci_card *pci,
		      bool clear_sem, struct cx_status *st)
{
	int rc = attach_chip(d, cfg, mem, pci, clear_sem, st);

	return rc ? rc : device_open_flash(d, st);
}

int device_attach_chip(struct device *d, struct cfg_dev cfg, const struct pci_card *pci, struct cx_status *st)
{
	return attach_chip(d, cfg, (struct crmem){0}, pci, false, st);
}

int device_attach(struct device *d, struct cfg_dev cfg, const struct pci_card *pci, bool clear_sem,
		  struct cx_status *st)
{
	return device_attach_mem(d, cfg, (struct crmem){0}, pci, clear_sem, st);
}

/* The card's function, config space and BAR0 from sysfs, behind a recorder with --record.
 * A refusal under a kernel lockdown is said as such (dev/lockdown.h). */
static int open_sysfs(const char *sysfs_root, const char *bdf, bool no_bar, struct pci_card *pci,
		      struct cfg_dev *cfg, struct crmem *mem, struct cx_status *st)
{
	struct cx_status mst = {0};
	int rc;

	if ((rc = pci_find(sysfs_root, bdf, pci, st)))
		return rc;
	if ((rc = cfg_open_sysfs(cfg, sysfs_root, pci->bdf, st)))
		return lockdown_explain(st, pci->bdf);
	/* mstflint's rule (§2.1): the BAR is tried on the CX3 / Pro PF IDs only;
	 * a BAR that cannot be mapped means config cycles, not an error. */
	if (!no_bar && !wanted("config") && !wanted("vsec") &&
	    (pci->device == PCI_ID_CX3 || pci->device == PCI_ID_CX3PRO))
		crmem_open_sysfs(mem, sysfs_root, pci->bdf, &mst);
	/* The BAR asked for and refused by the kernel: say why rather than "not usable". */
	if (wanted("bar0") && mst.code == CX_EPERM) {
		cfg_close(cfg);
		*st = mst;
		return lockdown_explain(st, pci->bdf);
	}
	if ((rc = device_trace_wrap(pci, cfg, mem, st))) {
		cfg_close(cfg);
		crmem_close(mem);
	}
	return rc;
}

/* device_open(), or with !with_flash device_open_chip(); no_bar: config cycles only. */
static int open_bdf(struct device *d, const char *sysfs_root, const char *bdf, bool clear_sem, bool with_flash,
		    bool no_bar, struct cx_status *st)
{
	struct pci_card pci;
	struct cfg_dev cfg;
	struct crmem mem = {0};
	int rc;

	memset(d, 0, sizeof(*d));
	rc = device_trace_replaying() ? device_trace_card(bdf, &pci, &cfg, &mem, st)
				      : open_sysfs(sysfs_root, bdf, no_bar, &pci, &cfg, &mem, st);
	if (rc)
		return rc;
	if (no_bar)
		crmem_close(&mem);
	rc = attach_chip(d, cfg, mem, &pci, clear_sem, st);
	if (!rc && with_flash)
		rc = device_open_flash(d, st);   /* which notes the ident itself */
	else
		device_trace_ident(d, rc);
	return rc ? lockdown_explain(st, pci.bdf) : CX_OK;
}

int device_open(struct device *d, const char *sysfs_root, const char *bdf, bool clear_sem,
		struct cx_status *st)
{
	return open_bdf(d, sysfs_root, bdf, clear_sem, true, false, st);
}

int device_open_chip(struct device *d, const char *sysfs_root, const char *bdf, struct cx_status *st)
{
	return open_bdf(d, sysfs_root, bdf, false, false, false, st);
}

int device_open_tools(struct device *d, const char *sysfs_root, const char *bdf, struct cx_status *st)
{
	return open_bdf(d, sysfs_root, bdf, false, false, true, st);
}

int device_lock(struct device *d, struct cx_status *st)
{
	int rc = d->lock_depth ? CX_OK : chip_lock(&d->chip, st);

	if (!rc)
		d->lock_depth++;
	return rc;
}

static void drop_seen(struct device *d)
{
	free(d->seen);
	d->seen = NULL;
}

void device_unlock(struct device *d)
{
	if (d->lock_depth && !--d->lock_depth) {
		drop_seen(d); /* another agent may write once the semaphores are free */
		chip_unlock(&d->chip);
	}
}

int device_refuse_protected(struct device *d, struct cx_status *st)
{
	bool wp = false;
	int rc = device_lock(d, st);

	if (rc)
		return rc;
	rc = flash_is_write_protected(&d->flash, &wp, st);
	if (!rc && wp)
		rc = flash_check_writable(&d->flash, st);
	device_unlock(d);
	return rc;
}

void device_keep_flash(struct device *d, uint8_t *flash)
{
	drop_seen(d);
	if (!d->lock_depth) {
		free(flash);
		return;
	}
	d->seen = flash;
	d->seen_writes = d->flash.stats.write_cmds;
}

uint8_t *device_take_flash(struct device *d)
{
	uint8_t *f = d->seen;

	d->seen = NULL;
	if (f && d->flash.stats.write_cmds != d->seen_writes) {
		free(f);
		f = NULL;
	}
	return f;
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

/* d's image under the lock: the whole of it (whole), or the walk and the sections show names
 * (devimage_read_shown(); show 0 is devimage_read_meta()'s walk alone). */
static int read_locked(struct device *d, bool whole, unsigned show, struct dev_image *img, struct cx_status *st)
{
	int rc = device_lock(d, st);
	unsigned npos = d->chip.desc->start_positions;

	if (rc)
		return rc;
	rc = whole ? devimage_read(img, read_cb, d, d->flash.size, npos, st)
		   : devimage_read_shown(img, read_cb, d, d->flash.size, npos, show, st);
	device_unlock(d);
	return rc;
}

int device_read_image(struct device *d, struct dev_image *img, struct cx_status *st)
{
	return read_locked(d, true, 0, img, st);
}

int device_read_image_meta(struct device *d, struct dev_image *img, struct cx_status *st)
{
	return read_locked(d, false, 0, img, st);
}

int device_read_image_shown(struct device *d, struct dev_image *img, unsigned show, struct cx_status *st)
{
	return read_locked(d, false, show, img, st);
}

/* q's and a burn's reads are kept track of in the transport's own blocks (flash_read_block()):
 * what the parse needs, no byte twice; v's in 4 KiB units, as it always read. */
static int fs3_locked(struct device *d, struct devfs3 *img, enum fs3_reads what, struct cx_status *st)
{
	int rc = device_lock(d, st);
	uint32_t blk = flash_read_block(&d->flash);

	if (rc)
		return rc;
	switch (what) {
	case FS3_READS_QUERY:
		rc = devfs3_read_query(img, read_cb, d, d->flash.size, blk, st);
		break;
	case FS3_READS_BURN:
		rc = devfs3_read_burn(img, read_cb, d, d->flash.size, blk, st);
		break;
	default:
		rc = devfs3_read(img, read_cb, d, d->flash.size, st);
		break;
	}
	device_unlock(d);
	return rc;
}

int device_read_fs3(struct device *d, struct devfs3 *img, struct cx_status *st)
{
	return fs3_locked(d, img, FS3_READS_ALL, st);
}

int device_read_fs3_query(struct device *d, struct devfs3 *img, struct cx_status *st)
{
	return fs3_locked(d, img, FS3_READS_QUERY, st);
}

int device_read_fs3_burn(struct device *d, struct devfs3 *img, struct cx_status *st)
{
	return fs3_locked(d, img, FS3_READS_BURN, st);
}

int device_read_fs3_more(struct device *d, struct devfs3 *img, uint32_t off, uint32_t len, struct cx_status *st)
{
	int rc = device_lock(d, st);

	if (rc)
		return rc;
	rc = devfs3_need(img, read_cb, d, off, len, st);
	device_unlock(d);
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
	device_unlock(d);
	return rc;
}

void device_close(struct device *d)
{
	if (!d->opened)
		return;
	drop_seen(d);
	if (d->have_chip)
		chip_close(&d->chip);
	cfg_close(&d->cfg);
	d->opened = false;
	sig_defer_end();
}
