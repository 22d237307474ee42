/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim_cfg.c — config space of an in-process cxsim card. */
#include <stdio.h>

#include "sim_cfg.h"

static void (*hook_fn)(void *ctx, struct cxsim_card *card);
static void *hook_ctx;

void sim_cfg_set_hook(void (*hook)(void *ctx, struct cxsim_card *card), void *ctx)
{
	hook_fn = hook;
	hook_ctx = ctx;
}

static int sim_read(void *ctx, unsigned off, uint32_t *val)
{
	struct cxsim_card *c = ctx;

	if (!cxsim_powered(c))
		return *val = 0xFFFFFFFFu, -1;
	*val = cxsim_cfg_read(c, off, 4);
	if (hook_fn)
		hook_fn(hook_ctx, c);
	return 0;
}

static int sim_write(void *ctx, unsigned off, uint32_t val)
{
	struct cxsim_card *c = ctx;

	if (!cxsim_powered(c))
		return -1;
	cxsim_cfg_write(c, off, val, 4);
	if (hook_fn)
		hook_fn(hook_ctx, c);
	return 0;
}

static void sim_sleep(void *ctx, unsigned us)
{
	cxsim_advance(ctx, (uint64_t)us * 1000);
}

static void sim_close(void *ctx)
{
	(void)ctx; /* the test owns the card */
}

static const struct cfg_ops sim_ops = {"cxsim", sim_read, sim_write, sim_sleep, sim_close, NULL, NULL};

void sim_cfg_attach(struct cfg_dev *d, struct cxsim_card *card, const char *bdf)
{
	d->ops = &sim_ops;
	d->ctx = card;
	snprintf(d->bdf, sizeof(d->bdf), "%s", bdf);
}

static uint32_t bar_read(void *ctx, uint32_t off)
{
	uint32_t v = cxsim_bar0_read(ctx, off);

	if (hook_fn)
		hook_fn(hook_ctx, ctx);
	return v;
}

static void bar_write(void *ctx, uint32_t off, uint32_t val)
{
	cxsim_bar0_write(ctx, off, val);
	if (hook_fn)
		hook_fn(hook_ctx, ctx);
}

static const struct crmem_ops bar_ops = {.name = "bar0", .read = bar_read, .write = bar_write, .close = sim_close};

struct crmem sim_crmem(struct cxsim_card *card)
{
	return (struct crmem){.ops = &bar_ops, .ctx = card};
}
