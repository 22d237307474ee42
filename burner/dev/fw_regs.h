/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fw_regs.h — the access registers cxflash asks a running ConnectX-4 / 4 Lx / 5 for
 * (hw-access.md §3.14), each packed as mstflint 4.21's layouts pack it
 * (tools_layouts/reg_access_hca_layouts.h, register_access_open_layouts.h,
 * tools_open_layouts.h) and sent with the sizes its reg_access.c sends:
 *
 *  - MGIR: what runs — its version, PSID, and whether it is secure or signed firmware.
 *  - MFPA: the flash behind the firmware — its JEDEC ID, how many flashes, 64 KiB erase.
 *  - MFBA: up to 256 bytes read or written at a flash address; the firmware does the SPI.
 *  - MFBE: one 4 KiB (or 64 KiB) erase.
 *
 * Flash select is always 0: one flash, as on every card of this family cxflash knows
 * (a second one is refused by MFPA's flash_num check in the layer above).
 */
#ifndef CX_FW_REGS_H
#define CX_FW_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include "dev/icmd.h"

#define MFBA_MAX 256                  /* register_access_mfba data[64]: bytes per access */

struct mgir {
	uint16_t device_id;           /* hw_info.device_id: the HW ID */
	uint16_t hw_rev;
	uint8_t num_ports;
	uint16_t ver[3];              /* extended major/minor/subminor (the 8-bit ones if those are 0) */
	bool secured;                 /* fw_info.secured: secure firmware, the chip enforces signatures */
	bool signed_fw;
	char psid[17];
};

struct mfpa {
	uint32_t jedec;               /* RDID's three bytes, manufacturer in 23:16 (mstflint swaps) */
	unsigned flash_num;
	bool bulk64;                  /* bulk_64kb_erase_en */
	uint32_t boot_address;
};

int fw_mgir(struct icmd_link *ic, struct mgir *m, struct cx_status *st);
int fw_mfpa(struct icmd_link *ic, struct mfpa *m, struct cx_status *st);
/* len <= MFBA_MAX, a multiple of 4; addr aligned to 4. */
int fw_mfba_read(struct icmd_link *ic, uint32_t addr, uint8_t *buf, unsigned len, struct cx_status *st);
int fw_mfba_write(struct icmd_link *ic, uint32_t addr, const uint8_t *buf, unsigned len, struct cx_status *st);
/* Erase the 4 KiB (bulk64: 64 KiB) unit at addr, which it must be aligned to. */
int fw_mfbe(struct icmd_link *ic, uint32_t addr, bool bulk64, struct cx_status *st);

#endif
