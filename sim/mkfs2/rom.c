/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A synthetic PCI option ROM for the ROM section (type 5, fs2-format.md §4.5). */
#include <string.h>

#include "be.h"
#include "sections.h"

/* PCI Firmware Spec legacy option ROM header. */
#define ROM_SIG0		0x55
#define ROM_SIG1		0xAA
#define ROM_OFF_BLOCKS		2	/* size in 512-byte blocks; mstflint sums rom[2]*512 */
#define ROM_BLOCK		512
#define ROM_OFF_ENTRY		3	/* x86 init entry: a near jump */
#define X86_JMP_NEAR		0xE9
#define ROM_OFF_PCIR_PTR	0x18
#define ROM_PCIR_OFF		0x20
#define ROM_BLOCKS		16	/* 8 KiB: small but realistic-looking */

/* "PCIR" data structure fields (offsets inside it). */
#define PCIR_OFF_VENDOR		4
#define PCIR_OFF_DEVICE		6
#define PCIR_OFF_LEN		10
#define PCIR_OFF_REV		12
#define PCIR_OFF_CLASS		13
#define PCIR_OFF_IMG_LEN	16
#define PCIR_OFF_CODE_TYPE	20
#define PCIR_OFF_INDICATOR	21
#define PCIR_SIZE		0x18
#define PCIR_REV_3		3
#define PCIR_CODE_X86		0
#define PCIR_LAST_IMAGE		0x80
#define PCI_CLASS_NET_ETH	0x020000u
#define PCI_CLASS_NET_OTHER	0x028000u
#define MELLANOX_VENDOR		0x15B3

/*
 * §4.5: mstflint scans for "mlxsign:" and reads three little-endian dwords:
 * product (31:16) and major (low bits); minor (31:16) and subminor (15:0);
 * devid (31:16), port (15:12), cpu (11:8, mstflint ExpRomCpuArch: 1 = AMD64)
 * and protocol (7:0).
 */
#define ROM_SIGN_OFF		0x40
#define ROM_SIGN		"mlxsign:"
#define ROM_CPU_AMD64		1
#define ROM_PORT_ANY		0
#define ROM_CHECKSUM_OFF	(ROM_BLOCKS * ROM_BLOCK - 1)

void rom_data(struct buf *b, const struct config *c, struct rng *r)
{
	size_t off = buf_append_rand(b, r, ROM_BLOCKS * ROM_BLOCK);
	uint8_t *rom = b->data + off;
	uint8_t *pcir = rom + ROM_PCIR_OFF;
	uint8_t *sig;
	uint32_t class = c->chip->eth_only ? PCI_CLASS_NET_ETH : PCI_CLASS_NET_OTHER;
	uint8_t sum = 0;
	size_t i;

	rom[0] = ROM_SIG0;
	rom[1] = ROM_SIG1;
	rom[ROM_OFF_BLOCKS] = ROM_BLOCKS;
	rom[ROM_OFF_ENTRY] = X86_JMP_NEAR;
	put_le16(rom + ROM_OFF_PCIR_PTR, ROM_PCIR_OFF);

	memset(pcir, 0, PCIR_SIZE);
	memcpy(pcir, "PCIR", 4);
	put_le16(pcir + PCIR_OFF_VENDOR, MELLANOX_VENDOR);
	put_le16(pcir + PCIR_OFF_DEVICE, c->chip->dev_id);
	put_le16(pcir + PCIR_OFF_LEN, PCIR_SIZE);
	pcir[PCIR_OFF_REV] = PCIR_REV_3;
	pcir[PCIR_OFF_CLASS] = (uint8_t)class;
	pcir[PCIR_OFF_CLASS + 1] = (uint8_t)(class >> 8);
	pcir[PCIR_OFF_CLASS + 2] = (uint8_t)(class >> 16);
	put_le16(pcir + PCIR_OFF_IMG_LEN, ROM_BLOCKS);
	pcir[PCIR_OFF_CODE_TYPE] = PCIR_CODE_X86;
	pcir[PCIR_OFF_INDICATOR] = PCIR_LAST_IMAGE;

	sig = rom + ROM_SIGN_OFF;
	memcpy(sig, ROM_SIGN, strlen(ROM_SIGN));
	sig += strlen(ROM_SIGN);
	put_le32(sig, (uint32_t)c->rom_product << 16 | (c->rom_ver[0] & 0xFF));
	put_le32(sig + 4, (uint32_t)c->rom_ver[1] << 16 | (c->rom_ver[2] & 0xFFFF));
	put_le32(sig + 8, (uint32_t)c->chip->dev_id << 16 | ROM_PORT_ANY << 12 |
		 ROM_CPU_AMD64 << 8 | c->chip->rom_proto);

	/* The filler must not contain a second "mlxsign:"; it cannot by chance in 8 KiB. */
	rom[ROM_CHECKSUM_OFF] = 0;
	for (i = 0; i < ROM_BLOCKS * ROM_BLOCK; i++)
		sum = (uint8_t)(sum + rom[i]);
	/* §2.2: the 8-bit sum over rom[2]*512 bytes should be 0 (only a warning if not). */
	rom[ROM_CHECKSUM_OFF] = (uint8_t)(c->rom_bad_checksum ? 1 - sum : -sum);
}
