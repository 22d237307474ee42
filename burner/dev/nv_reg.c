/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_reg.c — ACCESS_REGISTER framing and the MNVA / MNVIA registers (see nv_reg.h). */
#include <stdio.h>
#include <string.h>

#include "dev/nv_reg.h"
#include "dev/reg_status.h"
#include "util/bytes.h"

#define REG_MNVA 0x9024          /* REG_ID_MNVA, reg_access/mlxconfig_4th_gen_registers.c@4.25 */
#define REG_MNVIA 0x9029         /* REG_ID_MNVIA_4TH_GEN, same file */
#define METHOD_GET 1             /* MACCESS_REG_METHOD_GET, include/mtcr_ul/mtcr_com_defs.h@4.25 */
#define METHOD_SET 2
#define OP_TLV_SIZE 16           /* OP_TLV_SIZE, mtcr_ul/mtcr_ul_com.c@4.25 */
#define REG_TLV_HDR 4            /* REG_TLV_HEADER_LEN */
#define OP_TLV_TYPE 1            /* TLV_OPERATION, Type 31:27 */
#define OP_TLV_LEN 4             /* TLV_OPERATION_SIZE, len 26:16 (dwords) */
#define REG_TLV_TYPE 3           /* TLV_REG */
#define TLV_TYPE_SHIFT 27
#define TLV_LEN_SHIFT 16
#define OP_STATUS_SHIFT 8        /* status 14:8 of the operation TLV's dword 0 (packets_layout.c@4.25) */
#define OP_STATUS_MASK 0x7Fu
#define OP_REG_ID_SHIFT 16       /* dword 1: register_id 31:16, method 14:8, class 7:0 */
#define OP_METHOD_SHIFT 8
#define OP_CLASS 1               /* MAD_CLASS_REG_ACCESS */
#define NV_HDR_SIZE 8            /* MLXCONFIG_4TH_GEN_NV_HDR_SIZE */
#define NV_HDR_LEN_SHIFT 18      /* nv_hdr dword 0: length 29:18 (dwords), type 15:0 */
#define NV_HDR_PORT_SHIFT 16     /* nv_hdr dword 1: type_mod 23:16 */
#define HEADERS (OP_TLV_SIZE + REG_TLV_HDR)

const char *nv_reg_status_text(unsigned s)
{
	return reg_status_text(s);
}

/* Frame reg (reg_size bytes) into buf; send w_size register bytes, read r_size back. */
static int access(struct hcr *h, uint16_t reg_id, unsigned method, uint8_t *buf, size_t reg_size, size_t w_size,
		  size_t r_size, unsigned *reg_status, struct cx_status *st)
{
	int rc;

	put_be32(buf, (uint32_t)OP_TLV_TYPE << TLV_TYPE_SHIFT | (uint32_t)OP_TLV_LEN << TLV_LEN_SHIFT);
	put_be32(buf + 4, (uint32_t)reg_id << OP_REG_ID_SHIFT | method << OP_METHOD_SHIFT | OP_CLASS);
	memset(buf + 8, 0, 8);  /* tid */
	put_be32(buf + OP_TLV_SIZE, (uint32_t)REG_TLV_TYPE << TLV_TYPE_SHIFT |
					    (uint32_t)((reg_size + REG_TLV_HDR) >> 2) << TLV_LEN_SHIFT);
	if ((rc = hcr_reg_access(h, buf, HEADERS + w_size, HEADERS + r_size, st)))
		return rc;
	/* The firmware answers in the mailbox we sent: an operation TLV that is not
	 * one any more is no answer (no firmware behind the interface). */
	if (be32(buf) >> TLV_TYPE_SHIFT != OP_TLV_TYPE || be32(buf + 4) >> OP_REG_ID_SHIFT != reg_id)
		return h->result = HCR_E_IO, cx_fail(st, CX_ETOOLS, "%s: register 0x%04x: the firmware's answer is "
						     "not a register access", h->cr->cfg->bdf, reg_id);
	*reg_status = be32(buf) >> OP_STATUS_SHIFT & OP_STATUS_MASK;
	return CX_OK;
}

static void nv_hdr(uint8_t *p, uint16_t type, uint8_t port, unsigned ndw)
{
	put_be32(p, (uint32_t)ndw << NV_HDR_LEN_SHIFT | type);
	put_be32(p + 4, (uint32_t)port << NV_HDR_PORT_SHIFT);
}

static int reg_fail(struct hcr *h, const char *what, uint16_t type, uint8_t port, unsigned s, struct cx_status *st)
{
	char where[16] = "";

	h->result = HCR_OK;
	if (port)
		snprintf(where, sizeof(where), " port %u", port);
	return cx_fail(st, CX_ETOOLS, "%s: %s settings record 0x%x%s: %s (register status 0x%02x)",
		       h->cr->cfg->bdf, what, type, where, nv_reg_status_text(s), s);
}

/* The record's header in buf, after the TLVs; a record longer than the register: refused. */
static int frame(uint8_t *buf, uint16_t type, uint8_t port, unsigned ndw, struct cx_status *st)
{
	if (ndw > NV_MAX_DWORDS)
		return cx_fail(st, CX_EUSAGE, "settings record 0x%x: %u dwords is too long", type, ndw);
	nv_hdr(buf + HEADERS, type, port, ndw);
	return CX_OK;
}

/* One MNVA access of record type/port with ndw data dwords. A SET (in) writes the whole
 * register, in after the header, and reads back only the header; a GET (out) writes only
 * the header and reads the whole register (reg_access_mnva): out gets its data when the
 * register status *s is 0, zeros when it is not. */
static int mnva(struct hcr *h, uint16_t type, uint8_t port, const uint32_t *in, uint32_t *out, unsigned ndw,
		unsigned *s, struct cx_status *st)
{
	uint8_t buf[HEADERS + NV_HDR_SIZE + 4 * NV_MAX_DWORDS] = {0};
	uint8_t *data = buf + HEADERS + NV_HDR_SIZE;
	size_t whole = NV_HDR_SIZE + 4u * ndw;
	int rc;

	if ((rc = frame(buf, type, port, ndw, st)))
		return rc;
	for (unsigned i = 0; in && i < ndw; i++)
		put_be32(data + 4 * i, in[i]);
	rc = in ? access(h, REG_MNVA, METHOD_SET, buf, whole, whole, NV_HDR_SIZE, s, st)
		: access(h, REG_MNVA, METHOD_GET, buf, whole, NV_HDR_SIZE, whole, s, st);
	for (unsigned i = 0; out && !rc && i < ndw; i++)
		out[i] = *s ? 0 : be32(data + 4 * i);
	return rc;
}

int nv_mnva_get(struct hcr *h, uint16_t type, uint8_t port, uint32_t *dw, unsigned ndw, bool *stored,
		struct cx_status *st)
{
	unsigned s;
	int rc = mnva(h, type, port, NULL, dw, ndw, &s, st);

	if (rc)
		return rc;
	*stored = s == 0;
	/* A record never written: the defaults are on, nothing is stored. */
	if (s && s != NV_REG_RES_NOT_AVLBL)
		return reg_fail(h, "reading", type, port, s, st);
	return CX_OK;
}

int nv_mnva_set(struct hcr *h, uint16_t type, uint8_t port, const uint32_t *dw, unsigned ndw,
		struct cx_status *st)
{
	unsigned s;
	int rc = mnva(h, type, port, dw, NULL, ndw, &s, st);

	return rc ? rc : s ? reg_fail(h, "writing", type, port, s, st) : CX_OK;
}

int nv_mnvia(struct hcr *h, struct cx_status *st)
{
	uint8_t buf[HEADERS + NV_HDR_SIZE] = {0};
	unsigned s;
	int rc;

	/* REG_ACCCESS of the fixed-size mnvia: an all-zero nv_hdr, 8 bytes each way. */
	if ((rc = access(h, REG_MNVIA, METHOD_SET, buf, NV_HDR_SIZE, NV_HDR_SIZE, NV_HDR_SIZE, &s, st)))
		return rc;
	return s ? reg_fail(h, "resetting every", 0, 0, s, st) : CX_OK;
}
