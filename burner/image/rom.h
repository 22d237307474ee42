/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rom.h — the expansion ROM's version record (fs2-format.md §4.5).
 *
 * A ROM section holds raw option-ROM bytes (up to ROM_MAX_IMAGES of them
 * concatenated). Each carries an ASCII "mlxsign:" tag followed by
 * little-endian dwords with the product (PXE, UEFI, ...), the version and,
 * for products from 0x10 on, the device id, port, CPU and protocol.
 */
#ifndef CX_ROM_H
#define CX_ROM_H

#include <stddef.h>
#include <stdint.h>

#define ROM_MAX_IMAGES 5 /* §4.5: up to 5 concatenated ROMs */

struct rom_info {
	uint16_t product;    /* 0x10 PXE, 0x11 UEFI, 0x12 CLP, 0x13 NVMe, 0x21 FCODE */
	uint16_t ver[3];
	int has_dev;         /* the third dword is present (product >= 0x10) */
	uint16_t devid;
	uint8_t port, cpu, proto;
	/* Issue 19 (being built): the PCI option-ROM image (0x55AA header) that holds this
	 * record, as an offset and length within the ROM section's data, and its checksum
	 * as mstflint judges it: 1 good, 0 bad ("Bad ROM Checksum"), -1 not checkable. */
	uint32_t off, len;
	int csum_ok;
};

/* Scan a ROM section's data for version records; returns how many were found
 * (0..ROM_MAX_IMAGES). Never reads outside [rom, rom+len). */
int rom_parse(const uint8_t *rom, size_t len, struct rom_info out[ROM_MAX_IMAGES]);

/* "PXE", "UEFI", ... or "0x%x" in tmp. */
const char *rom_type_name(uint16_t product, char tmp[12]);
/* "AMD64", "IA32", ... or "0x%x" in tmp. */
const char *rom_cpu_name(uint8_t cpu, char tmp[12]);

#endif
