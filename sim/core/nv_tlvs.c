/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_tlvs.c — the settings TLVs mlxconfig 4.25 reads and writes on ConnectX-3 / 3 Pro,
 * and the fields in them, with mstconfig's names (hw-access.md §8).
 *
 * Types: mlxconfig/mlxcfg_param_lib.h@4.25 (WOL_TYPE .. BOOT_SETTINGS_EXTRAS_GEN4).
 * Fields: tools_layouts/mlxconfig_4th_gen_layouts.h@4.25, bit n counted from the LSB of
 * the TLV's dword ("0x0.31" is bit 31 of dword 0). Names and value names: the
 * MlxCfgParamParser tables of mlxconfig/mlxcfg_4thgen_commander.cpp@4.21 (mstconfig
 * 4.21, the oracle). The model accepts exactly these TLV types in MNVA. */
#include <stddef.h>

#include "tools.h"

static const char *const bools[] = {"False", "True", NULL};
static const char *const link_types[] = {"", "IB", "ETH", "VPI", NULL};
static const char *const phy_types[] = {"", "XAUI", "XFI", "SGMII", NULL};
static const char *const xfi_modes[] = {"_10G", "_20G", "_40G", NULL};
static const char *const boot_protocols[] = {"None", "PXE", "iSCSI", "Both", NULL};
static const char *const ip_vers[] = {"IPv4", "IPv6", "IPv4_IPv6", "IPv6_IPv4", NULL};
static const char *const phy_param_modes[] = {"DEVICE_DEFAULT", "LEGACY", "ADVANCED", NULL};

/* mlxconfig_4th_gen_wol: en_wol_magic 0x0.10 (the other wake-up bits have no mstconfig name). */
static const struct nv_field wol[] = {
	{"WOL_MAGIC_EN", 0, 10, 1, bools},
	{NULL, 0, 0, 0, NULL},
};
/* mlxconfig_4th_gen_sriov: sriov_en 0x0.31, total_vfs 0x0.0-15. */
static const struct nv_field sriov[] = {
	{"SRIOV_EN", 0, 31, 1, bools},
	{"NUM_OF_VFS", 0, 0, 16, NULL},
	{NULL, 0, 0, 0, NULL},
};
/* mlxconfig_4th_gen_vpi_settings: network_link_type 0x0.0-1, phy_type 0x0.4-5,
 * xfi_mode 0x0.6-7, force_mode 0x0.8 (default_link_type 0x0.2-3 is CX4+ only). */
static const struct nv_field vpi[] = {
	{"LINK_TYPE", 0, 0, 2, link_types},
	{"PHY_TYPE", 0, 4, 2, phy_types},
	{"XFI_MODE", 0, 6, 2, xfi_modes},
	{"FORCE_MODE", 0, 8, 1, bools},
	{NULL, 0, 0, 0, NULL},
};
/* mlxconfig_4th_gen_bar_size: log_uar_bar_size 0x0.0-31. */
static const struct nv_field bar_size[] = {
	{"LOG_BAR_SIZE", 0, 0, 32, NULL},
	{NULL, 0, 0, 0, NULL},
};
/* mlxconfig_4th_gen_nv_cx3_global_conf: clock_map_to_user 0x0.27, phy_param_mode
 * 0x0.28-29, steer_force_vlan 0x0.30, cq_timestamp 0x0.31. */
static const struct nv_field cx3_global[] = {
	{"CQ_TIMESTAMP", 0, 31, 1, bools},
	{"STEER_FORCE_VLAN", 0, 30, 1, bools},
	{"PHY_PARAMETER_MODE", 0, 28, 2, phy_param_modes},
	{"INT_CLOCK_TO_USER", 0, 27, 1, bools},
	{NULL, 0, 0, 0, NULL},
};
/* mlxconfig_4th_gen_boot_settings_ext: ip_ver 0x0.8-9. */
static const struct nv_field boot_ext[] = {
	{"IP_VER", 0, 8, 2, ip_vers},
	{NULL, 0, 0, 0, NULL},
};
/* mlxconfig_4th_gen_preboot_boot_settings: boot_vlan 0x0.0-11, legacy_boot_protocol
 * 0x0.16-23, boot_retry_count 0x0.24-26, boot_vlan_en 0x0.30, boot_option_rom_en 0x0.31. */
static const struct nv_field preboot[] = {
	{"BOOT_OPTION_ROM_EN", 0, 31, 1, bools},
	{"BOOT_VLAN_EN", 0, 30, 1, bools},
	{"BOOT_RETRY_CNT", 0, 24, 3, NULL},
	{"LEGACY_BOOT_PROTOCOL", 0, 16, 8, boot_protocols},
	{"BOOT_VLAN", 0, 0, 12, NULL},
	{NULL, 0, 0, 0, NULL},
};
/* mlxconfig_4th_gen_infiniband_boot_settings: boot_pkey 0x0.0-15. */
static const struct nv_field ib_boot[] = {
	{"BOOT_PKEY", 0, 0, 16, NULL},
	{NULL, 0, 0, 0, NULL},
};

/* Lengths: the layouts' sizes (MLXCONFIG_4TH_GEN_*_SIZE) in dwords. */
static const struct nv_tlv_info tlvs[] = {
	{0x0010, "WOL", true, 2, wol},                      /* WOL_TYPE */
	{0x0011, "SRIOV", false, 1, sriov},                 /* SRIOV_TYPE */
	{0x0012, "VPI", true, 1, vpi},                      /* VPI_TYPE */
	{0x0013, "BAR_SIZE", false, 1, bar_size},           /* BAR_SIZE_TYPE */
	{0x0014, "CX3_GLOBAL_CONF", false, 8, cx3_global},  /* CX3_GLOBAL_CONF_TYPE */
	{0x2001, "BOOT_SETTINGS_EXT", true, 1, boot_ext},   /* BOOT_SETTINGS_EXTRAS_GEN4 */
	{0x2021, "PREBOOT_BOOT_SETTINGS", true, 1, preboot}, /* PREBOOT_BOOT_SETTINGS_TYPE */
	{0x2022, "IB_BOOT_SETTINGS", true, 1, ib_boot},     /* INFINIBAND_BOOT_SETTINGS_TYPE */
};

const struct nv_tlv_info *nv_tlv_info(uint16_t type)
{
	for (size_t i = 0; i < sizeof(tlvs) / sizeof(tlvs[0]); i++)
		if (tlvs[i].type == type)
			return &tlvs[i];
	return NULL;
}

const struct nv_tlv_info *nv_tlv_table(size_t *n)
{
	*n = sizeof(tlvs) / sizeof(tlvs[0]);
	return tlvs;
}
