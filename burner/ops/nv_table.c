/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_table.c — the settings table (see nv_table.h) and its field and value helpers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dev/chip.h"
#include "ops/nv_table.h"

/* QUERY_DEV_CAP tool capability bits at mailbox 0xc0 (mlxcfg_param_lib.cpp@4.21 enum). */
#define CAP_SRIOV 0
#define CAP_WOL_P1 1
#define CAP_WOL_P2 2
#define CAP_VPI_P1 3
#define CAP_VPI_P2 4
#define CAP_BAR_SZ 5
/* Support bits of QUERY_DEF_PARAMS (tools_open_query_def_params_*_unpack, tools_open_layouts.c@4.21). */
#define PORT_FORCE_MODE 0, 17         /* per port dword 0: nv_config_vpi_force_mode */
#define PORT_IB_BOOT 2, 28            /* per port dword 2: nv_config_infiniband_boot_settings */
#define GLOBAL_IP_VER 1, 21           /* global dword 1: boot_ip_ver (support of IP_VER_Pn) */
#define GLOBAL_CQ_TS 0, 17            /* global dword 0: nv_cq_timestamp_supported */
#define GLOBAL_STEER 0, 16            /* nv_steer_force_vlan_supported */
#define GLOBAL_PHY_MODE 0, 15         /* nv_config_phy_param_mode */
#define GLOBAL_CLOCK 0, 14            /* nv_config_clock_map_to_user */

static const struct nv_value_name bools[] = {{"False", 0}, {"True", 1}, {NULL, 0}};
static const struct nv_value_name link_types[] = {{"IB", 1}, {"ETH", 2}, {"VPI", 3}, {NULL, 0}};
static const struct nv_value_name phy_types[] = {{"XAUI", 1}, {"XFI", 2}, {"SGMII", 3}, {NULL, 0}};
static const struct nv_value_name xfi_modes[] = {{"_10G", 0}, {"_20G", 1}, {"_40G", 2}, {NULL, 0}};
static const struct nv_value_name boot_protos[] = {{"None", 0}, {"PXE", 1}, {"iSCSI", 2}, {"Both", 3}, {NULL, 0}};
static const struct nv_value_name ip_vers[] = {{"IPv4", 0}, {"IPv6", 1}, {"IPv4_IPv6", 2}, {"IPv6_IPv4", 3},
					       {NULL, 0}};
static const struct nv_value_name phy_modes[] = {{"DEVICE_DEFAULT", 0}, {"LEGACY", 1}, {"ADVANCED", 2},
						 {NULL, 0}};

/* Field positions (mlxconfig_4th_gen_layouts.c@4.25 *_pack; bit offsets turned into LSB shifts). */
#define F(shift, width) {0, shift, width}
#define CAPG(bit) NV_GATE_CAP, 0, bit
#define PBIT(dw_bit) NV_GATE_PORT_BIT, dw_bit
#define GBIT(dw_bit) NV_GATE_GLOBAL_BIT, dw_bit
#define PORTQ NV_GATE_PORT, 0, 0
#define DG(dw, shift, width) NV_DEF_GLOBAL, {dw, shift, width}
#define DP(dw, shift, width) NV_DEF_PORT, {dw, shift, width}
#define G4 NV_GEN4, 0, {0, 0, 0}        /* a ConnectX-3 row: no capability record, no valid bit */

/* The per-port rows, once per port. */
#define VPI(n, cap) \
	{"LINK_TYPE_P" #n, NV_TLV_VPI, n, 1, F(0, 2), CAPG(cap), DP(1, 25, 2), 1, 3, link_types, G4}, \
	{"PHY_TYPE_P" #n, NV_TLV_VPI, n, 1, F(4, 2), PBIT(PORT_FORCE_MODE), DP(3, 12, 2), 1, 3, phy_types, G4}, \
	{"XFI_MODE_P" #n, NV_TLV_VPI, n, 1, F(6, 2), PBIT(PORT_FORCE_MODE), DP(3, 10, 2), 0, 2, xfi_modes, G4}, \
	{"FORCE_MODE_P" #n, NV_TLV_VPI, n, 1, F(8, 1), PBIT(PORT_FORCE_MODE), DP(3, 9, 1), 0, 1, bools, G4}
#define PREBOOT(n) \
	{"BOOT_OPTION_ROM_EN_P" #n, NV_TLV_PREBOOT, n, 1, F(31, 1), PORTQ, DP(1, 29, 1), 0, 1, bools, G4}, \
	{"BOOT_VLAN_EN_P" #n, NV_TLV_PREBOOT, n, 1, F(30, 1), PORTQ, DP(1, 28, 1), 0, 1, bools, G4}, \
	{"BOOT_RETRY_CNT_P" #n, NV_TLV_PREBOOT, n, 1, F(24, 3), PORTQ, DP(1, 20, 4), 0, 7, NULL, G4}, \
	{"LEGACY_BOOT_PROTOCOL_P" #n, NV_TLV_PREBOOT, n, 1, F(16, 8), PORTQ, DP(1, 16, 4), 0, 3, boot_protos, G4}, \
	{"BOOT_VLAN_P" #n, NV_TLV_PREBOOT, n, 1, F(0, 12), PORTQ, DP(1, 0, 12), 0, 4095, NULL, G4}

/* GEN5 (mlxconfig_host.db): value names of params link_type, legacy_boot_protocol. */
static const struct nv_value_name link_types5[] = {{"IB", 1}, {"ETH", 2}, {NULL, 0}};
static const struct nv_value_name boot_protos5[] = {{"NONE", 0}, {"PXE", 1}, {"ISCSI", 2}, {"PXE_WO_FAIL_ISCSI", 4},
						    {"ISCSI_WO_FAIL_PXE", 5}, {NULL, 0}};
/* tlvs rows of mlxconfig_host.db: class and index. */
#define VPI_LINK NV5_REC(1, 18)       /* nv_vpi_link_type, 4 bytes */
#define GLOBAL_PCI NV5_REC(0, 128)    /* nv_global_pci_conf, 12 bytes */
#define GLOBAL_PCI_CAP NV5_REC(0, 129) /* nv_global_pci_cap, 20 bytes (cap) */
#define PCI_CONF NV5_REC(7, 128)      /* nv_pci_conf, 4 bytes */
#define PCI_CAP NV5_REC(7, 129)       /* nv_pci_cap, 4 bytes (cap) */
#define ROM_BOOT1 NV5_REC(3, 545)     /* nv_rom_boot_conf1, 4 bytes, target EXP_ROM */
#define NVQC5 NV_GATE_NVQC, 0, 0
#define ALWAYS5 NV_GATE_ALWAYS, 0, 0
#define CAP5(dw, bit) NV_GATE_CAP_TLV, dw, bit
#define DEF5 NV_DEF_TLV, {0, 0, 0}
#define GEN5(cap, valid) NV_GEN5, cap, valid
#define NO_VALID {0, 0, 0}
#define SRIOV_VALID {0, 31, 1}        /* sriov_valid 0x0.31 */

const struct nv_setting nv_settings[] = {
	{"SRIOV_EN", NV_TLV_SRIOV, 0, 1, F(31, 1), CAPG(CAP_SRIOV), DG(1, 31, 1), 0, 1, bools, G4},
	{"NUM_OF_VFS", NV_TLV_SRIOV, 0, 1, F(0, 16), CAPG(CAP_SRIOV), DG(1, 0, 8), 0, NV_MAX_IS_VFS, NULL, G4},
	{"WOL_MAGIC_EN_P1", NV_TLV_WOL, 1, 2, F(10, 1), CAPG(CAP_WOL_P1), DP(1, 27, 1), 0, 1, bools, G4},
	{"WOL_MAGIC_EN_P2", NV_TLV_WOL, 2, 2, F(10, 1), CAPG(CAP_WOL_P2), DP(1, 27, 1), 0, 1, bools, G4},
	VPI(1, CAP_VPI_P1),
	VPI(2, CAP_VPI_P2),
	{"LOG_BAR_SIZE", NV_TLV_BAR_SIZE, 0, 1, F(0, 32), CAPG(CAP_BAR_SZ), NV_DEF_BAR, {0, 0, 0}, 0, NV_MAX_IS_BAR,
	 NULL, G4},
	{"BOOT_PKEY_P1", NV_TLV_IB_BOOT, 1, 1, F(0, 16), PBIT(PORT_IB_BOOT), DP(2, 0, 16), 0, 65535, NULL, G4},
	{"BOOT_PKEY_P2", NV_TLV_IB_BOOT, 2, 1, F(0, 16), PBIT(PORT_IB_BOOT), DP(2, 0, 16), 0, 65535, NULL, G4},
	PREBOOT(1),
	PREBOOT(2),
	{"IP_VER_P1", NV_TLV_BOOT_EXT, 1, 1, F(8, 2), GBIT(GLOBAL_IP_VER), DP(2, 24, 2), 0, 3, ip_vers, G4},
	{"IP_VER_P2", NV_TLV_BOOT_EXT, 2, 1, F(8, 2), GBIT(GLOBAL_IP_VER), DP(2, 24, 2), 0, 3, ip_vers, G4},
	{"PHY_PARAMETER_MODE", NV_TLV_CX3_GLOBAL, 0, 8, F(28, 2), GBIT(GLOBAL_PHY_MODE), DG(1, 22, 2), 0, 2, phy_modes, G4},
	{"INT_CLOCK_TO_USER", NV_TLV_CX3_GLOBAL, 0, 8, F(27, 1), GBIT(GLOBAL_CLOCK), DG(1, 27, 1), 0, 1, bools, G4},
	{"CQ_TIMESTAMP", NV_TLV_CX3_GLOBAL, 0, 8, F(31, 1), GBIT(GLOBAL_CQ_TS), DG(1, 29, 1), 0, 1, bools, G4},
	{"STEER_FORCE_VLAN", NV_TLV_CX3_GLOBAL, 0, 8, F(30, 1), GBIT(GLOBAL_STEER), DG(1, 28, 1), 0, 1, bools, G4},
	/* GEN5, in mstconfig's order for these records */
	{"LINK_TYPE_P1", VPI_LINK, 1, 1, F(2, 2), NVQC5, DEF5, 1, 2, link_types5, GEN5(0, NO_VALID)},  /* 0x0.2 */
	{"LINK_TYPE_P2", VPI_LINK, 2, 1, F(2, 2), NVQC5, DEF5, 1, 2, link_types5, GEN5(0, NO_VALID)},
	/* sriov_en 0x4.31, total_vfs 0x4.0 (16 bits); shown when nv_global_pci_cap sriov_support 0x4.31 */
	{"SRIOV_EN", GLOBAL_PCI, 0, 3, {1, 31, 1}, CAP5(1, 31), DEF5, 0, 1, bools, GEN5(GLOBAL_PCI_CAP, SRIOV_VALID)},
	{"NUM_OF_VFS", GLOBAL_PCI, 0, 3, {1, 0, 16}, CAP5(1, 31), DEF5, 0, NV_MAX_IS_VFS, NULL,
	 GEN5(GLOBAL_PCI_CAP, SRIOV_VALID)},
	/* exp_rom_pxe_enable 0x0.26, exp_rom_uefi_x86_enable 0x0.25; nv_pci_cap's *_supported, same bits */
	{"EXP_ROM_PXE_ENABLE", PCI_CONF, 0, 1, F(26, 1), CAP5(0, 26), DEF5, 0, 1, bools, GEN5(PCI_CAP, NO_VALID)},
	{"EXP_ROM_UEFI_x86_ENABLE", PCI_CONF, 0, 1, F(25, 1), CAP5(0, 25), DEF5, 0, 1, bools, GEN5(PCI_CAP, NO_VALID)},
	/* legacy_boot_protocol 0x0.16 (8 bits) */
	{"LEGACY_BOOT_PROTOCOL", ROM_BOOT1, 0, 1, F(16, 8), ALWAYS5, DEF5, 0, 5, boot_protos5, GEN5(0, NO_VALID)},
};

/* Which generation a family's settings are (dev/chip.h enum cx_family). */
static const uint8_t gen_of[CXF_COUNT] = {
	[CXF_CX2] = NV_GEN_NONE, [CXF_CX3] = NV_GEN4, [CXF_CX3PRO] = NV_GEN4, [CXF_CX4] = NV_GEN5,
	[CXF_CX4LX] = NV_GEN5, [CXF_CX5] = NV_GEN5, [CXF_CX6] = NV_GEN_NONE, [CXF_CX6DX] = NV_GEN_NONE,
	[CXF_CX6LX] = NV_GEN_NONE,
};

unsigned nv_gen_of(unsigned family)
{
	return family < CXF_COUNT ? gen_of[family] : NV_GEN_NONE;
}

const unsigned nv_nsettings = sizeof(nv_settings) / sizeof(nv_settings[0]);

static const struct nv_setting *find(int gen, const char *name, unsigned *idx)
{
	for (unsigned i = 0; name && i < nv_nsettings; i++)
		if ((gen < 0 || nv_settings[i].gen == gen) && !strcmp(nv_settings[i].name, name)) {
			if (idx)
				*idx = i;
			return &nv_settings[i];
		}
	return NULL;
}

const struct nv_setting *nv_setting_find(const char *name, unsigned *idx)
{
	return find(-1, name, idx);
}

const struct nv_setting *nv_setting_find_gen(unsigned gen, const char *name, unsigned *idx)
{
	return find((int)gen, name, idx);
}

static uint32_t mask(unsigned width)
{
	return width >= 32 ? 0xFFFFFFFFu : (1u << width) - 1;
}

uint32_t nv_field_get(const struct nv_setting *s, const uint32_t *dw)
{
	return dw[s->field.dword] >> s->field.shift & mask(s->field.width);
}

void nv_field_put(const struct nv_setting *s, uint32_t *dw, uint32_t v)
{
	uint32_t m = mask(s->field.width) << s->field.shift;

	dw[s->field.dword] = (dw[s->field.dword] & ~m) | (v << s->field.shift & m);
}

const char *nv_value_name(const struct nv_setting *s, uint32_t v)
{
	for (const struct nv_value_name *n = s->names; n && n->name; n++)
		if (n->value == v)
			return n->name;
	return NULL;
}

bool nv_value_parse(const struct nv_setting *s, const char *text, uint32_t *v)
{
	char *end;

	if (!text || !*text)
		return false;
	/* strToNum(input, val, 0): strtoul base 0, the whole text a number. */
	errno = 0;
	unsigned long n = strtoul(text, &end, 0);
	if (!*end && errno == 0 && text[0] != '-' && text[0] != '+' && n <= 0xFFFFFFFEul) {
		*v = (uint32_t)n;
		return true;
	}
	for (const struct nv_value_name *p = s->names; p && p->name; p++)
		if (!strcasecmp(p->name, text)) {
			*v = p->value;
			return true;
		}
	return false;
}
