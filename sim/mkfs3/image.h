/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The whole output: the plan of every structure (plan.c), the bytes
 * (assemble.c, toc.c, fs4hdr.c) and the damages (damage.c). The image sits in
 * a slot at `slot` (0 for a file); device-data sections sit at absolute
 * addresses after it (file) or at the top of the flash (--dump), and on FS4
 * the DTOC fills the last 4 KiB (fs4_ops.cpp FsVerifyAux: effective size - 4 KiB).
 */
#ifndef MKFS3_IMAGE_H
#define MKFS3_IMAGE_H

#include <stdint.h>

#include "map.h"
#include "mkfs3.h"

#define SECT_MAX	160	/* sections and TOC entries: well above the 85 the options can ask for */
#define SECTOR		0x1000u	/* FS3/FS4_DEFAULT_SECTOR_SIZE (fs3_ops.h, fs4_ops.h) */

struct sect {
	uint8_t type;
	int dev;		/* device data: absolute address, in the DTOC on FS4 */
	int no_crc;		/* FS3 no_crc bit / FS4 crc kind NOCRC */
	int in_section;		/* FS4 crc kind INSECTION: CRC16 in the last dword [15:0] */
	uint8_t *data;		/* owned unless shared */
	int shared;		/* data belongs to another entry (too-many damage) */
	uint32_t len;
	uint32_t addr;		/* image sections: slot-relative; device data: absolute */
	uint32_t entry;		/* absolute address of its TOC entry */
	char name[MAP_NAME_MAX];
};

struct image {
	const struct config *c;
	uint8_t *d;
	uint32_t size;		/* bytes written (before a truncate damage) */
	uint32_t slot;		/* absolute start of the image */
	struct sect s[SECT_MAX];
	unsigned int n;
	uint32_t boot2, boot2_len, itoc, tools, hashes, hashes_len;	/* slot-relative */
	uint32_t img_end;	/* slot-relative end of the image's data */
	uint32_t dev_base, dev_len;	/* absolute */
	uint32_t dtoc;		/* absolute (FS4) */
	uint32_t out_len;	/* what is written to the file */
	struct map m;
};

/* plan.c: choose sections, sizes and addresses; 0, or -1 with a message. */
int image_plan(struct image *im, const struct config *c);
/* assemble.c: the bytes, CRCs and map. */
void image_assemble(struct image *im);
void image_free(struct image *im);
/* damage.c: apply c->damages to the assembled bytes. */
void image_damage(struct image *im);
/* A section's entry index of the given type (0 = first), or NULL. */
struct sect *image_find(struct image *im, uint8_t type, unsigned int nth);

/* toc.c */
void toc_header(uint8_t *p, int dtoc, enum fw_format f, unsigned int n_entries);
void toc_entry(uint8_t *p, enum fw_format f, const struct sect *s, uint32_t flash_addr);
void toc_end(uint8_t *p);
/* fs4hdr.c */
void fs4_hw_pointers(struct image *im);
void fs4_tools_area(struct image *im);
void fs4_hashes_table(struct image *im);
uint32_t fs4_hashes_table_len(void);

/* Offsets shared by the builders. */
#define MAGIC_LEN		16	/* the 4-dword magic at the image start */
#define FS3_BOOT2_OFF		0x38	/* FS3_BOOT_START = FS2_BOOT_START (flint_base.h) */
#define FS4_HW_PTR_OFF		0x18	/* flint_base.h FS4_HW_PTR_START */
#define FS4_HW_PTR_COUNT	16	/* IMAGE_LAYOUT_HW_POINTERS_CARMEL_SIZE 0x80 / 8 */
#define FS4_HW_PTR_ENTRY	8	/* IMAGE_LAYOUT_HW_POINTER_ENTRY_SIZE */
#define FS4_TOOLS_OFF		0x500	/* any free place: reached through tools_ptr */
#define FS4_TOOLS_LEN		0x40	/* IMAGE_LAYOUT_TOOLS_AREA_SIZE */
#define FS4_HT_HEADER_LEN	0xc	/* IMAGE_LAYOUT_HASHES_TABLE_HEADER_SIZE: CRC in its last dword */
#define FS4_BOOT2_OFF		0x1000	/* reached through boot2_ptr */
#define TOC_HDR_LEN		0x20	/* TOC_HEADER_SIZE (fs3_ops.h) */
#define TOC_ENTRY_LEN		0x20	/* TOC_ENTRY_SIZE */
#define TOC_AREA		0x1000u	/* reserved for the header and up to 127 entries */
#define TOC_MAX_ENTRIES		64	/* MAX_TOCS_NUM (fs3_ops.h), end entry included */

#endif
