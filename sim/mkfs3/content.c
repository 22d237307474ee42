/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Section builders: see content.h. */
#include "content.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "be.h"
#include "rom3.h"

/* image_layout_image_info (IMAGE_LAYOUT_IMAGE_INFO_SIZE 0x400), byte offsets. */
#define II_SIZE			0x400
#define II_FLAGS		0x00	/* major [31:24], minor [23:16], flags */
#define II_MINOR_VERSION	3	/* minor 3: name/description/prs_name inline */
#define II_MINOR_SHIFT		16	/* minor_version: bit offset 8, 8 bits */
#define II_SECURE_FW		(1u << 15)	/* secure_fw: bit offset 16 */
#define II_SIGNED_FW		(1u << 14)	/* signed_fw: bit offset 17 */
#define II_MCC_EN		(1u << 8)	/* mcc_en: bit offset 23 */
#define II_FW_MAJOR		0x04	/* FW_VERSION.MAJOR, 16 bits */
#define II_FW_SUBMINOR		0x0a	/* FW_VERSION.SUBMINOR (its bit offset 48) */
#define II_FW_MINOR		0x08	/* FW_VERSION.MINOR (its bit offset 32) */
#define II_FW_TIME		0x0c	/* bytes: Seconds, Minutes, Hour, 0 (BCD) */
#define II_FW_DATE		0x10	/* Year 16 bits, Month, Day (BCD) */
#define II_PCI_IDS		0x1c	/* pci_device_id [31:16], pci_vendor_id [15:0] */
#define II_PSID			0x24
#define II_VSD			0x38
#define II_HW_IDS		0x118	/* supported_hw_id[4] */
#define II_BURN_SIZE		0x12c	/* burn_image_size */
#define II_DESCRIPTION		0x1d0
#define II_NAME			0x340
#define II_PRS_NAME		0x380
#define II_NAME_LEN		64	/* name[64] */
#define II_DESCRIPTION_LEN	256	/* description[256] */
#define II_PRS_NAME_LEN		128	/* prs_name[128] */
#define II_DEV_ID_SHIFT		16	/* pci_device_id: bit offset 224, above the vendor id */
#define MELLANOX_VENDOR_ID	0x15b3
#define FW_DATE_BCD		0x20261205u	/* 2026-12-05: Year 0x2026, Month 0x12, Day 0x05 */
#define FW_TIME_BCD		0x00001200u	/* 12:00:00: Hour byte 0x12 */

/* cx4fw_mfg_info (CX4FW_MFG_INFO_SIZE 0x140). */
#define MFG_SIZE		0x140
#define MFG_PSID		0x00
#define MFG_VERSION		0x1c	/* major [31:24], minor [23:16], guids_override_en bit 0 */
#define MFG_MAJOR_CX4		1	/* GetMfgInfo: major 1 = cx4fw layout */
#define MFG_MAJOR_SHIFT		24	/* major_version: bit offset 224 = byte 0x1c */
#define MFG_GUIDS_OVERRIDE	1u	/* guids_override_en: bit offset 255 */
#define MFG_GUIDS		0x20

/* cx4fw_device_info (CX4FW_DEVICE_INFO_SIZE 0x200). */
#define DEV_SIZE		0x200
#define DEV_SIG0		0x6d446576u	/* fs4_ops.cpp DEV_INFO_SIG0 "mDev" */
#define DEV_SIG1		0x496e666fu	/* "Info" */
#define DEV_SIG2		0x2342cafau
#define DEV_SIG3		0xbacafe00u
#define DEV_VERSION		0x10	/* major [16:8] (9 bits), minor [7:0] */
#define DEV_MAJOR_CX4		2	/* GetDevInfo: major 2 = cx4fw layout */
#define DEV_MAJOR_SHIFT		8	/* major_version: bit offset 143, 9 bits */
#define DEV_GUIDS		0x20
#define DEV_VSD_VENDOR		0x6c	/* vsd_vendor_id [15:0] */
#define DEV_VSD			0x70

/* cx4fw_guids: two cx4fw_uid_entry of 16 bytes: step (byte 2), num_allocated (byte 3), uid at +8. */
#define UID_ENTRY		0x10
#define UID_STEP		2
#define UID_NUM			3
#define UID_VALUE		8
#define UIDS_ALLOCATED		8	/* what stock cards carry */

/* Sizes of the other sections: cx4fw_layouts.h / icmd_layouts.h, or a small filler. */
#define SIG256_SIZE		0x140	/* CX4FW_IMAGE_SIGNATURE_256_SIZE */
#define SIG512_SIZE		0x240	/* CX4FW_IMAGE_SIGNATURE_512_SIZE */
#define KEYS2048_SIZE		0x900	/* 8 x CX4FW_PUBLIC_KEY_2048_SIZE (0x120) */
#define KEYS4096_SIZE		0x1100	/* 8 x CX4FW_PUBLIC_KEY_4096_SIZE; CONNECTX4_PUBLIC_KEYS_3_SIZE */
#define RSA_SIGS_SIZE		0x600	/* CONNECTX4_SECURE_BOOT_SIGNATURES_SIZE */
#define CODE_SIZE		0x4000	/* synthetic, any dword multiple */
#define CFG_SIZE		0x400
#define NV_SIZE			0x2000
#define VPD_SIZE		0x400
#define ROM_BLOCKS		16	/* 8 KiB option ROM */
#define ROM_PRODUCT_PXE		0x10	/* fs2-format.md §4.5 product id */
#define ROM_PROTO_ETH		1

struct sect_name {
	uint8_t type;
	const char *name;
};

/* The names fs3_ops.cpp's table prints (its _fs3SectionsNames-like list). */
static const struct sect_name names[] = {
	{ ST_BOOT_CODE, "BOOT_CODE" }, { ST_MAIN_CODE, "MAIN_CODE" },
	{ ST_HW_BOOT_CFG, "HW_BOOT_CFG" }, { ST_HW_MAIN_CFG, "HW_MAIN_CFG" },
	{ ST_PHY_UC_CONSTS, "PHY_UC_CONSTS" }, { ST_IMAGE_INFO, "IMAGE_INFO" },
	{ ST_ROM_CODE, "ROM_CODE" }, { ST_DBG_FW_INI, "DBG_FW_INI" },
	{ ST_IMAGE_SIGNATURE_256, "IMAGE_SIGNATURE_256" }, { ST_PUBLIC_KEYS_2048, "PUBLIC_KEYS_2048" },
	{ ST_IMAGE_SIGNATURE_512, "IMAGE_SIGNATURE_512" }, { ST_PUBLIC_KEYS_4096, "PUBLIC_KEYS_4096" },
	{ ST_RSA_PUBLIC_KEY, "RSA_PUBLIC_KEY" }, { ST_RSA_4096_SIGNATURES, "RSA_4096_SIGNATURES" },
	{ ST_MFG_INFO, "MFG_INFO" }, { ST_DEV_INFO, "DEV_INFO" }, { ST_NV_DATA1, "NV_DATA1" },
	{ ST_VPD_R0, "VPD_R0" }, { ST_NV_DATA2, "NV_DATA2" }, { ST_NV_DATA0, "NV_DATA0" },
};

const char *section_name(uint8_t type)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].type == type)
			return names[i].name;
	return "UNKNOWN";
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_str(uint8_t *p, const char *s, size_t max)
{
	size_t n = strlen(s);

	memcpy(p, s, n < max ? n : max);
}

static void image_info(uint8_t *p, const struct config *c)
{
	uint32_t flags = (uint32_t)II_MINOR_VERSION << II_MINOR_SHIFT;
	char text[64];
	unsigned int i;

	if (c->secure_fw)
		flags |= II_SECURE_FW;
	if (c->signed_fw)
		flags |= II_SIGNED_FW;
	if (c->mcc_en)
		flags |= II_MCC_EN;
	put_be32(p + II_FLAGS, flags);
	put_be16(p + II_FW_MAJOR, (uint16_t)c->fw[0]);
	put_be16(p + II_FW_MINOR, (uint16_t)c->fw[1]);
	put_be16(p + II_FW_SUBMINOR, (uint16_t)c->fw[2]);
	put_be32(p + II_FW_TIME, FW_TIME_BCD);
	put_be32(p + II_FW_DATE, FW_DATE_BCD);
	put_be32(p + II_PCI_IDS, (uint32_t)c->chip->dev_id << II_DEV_ID_SHIFT | MELLANOX_VENDOR_ID);
	put_str(p + II_PSID, c->psid, PSID_LEN);
	put_str(p + II_VSD, c->vsd, VSD_LEN);
	for (i = 0; i < c->n_hw_ids; i++)
		put_be32(p + II_HW_IDS + 4 * i, c->hw_ids[i]);
	snprintf(text, sizeof(text), "SYNTH-%s", c->psid);
	put_str(p + II_NAME, text, II_NAME_LEN);
	put_str(p + II_DESCRIPTION, "mkfs3 synthetic image, not firmware", II_DESCRIPTION_LEN);
	snprintf(text, sizeof(text), "%s_synth.prs", c->chip->name);
	put_str(p + II_PRS_NAME, text, II_PRS_NAME_LEN);
}

static void uids(uint8_t *p, uint64_t guid, uint64_t mac)
{
	p[UID_STEP] = 1;
	p[UID_NUM] = UIDS_ALLOCATED;
	put_be32(p + UID_VALUE, (uint32_t)(guid >> 32));
	put_be32(p + UID_VALUE + 4, (uint32_t)guid);
	p += UID_ENTRY;
	p[UID_STEP] = 1;
	p[UID_NUM] = UIDS_ALLOCATED;
	put_be32(p + UID_VALUE, (uint32_t)(mac >> 32));
	put_be32(p + UID_VALUE + 4, (uint32_t)mac);
}

static void mfg_info(uint8_t *p, const struct config *c)
{
	put_str(p + MFG_PSID, c->psid, PSID_LEN);
	put_be32(p + MFG_VERSION, (uint32_t)MFG_MAJOR_CX4 << MFG_MAJOR_SHIFT | (c->guids_override ? MFG_GUIDS_OVERRIDE : 0));
	uids(p + MFG_GUIDS, c->guid, c->mac);
}

void dev_info_set_uids(uint8_t *p, uint64_t guid, uint64_t mac)
{
	uids(p + DEV_GUIDS, guid, mac);
}

static void dev_info(uint8_t *p, const struct config *c)
{
	put_be32(p, DEV_SIG0);
	put_be32(p + 4, DEV_SIG1);
	put_be32(p + 8, DEV_SIG2);
	put_be32(p + 12, DEV_SIG3);
	put_be32(p + DEV_VERSION, (uint32_t)DEV_MAJOR_CX4 << DEV_MAJOR_SHIFT);
	uids(p + DEV_GUIDS, c->guid, c->mac);
	put_be32(p + DEV_VSD_VENDOR, MELLANOX_VENDOR_ID);
	put_str(p + DEV_VSD, c->vsd, VSD_LEN);
}

static struct map rom_lines;

const struct map *rom_map(void)
{
	return &rom_lines;
}

/* --ini: a small board .ini, stored zlib-compressed as mstflint `dc` expects (fs2-format.md §5). */
static uint8_t *ini_data(const struct config *c, uint32_t *len)
{
	char text[512];
	uLongf zlen;
	uint8_t *z;
	int n = snprintf(text, sizeof(text),
			 "[PS_INFO]\nName = SYNTH-%s\nDescription = mkfs3 synthetic %s\n"
			 "[ADAPTER]\nPSID = %s\npcie_device_id = 0x%x\n",
			 c->psid, c->chip->long_name, c->psid, c->chip->dev_id);

	zlen = compressBound((uLong)n);
	z = calloc(1, zlen + 4);
	if (!z || compress2(z, &zlen, (const Bytef *)text, (uLong)n, Z_BEST_COMPRESSION) != Z_OK) {
		fprintf(stderr, "mkfs3: zlib compress2 failed\n");
		free(z);
		return NULL;
	}
	*len = (uint32_t)((zlen + 3) & ~(uLongf)3);
	return z;
}

static uint32_t filler_size(uint8_t type)
{
	switch (type) {
	case ST_IMAGE_INFO: return II_SIZE;
	case ST_MFG_INFO: return MFG_SIZE;
	case ST_DEV_INFO: return DEV_SIZE;
	case ST_IMAGE_SIGNATURE_256: return SIG256_SIZE;
	case ST_IMAGE_SIGNATURE_512: return SIG512_SIZE;
	case ST_PUBLIC_KEYS_2048: return KEYS2048_SIZE;
	case ST_PUBLIC_KEYS_4096: case ST_RSA_PUBLIC_KEY: return KEYS4096_SIZE;
	case ST_RSA_4096_SIGNATURES: return RSA_SIGS_SIZE;
	case ST_HW_BOOT_CFG: case ST_HW_MAIN_CFG: case ST_PHY_UC_CONSTS: return CFG_SIZE;
	case ST_NV_DATA0: case ST_NV_DATA1: case ST_NV_DATA2: return NV_SIZE;
	case ST_VPD_R0: return VPD_SIZE;
	default: return CODE_SIZE;
	}
}

uint8_t *section_data(uint8_t type, const struct config *c, struct rng *r, uint32_t *len)
{
	uint8_t *p;

	if (type == ST_ROM_CODE) {
		map_free(&rom_lines);
		return rom3_build(c->chip->dev_id, c->rom_ver, ROM_BLOCKS, r, len, &rom_lines);
	}
	if (type == ST_DBG_FW_INI)
		return ini_data(c, len);
	*len = filler_size(type);
	p = calloc(1, *len);
	if (!p) {
		fprintf(stderr, "mkfs3: out of memory\n");
		exit(1);
	}
	switch (type) {
	case ST_IMAGE_INFO: image_info(p, c); break;
	case ST_MFG_INFO: mfg_info(p, c); break;
	case ST_DEV_INFO: dev_info(p, c); break;
	case ST_NV_DATA0: case ST_NV_DATA1: case ST_NV_DATA2: case ST_VPD_R0:
		memset(p, 0xFF, *len);	/* blank NV storage, as a new card's */
		break;
	default: rng_fill(r, p, *len); break;
	}
	return p;
}
