/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gateway.c — one flash-gateway transaction (hw-access.md §3.2, cntx_exec_cmd*). */
#include "flash/gateway.h"

/* What every command word of a generation carries, §3.1 and §3.13. */
static const uint32_t gen_bits[] = {
	[CHIP_GW_GEN4] = FL_GW_FLASH_ENABLE,
	[CHIP_GW_GEN5] = CHIP_GW_LOCK, /* cntx_exec_cmd keeps the lock in the word (mflash_gw.c, 4.21) */
};

void fl_gw_init(struct fl_gw *gw, struct crspace *cr, enum chip_gw gen)
{
	*gw = (struct fl_gw){.cr = cr, .always = gen_bits[gen]};
}

/* MSIZE for a data phase of len bytes; -1 if len is not 1, 2, 4, 8 or 16. */
static int msize(unsigned len)
{
	for (int m = 0; (1u << m) <= FL_GW_DATA_MAX; m++)
		if (len == 1u << m)
			return m;
	return -1;
}

static int bad_len(struct fl_gw *gw, unsigned len, struct cx_status *st)
{
	return cx_fail(st, CX_EFLASH, "%s: internal error: gateway data phase of %u bytes",
		       gw->cr->cfg->bdf, len);
}

/* gw_wait_ready: at most FLASH_CMD_CNT reads of the command word, no sleep
 * (§3.2 step 6); *v is the last word read. cmd names the command in the error. */
static int wait_ready(struct fl_gw *gw, uint32_t cmd, uint32_t *v, struct cx_status *st)
{
	int rc;

	for (unsigned i = 0; i < FL_GW_BUSY_POLLS; i++) {
		gw->busy_polls++;
		if ((rc = cr_read(gw->cr, FL_GW_CMD, v, st)))
			return rc;
		if (!(*v & FL_GW_BUSY))
			return CX_OK;
	}
	return cx_fail(st, CX_EFLASH,
		       "%s: flash gateway stuck busy: command 0x%08x still running after %u polls "
		       "(the flash controller does not answer; a power cycle of the host may be needed)",
		       gw->cr->cfg->bdf, cmd, FL_GW_BUSY_POLLS);
}

int fl_gw_exec(struct fl_gw *gw, uint32_t cmd, struct cx_status *st)
{
	uint32_t v;
	int rc;

	/* BUSY starts it; the generation's bit: FLASH_ENABLE, or the 5th-gen lock we hold
	 * (§3.1, §3.2 steps 1-4, §3.13). */
	cmd |= FL_GW_BUSY | gw->always | (gw->bank & FL_GW_BANK_MASK) << FL_GW_BANK_SHIFT;
	gw->transactions++;
	if ((rc = cr_write(gw->cr, FL_GW_CMD, cmd, st)))
		return rc;
	return wait_ready(gw, cmd, &v, st);
}

int fl_gw_get(struct fl_gw *gw, uint32_t cmd, uint32_t addr, uint8_t *buf, unsigned len,
	      struct cx_status *st)
{
	int m = msize(len);
	uint32_t data[FL_GW_DATA_MAX / 4];
	int rc;

	if (m < 0)
		return bad_len(gw, len, st);
	if ((cmd & FL_GW_ADDR_PHASE) && (rc = cr_write(gw->cr, FL_GW_ADDR, addr, st)))
		return rc;
	cmd |= FL_GW_READ_OP | FL_GW_DATA_PHASE | (uint32_t)m << FL_GW_MSIZE_SHIFT;
	if ((rc = fl_gw_exec(gw, cmd, st)))
		return rc;
	/* The data registers in one block access, as mflash_gw.c 4.21 reads them. Big-endian
	 * dwords: flash byte 0 is data0[31:24] (§3.1 "Data byte order"). */
	unsigned n = (len + 3) / 4;
	if ((rc = cr_block(gw->cr, FL_GW_DATA0, data, n, false, st)))
		return rc;
	for (unsigned i = 0; i < len; i++)
		buf[i] = (uint8_t)(data[i / 4] >> (24 - 8 * (i % 4)));
	return CX_OK;
}

int fl_gw_set(struct fl_gw *gw, uint32_t cmd, uint32_t addr, const uint8_t *buf, unsigned len,
	      struct cx_status *st)
{
	int m = len ? msize(len) : 0;
	int rc;

	if (m < 0)
		return bad_len(gw, len, st);
	/* One block access for the data registers, as mflash_gw.c 4.21 writes them. */
	uint32_t data[FL_GW_DATA_MAX / 4] = {0};
	for (unsigned i = 0; i < len; i++)
		data[i / 4] |= (uint32_t)buf[i] << (24 - 8 * (i % 4));
	if (len && (rc = cr_block(gw->cr, FL_GW_DATA0, data, (len + 3) / 4, true, st)))
		return rc;
	if ((cmd & FL_GW_ADDR_PHASE) && (rc = cr_write(gw->cr, FL_GW_ADDR, addr, st)))
		return rc;
	if (len)
		cmd |= FL_GW_DATA_PHASE | (uint32_t)m << FL_GW_MSIZE_SHIFT;
	return fl_gw_exec(gw, cmd, st);
}

int fl_gw_end_command(struct fl_gw *gw, struct cx_status *st)
{
	return fl_gw_exec(gw, 0, st);
}

int fl_gw_end_left_command(struct fl_gw *gw, struct cx_status *st)
{
	uint32_t v;
	int rc;

	if ((rc = cr_read(gw->cr, FL_GW_CMD, &v, st)))
		return rc;
	if ((v & FL_GW_BUSY) && (rc = wait_ready(gw, v, &v, st)))
		return rc;
	return v & FL_GW_CS_HOLD ? fl_gw_end_command(gw, st) : CX_OK;
}
