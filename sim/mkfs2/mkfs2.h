/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared types of mkfs2: the chip table entry and the parsed options. */
#ifndef MKFS2_H
#define MKFS2_H

#include <stddef.h>
#include <stdint.h>

#define PSID_LEN	16	/* fs2-format.md §3.2 tag 4: 16 bytes, NUL padded */
#define VSD_LEN		208	/* §3.2 tag 5: 208 bytes, NUL padded */

/* What differs between ConnectX-2, ConnectX-3 and ConnectX-3 Pro (fs2-format.md §6, hw-access.md §1). */
struct chip {
	const char *name;	/* --chip value */
	const char *long_name;
	uint16_t dev_id;	/* PCI/SW device id, IMAGE_INFO tag 3 */
	uint16_t hw_id;		/* crspace HW id, tag 10 */
	uint8_t rev;		/* default silicon revision, tag 10 and 0x20 bits 31:24 */
	const char *psid;
	unsigned int fw[3];
	const char *date;	/* default FW build date, YYYY-MM-DD */
	const char *prs;	/* default tag 20 PRS name */
	const char *board;	/* board name for the default .ini */
	uint16_t subsys_id;	/* PCI subsystem id for the default .ini */
	uint8_t rom_proto;	/* mlxsign protocol: 0 IB, 1 ETH, 2 VPI */
	int eth_only;		/* Ethernet-only board: PCI class, ROM protocol */
	int pcie_gen3;
};

/* --ini-set SECTION.key=VALUE (value set) or --ini-del SECTION.key (value NULL),
 * applied in order to the default .ini text. */
#define INI_EDITS_MAX	32
struct ini_edit {
	const char *arg;	/* as given, for messages */
	char section[64];
	char key[64];
	const char *value;	/* points into arg; NULL drops the key */
};

/*
 * One PCI option ROM of the ROM section (fs2-format.md §4.5, §9). --roms gives
 * up to ROMS_MAX of them in order; without it the legacy options describe one.
 */
#define ROMS_MAX	5	/* §4.5: mstflint reads up to 5 (MAX_ROMS_NUM) */
#define ROM_VER_STR_MAX	8	/* the CLP's version string, e.g. "8025" */
struct rom_spec {
	unsigned int product;	/* mlxsign product: 0x10 PXE, 0x11 UEFI, 0x0F CLP */
	unsigned int ver[3];
	char ver_str[ROM_VER_STR_MAX + 1];	/* product 0x0F: its version string */
	unsigned int devid;	/* mlxsign and PCIR device id */
	unsigned int port, cpu, proto;
	unsigned int blocks;	/* size in 512-byte blocks, the header's byte 2 */
	int bad_checksum;
};

const struct chip *chip_find(const char *name);
void chip_list(const char *sep);

struct config {
	const struct chip *chip;
	unsigned int rev;
	char psid[PSID_LEN + 1];
	char vsd[VSD_LEN + 1];
	const char *prs;
	unsigned int fw[3];
	unsigned int date[3];	/* year, month, day */
	uint64_t guid;
	uint64_t mac;
	int old_guids;
	int blank_guids;
	int failsafe;
	unsigned int chunk_log;	/* log2(chunk) - 16, §1.5 */
	int rom;
	struct rom_spec roms[ROMS_MAX];
	unsigned int n_roms;
	const char *rom_only;	/* --rom-only FILE: the ROM section's data */
	int fw_conf;
	int mic;
	int product_ver;
	const char *ini_file;
	struct ini_edit ini_edits[INI_EDITS_MAX];
	unsigned int n_ini_edits;
	unsigned int ddr_count;
	uint32_t ddr_size;
	uint64_t seed;
	int dump_slot;		/* -1: write the contiguous image */
	uint32_t flash_size;
	const char *out;
	const char *map;
};

#endif
