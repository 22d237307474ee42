/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cfg_sysfs.c — config space through sysfs: pread/pwrite of 4 bytes on
 * DIR/devices/BDF/config, little-endian (hw-access.md §2.3), with each
 * window access under flock() of both of mstflint's lock files for the function. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dev/cfg.h"

#define LOCK_DIR "/tmp/mstflint_lockfiles"    /* mtcr's LOCK_FILE_DIR, hw-access.md §2.3 */
#define LOCK_TRIES 5000                       /* 1 ms apart: give up after about 5 s */

/* mtcr's lock files for one function, LOCK_DIR/<dddd:bb:dd.f>_<kind>
 * (LOCK_FILE_FORMAT, _create_lock in mtcr_ul/mtcr_ul_com.c): `_config` is what
 * mstflint 4.x takes on these cards and 3.x with a /sys/.../config name;
 * mstflint 3.8 with a plain BDF takes `_mem` even when it falls back to config
 * cycles (hw-access.md §9.2 D3). cxflash takes both, so that neither tool can
 * split the other's address/data pair at 0x58/0x5c.
 *
 * Order: `_config`, then `_mem`, always; released in reverse. It cannot deadlock
 * against mstflint: every mstflint holds at most one of them at a time (one
 * fdlock per access path; 4.x swaps fdlock and res_fdlock, never holds both), so
 * it never waits for one while holding the other. Two cxflash take them in the
 * same order, so neither can hold the second while waiting for the first. */
#define SYSFS_LOCKS 2
static const char *const lock_kinds[SYSFS_LOCKS] = {"config", "mem"};

struct sysfs_ctx {
	int fd;
	/* In lock_kinds order; -1: that lock file could not be made (read-only
	 * /tmp): go on without it, as mtcr does. */
	int lock_fd[SYSFS_LOCKS];
};

/* The directory is world-writable like mtcr's, so that tools run by other users
 * share it. CXFLASH_LOCK_DIR moves it (tests, which must not contend with each other). */
static int open_lock(const char *bdf, const char *kind)
{
	char path[4096];
	const char *dir = getenv("CXFLASH_LOCK_DIR");

	if (!dir || !*dir)
		dir = LOCK_DIR;
	if (mkdir(dir, 0777) == 0)
		chmod(dir, 0777);
	snprintf(path, sizeof(path), "%s/%s_%s", dir, bdf, kind);
	return open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
}

static int lock_one(int fd)
{
	struct timespec ms = {0, 1000000};

	if (fd < 0)
		return 0;
	for (int i = 0; i < LOCK_TRIES; i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		nanosleep(&ms, NULL);
	}
	return -1;
}

static void unlock_from(struct sysfs_ctx *s, int n)
{
	while (n-- > 0)
		if (s->lock_fd[n] >= 0)
			flock(s->lock_fd[n], LOCK_UN);
}

static int sysfs_lock(void *ctx)
{
	struct sysfs_ctx *s = ctx;

	for (int i = 0; i < SYSFS_LOCKS; i++)
		if (lock_one(s->lock_fd[i])) {
			unlock_from(s, i);
			return -1;
		}
	return 0;
}

static void sysfs_unlock(void *ctx)
{
	unlock_from(ctx, SYSFS_LOCKS);
}

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
	for (int i = 0; i < SYSFS_LOCKS; i++)
		if (s->lock_fd[i] >= 0)
			close(s->lock_fd[i]);
	free(s);
}

static const struct cfg_ops sysfs_ops = {
	.name = "sysfs", .read = sysfs_read, .write = sysfs_write, .sleep_us = sysfs_sleep,
	.close = sysfs_close, .lock = sysfs_lock, .unlock = sysfs_unlock,
};

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
	for (int i = 0; i < SYSFS_LOCKS; i++)
		s->lock_fd[i] = open_lock(bdf, lock_kinds[i]);
	d->ops = &sysfs_ops;
	d->ctx = s;
	snprintf(d->bdf, sizeof(d->bdf), "%s", bdf);
	return CX_OK;
}

void cfg_close(struct cfg_dev *d)
{
	if (d->ops)
		d->ops->close(d->ctx);
	*d = (struct cfg_dev){0}; /* closed: no ops, no context */
}
