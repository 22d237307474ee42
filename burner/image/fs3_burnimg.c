/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3_burnimg.c — may this FS3/FS4 file go onto this card's flash, and into which slot
 * (fs3-format.md §11.1). The bytes and extents themselves are fs3_burnimg_itoc.c. */
#include <stdlib.h>
#include <string.h>

#include "image/fs3_burnimg.h"

#define DTOC_SECTOR 0x1000      /* FS4_DEFAULT_SECTOR_SIZE: the DTOC's 4 KiB at the flash's end, §4.5 */
#define DTOC_TYPE 0xfe          /* the pseudo-type v prints for the DTOC header, §3.3 */
#define HW_ID_MASK 0xffff       /* CheckMatchingHwDevId: supported_hw_id [15:0] is the HW ID, §11.1 */
#define HW_REV_SHIFT 16         /* ... and [23:16] the revision */
#define HW_REV_MASK 0xff
#define TOC_LAYOUT_VER_OFF 16   /* FS4 TOC header: flash_layout_version, dword 4 [31:24], §3.1 */

uint32_t fs3_burn_target(uint32_t current_start, unsigned log2_slot)
{
	/* getNewImageStartAddress: a card running from anywhere but 0 gets slot 0. */
	return current_start != 0 ? 0 : 1u << log2_slot;
}

void fs3_burn_free(struct fs3_burn *b)
{
	free(b->slot);
	b->slot = NULL;
}

static int parse_file(const uint8_t *file, size_t len, struct fs3_image *fi, struct cx_status *st)
{
	struct cx_status t = {0};
	int rc = fs3_parse(file, len, fi, &t);

	if (!rc)
		rc = fs3_verdict(fi, &t);
	if (rc)
		return cx_fail(st, rc == CX_EUNSUPPORTED ? rc : CX_EIMAGE, "the file: %s", t.msg);
	return CX_OK;
}

/* The first device section of the card whose CRC is wrong, or NULL. */
static const struct fs3_item *damaged_dev(const struct fs3_image *ci)
{
	for (int i = 0; i < ci->nitems; i++) {
		const struct fs3_item *it = &ci->items[i];
		if (it->kind != FS3_ITEM_SECTION || it->entry < 0 || it->ok)
			continue;
		const struct fs3_entry *e = &ci->entries[it->entry];
		if (e->in_dtoc || e->device_data)
			return it;
	}
	return NULL;
}

/* FsBurnAux: a failsafe burn needs the card's own query to succeed (FsIntQueryAux), which checks
 * what q checks; without it there is no device data to keep, and mstflint refuses. */
static int parse_card(const uint8_t *flash, size_t len, struct fs3_image *ci, struct cx_status *st)
{
	static const char restore[] = "restoring the card's device data is a separate step (a backup)";
	struct cx_status t = {0};
	const struct fs3_item *bad;

	if (fs3_parse(flash, len, ci, &t))
		return cx_fail(st, CX_EIMAGE, "the card's device data is missing: its flash holds no valid FS3/FS4 "
			       "image to take it from (%s); a failsafe burn keeps the card's device data, and %s",
			       t.msg, restore);
	if ((bad = damaged_dev(ci)))
		return cx_fail(st, CX_EIMAGE, "the card's device data is damaged: %s at 0x%x has a wrong CRC; "
			       "a failsafe burn would keep it as it is, and %s",
			       fs3_sect_name(bad->type) ? fs3_sect_name(bad->type) : "a device section", bad->off,
			       restore);
	if (!ci->mfg.present)
		return cx_fail(st, CX_EIMAGE, "the card's device data is damaged: its MFG_INFO cannot be read; %s",
			       restore);
	if (fs3_verdict_query(ci, &t))
		return cx_fail(st, CX_EIMAGE, "the card's image is damaged (%s): mstflint refuses a failsafe burn "
			       "when the card's query fails; burning without failsafe is not supported", t.msg);
	return CX_OK;
}

static int check_hw_id(const struct fs3_image *fi, const struct fs3_card_id *id, struct cx_status *st)
{
	if (!id || !id->hw_id)
		return CX_OK;
	if (!fi->info.hw_ids[0])
		return cx_fail(st, CX_EMISMATCH, "No supported devices were found in the FW image.");
	for (int i = 0; i < 4 && fi->info.hw_ids[i]; i++) {
		uint32_t v = fi->info.hw_ids[i];
		if ((v & HW_ID_MASK) == id->hw_id && ((v >> HW_REV_SHIFT) & HW_REV_MASK) == id->rev_id)
			return CX_OK;
	}
	return cx_fail(st, CX_EMISMATCH, "Device/Image mismatch: the file is for HW ID 0x%x (rev %u)%s, the card is "
		       "0x%x (rev %u)", fi->info.hw_ids[0] & HW_ID_MASK,
		       (fi->info.hw_ids[0] >> HW_REV_SHIFT) & HW_REV_MASK, fi->info.hw_ids[1] ? " and others" : "",
		       id->hw_id, id->rev_id);
}

/* FwBurnAdvanced: an FS4 card whose DTOC's flash_layout_version is below the file's ITOC's gets its
 * device sections moved first (CheckIfAlignmentIsNeeded, AlignDeviceSections): a write of the
 * device data, which this tool never does. */
static int check_layout(const struct fs3_image *fi, const struct fs3_image *ci, struct cx_status *st)
{
	if (!ci->fmt->dtoc)
		return CX_OK;
	unsigned card = ci->buf[ci->dtoc_off + TOC_LAYOUT_VER_OFF], file = fi->buf[fi->itoc_off + TOC_LAYOUT_VER_OFF];
	if (card < file)
		return cx_fail(st, CX_EUNSUPPORTED, "the file needs the card's device sections moved first (the card's "
			       "flash layout version %u, the file's %u; mstflint's AlignDeviceSections): a write of the "
			       "device data, which this tool does not do", card, file);
	return CX_OK;
}

/* Format, HW ID, slot size, and where the card's image is: FsBurnAux, CheckAndDealWithChunkSizes. */
static int check_fit(const struct fs3_image *fi, const struct fs3_image *ci, const struct fs3_card_id *id,
		     struct fs3_burn *b, struct cx_status *st)
{
	int rc;

	if (fi->fmt->fmt != ci->fmt->fmt)
		return cx_fail(st, CX_EMISMATCH, "the file is %s, the card's image %s: FW image type is not compatible "
			       "with device (%s)", fi->fmt->name, ci->fmt->name, ci->fmt->name);
	if ((rc = check_hw_id(fi, id, st)) || (rc = check_layout(fi, ci, st)))
		return rc;
	/* UNCONFIRMED use: mstflint lets 0x16 and 0x17 mix (then shifts 8 MB images); we do not. */
	if (fi->log2_slot != ci->log2_slot)
		return cx_fail(st, CX_EMISMATCH, "Device and Image partition size differ(0x%x/0x%x), use non failsafe "
			       "burn flow.", ci->log2_slot, fi->log2_slot);
	if (ci->log2_slot >= 31)
		return cx_fail(st, CX_EUNSUPPORTED, "slot size 2^%u: not a flash this tool knows", ci->log2_slot);
	b->fmt = fi->fmt->fmt;
	b->log2_slot = ci->log2_slot;
	b->slot_size = 1u << ci->log2_slot;
	if (ci->start != 0 && ci->start != b->slot_size)
		return cx_fail(st, CX_EUNSUPPORTED, "the card's image starts at 0x%x, not at a slot (0 or 0x%x): mstflint "
			       "moves it first (FwCheckIf8MBShiftingNeeded), which this tool does not", ci->start,
			       b->slot_size);
	b->old_start = ci->start;
	b->target = fs3_burn_target(ci->start, ci->log2_slot);
	memcpy(b->card_psid, ci->info.psid, sizeof(b->card_psid));
	memcpy(b->file_psid, fi->info.psid, sizeof(b->file_psid));
	b->psid_change = strcmp(b->card_psid, b->file_psid) != 0;
	return CX_OK;
}

/* The card's device sections (FS3: ITOC entries with device_data; FS4: the DTOC and its entries). */
static void collect_dev(const struct fs3_image *ci, struct fs3_burn *b)
{
	for (int i = 0; i < ci->nentries; i++) {
		const struct fs3_entry *e = &ci->entries[i];
		if (e->in_dtoc || e->device_data)
			b->dev[b->ndev++] = (struct fs3_devrange){e->type, e->data_off, e->size};
	}
	if (ci->fmt->dtoc) {
		uint32_t end = ci->dtoc_off + DTOC_SECTOR;
		if (end > b->flash_size)
			end = b->flash_size;
		b->dev[b->ndev++] = (struct fs3_devrange){DTOC_TYPE, ci->dtoc_off, end - ci->dtoc_off};
	}
}

int fs3_burn_prepare(const uint8_t *file, size_t file_len, const uint8_t *flash, size_t flash_len,
		     const struct fs3_card_id *id, struct fs3_burn *b, struct cx_status *st)
{
	struct fs3_image *fi = calloc(1, sizeof(*fi)), *ci = calloc(1, sizeof(*ci));
	int rc;

	memset(b, 0, sizeof(*b));
	b->flash_size = (uint32_t)flash_len;
	if (!fi || !ci)
		rc = cx_fail(st, CX_ENOMEM, "out of memory");
	else if (flash_len > FS3_MAX_FILE)
		rc = cx_fail(st, CX_EIMAGE, "the card's flash (%zu bytes) is larger than any flash", flash_len);
	else if (!(rc = parse_file(file, file_len, fi, st)) && !(rc = parse_card(flash, flash_len, ci, st)) &&
		 !(rc = check_fit(fi, ci, id, b, st))) {
		collect_dev(ci, b);
		rc = fs3_burn_build(fi, ci, b, st);
	}
	free(fi);
	free(ci);
	if (rc)
		fs3_burn_free(b);
	return rc;
}
