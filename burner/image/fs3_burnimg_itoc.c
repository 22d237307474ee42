/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3_burnimg_itoc.c — the target slot's bytes and extents, the size checks, and the FS3 ITOC
 * taking the card's device-data entries (fs3-format.md §11.1, §11.2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/fs3_burnimg.h"

#define TOC_SECTOR 0x1000  /* FS3/FS4_DEFAULT_SECTOR_SIZE: the head ends with the ITOC's sector, §11.2 */
#define TOC_ENTRY_LEN 32   /* CIBFW_ITOC_ENTRY_SIZE, §3.2 */
#define ERASE_UNIT 0x1000  /* a flash sector: the least an erase takes (Flash::write erases sectors), §11.2 */

static const char *name_of(uint8_t type)
{
	const char *n = fs3_sect_name(type);
	return n ? n : "(unnamed)";
}

static int add_ext(struct fs3_burn *b, uint32_t off, uint32_t len, struct cx_status *st)
{
	if (b->next >= FS3_BURN_MAX_EXTENTS)
		return cx_fail(st, CX_EIMAGE, "the file: more than %d pieces to write", FS3_BURN_MAX_EXTENTS);
	if (len)
		b->ext[b->next++] = (struct fs3_extent){off, len};
	return CX_OK;
}

static int ext_cmp(const void *a, const void *b)
{
	const struct fs3_extent *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Sort, and join pieces that touch or overlap: fewer, longer writes. */
static void merge(struct fs3_burn *b)
{
	int n = 0;

	qsort(b->ext, (size_t)b->next, sizeof(b->ext[0]), ext_cmp);
	for (int i = 0; i < b->next; i++) {
		struct fs3_extent *p = n ? &b->ext[n - 1] : NULL;
		uint32_t end = b->ext[i].off + b->ext[i].len;
		if (p && b->ext[i].off <= p->off + p->len) {
			if (end > p->off + p->len)
				p->len = end - p->off;
		} else {
			b->ext[n++] = b->ext[i];
		}
	}
	b->next = n;
	b->len = n ? b->ext[n - 1].off + b->ext[n - 1].len : 0;
}

/* BurnFs3Image / BurnFs4Image: the head (magic to the end of the ITOC's sector), then each ITOC
 * section but FS3's device data. *data_end: where the last section ends (sizeOfImgData, lastImageAddr). */
static int extents(const struct fs3_image *fi, struct fs3_burn *b, uint32_t *data_end, struct cx_status *st)
{
	uint64_t head = (uint64_t)fi->itoc_off - fi->start + TOC_SECTOR;
	int rc;

	if (fi->start + head > fi->len)
		head = fi->len - fi->start; /* a file that ends inside the ITOC's sector */
	if ((rc = add_ext(b, 0, (uint32_t)head, st)))
		return rc;
	*data_end = 0;
	for (int i = 0; i < fi->nitoc; i++) {
		const struct fs3_entry *e = &fi->entries[i];
		if (e->device_data)
			continue; /* FS3: the card's, already on the flash */
		if (!fi->fmt->dtoc && !e->relative)
			return cx_fail(st, CX_EUNSUPPORTED, "the file's %s section 0x%x has an absolute address (0x%x): "
				       "mstflint would write it outside the slot; not supported", "firmware", e->type,
				       e->flash_addr);
		if (e->data_off < fi->start)
			return cx_fail(st, CX_EIMAGE, "the file: section 0x%x lies before the image", e->type);
		uint32_t off = e->data_off - fi->start;
		if (off + e->size > *data_end)
			*data_end = off + e->size;
		if ((rc = add_ext(b, off, e->size, st)))
			return rc;
	}
	merge(b);
	return CX_OK;
}

/* CheckFs3ImgSize: the sections must end before the card's lowest device section in either slot's
 * span (device data may share a slot's span, after the image). */
static int check_fs3_size(const struct fs3_image *ci, const struct fs3_burn *b, uint32_t data_end,
			  struct cx_status *st)
{
	uint32_t s = b->slot_size;
	uint64_t low0 = s, low1 = 2ull * s;

	for (int i = 0; i < ci->nitoc; i++) {
		const struct fs3_entry *e = &ci->entries[i];
		if (!e->device_data)
			continue;
		if (e->flash_addr > s)
			low1 = e->flash_addr < low1 ? e->flash_addr : low1;
		else
			low0 = e->flash_addr < low0 ? e->flash_addr : low0;
	}
	uint64_t max = low0 < low1 - s ? low0 : low1 - s;
	if (data_end > max)
		return cx_fail(st, CX_EMISMATCH, "Size of image data (0x%x) is greater than max size of image data (0x%x)",
			       data_end, (uint32_t)max);
	return CX_OK;
}

static int check_size(const struct fs3_image *ci, const struct fs3_burn *b, uint32_t data_end,
		      struct cx_status *st)
{
	if (b->fmt == FMT_FS3)
		return check_fs3_size(ci, b, data_end, st);
	/* CheckFs4ImgSize (upstream prints the log2 as "max size"; we print the size). */
	if (data_end >= b->slot_size)
		return cx_fail(st, CX_EMISMATCH, "Last ITOC section ends at address (0x%x) which is greater than max "
			       "size of image (0x%x)", data_end, b->slot_size);
	return CX_OK;
}

/* Ours, not mstflint's: no 4 KiB unit written (erased first, so a power cut may leave it blank) may
 * hold a byte of a device section of the card, and nothing may fall off the flash. */
static int check_clear(const struct fs3_burn *b, struct cx_status *st)
{
	if (b->len > b->slot_size || (uint64_t)b->target + b->len > b->flash_size)
		return cx_fail(st, CX_EMISMATCH, "the image (0x%x bytes) does not fit the slot at 0x%x of a 0x%x-byte "
			       "flash", b->len, b->target, b->flash_size);
	for (int i = 0; i < b->next; i++) {
		uint64_t lo = ((uint64_t)b->target + b->ext[i].off) / ERASE_UNIT * ERASE_UNIT;
		uint64_t hi = ((uint64_t)b->target + b->ext[i].off + b->ext[i].len + ERASE_UNIT - 1) / ERASE_UNIT *
			      ERASE_UNIT;
		for (int k = 0; k < b->ndev; k++) {
			const struct fs3_devrange *d = &b->dev[k];
			if (lo < (uint64_t)d->off + d->len && d->off < hi)
				return cx_fail(st, CX_EMISMATCH, "the image would overwrite the card's device section %s "
					       "at 0x%x (the slot at 0x%x, bytes 0x%x to 0x%x)",
					       name_of(d->type),
					       d->off, b->target, b->ext[i].off, b->ext[i].off + b->ext[i].len);
		}
	}
	return CX_OK;
}

/* UpdateDevDataITOC: each device entry of the file becomes, all 32 bytes, the card's entry of its
 * type; the card's last one when it has several (upstream's loop; UNCONFIRMED that real flashes
 * have duplicates). Differing device_data, no_crc or relative_addr is refused, in upstream's words. */
static int take_card_entries(const struct fs3_image *fi, const struct fs3_image *ci, struct fs3_burn *b,
			     struct cx_status *st)
{
	for (int i = 0; i < fi->nitoc; i++) {
		const struct fs3_entry *e = &fi->entries[i], *m = NULL;
		if (!e->device_data)
			continue;
		for (int j = 0; j < ci->nitoc; j++) {
			const struct fs3_entry *c = &ci->entries[j];
			if (c->type != e->type)
				continue;
			if (c->device_data != e->device_data || c->no_crc != e->no_crc || c->relative != e->relative)
				return cx_fail(st, CX_EMISMATCH, "An inconsistency was found in %s section attributes. %s "
					       "ITOC attribute differs", name_of(e->type),
					       c->device_data != e->device_data ? "device_data"
					       : c->no_crc != e->no_crc ? "no_crc" : "relative_addr");
			m = c;
		}
		/* Upstream keeps the file's entry then, pointing where the card has no such section: an
		 * image that fails its own verify. Ours: refused. */
		if (!m)
			return cx_fail(st, CX_EMISMATCH, "the file lists a device section the card lacks (%s at 0x%x): "
				       "mstflint would keep the file's entry, pointing where the card has nothing; "
				       "not done here", name_of(e->type), e->flash_addr);
		memcpy(b->slot + (e->entry_off - fi->start), ci->buf + m->entry_off, TOC_ENTRY_LEN);
		b->replaced++;
	}
	return CX_OK;
}

/* Where entry i of the new FS3 ITOC puts its section with the image at base: device entries at the
 * card's absolute address (or the file's, unmatched), the rest base + their offset. */
static void new_range(const struct fs3_image *fi, const struct fs3_image *ci, int i, uint32_t base, uint64_t *lo,
		      uint64_t *hi)
{
	const struct fs3_entry *e = &fi->entries[i], *m = NULL;

	for (int j = 0; e->device_data && j < ci->nitoc; j++)
		if (ci->entries[j].type == e->type)
			m = &ci->entries[j];
	if (m)
		*lo = m->data_off, *hi = *lo + m->size;
	else if (e->device_data)
		*lo = e->flash_addr, *hi = *lo + e->size;
	else
		*lo = (uint64_t)base + e->data_off - fi->start, *hi = *lo + e->size;
}

/* CheckItocArray: with the card's entries in, no two sections of the new ITOC may overlap, the
 * image placed in either slot ("inconsistency found in ITOC", upstream's words). */
static int check_itoc_array(const struct fs3_image *fi, const struct fs3_image *ci, const struct fs3_burn *b,
			    struct cx_status *st)
{
	for (uint32_t base = 0; base <= b->slot_size; base += b->slot_size)
		for (int i = 0; i < fi->nitoc; i++)
			for (int j = i + 1; j < fi->nitoc; j++) {
				uint64_t alo, ahi, blo, bhi;
				new_range(fi, ci, i, base, &alo, &ahi);
				new_range(fi, ci, j, base, &blo, &bhi);
				if (alo < bhi && blo < ahi)
					return cx_fail(st, CX_EMISMATCH, "inconsistency found in ITOC. %s(0x%x) section will "
						       "potentially overwrite %s(0x%x) section.",
						       name_of(fi->entries[i].type), fi->entries[i].type,
						       name_of(fi->entries[j].type), fi->entries[j].type);
			}
	return CX_OK;
}

int fs3_burn_build(const struct fs3_image *fi, const struct fs3_image *ci, struct fs3_burn *b,
		   struct cx_status *st)
{
	uint32_t data_end;
	int rc;

	if ((rc = extents(fi, b, &data_end, st)) || (rc = check_size(ci, b, data_end, st)) ||
	    (rc = check_clear(b, st)))
		return rc;
	if (!(b->slot = malloc(b->len)))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	memset(b->slot, 0xFF, b->len); /* between extents: not written */
	for (int i = 0; i < b->next; i++)
		memcpy(b->slot + b->ext[i].off, fi->buf + fi->start + b->ext[i].off, b->ext[i].len);
	if (b->fmt != FMT_FS3)
		return CX_OK;
	return (rc = take_card_entries(fi, ci, b, st)) ? rc : check_itoc_array(fi, ci, b, st);
}
