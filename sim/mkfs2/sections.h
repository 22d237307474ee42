/* SPDX-License-Identifier: GPL-2.0-or-later */
/* GPH sections (fs2-format.md §1.4) and the builders of their data. */
#ifndef MKFS2_SECTIONS_H
#define MKFS2_SECTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "map.h"
#include "mkfs2.h"
#include "rng.h"

/* §1.4 section types (mstflint enum SectionType). */
#define SECT_DDR	1
#define SECT_CNF	2
#define SECT_JMP	3
#define SECT_ROM	5
#define SECT_GUID	6
#define SECT_FW_CONF	9
#define SECT_IMG_INFO	10

#define GPH_SIZE	16		/* type, size, param, next: 4 dwords */
#define GPH_OFF_TYPE	0
#define GPH_OFF_SIZE	4
#define GPH_OFF_PARAM	8
#define GPH_OFF_NEXT	12
#define GPH_NEXT_END	0xFF000000u	/* §1.4: ends the chain */
#define SECT_CRC_SIZE	4

/* Build time 12:00:00 as hh/mm/ss BCD (tag 2 dword 1; real: 00140336 = 14:03:36). */
#define FW_BUILD_TIME_BCD	0x00120000u

/* mstflint prints dates with %x, so decimal digits are stored as BCD (§3.2 tag 2). */
uint32_t to_bcd(unsigned int v);

/* Open a section: appends the GPH and returns its offset. */
size_t sect_begin(struct buf *b, uint32_t type, uint32_t param);
/*
 * Close it: pad the data to a dword, fill size and next, append the CRC dword.
 * blank_crc stores 0xFFFF instead (blank GUID section, §2.2). Returns the
 * section's total size.
 */
uint32_t sect_end(struct buf *b, size_t gph, int last, int blank_crc);
const char *sect_name(uint32_t type);

/* Section data builders: each appends only the data between GPH and CRC. */
void cnf_data(struct buf *b, const struct config *c, struct rng *r, int index);
void ddr_data(struct buf *b, struct rng *r, uint32_t size);
void jmp_data(struct buf *b, const uint32_t *ddr_params, unsigned int n);
void guid_data(struct buf *b, const struct config *c);
/* tag_map gets info_tag_<id> lines with absolute offsets. */
void info_data(struct buf *b, const struct config *c, struct map *tag_map);
/* rom.c: c->roms, one PCI option ROM each; a rom_<i> map line per ROM. */
void rom_data(struct buf *b, const struct config *c, struct rng *r, struct map *m);
int fw_conf_data(struct buf *b, const struct config *c);

/* ini.c: the default board .ini text with c's --ini-set/--ini-del edits
 * applied; the caller frees it. NULL on failure: ini_default_text() prints why,
 * ini_default_text_edited() leaves *bad at an --ini-del whose key is absent
 * (else NULL) for the caller to report as a usage error. */
char *ini_default_text(const struct config *c);
char *ini_default_text_edited(const struct config *c, const struct ini_edit **bad);

#endif
