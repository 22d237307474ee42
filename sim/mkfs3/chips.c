/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The chips mkfs3 can imitate: IDs from mstflint dev_mgt/tools_dev_types.c, formats from
 * fw_ops.cpp GetFwFormatFromHwDevID; PSIDs and versions are stock-looking examples. Flash
 * sizes: fs4_ops.cpp RestoreDevToc builds a ConnectX-5's device area in CX5_FLASH_SIZE
 * (16 MiB) and every other FS4 device's in twice that; the ConnectX-4s' 16 MiB is what
 * cxsim gives them (UNCONFIRMED for real boards, which vary). */
#include <stdio.h>
#include <string.h>

#include "mkfs3.h"

#define MIB16	0x1000000u	/* CX5_FLASH_SIZE (fs4_ops.cpp RestoreDevToc) */
#define MIB32	(2 * MIB16)	/* RestoreDevToc: "flash_size = 2 * CX5_FLASH_SIZE" */

static const struct chip chips[] = {
	{ "cx4", "ConnectX-4", 0x1013, 0x209, FMT_FS3, "MT_2190110032", { 12, 28, 2006 }, MIB16 },
	{ "cx4lx", "ConnectX-4 Lx", 0x1015, 0x20b, FMT_FS3, "MT_2420110034", { 14, 32, 1010 }, MIB16 },
	{ "cx5", "ConnectX-5", 0x1017, 0x20d, FMT_FS4, "MT_0000000008", { 16, 35, 4030 }, MIB16 },
	{ "cx6", "ConnectX-6", 0x101b, 0x20f, FMT_FS4, "MT_0000000222", { 20, 39, 1002 }, MIB32 },
	{ "cx6dx", "ConnectX-6 Dx", 0x101d, 0x212, FMT_FS4, "MT_0000000359", { 22, 39, 1002 }, MIB32 },
	{ "cx6lx", "ConnectX-6 Lx", 0x101f, 0x216, FMT_FS4, "MT_0000000531", { 26, 39, 1002 }, MIB32 },
};

#define NCHIPS (sizeof(chips) / sizeof(chips[0]))

const struct chip *chip_find(const char *name)
{
	size_t i;

	for (i = 0; i < NCHIPS; i++)
		if (!strcmp(chips[i].name, name))
			return &chips[i];
	return NULL;
}

void chip_list(const char *sep)
{
	size_t i;

	for (i = 0; i < NCHIPS; i++)
		fprintf(stderr, "%s%s", i ? sep : "", chips[i].name);
}
