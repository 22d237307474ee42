/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cfg_sysfs.c — config space through sysfs: pread/pwrite of 4 bytes on
 * DIR/devices/BDF/config, little-endian (hw-access.md §2.3). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dev/cfg.h"

struct sysfs_ctx {
	int fd;
};

static int sysfs_read(void *ctx, unsigned off, uint32_t *val)
{
	struct sysfs_ctx *s = ctx;
	uint8_t b[4];

	if (pread(s->fd, b, 4, off) != 4)
		return -1;
	*val = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return 0;
}

static int sysfs_write(void *ctx, unsigned off, uint32_t val)
{
	struct sysfs_ctx *s = ctx;
	uint8_t b[4] = {(uint8_t)val, (uint8_t)(val >> 8), (uint8_t)(val >> 16), (uint8_t)(val >> 24)};

	return pwrite(s->fd, b, 4, off) == 4 ? 0 : -1;
}

static void sysfs_sleep(void *ctx, unsigned us)
{
	struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};

	(void)ctx;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void sysfs_close(void *ctx)
{
	struct sysfs_ctx *s = ctx;

	close(s->fd);
	free(s);
}

static const struct cfg_ops sysfs_ops = {"sysfs", sysfs_read, sysfs_write, sysfs_sleep, sysfs_close};

int cfg_open_sysfs(struct cfg_dev *d, const char *root, const char *bdf, struct cx_status *st)
{
	char path[4096];
	struct sysfs_ctx *s;

	snprintf(path, sizeof(path), "%s/devices/%s/config", root ? root : CFG_SYSFS_DEFAULT, bdf);
	int fd = open(path, O_RDWR);
	if (fd < 0)
		return cx_fail(st, errno == EACCES || errno == EPERM ? CX_EPERM : CX_ENODEV,
			       "cannot open %s: %s%s", path, strerror(errno),
			       errno == EACCES || errno == EPERM ? " (run as root)" : "");
	if (!(s = malloc(sizeof(*s)))) {
		close(fd);
		return cx_fail(st, CX_ENOMEM, "out of memory");
	}
	s->fd = fd;
	d->ops = &sysfs_ops;
	d->ctx = s;
	snprintf(d->bdf, sizeof(d->bdf), "%s", bdf);
	return CX_OK;
}

void cfg_close(struct cfg_dev *d)
{
	if (d->ops)
		d->ops->close(d->ctx);
	d->ops = NULL;
	d->ctx = NULL;
}
