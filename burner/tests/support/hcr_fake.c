/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hcr_fake.c — test-only tools-HCR card (see hcr_fake.h). */
#include <string.h>

#include "hcr_fake.h"
#include "util/bytes.h"

#define WIN_ADDR 0x58
#define WIN_DATA 0x5C
#define HW_ID 0xF0014
#define FW_VER 0x1F064
#define SEM 0xF03BC
#define HCR 0x80780
#define CR_MBOX 0xE0000
#define MBOX_SIZE 288
#define GO (1u << 23)

void hcr_fake_init(struct hcr_fake *f)
{
	memset(f, 0, sizeof(*f));
	f->hw_id = 0x000101F5;
	f->fw[0] = 2, f->fw[1] = 42, f->fw[2] = 5000;
	f->ports = 2;
	f->cr_mbox = true;
	f->caps = 0x3F;
	f->max_funcs = 65;            /* 64 VFs */
	f->max_bar = 10;
	f->def_bar = 3;
	/* global: every CX3 global support bit and IP_VER support; defaults: 8 VFs, phy mode 1 */
	f->def_global[0] = 1u << 17 | 1u << 16 | 1u << 15 | 1u << 14;
	f->def_global[1] = 1u << 21 | 1u << 22 | 8;
	for (int p = 0; p < 2; p++) {
		f->def_port[p][0] = 1u << 17;                       /* force mode */
		f->def_port[p][1] = 1u << 29 | 2u << 25 | 1u << 16 | 3u << 20; /* ROM on, VPI default ETH, PXE, 3 retries */
		f->def_port[p][2] = 1u << 28 | 0xFFFF;              /* IB boot settings; pkey */
		f->def_port[p][3] = 2u << 12;                       /* phy XFI */
	}
}

struct fake_record *hcr_fake_record(struct hcr_fake *f, uint16_t type, uint8_t port)
{
	for (unsigned i = 0; i < f->nrec; i++)
		if (f->rec[i].type == type && f->rec[i].port == port)
			return &f->rec[i];
	return NULL;
}

static void put_dw(struct hcr_fake *f, unsigned off, uint32_t v)
{
	put_be32(f->mbox + off, v);
}

static unsigned reg_access(struct hcr_fake *f)
{
	uint8_t *r = f->mbox + 20;   /* after the operation TLV and the register TLV header */
	uint16_t reg = (uint16_t)(be32(f->mbox + 4) >> 16);
	unsigned method = be32(f->mbox + 4) >> 8 & 0x7F;
	uint16_t type = (uint16_t)be32(r);
	unsigned ndw = be32(r) >> 18 & 0xFFF;
	uint8_t port = (uint8_t)(be32(r + 4) >> 16);
	struct fake_record *x = hcr_fake_record(f, type, port);

	f->reg_accesses++;
	if (f->reg_status)
		return f->reg_status;
	if (reg == 0x9029 && method == 2) {
		f->nrec = 0;
		f->nv_writes++;
		return 0;
	}
	if (reg != 0x9024 || ndw > 8)
		return 4;
	if (method == 1) {
		if (!x)
			return 8;
		for (unsigned i = 0; i < ndw; i++)
			put_be32(r + 8 + 4 * i, x->dw[i]);
		return 0;
	}
	if (!x && f->nrec < FAKE_RECORDS)
		x = &f->rec[f->nrec++];
	*x = (struct fake_record){.type = type, .port = port, .ndw = (uint8_t)ndw};
	for (unsigned i = 0; i < ndw; i++)
		x->dw[i] = be32(r + 8 + 4 * i); /* big-endian, as mstconfig sends them (dev/nv_reg.h) */
	f->nv_writes++;
	return 0;
}

static unsigned run(struct hcr_fake *f, unsigned op, unsigned mod, uint32_t in_mod)
{
	unsigned off = in_mod * 4;

	if (f->status)
		return f->status;
	switch (op) {
	case 0x70:
		f->mbox_writes++;
		if (off + 8 > MBOX_SIZE)
			return 7;
		put_dw(f, off, f->hcr[1]);
		put_dw(f, off + 4, f->hcr[0]);
		return 0;
	case 0x71:
		f->mbox_reads++;
		if (off + 8 > MBOX_SIZE)
			return 7;
		f->hcr[4] = be32(f->mbox + off);
		f->hcr[3] = be32(f->mbox + off + 4);
		return 0;
	case 0x03:
		memset(f->mbox, 0, MBOX_SIZE);
		put_dw(f, 0xC0, f->caps);
		put_dw(f, 0x38, f->max_funcs & 0xFF);
		put_dw(f, 0xC8, f->max_bar << 3);
		put_dw(f, 0x48, (f->def_bar - 1) << 16);
		return 0;
	case 0x73:
		memset(f->mbox, 0, MBOX_SIZE);
		if (mod > f->ports)
			return 7;
		for (unsigned i = 0; i < (mod ? 7u : 5u); i++)
			put_dw(f, 4 * i, mod ? f->def_port[mod - 1][i] : f->def_global[i]);
		return 0;
	case 0x3B: {
		unsigned s = reg_access(f);
		put_dw(f, 0, (be32(f->mbox) & ~(0x7Fu << 8)) | s << 8);
		return 0;
	}
	default:
		return 2;
	}
}

static uint32_t cr_read(struct hcr_fake *f, uint32_t a)
{
	if (a == HW_ID)
		return f->hw_id;
	if (a == FW_VER)
		return (uint32_t)f->fw[0] << 16;
	if (a == FW_VER + 4)
		return (uint32_t)f->fw[1] << 16 | f->fw[2];
	if (a == SEM) {
		uint32_t v = f->sem_held ? 1 : f->sem;
		f->sem = 1;
		return v;
	}
	if (a >= HCR && a < HCR + 28)
		return f->hcr[(a - HCR) / 4];
	if (a >= CR_MBOX && a < CR_MBOX + MBOX_SIZE && f->cr_mbox)
		return be32(f->mbox + (a - CR_MBOX));
	return 0;
}

static void cr_write(struct hcr_fake *f, uint32_t a, uint32_t v)
{
	if (a == SEM) {
		f->sem = v ? f->sem : 0;
	} else if (a >= CR_MBOX && a < CR_MBOX + MBOX_SIZE && f->cr_mbox) {
		put_dw(f, a - CR_MBOX, v);
	} else if (a >= HCR && a < HCR + 28) {
		f->hcr[(a - HCR) / 4] = v;
		if (a == HCR + 24 && (v & GO)) {
			f->commands++;
			if (f->go_stuck)
				return;
			unsigned s = run(f, v & 0xFFF, v >> 12 & 0xF, f->hcr[2]);
			f->hcr[6] = (v & ~GO & 0x00FFFFFFu) | s << 24;
		}
	}
}

static int rd(void *ctx, unsigned off, uint32_t *val)
{
	struct hcr_fake *f = ctx;

	*val = off == WIN_ADDR ? f->win_addr : off == WIN_DATA ? cr_read(f, f->win_addr) : 0;
	return 0;
}

static int wr(void *ctx, unsigned off, uint32_t val)
{
	struct hcr_fake *f = ctx;

	if (off == WIN_ADDR)
		f->win_addr = val;
	else if (off == WIN_DATA)
		cr_write(f, f->win_addr, val);
	return 0;
}

static void nap(void *ctx, unsigned us)
{
	((struct hcr_fake *)ctx)->slept_us += us;
}

static void shut(void *ctx)
{
	(void)ctx;
}

static const struct cfg_ops fake_ops = {"hcr-fake", rd, wr, nap, shut, NULL, NULL};

void hcr_fake_cfg(struct cfg_dev *d, struct hcr_fake *f)
{
	*d = (struct cfg_dev){.ops = &fake_ops, .ctx = f};
	strcpy(d->bdf, "0000:01:00.0");
}
