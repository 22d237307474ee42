/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_reg.h — the settings registers MNVA and MNVIA over ACCESS_REGISTER (hw-access.md §8).
 *
 * A register access is one mailbox: a 16-byte operation TLV (type 1, the
 * register id, GET or SET, class 1; its status comes back in it), a 4-byte
 * register TLV header (type 3, length in dwords) and the register
 * (mtcr_ul/mtcr_ul_com.c@4.25 mreg_send_raw, mtcr_ul/packets_layout.c@4.25).
 *
 * MNVA (0x9024) carries one settings record ("TLV") of the card: an 8-byte
 * header (type, length in dwords, port as type_mod) and the record's dwords.
 * A record is given here as host dwords, dword 0 first, each field where the
 * layouts put it (bit 0 the least significant). On the wire each data dword
 * is big-endian, like the headers: mnva_pack puts data[i] at byte 8 + i
 * (adb2c_calc_array_field_address(88, 8, i, 2048, 1) returns bit 64 + 8i:
 * its last step turns the big-endian bit offset back into a byte address;
 * adb2c_db.c, tools_open_layouts.c@4.21). mstconfig 4.21 on cxsim agrees:
 * its SRIOV_EN=1 NUM_OF_VFS=4 arrives as 0x80000004 (an earlier reading of
 * ours sent the dwords byte-reversed; the oracle caught it).
 * A GET answered "resource not available" (register status 8) means the card
 * holds no such record: the firmware's defaults apply (*stored = false).
 *
 * MNVIA (0x9029, SET only) forgets every record: `mstconfig reset`.
 */
#ifndef CX_NV_REG_H
#define CX_NV_REG_H

#include <stdbool.h>
#include <stdint.h>

#include "dev/tools_hcr.h"

#define NV_MAX_DWORDS 8          /* the largest CX3 record, CX3_GLOBAL_CONF: 0x20 bytes */

/* Register statuses (return_by_reg_status, mtcr_ul/mtcr_ul_com.c@4.25). */
#define NV_REG_RES_NOT_AVLBL 0x08  /* no record stored: defaults apply */
#define NV_REG_CONF_CORRUPT 0x22   /* ME_REG_ACCESS_CONF_CORRUPT */

/* Read record (type, port: 0 for a global one) of ndw dwords. */
int nv_mnva_get(struct hcr *h, uint16_t type, uint8_t port, uint32_t *dw, unsigned ndw, bool *stored,
		struct cx_status *st);

/* Store it. */
int nv_mnva_set(struct hcr *h, uint16_t type, uint8_t port, const uint32_t *dw, unsigned ndw,
		struct cx_status *st);

/* Forget every record (MNVIA SET). */
int nv_mnvia(struct hcr *h, struct cx_status *st);

/* What a register status means, one phrase. */
const char *nv_reg_status_text(unsigned status);

#endif
