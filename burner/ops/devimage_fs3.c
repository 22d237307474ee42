/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devimage_fs3.c — an FS3/FS4 card's image, read as its parse asks (fs3-format.md §8, §12). */
#include <stdlib.h>
#include <string.h>

#include "ops/devimage_fs3.h"
#include "util/bytes.h"

#define UNIT 0x1000u             /* v's bookkeeping: one flash sector, the ITOC's alignment (§2) */
#define PROBE_LEN 0x40u          /* the magic and the FS3 version byte at +0x24, FS4 at +0x10 (§1) */
#define LOG2_SLOT_MIN 20         /* candidate image starts: 0 and 1 << 20..23 (§8: mstflint */
#define LOG2_SLOT_MAX 23         /* probes each slot size; 8 MiB is the largest a 16 MiB flash has) */

int devfs3_need(struct devfs3 *d, flash_read_fn rd, void *ctx, uint32_t off, uint32_t len, struct cx_status *st)
{
	const uint32_t g = d->grain;

	if (off >= d->size || !len)
		return CX_OK;
	uint64_t end = (uint64_t)off + len > d->size ? d->size : (uint64_t)off + len;
	for (uint32_t u = off / g; (uint64_t)u * g < end; u++) {
		if (d->got[u])
			continue;
		/* one call for a run of grains not read yet */
		uint32_t v = u;
		while ((uint64_t)v * g < end && !d->got[v])
			v++;
		uint32_t a = u * g, n = (uint64_t)v * g > d->size ? d->size - a : (v - u) * g;
		if (rd(ctx, a, d->flash + a, n, st))
			return st->code;
		memset(d->got + u, 1, v - u);
		d->bytes_read += n;
		u = v - 1;
	}
	return CX_OK;
}

static bool got_at(const struct devfs3 *d, uint32_t at)
{
	return d->got[at / d->grain];
}

/* The first 64 bytes at each candidate start. Read in grains when those are small (q, a
 * burn), so the parse finds them read; v's 4 KiB unit is read only where a magic is. */
static int find_heads(struct devfs3 *d, flash_read_fn rd, void *ctx, struct cx_status *st)
{
	for (int l = LOG2_SLOT_MIN - 1; l <= LOG2_SLOT_MAX; l++) {
		uint32_t at = l < LOG2_SLOT_MIN ? 0 : 1u << l;
		uint8_t m[PROBE_LEN];

		if (at + PROBE_LEN > d->size)
			break;
		if (d->grain < UNIT) {
			if (devfs3_need(d, rd, ctx, at, PROBE_LEN, st))
				return st->code;
			continue;
		}
		if (!got_at(d, at)) {
			if (rd(ctx, at, m, sizeof(m), st))
				return st->code;
			d->bytes_read += sizeof(m);
		} else {
			memcpy(m, d->flash + at, sizeof(m));
		}
		enum fs3_fmt f = fs3_detect(m, sizeof(m));
		if ((f == FMT_FS3 || f == FMT_FS4) && devfs3_need(d, rd, ctx, at, PROBE_LEN, st))
			return st->code;
	}
	return CX_OK;
}

struct need_ctx {
	struct devfs3 *d;
	flash_read_fn rd;
	void *ctx;
};

/* The parse's hook (fs3_parse_need()): what it is about to look at, read if not read yet. */
static int need_hook(void *ctx, uint32_t off, uint32_t len, struct cx_status *st)
{
	struct need_ctx *n = ctx;

	return devfs3_need(n->d, n->rd, n->ctx, off, len, st);
}

/* The image at the start find_heads found, parsed as it is read: the parse asks for each
 * structure and each section it reads (image/fs3.h says which), nothing else is read. */
static int read_image(struct devfs3 *d, flash_read_fn rd, void *ctx, enum fs3_reads what, struct cx_status *st)
{
	struct need_ctx n = {d, rd, ctx};
	struct fs3_need need = {need_hook, &n, what};

	return fs3_parse_need(d->flash, d->size, &need, &d->img, st);
}

/* The starts holding the FS4 magic, of those find_heads read (ascending, at most 2). */
static int fs4_starts(const struct devfs3 *d, uint32_t out[2])
{
	const struct fs3_format *f = fs3_format_of(FMT_FS4);
	int n = 0;

	for (int l = LOG2_SLOT_MIN - 1; l <= LOG2_SLOT_MAX && n < 2; l++) {
		uint32_t at = l < LOG2_SLOT_MIN ? 0 : 1u << l;
		bool m = at + PROBE_LEN <= d->size && got_at(d, at);
		for (int i = 0; m && i < 4; i++)
			m = be32(d->flash + at + 4 * i) == f->magic[i];
		if (m)
			out[n++] = at;
	}
	return n;
}

/* A start other than the image's holding the FS3 magic (DEVFS3_NONE: none). */
static uint32_t other_fs3(const struct devfs3 *d)
{
	const struct fs3_format *f = fs3_format_of(FMT_FS3);

	for (int l = LOG2_SLOT_MIN - 1; l <= LOG2_SLOT_MAX; l++) {
		uint32_t at = l < LOG2_SLOT_MIN ? 0 : 1u << l;
		bool m = at != d->img.start && at + PROBE_LEN <= d->size && got_at(d, at);
		for (int i = 0; m && i < 4; i++)
			m = be32(d->flash + at + 4 * i) == f->magic[i];
		if (m)
			return at;
	}
	return DEVFS3_NONE;
}

/* Two whole FS4 images: a failsafe burn cut between its new magic and the old magic's
 * zeroing (fs3-format.md §11.3). mstflint refuses such a flash (getImgStart); a card's
 * reader takes the image the boot ROM boots, the lower one when it is whole (UNCONFIRMED
 * on silicon: the card model's boot ROM does so, and FS3's FindAllImageStart takes the
 * first too), else the other; the one set aside reads as a zeroed magic, as the burn that
 * was cut would have left it (d->set_aside). Neither whole: refused as before. */
static int read_two_fs4(struct devfs3 *d, flash_read_fn rd, void *ctx, enum fs3_reads what,
			const uint32_t s[2], struct cx_status *st)
{
	for (int i = 0; i < 2; i++) {
		struct cx_status pst = {0};
		uint8_t *other = d->flash + s[i ^ 1];
		uint8_t keep[4];
		memcpy(keep, other, 4);
		memset(other, 0, 4);
		int rc = read_image(d, rd, ctx, what, &pst);
		if (rc && rc != CX_EIMAGE) {
			memcpy(st, &pst, sizeof(*st));
			return rc;
		}
		if (!rc && !(what != FS3_READS_ALL ? fs3_verdict_query(&d->img, &pst) : fs3_verdict(&d->img, &pst))) {
			d->set_aside = s[i ^ 1];
			return CX_OK;
		}
		memcpy(other, keep, 4);
	}
	return fs3_parse(d->flash, d->size, &d->img, st);
}

static int read_any(struct devfs3 *d, flash_read_fn rd, void *ctx, uint32_t size, uint32_t grain,
		    enum fs3_reads what, struct cx_status *st)
{
	uint32_t s[2];
	int rc;

	memset(d, 0, sizeof(*d));
	d->size = size;
	d->grain = grain && !(grain & (grain - 1)) && grain <= UNIT ? grain : UNIT;
	d->set_aside = DEVFS3_NONE;
	if (!(d->flash = malloc(size)) || !(d->got = calloc(size / d->grain + 1, 1))) {
		devfs3_free(d);
		return cx_fail(st, CX_ENOMEM, "out of memory");
	}
	memset(d->flash, 0xFF, size);
	if ((rc = find_heads(d, rd, ctx, st)))
		return rc;
	if (fs4_starts(d, s) == 2)
		return read_two_fs4(d, rd, ctx, what, s, st);
	rc = read_image(d, rd, ctx, what, st);
	/* FS3: the parser takes the first image, as FindAllImageStart; a second one with a magic
	 * is noted, not hidden (the same cut leaves it, §11.3). */
	if (!rc && d->img.fmt && d->img.fmt->fmt == FMT_FS3)
		d->set_aside = other_fs3(d);
	return rc;
}

int devfs3_read(struct devfs3 *d, flash_read_fn rd, void *ctx, uint32_t size, struct cx_status *st)
{
	return read_any(d, rd, ctx, size, UNIT, FS3_READS_ALL, st);
}

int devfs3_read_query(struct devfs3 *d, flash_read_fn rd, void *ctx, uint32_t size, uint32_t grain,
		      struct cx_status *st)
{
	return read_any(d, rd, ctx, size, grain, FS3_READS_QUERY, st);
}

int devfs3_read_burn(struct devfs3 *d, flash_read_fn rd, void *ctx, uint32_t size, uint32_t grain,
		     struct cx_status *st)
{
	return read_any(d, rd, ctx, size, grain, FS3_READS_BURN, st);
}

void devfs3_free(struct devfs3 *d)
{
	free(d->flash);
	free(d->got);
	d->flash = d->got = NULL;
}
