/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Lays out header, BOOT2 blocks and the section chain, then the full-image CRC. */
#include "layout.h"

#include <stdio.h>

#include "be.h"
#include "crc16.h"
#include "sections.h"

/* §1.2 boot record offsets. */
#define HDR_OFF_MAGIC		0x00
#define HDR_OFF_BOOT_PARAMS	0x10
#define HDR_OFF_FW_ID		0x20
#define HDR_OFF_CRC_LO		0x22	/* bits 15:0 of the 0x20 dword */
#define HDR_OFF_BOOT_VER	0x24
#define HDR_OFF_FS_INFO		0x28
#define HDR_OFF_INFO_PTR	0x2C
#define HDR_OFF_IMG_SIZE	0x30
#define HDR_OFF_GUID_PTR	0x34
#define FS2_BOOT_START		0x38	/* §1.2: BOOT2 begins here */

/* §1.1: the ConnectX magic pattern. */
static const uint32_t fs2_magic[4] = { 0x4D544657, 0x8CDFD000, 0xDEAD9270, 0x4154BEEF };
/* §1.2: 0x10-0x1F are not interpreted by mstflint; copied from a real CX3-Pro. */
static const uint32_t boot_params[4] = { 0x80343811, 0x80c00000, 0xbdc80807, 0x00000002 };

#define BOOT_VERSION		0x00000004u	/* §1.2: real CX3-Pro 0x24 */
#define FW_ID_REV_SHIFT		24		/* §1.2: 0x20 bits 31:24 = dev_rev */
#define FS_INFO_FAILSAFE	0x8u		/* §1.5: bit 3 = failsafe */
#define PTR_MASK		0x00FFFFFFu	/* §1.2: 0x2C bits 23:0 = address */
#define CHECKSUM_SHIFT		24		/* checksum byte in 31:24 */
#define CRC_LO_BLANK		0xFFFFu		/* §2.2: blank GUIDs keep 0xFFFF */

/*
 * §1.3 BOOT2: [w0][N][N dwords][w_extra][CRC]. Real images have N = 0x185 and
 * 0x8C5; smaller ones keep test images small. w0 = 0x00100040 for the real
 * BOOT2 at 0x38 and w_extra = w0 + 4 in both real blocks (UNCONFIRMED
 * meaning, probably load address and entry point).
 */
#define BOOT2_N0		0x40u
#define BOOT2_N1		0x60u
#define BOOT2_LOAD_BASE		0x00100000u
#define BOOT2_CODE_OFF		8
#define BOOT2_EXTRA_DELTA	4

/* §1.4: DDR params look like load addresses; the real first one is 0x00102968. */
#define DDR_PARAM_BASE		0x00102968u

/* §1.2 0x2C/0x28: make the 4 bytes of v sum to 0 mod 256 via bits 31:24. */
static uint32_t with_checksum(uint32_t v)
{
	uint8_t sum = (uint8_t)(v + (v >> 8) + (v >> 16));

	return (v & PTR_MASK) | (uint32_t)(uint8_t)-sum << CHECKSUM_SHIFT;
}

static void boot2(struct buf *b, struct rng *r, uint32_t n, struct map *m, int index)
{
	size_t start = b->len;
	uint32_t w0 = BOOT2_LOAD_BASE + (uint32_t)start + BOOT2_CODE_OFF;

	buf_append_be32(b, w0);
	buf_append_be32(b, n);
	buf_append_rand(b, r, 4 * n);
	buf_append_be32(b, w0 + BOOT2_EXTRA_DELTA);
	/* §2.2: the CRC covers w0, N, code and w_extra (N + 3 dwords). */
	buf_append_be32(b, crc16_fs2(b->data + start, 4 * (n + 3)));
	map_add(m, (uint32_t)start, (uint32_t)(b->len - start), "boot2_%d", index);
}

/* A section is opened with a size-0 map line so the map lists it before its tags. */
struct sect_ctx {
	struct buf *b;
	struct map *m;
	size_t gph;
	size_t map_idx;
};

static void open_sect(struct sect_ctx *s, uint32_t type, uint32_t param, const char *name)
{
	s->gph = sect_begin(s->b, type, param);
	s->map_idx = s->m->n;
	map_add(s->m, (uint32_t)s->gph, 0, "%s", name);
}

static void close_sect(struct sect_ctx *s, int last, int blank_crc)
{
	s->m->e[s->map_idx].size = sect_end(s->b, s->gph, last, blank_crc);
}

/* The header at offset 0, once every section is in place: the magic, the boot
 * parameters, the pointers to GUID and IMAGE_INFO, the sizes and the full CRC. */
static void write_header(const struct config *c, struct buf *img, uint32_t guid_ptr, uint32_t info_ptr)
{
	uint32_t fs_info, crc;

	for (unsigned int i = 0; i < 4; i++) {
		put_be32(img->data + HDR_OFF_MAGIC + 4 * i, fs2_magic[i]);
		put_be32(img->data + HDR_OFF_BOOT_PARAMS + 4 * i, boot_params[i]);
	}
	/* §2.2: the full CRC is computed with 0x20 bits 15:0 taken as 0xFFFF. */
	put_be32(img->data + HDR_OFF_FW_ID, (uint32_t)c->rev << FW_ID_REV_SHIFT | CRC_LO_BLANK);
	put_be32(img->data + HDR_OFF_BOOT_VER, BOOT_VERSION);
	fs_info = (c->failsafe ? FS_INFO_FAILSAFE : 0) | c->chunk_log;
	put_be32(img->data + HDR_OFF_FS_INFO, with_checksum(fs_info));
	put_be32(img->data + HDR_OFF_INFO_PTR, with_checksum(info_ptr));
	/* §1.2: image size = file size = end of the last section. */
	put_be32(img->data + HDR_OFF_IMG_SIZE, (uint32_t)img->len);
	put_be32(img->data + HDR_OFF_GUID_PTR, guid_ptr);

	if (!c->blank_guids) {
		crc = crc16_fs2(img->data, img->len);
		img->data[HDR_OFF_CRC_LO] = (uint8_t)(crc >> 8);
		img->data[HDR_OFF_CRC_LO + 1] = (uint8_t)crc;
	}
}

int build_image(const struct config *c, struct buf *img, struct map *m)
{
	struct sect_ctx s = { .b = img, .m = m };
	uint32_t ddr_param[DDR_MAX];
	uint32_t guid_ptr, info_ptr;
	char name[MAP_NAME_MAX];
	struct rng r;
	unsigned int i;

	rng_seed(&r, c->seed);
	buf_append_byte(img, 0, FS2_BOOT_START);	/* filled in at the end */
	map_add(m, 0, FS2_BOOT_START, "header");
	boot2(img, &r, BOOT2_N0, m, 0);
	/* §1.3: a second BOOT2 is recognised by w0 not being a section type. */
	boot2(img, &r, BOOT2_N1, m, 1);

	/* §1.4 real order: CNF, ROM, GUID, IMAGE_INFO, DDR..., CNF, JMP, FW_CONF. */
	open_sect(&s, SECT_CNF, 0, "sect_CNF_0");
	cnf_data(img, c, &r, 0);
	close_sect(&s, 0, 0);

	if (c->rom) {
		open_sect(&s, SECT_ROM, 0, "sect_ROM");
		rom_data(img, c, &r, m);
		close_sect(&s, 0, 0);
	}

	open_sect(&s, SECT_GUID, 0, "sect_GUID");
	guid_ptr = (uint32_t)img->len;
	guid_data(img, c);
	close_sect(&s, 0, c->blank_guids);

	open_sect(&s, SECT_IMG_INFO, 0, "sect_IMAGE_INFO");
	info_ptr = (uint32_t)img->len;
	info_data(img, c, m);
	close_sect(&s, 0, 0);

	for (i = 0; i < c->ddr_count; i++) {
		ddr_param[i] = DDR_PARAM_BASE + i * c->ddr_size;
		snprintf(name, sizeof(name), "sect_DDR_%u", i);
		open_sect(&s, SECT_DDR, ddr_param[i], name);
		ddr_data(img, &r, c->ddr_size);
		close_sect(&s, 0, 0);
	}

	open_sect(&s, SECT_CNF, 0, "sect_CNF_1");
	cnf_data(img, c, &r, 1);
	close_sect(&s, 0, 0);

	open_sect(&s, SECT_JMP, 0, "sect_JMP");
	jmp_data(img, ddr_param, c->ddr_count);
	close_sect(&s, !c->fw_conf, 0);

	if (c->fw_conf) {
		open_sect(&s, SECT_FW_CONF, 0, "sect_FW_CONF");
		if (fw_conf_data(img, c))
			return -1;
		close_sect(&s, 1, 0);
	}

	if (img->len > PTR_MASK) {
		fprintf(stderr, "mkfs2: image of 0x%zx bytes is too large for FS2\n", img->len);
		return -1;
	}

	write_header(c, img, guid_ptr, info_ptr);
	return 0;
}
