/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_tlvs_cx4.c — the settings TLVs the modelled ConnectX-4/4 Lx/5 firmware knows, with
 * the values it answers for a TLV nobody has set (its defaults) (hw-access.md §3.14).
 *
 * Names, classes, indexes and sizes: Debian's mstconfig 4.21 database
 * /usr/share/mstflint/mlxconfig_dbs/mlxconfig_host.db (tables tlvs and params); bits as
 * its params' offsets number them ("0x4.31" is bit 31 of dword 1, from the LSB), which is
 * how the TLV's dwords sit in NVDA's data (nv_regs_cx4.c). The type dword's layout per
 * class: tools_open_layouts.h tools_open_global_type (class 31:24, index 23:0),
 * tools_open_per_port_type (port 23:16, index 15:0), tools_open_per_host_type (host 23:18,
 * function 17:10, index 9:0).
 *
 * The defaults are UNCONFIRMED (plausible for a stock card, not read from one): link type
 * IB on ConnectX-4 and 5 (VPI parts), ETH on 4 Lx; SR-IOV off, 0 VFs of at most 127, one
 * PF; PXE and UEFI x86 expansion ROMs on; the legacy boot ROM on with PXE. Two ports.
 * A TLV not in this table: NVQC says neither readable nor writable, NVDA GET answers
 * "resource not available" (no data: mstconfig shows zeros for an EXP_ROM TLV, which it
 * reads whatever NVQC says), NVDA SET stores it as given.
 */
#include <stddef.h>

#include "card.h"

enum {
	CLASS_GLOBAL = 0,            /* Global, mlxcfg_tlv.h TLVClass */
	CLASS_PHYS_PORT = 1,         /* Physical_Port */
	CLASS_PER_HOST_ALL_FN = 3,   /* Per_Host_All_Functions */
	CLASS_PER_HOST_PER_FN = 7,   /* Per_Host_Per_Function */
};

/* nv_vpi_link_type: default_link_type, mstconfig's LINK_TYPE_Pn, 0x0.2 (2 bits), IB=1 ETH=2 */
#define VPI_LINK(t) ((uint32_t)(t) << 2)
/* nv_global_pci_conf: sriov_en 0x4.31, total_vfs 0x4.0 (16), num_pfs 0x4.16 (8) */
#define PCI_NUM_PFS(n) ((uint32_t)(n) << 16)
/* nv_global_pci_cap: max_vfs_per_pf_valid 0x0.31; sriov_support 0x4.31, max_num_pfs 0x4.16,
 * max_vfs_per_pf 0x4.0 */
#define CAP_MAX_VFS_VALID (1u << 31)
#define CAP_SRIOV (1u << 31)
#define CAP_MAX_PFS(n) ((uint32_t)(n) << 16)
#define MAX_VFS 127
/* nv_pci_conf / nv_pci_cap: exp_rom_uefi_x86 0x0.25, exp_rom_pxe 0x0.26 (enable / supported) */
#define ROM_UEFI_X86 (1u << 25)
#define ROM_PXE (1u << 26)
/* nv_rom_boot_conf1: boot_option_rom_en 0x0.31, legacy_boot_protocol 0x0.16 (8), PXE=1 */
#define BOOT_ROM_EN (1u << 31)
#define BOOT_PROTOCOL(p) ((uint32_t)(p) << 16)

/* The fields boot-check decodes, mstconfig's names and value names (the db's params). */
static const char *const bools[] = {"False", "True", NULL};
static const char *const link_types[] = {"", "IB", "ETH", NULL};
static const char *const boot_protocols[] = {"NONE", "PXE", "ISCSI", "", "PXE_WO_FAIL_ISCSI",
					     "ISCSI_WO_FAIL_PXE", NULL};
static const struct nv_field vpi_fields[] = {
	{"LINK_TYPE", 0, 2, 2, link_types},
	{NULL, 0, 0, 0, NULL},
};
static const struct nv_field pci_global_fields[] = {
	{"SRIOV_EN", 1, 31, 1, bools},
	{"NUM_OF_VFS", 1, 0, 16, NULL},
	{"NUM_OF_PF", 1, 16, 8, NULL},
	{NULL, 0, 0, 0, NULL},
};
static const struct nv_field pci_fields[] = {
	{"EXP_ROM_PXE_ENABLE", 0, 26, 1, bools},
	{"EXP_ROM_UEFI_x86_ENABLE", 0, 25, 1, bools},
	{NULL, 0, 0, 0, NULL},
};
static const struct nv_field rom_boot_fields[] = {
	{"LEGACY_BOOT_PROTOCOL", 0, 16, 8, boot_protocols},
	{"BOOT_VLAN_EN", 0, 30, 1, bools},
	{"BOOT_VLAN", 0, 0, 12, NULL},
	{NULL, 0, 0, 0, NULL},
};
static const struct nv_field no_fields[] = {
	{NULL, 0, 0, 0, NULL},
};

static const struct nv5_tlv tlvs[] = {
	{"nv_vpi_link_type", CLASS_PHYS_PORT, 18, 4, false, {VPI_LINK(1)}, vpi_fields},
	{"nv_global_pci_conf", CLASS_GLOBAL, 128, 12, false, {0, PCI_NUM_PFS(1), 0}, pci_global_fields},
	{"nv_global_pci_cap", CLASS_GLOBAL, 129, 20, true,
	 {CAP_MAX_VFS_VALID, CAP_SRIOV | CAP_MAX_PFS(1) | MAX_VFS, 0, 0, 0}, no_fields},
	{"nv_pci_conf", CLASS_PER_HOST_PER_FN, 128, 4, false, {ROM_PXE | ROM_UEFI_X86}, pci_fields},
	{"nv_pci_cap", CLASS_PER_HOST_PER_FN, 129, 4, true, {ROM_PXE | ROM_UEFI_X86}, no_fields},
	{"nv_rom_boot_conf1", CLASS_PER_HOST_ALL_FN, 545, 4, false, {BOOT_ROM_EN | BOOT_PROTOCOL(1)},
	 rom_boot_fields},
};

static uint32_t type_index(uint32_t type)
{
	switch (type >> 24) {
	case CLASS_GLOBAL: return type & 0xFFFFFF;
	case CLASS_PHYS_PORT: return type & 0xFFFF;
	default: return type & 0x3FF;
	}
}

unsigned nv5_port(uint32_t type)
{
	return type >> 24 == CLASS_PHYS_PORT ? (type >> 16) & 0xFF : 0;
}

const struct nv5_tlv *nv5_tlv_find(uint32_t type)
{
	for (size_t i = 0; i < sizeof(tlvs) / sizeof(tlvs[0]); i++)
		if (tlvs[i].cls == type >> 24 && tlvs[i].index == type_index(type))
			return &tlvs[i];
	return NULL;
}

void nv5_defaults(const struct cxsim_card *c, const struct nv5_tlv *t, uint32_t *dw)
{
	for (unsigned j = 0; j < t->size / 4; j++)
		dw[j] = t->defaults[j];
	/* A ConnectX-4 Lx is an Ethernet part: its ports default to ETH. */
	if (t->cls == CLASS_PHYS_PORT && t->index == 18 && c->p.chip == CXSIM_CX4LX)
		dw[0] = VPI_LINK(2);
}
