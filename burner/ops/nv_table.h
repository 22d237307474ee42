/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_table.h — the card settings cxflash knows, as one table with a generation column:
 * every one mstconfig 4.21 has for ConnectX-3 / 3 Pro (NV_GEN4), and the ones homelab users
 * set on ConnectX-4 / 4 Lx / 5 (NV_GEN5). nv_gen_of() says which rows a family's cards use.
 *
 * NV_GEN4 rows:
 * One row per setting, in mstconfig's order (the mlxCfgParam enum,
 * mlxconfig/mlxcfg_param_lib.h@4.25; mlxcfg_4thgen_commander.cpp@4.21 prints
 * them in that order): its mstconfig name, the settings record (TLV type of
 * MNVA) it lives in and whether that record is global or of one port, the
 * field's place in the record, the value names mstconfig accepts and shows
 * (LINK_TYPE_P1=ETH or =2), the range mstconfig's hardLimitCheck allows, what
 * says the card has it (a QUERY_DEV_CAP tool capability bit or a
 * QUERY_DEF_PARAMS support bit, as each parameter class's cfgSupported asks)
 * and where QUERY_DEF_PARAMS holds its default (mlxcfg_param_lib.cpp@4.21
 * getDefaultParams; record layouts tools_layouts/tools_open_layouts.c@4.21).
 * Bits are counted from the least significant bit of each host dword.
 *
 * NV_GEN5 rows (NVDA over ICMD, dev/nv_icmd.h): names, records, bits and value names are
 * Debian's mstconfig 4.21 database, /usr/share/mstflint/mlxconfig_dbs/mlxconfig_host.db
 * (tables tlvs and params; "0x4.31" there is dword 1, bit 31 from the LSB). A record is
 * kept as NV5_REC(class, index) in tlv, the port apart. The gate is what mstconfig asks
 * before it shows a setting: NVQC's "readable" for a NIC record, a bit of the class's
 * capability record (the params' dependency "$nv_global_pci_cap.sriov_support==1"), or
 * nothing for an EXP_ROM record. The default is the record read with NVDA's `default`
 * bit; a field with a valid bit (SRIOV_EN, NUM_OF_VFS: sriov_valid) reads as its default
 * while the bit is clear, and a write sets it (mlxcfg_tlv.cpp@4.21 query, updateParam...).
 */
#ifndef CX_NV_TABLE_H
#define CX_NV_TABLE_H

#include <stdbool.h>
#include <stdint.h>

/* Settings records (mlxcfg_param_lib.h@4.25). */
#define NV_TLV_WOL 0x10
#define NV_TLV_SRIOV 0x11
#define NV_TLV_VPI 0x12
#define NV_TLV_BAR_SIZE 0x13
#define NV_TLV_CX3_GLOBAL 0x14
#define NV_TLV_BOOT_EXT 0x2001        /* BOOT_SETTINGS_EXTRAS_GEN4 */
#define NV_TLV_PREBOOT 0x2021         /* PREBOOT_BOOT_SETTINGS_TYPE */
#define NV_TLV_IB_BOOT 0x2022         /* INFINIBAND_BOOT_SETTINGS_TYPE */

/* NV_GEN5 records: class in 15:12, index in 11:0 (every index used is below 0x1000). */
#define NV5_REC(cls, index) ((uint16_t)((cls) << 12 | (index)))
#define NV5_REC_CLASS(t) ((unsigned)(t) >> 12)
#define NV5_REC_INDEX(t) ((unsigned)(t) & 0xFFFu)

/* Which registers a family's settings go through. */
enum nv_gen {
	NV_GEN4,              /* ConnectX-3 / 3 Pro: MNVA over the tools HCR */
	NV_GEN5,              /* ConnectX-4 / 4 Lx / 5: NVDA over ICMD */
	NV_GEN_NONE,          /* no settings store (ConnectX-2), or not spoken (ConnectX-6 on) */
};

/* What says the card has a setting. */
enum nv_gate {
	NV_GATE_CAP,          /* QUERY_DEV_CAP tool capability bit (gate_bit) */
	NV_GATE_PORT_BIT,     /* a bit of the port's QUERY_DEF_PARAMS answer (gate_dword, gate_bit) */
	NV_GATE_GLOBAL_BIT,   /* a bit of the global QUERY_DEF_PARAMS answer */
	NV_GATE_PORT,         /* the port's QUERY_DEF_PARAMS answers at all */
	NV_GATE_NVQC,         /* GEN5: NVQC says the firmware reads the record */
	NV_GATE_CAP_TLV,      /* GEN5: bit gate_bit of dword gate_dword of record cap_tlv */
	NV_GATE_ALWAYS,       /* GEN5: an EXP_ROM record, which mstconfig reads whatever NVQC says */
};

/* Where a default comes from. */
enum nv_def {
	NV_DEF_GLOBAL,        /* global QUERY_DEF_PARAMS dword def.dword */
	NV_DEF_PORT,          /* the port's QUERY_DEF_PARAMS */
	NV_DEF_BAR,           /* QUERY_DEV_CAP's default BAR size (mstconfig's getDefaultBarSz) */
	NV_DEF_TLV,           /* GEN5: the field of the record read with NVDA's `default` bit */
};

/* The range limits that are the card's, not the table's. */
#define NV_MAX_IS_VFS 0xFFFFFFF0u     /* NUM_OF_VFS: the card's maximum */
#define NV_MAX_IS_BAR 0xFFFFFFF1u     /* LOG_BAR_SIZE: the card's maximum */

struct nv_field {
	uint8_t dword, shift, width;
};

struct nv_value_name {
	const char *name;
	uint32_t value;
};

struct nv_setting {
	const char *name;
	uint16_t tlv;
	uint8_t port;                    /* 0: a global record, else its port (type_mod) */
	uint8_t tlv_dwords;              /* the record's length */
	struct nv_field field;
	uint8_t gate;                    /* enum nv_gate */
	uint8_t gate_dword, gate_bit;
	uint8_t def_from;                /* enum nv_def */
	struct nv_field def;
	uint32_t min, max;
	const struct nv_value_name *names; /* NULL-name ended; NULL: a number */
	uint8_t gen;                     /* enum nv_gen (NV_GEN4 when left out) */
	uint16_t cap_tlv;                /* NV_GATE_CAP_TLV: the capability record (NV5_REC) */
	struct nv_field valid;           /* GEN5: the field's valid bit; width 0: none */
};

extern const struct nv_setting nv_settings[];
extern const unsigned nv_nsettings;

/* The row named name (exact, as mstconfig compares), or NULL; *idx its index.
 * nv_setting_find looks at every generation's rows, the first match; nv_setting_find_gen
 * at one generation's. */
const struct nv_setting *nv_setting_find(const char *name, unsigned *idx);
const struct nv_setting *nv_setting_find_gen(unsigned gen, const char *name, unsigned *idx);

/* The generation of a family's settings (enum cx_family; NV_GEN_NONE outside the table). */
unsigned nv_gen_of(unsigned family);

/* value of the row's field in a record's dwords, and the record with it set. */
uint32_t nv_field_get(const struct nv_setting *s, const uint32_t *dw);
void nv_field_put(const struct nv_setting *s, uint32_t *dw, uint32_t v);

/* The name of v ("ETH"), or NULL when the row has none for it. */
const char *nv_value_name(const struct nv_setting *s, uint32_t v);

/* Parse "ETH", "eth", "2" or "0x2" as mstconfig does (a number first, base
 * 0, then a name without regard to case). false: neither. */
bool nv_value_parse(const struct nv_setting *s, const char *text, uint32_t *v);

#endif
