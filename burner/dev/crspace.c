/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crspace.c — the 0x58/0x5c window (hw-access.md §2.3), the VSEC probe (§2.4)
 * and the BAR0 fast path (§2.2). */
#include "dev/crspace.h"

#define WIN_ADDR 0x58             /* PCICONF_ADDR_OFF, §2.3 */
#define WIN_DATA 0x5C             /* PCICONF_DATA_OFF, §2.3 */
#define WIN_WO_MAGIC 0xBADACCE5u  /* 0x58 read-back of a write-only address register, §2.3 */
#define WIN_WO_READ 0x1           /* WO variant: address bit 0 marks a read, §2.3 */
#define CFG_CAP_PTR 0x34
#define CAP_ID_VENDOR 0x09        /* vendor-specific capability, §2.4 */
#define CAP_MIN 0x40              /* capability pointers live in 0x40..0xff, §2.4 */
#define BAR_OFF 0xFFFFFFFFu       /* BAR read with memory decode off, §2.2 */
#define CR_FLUSH 0xF0380          /* ordering-workaround semaphore, §2.2.1 */
#define SIG_CONNECTX_A0 0x00A00190u /* first-generation ConnectX A0 signature, §2.2.1 */
#define HW_ID_CX3 0x1F5           /* §1.2 */
#define HW_ID_CX3PRO 0x1F7        /* §1.2 */
#define FLUSH_POLLS 10000         /* bound on the 0xf0380 spin (mtcr spins unbounded) */

static int io_fail(struct crspace *cr, const char *what, uint32_t addr, struct cx_status *st)
{
	return cx_fail(st, CX_ENODEV, "%s: config-space %s failed at crspace 0x%05x: the card does not answer",
		       cr->cfg->bdf, what, addr);
}

static int lock_fail(struct crspace *cr, struct cx_status *st)
{
	return cx_fail(st, CX_EBUSY, "%s: another program holds the card's config-space lock "
		       "(%s_config in /tmp/mstflint_lockfiles); is mstflint or cxflash still running?",
		       cr->cfg->bdf, cr->cfg->bdf);
}

static bool probe_vsec(struct crspace *cr)
{
	uint32_t v;
	unsigned ptr, seen = 0;

	if (cfg_read(cr->cfg, CFG_CAP_PTR, &v))
		return false;
	ptr = v & 0xFC;
	while (ptr >= CAP_MIN && seen++ < 48) {
		if (cfg_read(cr->cfg, ptr, &v))
			return false;
		if ((v & 0xFF) == CAP_ID_VENDOR)
			return true;
		ptr = (v >> 8) & 0xFC;
	}
	return false;
}

int cr_open(struct crspace *cr, struct cfg_dev *cfg, struct cx_status *st)
{
	uint32_t v;

	*cr = (struct crspace){.cfg = cfg};
	/* is_wo_pciconf_gw: write an address, read it back, §2.3. */
	if (cfg_lock(cfg))
		return lock_fail(cr, st);
	int bad = cfg_write(cfg, WIN_ADDR, CR_HW_ID) || cfg_read(cfg, WIN_ADDR, &v);
	cfg_unlock(cfg);
	if (bad)
		return io_fail(cr, "access", WIN_ADDR, st);
	cr->wo_addr = v == WIN_WO_MAGIC;
	cr->has_vsec = probe_vsec(cr);
	return CX_OK;
}

/* §2.2.1: posted BAR writes must have landed before a read that depends on them. */
static int mem_flush(struct crspace *cr, struct cx_status *st)
{
	cr->need_flush = false;
	cr->mem.ops->write(cr->mem.ctx, CR_FLUSH, 0);
	for (unsigned i = 0; i < FLUSH_POLLS; i++)
		if (cr->mem.ops->read(cr->mem.ctx, CR_FLUSH) == 0)
			return CX_OK;
	return cx_fail(st, CX_ENODEV, "%s: BAR0 flush register 0x%05x never reads 0: the card does not answer",
		       cr->cfg->bdf, CR_FLUSH);
}

bool cr_use_mem(struct crspace *cr, struct crmem mem)
{
	uint32_t via_mem, via_cfg;

	if (!mem.ops)
		return false;
	via_mem = mem.ops->read(mem.ctx, CR_HW_ID);
	if (via_mem == BAR_OFF || via_mem == WIN_WO_MAGIC)
		return false;
	if (cr_read(cr, CR_HW_ID, &via_cfg, &(struct cx_status){0}) || via_cfg != via_mem)
		return false;
	cr->mem = mem;
	cr->flush_wa = via_mem == SIG_CONNECTX_A0 || (via_mem & 0xFFFF) == HW_ID_CX3 ||
		       (via_mem & 0xFFFF) == HW_ID_CX3PRO;
	cr->need_flush = false;
	return true;
}

const char *cr_method(const struct crspace *cr)
{
	return cr->mem.ops ? cr->mem.ops->name : "config";
}

int cr_read(struct crspace *cr, uint32_t addr, uint32_t *val, struct cx_status *st)
{
	cr->reads++;
	if (cr->mem.ops) {
		if (cr->need_flush && mem_flush(cr, st))
			return st->code;
		*val = cr->mem.ops->read(cr->mem.ctx, addr);
		return CX_OK;
	}
	if (cfg_lock(cr->cfg))
		return lock_fail(cr, st);
	int bad = cfg_write(cr->cfg, WIN_ADDR, cr->wo_addr ? addr | WIN_WO_READ : addr) ||
		  cfg_read(cr->cfg, WIN_DATA, val);
	cfg_unlock(cr->cfg);
	return bad ? io_fail(cr, "read", addr, st) : CX_OK;
}

int cr_write(struct crspace *cr, uint32_t addr, uint32_t val, struct cx_status *st)
{
	int bad;

	cr->writes++;
	if (cr->mem.ops) {
		cr->mem.ops->write(cr->mem.ctx, addr, val);
		cr->need_flush = cr->flush_wa;
		return CX_OK;
	}
	if (cfg_lock(cr->cfg))
		return lock_fail(cr, st);
	/* Write-only address: data first, then the address write runs it, §2.3. */
	if (cr->wo_addr)
		bad = cfg_write(cr->cfg, WIN_DATA, val) || cfg_write(cr->cfg, WIN_ADDR, addr);
	else
		bad = cfg_write(cr->cfg, WIN_ADDR, addr) || cfg_write(cr->cfg, WIN_DATA, val);
	cfg_unlock(cr->cfg);
	return bad ? io_fail(cr, "write", addr, st) : CX_OK;
}

void cr_close(struct crspace *cr)
{
	uint32_t v;

	crmem_close(&cr->mem);   /* the window is parked below, whichever path was used */
	if (cr->cfg && cr->cfg->ops)
		cr_read(cr, CR_HW_ID, &v, &(struct cx_status){0});
}
