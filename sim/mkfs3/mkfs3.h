/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared types of mkfs3: the chip table entry, the parsed options and the
 * section plan. The format facts come from mstflint
 * v4.21.0-1 (mlxfwops/lib/fs3_ops.cpp, fs4_ops.cpp, flint_base.h,
 * tools_layouts/image_layout_layouts.h, cx4fw_layouts.h); README.md is the manual.
 */
#ifndef MKFS3_H
#define MKFS3_H

#include <stddef.h>
#include <stdint.h>

#define PSID_LEN	16	/* image_layout_image_info.psid: 16 chars */
#define VSD_LEN		208	/* cx4fw_device_info.vsd: 208 chars */
#define HW_IDS_MAX	4	/* image_layout_image_info.supported_hw_id[4] */
#define DAMAGES_MAX	16

enum fw_format { FMT_FS3 = 3, FMT_FS4 = 4 };

/* What differs between the chips (mstflint dev_mgt/tools_dev_types.c, fw_ops.cpp). */
struct chip {
	const char *name;	/* --chip value */
	const char *long_name;
	uint16_t dev_id;	/* PCI device id (IMAGE_INFO pci_device_id) */
	uint16_t hw_id;		/* HW id (supported_hw_id[0]) */
	enum fw_format format;	/* GetFwFormatFromHwDevID */
	const char *psid;
	unsigned int fw[3];
	uint32_t flash_size;	/* default --flash-size (chips.c) */
};

const struct chip *chip_find(const char *name);
void chip_list(const char *sep);

/* Section types (flint_base.h enum fs3_section_t). */
#define ST_BOOT_CODE		0x01
#define ST_MAIN_CODE		0x03
#define ST_HW_BOOT_CFG		0x08
#define ST_HW_MAIN_CFG		0x09
#define ST_PHY_UC_CONSTS	0x0b
#define ST_IMAGE_INFO		0x10
#define ST_ROM_CODE		0x18
#define ST_DBG_FW_INI		0x30
#define ST_IMAGE_SIGNATURE_256	0xa0
#define ST_PUBLIC_KEYS_2048	0xa1
#define ST_IMAGE_SIGNATURE_512	0xa3
#define ST_PUBLIC_KEYS_4096	0xa4
#define ST_RSA_PUBLIC_KEY	0xa6
#define ST_RSA_4096_SIGNATURES	0xa7
#define ST_MFG_INFO		0xe0
#define ST_DEV_INFO		0xe1
#define ST_NV_DATA1		0xe2
#define ST_VPD_R0		0xe3
#define ST_NV_DATA2		0xe4
#define ST_NV_DATA0		0xe6
#define ST_END			0xff

/* Device-data sections --dev-sections can choose (bit per kind). */
#define DEV_MFG_INFO	(1u << 0)
#define DEV_DEV_INFO	(1u << 1)
#define DEV_NV_DATA	(1u << 2)
#define DEV_VPD_R0	(1u << 3)
#define DEV_ALL		(DEV_MFG_INFO | DEV_DEV_INFO | DEV_NV_DATA | DEV_VPD_R0)

/* --damage kinds (README "Damages"). */
enum damage_kind {
	DMG_CRC, DMG_ITOC_HDR_CRC, DMG_ITOC_ENTRY_CRC, DMG_NO_MFG, DMG_DTOC_PLACE,
	DMG_ITOC_TRUNC, DMG_TOO_MANY, DMG_HW_PTR_CRC, DMG_TOOLS_CRC, DMG_HASHES_CRC, DMG_HASHES_HDR_CRC,
	DMG_TWO_DEV_INFO, DMG_TRUNC_FILE,
};

struct damage {
	enum damage_kind kind;
	uint8_t sect;		/* DMG_CRC: the section type */
};

struct config {
	const struct chip *chip;
	enum fw_format format;
	char psid[PSID_LEN + 1];
	char vsd[VSD_LEN + 1];
	unsigned int fw[3];
	uint64_t guid, mac;
	int rom;
	unsigned int rom_ver[3];
	unsigned int slot_log;
	unsigned int dev;	/* DEV_* bits */
	int guids_override, mcc_en, signed_fw, secure_fw, sig_sections, ini;
	uint32_t hw_ids[HW_IDS_MAX];
	unsigned int n_hw_ids;
	uint64_t seed;
	int dump;
	unsigned int dump_slot;
	int dump_both;		/* --dump-slot both: slot 1 holds a copy of slot 0 */
	uint32_t flash_size;	/* --dump, and an FS4 file (plan.c place_all) */
	int dev_after_image;	/* --dev-after-image: an FS4 file's device data right after the image */
	int dev_info_below_mfg;	/* --dev-info-below-mfg: FS3 DEV_INFO at MFG_INFO - 4 KiB, - 8 KiB free */
	struct damage damages[DAMAGES_MAX];
	unsigned int n_damages;
	const char *out;
	const char *map;
};

int has_damage(const struct config *c, enum damage_kind k, uint8_t sect);

#endif
