/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tools_cmds.c — the tools HCR's opcodes (cmdif/tools_cif.c@4.25, mtcr_tools_cif.c@4.25)
 * and what they answer from the card's profile (params.tools).
 *
 * QUERY_DEV_CAP fills the mailbox with the device capabilities; the model sets only
 * the dwords mlxconfig reads (mlxcfg_param_lib.cpp@4.25, mlxcfg_4th_gen_commander.cpp@4.25):
 *   0x38 bits 7:0   max_func_idx: VFs + 1 (0 means all 128 functions)
 *   0x48 bits 21:16 default BAR size - 1 ("reports only half of the bar size")
 *   0xc0 bits 5:0   tool capability bits (CXSIM_CAP_*)
 *   0xc8 bits 8:3   largest BAR size
 * the rest reads 0. QUERY_DEF_PARAMS answers the defaults in the layouts of
 * tools_open_layouts.h@4.25 (20 bytes global with opcode_modifier 0, 28 bytes for
 * port N with opcode_modifier N), a port the card lacks with status 3.
 * ACCESS_REGISTER works on the CR mailbox when input_modifier bit 0 is set (as
 * mstflint sends it when its probe found one), else on the HCR mailbox.
 *
 * Durations are guesses (UNCONFIRMED): a few µs for mailbox moves, tens for queries,
 * milliseconds for writes to the NV store (reg_access.c).
 */
#include <stddef.h>
#include <string.h>

#include "card.h"

#define OP_QUERY_DEV_CAP 0x03      /* QUERY_DEV_CAP_OP, cmdif/tools_cif.c@4.25 */
#define OP_ACCESS_REGISTER 0x3B    /* REG_ACCESS_OP, mtcr_tools_cif.c@4.25 */
#define OP_MBOX_WRITE 0x70         /* MBOX_WRITE_OP, ibid. */
#define OP_MBOX_READ 0x71          /* MBOX_READ_OP, ibid. */
#define OP_QUERY_DEF_PARAMS 0x73   /* QUERY_DEF_PARAMS_OP, cmdif/tools_cif.c@4.25 */

/* HCR dwords (mtcr_tools_cif.c@4.25 tools_cmdif_pack/unpack). */
enum { IN_H, IN_L, IN_MOD, OUT_H, OUT_L, TOKEN, CTRL };
#define OPCODE_MOD_SHIFT 12        /* opcode_modifier 15:12 */
#define OPCODE_MOD_MASK 0xFu
#define USE_CR_MBOX 0x1            /* ACCESS_REGISTER input_modifier with the CR mailbox */

#define MBOX_NS 4000               /* MBOX_WRITE/READ: go stays set two polls (guess) */
#define QUERY_NS 20000             /* the queries (guess) */

/* One field of an answer: a profile member (u8 or u16) or a support bit. */
struct answer_field {
	uint8_t dword, shift, width;
	size_t member;             /* offsetof(struct cxsim_tools_profile, ...), or NO_MEMBER */
	uint8_t msize;             /* its size: 1 or 2 */
	uint16_t supp;             /* with NO_MEMBER: 1 when this CXSIM_SUPP_* bit is set */
	int8_t add;                /* added to the member's value */
};
#define NO_MEMBER ((size_t)-1)
#define M(f) offsetof(struct cxsim_tools_profile, f), sizeof(((struct cxsim_tools_profile *)0)->f)

/* QUERY_DEV_CAP, at the mailbox's dword index (byte offset / 4); max_func_idx (0x38)
 * and the capability bits (0xc0) are computed (dev_cap_vfs, dev_cap_caps). */
#define DEV_CAP_MAX_FUNC (0x38 / 4)  /* MAX_VFS_ADDR, mlxcfg_param_lib.cpp@4.25: data & 0xff */
#define DEV_CAP_TOOL_CAPS (0xC0 / 4) /* TOOL_CAP_BITS_ADDR, mlxcfg_4th_gen_commander.cpp@4.25 */
static const struct answer_field dev_cap[] = {
	{0x48 / 4, 16, 6, M(bar_size), 0, -1},      /* DEFAULT_BAR_SZ_ADDR, EXTRACT64(data, 16, 6) + 1 */
	{0xC8 / 4, 3, 6, M(max_bar_size), 0, 0},    /* MAX_BAR_SZ_ADDR, EXTRACT64(data, 3, 6) */
};

/* QUERY_DEF_PARAMS global, tools_open_query_def_params_global (tools_open_layouts.h@4.25). */
static const struct answer_field def_global[] = {
	{0, 14, 1, NO_MEMBER, 0, CXSIM_SUPP_CLOCK_MAP, 0},        /* nv_config_clock_map_to_user */
	{0, 15, 1, NO_MEMBER, 0, CXSIM_SUPP_PHY_PARAM_MODE, 0},   /* nv_config_phy_param_mode */
	{0, 16, 1, NO_MEMBER, 0, CXSIM_SUPP_STEER_FORCE_VLAN, 0}, /* nv_steer_force_vlan_supported */
	{0, 17, 1, NO_MEMBER, 0, CXSIM_SUPP_CQ_TIMESTAMP, 0},     /* nv_cq_timestamp_supported */
	{1, 0, 8, M(def_num_vfs), 0, 0},                       /* num_vfs */
	{1, 8, 4, M(bar_size), 0, 0},                          /* uar_bar_size (mlxconfig ignores it) */
	{1, 12, 4, M(max_bar_size), 0, 0},                     /* max_uar_bar_size (likewise) */
	{1, 21, 1, NO_MEMBER, 0, CXSIM_SUPP_BOOT_IP_VER, 0},      /* boot_ip_ver: IP_VER is supported */
	{1, 22, 2, M(def_phy_param_mode), 0, 0},               /* default_phy_param_mode */
	{1, 27, 1, M(def_clock_map), 0, 0},                    /* default_clock_map_to_user */
	{1, 28, 1, M(def_steer_force_vlan), 0, 0},             /* default_steer_force_vlan */
	{1, 29, 1, M(def_cq_timestamp), 0, 0},                 /* default_cq_timestamp */
	{1, 31, 1, M(def_sriov_en), 0, 0},                     /* sriov_en */
};

/* QUERY_DEF_PARAMS per port, tools_open_query_def_params_per_port (ibid.). */
static const struct answer_field def_port[] = {
	{0, 17, 1, NO_MEMBER, 0, CXSIM_SUPP_VPI_FORCE_MODE, 0},   /* nv_config_vpi_force_mode */
	{0, 18, 1, NO_MEMBER, 0, CXSIM_SUPP_VPI, 0},              /* nv_config_vpi */
	{0, 19, 1, NO_MEMBER, 0, CXSIM_SUPP_WOL, 0},              /* nv_config_wol */
	{1, 0, 12, M(def_boot_vlan), 0, 0},                    /* default_boot_vlan */
	{1, 16, 4, M(def_boot_protocol), 0, 0},                /* default_boot_protocol */
	{1, 20, 4, M(def_boot_retry), 0, 0},                   /* default_boot_retry_cnt */
	{1, 25, 2, M(def_link_type), 0, 0},                    /* default_network_link_type */
	{1, 27, 1, M(def_wol_magic), 0, 0},                    /* default_en_wol_magic */
	{1, 28, 1, M(def_boot_vlan_en), 0, 0},                 /* default_boot_vlan_en */
	{1, 29, 1, M(def_boot_rom), 0, 0},                     /* default_boot_option_rom_en */
	{2, 0, 16, M(def_boot_pkey), 0, 0},                    /* default_boot_pkey */
	{2, 24, 2, M(def_ip_ver), 0, 0},                       /* boot_ip_ver (the default IP_VER) */
	{2, 28, 1, NO_MEMBER, 0, CXSIM_SUPP_IB_BOOT, 0},          /* nv_config_infiniband_boot_settings */
	{2, 31, 1, NO_MEMBER, 0, CXSIM_SUPP_BOOT_PARAMS, 0},      /* nv_config_boot_parameters */
	{3, 9, 1, M(def_force_mode), 0, 0},                    /* default_vpi_force_mode */
	{3, 10, 2, M(def_xfi_mode), 0, 0},                     /* default_vpi_xfi_mode */
	{3, 12, 2, M(def_phy_type), 0, 0},                     /* default_vpi_phy_type */
};

static uint32_t member(const struct cxsim_tools_profile *t, const struct answer_field *f)
{
	const uint8_t *p = (const uint8_t *)t + f->member;
	uint16_t v16;

	if (f->msize == sizeof(v16)) {
		memcpy(&v16, p, sizeof(v16));
		return v16;
	}
	return *p;
}

static void put_fields(uint32_t *mbox, const struct answer_field *f, size_t n,
		       const struct cxsim_tools_profile *t)
{
	for (size_t i = 0; i < n; i++, f++) {
		uint32_t mask = f->width == 32 ? 0xFFFFFFFFu : (1u << f->width) - 1;
		uint32_t v;

		if (f->member == NO_MEMBER)
			v = f->supp ? (t->supp & f->supp) != 0 : 0;
		else
			v = member(t, f) + (uint32_t)(int32_t)f->add;
		mbox[f->dword] = (mbox[f->dword] & ~(mask << f->shift)) | (v & mask) << f->shift;
	}
}

/* Port 2's capability bits only on a card that has port 2. */
static uint32_t dev_cap_caps(const struct cxsim_tools_profile *t)
{
	uint32_t caps = t->caps & CXSIM_CAP_ALL;

	if (t->ports < 2)
		caps &= ~(uint32_t)(CXSIM_CAP_WOL_P2 | CXSIM_CAP_VPI_P2);
	return caps;
}

/* max_func_idx: the PF and its VFs; 128 functions are written 0 ("if max_func_idx=0
 * then all functions(128) are operational", mlxcfg_param_lib.cpp@4.25 updateMaxVfs). */
static uint32_t dev_cap_vfs(const struct cxsim_tools_profile *t)
{
	unsigned funcs = t->max_vfs + 1u;

	return funcs == 128 ? 0 : funcs & 0xFF;
}

static uint8_t query_dev_cap(struct cxsim_card *c, uint32_t dw[7])
{
	const struct cxsim_tools_profile *t = &c->p.tools;
	uint32_t *mb = c->hcr.mbox;

	(void)dw;
	memset(mb, 0, sizeof(c->hcr.mbox));
	put_fields(mb, dev_cap, sizeof(dev_cap) / sizeof(dev_cap[0]), t);
	mb[DEV_CAP_MAX_FUNC] |= dev_cap_vfs(t);
	mb[DEV_CAP_TOOL_CAPS] |= dev_cap_caps(t);
	return HCR_OK;
}

static uint8_t query_def_params(struct cxsim_card *c, uint32_t dw[7])
{
	unsigned port = (dw[CTRL] >> OPCODE_MOD_SHIFT) & OPCODE_MOD_MASK;
	const struct cxsim_tools_profile *t = &c->p.tools;
	uint32_t *mb = c->hcr.mbox;

	if (port > t->ports)
		return HCR_BAD_PARAM; /* no such port: mlxconfig then hides its settings */
	memset(mb, 0, sizeof(c->hcr.mbox));
	if (port == 0)
		put_fields(mb, def_global, sizeof(def_global) / sizeof(def_global[0]), t);
	else
		put_fields(mb, def_port, sizeof(def_port) / sizeof(def_port[0]), t);
	return HCR_OK;
}

static uint8_t access_register(struct cxsim_card *c, uint32_t dw[7])
{
	if (dw[IN_MOD] & USE_CR_MBOX) {
		if (c->p.no_cr_mbox)
			return HCR_BAD_PARAM; /* there is no CR mailbox to read the register from */
		return sim_reg_access(c, c->hcr.cr_mbox);
	}
	return sim_reg_access(c, c->hcr.mbox);
}

/* input_modifier: the dword offset, even (a quad word), inside the mailbox. */
static int mbox_index(const uint32_t dw[7])
{
	uint32_t k = dw[IN_MOD];

	return (k & 1) || k + 1 >= TOOLS_MBOX_DWORDS ? -1 : (int)k;
}

static uint8_t mbox_write(struct cxsim_card *c, uint32_t dw[7])
{
	int k = mbox_index(dw);

	if (k < 0)
		return HCR_BAD_PARAM;
	c->hcr.mbox[k] = dw[IN_L];
	c->hcr.mbox[k + 1] = dw[IN_H];
	return HCR_OK;
}

static uint8_t mbox_read(struct cxsim_card *c, uint32_t dw[7])
{
	int k = mbox_index(dw);

	if (k < 0)
		return HCR_BAD_PARAM;
	dw[OUT_L] = c->hcr.mbox[k];
	dw[OUT_H] = c->hcr.mbox[k + 1];
	return HCR_OK;
}

static const struct tools_opcode opcodes[] = {
	{OP_QUERY_DEV_CAP, "QUERY_DEV_CAP", QUERY_NS, CXSIM_TOOLS_OP_DEV_CAP, query_dev_cap},
	{OP_QUERY_DEF_PARAMS, "QUERY_DEF_PARAMS", QUERY_NS, CXSIM_TOOLS_OP_DEF_PARAMS, query_def_params},
	/* exec_ns 0: sim_reg_access_ns() says, by register and method. */
	{OP_ACCESS_REGISTER, "ACCESS_REGISTER", 0, CXSIM_TOOLS_OP_REG_ACCESS, access_register},
	{OP_MBOX_WRITE, "MBOX_WRITE", MBOX_NS, CXSIM_TOOLS_OP_MBOX, mbox_write},
	{OP_MBOX_READ, "MBOX_READ", MBOX_NS, CXSIM_TOOLS_OP_MBOX, mbox_read},
};

const struct tools_opcode *sim_tools_opcode(uint16_t opcode)
{
	for (size_t i = 0; i < sizeof(opcodes) / sizeof(opcodes[0]); i++)
		if (opcodes[i].opcode == opcode)
			return &opcodes[i];
	return NULL;
}
