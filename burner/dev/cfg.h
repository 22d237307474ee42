/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cfg.h — one PCI function's configuration space, whatever reaches it.
 *
 * The layers above see only dword reads and writes at aligned offsets; how
 * they reach the card is an access method behind struct cfg_ops (pciutils'
 * way): the sysfs `config` file of a real or simulated (FUSE) device, or, in
 * the tests, the card model called in process. Each method also says how the
 * caller should wait, so that polling loops sleep in real time on hardware
 * and in model time in the simulator.
 */
#ifndef CX_CFG_H
#define CX_CFG_H

#include <stdint.h>

#include "util/status.h"

struct cfg_ops {
	const char *name;
	int (*read)(void *ctx, unsigned off, uint32_t *val);    /* 0 ok, -1 failed */
	int (*write)(void *ctx, unsigned off, uint32_t val);
	void (*sleep_us)(void *ctx, unsigned us);
	void (*close)(void *ctx);
	int (*lock)(void *ctx);      /* optional: 0 ok, -1 could not lock */
	void (*unlock)(void *ctx);
};

struct cfg_dev {
	const struct cfg_ops *ops;
	void *ctx;
	char bdf[16];
};

#define CFG_SYSFS_DEFAULT "/sys/bus/pci"  /* libpci's sysfs.path default */

/* Open DIR/devices/BDF/config read-write (the sysfs method). Its lock is
 * flock() of both mstflint lock files of the function, BDF_config then BDF_mem
 * (cfg_sysfs.c says why both and why in that order). */
int cfg_open_sysfs(struct cfg_dev *d, const char *sysfs_root, const char *bdf, struct cx_status *st);

static inline int cfg_read(struct cfg_dev *d, unsigned off, uint32_t *v)
{
	return d->ops->read(d->ctx, off, v);
}

static inline int cfg_write(struct cfg_dev *d, unsigned off, uint32_t v)
{
	return d->ops->write(d->ctx, off, v);
}

static inline void cfg_sleep_us(struct cfg_dev *d, unsigned us)
{
	d->ops->sleep_us(d->ctx, us);
}

static inline int cfg_lock(struct cfg_dev *d)
{
	return d->ops->lock ? d->ops->lock(d->ctx) : 0;
}

static inline void cfg_unlock(struct cfg_dev *d)
{
	if (d->ops->unlock)
		d->ops->unlock(d->ctx);
}

void cfg_close(struct cfg_dev *d);

#endif
