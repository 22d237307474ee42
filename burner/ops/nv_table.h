/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_table.h — every card setting mstconfig 4.21 has for ConnectX-3 / 3 Pro, as one table.
 *
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

/* What says the card has a setting. */
enum nv_gate {
	NV_GATE_CAP,          /* QUERY_DEV_CAP tool capability bit (gate_bit) */
	NV_GATE_PORT_BIT,     /* a bit of the port's QUERY_DEF_PARAMS answer (gate_dword, gate_bit) */
	NV_GATE_GLOBAL_BIT,   /* a bit of the global QUERY_DEF_PARAMS answer */
	NV_GATE_PORT,         /* the port's QUERY_DEF_PARAMS answers at all */
};

/* Where a default comes from. */
enum nv_def {
	NV_DEF_GLOBAL,        /* global QUERY_DEF_PARAMS dword def.dword */
	NV_DEF_PORT,          /* the port's QUERY_DEF_PARAMS */
	NV_DEF_BAR,           /* QUERY_DEV_CAP's default BAR size (mstconfig's getDefaultBarSz) */
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
};

extern const struct nv_setting nv_settings[];
extern const unsigned nv_nsettings;

/* The row named name (exact, as mstconfig compares), or NULL; *idx its index. */
const struct nv_setting *nv_setting_find(const char *name, unsigned *idx);

/* value of the row's field in a record's dwords, and the record with it set. */
uint32_t nv_field_get(const struct nv_setting *s, const uint32_t *dw);
void nv_field_put(const struct nv_setting *s, uint32_t *dw, uint32_t v);

/* The name of v ("ETH"), or NULL when the row has none for it. */
const char *nv_value_name(const struct nv_setting *s, uint32_t v);

/* Parse "ETH", "eth", "2" or "0x2" as mstconfig does (a number first, base
 * 0, then a name without regard to case). false: neither. */
bool nv_value_parse(const struct nv_setting *s, const char *text, uint32_t *v);

#endif
