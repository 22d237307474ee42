/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devinfo_order.c — FS4: body, signature, old zeroed; FS3: the new copy, then a re-burn (devinfo_order.h). */
#include <string.h>

#include "ops/devinfo_order.h"
#include "ops/failsafe_fs3.h"

static void phase(const struct failsafe_io *io, const char *name)
{
	if (io->phase)
		io->phase(io->ctx, name);
}

static int fs4(const struct failsafe_io *io, const struct fs3_devinfo_plan *p, struct cx_status *st)
{
	static const uint8_t zero[FS3_DEVINFO_KILL_LEN];
	uint8_t body[FS3_DEVINFO_MAX];
	int rc;

	memcpy(body, p->data, p->len);
	memset(body, 0xFF, FS3_DEVINFO_SIG_LEN);
	phase(io, "writing the new DEV_INFO");
	if ((rc = io->write(io->ctx, p->target, body, p->len, st)))
		return rc;
	phase(io, "writing its signature");
	if ((rc = io->write(io->ctx, p->target, p->data, FS3_DEVINFO_SIG_LEN, st)))
		return rc;
	phase(io, "invalidating the old DEV_INFO");
	for (int i = 0; i < p->nkill && !rc; i++)
		rc = io->write(io->ctx, p->kill[i], zero, sizeof(zero), st);
	return rc;
}

static int fs3(const struct failsafe_io *io, const struct fs3_devinfo_plan *p, const struct fs3_burn *b,
	       struct cx_status *st)
{
	int rc;

	if (!b)
		return cx_fail(st, CX_EIMAGE, "FS3: no re-burn prepared");
	phase(io, "writing the new DEV_INFO");
	if ((rc = io->write(io->ctx, p->target, p->data, p->len, st)))
		return rc;
	return failsafe_fs3_burn(io, b, NULL, st);
}

int devinfo_order_write(const struct failsafe_io *io, const struct fs3_devinfo_plan *p, const struct fs3_burn *b,
			struct cx_status *st)
{
	if (!p->len || p->len > FS3_DEVINFO_MAX)
		return cx_fail(st, CX_EIMAGE, "no DEV_INFO prepared (fs3_devinfo_plan)");
	return p->fmt == FMT_FS4 ? fs4(io, p, st) : fs3(io, p, b, st);
}
