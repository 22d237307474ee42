/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fw_regs.c — MGIR, MFPA, MFBA, MFBE packed and sent (hw-access.md §3.14). */
#include <string.h>

#include "dev/fw_regs.h"
#include "util/bytes.h"

#define REG_MFPA 0x9010               /* REG_ID_MFPA, reg_access/reg_access.c@4.21 */
#define REG_MFBA 0x9011               /* REG_ID_MFBA */
#define REG_MFBE 0x9012               /* REG_ID_MFBE */
#define REG_MGIR 0x9020               /* REG_ID_MGIR */
#define MGIR_SIZE 0xA0                /* REG_ACCESS_HCA_MGIR_SIZE, reg_access_hca_layouts.h@4.21 */
#define MGIR_HW_DEV 0x0               /* device_hw_revision 31:16, device_id 15:0 */
#define MGIR_PORTS 0x4                /* num_ports 23:16 */
#define MGIR_FW 0x20                  /* fw_info: secured 24, signed_fw 25, major 23:16, minor 15:8, sub 7:0 */
#define MGIR_SECURED (1u << 24)
#define MGIR_SIGNED (1u << 25)
#define MGIR_PSID 0x30                /* fw_info.psid[16] */
#define MGIR_EXT_VER 0x44             /* extended_major, _minor, _sub_minor: three dwords */
#define MFPA_SIZE 0x20                /* TOOLS_OPEN_MFPA_SIZE, tools_open_layouts.h@4.21 */
#define MFPA_BOOT 0x4                 /* boot_address 23:0 */
#define MFPA_FLASHES 0x10             /* flash_num 3:0, bulk_64kb_erase_en 29 */
#define MFPA_BULK64 (1u << 29)
#define MFPA_JEDEC 0x14               /* jedec_id 23:0, RDID's first byte in 7:0 */
#define MFBA_HDR 12                   /* REG_ACCESS_MFBA_HEADER_LEN: fs, size, address */
#define MFBA_SIZE_OFF 0x4             /* size 8:0 */
#define MFBA_ADDR 0x8
#define MFBE_SIZE 0xC                 /* REGISTER_ACCESS_MFBE_SIZE */
#define MFBE_BULK64 (1u << 29)        /* 0x0 bulk_64kb_erase */
#define MFBE_ADDR 0x8

int fw_mgir(struct icmd_link *ic, struct mgir *m, struct cx_status *st)
{
	uint8_t r[MGIR_SIZE] = {0};
	uint32_t fw;

	if (icmd_reg(ic, REG_MGIR, REG_METHOD_GET, r, sizeof(r), sizeof(r), sizeof(r), st))
		return st->code;
	*m = (struct mgir){.device_id = (uint16_t)be32(r + MGIR_HW_DEV), .hw_rev = (uint16_t)(be32(r + MGIR_HW_DEV) >> 16),
			   .num_ports = (uint8_t)(be32(r + MGIR_PORTS) >> 16)};
	fw = be32(r + MGIR_FW);
	m->secured = fw & MGIR_SECURED;
	m->signed_fw = fw & MGIR_SIGNED;
	for (unsigned i = 0; i < 3; i++)
		m->ver[i] = (uint16_t)be32(r + MGIR_EXT_VER + 4 * i);
	if (!m->ver[0] && !m->ver[1] && !m->ver[2]) {
		m->ver[0] = (uint8_t)(fw >> 16);
		m->ver[1] = (uint8_t)(fw >> 8);
		m->ver[2] = (uint8_t)fw;
	}
	memcpy(m->psid, r + MGIR_PSID, 16);
	m->psid[16] = 0;
	return CX_OK;
}

int fw_mfpa(struct icmd_link *ic, struct mfpa *m, struct cx_status *st)
{
	uint8_t r[MFPA_SIZE] = {0};
	uint32_t j;

	if (icmd_reg(ic, REG_MFPA, REG_METHOD_GET, r, sizeof(r), sizeof(r), sizeof(r), st))
		return st->code;
	/* run_mfpa_command swaps the bytes: RDID's first byte (the manufacturer) is in 7:0. */
	j = be32(r + MFPA_JEDEC);
	*m = (struct mfpa){.jedec = (j & 0xFF) << 16 | (j & 0xFF00) | (j >> 16 & 0xFF),
			   .flash_num = be32(r + MFPA_FLASHES) & 0xF, .bulk64 = be32(r + MFPA_FLASHES) & MFPA_BULK64,
			   .boot_address = be32(r + MFPA_BOOT) & 0xFFFFFF};
	return CX_OK;
}

static int mfba_bad(uint32_t addr, unsigned len, struct cx_status *st)
{
	return cx_fail(st, CX_EVALUE, "MFBA: %u bytes at 0x%x: at most %u, dword-aligned", len, addr, MFBA_MAX);
}

int fw_mfba_read(struct icmd_link *ic, uint32_t addr, uint8_t *buf, unsigned len, struct cx_status *st)
{
	uint8_t r[MFBA_HDR + MFBA_MAX] = {0};

	if (!len || len > MFBA_MAX || (len | addr) & 3)
		return mfba_bad(addr, len, st);
	put_be32(r + MFBA_SIZE_OFF, len);
	put_be32(r + MFBA_ADDR, addr);
	/* reg_access_mfba: a GET writes the header only and reads header and data. */
	if (icmd_reg(ic, REG_MFBA, REG_METHOD_GET, r, MFBA_HDR + len, MFBA_HDR, MFBA_HDR + len, st))
		return st->code;
	/* Each data dword holds four flash bytes little-endian (sx_st_block_access). */
	for (unsigned i = 0; i < len; i += 4)
		put_le32(buf + i, be32(r + MFBA_HDR + i));
	return CX_OK;
}

int fw_mfba_write(struct icmd_link *ic, uint32_t addr, const uint8_t *buf, unsigned len, struct cx_status *st)
{
	uint8_t r[MFBA_HDR + MFBA_MAX] = {0};

	if (!len || len > MFBA_MAX || (len | addr) & 3)
		return mfba_bad(addr, len, st);
	put_be32(r + MFBA_SIZE_OFF, len);
	put_be32(r + MFBA_ADDR, addr);
	for (unsigned i = 0; i < len; i += 4)
		put_be32(r + MFBA_HDR + i, le32(buf + i));
	return icmd_reg(ic, REG_MFBA, REG_METHOD_SET, r, MFBA_HDR + len, MFBA_HDR + len, MFBA_HDR, st);
}

int fw_mfbe(struct icmd_link *ic, uint32_t addr, bool bulk64, struct cx_status *st)
{
	uint8_t r[MFBE_SIZE] = {0};

	if (addr & ((bulk64 ? 0x10000u : 0x1000u) - 1))
		return cx_fail(st, CX_EVALUE, "MFBE: 0x%x is not aligned to its erase unit", addr);
	put_be32(r, bulk64 ? MFBE_BULK64 : 0);
	put_be32(r + MFBE_ADDR, addr);
	return icmd_reg(ic, REG_MFBE, REG_METHOD_SET, r, sizeof(r), sizeof(r), sizeof(r), st);
}
