/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_icmd.h — the settings registers of a ConnectX-4 / 4 Lx / 5 whose firmware runs: NVDA,
 * NVQC, NVIA over ICMD (dev/icmd.h icmd_reg; hw-access.md §3.14). The ConnectX-3 ones
 * (MNVA, MNVIA over the tools HCR) are dev/nv_reg.h; ops/nv_settings.h uses both.
 *
 * A settings record ("TLV") is named by its type dword, whose layout depends on its class
 * (tools_layouts/tools_open_layouts.h@4.21 tools_open_global_type, _per_port_type,
 * _per_host_type; mlxconfig/mlxcfg_tlv.cpp@4.21 getTlvTypeBe): global (class 0) index
 * 23:0; physical port (class 1) port 23:16, index 15:0; per host (classes 3, 7) host
 * 23:18, function 17:10, index 9:0, both 0 here (the host and function we sit on, as
 * mstconfig sends for a single-host card). Class 31:24 in each.
 *
 * NVDA (0x9024) carries one record behind a 12-byte header (tools_open_nv_hdr_fifth_gen:
 * length in bytes 8:0, writer_id 20:16, read_current 22, default 23, rd_en 24, over_en 25;
 * the type dword at 0x4). As mstconfig (mlxcfg_utils.cpp@4.21 mnvaCom5thGen): over_en set,
 * writer_id 9 (WRITER_ID_ICMD_MLXCONFIG); a GET asks for 256 bytes and sends only the
 * header, a SET sends the record and reads back the header (reg_access.c@4.21
 * reg_access_nvda). The record's dwords are big-endian on the wire, dword 0 first, each
 * field where mlxconfig_host.db puts it ("0x4.31": dword 1, bit 31 from the LSB).
 * A GET answered "resource not available" (register status 8): the card holds no such
 * record (*stored = false, zeros).
 *
 * NVQC (0x9030, GET) says whether the firmware reads and writes a record; NVIA (0x9033,
 * SET, all zero as mstconfig sends it) forgets every record: `mstconfig reset`.
 */
#ifndef CX_NV_ICMD_H
#define CX_NV_ICMD_H

#include <stdbool.h>
#include <stdint.h>

#include "dev/icmd.h"

#define NV5_MAX_DWORDS 8          /* the largest record read here: nv_global_pci_cap, 20 bytes */

/* The classes spoken (mlxcfg_tlv.h@4.21 TLVClass). */
enum nv5_class {
	NV5_GLOBAL = 0,           /* Global */
	NV5_PORT = 1,             /* Physical_Port */
	NV5_HOST = 3,             /* Per_Host_All_Functions */
	NV5_HOST_FN = 7,          /* Per_Host_Per_Function */
};

/* What a GET asks for: the next boot's value, or the firmware's default. */
enum nv5_read { NV5_NEXT, NV5_DEFAULT };

/* The type dword of record index of class cls (port: class 1 only); 0 for a class not spoken. */
uint32_t nv5_type(unsigned cls, unsigned index, unsigned port);

int nv_nvda_get(struct icmd_link *ic, uint32_t type, enum nv5_read what, uint32_t *dw, unsigned ndw, bool *stored,
		struct cx_status *st);
int nv_nvda_set(struct icmd_link *ic, uint32_t type, const uint32_t *dw, unsigned ndw, struct cx_status *st);

/* NVQC: can the firmware read (*rd) and write (*wr) the record. */
int nv_nvqc(struct icmd_link *ic, uint32_t type, bool *rd, bool *wr, struct cx_status *st);

/* Forget every record (NVIA SET). */
int nv_nvia(struct icmd_link *ic, struct cx_status *st);

#endif
