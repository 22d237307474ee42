/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rom.c — finding the "mlxsign:" version records of an expansion ROM (§4.5). */
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

int rom_parse(const uint8_t *rom, size_t len, struct rom_info out[ROM_MAX_IMAGES])
{
	int n = 0;

	for (size_t i = 0; i + ROM_MAGIC_LEN <= len && n < ROM_MAX_IMAGES; i++) {
		if (memcmp(rom + i, rom_magic, ROM_MAGIC_LEN))
			continue;
		if (len - i - ROM_MAGIC_LEN < 4)
			break; /* a tag with no record after it: nothing to report */
		decode(rom + i + ROM_MAGIC_LEN, len - i - ROM_MAGIC_LEN, &out[n++]);
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
