/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devimage.c — locating and reading the image on a card's flash (fs2-format.md §1, §3.4 ri). */
#include <stdlib.h>
#include <string.h>

#include "image/zebra.h"
#include "ops/devimage.h"
#include "util/bytes.h"

#define FS_INFO_FAILSAFE 0x8    /* FS info word bit 3, §1.5 */
#define FS_INFO_LOG2_MASK 0x7   /* bits 2:0 = log2(chunk) - 16, §1.5 */
#define BOOT2_N_MIN 4           /* CheckBoot2 bounds, §1.3 */
#define BOOT2_N_MAX 1048576
#define SECT_END_FF 0xFF000000  /* chain end markers, §1.4 */
#define CMP_BLOCK 16u           /* devimage_same's step: one flash read transaction (hw-access.md §3.6) */

struct reader {
	flash_read_fn rd;
	void *ctx;
	const struct dev_image *d;
	uint32_t limit;         /* contiguous bytes the slot can hold */
	uint8_t *meta;          /* devimage_read_meta: what the walk reads is kept here, at its offset */
	struct dev_image *keep; /* ... and its range recorded here */
	/* The first GUID and IMAGE_INFO sections the walk met (fs2_parse takes the first). */
	uint32_t guid_off, guid_len, info_off, info_len;
};

/* Contiguous read through the zebra translation, one chunk piece at a time. */
static int cont_read(struct reader *r, uint32_t off, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	const struct dev_image *d = r->d;

	if ((uint64_t)off + len > r->limit)
		return cx_fail(st, CX_EIMAGE, "image on flash runs past its slot (0x%x bytes at 0x%x)", len, off);
	struct zebra_walk w;
	for (zebra_walk_begin(&w, d->failsafe, d->log2chunk, d->slot, d->start, off, len); w.n; zebra_walk_next(&w))
		if (r->rd(r->ctx, w.phys, buf + w.done, w.n, st))
			return st->code;
	return CX_OK;
}

/* Meta read: keep [off, off + len) of what was read, and remember that it was. */
static void keep(struct reader *r, uint32_t off, const uint8_t *buf, uint32_t len)
{
	struct dev_image *d = r->keep;
	struct devimage_range *last = d && d->nknown ? &d->known[d->nknown - 1] : NULL;

	if (!r->meta)
		return;
	memcpy(r->meta + off, buf, len);
	if (last && off >= last->off && off <= last->off + last->len) {
		if (off + len > last->off + last->len)
			last->len = off + len - last->off;
	} else if (d->nknown < DEVIMAGE_MAX_KNOWN) {
		d->known[d->nknown++] = (struct devimage_range){off, len};
	}
	/* The walk bounds the ranges (FS2_MAX_SECTIONS headers): the array cannot fill. */
}

static int locate(struct dev_image *d, struct reader *r, uint32_t flash_size, unsigned npos,
		  struct cx_status *st)
{
	uint8_t m[FS2_MAGIC_LEN];
	uint32_t found[16];
	int n = 0;

	for (unsigned i = 0; i < npos && i < fs2_nstart_pos; i++) {
		uint32_t p = fs2_start_pos[i];
		if ((uint64_t)p + FS2_MAGIC_LEN > flash_size)
			break;
		if (r->rd(r->ctx, p, m, sizeof(m), st))
			return st->code;
		if (fs2_has_magic(m))
			found[n++] = p;
	}
	if (n == 0)
		return cx_fail(st, CX_EIMAGE, "no firmware image on the flash (no FS2 magic at any start position)");
	if (n > 2)
		return cx_fail(st, CX_EIMAGE, "more than two images on the flash (0x%x, 0x%x, 0x%x): corrupt",
			       found[0], found[1], found[2]);
	d->nstarts = n;
	memcpy(d->starts, found, (size_t)n * sizeof(found[0]));
	d->start = found[0];
	return CX_OK;
}

static int read_header(struct dev_image *d, struct reader *r, uint32_t flash_size, uint8_t h[FS2_BOOT2_START],
		       struct cx_status *st)
{
	if (r->rd(r->ctx, d->start, h, FS2_BOOT2_START, st))
		return st->code;
	uint32_t fs = be32(h + FS2_OFF_FS_INFO);
	if (byte_sum32(fs))
		return cx_fail(st, CX_EIMAGE, "image at 0x%x: corrupted FS info word 0x%08x", d->start, fs);
	d->failsafe = fs & FS_INFO_FAILSAFE;
	d->log2chunk = (fs & FS_INFO_LOG2_MASK) + ZEBRA_LOG2CHUNK_MIN;
	if (d->failsafe) {
		uint32_t chunk = 1u << d->log2chunk;
		if (d->start != 0 && d->start != chunk)
			return cx_fail(st, CX_EIMAGE, "failsafe image at 0x%x: not at 0 or its chunk size 0x%x",
				       d->start, chunk);
		d->slot = d->start != 0;
		r->limit = flash_size / 2;
	} else {
		if (d->start != 0)
			return cx_fail(st, CX_EIMAGE, "non-failsafe image at 0x%x: must start at 0", d->start);
		r->limit = flash_size;
	}
	d->slot_limit = r->limit;
	return CX_OK;
}

/* Walk BOOT2 blocks and section headers to find where the image ends. */
static int image_length(struct reader *r, uint32_t *end, struct cx_status *st)
{
	uint8_t b[FS2_GPH_SIZE];
	uint32_t p = FS2_BOOT2_START;
	int rc;

	for (int boot2 = 0; boot2 < 2; boot2++) {
		if ((rc = cont_read(r, p, b, 8, st)))
			return rc;
		keep(r, p, b, 8);
		uint32_t type = be32(b), nw = be32(b + 4);
		if (boot2 == 1 && type >= 1 && type <= FS2_SECT_LAST_KNOWN)
			break; /* a section, not a second BOOT2, fs2-format.md §1.3 */
		if (nw < BOOT2_N_MIN || nw > BOOT2_N_MAX)
			return cx_fail(st, CX_EIMAGE, "BOOT2 at 0x%x: size %u out of range", p, nw);
		p += (nw + 4) * 4;
	}
	for (int n = 0; n < FS2_MAX_SECTIONS; n++) {
		if ((rc = cont_read(r, p, b, FS2_GPH_SIZE, st)))
			return rc;
		keep(r, p, b, FS2_GPH_SIZE);
		uint32_t type = be32(b), size = be32(b + 4), next = be32(b + 12);
		uint64_t dlen = type == FS2_EMT ? ((uint64_t)size + 3) / 4 * 4 : (uint64_t)size * 4;
		if (dlen > FS2_MAX_SECTION)
			return cx_fail(st, CX_EIMAGE, "section at 0x%x: size 0x%llx over the limit", p,
				       (unsigned long long)dlen);
		uint64_t e = p + FS2_GPH_SIZE + dlen + 4;
		if (e > r->limit)
			return cx_fail(st, CX_EIMAGE, "section at 0x%x runs past the image slot", p);
		if (type == FS2_GUID && !r->guid_len) {
			r->guid_off = p;
			r->guid_len = (uint32_t)(e - p);
		} else if (type == FS2_IMG_INFO && !r->info_len) {
			r->info_off = p;
			r->info_len = (uint32_t)(e - p);
		}
		*end = (uint32_t)e;
		if (next == 0 || next == SECT_END_FF)
			return CX_OK;
		if (next <= p)
			return cx_fail(st, CX_EIMAGE, "section at 0x%x points back to 0x%x: the chain loops", p, next);
		p = next;
	}
	return cx_fail(st, CX_EIMAGE, "more than %d sections: the section chain is corrupt", FS2_MAX_SECTIONS);
}

/* Meta read: a section read whole (header, data, CRC dword). */
static int read_section(struct reader *r, uint32_t off, uint32_t len, struct cx_status *st)
{
	int rc;

	if (!len)
		return CX_OK;
	if ((rc = cont_read(r, off, r->meta + off, len, st)))
		return rc;
	keep(r, off, r->meta + off, len);
	return CX_OK;
}

/* [off, off + len) lies inside the ranges d read (they may touch without merging). */
static bool read_whole(const struct dev_image *d, uint32_t off, uint32_t len)
{
	uint64_t pos = off, end = (uint64_t)off + len;

	if (!d->meta)
		return true;
	while (pos < end) {
		int i;
		for (i = 0; i < d->nknown; i++)
			if (pos >= d->known[i].off && pos < (uint64_t)d->known[i].off + d->known[i].len)
				break;
		if (i == d->nknown)
			return false;
		pos = (uint64_t)d->known[i].off + d->known[i].len;
	}
	return true;
}

void devimage_mark_unread(const struct dev_image *d, struct fs2_image *img)
{
	for (int i = 0; i < img->nitems; i++)
		img->items[i].unread = !read_whole(d, img->items[i].off, img->items[i].len);
}

/* Parse what d holds; in a meta read, what was not read is unread, not wrong. */
static void parse(struct dev_image *d)
{
	struct cx_status pst = {0};

	d->parse_rc = fs2_parse(d->buf, d->len, &d->img, &pst);
	memcpy(d->parse_msg, pst.msg, sizeof(d->parse_msg));
	if (!d->parse_rc)
		devimage_mark_unread(d, &d->img);
}

static int read_image(struct dev_image *d, flash_read_fn rd, void *ctx, uint32_t flash_size, unsigned npos,
		      bool meta, struct cx_status *st)
{
	struct reader r = {.rd = rd, .ctx = ctx, .d = d, .keep = d};
	uint8_t h[FS2_BOOT2_START];
	uint32_t end = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	d->meta = meta;
	if ((rc = locate(d, &r, flash_size, npos, st)) || (rc = read_header(d, &r, flash_size, h, st)))
		return rc;
	/* Meta: the walk's bytes go straight to their place; the slot bounds the image. */
	if (meta && !(r.meta = d->buf = calloc(r.limit, 1)))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	keep(&r, 0, h, sizeof(h));
	if ((rc = image_length(&r, &end, st)))
		return rc;
	if (meta) {
		if ((rc = read_section(&r, r.guid_off, r.guid_len, st)) ||
		    (rc = read_section(&r, r.info_off, r.info_len, st)))
			return rc;
		uint8_t *shrunk = realloc(d->buf, end);
		d->buf = shrunk ? shrunk : d->buf;
	} else {
		if (!(d->buf = malloc(end)))
			return cx_fail(st, CX_ENOMEM, "out of memory");
		if ((rc = cont_read(&r, 0, d->buf, end, st)))
			return rc;
	}
	d->len = end;
	parse(d);
	return CX_OK;
}

int devimage_read(struct dev_image *d, flash_read_fn rd, void *ctx, uint32_t flash_size,
		  unsigned npos, struct cx_status *st)
{
	return read_image(d, rd, ctx, flash_size, npos, false, st);
}

int devimage_read_meta(struct dev_image *d, flash_read_fn rd, void *ctx, uint32_t flash_size,
		       unsigned npos, struct cx_status *st)
{
	return read_image(d, rd, ctx, flash_size, npos, true, st);
}

int devimage_read_shown(struct dev_image *d, flash_read_fn rd, void *ctx, uint32_t flash_size, unsigned npos,
			unsigned show, struct cx_status *st)
{
	int rc = read_image(d, rd, ctx, flash_size, npos, true, st);

	if (rc || d->parse_rc)
		return rc;
	const int shown[] = {show & DEVIMAGE_ROM ? d->img.rom_sect : -1, show & DEVIMAGE_INI ? d->img.fwconf_sect : -1};
	bool more = false;
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		if (shown[i] < 0)
			continue;
		const struct fs2_item *it = &d->img.items[shown[i]];
		/* Its data and CRC dword: the walk has its header. */
		if ((rc = devimage_read_more(d, rd, ctx, it->data_off, it->data_len + 4, st)))
			return rc;
		more = true;
	}
	if (more)
		parse(d);
	return CX_OK;
}

int devimage_read_more(struct dev_image *d, flash_read_fn rd, void *ctx, uint32_t off, uint32_t len,
		       struct cx_status *st)
{
	struct reader r = {.rd = rd, .ctx = ctx, .d = d, .limit = d->slot_limit, .meta = d->buf, .keep = d};

	if (!d->meta)
		return CX_OK;
	if (!d->buf || (uint64_t)off + len > d->len)
		return cx_fail(st, CX_EIMAGE, "0x%x bytes at 0x%x are outside the card's image", len, off);
	return read_section(&r, off, len, st);
}

bool devimage_known_match(const struct dev_image *d, const uint8_t *want, size_t len)
{
	if (!d->buf || d->len != len)
		return false;
	if (!d->meta)
		return !memcmp(d->buf, want, len);
	for (int i = 0; i < d->nknown; i++)
		if (memcmp(d->buf + d->known[i].off, want + d->known[i].off, d->known[i].len))
			return false;
	return true;
}

int devimage_same(const struct dev_image *d, flash_read_fn rd, void *ctx, const uint8_t *want, size_t len,
		  bool *same, struct cx_status *st)
{
	struct reader r = {.rd = rd, .ctx = ctx, .d = d, .limit = d->slot_limit};
	uint8_t blk[CMP_BLOCK];
	int rc;

	*same = false;
	if (!devimage_known_match(d, want, len))
		return CX_OK;
	if (!d->meta) {
		*same = true;
		return CX_OK;
	}
	/* The ranges already read are read again (~2.5 KiB): simpler than skipping them. */
	for (uint32_t off = 0, n; off < len; off += n) {
		n = len - off < CMP_BLOCK ? (uint32_t)(len - off) : CMP_BLOCK;
		if ((rc = cont_read(&r, off, blk, n, st)))
			return rc;
		if (memcmp(blk, want + off, n))
			return CX_OK;
	}
	*same = true;
	return CX_OK;
}

void devimage_free(struct dev_image *d)
{
	free(d->buf);
	d->buf = NULL;
}

int devimage_mem_read(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	const struct devimage_mem *m = ctx;

	if (addr > m->size || len > m->size - addr)
		return cx_fail(st, CX_EIMAGE, "read of 0x%x bytes at 0x%x is outside the flash", len, addr);
	memcpy(buf, m->buf + addr, len);
	return CX_OK;
}
