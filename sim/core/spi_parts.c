/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spi_parts.c — the SPI NOR parts the model knows: data, not code (flashrom's way).
 *
 * Identification follows hw-access.md §3.4: RDID gives manufacturer, memory type and
 * density; RES (0xAB) gives the one-byte electronic signature, which mstflint maps to
 * log2(size) = signature + 1 for ST parts. SST parts answer RES with the
 * manufacturer/device ID pair instead (see spi_nor.c), so their res_id is the device ID.
 *
 * Block protect: every part up to 4 MiB uses BP2:BP0 = SR bits 4:2 (sr_bp_mask 0x1C) with the
 * "upper 64 KiB << (BP-1), capped at the whole array" table, which is what the
 * M25P80/16/32 and W25Q80/16/32 (TB = 0) protection tables and the SST25VF080B/016B/032B
 * "Software Status Register Block Protection" tables say (spi_nor.c, protected_bytes()).
 *
 * Times are the datasheets' *typical* values in ns. "confirmed" means the number was
 * read in a stored copy of that datasheet during this work (the Features page, which
 * gives the typicals); the rest are from memory of the AC-characteristics tables and
 * are marked UNCONFIRMED. No number was chosen to make a result come out.
 */
#include <strings.h>

#include "spi_nor.h"

#define US 1000ull
#define MS 1000000ull
#define S  1000000000ull
#define MIB (1024u * 1024u)

const struct spi_part spi_parts[] = {
	/* ST / Numonyx / Micron M25P: 64 KiB sectors only (0xD8), bulk erase 0xC7, no 4 KiB erase. */
	{
		.name = "M25P80", .jedec = { 0x20, 0x20, 0x14 }, .res_id = 0x13, .size = 1 * MIB,
		.erase_4k = false, .erase_64k = true, .byte_program = false,
		.sr_bp_mask = 0x1C, .sr_power_on = 0x00,
		.t_page_prog = 640 * US, .t_erase_4k = 0, .t_erase_64k = 600 * MS,
		.t_chip_erase = 8 * S, .t_wrsr = 1300 * US,
		.source = "Micron M25P80 datasheet rev. I 06/18 (and Numonyx rev. 23), Features: "
			  "page program 0.64 ms, sector erase 0.6 s, bulk erase 8 s (typ, confirmed); "
			  "AC characteristics tW 1.3 ms (typ, UNCONFIRMED against a stored copy)",
	},
	{
		.name = "M25P16", .jedec = { 0x20, 0x20, 0x15 }, .res_id = 0x14, .size = 2 * MIB,
		.erase_4k = false, .erase_64k = true, .byte_program = false,
		.sr_bp_mask = 0x1C, .sr_power_on = 0x00,
		.t_page_prog = 640 * US, .t_erase_4k = 0, .t_erase_64k = 600 * MS,
		.t_chip_erase = 13 * S, .t_wrsr = 1300 * US,
		.source = "Micron M25P16 datasheet rev. J (and Numonyx rev. 13/20), Features: "
			  "page program 0.64 ms, sector erase 0.6 s, bulk erase 13 s (typ, confirmed); "
			  "AC characteristics tW 1.3 ms (typ, UNCONFIRMED against a stored copy)",
	},
	{
		.name = "M25P32", .jedec = { 0x20, 0x20, 0x16 }, .res_id = 0x15, .size = 4 * MIB,
		.erase_4k = false, .erase_64k = true, .byte_program = false,
		.sr_bp_mask = 0x1C, .sr_power_on = 0x00,
		.t_page_prog = 640 * US, .t_erase_4k = 0, .t_erase_64k = 600 * MS,
		.t_chip_erase = 23 * S, .t_wrsr = 1300 * US,
		.source = "Micron M25P32 datasheet rev. Q 11/14 (and Numonyx rev. 11/15), Features: "
			  "page program 0.64 ms, sector erase 0.6 s, bulk erase 23 s (typ, confirmed); "
			  "AC characteristics tW 1.3 ms (typ, UNCONFIRMED against a stored copy)",
	},

	/* Winbond W25Q: 4 KiB sectors (0x20) and 64 KiB blocks (0xD8), chip erase 0xC7/0x60. */
	{
		.name = "W25Q80", .jedec = { 0xEF, 0x40, 0x14 }, .res_id = 0x13, .size = 1 * MIB,
		.erase_4k = true, .erase_64k = true, .byte_program = false,
		.sr_bp_mask = 0x1C, .sr_power_on = 0x00,
		.t_page_prog = 800 * US, .t_erase_4k = 45 * MS, .t_erase_64k = 150 * MS,
		.t_chip_erase = 2 * S, .t_wrsr = 10 * MS,
		.source = "Winbond W25Q80DV datasheet, AC Electrical Characteristics: tPP 0.8 ms, "
			  "tSE 45 ms, tBE2 150 ms, tCE 2 s, tW 10 ms (typ, UNCONFIRMED against a "
			  "stored copy)",
	},
	{
		.name = "W25Q16", .jedec = { 0xEF, 0x40, 0x15 }, .res_id = 0x14, .size = 2 * MIB,
		.erase_4k = true, .erase_64k = true, .byte_program = false,
		.sr_bp_mask = 0x1C, .sr_power_on = 0x00,
		.t_page_prog = 400 * US, .t_erase_4k = 45 * MS, .t_erase_64k = 150 * MS,
		.t_chip_erase = 5 * S, .t_wrsr = 10 * MS,
		.source = "Winbond W25Q16JV datasheet rev. H, AC Electrical Characteristics: "
			  "tPP 0.4 ms, tSE 45 ms, tBE2 150 ms, tCE 5 s, tW 10 ms (typ, UNCONFIRMED "
			  "against a stored copy)",
	},
	{
		.name = "W25Q32", .jedec = { 0xEF, 0x40, 0x16 }, .res_id = 0x15, .size = 4 * MIB,
		.erase_4k = true, .erase_64k = true, .byte_program = false,
		.sr_bp_mask = 0x1C, .sr_power_on = 0x00,
		.t_page_prog = 400 * US, .t_erase_4k = 45 * MS, .t_erase_64k = 150 * MS,
		.t_chip_erase = 10 * S, .t_wrsr = 10 * MS,
		.source = "Winbond W25Q32JV datasheet, AC Electrical Characteristics: tPP 0.4 ms, "
			  "tSE 45 ms, tBE2 150 ms, tCE 10 s, tW 10 ms (typ, UNCONFIRMED against a "
			  "stored copy)",
	},

	/* SST 25VF...B: byte program (0x02, one byte), 4 KiB (0x20) and 64 KiB (0xD8) erase,
	 * chip erase 0x60/0xC7, BP bits volatile with power-on default 1 (SR 0x1C).
	 * WRSR: no write-cycle time is given (the BP/BPL bits are volatile); 0 here. */
	{
		.name = "SST25VF080B", .jedec = { 0xBF, 0x25, 0x8E }, .res_id = 0x8E, .size = 1 * MIB,
		.erase_4k = true, .erase_64k = true, .byte_program = true,
		.sr_bp_mask = 0x1C, .sr_power_on = 0x1C,
		.t_page_prog = 7 * US, .t_erase_4k = 18 * MS, .t_erase_64k = 18 * MS,
		.t_chip_erase = 35 * MS, .t_wrsr = 0,
		.source = "SST/Microchip SST25VF080B datasheet S71296-05 02/11, Features: byte-program "
			  "7 us, sector-/block-erase 18 ms, chip-erase 35 ms (typ, confirmed); no WRSR "
			  "cycle time given (UNCONFIRMED that there is none)",
	},
	{
		.name = "SST25VF016B", .jedec = { 0xBF, 0x25, 0x41 }, .res_id = 0x41, .size = 2 * MIB,
		.erase_4k = true, .erase_64k = true, .byte_program = true,
		.sr_bp_mask = 0x1C, .sr_power_on = 0x1C,
		.t_page_prog = 7 * US, .t_erase_4k = 18 * MS, .t_erase_64k = 18 * MS,
		.t_chip_erase = 35 * MS, .t_wrsr = 0,
		.source = "SST/Microchip SST25VF016B datasheet S71271-04 01/11 (and -03 9/08), Features: "
			  "byte-program 7 us, sector-/block-erase 18 ms, chip-erase 35 ms (typ, "
			  "confirmed); no WRSR cycle time given (UNCONFIRMED that there is none)",
	},
	{
		.name = "SST25VF032B", .jedec = { 0xBF, 0x25, 0x4A }, .res_id = 0x4A, .size = 4 * MIB,
		.erase_4k = true, .erase_64k = true, .byte_program = true,
		.sr_bp_mask = 0x1C, .sr_power_on = 0x1C,
		.t_page_prog = 7 * US, .t_erase_4k = 18 * MS, .t_erase_64k = 18 * MS,
		.t_chip_erase = 35 * MS, .t_wrsr = 0,
		.source = "SST/Microchip SST25VF032B datasheet, Features: byte-program 7 us, "
			  "sector-/block-erase 18 ms, chip-erase 35 ms (typ, UNCONFIRMED against a "
			  "stored copy; the same values are confirmed for SST25VF080B/016B)",
	},
	/* 16 and 32 MiB parts of ConnectX-4 and later cards (hw-access.md §3.13). How mstflint 4.21
	 * names them (mflash.c g_flash_info_arr, get_type_index_by_vendor_type_density): JEDEC
	 * type 0x40 Winbond up to 16 MiB is "W25QxxBV"; type 0x70 is "W25Qxxx" (16 MiB with
	 * BP=1 protecting 256 KiB, 32 MiB with BP3:0); Macronix type 0x20 is "MX25L16xxx" up
	 * to 16 MiB and "MX25Lxxx" at 32 MiB. mstflint 4.21 has NO entry for Winbond type
	 * 0x40 at 32 MiB (0xEF4019, the W25Q256JV-IQ/JQ), so it refuses that part; the -IM/JM
	 * variant (0xEF7019) it knows. On CX4/4 Lx/5 it uses 3-byte instructions whatever the
	 * size (mflash_dev_capability.c is_four_byte_address_needed: 0), so only the lower 16
	 * MiB of a 32 MiB part are reached; 4-byte opcodes are for CX6 and later.
	 * BP: W25Q128JV BP2:0, 256 KiB << (BP-1) (CMP = SEC = TB = 0 table); the others BP3:0
	 * (SR bits 5:2), 64 KiB << (BP-1), capped. Tables and times from memory of the
	 * datasheets' protection and AC-characteristics tables: UNCONFIRMED against a stored
	 * copy. */
	{
		.name = "W25Q128JV", .jedec = { 0xEF, 0x40, 0x18 }, .res_id = 0x17, .size = 16 * MIB,
		.erase_4k = true, .erase_64k = true, .byte_program = false,
		.sr_bp_mask = 0x1C, .bp_unit = 256 * 1024, .sr_power_on = 0x00,
		.t_page_prog = 700 * US, .t_erase_4k = 45 * MS, .t_erase_64k = 150 * MS,
		.t_chip_erase = 40 * S, .t_wrsr = 10 * MS,
		.source = "Winbond W25Q128JV datasheet (-IQ/JQ ID 0xEF4018), AC Electrical "
			  "Characteristics: tPP 0.7 ms, tSE 45 ms, tBE2 150 ms, tCE 40 s, tW 10 ms "
			  "(typ, UNCONFIRMED against a stored copy)",
	},
	{
		.name = "MX25L12845E", .jedec = { 0xC2, 0x20, 0x18 }, .res_id = 0x17, .size = 16 * MIB,
		.erase_4k = true, .erase_64k = true, .byte_program = false,
		.sr_bp_mask = 0x3C, .sr_power_on = 0x00,
		.t_page_prog = 1400 * US, .t_erase_4k = 90 * MS, .t_erase_64k = 700 * MS,
		.t_chip_erase = 80 * S, .t_wrsr = 40 * MS,
		.source = "Macronix MX25L12845E datasheet, Erase and Programming Performance: tPP "
			  "1.4 ms, tSE 90 ms, tBE 0.7 s, tCE 80 s, tW 40 ms (typ, UNCONFIRMED "
			  "against a stored copy)",
	},
	{
		.name = "W25Q256JV", .jedec = { 0xEF, 0x40, 0x19 }, .res_id = 0x18, .size = 32 * MIB,
		.erase_4k = true, .erase_64k = true, .byte_program = false,
		.sr_bp_mask = 0x3C, .addr4 = true, .sr_power_on = 0x00,
		.t_page_prog = 700 * US, .t_erase_4k = 45 * MS, .t_erase_64k = 150 * MS,
		.t_chip_erase = 80 * S, .t_wrsr = 10 * MS,
		.source = "Winbond W25Q256JV datasheet (-IQ/JQ ID 0xEF4019), AC Electrical "
			  "Characteristics: tPP 0.7 ms, tSE 45 ms, tBE2 150 ms, tCE 80 s, tW 10 ms "
			  "(typ, UNCONFIRMED against a stored copy)",
	},
	{
		.name = "W25Q256JV-IM", .jedec = { 0xEF, 0x70, 0x19 }, .res_id = 0x18, .size = 32 * MIB,
		.erase_4k = true, .erase_64k = true, .byte_program = false,
		.sr_bp_mask = 0x3C, .addr4 = true, .sr_power_on = 0x00,
		.t_page_prog = 700 * US, .t_erase_4k = 45 * MS, .t_erase_64k = 150 * MS,
		.t_chip_erase = 80 * S, .t_wrsr = 10 * MS,
		.source = "Winbond W25Q256JV datasheet (-IM/JM ID 0xEF7019), as W25Q256JV "
			  "(typ, UNCONFIRMED against a stored copy)",
	},
	{
		.name = "MX25L25645G", .jedec = { 0xC2, 0x20, 0x19 }, .res_id = 0x18, .size = 32 * MIB,
		.erase_4k = true, .erase_64k = true, .byte_program = false,
		.sr_bp_mask = 0x3C, .addr4 = true, .sr_power_on = 0x00,
		.t_page_prog = 500 * US, .t_erase_4k = 30 * MS, .t_erase_64k = 220 * MS,
		.t_chip_erase = 50 * S, .t_wrsr = 40 * MS,
		.source = "Macronix MX25L25645G datasheet, Erase and Programming Performance: tPP "
			  "0.5 ms, tSE 30 ms, tBE 0.22 s, tCE 50 s, tW 40 ms (typ, UNCONFIRMED "
			  "against a stored copy)",
	},
};

const unsigned spi_nparts = sizeof spi_parts / sizeof spi_parts[0];

const struct spi_part *spi_part_find(const char *name)
{
	if (!name)
		return NULL;
	for (unsigned i = 0; i < spi_nparts; i++)
		if (strcasecmp(spi_parts[i].name, name) == 0)
			return &spi_parts[i];
	return NULL;
}
