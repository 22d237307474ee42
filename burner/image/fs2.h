/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs2.h — reading an FS2 firmware image (ConnectX-2, ConnectX-3, ConnectX-3 Pro).
 *
 * The manual of the format is fs2-format.md; section numbers below refer to it.
 *
 * An image is parsed from a buffer holding its *contiguous* bytes: a .bin file
 * as released, or the image extracted from a raw flash dump (fs2_locate() and
 * fs2_unstripe()). fs2_parse() walks the boot record, the BOOT2 blocks and the
 * section chain, checks every structural rule and computes every checksum; it
 * never trusts a length or pointer it has not bounded against the buffer.
 *
 * A structural fault (truncation, a chain that loops, a section larger than
 * the image, a malformed tag list...) stops the parse: fs2_parse() returns
 * CX_EIMAGE with one line in the status. Checksum mismatches do not stop it:
 * they are recorded in the item list, so that `v` can show every one, and
 * fs2_verdict() turns them into the final result.
 *
 * The parsed image points into the caller's buffer; it owns no memory.
 */
#ifndef CX_FS2_H
#define CX_FS2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/info.h"
#include "image/guids.h"
#include "image/rom.h"
#include "util/status.h"

#define FS2_MAGIC_LEN 16        /* 4 dwords at the image start, §1.1 */
#define FS2_OFF_FULL_CRC 0x20   /* dev_rev 31:24, full-image CRC 15:0, §1.2 */
#define FS2_OFF_BOOT_VER 0x24   /* byte 0x24 = image_format_version, §1.2 */
#define FS2_OFF_FS_INFO 0x28    /* failsafe bit + log2 chunk + checksum byte, §1.2 */
#define FS2_OFF_INFO_PTR 0x2C   /* IMAGE_INFO data address + checksum byte, §1.2 */
#define FS2_OFF_IMG_SIZE 0x30   /* image size in bytes, §1.2 */
#define FS2_OFF_GUID_PTR 0x34   /* GUID section data address, §1.2 */
#define FS2_BOOT2_START 0x38    /* first BOOT2, §1.2 */
#define FS2_GPH_SIZE 16         /* section header: type, size, param, next, §1.4 */
#define FS2_MAX_SECTION 0x400000 /* MAX_SECTION_SIZE, §1.4 */
#define FS2_MAX_SECTIONS 512    /* ours: a real image has ~20; bounds a hostile chain */
#define FS2_MAX_IMAGE (32u << 20) /* largest start position + chunk, §1.1 */
#define FS2_FORMAT_FS3 3        /* image_format_version that means FS3, §1.1 */

/* Section types, §1.4. */
enum fs2_sect_type {
	FS2_DDR = 1, FS2_CNF = 2, FS2_JMP = 3, FS2_EMT = 4, FS2_ROM = 5,
	FS2_GUID = 6, FS2_BOARD_ID = 7, FS2_USER_DATA = 8, FS2_FW_CONF = 9,
	FS2_IMG_INFO = 10, FS2_DDRZ = 11, FS2_HASH_FILE = 12,
	FS2_SECT_LAST_KNOWN = 12,
};

/* One checked item, in image order: a BOOT2 block, a section, or the full image. */
enum fs2_item_kind { FS2_ITEM_BOOT2, FS2_ITEM_SECTION, FS2_ITEM_FULL };

struct fs2_item {
	enum fs2_item_kind kind;
	uint32_t type;        /* section type (sections only) */
	uint32_t off;         /* first byte (contiguous address) */
	uint32_t len;         /* bytes, header and CRC dword included */
	uint32_t data_off;    /* sections: first data byte */
	uint32_t data_len;    /* sections: data bytes; BOOT2: code dwords * 4 */
	uint32_t param;       /* sections: GPH param */
	uint32_t crc_stored;  /* the whole stored dword */
	uint16_t crc_calc;
	bool blank;           /* GUID section with the blank-CRC pattern, §2.2 */
	bool ok;
	bool unread;          /* not all its bytes were read (a card's image read in part,
	                       * ops/devimage.h): its CRC is unknown, not wrong; ok means nothing */
};

struct fs2_image {
	const uint8_t *buf;   /* contiguous image bytes (not owned) */
	size_t len;

	uint8_t dev_rev;      /* 0x20 bits 31:24 */
	uint32_t fs_info;     /* raw 0x28 */
	bool failsafe;
	unsigned log2chunk;
	uint32_t info_ptr;    /* 0x2C bits 23:0 (0 = none) */
	uint32_t img_size;    /* 0x30 */
	uint32_t guid_ptr;    /* 0x34 */
	uint32_t last_addr;   /* end of the last section's CRC dword */

	int nitems;
	struct fs2_item items[FS2_MAX_SECTIONS + 3];
	int nboot2;

	/* Index into items[] of the sections commands care about; -1 if absent. */
	int guid_sect, info_sect, rom_sect, fwconf_sect;

	struct fs2_info info;
	struct fs2_guids guids;
	int nroms;
	struct rom_info roms[ROM_MAX_IMAGES];

	bool has_full_crc;    /* the full-image CRC is checked (tag 11 present), §2.3 */
	uint16_t full_crc_stored;
	uint16_t full_crc_calc;
};

/* Candidate start positions of an image on flash, §1.1. */
extern const uint32_t fs2_start_pos[];
extern const unsigned fs2_nstart_pos;

/* True if buf (at least FS2_MAGIC_LEN bytes) begins with the FS2 magic. */
bool fs2_has_magic(const uint8_t *buf);

/* Find the images of a raw flash dump (physical addresses): fills starts[]
 * (at most 2) and returns CX_OK, or CX_EIMAGE if there is none or more than
 * two. Only positions where the whole magic fits are tried, §1.1. */
int fs2_locate(const uint8_t *flash, size_t len, uint32_t starts[2], int *nstarts,
	       struct cx_status *st);

/* Parse a contiguous image. On CX_OK, img describes it (see the top comment). */
int fs2_parse(const uint8_t *buf, size_t len, struct fs2_image *img, struct cx_status *st);

/* The result of a verify: CX_OK, CX_EIMAGE naming the first bad checksum, or
 * CX_EBLANK for a sound image whose GUIDs are blank (flint refuses it too).
 * Items marked unread are not judged: only what was read is. */
int fs2_verdict(const struct fs2_image *img, struct cx_status *st);

/* flint's name of a section type ("DDR", "GUID", ..., "UNKNOWN (n)"). */
const char *fs2_sect_name(uint32_t type, char tmp[24]);

/* The full-image CRC of buf as the burner stores it, §2.2: over the whole
 * image with 0x20 bits 15:0 taken as 0xFFFF. len is a multiple of 4. */
uint16_t fs2_full_crc(const uint8_t *buf, size_t len);

#endif
