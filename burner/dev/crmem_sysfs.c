/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crmem_sysfs.c — BAR0 through an mmap of sysfs `resource0`, big-endian dwords (hw-access.md §2.2). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dev/cfg.h"
#include "dev/crmem.h"

struct map_ctx {
	volatile uint32_t *base;
};

static uint32_t be32(uint32_t v)
{
	const uint8_t *b = (const uint8_t *)&v;
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static uint32_t map_read(void *ctx, uint32_t off)
{
	struct map_ctx *m = ctx;
	return be32(m->base[off / 4]);
}

static void map_write(void *ctx, uint32_t off, uint32_t val)
{
	struct map_ctx *m = ctx;
	m->base[off / 4] = be32(val);  /* be32() is its own inverse */
}

static void map_close(void *ctx)
{
	struct map_ctx *m = ctx;
	munmap((void *)m->base, CRMEM_SIZE);
	free(m);
}

static const struct crmem_ops map_ops = {
	.name = "bar0", .read = map_read, .write = map_write, .close = map_close,
};

int crmem_open_sysfs(struct crmem *m, const char *root, const char *bdf, struct cx_status *st)
{
	char path[4096];
	struct stat sb;
	struct map_ctx *c;
	void *p;

	m->ops = NULL;
	snprintf(path, sizeof(path), "%s/devices/%s/resource0", root ? root : CFG_SYSFS_DEFAULT, bdf);
	int fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		return cx_fail(st, CX_ENODEV, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &sb) || sb.st_size != (off_t)CRMEM_SIZE) {
		close(fd);
		return cx_fail(st, CX_ENODEV, "%s is not a 1 MiB BAR", path);
	}
	p = mmap(NULL, CRMEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);   /* the mapping keeps the BAR */
	/* A refused mapping (EPERM: the kernel's lockdown, dev/lockdown.h) is CX_EPERM. */
	if (p == MAP_FAILED)
		return cx_fail(st, errno == EPERM || errno == EACCES ? CX_EPERM : CX_ENODEV, "cannot map %s: %s",
			       path, strerror(errno));
	if (!(c = malloc(sizeof(*c)))) {
		munmap(p, CRMEM_SIZE);
		return cx_fail(st, CX_ENOMEM, "out of memory");
	}
	c->base = p;
	m->ops = &map_ops;
	m->ctx = c;
	return CX_OK;
}

void crmem_close(struct crmem *m)
{
	if (m->ops)
		m->ops->close(m->ctx);
	*m = (struct crmem){0}; /* closed: no ops, no context */
}
