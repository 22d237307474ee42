/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rom.h — the expansion ROM: its PCI images and their version records (fs2-format.md §4.5).
 *
 * A ROM section holds raw option-ROM bytes: PCI option-ROM images back to back (HP's
 * CX3 Pro: CLP, UEFI, PXE), each a 0x55AA header whose byte 2 is its (initialisation)
 * size in 512-byte blocks, and whose word at 0x18 points to a "PCIR" data structure
 * holding the image length (0x10, blocks) and the last-image indicator (0x15 bit 7)
 * (PCI Firmware Specification 3.0, 5.1). Each image carries an ASCII "mlxsign:" tag
 * followed by little-endian dwords with the product (PXE, UEFI, ...), the version and,
 * for products from 0x10 on, the device id, port, CPU and protocol (mstflint fw_ops.cpp
 * RomInfo::GetExpRomVerForOneRom).
 *
 * THE CHECKSUM (mstflint v4.21.0-1 fw_ops.cpp RomInfo::GetExpRomVersion 1943-1970): the
 * 8-bit sum of the first rom[2]*512 bytes of the section must be 0, else the warning
 * "Bad ROM Checksum"; no check at all when any record is UEFI (0x11) or FCODE (0x21)
 * ("No need for checksum on some ROMs like uEFI", 2022-2025). mstflint thus judges only
 * the first image. We apply the same sum to every PCI image, each over its own first
 * byte-2 blocks, and exempt the UEFI and FCODE records themselves: a PXE or CLP image
 * after the first, or beside a UEFI image, is judged too. On the first image of a
 * section without UEFI/FCODE the verdict is mstflint's.
 * A product 0xF record (old CLP) carries its version as a decimal string and no devid;
 * mstflint takes the devid from the first image's PCIR (2039-2083), we from its own
 * image's PCIR (the same for the first image).
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
	/* The PCI option-ROM image (0x55AA header) that holds this record, as an offset and
	 * length within the ROM section's data (0 and the data's length when the data is not
	 * a PCI image chain), and its checksum (above): 1 good, 0 bad ("Bad ROM Checksum"),
	 * -1 not checked (UEFI, FCODE, or no PCI image around the record). */
	uint32_t off, len;
	int csum_ok;
};

#define ROM_MAX_PCI 8 /* PCI images walked in one ROM section (HP's has 3) */

enum rom_chain_state {
	ROM_CHAIN_OK,        /* images up to one marked last, all inside the data */
	ROM_CHAIN_NONE,      /* no 0x55AA header at offset 0: not a PCI option ROM */
	ROM_CHAIN_TRUNCATED, /* an image (or the one the previous announces) runs past the end */
	ROM_CHAIN_BAD,       /* a zero length, a missing header after a non-last image, or
				more than ROM_MAX_PCI images */
};

struct rom_chain {
	enum rom_chain_state state;
	int n;
	struct {
		uint32_t off, len; /* len is clipped to the data when truncated */
		uint16_t devid;    /* the PCIR device id, 0 without a PCIR */
		int csum_ok;       /* the sum of its first byte-2 blocks is 0 (and they exist) */
	} img[ROM_MAX_PCI];
	uint32_t end;              /* where the last image walked ends (clipped) */
};

/* Walk the PCI images of len bytes at rom. Never reads outside [rom, rom+len). */
void rom_walk(const uint8_t *rom, size_t len, struct rom_chain *c);

/* Scan a ROM section's data for version records; returns how many were found
 * (0..ROM_MAX_IMAGES), each with its image and checksum verdict. Never reads outside
 * [rom, rom+len). */
int rom_parse(const uint8_t *rom, size_t len, struct rom_info out[ROM_MAX_IMAGES]);

/* The record has mstflint's one-field free-string version (product 0xF, old CLP). */
#define ROM_ONE_VERSION_FIELD(ri) ((ri)->product == 0xF)

/* A ROM's version as flint shows it: "3.4.752", or "8025" for a CLP with a
 * version string (ROM_ONE_VERSION_FIELD). */
void rom_fmt_version(char *out, size_t n, const struct rom_info *r);

/* "PXE", "UEFI", ... or "0x%x" in tmp. */
const char *rom_type_name(uint16_t product, char tmp[12]);
/* "AMD64", "IA32", ... or "0x%x" in tmp. */
const char *rom_cpu_name(uint8_t cpu, char tmp[12]);

#endif
