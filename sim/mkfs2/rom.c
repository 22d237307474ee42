/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synthetic PCI option ROMs for the ROM section (type 5, fs2-format.md §4.5,
 * §9): one per struct rom_spec, concatenated, the last one flagged as last.
 * Each is a PCI Firmware Spec option ROM (0x55AA header, "PCIR" structure),
 * EFI-style for a UEFI ROM, with its own "mlxsign:" record and an 8-bit
 * checksum of 0 over its rom[2] * 512 bytes.
 */
#include <string.h>

#include "be.h"
#include "sections.h"

/* PCI Firmware Spec 3.0 §5.1 option ROM header. */
#define ROM_SIG0		0x55
#define ROM_SIG1		0xAA
#define ROM_OFF_BLOCKS		2	/* size in 512-byte blocks; mstflint sums rom[2]*512 */
#define ROM_BLOCK		512
#define ROM_OFF_ENTRY		3	/* x86 init entry: a near jump */
#define X86_JMP_NEAR		0xE9
#define ROM_OFF_PCIR_PTR	0x18
#define ROM_PCIR_OFF		0x20

/* UEFI 2.x §14.4.2 "EFI PCI Expansion ROM Header": after the 16-bit size at 2. */
#define EFI_OFF_SIGNATURE	4
#define EFI_ROM_SIGNATURE	0x0EF1u
#define EFI_OFF_SUBSYSTEM	8
#define EFI_SUBSYS_BS_DRIVER	11	/* EFI_IMAGE_SUBSYSTEM_EFI_BOOT_SERVICE_DRIVER */
#define EFI_OFF_MACHINE		0x0A
#define EFI_MACHINE_X64		0x8664	/* PE32+ IMAGE_FILE_MACHINE_AMD64 */
#define EFI_OFF_IMAGE_OFF	0x16	/* the PE image's offset: filler here */
#define EFI_IMAGE_OFF		0x80

/* "PCIR" data structure fields (offsets inside it, PCI Firmware Spec §5.1.1). */
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
#define PCIR_CODE_EFI		3
#define PCIR_LAST_IMAGE		0x80
#define PCI_CLASS_NET_ETH	0x020000u
#define PCI_CLASS_NET_OTHER	0x028000u
#define MELLANOX_VENDOR		0x15B3

/*
 * §4.5: mstflint (fw_ops.cpp RomInfo) scans for "mlxsign:" and reads
 * little-endian dwords: product (31:16) and major (7:0); minor (23:16) and
 * subminor (15:0); for products from 0x10 on devid (31:16), port (15:12),
 * cpu (11:8) and protocol (7:0). Product 0x0F (the CLP HP's cards carry,
 * "version_id=8025 type=CLP") instead has a version string: dword 3 holds
 * its length (15:8) and the record's length in dwords (7:0), which must be
 * at least (len + 3) / 4 + 4; the string follows at +0x10. Its devid is read
 * from the PCIR structure that the section's first header points to.
 */
#define ROM_SIGN_OFF		0x40
#define ROM_SIGN		"mlxsign:"
#define ROM_PRODUCT_FREE_STR	0x0F
#define ROM_PRODUCT_UEFI	0x11
#define SIGN_OFF_STR_INFO	12
#define SIGN_OFF_STR		16
#define SIGN_STR_LEN_SHIFT	8
#define SIGN_BASE_DWORDS	4

static void pcir(uint8_t *rom, const struct config *c, const struct rom_spec *s, int last)
{
	uint8_t *p = rom + ROM_PCIR_OFF;
	uint32_t class = c->chip->eth_only ? PCI_CLASS_NET_ETH : PCI_CLASS_NET_OTHER;

	put_le16(rom + ROM_OFF_PCIR_PTR, ROM_PCIR_OFF);
	memset(p, 0, PCIR_SIZE);
	memcpy(p, "PCIR", 4);
	put_le16(p + PCIR_OFF_VENDOR, MELLANOX_VENDOR);
	put_le16(p + PCIR_OFF_DEVICE, (uint16_t)s->devid);
	put_le16(p + PCIR_OFF_LEN, PCIR_SIZE);
	p[PCIR_OFF_REV] = PCIR_REV_3;
	p[PCIR_OFF_CLASS] = (uint8_t)class;
	p[PCIR_OFF_CLASS + 1] = (uint8_t)(class >> 8);
	p[PCIR_OFF_CLASS + 2] = (uint8_t)(class >> 16);
	put_le16(p + PCIR_OFF_IMG_LEN, (uint16_t)s->blocks);
	p[PCIR_OFF_CODE_TYPE] = s->product == ROM_PRODUCT_UEFI ? PCIR_CODE_EFI : PCIR_CODE_X86;
	p[PCIR_OFF_INDICATOR] = last ? PCIR_LAST_IMAGE : 0;
}

static void header(uint8_t *rom, const struct rom_spec *s)
{
	rom[0] = ROM_SIG0;
	rom[1] = ROM_SIG1;
	rom[ROM_OFF_BLOCKS] = (uint8_t)s->blocks;
	if (s->product != ROM_PRODUCT_UEFI) {
		rom[ROM_OFF_ENTRY] = X86_JMP_NEAR;
		return;
	}
	rom[ROM_OFF_BLOCKS + 1] = 0;	/* the EFI header's size is 16 bits */
	put_le32(rom + EFI_OFF_SIGNATURE, EFI_ROM_SIGNATURE);
	put_le16(rom + EFI_OFF_SUBSYSTEM, EFI_SUBSYS_BS_DRIVER);
	put_le16(rom + EFI_OFF_MACHINE, EFI_MACHINE_X64);
	memset(rom + EFI_OFF_MACHINE + 2, 0, EFI_OFF_IMAGE_OFF - EFI_OFF_MACHINE - 2);
	put_le16(rom + EFI_OFF_IMAGE_OFF, EFI_IMAGE_OFF);
}

static void sign(uint8_t *rom, const struct rom_spec *s)
{
	uint8_t *p = rom + ROM_SIGN_OFF + strlen(ROM_SIGN);

	memcpy(rom + ROM_SIGN_OFF, ROM_SIGN, strlen(ROM_SIGN));
	put_le32(p, (uint32_t)s->product << 16 | (s->ver[0] & 0xFF));
	if (s->product == ROM_PRODUCT_FREE_STR) {
		size_t n = strlen(s->ver_str);

		memset(p + 4, 0, SIGN_OFF_STR - 4);
		put_le32(p + SIGN_OFF_STR_INFO, (uint32_t)n << SIGN_STR_LEN_SHIFT |
			 (uint32_t)((n + 3) / 4 + SIGN_BASE_DWORDS));
		memcpy(p + SIGN_OFF_STR, s->ver_str, n);
		return;
	}
	put_le32(p + 4, (uint32_t)s->ver[1] << 16 | (s->ver[2] & 0xFFFF));
	put_le32(p + 8, (uint32_t)s->devid << 16 | (s->port & 0xF) << 12 |
		 (s->cpu & 0xF) << 8 | (s->proto & 0xFF));
}

static void one_rom(struct buf *b, const struct config *c, struct rng *r,
		    const struct rom_spec *s, int last)
{
	size_t len = (size_t)s->blocks * ROM_BLOCK;
	size_t off = buf_append_rand(b, r, len);
	uint8_t *rom = b->data + off;
	uint8_t sum = 0;
	size_t i;

	header(rom, s);
	pcir(rom, c, s, last);
	sign(rom, s);
	/* The filler must not contain a second "mlxsign:"; it cannot by chance in these sizes. */
	rom[len - 1] = 0;
	for (i = 0; i < len; i++)
		sum = (uint8_t)(sum + rom[i]);
	/* §2.2: the 8-bit sum over rom[2]*512 bytes should be 0 (only a warning if not). */
	rom[len - 1] = (uint8_t)(s->bad_checksum ? 1 - sum : -sum);
}

void rom_data(struct buf *b, const struct config *c, struct rng *r, struct map *m)
{
	unsigned int i;

	for (i = 0; i < c->n_roms; i++) {
		size_t off = b->len;

		one_rom(b, c, r, &c->roms[i], i + 1 == c->n_roms);
		map_add(m, (uint32_t)off, (uint32_t)(b->len - off), "rom_%u", i);
	}
}
