/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reg_access.c — ACCESS_REGISTER: the operation and register TLVs on a mailbox
 * (mtcr_ul/mtcr_ul_com.c@4.25 mreg_send_raw, mtcr_ul/packets_layout.c@4.25) and the two
 * registers of the settings store (reg_access/mlxconfig_4th_gen_registers.c@4.25).
 *
 * Mailbox dwords 0..3: the operation TLV (Type 1 in 31:27, len 4 in 26:16, status 14:8;
 * register_id 31:16, method 14:8 (GET 1, SET 2), class 1 in 7:0; a 64-bit tid). Dword 4:
 * the register TLV header (Type 3, len in dwords with the header). Then the register.
 * The HCR status is 0 whenever the TLVs could be read; what went wrong with the
 * register is the operation TLV's status (return_by_reg_status, mtcr_ul_com.c@4.25).
 *
 * MNVA (GET/SET one settings TLV) starts with nv_hdr: type 15:0 and length (dwords)
 * 29:18, then version 31:28 and type_mod 23:16; then the TLV's data, a byte array
 * (data[128]) that mlxconfig fills with the packed TLV (big-endian dwords), placed from
 * register byte 8 on in order (adb2c_calc_array_field_address, tools_layouts/
 * adb_to_c_utils.c@4.25, as mlxconfig_4th_gen_mnva_pack uses it): register dword 2 + j
 * is TLV dword j, bits numbered as the layouts number them (checked against mstconfig
 * 4.21: SRIOV_EN=1 NUM_OF_VFS=4 arrives as 0x80000004). GET of a TLV never set answers
 * RES_NOT_AVLBL (8): "no valid tlv found, i.e default configuration are on"
 * (mlxcfg_param_lib.cpp@4.25). MNVIA (SET only) empties the store.
 *
 * ConnectX-4/4 Lx/5 (sim_reg_access5): the same framing on the ICMD mailbox of opcode
 * 0x9001 (mtcr_ul_com.c@4.21 mreg_send_wrapper: FLASH_REG_ACCESS, the same buffer), with
 * that generation's registers instead (access_regs_cx4.c, nv_regs_cx4.c; hw-access.md
 * §3.14); there the 4th generation's MNVA/MNVIA layouts do not apply (0x9024 is NVDA).
 */
#include <string.h>

#include "card.h"
#include "reg_status.h"

#define REG_MNVA 0x9024            /* REG_ID_MNVA, mlxconfig_4th_gen_registers.c@4.25 */
#define REG_MNVIA 0x9029           /* REG_ID_MNVIA_4TH_GEN, ibid. */

#define TLV_OPERATION 1            /* TLV_OPERATION, mtcr_ul_com.c@4.25 */
#define TLV_REG 3                  /* TLV_REG, ibid. */
#define OP_TLV_LEN 4               /* TLV_OPERATION_SIZE (dwords), ibid. */
#define OP_TLV_DWORDS 4            /* OP_TLV_SIZE 16 bytes, ibid. */
#define CLASS_REG_ACCESS 1         /* MAD_CLASS_REG_ACCESS, ibid. */
#define TLV_TYPE(w) ((w) >> 27)                 /* Type 31:27, packets_layout.c@4.25 */
#define TLV_LEN(w) (((w) >> 16) & 0x7FFu)       /* len 26:16, ibid. */
#define OP_STATUS_SHIFT 8                       /* status 14:8, ibid. */
#define OP_STATUS_MASK (0x7Fu << OP_STATUS_SHIFT)
#define OP_REG_ID(w) ((w) >> 16)                /* register_id 31:16, ibid. */
#define OP_METHOD(w) (((w) >> 8) & 0x7Fu)       /* method 14:8, ibid. */
#define OP_CLASS(w) ((w) & 0xFFu)               /* class 7:0, ibid. */

/* nv_hdr, mlxconfig_4th_gen_layouts.h@4.25. */
#define NV_HDR_DWORDS 2
#define NV_TYPE(w) ((w) & 0xFFFFu)              /* type 0x0.0-15 */
#define NV_LENGTH(w) (((w) >> 18) & 0xFFFu)     /* length 0x0.18-29, dwords */
#define NV_TYPE_MOD(w) (((w) >> 16) & 0xFFu)    /* type_mod 0x4.16-23 */
#define NV_VERSION(w) ((w) >> 28)               /* version 0x4.28-31 */

#define REG_DEFAULT_NS 50000       /* a register read (guess, UNCONFIRMED) */
#define NV_WRITE_NS 5000000        /* an MNVA SET: the firmware writes flash (guess) */
#define NV_INVALIDATE_NS 10000000  /* MNVIA (guess) */

/* Which TLV an nv_hdr names, checked against the card: 0 or a register status. */
static int nv_target(const uint32_t *p, unsigned ndw, const struct nv_tlv_info **info)
{
	unsigned len = NV_LENGTH(p[0]), mod = NV_TYPE_MOD(p[1]);

	*info = nv_tlv_info((uint16_t)NV_TYPE(p[0]));
	if (!*info || !len || len > NV_TLV_MAX_DWORDS || NV_HDR_DWORDS + len > ndw)
		return REG_BAD_PARAM;
	if ((*info)->per_port ? mod < 1 || mod > 2 : mod != 0)
		return REG_BAD_PARAM;
	return REG_OK;
}

static int mnva_get(struct cxsim_card *c, uint32_t *p, const struct nv_tlv_info *info)
{
	unsigned len = NV_LENGTH(p[0]), mod = NV_TYPE_MOD(p[1]);
	const struct nv_tlv *t = nv_find(&c->nv, info->type, (uint8_t)mod);

	if (!t)
		return REG_RES_NOT_AVLBL; /* port 2 of a one-port card too: nothing is there */
	for (unsigned j = 0; j < len; j++)
		p[NV_HDR_DWORDS + j] = j < t->len ? t->dw[j] : 0;
	return REG_OK;
}

static int mnva_set(struct cxsim_card *c, const uint32_t *p, const struct nv_tlv_info *info)
{
	struct nv_tlv t = {0};
	unsigned len = NV_LENGTH(p[0]), mod = NV_TYPE_MOD(p[1]);

	if (info->per_port && mod > c->p.tools.ports)
		return REG_BAD_PARAM;
	t.type = info->type;
	t.type_mod = (uint8_t)mod;
	t.version = (uint8_t)NV_VERSION(p[1]);
	t.len = (uint8_t)len;
	for (unsigned j = 0; j < len; j++)
		t.dw[j] = p[NV_HDR_DWORDS + j];
	if (nv_put(&c->nv, &t))
		return REG_INTERNAL_ERROR; /* the model's store is full */
	return REG_OK;
}

static void nv_changed(struct cxsim_card *c)
{
	c->cnt.nv_writes++;
	c->nv.dirty = true;
	if (c->nv_sink)
		c->nv_sink(c->nv_sink_ctx);
}

static int mnva(struct cxsim_card *c, unsigned method, uint32_t *p, unsigned ndw)
{
	const struct nv_tlv_info *info;
	int st;

	if (method == METHOD_SET)
		c->cnt.nv_write_cmds++;
	if ((st = nv_target(p, ndw, &info)))
		return st;
	if (c->p.hcr_fault == CXSIM_HCR_NV_CORRUPT)
		return REG_CONF_CORRUPT;
	if (method == METHOD_GET)
		return mnva_get(c, p, info);
	if (!(st = mnva_set(c, p, info)))
		nv_changed(c);
	return st;
}

static int mnvia(struct cxsim_card *c, unsigned method, uint32_t *p, unsigned ndw)
{
	(void)method;
	(void)p;
	(void)ndw;
	c->cnt.nv_write_cmds++;
	nv_clear(&c->nv);
	nv_changed(c);
	return REG_OK;
}

static const struct reg_info {
	uint16_t id;
	const char *name;
	uint8_t methods;           /* bit per method */
	uint8_t min_dwords;        /* the register's shortest payload */
	uint64_t get_ns, set_ns;
	int (*run)(struct cxsim_card *c, unsigned method, uint32_t *p, unsigned ndw);
} regs[] = {
	{REG_MNVA, "MNVA", 1u << METHOD_GET | 1u << METHOD_SET, NV_HDR_DWORDS, REG_DEFAULT_NS,
	 NV_WRITE_NS, mnva},
	/* "this register supports only set method" (mlxconfig_4th_gen_registers.c@4.25) */
	{REG_MNVIA, "MNVIA", 1u << METHOD_SET, NV_HDR_DWORDS, REG_DEFAULT_NS, NV_INVALIDATE_NS, mnvia},
};

static const struct reg_info *reg_find(uint16_t id)
{
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (regs[i].id == id)
			return &regs[i];
	return NULL;
}

/* Check the framing: the register status, or REG_OK with *id, *method and *ndw (the
 * payload's dwords: what the register TLV says, as far as a mailbox of mb_dwords goes). */
static int frame(const uint32_t *mb, unsigned mb_dwords, uint16_t *id, unsigned *method,
		 unsigned *ndw)
{
	uint32_t op0 = mb[0], op1 = mb[1], rtlv = mb[OP_TLV_DWORDS];

	if (TLV_TYPE(op0) != TLV_OPERATION || TLV_LEN(op0) != OP_TLV_LEN || TLV_TYPE(rtlv) != TLV_REG ||
	    TLV_LEN(rtlv) < 1)
		return REG_UNKNOWN_TLV;
	if (OP_CLASS(op1) != CLASS_REG_ACCESS)
		return REG_CLASS_NOT_SUPP;
	*id = (uint16_t)OP_REG_ID(op1);
	*method = OP_METHOD(op1);
	*ndw = TLV_LEN(rtlv) - 1;
	if (*ndw > mb_dwords - OP_TLV_DWORDS - 1)
		*ndw = mb_dwords - OP_TLV_DWORDS - 1;
	return REG_OK;
}

/* The register found, its method allowed and its payload long enough: REG_OK. */
static int check(struct cxsim_card *c, uint16_t id, bool found, uint8_t methods, unsigned method,
		 unsigned ndw, unsigned min_dwords)
{
	if (!found) {
		sim_card_log(c, "ACCESS_REGISTER: unknown register 0x%04x", id);
		return REG_NOT_SUPP;
	}
	if (method > 7 || !(methods & 1u << method))
		return REG_METHOD_NOT_SUPP;
	if (ndw < min_dwords)
		return REG_BAD_PARAM;
	return REG_OK;
}

/* Check the framing and run the register; the register status. */
static int reg_run(struct cxsim_card *c, uint32_t *mb)
{
	const struct reg_info *r;
	unsigned method, ndw;
	uint16_t id;
	int st;

	if ((st = frame(mb, TOOLS_MBOX_DWORDS, &id, &method, &ndw)))
		return st;
	r = reg_find(id);
	if ((st = check(c, id, r != NULL, r ? r->methods : 0, method, ndw, r ? r->min_dwords : 0)))
		return st;
	return r->run(c, method, mb + OP_TLV_DWORDS + 1, ndw);
}

static void put_status(uint32_t *mb, int st)
{
	mb[0] = (mb[0] & ~OP_STATUS_MASK) | ((uint32_t)st << OP_STATUS_SHIFT & OP_STATUS_MASK);
}

uint8_t sim_reg_access(struct cxsim_card *c, uint32_t *mb)
{
	put_status(mb, reg_run(c, mb));
	return HCR_OK;
}

/* ConnectX-4/4 Lx/5 (ICMD opcode 0x9001): the same framing, the 5th generation's
 * registers (access_regs_cx4.c, nv_regs_cx4.c). */
void sim_reg_access5(struct cxsim_card *c, uint32_t *mb, unsigned mb_dwords, uint64_t *ns)
{
	const struct sim_reg *r = NULL;
	unsigned method = 0, ndw = 0;
	uint16_t id = 0;
	int st;

	*ns = REG_DEFAULT_NS;
	if (!(st = frame(mb, mb_dwords, &id, &method, &ndw))) {
		if (!(r = sim_reg5_find(id)))
			r = sim_nv5_find(id);
		st = check(c, id, r != NULL, r ? r->methods : 0, method, ndw, r ? r->min_dwords : 0);
	}
	if (!st)
		st = r->run(c, method, mb + OP_TLV_DWORDS + 1, ndw, ns);
	put_status(mb, st);
}

uint64_t sim_reg_access_ns(const uint32_t *mb)
{
	const struct reg_info *r = reg_find((uint16_t)OP_REG_ID(mb[1]));

	if (!r)
		return REG_DEFAULT_NS;
	return OP_METHOD(mb[1]) == METHOD_SET ? r->set_ns : r->get_ns;
}
