/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --damage KIND names (README "Damages") and --dev-sections names. */
#include <string.h>

#include "damage_names.h"

struct kind_name {
	const char *name;
	enum damage_kind kind;
	int fs4_only;
};

static const struct kind_name kinds[] = {
	{ "itoc-hdr-crc", DMG_ITOC_HDR_CRC, 0 }, { "itoc-entry-crc", DMG_ITOC_ENTRY_CRC, 0 },
	{ "no-mfg", DMG_NO_MFG, 0 }, { "dtoc-place", DMG_DTOC_PLACE, 1 },
	{ "itoc-trunc", DMG_ITOC_TRUNC, 0 }, { "too-many", DMG_TOO_MANY, 0 },
	{ "hw-ptr-crc", DMG_HW_PTR_CRC, 1 }, { "tools-crc", DMG_TOOLS_CRC, 1 },
	{ "hashes-crc", DMG_HASHES_CRC, 1 },
	{ "hashes-hdr-crc", DMG_HASHES_HDR_CRC, 1 }, { "two-dev-info", DMG_TWO_DEV_INFO, 0 },
	{ "trunc-file", DMG_TRUNC_FILE, 0 },
};

struct crc_name {
	const char *name;
	uint8_t type;
};

/* Sections crc:NAME can damage: every kind mkfs3 writes with a CRC. */
static const struct crc_name crcs[] = {
	{ "BOOT_CODE", ST_BOOT_CODE }, { "MAIN_CODE", ST_MAIN_CODE },
	{ "HW_BOOT_CFG", ST_HW_BOOT_CFG }, { "HW_MAIN_CFG", ST_HW_MAIN_CFG },
	{ "IMAGE_INFO", ST_IMAGE_INFO }, { "ROM_CODE", ST_ROM_CODE },
	{ "DBG_FW_INI", ST_DBG_FW_INI }, { "MFG_INFO", ST_MFG_INFO },
	{ "DEV_INFO", ST_DEV_INFO }, { "VPD_R0", ST_VPD_R0 },
	{ "IMAGE_SIGNATURE_256", ST_IMAGE_SIGNATURE_256 },
};

const char *damage_parse(const char *arg, struct damage *d, int *fs4_only)
{
	size_t i;

	*fs4_only = 0;
	if (!strncmp(arg, "crc:", 4)) {
		for (i = 0; i < sizeof(crcs) / sizeof(crcs[0]); i++) {
			if (!strcmp(arg + 4, crcs[i].name)) {
				d->kind = DMG_CRC;
				d->sect = crcs[i].type;
				return NULL;
			}
		}
		return "crc: takes BOOT_CODE, MAIN_CODE, HW_BOOT_CFG, HW_MAIN_CFG, IMAGE_INFO, "
		       "ROM_CODE, DBG_FW_INI, MFG_INFO, DEV_INFO, VPD_R0 or IMAGE_SIGNATURE_256";
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!strcmp(arg, kinds[i].name)) {
			d->kind = kinds[i].kind;
			d->sect = 0;
			*fs4_only = kinds[i].fs4_only;
			return NULL;
		}
	}
	return "unknown damage (see mkfs3 --help)";
}

/* LIST of mfg,dev,nv,vpd (or none) into DEV_* bits; -1 if a name is unknown. */
int dev_sections_parse(const char *list, unsigned int *bits)
{
	static const struct { const char *name; unsigned int bit; } dn[] = {
		{ "mfg", DEV_MFG_INFO }, { "dev", DEV_DEV_INFO }, { "nv", DEV_NV_DATA },
		{ "vpd", DEV_VPD_R0 }, { "none", 0 },
	};
	const char *p = list;

	*bits = 0;
	while (*p) {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < sizeof(dn) / sizeof(dn[0]); i++)
			if (strlen(dn[i].name) == len && !strncmp(p, dn[i].name, len))
				break;
		if (i == sizeof(dn) / sizeof(dn[0]))
			return -1;
		*bits |= dn[i].bit;
		p += len + (p[len] == ',');
	}
	return 0;
}
