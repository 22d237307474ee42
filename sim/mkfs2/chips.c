/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The chips mkfs2 can imitate; IDs from fs2-format.md §6 and hw-access.md §1. */
#include <stdio.h>
#include <string.h>

#include "mkfs2.h"

/* mlxsign protocol codes (fs2-format.md §4.5, mstflint enum ExpRomProto). */
#define ROM_PROTO_ETH	1
#define ROM_PROTO_VPI	2

static const struct chip chips[] = {
	{
		.name = "cx2", .long_name = "ConnectX-2",
		.dev_id = 26428,	/* MT26428, QDR VPI (fs2-format.md §6 SW id list) */
		.hw_id = 0x190, .rev = 0xB0,	/* hw-access.md §1.2: rev B0 = CX2 */
		.psid = "MT_0D80120009", .fw = { 2, 9, 1000 },
		.date = "2011-10-25", .prs = "cx2_SYNTH_MHQH29C_2mb.prs",
		.board = "SYNTH-MHQH29C", .subsys_id = 0x0001,
		.rom_proto = ROM_PROTO_VPI,	/* PCIe gen2 only */
	},
	{
		.name = "cx3", .long_name = "ConnectX-3",
		.dev_id = 4099,		/* 0x1003 */
		.hw_id = 0x1f5, .rev = 1,	/* §1.2: 0 = A0, 1 = A1 */
		.psid = "MT_1090120019", .fw = { 2, 42, 5000 },
		.date = "2017-09-05", .prs = "cx3_SYNTH_MCX354A_2mb.prs",
		.board = "SYNTH-MCX354A-FCB", .subsys_id = 0x0050,
		.rom_proto = ROM_PROTO_VPI, .pcie_gen3 = 1,
	},
	{
		.name = "cx3pro", .long_name = "ConnectX-3 Pro",
		.dev_id = 4103,		/* 0x1007 */
		.hw_id = 0x1f7, .rev = 0,
		.psid = "MT_1090111023", .fw = { 2, 42, 5000 },
		.date = "2017-09-05", .prs = "cx3pro_SYNTH_MCX312B_2mb.prs",
		.board = "SYNTH-MCX312B-XCCT", .subsys_id = 0x0079,
		.rom_proto = ROM_PROTO_ETH, .eth_only = 1, .pcie_gen3 = 1,
	},
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
