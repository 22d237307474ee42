/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --damage: what each kind breaks once the image is whole (README "Damages").
 * no-mfg, two-dev-info and too-many are made by plan.c, itoc-trunc by
 * assemble.c and dtoc-place by both; here are the bit flips and the cut.
 */
#include <stdio.h>
#include <string.h>

#include "image.h"

#define FLIP		0x01	/* a flipped low bit changes any CRC16 */
#define CRC_LOW_BYTE	3	/* the CRC16 is [15:0] of a big-endian dword: its last byte */
#define HWP_TOC_INDEX	2	/* image_layout_hw_pointers_carmel: toc_ptr is entry 2 */

int has_damage(const struct config *c, enum damage_kind k, uint8_t sect)
{
	unsigned int i;

	for (i = 0; i < c->n_damages; i++)
		if (c->damages[i].kind == k && (k != DMG_CRC || c->damages[i].sect == sect))
			return 1;
	return 0;
}

/* A byte in the middle of the section's data: its stored CRC no longer matches. */
static void flip_section(struct image *im, uint8_t type)
{
	struct sect *s = image_find(im, type, 0);
	uint32_t at;

	if (!s) {
		fprintf(stderr, "mkfs3: warning: --damage crc: no %02x section to damage\n", type);
		return;
	}
	at = (s->dev ? s->addr : im->slot + s->addr) + s->len / 2;
	im->d[at] ^= FLIP;
}

static void apply(struct image *im, const struct damage *d)
{
	uint8_t *slot = im->d + im->slot;

	switch (d->kind) {
	case DMG_CRC:
		flip_section(im, d->sect);
		break;
	case DMG_ITOC_HDR_CRC:
		slot[im->itoc + TOC_HDR_LEN - 4 + CRC_LOW_BYTE] ^= FLIP;
		break;
	case DMG_ITOC_ENTRY_CRC:
		slot[im->itoc + TOC_HDR_LEN + TOC_ENTRY_LEN - 4 + CRC_LOW_BYTE] ^= FLIP;
		break;
	case DMG_HW_PTR_CRC:
		slot[FS4_HW_PTR_OFF + HWP_TOC_INDEX * FS4_HW_PTR_ENTRY + 4 + CRC_LOW_BYTE] ^= FLIP;
		break;
	case DMG_TOOLS_CRC:
		slot[im->tools + FS4_TOOLS_LEN - 4 + CRC_LOW_BYTE] ^= FLIP;
		break;
	case DMG_HASHES_CRC:
		slot[im->hashes + im->hashes_len - 4 + CRC_LOW_BYTE] ^= FLIP;
		break;
	case DMG_HASHES_HDR_CRC:
		slot[im->hashes + FS4_HT_HEADER_LEN - 4 + CRC_LOW_BYTE] ^= FLIP;
		break;
	case DMG_TRUNC_FILE:
		/* The file ends in the middle of the image's data. */
		im->out_len = (im->slot + im->img_end / 2) & ~3u;
		break;
	default:	/* made while planning or assembling */
		break;
	}
}

void image_damage(struct image *im)
{
	unsigned int i;

	for (i = 0; i < im->c->n_damages; i++)
		apply(im, &im->c->damages[i]);
}
