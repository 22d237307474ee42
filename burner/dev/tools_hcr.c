/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tools_hcr.c — commands to the running firmware through the tools HCR (see tools_hcr.h). */
#include <string.h>

#include "dev/tools_hcr.h"
#include "util/bytes.h"

#define HCR_ADDR 0x80780        /* TOOLS_HCR_ADDR, mtcr_ul/mtcr_tools_cif.c@4.25; 7 dwords, §8 */
#define HCR_DWORDS 7            /* CMD_IF_SIZE 28 bytes */
#define HCR_IN_H 0              /* dword 0: in_param high half */
#define HCR_IN_L 1              /* dword 1: in_param low half */
#define HCR_IN_MOD 2            /* dword 2: input_modifier */
#define HCR_OUT_H 3             /* dword 3: out_param high half */
#define HCR_OUT_L 4             /* dword 4: out_param low half */
#define HCR_TOKEN 5             /* dword 5: token in bits 31:16 */
#define HCR_CTRL 6              /* dword 6: opcode, modifier, e, go, status */
#define HCR_TOKEN_SHIFT 16
/* The token mstflint sends: tools_cmdif_pack takes cmd->token from a zeroed
 * struct, so always 0 (mtcr_ul/mtcr_tools_cif.c@4.25); the firmware's use of
 * it here is not public, so we send what every mstconfig sent. */
#define HCR_TOKEN_VALUE 0
#define HCR_OP_MASK 0xFFFu      /* opcode 11:0 */
#define HCR_OPMOD_SHIFT 12      /* opcode_modifier 15:12 */
#define HCR_OPMOD_MASK 0xFu
#define HCR_GO (1u << 23)       /* go bit, §8 */
#define HCR_STATUS_SHIFT 24     /* status 31:24 */
#define HCR_SEM 0xF03BC         /* TOOLS_HCR_SEM ("sem47"), read 0 = ours, write 0 = free, §8 */
#define HCR_SEM_TRIES 1024      /* TOOLS_SEM_TRIES */
/* Between tries upstream sleeps rand() % 5 ms; we sleep i % 5 ms, the same
 * spread without randomness, so that a --replay reproduces every sleep. */
#define HCR_SEM_SPREAD_MS 5
#define HCR_GO_POLLS 2000       /* CMD_IF_WAIT_GO */
/* Polls before the first sleep. Upstream sleeps after 5 ("if (i > 5)"): its first sleep is
 * 1 ms, so a command that takes 50 us (a register read) costs 1 ms, twenty times itself. We
 * poll 64 times first (128 config accesses through the window: about 0.1 to 0.5 ms of bus
 * time, nothing the firmware notices), then sleep as upstream does. Only the wait changes,
 * not what is sent. How long commands take on real cards is UNCONFIRMED (hw-access.md §8). */
#define HCR_GO_SPIN 64
#define HCR_GO_MAX_SLEEP_MS 8   /* exponential backoff up to 8 ms */
#define CR_MBOX_ADDR 0xE0000    /* CR_MBOX_ADDR, mtcr_ul/mtcr_tools_cif.c@4.25 */
#define CR_MBOX_MAGIC 0x0BADB00Fu /* MAGIC of tools_cmdif_is_cr_mbox_supported */
#define REG_ACCESS_CR_MBOX 1    /* input_modifier of REG_ACCESS with the CR mailbox (tools_cmdif_reg_access) */
#define MBOX_CHUNK 8            /* 0x70/0x71 move a quad word, input_modifier = dword offset */

void hcr_init(struct hcr *h, struct crspace *cr)
{
	*h = (struct hcr){.cr = cr};
}

const char *hcr_result_text(unsigned r)
{
	switch (r) {
	case HCR_OK: return "ok";
	case HCR_ST_BUSY: return "the firmware is busy (status 1)";
	case HCR_ST_BAD_OP: return "the firmware does not know the command (status 2, bad operation)";
	case HCR_ST_UNKN_TLV: return "the firmware does not know the settings record (status 3, unknown TLV)";
	case HCR_ST_BAD_SYS: return "the firmware is not started (status 4, bad system state)";
	case HCR_ST_RES_STATE: return "the firmware refused in its current state (status 9, resource state)";
	case HCR_E_SEM: return "the tools semaphore 0xf03bc is held by someone else (another tool, or the driver)";
	case HCR_E_GO_BEFORE: return "the tools interface is still busy with an earlier command (go bit set)";
	case HCR_E_GO_STUCK: return "the firmware never finished the command (go bit still set)";
	case HCR_E_IO: return "a register access failed";
	default: return "the firmware answered an unknown status";
	}
}

static int fail(struct hcr *h, unsigned r, uint16_t op, struct cx_status *st)
{
	int code = r == HCR_ST_BAD_SYS ? CX_EFWDOWN : r == HCR_E_SEM ? CX_EBUSY : CX_ETOOLS;

	h->result = r;
	if (r > 0xFF || r <= HCR_ST_RES_STATE)
		return cx_fail(st, code, "%s: tools command 0x%02x: %s", h->cr->cfg->bdf, op, hcr_result_text(r));
	return cx_fail(st, code, "%s: tools command 0x%02x: the firmware answered status 0x%02x", h->cr->cfg->bdf,
		       op, r);
}

/* Upstream's wait, with a longer spin: HCR_GO_POLLS reads, sleeping 1, 2, 4, 8, 8, ... ms after it. */
static int wait_go(struct hcr *h, uint32_t *ctrl, struct cx_status *st)
{
	unsigned sleep_ms = 1;

	for (unsigned i = 0; i < HCR_GO_POLLS; i++) {
		if (cr_read(h->cr, HCR_ADDR + 4 * HCR_CTRL, ctrl, st))
			return -1;
		if (!(*ctrl & HCR_GO))
			return 0;
		if (i > HCR_GO_SPIN) {
			cfg_sleep_us(h->cr->cfg, sleep_ms * 1000);
			if (sleep_ms < HCR_GO_MAX_SLEEP_MS)
				sleep_ms *= 2;
		}
	}
	return 1;
}

/* tools_cmdif_send_cmd_int: d[] in, d[] out (all seven dwords read back). */
static int send(struct hcr *h, uint32_t d[HCR_DWORDS], struct cx_status *st)
{
	uint16_t op = d[HCR_CTRL] & HCR_OP_MASK;
	uint32_t ctrl;
	int w;

	if ((w = wait_go(h, &ctrl, st)))
		return w < 0 ? (h->result = HCR_E_IO, st->code) : fail(h, HCR_E_GO_BEFORE, op, st);
	for (unsigned i = 0; i < HCR_DWORDS; i++)
		if (cr_write(h->cr, HCR_ADDR + 4 * i, d[i], st))
			return h->result = HCR_E_IO, st->code;
	h->commands++;
	if (cr_write(h->cr, HCR_ADDR + 4 * HCR_CTRL, d[HCR_CTRL] | HCR_GO, st))
		return h->result = HCR_E_IO, st->code;
	if ((w = wait_go(h, &ctrl, st)))
		return w < 0 ? (h->result = HCR_E_IO, st->code) : fail(h, HCR_E_GO_STUCK, op, st);
	for (unsigned i = 0; i < HCR_DWORDS; i++)
		if (cr_read(h->cr, HCR_ADDR + 4 * i, &d[i], st))
			return h->result = HCR_E_IO, st->code;
	unsigned status = d[HCR_CTRL] >> HCR_STATUS_SHIFT;
	return status ? fail(h, status, op, st) : (h->result = HCR_OK, CX_OK);
}

static void pack(uint32_t d[HCR_DWORDS], uint16_t op, uint8_t op_mod, uint32_t in_mod, uint64_t in)
{
	memset(d, 0, HCR_DWORDS * sizeof(*d));
	d[HCR_IN_H] = (uint32_t)(in >> 32);
	d[HCR_IN_L] = (uint32_t)in;
	d[HCR_IN_MOD] = in_mod;
	d[HCR_TOKEN] = (uint32_t)HCR_TOKEN_VALUE << HCR_TOKEN_SHIFT;
	d[HCR_CTRL] = (op & HCR_OP_MASK) | (uint32_t)(op_mod & HCR_OPMOD_MASK) << HCR_OPMOD_SHIFT;
}

/* tools_cmdif_flash_lock: read 0 = ours. */
static int sem_take(struct hcr *h, uint16_t op, struct cx_status *st)
{
	uint32_t v;

	for (unsigned i = 0; i < HCR_SEM_TRIES; i++) {
		if (cr_read(h->cr, HCR_SEM, &v, st))
			return h->result = HCR_E_IO, st->code;
		if (!v)
			return CX_OK;
		if (i % HCR_SEM_SPREAD_MS)
			cfg_sleep_us(h->cr->cfg, (i % HCR_SEM_SPREAD_MS) * 1000);
	}
	return fail(h, HCR_E_SEM, op, st);
}

static void sem_give(struct hcr *h)
{
	cr_write(h->cr, HCR_SEM, 0, &(struct cx_status){0});
}

int hcr_inline(struct hcr *h, uint16_t op, uint8_t op_mod, uint32_t in_mod, uint64_t in, uint64_t *out,
	       struct cx_status *st)
{
	uint32_t d[HCR_DWORDS];
	int rc;

	if ((rc = sem_take(h, op, st)))
		return rc;
	pack(d, op, op_mod, in_mod, in);
	rc = send(h, d, st);
	sem_give(h);
	if (out)
		*out = (uint64_t)d[HCR_OUT_H] << 32 | d[HCR_OUT_L];
	return rc;
}

/* The quad word at mailbox offset off through 0x70: its first big-endian dword
 * goes in in_param_l, the second in in_param_h (tools_cmdif_mbox_write). */
static int mbox_put(struct hcr *h, unsigned off, const uint8_t *q, struct cx_status *st)
{
	uint32_t d[HCR_DWORDS];

	pack(d, HCR_OP_MBOX_WRITE, 0, off / 4, (uint64_t)be32(q + 4) << 32 | be32(q));
	return send(h, d, st);
}

/* ... and back through 0x71: out_param_l is the first dword, out_param_h the second. */
static int mbox_get(struct hcr *h, unsigned off, uint8_t *q, struct cx_status *st)
{
	uint32_t d[HCR_DWORDS];
	int rc;

	pack(d, HCR_OP_MBOX_READ, 0, off / 4, 0);
	if ((rc = send(h, d, st)))
		return rc;
	put_be32(q, d[HCR_OUT_L]);
	put_be32(q + 4, d[HCR_OUT_H]);
	return CX_OK;
}

/* The CR mailbox holds the mailbox as big-endian dwords (mwrite_buffer_ul). */
static int mbox_move(struct hcr *h, uint8_t *mbox, unsigned off, size_t len, bool write, bool use_cr,
		     struct cx_status *st)
{
	for (size_t i = off; i < off + len; i += use_cr ? 4 : MBOX_CHUNK) {
		uint32_t v = be32(mbox + i);
		int rc = use_cr ? (write ? cr_write(h->cr, CR_MBOX_ADDR + (uint32_t)i, v, st)
					 : cr_read(h->cr, CR_MBOX_ADDR + (uint32_t)i, &v, st))
				: (write ? mbox_put(h, (unsigned)i, mbox + i, st) : mbox_get(h, (unsigned)i, mbox + i, st));
		if (rc)
			return h->result = use_cr ? HCR_E_IO : h->result, st->code;
		if (use_cr && !write)
			put_be32(mbox + i, v);
	}
	return CX_OK;
}

#define QUAD_UP(n) (((n) + 7u) & ~(size_t)7u)

int hcr_mbox(struct hcr *h, uint16_t op, uint8_t op_mod, uint32_t in_mod, const uint8_t *wbuf, size_t wlen,
	     bool skip_write, uint8_t *rbuf, unsigned rbuf_off, size_t rlen, bool use_cr, struct cx_status *st)
{
	uint8_t mbox[HCR_MBOX_SIZE] = {0};
	uint32_t d[HCR_DWORDS];
	int rc;

	if (wlen > HCR_MBOX_SIZE || (rbuf_off & 7) || rbuf_off + QUAD_UP(rlen) > HCR_MBOX_SIZE)
		return cx_fail(st, CX_EUSAGE, "tools command 0x%02x: mailbox request out of bounds", op);
	if ((rc = sem_take(h, op, st)))
		return rc;
	if (wbuf)
		memcpy(mbox, wbuf, wlen);
	/* "it is required in the TOOLS_HCR HLD to write the ENTIRE MBOX" (mtcr_tools_cif.c@4.25) */
	if (!skip_write && (rc = mbox_move(h, mbox, 0, HCR_MBOX_SIZE, true, use_cr, st)))
		goto out;
	pack(d, op, op_mod, in_mod, 0);
	if ((rc = send(h, d, st)) || (rc = mbox_move(h, mbox, rbuf_off, QUAD_UP(rlen), false, use_cr, st)))
		goto out;
	if (rbuf)
		memcpy(rbuf, mbox + rbuf_off, rlen);
out:
	sem_give(h);
	return rc;
}

/* tools_cmdif_is_cr_mbox_supported: a write of the magic that reads back. */
static int probe_cr_mbox(struct hcr *h, struct cx_status *st)
{
	uint32_t v = 0;
	int rc;

	if ((rc = sem_take(h, HCR_OP_REG_ACCESS, st)))
		return rc;
	rc = cr_write(h->cr, CR_MBOX_ADDR, CR_MBOX_MAGIC, st) || cr_read(h->cr, CR_MBOX_ADDR, &v, st);
	sem_give(h);
	if (rc)
		return h->result = HCR_E_IO, st->code;
	h->cr_mbox = v == CR_MBOX_MAGIC ? 1 : -1;
	return CX_OK;
}

int hcr_reg_access(struct hcr *h, uint8_t *buf, size_t wlen, size_t rlen, struct cx_status *st)
{
	int rc;

	if (!h->cr_mbox && (rc = probe_cr_mbox(h, st)))
		return rc;
	bool cr = h->cr_mbox > 0;
	return hcr_mbox(h, HCR_OP_REG_ACCESS, 0, cr ? REG_ACCESS_CR_MBOX : 0, buf, wlen, false, buf, 0, rlen, cr, st);
}
