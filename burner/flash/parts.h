/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parts.h — the SPI NOR parts cxflash supports, and how a JEDEC or RES answer maps to one.
 *
 * The table is data (style.md Lessons 4): mstflint's g_flash_info_arr[]
 * families as hw-access.md §3.4 lists them, each matched by JEDEC manufacturer,
 * memory type and a range of sizes. The size itself always comes from the ID
 * (§3.4 "Practical limits"): the density byte is log2(bytes), except for SST
 * (a map of device IDs) and Atmel (a capacity code in the type byte). Old
 * parts that do not answer RDID are identified by RES (§3.4 step 3).
 *
 * fl_parts_selfcheck() proves the table consistent; the unit tests run it on
 * the real table and on broken ones.
 */
#ifndef CX_FLASH_PARTS_H
#define CX_FLASH_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FL_LOG2_LEGACY_MIN 0x14   /* FD_8, 1 MiB: first size of FD_LEGACY, §3.4 */
#define FL_LOG2_LEGACY_MAX 0x18   /* FD_128, 16 MiB: last size of FD_LEGACY, §3.4 */
#define FL_LOG2_3BYTE_MAX 0x18    /* 24-bit addresses, bank <= 16 MiB on CX2/CX3, §3.4 */
#define FL_LOG2_MAX 0x19          /* FD_256, 32 MiB: the largest part in the table (§3.13) */
#define FL_NO_INIT_SR (-1)        /* init_sr: the status register is not written */

struct fl_part {
	const char *name;         /* mstflint's family name, e.g. "W25QxxBV" */
	uint8_t vendor;           /* JEDEC manufacturer ID */
	uint8_t type;             /* JEDEC memory type (Atmel: ID byte 1 bits 7:5) */
	uint8_t log2_min, log2_max; /* sizes this entry covers, log2(bytes) */
	uint8_t erase_op;         /* the family's erase opcode: 0x20 (4 KiB) or 0xD8 (64 KiB) */
	uint32_t sector_size;     /* bytes erase_op erases */
	bool sub_and_sector;      /* both 0x20/4 KiB and 0xD8/64 KiB work (support_sub_and_sector) */
	bool byte_program;        /* SST command set: PP programs one byte (MCS_SSTSPI), §3.8 */
	int init_sr;              /* written to the status register before writing, or FL_NO_INIT_SR */
	uint8_t bp_mask;          /* status bits that say "protected" (BP2..BP0 = 0x1C, §4.1 item 5;
	                           * BP3..BP0 = 0x3C on the 32 MiB parts, §3.13) */
};

extern const struct fl_part fl_parts[];
extern const unsigned fl_nparts;

/* What an ID answer says. */
enum fl_id_kind {
	FL_ID_OK,          /* vendor/type/log2 are valid: look the part up */
	FL_ID_NONE,        /* RDID: all 0xFF or all 0x00 (try RES); RES: no flash in this bank */
	FL_ID_BAD_SIZE,    /* a known encoding with an unknown size code (SST, Atmel) */
	FL_ID_UNSUPPORTED, /* RES: a signature that is not an ST M25P */
};

struct fl_id {
	uint8_t vendor, type;
	unsigned log2size;
};

/* RDID bytes (manufacturer, type, density) → vendor, type, log2(size), §3.4 steps 2-4. */
enum fl_id_kind fl_decode_jedec(const uint8_t id[3], struct fl_id *out);

/* RES signature → an ST M25Pxx of log2 size es + 1 for es in 0x10..0x16, §3.4 step 3. */
enum fl_id_kind fl_decode_res(uint8_t es, struct fl_id *out);

/* The table entry for a decoded ID, or NULL (§3.4 step 5). */
const struct fl_part *fl_part_lookup(const struct fl_id *id);

/* Checks table t of n entries; 0, or -1 with the first problem in msg. */
int fl_parts_selfcheck(const struct fl_part *t, unsigned n, char *msg, size_t msglen);

#endif
