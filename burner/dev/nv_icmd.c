/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_icmd.c — NVDA / NVQC / NVIA over ICMD (see nv_icmd.h). */
#include <string.h>

#include "dev/nv_icmd.h"
#include "util/bytes.h"

#define REG_NVDA 0x9024           /* REG_ID_MNVA, reg_access/reg_access.h@4.21 */
#define REG_NVQC 0x9030           /* REG_ID_NVQC, ibid. */
#define REG_NVIA 0x9033           /* REG_ID_NVIA, ibid. */
#define NVDA_HDR 12               /* TOOLS_OPEN_NV_HDR_FIFTH_GEN_SIZE, tools_open_layouts.h@4.21 */
#define NVDA_DATA 256             /* sizeof(tools_open_nvda.data): a GET's length (mnvaCom5thGen) */
#define NVQC_SIZE 8               /* TOOLS_OPEN_NVQC_SIZE */
#define NVIA_SIZE 8               /* TOOLS_OPEN_NVIA_SIZE */
#define HDR_LEN_MASK 0x1FFu       /* nv_hdr_fifth_gen.length, 8:0 (adb offset 23, 9 bits) */
#define HDR_WRITER_SHIFT 16       /* writer_id 20:16 (offset 11, 5 bits) */
#define WRITER_MLXCONFIG 9u       /* WRITER_ID_ICMD_MLXCONFIG, mlxconfig/mlxcfg_utils.h@4.21 */
#define HDR_DEFAULT (1u << 23)    /* default_ (offset 8) */
#define HDR_OVER_EN (1u << 25)    /* over_en (offset 6) */
#define NVQC_RD (1u << 0)         /* support_rd: 0x4 bit 0 (offset 63) */
#define NVQC_WR (1u << 1)         /* support_wr: 0x4 bit 1 (offset 62) */
#define ST_RES_NOT_AVLBL 8        /* ME_REG_ACCESS_RES_NOT_AVLBL: no such record stored */

/* Where class, port and index sit in a type dword, per class (tools_open_layouts.h@4.21). */
static const struct {
	uint8_t cls, port_shift, index_bits;
} layouts[] = {
	{NV5_GLOBAL, 0, 24},      /* tools_open_global_type: index 23:0 */
	{NV5_PORT, 16, 16},       /* tools_open_per_port_type: port 23:16, index 15:0 */
	{NV5_HOST, 0, 10},        /* tools_open_per_host_type: host 23:18, function 17:10 (0), index 9:0 */
	{NV5_HOST_FN, 0, 10},
};

#define CLASS_SHIFT 24            /* param_class 31:24 in every layout */

uint32_t nv5_type(unsigned cls, unsigned index, unsigned port)
{
	for (unsigned i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].cls == cls)
			return (uint32_t)cls << CLASS_SHIFT |
			       (layouts[i].port_shift ? (uint32_t)port << layouts[i].port_shift : 0) |
			       (index & ((1u << layouts[i].index_bits) - 1));
	return 0;
}

static void header(uint8_t *reg, uint32_t type, unsigned len, uint32_t flags)
{
	put_be32(reg, flags | HDR_OVER_EN | WRITER_MLXCONFIG << HDR_WRITER_SHIFT | (len & HDR_LEN_MASK));
	put_be32(reg + 4, type);
	put_be32(reg + 8, 0);
}

int nv_nvda_get(struct icmd_link *ic, uint32_t type, enum nv5_read what, uint32_t *dw, unsigned ndw, bool *stored,
		struct cx_status *st)
{
	uint8_t reg[NVDA_HDR + NVDA_DATA] = {0};
	int rc;

	if (ndw > NV5_MAX_DWORDS)
		return cx_fail(st, CX_EUSAGE, "settings record 0x%08x: %u dwords is too long", type, ndw);
	header(reg, type, NVDA_DATA, what == NV5_DEFAULT ? HDR_DEFAULT : 0);
	rc = icmd_reg(ic, REG_NVDA, REG_METHOD_GET, reg, sizeof(reg), NVDA_HDR, sizeof(reg), st);
	*stored = !rc;
	if (rc && ic->result == ICMD_E_REG && ic->reg_status == ST_RES_NOT_AVLBL) {
		cx_status_clear(st);
		rc = CX_OK;
	}
	for (unsigned i = 0; i < ndw; i++)
		dw[i] = *stored ? be32(reg + NVDA_HDR + 4 * i) : 0;
	return rc;
}

int nv_nvda_set(struct icmd_link *ic, uint32_t type, const uint32_t *dw, unsigned ndw, struct cx_status *st)
{
	uint8_t reg[NVDA_HDR + 4 * NV5_MAX_DWORDS] = {0};
	size_t len = 4u * ndw;

	if (ndw > NV5_MAX_DWORDS)
		return cx_fail(st, CX_EUSAGE, "settings record 0x%08x: %u dwords is too long", type, ndw);
	header(reg, type, (unsigned)len, 0);
	for (unsigned i = 0; i < ndw; i++)
		put_be32(reg + NVDA_HDR + 4 * i, dw[i]);
	return icmd_reg(ic, REG_NVDA, REG_METHOD_SET, reg, NVDA_HDR + len, NVDA_HDR + len, NVDA_HDR, st);
}

int nv_nvqc(struct icmd_link *ic, uint32_t type, bool *rd, bool *wr, struct cx_status *st)
{
	uint8_t reg[NVQC_SIZE] = {0};
	int rc;

	put_be32(reg, type);
	rc = icmd_reg(ic, REG_NVQC, REG_METHOD_GET, reg, sizeof(reg), sizeof(reg), sizeof(reg), st);
	*rd = !rc && (be32(reg + 4) & NVQC_RD);
	*wr = !rc && (be32(reg + 4) & NVQC_WR);
	return rc;
}

int nv_nvia(struct icmd_link *ic, struct cx_status *st)
{
	uint8_t reg[NVIA_SIZE] = {0};

	return icmd_reg(ic, REG_NVIA, REG_METHOD_SET, reg, sizeof(reg), sizeof(reg), sizeof(reg), st);
}
