/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parts.c — the supported SPI NOR families and ID decoding (hw-access.md §3.4). */
#include <stdio.h>

#include "flash/parts.h"
#include "flash/spi.h"

#define V_ST 0x20                 /* FV_ST: ST / Numonyx / Micron, §3.4 */
#define V_SST 0xBF                /* FV_SST, §3.4 */
#define V_WINBOND 0xEF            /* FV_WINBOND, §3.4 */
#define V_ATMEL 0x1F              /* FV_ATMEL, §3.4 */
#define V_SPANSION 0x01           /* FV_S25FLXXXX, §3.4 */
#define V_MACRONIX 0xC2           /* FV_MX25K16XXX, §3.4 */
#define V_ISSI 0x9D               /* FV_IS25LPXXX, §3.4 */
#define V_GIGADEVICE 0xC8         /* FV_GD25QXXX, §3.4 */
#define T_SST25 0x25              /* FMT_SST_25: the type whose density needs the SST map, §3.4 */
#define T_M25P 0x20               /* FMT_ST_M25P: what a RES answer stands for, §3.4 step 3 */
#define ATMEL_TYPE_SHIFT 5        /* Atmel type = ID bits [23:21] = byte 1 bits 7:5, §3.4 step 2 */
#define ATMEL_CAP_MASK 0x1F       /* Atmel capacity code = bits [20:16], §3.4 step 2 */
#define ATMEL_CAP_MIN 4           /* capacity 4..7 → log2 0x13..0x16, §3.4 step 2 */
#define ATMEL_CAP_MAX 7
#define ATMEL_CAP_TO_LOG2 0x0F    /* log2 = capacity + 0x0F (4 → 0x13), §3.4 step 2 */
#define DENSITY_64MB_CODE 0x20    /* [HEAD]: density byte 0x20 means log2 0x1a, §3.4 step 4 */
#define DENSITY_64MB_LOG2 0x1A
#define RES_M25P_MIN 0x10         /* RES signatures of ST M25Pxx: 0x10..0x16, §3.4 step 3 */
#define RES_M25P_MAX 0x16
#define SST_INIT_SR 0x80          /* SST_STATUS_REG_VAL: BP bits 0, §3.4 step 8 */
#define ATMEL_INIT_SR 0x00        /* ATMEL_STATUS_REG_VAL, §3.4 step 8 */
#define BP_ALL FL_SR_BP_MASK      /* BP2..BP0 = SR bits [4:2], §4.1 item 5 */
#define BP_ATMEL 0x0Cu            /* AT25DF: SWP = bits 3:2; bit 4 is WPP, the /WP pin level (Atmel
                                   * datasheet, from memory: UNCONFIRMED; hw-access.md §3.4) */
#define BP_256 0x3Cu              /* 32 MiB Winbond/Macronix: BP3..BP0 = SR bits [5:2] (mflash.c
                                   * mf_set_write_protect_direct_access writes 4 BP bits on FD_256) */
#define LOG2_TINY 0x10            /* 64 KiB: below this no entry makes sense (selfcheck) */

#define LEGACY FL_LOG2_LEGACY_MIN, FL_LOG2_LEGACY_MAX
#define ONLY_16MB FL_LOG2_LEGACY_MAX, FL_LOG2_LEGACY_MAX
#define ONLY_32MB FL_LOG2_MAX, FL_LOG2_MAX
#define ERASE_4K FL_OP_SSE, FL_SZ_4K
#define ERASE_64K FL_OP_SE, FL_SZ_64K

/* §3.4 "Supported flash table" ([PRE] g_flash_info_arr[]). sub_and_sector is
 * the support_sub_and_sector column of mstflint's current g_flash_info_arr[]
 * for the same families (hw-access.md §3.4, "4K+64K"). */
const struct fl_part fl_parts[] = {
	/* name          vendor       type  sizes      erase      4K+64K byteprog init SR    BP bits */
	{"M25PXxx",      V_ST,        0x71, LEGACY,    ERASE_4K,  true,  false, FL_NO_INIT_SR, BP_ALL},
	{"M25Pxx",       V_ST,        0x20, LEGACY,    ERASE_64K, false, false, FL_NO_INIT_SR, BP_ALL},
	{"N25Q0XX",      V_ST,        0xBA, LEGACY,    ERASE_4K,  true,  false, FL_NO_INIT_SR, BP_ALL},
	{"SST25VFxx",    V_SST,       0x25, LEGACY,    ERASE_64K, false, true,  SST_INIT_SR, BP_ALL},
	{"W25QxxBV",     V_WINBOND,   0x40, LEGACY,    ERASE_4K,  true,  false, FL_NO_INIT_SR, BP_ALL},
	/* 32 MiB (FD_256), the ConnectX-4/5 parts of §3.13: mstflint 4.21 has 0xef70 and 0xc220;
	 * 0xef40 (W25Q256JV-IQ) came in 4.25 (mflash.c g_flash_info_arr). */
	{"W25Q256JV",    V_WINBOND,   0x40, ONLY_32MB, ERASE_4K,  true,  false, FL_NO_INIT_SR, BP_256},
	{"W25Q256JV-M",  V_WINBOND,   0x70, ONLY_32MB, ERASE_4K,  true,  false, FL_NO_INIT_SR, BP_256},
	{"MX25L256xx",   V_MACRONIX,  0x20, ONLY_32MB, ERASE_4K,  true,  false, FL_NO_INIT_SR, BP_256},
	{"W25Xxx",       V_WINBOND,   0x30, LEGACY,    ERASE_4K,  false, false, FL_NO_INIT_SR, BP_ALL},
	{"W25Qxxx",      V_WINBOND,   0x70, ONLY_16MB, ERASE_4K,  true,  false, FL_NO_INIT_SR, BP_ALL},
	{"AT25DFxxx",    V_ATMEL,     0x02, LEGACY,    ERASE_4K,  false, false, ATMEL_INIT_SR, BP_ATMEL},
	{"S25FLXXXP",    V_SPANSION,  0x02, LEGACY,    ERASE_64K, false, false, FL_NO_INIT_SR, BP_ALL},
	{"S25FL11xx",    V_SPANSION,  0x40, LEGACY,    ERASE_4K,  true,  false, FL_NO_INIT_SR, BP_ALL},
	{"MX25L16xxx",   V_MACRONIX,  0x20, LEGACY,    ERASE_4K,  true,  false, FL_NO_INIT_SR, BP_ALL},
	{"S25FLxxx",     V_SPANSION,  0x60, ONLY_16MB, ERASE_4K,  true,  false, FL_NO_INIT_SR, BP_ALL},
	{"IS25LPxxx",    V_ISSI,      0x60, LEGACY,    ERASE_4K,  true,  false, FL_NO_INIT_SR, BP_ALL},
	{"GD25LBxxx",    V_GIGADEVICE, 0x40, ONLY_16MB, ERASE_4K, true,  false, FL_NO_INIT_SR, BP_ALL},
};

const unsigned fl_nparts = sizeof(fl_parts) / sizeof(fl_parts[0]);

/* cntx_sst_get_log2size, §3.4 step 4. */
static bool sst_log2(uint8_t density, unsigned *log2)
{
	static const uint8_t map[][2] = {{0x41, 0x15}, {0x4A, 0x16}, {0x8D, 0x13}, {0x8E, 0x14}};

	for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i][0] == density) {
			*log2 = map[i][1];
			return true;
		}
	return false;
}

enum fl_id_kind fl_decode_jedec(const uint8_t id[3], struct fl_id *out)
{
	*out = (struct fl_id){.vendor = id[0], .type = id[1], .log2size = id[2]};
	if ((id[0] == 0xFF && id[1] == 0xFF && id[2] == 0xFF) || (id[0] == 0 && id[1] == 0 && id[2] == 0))
		return FL_ID_NONE; /* RDID failed: no flash, or too old for RDID, §3.4 step 3 */
	if (id[0] == V_ATMEL) {
		unsigned cap = id[1] & ATMEL_CAP_MASK;

		out->type = id[1] >> ATMEL_TYPE_SHIFT;
		if (cap < ATMEL_CAP_MIN || cap > ATMEL_CAP_MAX)
			return FL_ID_BAD_SIZE;
		out->log2size = cap + ATMEL_CAP_TO_LOG2;
		return FL_ID_OK;
	}
	if (id[0] == V_SST && id[1] == T_SST25)
		return sst_log2(id[2], &out->log2size) ? FL_ID_OK : FL_ID_BAD_SIZE;
	if (id[2] == DENSITY_64MB_CODE)
		out->log2size = DENSITY_64MB_LOG2;
	return FL_ID_OK;
}

enum fl_id_kind fl_decode_res(uint8_t es, struct fl_id *out)
{
	*out = (struct fl_id){.vendor = V_ST, .type = T_M25P, .log2size = (unsigned)es + 1};
	if (es >= RES_M25P_MIN && es <= RES_M25P_MAX)
		return FL_ID_OK;
	return es == 0xFF || es == 0x00 ? FL_ID_NONE : FL_ID_UNSUPPORTED;
}

const struct fl_part *fl_part_lookup(const struct fl_id *id)
{
	for (unsigned i = 0; i < fl_nparts; i++) {
		const struct fl_part *p = &fl_parts[i];

		if (p->vendor == id->vendor && p->type == id->type && id->log2size >= p->log2_min &&
		    id->log2size <= p->log2_max)
			return p;
	}
	return NULL;
}

static int bad(char *msg, size_t len, unsigned i, const char *name, const char *what)
{
	snprintf(msg, len, "fl_parts[%u] (%s): %s", i, name ? name : "?", what);
	return -1;
}

int fl_parts_selfcheck(const struct fl_part *t, unsigned n, char *msg, size_t msglen)
{
	for (unsigned i = 0; i < n; i++) {
		const struct fl_part *p = &t[i];

		if (!p->name || !p->name[0])
			return bad(msg, msglen, i, p->name, "no name");
		if (p->vendor == 0x00 || p->vendor == 0xFF)
			return bad(msg, msglen, i, p->name, "vendor 0x00/0xFF is what an absent flash reads");
		if (p->vendor == V_ATMEL && p->type >> (8 - ATMEL_TYPE_SHIFT))
			return bad(msg, msglen, i, p->name, "Atmel type has only 3 bits");
		if (p->log2_min > p->log2_max || p->log2_min < LOG2_TINY)
			return bad(msg, msglen, i, p->name, "empty or implausible size range");
		if (p->log2_max > FL_LOG2_MAX)
			return bad(msg, msglen, i, p->name, "larger than 32 MiB");
		if (!((p->erase_op == FL_OP_SSE && p->sector_size == FL_SZ_4K) ||
		      (p->erase_op == FL_OP_SE && p->sector_size == FL_SZ_64K)))
			return bad(msg, msglen, i, p->name, "erase opcode and sector size disagree");
		if (p->sector_size > (1u << p->log2_min))
			return bad(msg, msglen, i, p->name, "sector larger than the smallest size");
		if (p->init_sr != FL_NO_INIT_SR && (p->init_sr < 0 || p->init_sr > 0xFF))
			return bad(msg, msglen, i, p->name, "init status value is not a byte");
		if (p->init_sr != FL_NO_INIT_SR && (p->init_sr & p->bp_mask))
			return bad(msg, msglen, i, p->name, "init status value sets block-protect bits");
		if (!p->bp_mask || (p->bp_mask & ~(uint8_t)(p->log2_max > FL_LOG2_3BYTE_MAX ? BP_256 : FL_SR_BP_MASK)))
			return bad(msg, msglen, i, p->name, "protect bits empty or outside BP2..BP0 (BP3..BP0 over 16 MiB)");
		if (p->byte_program && p->init_sr == FL_NO_INIT_SR)
			return bad(msg, msglen, i, p->name,
				   "SST parts power on protected: they need an init status value");
		for (unsigned j = 0; j < i; j++) {
			const struct fl_part *q = &t[j];

			if (q->vendor == p->vendor && q->type == p->type && q->log2_min <= p->log2_max &&
			    p->log2_min <= q->log2_max)
				return bad(msg, msglen, i, p->name, "overlaps an earlier entry: ID is ambiguous");
		}
	}
	return 0;
}
