/* SPDX-License-Identifier: GPL-2.0-or-later */
/* icmd.c — ICMD through the VSEC and ACCESS_REGISTER over it (hw-access.md §3.14). */
#include <string.h>

#include "dev/icmd.h"
#include "dev/reg_status.h"
#include "util/bytes.h"

#define ICMD_CTRL 0x0                 /* VCR_CTRL_ADDR: go 0, exmb 1, status 15:8, opcode 31:16 */
#define ICMD_MBOX_SIZE_ADDR 0x1000    /* VCR_CMD_SIZE_ADDR */
#define ICMD_MBOX 0x100000            /* VCR_CMD_ADDR */
#define ICMD_SEM 0x0                  /* VCR_SEMAPHORE62, in the SEMAPHORE space */
#define CTRL_GO 0x1u                  /* BUSY_BITOFF 0 */
#define CTRL_EXMB 0x2u                /* EXMB_BITOFF 1: DMA mailbox, never used here */
#define CTRL_STATUS_SHIFT 8           /* STATUS_BITOFF, 8 bits */
#define CTRL_OPCODE_SHIFT 16          /* OPCODE_BITOFF, 16 bits */
#define SEM_TRIES 256                 /* icmd_take_semaphore_com */
#define SEM_SLEEP_US 25000            /* mstflint sleeps rand() % 50 ms; a fixed mean keeps --replay exact */
#define GO_POLLS 5120                 /* ICMD_DEFAULT_TIMEOUT */
#define GO_BUSY_POLLS 5               /* polls before the first sleep (i > 5, set_and_poll_on_busy_bit) */
#define GO_SLEEP_MAX_MS 8             /* exponential backoff up to 8 ms */
#define OP_ACCESS_REG 0x9001          /* FLASH_REG_ACCESS, mtcr_ul/mtcr_icmd_cif.h@4.21 */
#define OP_TLV_HDR 0x08040000u        /* type 1 (31:27), length 4 dwords (26:16): OperationTlv */
#define OP_TLV_SIZE 16
#define REG_TLV_TYPE 3u               /* TLV_REG, type 31:27, length 26:16 in dwords */
#define OP_CLASS_REG 1u               /* MAD_CLASS_REG_ACCESS */
#define OP_STATUS_SHIFT 8             /* operation TLV dword 0: status 14:8 */
#define OP_STATUS_MASK 0x7Fu

static int io_fail(struct icmd_link *ic, struct cx_status *st)
{
	ic->result = ICMD_E_IO;
	return st->code;
}

static int sem_take(struct icmd_link *ic, struct cx_status *st)
{
	uint32_t v;

	for (unsigned i = 0; i < SEM_TRIES; i++) {
		v = ic->ticket;
		if (cr_space_access(ic->cr, CR_AS_SEMAPHORE, ICMD_SEM, &v, 1, true, st) ||
		    cr_space_access(ic->cr, CR_AS_SEMAPHORE, ICMD_SEM, &v, 1, false, st))
			return io_fail(ic, st);
		if (v == ic->ticket)
			return CX_OK;
		cfg_sleep_us(ic->cr->cfg, SEM_SLEEP_US);
	}
	ic->result = ICMD_E_SEM;
	return cx_fail(st, CX_EBUSY, "%s: the firmware's command semaphore stays held by another tool "
		       "(value 0x%x): close it, or reboot", ic->cr->cfg->bdf, v);
}

static void sem_give(struct icmd_link *ic)
{
	uint32_t zero = 0;

	cr_space_access(ic->cr, CR_AS_SEMAPHORE, ICMD_SEM, &zero, 1, true, &(struct cx_status){0});
}

static int ctrl_rw(struct icmd_link *ic, uint32_t *v, bool write, struct cx_status *st)
{
	return cr_space_access(ic->cr, CR_AS_ICMD, ICMD_CTRL, v, 1, write, st) ? io_fail(ic, st) : CX_OK;
}

/* The mailbox as dwords, each the big-endian reading of four mailbox bytes
 * (mwrite_buffer_ul / mread_buffer_ul). */
static int mbox_rw(struct icmd_link *ic, uint8_t *mbox, size_t len, bool write, struct cx_status *st)
{
	uint32_t dw[ICMD_MBOX_MAX / 4];
	unsigned n = (unsigned)((len + 3) / 4);

	if (!n)
		return CX_OK;
	if (write) {
		uint8_t pad[ICMD_MBOX_MAX] = {0};

		memcpy(pad, mbox, len);
		for (unsigned i = 0; i < n; i++)
			dw[i] = be32(pad + 4 * i);
	}
	if (cr_space_access(ic->cr, CR_AS_ICMD, ICMD_MBOX, dw, n, write, st))
		return io_fail(ic, st);
	if (!write)
		for (unsigned i = 0; i < n; i++) {
			uint8_t b[4];

			put_be32(b, dw[i]);
			memcpy(mbox + 4 * i, b, len - 4 * i < 4 ? len - 4 * i : 4);
		}
	return CX_OK;
}

int icmd_open(struct icmd_link *ic, struct crspace *cr, uint32_t ready_reg, uint8_t ready_bit, struct cx_status *st)
{
	int rc;

	*ic = (struct icmd_link){.cr = cr, .ready_reg = ready_reg, .ready_bit = ready_bit};
	if (!cr->use_vsec)
		return cx_fail(st, CX_EUNSUPPORTED, "%s: the running firmware is reached through the VSEC's ICMD "
			       "space, and %s", cr->cfg->bdf, cr->no_vsec ? cr->no_vsec : "the VSEC is not in use");
	if ((rc = cr_ticket(cr, &ic->ticket, st)))
		return io_fail(ic, st);
	if ((rc = sem_take(ic, st)))
		return rc;
	rc = cr_space_access(cr, CR_AS_ICMD, ICMD_MBOX_SIZE_ADDR, &ic->mbox_size, 1, false, st);
	sem_give(ic);
	if (rc)
		return io_fail(ic, st);
	if (ic->mbox_size < REG_ACCESS_HDRS || ic->mbox_size > ICMD_MBOX_MAX)
		ic->mbox_size = ic->mbox_size < REG_ACCESS_HDRS ? 0 : ICMD_MBOX_MAX;
	return CX_OK;
}

/* icmd_is_cmd_ifc_ready: read before every command, as mstflint's non-enhanced path. */
static int ready(struct icmd_link *ic, struct cx_status *st)
{
	uint32_t v;

	if (cr_read(ic->cr, ic->ready_reg, &v, st))
		return io_fail(ic, st);
	if (!(v >> ic->ready_bit & 1))
		return CX_OK;
	ic->result = ICMD_E_NOT_READY;
	return cx_fail(st, CX_EFWDOWN, "%s: the firmware is not ready for commands (crspace 0x%05x bit %u: "
		       "static configuration not done)", ic->cr->cfg->bdf, ic->ready_reg, ic->ready_bit);
}

static const char *status_text(unsigned s)
{
	switch (s) {
	case ICMD_ST_BAD_OPCODE: return "invalid opcode";
	case ICMD_ST_BAD_CMD: return "invalid command";
	case ICMD_ST_OPERATIONAL: return "operational error";
	case ICMD_ST_BAD_PARAM: return "bad parameter";
	case ICMD_ST_BUSY: return "busy";
	case ICMD_ST_ICM_NA: return "ICM not available";
	case ICMD_ST_WRITE_PROTECT: return "write protected";
	default: return "unknown status";
	}
}

/* set_and_poll_on_busy_bit: go set, then polls until it drops. */
static int go_and_wait(struct icmd_link *ic, uint32_t ctrl, uint32_t *out, struct cx_status *st)
{
	unsigned wait_ms = 1;

	ctrl |= CTRL_GO;
	if (ctrl_rw(ic, &ctrl, true, st))
		return st->code;
	for (unsigned i = 1; i <= GO_POLLS; i++) {
		if (i > GO_BUSY_POLLS) {
			cfg_sleep_us(ic->cr->cfg, wait_ms * 1000);
			if (wait_ms < GO_SLEEP_MAX_MS)
				wait_ms *= 2;
		}
		if (ctrl_rw(ic, out, false, st))
			return st->code;
		if (!(*out & CTRL_GO))
			return CX_OK;
	}
	ic->result = ICMD_E_TIMEOUT;
	return cx_fail(st, CX_ETOOLS, "%s: the firmware never finished command 0x%04x (%u polls): it may "
		       "be hung; a cold restart (power off) brings it back", ic->cr->cfg->bdf,
		       ctrl >> CTRL_OPCODE_SHIFT, GO_POLLS);
}

int icmd_send(struct icmd_link *ic, uint16_t opcode, uint8_t *mbox, size_t wlen, size_t rlen, struct cx_status *st)
{
	uint32_t ctrl;
	int rc;

	ic->result = ICMD_OK;
	if (wlen > ic->mbox_size || rlen > ic->mbox_size) {
		ic->result = ICMD_E_SIZE;
		return cx_fail(st, CX_EUNSUPPORTED, "%s: a %zu-byte command does not fit the firmware's %u-byte "
			       "mailbox", ic->cr->cfg->bdf, wlen > rlen ? wlen : rlen, ic->mbox_size);
	}
	if ((rc = ready(ic, st)) || (rc = sem_take(ic, st)))
		return rc;
	ic->commands++;
	/* set_opcode: read-modify-write, exmb 0 (no DMA mailbox). */
	if (!(rc = ctrl_rw(ic, &ctrl, false, st))) {
		ctrl = (ctrl & 0xFFFFu & ~CTRL_EXMB) | (uint32_t)opcode << CTRL_OPCODE_SHIFT;
		rc = ctrl_rw(ic, &ctrl, true, st);
	}
	if (!rc)
		rc = mbox_rw(ic, mbox, wlen, true, st);
	if (!rc && !(rc = ctrl_rw(ic, &ctrl, false, st)) && (ctrl & CTRL_GO)) {
		ic->result = ICMD_E_GO_BEFORE;
		rc = cx_fail(st, CX_EBUSY, "%s: the firmware is still busy with another tool's command",
			     ic->cr->cfg->bdf);
	}
	if (!rc)
		rc = go_and_wait(ic, ctrl, &ctrl, st);
	if (!rc && (ctrl >> CTRL_STATUS_SHIFT & 0xFF)) {
		ic->result = ctrl >> CTRL_STATUS_SHIFT & 0xFF;
		rc = cx_fail(st, ic->result == ICMD_ST_BUSY ? CX_EBUSY : CX_ETOOLS,
			     "%s: the firmware refused command 0x%04x: %s (ICMD status %u)", ic->cr->cfg->bdf,
			     opcode, status_text(ic->result), ic->result);
	}
	if (!rc)
		rc = mbox_rw(ic, mbox, rlen, false, st);
	sem_give(ic);
	return rc;
}

/* mreg_send_raw: the operation TLV, the register TLV header, the register. */
int icmd_reg(struct icmd_link *ic, uint16_t reg_id, unsigned method, uint8_t *reg, size_t reg_size, size_t w_size,
	     size_t r_size, struct cx_status *st)
{
	uint8_t mbox[ICMD_MBOX_MAX] = {0};
	unsigned s;

	ic->reg_status = 0;
	if (reg_size + REG_ACCESS_HDRS > sizeof(mbox) || w_size > reg_size || r_size > reg_size) {
		ic->result = ICMD_E_SIZE;
		return cx_fail(st, CX_EUNSUPPORTED, "register 0x%04x: %zu bytes do not fit a mailbox", reg_id,
			       reg_size);
	}
	put_be32(mbox, OP_TLV_HDR);
	put_be32(mbox + 4, (uint32_t)reg_id << 16 | (method & 0x7Fu) << 8 | OP_CLASS_REG);
	put_be32(mbox + OP_TLV_SIZE, REG_TLV_TYPE << 27 | (uint32_t)((reg_size + 4) >> 2) << 16);
	memcpy(mbox + REG_ACCESS_HDRS, reg, reg_size);
	if (icmd_send(ic, OP_ACCESS_REG, mbox, w_size + REG_ACCESS_HDRS, r_size + REG_ACCESS_HDRS, st))
		return st->code;
	memcpy(reg, mbox + REG_ACCESS_HDRS, r_size);
	/* The firmware answers in place: an operation TLV that is not ours is no answer. */
	if (be32(mbox + 4) >> 16 != reg_id) {
		ic->result = ICMD_E_IO;
		return cx_fail(st, CX_ETOOLS, "%s: register 0x%04x: the firmware's answer names register 0x%04x",
			       ic->cr->cfg->bdf, reg_id, be32(mbox + 4) >> 16);
	}
	if ((s = be32(mbox) >> OP_STATUS_SHIFT & OP_STATUS_MASK)) {
		ic->result = ICMD_E_REG;
		ic->reg_status = s;
		return cx_fail(st, s == 1 ? CX_EBUSY : CX_ETOOLS, "%s: register 0x%04x %s: %s (status 0x%x)",
			       ic->cr->cfg->bdf, reg_id, method == REG_METHOD_GET ? "read" : "write",
			       reg_status_text(s), s);
	}
	return CX_OK;
}
