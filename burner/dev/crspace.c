/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crspace.c — the VSEC gateway (hw-access.md §2.4), the 0x58/0x5c window (§2.3)
 * and the BAR0 fast path (§2.2). */
#include <errno.h>
#include <string.h>

#include "dev/crspace.h"
#include "util/signals.h"

#define WIN_ADDR 0x58             /* PCICONF_ADDR_OFF, §2.3 */
#define WIN_DATA 0x5C             /* PCICONF_DATA_OFF, §2.3 */
#define WIN_WO_MAGIC 0xBADACCE5u  /* 0x58 read-back of a write-only address register, §2.3 */
#define WIN_WO_READ 0x1           /* WO variant: address bit 0 marks a read, §2.3 */
#define CFG_CAP_PTR 0x34          /* start of the capability list, §2.4 "Finding it" */
#define CAP_ID_VENDOR 0x09        /* vendor-specific capability, §2.4 */
#define CAP_MIN 0x40              /* capability pointers live in 0x40..0xff, §2.4 */
#define CAP_MAX_WALK 48           /* ends a looping list (mtcr keeps a visited set), §2.4 */
#define VSEC_TYPE_SHIFT 24        /* header 31:24: VSC type (MLX_VSC_TYPE_OFFSET), §2.4 */
#define VSC_FUNCTIONAL 0          /* the type tools use; 2 is recovery, §2.4 */
#define VSEC_CTRL 0x04            /* PCI_CTRL_OFFSET: space select 15:0, status 31:29, §2.4 */
#define VSEC_COUNTER 0x08         /* PCI_COUNTER_OFFSET: a read hands out a ticket, §2.4 */
#define VSEC_SEM 0x0C             /* PCI_SEMAPHORE_OFFSET: 0 free, else the owner's ticket, §2.4 */
#define VSEC_ADDR 0x10            /* PCI_ADDR_OFFSET: address 29:0, flag 31, §2.4 */
#define VSEC_DATA 0x14            /* PCI_DATA_OFFSET, §2.4 */
#define VSEC_SPACE_MASK 0xFFFFu   /* CTRL 15:0, §2.4 */
#define VSEC_STATUS_SHIFT 29      /* CTRL 31:29 non-zero: the selected space is supported, §2.4 */
#define VSEC_FLAG (1u << 31)      /* ADDR 31: read data ready (1) / write pending (1), §2.4 */
#define VSEC_ADDR_BITS 0xC0000000u /* must be 0: addresses are 30 bits, §2.4 */
#define AS_ICMD_EXT 0x1           /* address spaces (mtcr's AS_*), §2.4 */
#define AS_CR_SPACE 0x2           /* §2.4 */
#define AS_SEMAPHORE 0xA          /* §2.4 */
#define VSEC_TRIES 2048           /* IFC_MAX_RETRIES: semaphore tries and flag polls, §2.4 */
#define VSEC_SEM_SLEEP_US 1000    /* after finding the semaphore held, §2.4 */
#define VSEC_POLL_SLEEP_EVERY 16  /* the flag poll sleeps 1 ms every 16th poll, §2.4 */
#define VSEC_POLL_SLEEP_US 1000   /* §2.4 */
#define BAR_OFF 0xFFFFFFFFu       /* BAR read with memory decode off, §2.2 */
#define CR_FLUSH 0xF0380          /* ordering-workaround semaphore, §2.2.1 */
#define SIG_CONNECTX_A0 0x00A00190u /* first-generation ConnectX A0 signature, §2.2.1 */
#define HW_ID_CX3 0x1F5           /* §1.2 */
#define HW_ID_CX3PRO 0x1F7        /* §1.2 */
#define FLUSH_POLLS 10000         /* bound on the 0xf0380 spin (mtcr spins unbounded) */

/* A config access the kernel refused (EPERM/EACCES: a lockdown, dev/lockdown.h) is
 * CX_EPERM, anything else a card that does not answer. The callers clear errno
 * before the access, so a stale value is not taken for a refusal. */
static int io_fail(struct crspace *cr, const char *what, uint32_t addr, struct cx_status *st)
{
	if (errno == EPERM || errno == EACCES)
		return cx_fail(st, CX_EPERM, "%s: config-space %s at crspace 0x%05x refused by the kernel: %s",
			       cr->cfg->bdf, what, addr, strerror(errno));
	return cx_fail(st, CX_ENODEV, "%s: config-space %s failed at crspace 0x%05x: the card does not answer",
		       cr->cfg->bdf, what, addr);
}

static int lock_fail(struct crspace *cr, struct cx_status *st)
{
	return cx_fail(st, CX_EBUSY, "%s: another program holds the card's config-space lock "
		       "(%s_config or _mem in /tmp/mstflint_lockfiles); is mstflint or cxflash still running?",
		       cr->cfg->bdf, cr->cfg->bdf);
}

static int vsec_fail(struct crspace *cr, unsigned reg, struct cx_status *st)
{
	if (errno == EPERM || errno == EACCES)   /* refused by the kernel, as in io_fail() */
		return cx_fail(st, CX_EPERM, "%s: config-space access to the VSEC gateway (0x%02x) refused by the "
			       "kernel: %s", cr->cfg->bdf, cr->vsec + reg, strerror(errno));
	return cx_fail(st, CX_ENODEV, "%s: config-space access to the VSEC gateway (0x%02x) failed: "
		       "the card does not answer", cr->cfg->bdf, cr->vsec + reg);
}

static int vsec_busy(struct crspace *cr, struct cx_status *st)
{
	return cx_fail(st, CX_EBUSY, "%s: the VSEC gateway semaphore (config 0x%02x) is held by someone else "
		       "(firmware or another tool); if nothing else is using the card, retry with --clear-semaphore",
		       cr->cfg->bdf, cr->vsec + VSEC_SEM);
}

/* The capability walk of §2.4; 0 when there is no vendor-specific capability. */
static unsigned find_vsec(struct crspace *cr)
{
	uint32_t v;
	unsigned ptr, seen = 0;

	if (cfg_read(cr->cfg, CFG_CAP_PTR, &v))
		return 0;
	ptr = v & 0xFC;
	while (ptr >= CAP_MIN && seen++ < CAP_MAX_WALK) {
		if (cfg_read(cr->cfg, ptr, &v))
			return 0;
		if ((v & 0xFF) == CAP_ID_VENDOR)
			return ptr;
		ptr = (v >> 8) & 0xFC;
	}
	return 0;
}

/* errno cleared first: vsec_fail() reads it. */
static int vsec_rd(struct crspace *cr, unsigned reg, uint32_t *v)
{
	errno = 0;
	return cfg_read(cr->cfg, cr->vsec + reg, v);
}

static int vsec_wr(struct crspace *cr, unsigned reg, uint32_t v)
{
	errno = 0;
	return cfg_write(cr->cfg, cr->vsec + reg, v);
}

/* mtcr_pciconf_cap9_sem: our ticket, written to a free semaphore, must read back. */
static int vsec_take(struct crspace *cr, struct cx_status *st)
{
	uint32_t sem, ticket;

	for (unsigned i = 0; i < VSEC_TRIES; i++) {
		if (vsec_rd(cr, VSEC_SEM, &sem))
			return vsec_fail(cr, VSEC_SEM, st);
		if (sem) {
			cfg_sleep_us(cr->cfg, VSEC_SEM_SLEEP_US);
			continue;
		}
		if (vsec_rd(cr, VSEC_COUNTER, &ticket) || vsec_wr(cr, VSEC_SEM, ticket) ||
		    vsec_rd(cr, VSEC_SEM, &sem))
			return vsec_fail(cr, VSEC_SEM, st);
		/* A ticket of 0 "takes" a free semaphore without holding it (mtcr would
		 * go on): treat it as a lost race and draw again. */
		if (ticket && sem == ticket)
			return CX_OK;
	}
	return vsec_busy(cr, st);
}

static void vsec_release(struct crspace *cr)
{
	vsec_wr(cr, VSEC_SEM, 0);
}

/* mtcr_pciconf_set_addr_space: *ok when the gateway says it supports space. */
static int vsec_select(struct crspace *cr, uint16_t space, bool *ok, struct cx_status *st)
{
	uint32_t v;

	if (vsec_rd(cr, VSEC_CTRL, &v) || vsec_wr(cr, VSEC_CTRL, (v & ~VSEC_SPACE_MASK) | space) ||
	    vsec_rd(cr, VSEC_CTRL, &v))
		return vsec_fail(cr, VSEC_CTRL, st);
	*ok = (v >> VSEC_STATUS_SHIFT) != 0 && (v & VSEC_SPACE_MASK) == space;
	return CX_OK;
}

/* mtcr_pciconf_wait_on_flag: the hardware flips ADDR's flag when it is done. */
static int vsec_wait(struct crspace *cr, bool want, const char *what, uint32_t addr, struct cx_status *st)
{
	uint32_t v;

	for (unsigned i = 1; i <= VSEC_TRIES; i++) {
		if (vsec_rd(cr, VSEC_ADDR, &v))
			return io_fail(cr, what, addr, st);
		if (!!(v & VSEC_FLAG) == want)
			return CX_OK;
		if (i % VSEC_POLL_SLEEP_EVERY == 0)
			cfg_sleep_us(cr->cfg, VSEC_POLL_SLEEP_US);
	}
	return cx_fail(st, CX_ENODEV, "%s: the VSEC gateway never finished the %s at crspace 0x%05x: "
		       "the card does not answer", cr->cfg->bdf, what, addr);
}

/* mtcr_pciconf_rw, with the semaphore held and CR_SPACE selected. */
static int vsec_rw(struct crspace *cr, uint32_t addr, uint32_t *val, bool write, struct cx_status *st)
{
	if (write) {
		if (vsec_wr(cr, VSEC_DATA, *val) || vsec_wr(cr, VSEC_ADDR, addr | VSEC_FLAG))
			return io_fail(cr, "write", addr, st);
		return vsec_wait(cr, false, "write", addr, st);
	}
	if (vsec_wr(cr, VSEC_ADDR, addr))
		return io_fail(cr, "read", addr, st);
	if (vsec_wait(cr, true, "read", addr, st))
		return st->code;
	return vsec_rd(cr, VSEC_DATA, val) ? io_fail(cr, "read", addr, st) : CX_OK;
}

/* mtcr_pciconf_send_pci_cmd_int (n == 1) and block_op_pciconf (n > 1): the semaphore held
 * for the n dwords at addr, addr + 4, ... of one space. Another agent may select another
 * space between two of ours: select each time. */
static int vsec_access(struct crspace *cr, uint16_t space, uint32_t addr, uint32_t *val, unsigned n, bool write,
		       struct cx_status *st)
{
	bool ok;
	int rc;

	if (addr + 4ull * (n ? n - 1 : 0) > (uint64_t)~VSEC_ADDR_BITS)
		return cx_fail(st, CX_EUNSUPPORTED, "%s: %s address 0x%08x does not fit the VSEC gateway",
			       cr->cfg->bdf, space == AS_CR_SPACE ? "crspace" : "an", addr);
	if (cfg_lock(cr->cfg))
		return lock_fail(cr, st);
	sig_defer_begin();
	if ((rc = vsec_take(cr, st)) == CX_OK) {
		if ((rc = vsec_select(cr, space, &ok, st)) == CX_OK && !ok)
			rc = space == AS_CR_SPACE
				     ? cx_fail(st, CX_ENODEV, "%s: the VSEC gateway no longer offers CR_SPACE", cr->cfg->bdf)
				     : cx_fail(st, CX_EUNSUPPORTED, "%s: the VSEC gateway does not offer address space 0x%x",
					       cr->cfg->bdf, space);
		for (unsigned i = 0; rc == CX_OK && i < n; i++)
			rc = vsec_rw(cr, addr + 4 * i, &val[i], write, st);
		vsec_release(cr);
	}
	sig_defer_end();
	cfg_unlock(cr->cfg);
	return rc;
}

/* mtcr_pciconf_open: is there a gateway we may use, and does it have the
 * spaces mtcr insists on (VSEC_MIN_SUPPORT_UL)? Probed under its semaphore. */
static int vsec_open(struct crspace *cr, unsigned flags, struct cx_status *st)
{
	static const uint16_t needed[] = {AS_ICMD_EXT, AS_SEMAPHORE, AS_CR_SPACE};
	uint32_t hdr;
	bool ok = true;
	int rc = CX_OK;

	if (!(cr->vsec = find_vsec(cr))) {
		cr->no_vsec = "the card has no VSEC capability";
		return CX_OK;
	}
	if (cfg_lock(cr->cfg))
		return lock_fail(cr, st);
	sig_defer_begin();
	if (flags & CR_CLEAR_SEM)
		vsec_release(cr);
	if (flags & CR_WINDOW) {
		cr->no_vsec = "the window was asked for";
	} else if (vsec_rd(cr, 0, &hdr)) {
		rc = vsec_fail(cr, 0, st);
	} else if (hdr >> VSEC_TYPE_SHIFT != VSC_FUNCTIONAL) {
		cr->no_vsec = "the card's VSEC is not of the functional type";
	} else if ((rc = vsec_take(cr, st)) == CX_OK) {
		for (unsigned i = 0; rc == CX_OK && ok && i < sizeof(needed) / sizeof(needed[0]); i++)
			rc = vsec_select(cr, needed[i], &ok, st);
		vsec_release(cr);
		cr->use_vsec = rc == CX_OK && ok;
		if (!ok)
			cr->no_vsec = "the card's VSEC lacks the CR_SPACE, ICMD_EXT or SEMAPHORE space";
	}
	sig_defer_end();
	cfg_unlock(cr->cfg);
	return rc;
}

int cr_open(struct crspace *cr, struct cfg_dev *cfg, unsigned flags, struct cx_status *st)
{
	uint32_t v;
	int rc;

	*cr = (struct crspace){.cfg = cfg};
	if ((rc = vsec_open(cr, flags, st)) || cr->use_vsec)
		return rc;
	/* is_wo_pciconf_gw: write an address, read it back, §2.3. */
	if (cfg_lock(cfg))
		return lock_fail(cr, st);
	errno = 0;
	int bad = cfg_write(cfg, WIN_ADDR, CR_HW_ID) || cfg_read(cfg, WIN_ADDR, &v);
	cfg_unlock(cfg);
	if (bad)
		return io_fail(cr, "access", WIN_ADDR, st);
	cr->wo_addr = v == WIN_WO_MAGIC;
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
	if (cr->mem.ops)
		return cr->mem.ops->name;
	return cr->use_vsec ? "vsec" : "config";
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
	if (cr->use_vsec)
		return vsec_access(cr, AS_CR_SPACE, addr, val, 1, false, st);
	if (cfg_lock(cr->cfg))
		return lock_fail(cr, st);
	errno = 0;
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
	if (cr->use_vsec)
		return vsec_access(cr, AS_CR_SPACE, addr, &val, 1, true, st);
	if (cfg_lock(cr->cfg))
		return lock_fail(cr, st);
	errno = 0;
	/* Write-only address: data first, then the address write runs it, §2.3. */
	if (cr->wo_addr)
		bad = cfg_write(cr->cfg, WIN_DATA, val) || cfg_write(cr->cfg, WIN_ADDR, addr);
	else
		bad = cfg_write(cr->cfg, WIN_ADDR, addr) || cfg_write(cr->cfg, WIN_DATA, val);
	cfg_unlock(cr->cfg);
	return bad ? io_fail(cr, "write", addr, st) : CX_OK;
}

int cr_space_access(struct crspace *cr, uint16_t space, uint32_t addr, uint32_t *vals, unsigned n, bool write,
		    struct cx_status *st)
{
	if (!cr->use_vsec)
		return cx_fail(st, CX_EUNSUPPORTED, "%s: address space 0x%x is reached through the VSEC only, "
			       "and %s", cr->cfg->bdf, space, cr->no_vsec ? cr->no_vsec : "it is not in use");
	if (write)
		cr->writes += n;
	else
		cr->reads += n;
	return vsec_access(cr, space, addr, vals, n, write, st);
}

int cr_block(struct crspace *cr, uint32_t addr, uint32_t *vals, unsigned n, bool write, struct cx_status *st)
{
	if (cr->use_vsec && !cr->mem.ops) {
		if (write)
			cr->writes += n;
		else
			cr->reads += n;
		return vsec_access(cr, AS_CR_SPACE, addr, vals, n, write, st);
	}
	for (unsigned i = 0; i < n; i++) {
		int rc = write ? cr_write(cr, addr + 4 * i, vals[i], st) : cr_read(cr, addr + 4 * i, &vals[i], st);
		if (rc)
			return rc;
	}
	return CX_OK;
}

int cr_ticket(struct crspace *cr, uint32_t *ticket, struct cx_status *st)
{
	int rc = CX_OK;

	if (!cr->use_vsec)
		return cx_fail(st, CX_EUNSUPPORTED, "%s: no VSEC to draw a ticket from", cr->cfg->bdf);
	if (cfg_lock(cr->cfg))
		return lock_fail(cr, st);
	*ticket = 0;
	for (unsigned i = 0; rc == CX_OK && !*ticket && i < VSEC_TRIES; i++)
		if (vsec_rd(cr, VSEC_COUNTER, ticket))
			rc = vsec_fail(cr, VSEC_COUNTER, st);
	cfg_unlock(cr->cfg);
	if (rc == CX_OK && !*ticket)
		rc = cx_fail(st, CX_ENODEV, "%s: the VSEC counter reads 0", cr->cfg->bdf);
	return rc;
}

void cr_close(struct crspace *cr)
{
	uint32_t v;

	crmem_close(&cr->mem);   /* the window is parked below, whichever path was used */
	if (cr->cfg && cr->cfg->ops)
		cr_read(cr, CR_HW_ID, &v, &(struct cx_status){0});
}
