/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rom.c — walking the PCI images of an expansion ROM and finding their "mlxsign:"
 * version records (§4.5; the rules and sources are in rom.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "image/rom.h"
#include "util/bytes.h"

static const char rom_magic[] = "mlxsign:"; /* version tag, fs2-format.md §4.5 */
#define ROM_MAGIC_LEN 8
#define ROM_RECORD_DWORDS 3      /* product/ver0, ver1/ver2, devid/port/cpu/proto */
#define ROM_PRODUCT_FREE_STR 0xF /* old CLP: one version field, §4.5 */
#define ROM_PRODUCT_WITH_DEV 0x10 /* from PXE on, the third dword is present */
#define ROM_PRODUCT_CLP 0x12     /* CLP has no port or protocol */
#define ROM_PRODUCT_UEFI 0x11    /* exempt from the checksum, RomInfo 2022-2025 */
#define ROM_PRODUCT_FCODE 0x21   /* exempt from the checksum, RomInfo 2022-2025 */
#define FREE_STR_DWORD 12        /* 0xF: dword 3 = str_len (15:8), sign_len (7:0), RomInfo 2042 */
#define FREE_STR_OFF 16          /* 0xF: the decimal version string, RomInfo 2054 */

/* PCI Firmware Specification 3.0, 5.1: the option-ROM header and its PCIR structure. */
#define PCI_ROM_SIG0 0x55
#define PCI_ROM_SIG1 0xAA
#define PCI_ROM_OFF_BLOCKS 2     /* initialisation size, 512-byte blocks (what mstflint sums) */
#define PCI_ROM_OFF_PCIR 0x18    /* le16: offset of the PCIR structure */
#define PCI_ROM_HDR_LEN 0x1A     /* the header up to and with that pointer */
#define PCI_ROM_BLOCK 512
#define PCIR_OFF_DEVICE 6        /* le16 device id */
#define PCIR_OFF_IMG_LEN 0x10    /* le16 image length, blocks */
#define PCIR_OFF_INDICATOR 0x15  /* bit 7: last image */
#define PCIR_LAST 0x80
#define PCIR_MIN_LEN 0x18

/* Product 0xF: ver[0] from the decimal string after the record, when the signature's
 * length (sign_len dwords) holds the string, as mstflint wants (RomInfo 2041-2059). */
static void free_str_version(const uint8_t *p, size_t avail, struct rom_info *ri)
{
	if (avail < FREE_STR_OFF)
		return;
	uint32_t d3 = le32(p + FREE_STR_DWORD), slen = d3 >> 8 & 0xff;
	if ((d3 & 0xff) < (slen + 3) / 4 + 4 || slen > avail - FREE_STR_OFF)
		return;
	const uint8_t *str = p + FREE_STR_OFF;
	unsigned v = 0, k = 0;
	for (; k < slen && str[k] >= '0' && str[k] <= '9'; k++)
		v = v * 10 + (unsigned)(str[k] - '0');
	if (k)
		ri->ver[0] = (uint16_t)v;
}

static void decode(const uint8_t *p, size_t avail, struct rom_info *ri)
{
	uint32_t d0 = avail >= 4 ? le32(p) : 0;
	uint32_t d1 = avail >= 8 ? le32(p + 4) : 0;
	uint32_t d2 = avail >= 12 ? le32(p + 8) : 0;

	memset(ri, 0, sizeof(*ri));
	ri->product = d0 >> 16;
	ri->ver[0] = d0 & 0xff;
	if (ri->product != ROM_PRODUCT_FREE_STR) {
		ri->ver[1] = d1 >> 16 & 0xff;
		ri->ver[2] = d1 & 0xffff;
	}
	if (ri->product == ROM_PRODUCT_FREE_STR)
		free_str_version(p, avail, ri);
	if (ri->product >= ROM_PRODUCT_WITH_DEV && avail >= 12) {
		ri->has_dev = 1;
		ri->devid = d2 >> 16;
		ri->cpu = d2 >> 8 & 0xf;
		if (ri->product != ROM_PRODUCT_CLP) {
			ri->port = d2 >> 12 & 0xf;
			ri->proto = d2 & 0xff;
		} else {
			ri->proto = 0xff;
		}
	}
}

/* One image at off: its extent, devid and checksum into c->img[c->n]; false to stop. */
static bool walk_one(const uint8_t *rom, size_t len, uint32_t off, struct rom_chain *c, bool *last)
{
	const uint8_t *h = rom + off;
	size_t avail = len - off;

	if (avail < PCI_ROM_HDR_LEN || h[0] != PCI_ROM_SIG0 || h[1] != PCI_ROM_SIG1) {
		c->state = off == 0 ? ROM_CHAIN_NONE : avail < PCI_ROM_HDR_LEN ? ROM_CHAIN_TRUNCATED : ROM_CHAIN_BAD;
		return false;
	}
	if (c->n == ROM_MAX_PCI) {
		c->state = ROM_CHAIN_BAD;
		return false;
	}
	uint32_t init = (uint32_t)h[PCI_ROM_OFF_BLOCKS] * PCI_ROM_BLOCK, ilen = init;
	uint32_t p = le16(h + PCI_ROM_OFF_PCIR);
	uint16_t devid = 0;
	*last = true; /* without a PCIR nothing says another image follows */
	if (p + PCIR_MIN_LEN <= avail && !memcmp(h + p, "PCIR", 4)) {
		ilen = (uint32_t)le16(h + p + PCIR_OFF_IMG_LEN) * PCI_ROM_BLOCK;
		devid = le16(h + p + PCIR_OFF_DEVICE);
		*last = h[p + PCIR_OFF_INDICATOR] & PCIR_LAST;
	}
	if (ilen == 0) {
		c->state = ROM_CHAIN_BAD;
		return false;
	}
	uint8_t sum = 0;
	for (uint32_t i = 0; i < init && i < avail; i++)
		sum = (uint8_t)(sum + h[i]);
	c->img[c->n].off = off;
	c->img[c->n].len = ilen <= avail ? ilen : (uint32_t)avail;
	c->img[c->n].devid = devid;
	c->img[c->n].csum_ok = init && init <= avail && sum == 0;
	c->end = off + c->img[c->n++].len;
	if (ilen > avail) {
		c->state = ROM_CHAIN_TRUNCATED;
		return false;
	}
	return true;
}

void rom_walk(const uint8_t *rom, size_t len, struct rom_chain *c)
{
	bool last = false;

	memset(c, 0, sizeof(*c));
	while (walk_one(rom, len, c->end, c, &last) && !last) {
		if (c->end == len) { /* a non-last image at the very end: the next is missing */
			c->state = ROM_CHAIN_TRUNCATED;
			break;
		}
	}
}

/* The image of c holding byte at, or -1. */
static int image_at(const struct rom_chain *c, size_t at)
{
	for (int k = 0; k < c->n; k++)
		if (at >= c->img[k].off && at - c->img[k].off < c->img[k].len)
			return k;
	return -1;
}

int rom_parse(const uint8_t *rom, size_t len, struct rom_info out[ROM_MAX_IMAGES])
{
	struct rom_chain c;
	int n = 0;

	rom_walk(rom, len, &c);
	for (size_t i = 0; i + ROM_MAGIC_LEN <= len && n < ROM_MAX_IMAGES; i++) {
		if (memcmp(rom + i, rom_magic, ROM_MAGIC_LEN))
			continue;
		if (len - i - ROM_MAGIC_LEN < 4)
			break; /* a tag with no record after it: nothing to report */
		struct rom_info *ri = &out[n++];
		decode(rom + i + ROM_MAGIC_LEN, len - i - ROM_MAGIC_LEN, ri);
		int k = image_at(&c, i);
		ri->off = k < 0 ? 0 : c.img[k].off;
		ri->len = k < 0 ? (uint32_t)len : c.img[k].len;
		bool exempt = ri->product == ROM_PRODUCT_UEFI || ri->product == ROM_PRODUCT_FCODE;
		ri->csum_ok = k < 0 || exempt ? -1 : c.img[k].csum_ok;
		if (ri->product == ROM_PRODUCT_FREE_STR && k >= 0) {
			ri->has_dev = 1;
			ri->devid = c.img[k].devid;
			ri->proto = 0xff;
		}
		i += ROM_MAGIC_LEN + 4 * ROM_RECORD_DWORDS - 1;
	}
	return n;
}

struct code_name {
	unsigned code;
	const char *name;
};

/* The product and CPU codes of a version record's first and third dwords (fs2-format.md §4.5). */
static const struct code_name rom_types[] = {
	{0x1, "CLP1"},	{0x2, "CLP2"},		     {0x3, "CLP3"},		 {0x4, "CLP4"},
	{0xf, "CLP"},	{0x10, "PXE"},		     {0x11, "UEFI"},		 {0x12, "CLP"},
	{0x13, "NVMe"}, {0x14, "UEFI Virtio net"}, {0x15, "UEFI Virtio blk"}, {0x16, "PXE Virtio net"},
	{0x21, "FCODE"},
};
static const struct code_name rom_cpus[] = {
	{1, "AMD64"}, {2, "AARCH64"}, {3, "AMD64,AARCH64"}, {4, "IA32"},
};

static const char *lookup(const struct code_name *t, size_t n, unsigned code, char tmp[12])
{
	for (size_t i = 0; i < n; i++)
		if (t[i].code == code)
			return t[i].name;
	snprintf(tmp, 12, "0x%x", code);
	return tmp;
}

const char *rom_type_name(uint16_t product, char tmp[12])
{
	return lookup(rom_types, sizeof(rom_types) / sizeof(rom_types[0]), product, tmp);
}

const char *rom_cpu_name(uint8_t cpu, char tmp[12])
{
	return lookup(rom_cpus, sizeof(rom_cpus) / sizeof(rom_cpus[0]), cpu, tmp);
}

void rom_fmt_version(char *out, size_t n, const struct rom_info *r)
{
	if (ROM_ONE_VERSION_FIELD(r))
		snprintf(out, n, "%u", r->ver[0]);
	else
		snprintf(out, n, "%u.%u.%u", r->ver[0], r->ver[1], r->ver[2]);
}
