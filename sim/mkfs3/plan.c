/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which sections an image holds, their sizes and addresses (image.h). Image
 * sections follow the ITOC in slot-relative addresses; device-data sections
 * get a 4 KiB sector each (the card rewrites them one by one): at the top of
 * the flash in a dump and in an FS4 file (which is a whole flash, see
 * place_all), right after the image in an FS3 file or with --dev-after-image.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "be.h"
#include "content.h"
#include "crc16.h"
#include "image.h"
#include "rng.h"

#define SECT_ALIGN	0x100u	/* synthetic; mstflint needs only dwords */
#define BOOT2_DWORDS	0x1f8u	/* BOOT2 code dwords: 2 KiB in all with its 4 dwords */
#define FILLER_ENTRIES	(TOC_MAX_ENTRIES + 2)	/* --damage too-many: past MAX_TOCS_NUM */

static uint32_t align_up(uint32_t v, uint32_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static struct sect *add(struct image *im, uint8_t type, int dev, struct rng *r)
{
	struct sect *s;

	/* At most 5 + ROM + INI + 6 signatures + 66 filler + 6 device sections: well below. */
	if (im->n == SECT_MAX) {
		fprintf(stderr, "mkfs3: more than %d sections\n", SECT_MAX);
		exit(1);
	}
	s = &im->s[im->n++];

	memset(s, 0, sizeof(*s));
	s->type = type;
	s->dev = dev;
	s->no_crc = type == ST_NV_DATA0 || type == ST_NV_DATA2;
	s->data = section_data(type, im->c, r, &s->len);
	if (!s->data)
		return NULL;
	snprintf(s->name, sizeof(s->name), "%s", section_name(type));
	return s;
}

/* The image's own sections, in the order a stock image has them. */
static int plan_image_sections(struct image *im, struct rng *r)
{
	const struct config *c = im->c;
	static const uint8_t base[] = { ST_BOOT_CODE, ST_MAIN_CODE, ST_HW_BOOT_CFG,
					ST_HW_MAIN_CFG, ST_IMAGE_INFO };
	size_t i;
	int ok = 1;

	for (i = 0; i < sizeof(base); i++)
		ok &= add(im, base[i], 0, r) != NULL;
	if (c->rom)
		ok &= add(im, ST_ROM_CODE, 0, r) != NULL;
	if (c->ini)
		ok &= add(im, ST_DBG_FW_INI, 0, r) != NULL;
	if (c->sig_sections) {
		ok &= add(im, ST_IMAGE_SIGNATURE_256, 0, r) != NULL;
		ok &= add(im, ST_PUBLIC_KEYS_2048, 0, r) != NULL;
		ok &= add(im, ST_IMAGE_SIGNATURE_512, 0, r) != NULL;
		ok &= add(im, ST_PUBLIC_KEYS_4096, 0, r) != NULL;
		if (c->format == FMT_FS4) {
			ok &= add(im, ST_RSA_PUBLIC_KEY, 0, r) != NULL;
			ok &= add(im, ST_RSA_4096_SIGNATURES, 0, r) != NULL;
		}
	}
	if (ok && has_damage(c, DMG_TOO_MANY, 0)) {
		/* One PHY_UC_CONSTS, listed again and again. */
		struct sect *first = add(im, ST_PHY_UC_CONSTS, 0, r);

		for (i = 1; first && i < FILLER_ENTRIES; i++) {
			im->s[im->n] = *first;
			im->s[im->n++].shared = 1;
		}
		ok = first != NULL;
	}
	return ok ? 0 : -1;
}

#define DEV_INFO_SIG_LEN	16	/* fs4_ops.cpp CheckDevInfoSignature: 4 dwords */
#define SECOND_UID_DELTA	0x100	/* the second valid DEV_INFO's GUIDs/MACs, to tell it apart */

/* FS4 DEV_INFO: the CRC in its last dword, so `sg` rewrites it without the DTOC
 * (fs4_ops.cpp RestoreDevToc writes both DEV_INFO entries with INSECTION). */
static void dev_info_crc(const struct image *im, struct sect *s)
{
	if (im->c->format != FMT_FS4)
		return;
	s->in_section = 1;
	put_be32(s->data + s->len - 4, crc16_fs2(s->data, s->len - 4));
}

/*
 * FS4 keeps DEV_INFO failsafe: a second one with its signature zeroed, that `sg` writes
 * before it invalidates the first (fs4_ops.cpp UpdateSection fails with fewer than 2;
 * RestoreDevToc makes this spare). verifyTocEntries does not check a DEV_INFO without its
 * signature. --damage two-dev-info keeps the signature: two valid ones.
 */
static int dev_info_spare(struct image *im, struct rng *r)
{
	struct sect *s = add(im, ST_DEV_INFO, 1, r);

	if (!s)
		return 0;
	if (!has_damage(im->c, DMG_TWO_DEV_INFO, 0))
		memset(s->data, 0, DEV_INFO_SIG_LEN);
	else
		dev_info_set_uids(s->data, im->c->guid + SECOND_UID_DELTA,
				  im->c->mac + SECOND_UID_DELTA);
	dev_info_crc(im, s);
	return 1;
}

static int plan_dev_sections(struct image *im, struct rng *r)
{
	const struct config *c = im->c;
	int ok = 1;

	if ((c->dev & DEV_MFG_INFO) && !has_damage(c, DMG_NO_MFG, 0))
		ok &= add(im, ST_MFG_INFO, 1, r) != NULL;
	if (c->dev & DEV_DEV_INFO) {
		struct sect *s = add(im, ST_DEV_INFO, 1, r);

		ok &= s != NULL;
		if (s)
			dev_info_crc(im, s);
		if (ok && (c->format == FMT_FS4 || has_damage(c, DMG_TWO_DEV_INFO, 0)))
			ok &= dev_info_spare(im, r);
	}
	if (c->dev & DEV_NV_DATA) {
		ok &= add(im, ST_NV_DATA0, 1, r) != NULL;
		ok &= add(im, ST_NV_DATA2, 1, r) != NULL;
	}
	if (c->dev & DEV_VPD_R0)
		ok &= add(im, ST_VPD_R0, 1, r) != NULL;
	return ok ? 0 : -1;
}

/* Slot-relative addresses of the image's structures and sections. */
static void place_image(struct image *im)
{
	uint32_t at;
	unsigned int i;

	im->boot2_len = 4 * (BOOT2_DWORDS + 4);
	if (im->c->format == FMT_FS3) {
		im->boot2 = FS3_BOOT2_OFF;
		/* fs3_ops.cpp FsVerifyAux: the ITOC is at the next 4 KiB boundary after BOOT2. */
		im->itoc = align_up(im->boot2 + im->boot2_len, SECTOR);
	} else {
		im->tools = FS4_TOOLS_OFF;
		im->boot2 = FS4_BOOT2_OFF;
		im->hashes = align_up(im->boot2 + im->boot2_len, SECTOR);
		im->hashes_len = fs4_hashes_table_len();
		im->itoc = align_up(im->hashes + im->hashes_len, SECTOR);
	}
	at = im->itoc + TOC_AREA;
	for (i = 0; i < im->n; i++) {
		struct sect *s = &im->s[i];

		if (s->dev)
			continue;
		if (s->shared) {
			s->addr = im->s[i - 1].addr;
			continue;
		}
		s->addr = at;
		at = align_up(at + s->len, SECT_ALIGN);
	}
	im->img_end = at;
}

/*
 * Device data: one sector each, from dev_base up. --dev-info-below-mfg (FS3): a free
 * sector, DEV_INFO, then MFG_INFO and the rest, the layout mstflint's sg expects
 * (fs3_ops.cpp Fs3GetNewSectionAddr: the two DEV_INFO places are MFG_INFO - 4 KiB and
 * MFG_INFO - 8 KiB; the ITOC names one, sg writes the other).
 */
static void place_dev(struct image *im)
{
	uint32_t at = im->dev_base;
	int below = im->c->dev_info_below_mfg;
	unsigned int i;

	if (below) {
		at += SECTOR;
		for (i = 0; i < im->n; i++)
			if (im->s[i].dev && im->s[i].type == ST_DEV_INFO) {
				im->s[i].addr = at;
				at += align_up(im->s[i].len, SECTOR);
			}
	}
	for (i = 0; i < im->n; i++) {
		if (!im->s[i].dev || (below && im->s[i].type == ST_DEV_INFO))
			continue;
		im->s[i].addr = at;
		at += align_up(im->s[i].len, SECTOR);
	}
}

static uint32_t dev_area(const struct image *im)
{
	uint32_t len = 0;
	unsigned int i;

	for (i = 0; i < im->n; i++)
		if (im->s[i].dev)
			len += align_up(im->s[i].len, SECTOR);
	return len + (im->c->dev_info_below_mfg ? SECTOR : 0); /* DEV_INFO's second place */
}

/*
 * An FS4 file is as large as the flash it is for, its device data and DTOC at the
 * flash's top, the rest erased:
 *  - fs4_ops.cpp FsVerifyAux reads the DTOC at get_effective_size() - 4 KiB of the
 *    file and each DTOC entry's section at its flash_addr as a file offset (address
 *    convertor off), so the sections must lie inside the file;
 *  - fs4_ops.cpp CheckFs4ImgSize (BurnFs4Image, when the image's device data is
 *    burned: -nofs --ignore_dev_data) refuses a DTOC entry below the *flash's*
 *    effective size - (1 << the image's log2_img_slot_size), and BurnFs4Image writes
 *    the DTOC at the file's own DTOC address: only a flash-sized file lands it in the
 *    flash's last sector, where FsVerifyAux looks for it on the card;
 *  - fs4_ops.cpp FwReadData (`ri`): "size will be always as get_size(), as the dtoc
 *    always at the end": mstflint's own files of a card are the flash's size;
 *  - fs4_ops.cpp RestoreDevToc builds a device area in a 16 MiB (CX5_FLASH_SIZE,
 *    ConnectX-5) or 32 MiB buffer filled with 0xff, DTOC in the last 4 KiB.
 * UNCONFIRMED: that NVIDIA's released FS4 .bin files are laid out so (no vendor file
 * was looked at); mkfs3 packs the sections one sector each below the DTOC instead
 * of RestoreDevToc's fixed addresses (0xf90000..0xff8000 for a 16 MiB ConnectX-5).
 */
static int fs4_flash_sized_file(const struct config *c)
{
	return !c->dump && c->format == FMT_FS4 && !c->dev_after_image;
}

/* Where the image and the device data go: a file, or a whole flash (--dump). */
static int place_all(struct image *im)
{
	const struct config *c = im->c;
	uint32_t slot_len = 1u << c->slot_log;
	uint32_t dtoc_len = c->format == FMT_FS4 ? SECTOR : 0;
	uint32_t slots = c->dump ? 2 : 1;	/* a flash-sized file has no second slot */

	/* --damage dtoc-place: the DTOC one sector too low, the last sector erased. */
	if (c->format == FMT_FS4 && has_damage(c, DMG_DTOC_PLACE, 0))
		dtoc_len += SECTOR;

	im->dev_len = dev_area(im);
	if (im->img_end > slot_len) {
		fprintf(stderr, "mkfs3: the image (0x%x bytes) is larger than a slot (0x%x)\n",
			im->img_end, slot_len);
		return -1;
	}
	if (!c->dump && !fs4_flash_sized_file(c)) {
		im->slot = 0;
		im->dev_base = align_up(im->img_end, SECTOR);
		im->size = im->dev_base + im->dev_len + dtoc_len;
	} else {
		im->slot = c->dump ? c->dump_slot * slot_len : 0;
		im->size = c->flash_size;
		if ((uint64_t)slots * slot_len + im->dev_len + dtoc_len > c->flash_size) {
			fprintf(stderr, "mkfs3: %u 0x%x-byte slot%s and 0x%x bytes of device data "
				"do not fit a 0x%x-byte flash\n", slots, slot_len, slots > 1 ? "s" : "",
				im->dev_len + dtoc_len, c->flash_size);
			return -1;
		}
		im->dev_base = c->flash_size - dtoc_len - im->dev_len;
	}
	im->dtoc = im->size - dtoc_len;
	place_dev(im);
	im->out_len = im->size;
	return 0;
}

int image_plan(struct image *im, const struct config *c)
{
	struct rng r;

	memset(im, 0, sizeof(*im));
	im->c = c;
	rng_seed(&r, c->seed);
	if (plan_image_sections(im, &r) || plan_dev_sections(im, &r))
		return -1;
	place_image(im);
	return place_all(im);
}

struct sect *image_find(struct image *im, uint8_t type, unsigned int nth)
{
	unsigned int i;

	for (i = 0; i < im->n; i++)
		if (im->s[i].type == type && !im->s[i].shared && nth-- == 0)
			return &im->s[i];
	return NULL;
}

void image_free(struct image *im)
{
	unsigned int i;

	for (i = 0; i < im->n; i++)
		if (!im->s[i].shared)
			free(im->s[i].data);
	free(im->d);
	map_free(&im->m);
	im->d = NULL;
	im->n = 0;
}
