/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3.h — reading an FS3 or FS4 firmware file (ConnectX-4, 4 Lx, 5; 6, 6 Dx, 6 Lx read-only).
 *
 * The manual of the formats is fs3-format.md; section numbers below refer to it.
 *
 * The two formats share the ITOC, the section CRCs and the device-data sections;
 * they differ in the magic, in what precedes BOOT2 (FS3: the FS2-style header;
 * FS4: 16 hardware pointers, a tools area and an optional hashes table), in the
 * CRC kind of an entry (FS3: a no_crc bit; FS4: a 3-bit kind) and in where the
 * device sections are listed (FS3: ITOC entries with device_data set; FS4: a
 * DTOC in the last 4 KiB). Those differences live in one table of format
 * descriptors (fs3_formats[]), not in branches scattered through the code.
 *
 * fs3_parse() takes the whole file (a released image, or a raw dump of a whole
 * flash): it finds the image start as mstflint does (§8), walks every structure
 * and computes every CRC, bounding each length and pointer against the buffer.
 * A structural fault stops it with CX_EIMAGE and one line; a CRC mismatch is
 * recorded in its item, so `v` shows every one, and fs3_verdict() judges them.
 * The parsed image points into the caller's buffer; it owns no memory.
 *
 * fs3_parse_need() is the same parse over a buffer that is being filled as it goes (a
 * card's flash, ops/devimage_fs3.h): before it looks at any bytes but the magic and the
 * version at the starts of §8 it asks the caller's hook for them, so a reader fetches what the parse reads and no
 * more, as mstflint's query does (fs3-format.md §10, §12). The hook's caller decides how
 * much the parse reads: everything v checks, only what q reads, or that and the device data.
 */
#ifndef CX_FS3_H
#define CX_FS3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/rom.h"
#include "util/status.h"

#define FS3_MAX_TOCS 64          /* MAX_TOCS_NUM: entries + end marker per TOC, §3.1 */
#define FS3_MAX_ITEMS 160        /* ours: 16 pointers + tools + BOOT2 + hashes + 2 TOCs */
#define FS3_MAX_FILE (64u << 20) /* the largest flash dump we read (imgfile.h IMGFILE_MAX) */

enum fs3_fmt { FMT_UNKNOWN = 0, FMT_FS2, FMT_FS3, FMT_FS4 };

/* What the format of a file is, from its own magic and version byte (§1). */
enum fs3_fmt fs3_detect(const uint8_t *buf, size_t len);

/* How an entry's section is protected (§3.2): FS3 has no_crc or in-entry; FS4 adds
 * "in the section's last dword". */
enum fs3_crc_kind { FS3_CRC_IN_ENTRY = 0, FS3_CRC_NONE = 1, FS3_CRC_IN_SECTION = 2 };

/* One format, §1: the table the parser consults where FS3 and FS4 differ. */
struct fs3_format {
	enum fs3_fmt fmt;
	const char *name;           /* "FS3", "FS4" */
	uint32_t magic[4];          /* at the image start */
	bool hw_pointers;           /* FS4: 16 pointers at +0x18, a tools area (§4) */
	bool dtoc;                  /* FS4: device sections in a DTOC in the last 4 KiB (§4.5) */
	bool crc_kind_field;        /* FS4: a 3-bit CRC kind; FS3: the no_crc bit (§3.2) */
	bool relative_bit;          /* FS3: bit 31 of the address says "image-relative" (§3.2) */
};
const struct fs3_format *fs3_format_of(enum fs3_fmt fmt);

/* One ITOC/DTOC entry as stored, §3.2. */
struct fs3_entry {
	uint8_t type;
	uint32_t size;        /* bytes (dwords * 4) */
	uint32_t param0, param1;
	bool zipped, cache_line_crc;
	uint32_t flash_addr;  /* bytes, as stored (<< 2) */
	bool relative;        /* FS3 bit 31 */
	bool no_crc, device_data; /* FS3 */
	uint8_t crc_field;    /* FS4 3-bit kind */
	bool encrypted;       /* FS4 bit 31 of dword 6 */
	uint16_t version;     /* FS4 dword 4 */
	uint16_t section_crc;
	uint16_t entry_crc;
	uint32_t entry_off;   /* where the entry sits in the buffer */
	uint32_t data_off;    /* where its section sits in the buffer (bounded) */
	bool in_dtoc;
};

enum fs3_item_kind {
	FS3_ITEM_HW_PTR, FS3_ITEM_TOOLS, FS3_ITEM_BOOT2, FS3_ITEM_HASHES, FS3_ITEM_TOC_HEADER,
	FS3_ITEM_SECTION,
};

/* One checked item, in the order mstflint's v prints them. */
struct fs3_item {
	enum fs3_item_kind kind;
	uint8_t type;          /* section type (sections; 0xfd/0xfe for TOC headers) */
	uint32_t off, len;     /* in the buffer (physical in a dump) */
	enum fs3_crc_kind crc; /* sections */
	uint32_t crc_stored;
	uint16_t crc_calc;
	bool ok;
	int entry;             /* sections: index into img->entries */
};

struct fs3_uid {           /* a DEV_INFO/MFG_INFO UID allocation, §6.2 */
	uint64_t uid;
	uint8_t num, step;
};

struct fs3_devinfo {       /* DEV_INFO or MFG_INFO, §6.1-§6.2 */
	bool present;
	unsigned major, minor;
	bool new_format;       /* one base GUID + one base MAC (CX4 layout) */
	struct fs3_uid guids[2], macs[2]; /* new format: [0] only */
	char vsd[209];         /* DEV_INFO */
	char psid[17];         /* MFG_INFO */
	bool guids_override_en; /* MFG_INFO */
};

struct fs3_info {          /* IMAGE_INFO, §5 */
	bool present;
	unsigned major, minor;
	uint16_t fw_ver[3];
	uint8_t rel_day, rel_month;
	uint16_t rel_year;
	uint16_t mic_ver[3];
	uint16_t pci_device_id;
	uint16_t vsd_vendor_id;
	char psid[17], vsd[209], prod_ver[17], description[257], name[65], prs_name[129];
	uint32_t hw_ids[4];
	bool mcc_en, signed_fw, secure_fw, debug_fw, dev_sec_boot;
	uint8_t encrypted_fw;
};

/* How much of an image fs3_parse_need() reads (fs3-format.md §10). */
enum fs3_reads {
	FS3_READS_ALL,     /* everything v checks: BOOT2 whole, every section */
	FS3_READS_QUERY,   /* what a quick query reads: BOOT2's size, the sections of fs3_query_reads() */
	FS3_READS_BURN,    /* those, and every device section (what a burn judges the card by) */
};

/* The hook: make buf[off, off + len) hold the source's bytes (off + len <= the buffer's
 * length). A failure's code ends the parse. */
struct fs3_need {
	int (*read)(void *ctx, uint32_t off, uint32_t len, struct cx_status *st);
	void *ctx;
	enum fs3_reads reads;
};

struct fs3_image {
	const uint8_t *buf;
	size_t len;
	const struct fs3_format *fmt;
	uint32_t start;            /* image start in the buffer (§8) */
	unsigned log2_slot;        /* slot size (FS3 header / FS4 tools area) */
	unsigned bin_major, bin_minor;
	uint32_t hw_ptr[16];       /* FS4 */
	uint32_t itoc_off, dtoc_off; /* buffer offsets of the TOC headers (dtoc: FS4) */
	uint32_t boot2_off;

	struct fs3_item items[FS3_MAX_ITEMS];
	int nitems;
	struct fs3_entry entries[2 * FS3_MAX_TOCS];
	int nentries, nitoc;       /* entries[0..nitoc) ITOC, the rest DTOC */

	struct fs3_info info;
	struct fs3_devinfo mfg, dev;
	int ndev_valid;            /* DEV_INFO sections with a good signature */
	int rom_entry, ini_entry, info_entry; /* -1 if absent */
	struct rom_info roms[ROM_MAX_IMAGES];
	int nroms;
	uint32_t security_version; /* FS4 fw_security_version pointer value */
	bool signature;            /* an IMAGE_SIGNATURE section whose CRC holds (§7) */
	bool dev_keys;             /* its keypair UUID marks development keys (§7) */
	const struct fs3_need *need; /* during fs3_parse_need() only, NULL after */
	bool dev_lost_ok;          /* parsed by fs3_parse_dev_lost() */
};

/* Parse buf (the whole file). CX_EIMAGE with one line on a structural fault. */
int fs3_parse(const uint8_t *buf, size_t len, struct fs3_image *img, struct cx_status *st);

/* The same over a buffer filled through need as the parse goes: bytes the parse does not
 * read (need->reads) stay as they are in buf, so only the items it read mean anything
 * (FS3_READS_QUERY, _BURN: judge with fs3_verdict_query()). The first 64 bytes at each
 * start of §8 the caller has read before (they say whether there is an image at all), and
 * the FS3 ITOC is looked for within the image's slot only (a card's flash is mostly not
 * the image: a search to its end would read a 32-byte piece of every 4 KiB). */
int fs3_parse_need(const uint8_t *buf, size_t len, const struct fs3_need *need, struct fs3_image *img,
		   struct cx_status *st);
/* The same, except that an FS4 DTOC with no valid DEV_INFO, or two, is not a structural
 * fault: what `sg` reads a card whose device data is lost with (image/fs3_devinfo.h). */
int fs3_parse_dev_lost(const uint8_t *buf, size_t len, struct fs3_image *img, struct cx_status *st);

/* CX_OK if every checked item's CRC is right, else CX_EIMAGE naming the first wrong one. */
int fs3_verdict(const struct fs3_image *img, struct cx_status *st);

/* The verdict of q (fs3-format.md §10): like fs3_verdict(), but of the sections only those
 * that q reads (IMAGE_INFO, MFG_INFO, DEV_INFO, ROM_CODE, the signatures and public keys),
 * and not BOOT2's CRC, as mstflint's quick query reads and checks. */
int fs3_verdict_query(const struct fs3_image *img, struct cx_status *st);
/* A section of this type is one the quick query reads (and fs3_verdict_query judges). */
bool fs3_query_reads(uint8_t type);

/* The name mstflint gives a section type ("MAIN_CODE", ...), or NULL if unknown. */
const char *fs3_sect_name(uint8_t type);

/* A section's bytes in the buffer (entries are bounded by fs3_parse). */
const uint8_t *fs3_entry_data(const struct fs3_image *img, const struct fs3_entry *e);

/* Internal to the fs3*.c files. */
int fs3_need(struct fs3_image *img, uint64_t off, uint64_t len, struct cx_status *st);
bool fs3_reads_section(const struct fs3_image *img, const struct fs3_entry *e);
bool fs3_reads_all(const struct fs3_image *img);
bool fs3_reads_query_only(const struct fs3_image *img);
struct fs3_item *fs3_add_item(struct fs3_image *img, struct cx_status *st);
int fs3_parse_toc(struct fs3_image *img, uint32_t off, bool dtoc, struct cx_status *st);
int fs3_parse_sections(struct fs3_image *img, struct cx_status *st);
int fs3_parse_fs4_front(struct fs3_image *img, struct cx_status *st);
int fs3_check_boot2(struct fs3_image *img, uint32_t off, uint32_t *next, struct cx_status *st);
bool fs3_toc_valid(struct fs3_image *img, uint32_t off, bool dtoc);
int fs3_section_info(struct fs3_image *img, int idx, struct cx_status *st);

#endif
