/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crspace.c — the 0x58/0x5c window (hw-access.md §2.3) and the VSEC probe (§2.4). */
#include "dev/crspace.h"

#define WIN_ADDR 0x58             /* PCICONF_ADDR_OFF, §2.3 */
#define WIN_DATA 0x5C             /* PCICONF_DATA_OFF, §2.3 */
#define WIN_WO_MAGIC 0xBADACCE5u  /* 0x58 read-back of a write-only address register, §2.3 */
#define WIN_WO_READ 0x1           /* WO variant: address bit 0 marks a read, §2.3 */
#define CFG_CAP_PTR 0x34
#define CAP_ID_VENDOR 0x09        /* vendor-specific capability, §2.4 */
#define CAP_MIN 0x40              /* capability pointers live in 0x40..0xff, §2.4 */

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

int cr_read(struct crspace *cr, uint32_t addr, uint32_t *val, struct cx_status *st)
{
	cr->reads++;
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

	if (cr->cfg && cr->cfg->ops)
		cr_read(cr, CR_HW_ID, &v, &(struct cx_status){0});
}
