/* SPDX-License-Identifier: GPL-2.0-or-later */
/* device.h — one card opened for work: its PCI function, chip, flash and locks.
 *
 * device_open() finds the function with libpci, opens its config space,
 * identifies the chip (recovery mode included) and the flash part, and
 * defers SIGINT/SIGTERM (util/signals.h) until device_close(), which releases
 * the flash semaphores and parks the crspace window first. The semaphores are
 * taken by device_lock() for a whole session (hw-access.md §3.5). An open the
 * kernel refuses (CX_EPERM) while it is locked down says so in one line
 * (dev/lockdown.h).
 */
#ifndef CX_DEVICE_H
#define CX_DEVICE_H

#include <stdbool.h>

#include "dev/chip.h"
#include "dev/pci_enum.h"
#include "flash/flash.h"
#include "ops/devimage.h"
#include "ops/devimage_fs3.h"

struct device {
	struct pci_card pci;
	struct cfg_dev cfg;
	struct chip chip;
	struct flash flash;
	bool opened, have_chip, have_flash;
	unsigned lock_depth;        /* device_lock() calls not yet undone */
	uint8_t *seen;              /* device_keep_flash(): the whole flash, or NULL */
	uint64_t seen_writes;       /* flash.stats.write_cmds when it was kept */
};

/* sysfs_root: NULL for /sys/bus/pci. clear_sem: release the semaphores first
 * (--clear-semaphore): the VSEC gateway's and both flash semaphores. */
int device_open(struct device *d, const char *sysfs_root, const char *bdf, bool clear_sem,
		struct cx_status *st);

/* Only up to the chip (no semaphore taken, no flash access): the probe
 * (ops/probe.h) looks at the semaphores before it lets device_open_flash()
 * take them. */
int device_open_chip(struct device *d, const char *sysfs_root, const char *bdf, struct cx_status *st);
/* device_open_chip() through config cycles only, never BAR0: what the tools
 * command interface (dev/tools_hcr.h, the card's settings) is spoken over, as
 * mstflint turns to config cycles for it (mtcr_ul_com.c@4.25 mpci_change_ul). */
int device_open_tools(struct device *d, const char *sysfs_root, const char *bdf, struct cx_status *st);

/* Identify the flash of a device_open_chip() card, under the semaphores. */
int device_open_flash(struct device *d, struct cx_status *st);

/* The same on an already opened config space (tests: an in-process card). */
int device_attach(struct device *d, struct cfg_dev cfg, const struct pci_card *pci, bool clear_sem,
		  struct cx_status *st);

/* device_open_chip() on an already opened config space (tests). */
int device_attach_chip(struct device *d, struct cfg_dev cfg, const struct pci_card *pci, struct cx_status *st);

/* ... and with a BAR0 mapping to try (crmem.h); it is used when it answers like
 * config space on a ConnectX-3 / Pro outside recovery mode, and closed otherwise.
 * Without it: the VSEC gateway when the card has a usable one, else the window
 * (crspace.h). CXFLASH_ACCESS in the environment picks one instead: "config"
 * the 0x58/0x5c window, "vsec" the VSEC gateway, "bar0" the BAR (neither
 * "config" nor "vsec" tries the BAR); for "vsec" and "bar0", a card where the
 * method is not usable is an error instead of a quiet fallback. */
int device_attach_mem(struct device *d, struct cfg_dev cfg, struct crmem mem, const struct pci_card *pci,
		      bool clear_sem, struct cx_status *st);

/* Take the flash semaphores (chip_lock). Calls nest: only the outermost takes
 * them and only its device_unlock() gives them back, so a write that holds
 * them from its plan to its end can call readers (the backup) that lock too. */
int device_lock(struct device *d, struct cx_status *st);
void device_unlock(struct device *d);

/* A write-protected part refused before anything is read (flash_check_writable's
 * CX_EPROTECTED and line), its block-protect bits read under the lock: what a write that
 * offers no unprotect question (restore, sg on an FS3/FS4 card) checks first. */
int device_refuse_protected(struct device *d, struct cx_status *st);

/* Read the image the card holds (devimage.h), under the lock. */
int device_read_image(struct device *d, struct dev_image *img, struct cx_status *st);

/* Only its structure, GUID and IMAGE_INFO sections (devimage_read_meta(), ~2.5 KiB):
 * enough to say who the card is. */
int device_read_image_meta(struct device *d, struct dev_image *img, struct cx_status *st);

/* What q, list and the inventory show (devimage_read_shown(): the meta read and the
 * sections show names, DEVIMAGE_ROM, DEVIMAGE_INI): its unread items are marked, never
 * write from it. */
int device_read_image_shown(struct device *d, struct dev_image *img, unsigned show, struct cx_status *st);

/* A whole read of the flash that a write under the lock held now may plan from,
 * instead of reading the flash again: the backup before a write reads it twice,
 * both reads agreeing, and keeps it here (ops/backup.h). Kept only while a lock
 * is held (taken for the write, write_procedure.h), dropped when the outermost
 * lock is released; device_keep_flash takes over flash (malloc'd, d->flash.size
 * bytes) and frees it if no lock is held. */
void device_keep_flash(struct device *d, uint8_t *flash);

/* The kept flash, handed over (the caller frees it), or NULL: none was kept under
 * this lock, or an erase or program command went to the flash since (a plan from it
 * would be a plan from bytes the flash may no longer hold). */
uint8_t *device_take_flash(struct device *d);

/* The FS3/FS4 image of a ConnectX-4/4 Lx/5 card (devimage_fs3.h), under the lock. */
int device_read_fs3(struct device *d, struct devfs3 *img, struct cx_status *st);
/* Only what q shows (devfs3_read_query()); and that with the device data (devfs3_read_burn()). */
int device_read_fs3_query(struct device *d, struct devfs3 *img, struct cx_status *st);
int device_read_fs3_burn(struct device *d, struct devfs3 *img, struct cx_status *st);
/* ... and [off, off + len) of the flash into it too (devfs3_need()). */
int device_read_fs3_more(struct device *d, struct devfs3 *img, uint32_t off, uint32_t len, struct cx_status *st);

/* Read the whole flash into a malloc'd buffer of d->flash.size bytes. */
int device_read_flash(struct device *d, uint8_t **buf, struct cx_status *st);

void device_close(struct device *d);

#endif
