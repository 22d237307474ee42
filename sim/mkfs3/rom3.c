/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rom3_build: a mkfs2 config holding one ROM spec, passed to mkfs2's rom_data(). */
#include "rom3.h"

#include <string.h>

#include "buf.h"
#include "mkfs2.h"
#include "sections.h"

#define ROM_PRODUCT_PXE		0x10	/* fs2-format.md §4.5 mlxsign product: PXE */
#define ROM_CPU_AMD64		1	/* mstflint ExpRomCpuArch */
#define ROM_PROTO_ETH		1	/* mstflint ExpRomProto: Ethernet */

uint8_t *rom3_build(uint16_t devid, const unsigned int ver[3], unsigned int blocks,
		    struct rng *r, uint32_t *len, struct map *m)
{
	/* rom.c reads only chip->eth_only, roms[] and n_roms. */
	static const struct chip eth = { .name = "mkfs3", .eth_only = 1 };
	static struct config c;
	struct buf b = { NULL, 0, 0 };

	memset(&c, 0, sizeof(c));
	c.chip = &eth;
	c.roms[0].product = ROM_PRODUCT_PXE;
	memcpy(c.roms[0].ver, ver, sizeof(c.roms[0].ver));
	c.roms[0].devid = devid;
	c.roms[0].cpu = ROM_CPU_AMD64;
	c.roms[0].proto = ROM_PROTO_ETH;
	c.roms[0].blocks = blocks;
	c.n_roms = 1;
	rom_data(&b, &c, r, m);
	*len = (uint32_t)b.len;
	return b.data;
}
