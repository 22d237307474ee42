/* SPDX-License-Identifier: GPL-2.0-or-later */
/* access_regs_cx4.c — the access registers the running firmware of a ConnectX-4, 4 Lx or 5
 * answers for mstflint 4.21 (hw-access.md §3.14), reached through ICMD ACCESS_REGISTER
 * (icmd.c, reg_access.c sim_reg_access5). Payload dword k is register offset 4k, bit b of
 * "0xN.b" as the layouts number it (fw5.h).
 *
 *  MGIR 0x9020 (GET): hardware and firmware identity (reg_access_hca_layouts.h
 *        reg_access_hca_mgir): the running image's version (the boot ROM's verdict at
 *        power-on: a burn shows only after a power cycle) and PSID, the HW ID, two ports.
 *  MCAM 0x907f (GET): which registers exist (tools_open_layouts.h tools_open_mcam): the
 *        ones in this file and nv_regs_cx4.c, and so NOT MCQI/MCC/MCDA/MQIS — mstflint then
 *        burns the legacy way, MFBA (fw_comps_mgr.cpp FwCompsMgr::getFwSupport).
 *  MFPA 0x9010 (GET, SET): flash parameters (tools_open_mfpa): one flash, its JEDEC ID as
 *        RDID gives it, 64 KiB bulk erase; SET takes a boot address.
 *  MFBA 0x9011 (GET, SET): read or program up to 256 bytes (register_access_mfba).
 *  MFBE 0x9012 (SET): erase 4 KiB, or 64 KiB with bulk_64kb_erase (register_access_mfbe).
 * MFBA/MFBE go to the flash through fw_flash.c, the firmware's own SPI transactions on the
 * same chip model: their duration is the flash's. Any other register (MLOCK 0x402d, the
 * MCC family, MFMC, ...) answers "register not supported" (reg_access.c).
 * The secure-fw fault: MGIR's fw_info says secured and signed, and the firmware refuses
 * MFBA writes and MFBE with "method not supported" (UNCONFIRMED: secure firmware is known
 * to close direct flash access, what it answers is not public). mstflint 4.21 does not
 * look at MGIR's bits on this path (its secure-FW refusal belongs to the MCC flow,
 * fsctrl_ops.cpp, which MCAM here does not offer): its burn fails at the first write.
 * The gw_lock_held fault: another agent holds the gateway the firmware needs, so MFPA,
 * MFBA and MFBE answer "device busy" (status 1; UNCONFIRMED what real firmware does).
 */
#include <string.h>

#include "card.h"
#include "reg_status.h"

#define REG_MGIR 0x9020            /* REG_ID_MGIR, reg_access/reg_access.c */
#define REG_MCAM 0x907F            /* REG_ID_MCAM, ibid. */
#define REG_MFPA 0x9010            /* REG_ID_MFPA, ibid. */
#define REG_MFBA 0x9011            /* REG_ID_MFBA, ibid. */
#define REG_MFBE 0x9012            /* REG_ID_MFBE, ibid. */

#define GET (1u << METHOD_GET)
#define SET (1u << METHOD_SET)
#define READ_NS 20000              /* a register read by the firmware (UNCONFIRMED guess) */
#define WRITE_NS 30000             /* its overhead around a flash write (UNCONFIRMED guess) */

/* MGIR, reg_access_hca_layouts.h (dword index = offset / 4). */
#define MGIR_HW_DEV 0              /* 0x0: device_hw_revision 31:16, device_id 15:0 */
#define MGIR_HW_PORTS 1            /* 0x4: num_ports 23:16 */
#define MGIR_HW_ID 2               /* 0x8: hw_dev_id 15:0 */
#define MGIR_FW_VER 8              /* 0x20: secured 24, signed_fw 25, major 23:16, minor 15:8,
				    * sub_minor 7:0 (8 bits each) */
#define MGIR_FW_SECURED (1u << 24)
#define MGIR_FW_SIGNED (1u << 25)
#define MGIR_PSID 12               /* 0x30: psid[16], bytes in order */
#define MGIR_EXT_MAJOR 17          /* 0x44: extended_major (the whole version number) */
#define MGIR_EXT_MINOR 18          /* 0x48: extended_minor */
#define MGIR_EXT_SUBMINOR 19       /* 0x4c: extended_sub_minor */
#define MGIR_DWORDS 20             /* the fields above end at 0x50 */
#define FW5_PORTS 2                /* ports the firmware reports (UNCONFIRMED: a dual-port card) */

/* MCAM, tools_open_mcam. */
#define MCAM_GROUP(w) ((w) & 0xFFu) /* 0x0: access_reg_group 7:0 */
#define MCAM_MASK 2                 /* 0x8: mng_access_reg_cap_mask[16], bytes in order; bit n
				     * (register 0x9000 + n) is byte 15 - n / 8, bit n % 8
				     * (fw_comps_mgr.cpp: "The bytes are in reverse order") */
#define MCAM_REG_BASE 0x9000

/* MFPA, tools_open_mfpa. */
#define MFx_FS(w) (((w) >> 4) & 0x3u) /* 0x0: fs 5:4 (flash select), MFPA/MFBA/MFBE alike */
#define MFPA_BOOT 1                /* 0x4: boot_address */
#define MFPA_FLASHES 4             /* 0x10: flash_num 3:0, bulk_64kb_erase_en 29, wip 31 */
#define MFPA_BULK64 (1u << 29)
#define MFPA_JEDEC 5               /* 0x14: jedec_id 23:0 (RDID byte 0 in 7:0, run_mfpa_command) */
#define MFPA_DWORDS 8

/* MFBA, register_access_mfba; MFBE, register_access_mfbe. */
#define MFBA_SIZE(w) ((w) & 0x1FFu) /* 0x4: size 8:0, bytes */
#define MFBA_ADDR 2                /* 0x8: address */
#define MFBA_DATA 3                /* 0xc: data[64]: dword i = flash bytes 4i..4i+3, the first
				    * in bits 7:0 (mflash_pack_layer.c sx_st_block_access) */
#define MFBA_MAX 256               /* data[64] */
#define MFBE_BULK64 (1u << 29)     /* 0x0: bulk_64kb_erase 29 */
#define MFBE_BULK32 (1u << 30)     /* 0x0: bulk_32kb_erase 30 (not offered: MFPA says none) */
#define MFBE_ADDR 2                /* 0x8: address */

static void put_bytes(uint32_t *p, const char *s, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i / 4] |= (uint32_t)(uint8_t)s[i] << (24 - 8 * (i % 4));
}

static int mgir(struct cxsim_card *c, unsigned method, uint32_t *p, unsigned ndw, uint64_t *ns)
{
	uint32_t r[MGIR_DWORDS] = {0};
	const uint16_t *v = c->boot.fw_ver;

	(void)method;
	r[MGIR_HW_DEV] = (uint32_t)c->p.hw_rev << 16 | c->p.pci_device;
	r[MGIR_HW_PORTS] = FW5_PORTS << 16;
	r[MGIR_HW_ID] = c->p.hw_id ? c->p.hw_id : c->chip->hw_id;
	r[MGIR_FW_VER] = (uint32_t)(v[0] & 0xFF) << 16 | (uint32_t)(v[1] & 0xFF) << 8 | (v[2] & 0xFF);
	if (c->p.icmd_fault == CXSIM_ICMD_SECURE_FW)
		r[MGIR_FW_VER] |= MGIR_FW_SECURED | MGIR_FW_SIGNED;
	put_bytes(r + MGIR_PSID, c->boot.psid, (unsigned)strnlen(c->boot.psid, 16));
	r[MGIR_EXT_MAJOR] = v[0];
	r[MGIR_EXT_MINOR] = v[1];
	r[MGIR_EXT_SUBMINOR] = v[2];
	memset(p, 0, ndw * 4);
	memcpy(p, r, (ndw < MGIR_DWORDS ? ndw : MGIR_DWORDS) * 4);
	*ns = READ_NS;
	return REG_OK;
}

static int mcam(struct cxsim_card *c, unsigned method, uint32_t *p, unsigned ndw, uint64_t *ns)
{
	unsigned group = MCAM_GROUP(p[0]);

	(void)c;
	(void)method;
	memset(p + 1, 0, (ndw - 1) * 4);
	*ns = READ_NS;
	if (group != 0 || ndw < MCAM_MASK + 4)
		return REG_OK; /* group 2 (MIRC and on): nothing there */
	for (unsigned n = 0; n < 128; n++) {
		uint16_t id = (uint16_t)(MCAM_REG_BASE + n);

		if (!sim_reg5_find(id) && !sim_nv5_find(id))
			continue;
		unsigned byte = 15 - n / 8;
		p[MCAM_MASK + byte / 4] |= (1u << (n % 8)) << (24 - 8 * (byte % 4));
	}
	return REG_OK;
}

static int mfpa(struct cxsim_card *c, unsigned method, uint32_t *p, unsigned ndw, uint64_t *ns)
{
	uint64_t t = c->now;

	*ns = READ_NS;
	if (sim_gw_other_holds(c))
		return REG_BUSY;
	if (MFx_FS(p[0]) != 0)
		return REG_BAD_PARAM; /* no second flash: "we dont have that flash bank" */
	if (method == METHOD_SET) {
		c->boot_addr = p[MFPA_BOOT] << c->chip->boot_addr_shift;
		return REG_OK;
	}
	uint32_t fs = p[0];
	memset(p, 0, ndw * 4);
	p[0] = fs;
	p[MFPA_BOOT] = c->boot_addr >> c->chip->boot_addr_shift;
	p[MFPA_FLASHES] = 1 | MFPA_BULK64;
	p[MFPA_JEDEC] = sim_fw_flash_jedec(c, &t);
	*ns += t - c->now;
	return REG_OK;
}

static int mfba(struct cxsim_card *c, unsigned method, uint32_t *p, unsigned ndw, uint64_t *ns)
{
	unsigned n = MFBA_SIZE(p[1]);
	uint32_t addr = p[MFBA_ADDR];
	uint8_t buf[MFBA_MAX];
	uint64_t t = c->now;
	int rc;

	*ns = READ_NS;
	if (sim_gw_other_holds(c))
		return REG_BUSY;
	if (MFx_FS(p[0]) != 0 || n > MFBA_MAX || n % 4 || MFBA_DATA + n / 4 > ndw)
		return REG_BAD_PARAM;
	if (method == METHOD_GET) {
		if ((rc = sim_fw_flash_read(c, addr, buf, n, &t)) == 0)
			for (unsigned i = 0; i < n / 4; i++)
				p[MFBA_DATA + i] = (uint32_t)buf[4 * i] | (uint32_t)buf[4 * i + 1] << 8 |
						   (uint32_t)buf[4 * i + 2] << 16 | (uint32_t)buf[4 * i + 3] << 24;
		*ns = READ_NS + (t - c->now);
	} else {
		if (c->p.icmd_fault == CXSIM_ICMD_SECURE_FW)
			return REG_METHOD_NOT_SUPP;
		for (unsigned i = 0; i < n; i++)
			buf[i] = (uint8_t)(p[MFBA_DATA + i / 4] >> (8 * (i % 4)));
		rc = sim_fw_flash_program(c, addr, buf, n, &t);
		*ns = WRITE_NS + (t - c->now);
	}
	if (rc)
		return REG_BAD_PARAM;
	c->cnt.fw_flash_cmds++;
	return REG_OK;
}

static int mfbe(struct cxsim_card *c, unsigned method, uint32_t *p, unsigned ndw, uint64_t *ns)
{
	uint64_t t = c->now;

	(void)method;
	(void)ndw;
	*ns = READ_NS;
	if (c->p.icmd_fault == CXSIM_ICMD_SECURE_FW)
		return REG_METHOD_NOT_SUPP;
	if (sim_gw_other_holds(c))
		return REG_BUSY;
	if (MFx_FS(p[0]) != 0 || (p[0] & MFBE_BULK32))
		return REG_BAD_PARAM;
	int rc = sim_fw_flash_erase(c, p[MFBE_ADDR], p[0] & MFBE_BULK64 ? 0x10000 : 0x1000, &t);
	*ns = WRITE_NS + (t - c->now);
	if (rc)
		return REG_BAD_PARAM;
	c->cnt.fw_flash_cmds++;
	return REG_OK;
}

static const struct sim_reg regs[] = {
	{REG_MGIR, "MGIR", GET, 1, mgir},
	{REG_MCAM, "MCAM", GET, MCAM_MASK + 4, mcam},
	{REG_MFPA, "MFPA", GET | SET, MFPA_DWORDS, mfpa},
	{REG_MFBA, "MFBA", GET | SET, MFBA_DATA, mfba},
	{REG_MFBE, "MFBE", SET, MFBE_ADDR + 1, mfbe},
};

const struct sim_reg *sim_reg5_find(uint16_t id)
{
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (regs[i].id == id)
			return &regs[i];
	return NULL;
}
