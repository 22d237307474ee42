/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_regs_cx4.c — the settings registers of the ConnectX-4/4 Lx/5 firmware, as mstconfig
 * 4.21 uses them (mlxconfig/mlxcfg_utils.cpp mnvaCom5thGen, nvqcCom5thGen, nvdiCom5thGen;
 * mlxcfg_generic_commander.cpp; hw-access.md §3.14), over the card's settings store
 * (nv_store.c: STEM.nv, kept across power cycles, keyed by the whole type dword).
 *
 *  NVDA 0x9024 (GET, SET): nv_hdr_fifth_gen (tools_open_layouts.h): length in bytes 0x0.0
 *        (9 bits), version 0x0.12 (4), read_current 0x0.22, default 0x0.23; the type dword
 *        at 0x4; data from 0xc, TLV dword j at payload dword 3 + j. GET answers the stored
 *        TLV, or the firmware's defaults (nv_tlvs_cx4.c) when it was never set or when
 *        `default` is set; "resource not available" for a TLV it does not know and nobody
 *        set. SET stores the data (not a capability TLV, not a port the card lacks).
 *  NVDI 0x9025 (SET): forget one TLV (its defaults apply again).
 *  NVQC 0x9030 (GET): type dword at 0x0; support_rd 0x4.0, support_wr 0x4.1, version 0x4.4.
 *  NVIA 0x9033 (SET): forget every TLV (mstconfig reset).
 *  NVQGC 0x9034 (GET): read_factory_settings_support 0x0.0, nvda_read_current_settings
 *        0x0.1: both 0 (the model keeps no separate "current" values; UNCONFIRMED what a
 *        card says).
 * Durations are guesses (UNCONFIRMED): reads like the other registers, writes milliseconds
 * (the firmware writes its NV area in flash; where is not public, so the flash array is
 * not touched, as on ConnectX-3).
 */
#include <string.h>

#include "card.h"
#include "reg_status.h"

#define REG_NVDA 0x9024            /* REG_ID_MNVA (NVDA), reg_access/reg_access.c */
#define REG_NVDI 0x9025            /* REG_ID_MNVI (NVDI), ibid. */
#define REG_NVQC 0x9030            /* REG_ID_NVQC, ibid. */
#define REG_NVIA 0x9033            /* REG_ID_NVIA, ibid. */
#define REG_NVQGC 0x9034           /* REG_ID_NVQGC, ibid. */

#define GET (1u << METHOD_GET)
#define SET (1u << METHOD_SET)

#define HDR_LEN(w) ((w) & 0x1FFu)              /* length 0x0.0-8, bytes */
#define HDR_VERSION(w) (((w) >> 12) & 0xFu)    /* version 0x0.12-15 */
#define HDR_DEFAULT (1u << 23)                 /* default_ 0x0.23 */
#define HDR_TYPE 1                             /* type dword at 0x4 */
#define HDR_DWORDS 3                           /* nv_hdr_fifth_gen: 12 bytes */
#define NVQC_RD (1u << 0)                      /* support_rd 0x4.0 */
#define NVQC_WR (1u << 1)                      /* support_wr 0x4.1 */
#define PORTS 2                                /* as MGIR says (access_regs_cx4.c) */

#define READ_NS 20000              /* UNCONFIRMED guess */
#define WRITE_NS 5000000           /* an NV write: the firmware writes flash (guess) */

static void nv_changed(struct cxsim_card *c)
{
	c->cnt.nv_writes++;
	c->nv.dirty = true;
	if (c->nv_sink)
		c->nv_sink(c->nv_sink_ctx);
}

static int nvda_get(struct cxsim_card *c, uint32_t *p, unsigned ndw)
{
	uint32_t type = p[HDR_TYPE], dw[NV_TLV_MAX_DWORDS] = {0};
	const struct nv5_tlv *info = nv5_tlv_find(type);
	const struct nv_tlv *t = nv_find(&c->nv, type, 0);
	unsigned len;

	if (t && !(info && (p[0] & HDR_DEFAULT))) {
		len = t->len;
		memcpy(dw, t->dw, len * 4);
	} else if (info) {
		len = info->size / 4;
		nv5_defaults(c, info, dw);
	} else {
		return REG_RES_NOT_AVLBL; /* "no valid tlv found" (mlxcfg_tlv.cpp TLVConf::mnva) */
	}
	if (HDR_DWORDS + len > ndw)
		len = ndw - HDR_DWORDS;
	p[0] = (p[0] & ~0x1FFu) | len * 4;
	memset(p + HDR_DWORDS, 0, (ndw - HDR_DWORDS) * 4);
	memcpy(p + HDR_DWORDS, dw, len * 4);
	return REG_OK;
}

static int nvda_set(struct cxsim_card *c, const uint32_t *p, unsigned ndw)
{
	uint32_t type = p[HDR_TYPE];
	const struct nv5_tlv *info = nv5_tlv_find(type);
	unsigned len = (HDR_LEN(p[0]) + 3) / 4;
	struct nv_tlv t = {0};

	c->cnt.nv_write_cmds++;
	if (!len || len > NV_TLV_MAX_DWORDS || HDR_DWORDS + len > ndw || (info && info->cap) ||
	    nv5_port(type) > PORTS)
		return REG_BAD_PARAM;
	t.type = type;
	t.version = (uint8_t)HDR_VERSION(p[0]);
	t.len = (uint8_t)len;
	memcpy(t.dw, p + HDR_DWORDS, len * 4);
	if (nv_put(&c->nv, &t))
		return REG_INTERNAL_ERROR; /* the model's store is full */
	nv_changed(c);
	return REG_OK;
}

static int nvda(struct cxsim_card *c, unsigned method, uint32_t *p, unsigned ndw, uint64_t *ns)
{
	*ns = method == METHOD_SET ? WRITE_NS : READ_NS;
	return method == METHOD_GET ? nvda_get(c, p, ndw) : nvda_set(c, p, ndw);
}

static int nvdi(struct cxsim_card *c, unsigned method, uint32_t *p, unsigned ndw, uint64_t *ns)
{
	(void)method;
	(void)ndw;
	*ns = WRITE_NS;
	c->cnt.nv_write_cmds++;
	if (!nv_del(&c->nv, p[HDR_TYPE], 0))
		nv_changed(c);
	return REG_OK;
}

static int nvqc(struct cxsim_card *c, unsigned method, uint32_t *p, unsigned ndw, uint64_t *ns)
{
	const struct nv5_tlv *info = nv5_tlv_find(p[0]);

	(void)c;
	(void)method;
	(void)ndw;
	*ns = READ_NS;
	p[1] = info ? NVQC_RD | (info->cap ? 0 : NVQC_WR) : 0; /* version 0 */
	return REG_OK;
}

static int nvia(struct cxsim_card *c, unsigned method, uint32_t *p, unsigned ndw, uint64_t *ns)
{
	(void)method;
	(void)p;
	(void)ndw;
	*ns = WRITE_NS;
	c->cnt.nv_write_cmds++;
	nv_clear(&c->nv);
	nv_changed(c);
	return REG_OK;
}

static int nvqgc(struct cxsim_card *c, unsigned method, uint32_t *p, unsigned ndw, uint64_t *ns)
{
	(void)c;
	(void)method;
	*ns = READ_NS;
	memset(p, 0, ndw * 4);
	return REG_OK;
}

static const struct sim_reg regs[] = {
	{REG_NVDA, "NVDA", GET | SET, HDR_DWORDS, nvda},
	{REG_NVDI, "NVDI", SET, HDR_DWORDS, nvdi},
	{REG_NVQC, "NVQC", GET, 2, nvqc},
	{REG_NVIA, "NVIA", SET, 1, nvia},
	{REG_NVQGC, "NVQGC", GET, 1, nvqgc},
};

const struct sim_reg *sim_nv5_find(uint16_t id)
{
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (regs[i].id == id)
			return &regs[i];
	return NULL;
}
