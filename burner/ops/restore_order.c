/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore_order.c — a whole-flash write, ordered so the card always has a whole image (restore_order.h). */
#include <stdlib.h>
#include <string.h>

#include "image/fs2.h"
#include "ops/devimage.h"
#include "ops/restore_order.h"

#define INVALIDATE_LEN 4 /* one zero dword over "MTFW" kills an image, fs2-format.md §4.2 step 4 */

struct memflash {
	const uint8_t *buf;
	uint32_t size;
};

static int mem_read(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	const struct memflash *m = ctx;

	if ((uint64_t)addr + len > m->size)
		return cx_fail(st, CX_EIMAGE, "read past the end of the flash copy");
	memcpy(buf, m->buf + addr, len);
	return CX_OK;
}

static bool magic_at(const uint8_t *flash, uint32_t size, uint32_t pos)
{
	return (uint64_t)pos + FS2_MAGIC_LEN <= size && fs2_has_magic(flash + pos);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Regions start where have or want (or the extra position) holds a magic. */
static void make_regions(const struct rewrite_plan *p, uint32_t extra, struct rewrite_info *info)
{
	uint32_t pos[REWRITE_MAX_REGIONS];
	int n = 0;

	for (unsigned i = 0; i < p->npos && i < fs2_nstart_pos && n < REWRITE_MAX_REGIONS - 1; i++) {
		uint32_t s = fs2_start_pos[i];
		if (magic_at(p->have, p->size, s) || magic_at(p->want, p->size, s) || s == extra)
			pos[n++] = s;
	}
	if (extra != UINT32_MAX) {
		bool seen = false;
		for (int i = 0; i < n; i++)
			seen |= pos[i] == extra;
		if (!seen)
			pos[n++] = extra;
	}
	qsort(pos, (size_t)n, sizeof(pos[0]), cmp_u32);
	info->nregions = n;
	for (int i = 0; i < n; i++) {
		info->region_start[i] = pos[i];
		info->region_end[i] = i + 1 < n ? pos[i + 1] : p->size;
	}
}

static uint32_t lowest_magic(const uint8_t *flash, uint32_t size, unsigned npos)
{
	for (unsigned i = 0; i < npos && i < fs2_nstart_pos; i++)
		if (magic_at(flash, size, fs2_start_pos[i]))
			return fs2_start_pos[i];
	return UINT32_MAX;
}

static int region_of(const struct rewrite_info *info, uint32_t start)
{
	for (int i = 0; i < info->nregions; i++)
		if (info->region_start[i] == start)
			return i;
	return -1;
}

/* want's boot image, contiguous, for the temporary copy; NULL d->buf if unreadable. */
static void read_want_image(const struct rewrite_plan *p, struct dev_image *d)
{
	struct memflash m = {p->want, p->size};
	struct cx_status ignore = {0};

	memset(d, 0, sizeof(*d));
	if (devimage_read(d, mem_read, &m, p->size, p->npos, &ignore) || d->parse_rc)
		devimage_free(d);
}

/* Does any byte of the slot that starts at 'start' (its chunks, §1.5) change? */
static bool slot_changes(const struct rewrite_plan *p, uint32_t start, unsigned log2chunk)
{
	uint32_t chunk = 1u << log2chunk, slot = (start >> log2chunk) & 1;

	for (uint32_t at = slot * chunk; at < p->size; at += 2 * chunk) {
		uint32_t n = p->size - at < chunk ? p->size - at : chunk;
		if (memcmp(p->have + at, p->want + at, n))
			return true;
	}
	return false;
}

/* Magics at start positions other than boot and other, in have or want: the
 * used_old order only reasons about those two. */
static bool other_magics(const struct rewrite_plan *p, uint32_t boot, uint32_t other)
{
	for (unsigned i = 0; i < p->npos && i < fs2_nstart_pos; i++) {
		uint32_t s = fs2_start_pos[i];
		if (s != boot && s != other && (magic_at(p->have, p->size, s) || magic_at(p->want, p->size, s)))
			return true;
	}
	return false;
}

/* Is want's other slot a whole image of this card once the first dword of its
 * magic, zeroed by the burn that left it there, is put back? It must verify,
 * share the boot image's chunk size and carry the same GUID section. */
static bool old_image_whole(const struct rewrite_plan *p, uint32_t boot, uint32_t other, const struct dev_image *b)
{
	static const uint8_t zero[INVALIDATE_LEN];
	struct cx_status ignore = {0};
	struct dev_image o = {0};
	bool ok = false;

	if ((uint64_t)other + FS2_MAGIC_LEN > p->size || other_magics(p, boot, other) ||
	    memcmp(p->want + other, zero, INVALIDATE_LEN) ||
	    memcmp(p->want + other + INVALIDATE_LEN, p->want + boot + INVALIDATE_LEN, FS2_MAGIC_LEN - INVALIDATE_LEN))
		return false;
	uint8_t *t = malloc(p->size);
	if (!t)
		return false;
	memcpy(t, p->want, p->size);
	memcpy(t + other, p->want + boot, INVALIDATE_LEN); /* the magic back... */
	memset(t + boot, 0, INVALIDATE_LEN);               /* ...and B's gone: the lowest is the old one */
	struct memflash m = {t, p->size};
	if (!devimage_read(&o, mem_read, &m, p->size, p->npos, &ignore) && !o.parse_rc && o.start == other &&
	    o.failsafe && o.log2chunk == b->log2chunk && o.img.guids.n == b->img.guids.n &&
	    !memcmp(o.img.guids.raw, b->img.guids.raw, sizeof(o.img.guids.raw[0]) * (size_t)o.img.guids.n)) {
		int v = fs2_verdict(&o.img, &ignore);
		ok = v == CX_OK || v == CX_EBLANK; /* blank GUIDs only when B's are the same blank ones */
	}
	devimage_free(&o);
	free(t);
	return ok;
}

static void phase(const struct failsafe_io *io, const char *name)
{
	if (io->phase)
		io->phase(io->ctx, name);
}

int rewrite_inspect(const struct rewrite_plan *p, struct rewrite_info *info, struct cx_status *st)
{
	struct dev_image d;

	memset(info, 0, sizeof(*info));
	info->identical = !memcmp(p->have, p->want, p->size);
	info->boot_start = lowest_magic(p->want, p->size, p->npos);
	info->copy_start = UINT32_MAX;
	read_want_image(p, &d);
	if (!d.buf) {
		info->no_image = true;
		info->boot_start = UINT32_MAX;
		make_regions(p, UINT32_MAX, info);
		return CX_OK;
	}
	info->not_failsafe = !d.img.failsafe;
	uint32_t running = lowest_magic(p->have, p->size, p->npos);
	make_regions(p, UINT32_MAX, info);
	int b = region_of(info, info->boot_start);
	if (b < 0) {
		devimage_free(&d);
		return cx_fail(st, CX_EIMAGE, "internal error: no region at the image start 0x%x", info->boot_start);
	}
	if (running == info->boot_start && d.img.failsafe && slot_changes(p, running, d.img.log2chunk)) {
		struct failsafe_plan fp = {p->size, d.img.log2chunk, true, true, running, p->npos, false};
		info->copy_start = failsafe_target(&fp);
		info->used_old = old_image_whole(p, info->boot_start, info->copy_start, &d);
		info->used_copy = !info->used_old;
		if (info->used_copy)
			make_regions(p, info->copy_start, info);
	}
	devimage_free(&d);
	return CX_OK;
}

/* Make [start, end) equal want, signature last. touched: the region may differ from have. */
static int write_region_sigl(const struct failsafe_io *io, const struct rewrite_plan *p, uint32_t start,
			     uint32_t end, bool touched, struct cx_status *st)
{
	static const uint8_t zero[INVALIDATE_LEN];
	uint8_t now[FS2_MAGIC_LEN];
	uint32_t len = end - start;
	bool want_magic = magic_at(p->want, p->size, start);
	int rc;

	if (!touched && !memcmp(p->have + start, p->want + start, len))
		return CX_OK;
	if (len >= FS2_MAGIC_LEN) {
		if ((rc = io->read(io->ctx, start, now, sizeof(now), st)))
			return rc;
		if (fs2_has_magic(now) && (rc = io->write(io->ctx, start, zero, INVALIDATE_LEN, st)))
			return rc;
	}
	if (!want_magic)
		return io->write(io->ctx, start, p->want + start, len, st);
	uint8_t *body = malloc(len);
	if (!body)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	memcpy(body, p->want + start, len);
	memset(body, 0xFF, FS2_MAGIC_LEN);
	rc = io->write(io->ctx, start, body, len, st);
	free(body);
	if (!rc)
		rc = io->write(io->ctx, start, p->want + start, FS2_MAGIC_LEN, st);
	return rc;
}

/* Make [at, at + len) of the flash hold t's bytes (io->write only touches the units that differ). */
static int put(const struct failsafe_io *io, const uint8_t *t, uint32_t at, uint32_t len, struct cx_status *st)
{
	return io->write(io->ctx, at, t + at, len, st);
}

/* The used_old order (restore_order.h): O is the other slot's older image, B the boot image. */
static int rewrite_via_old(const struct failsafe_io *io, const struct rewrite_plan *p, const struct rewrite_info *info,
			   unsigned log2chunk, struct cx_status *st)
{
	uint32_t b = info->boot_start, o = info->copy_start, chunk = 1u << log2chunk, oslot = (o >> log2chunk) & 1;
	uint8_t *t = malloc(p->size);
	int rc;

	if (!t)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	memcpy(t, p->have, p->size);
	for (uint32_t at = oslot * chunk; at < p->size; at += 2 * chunk)
		memcpy(t + at, p->want + at, p->size - at < chunk ? p->size - at : chunk);
	memset(t + o, 0xFF, INVALIDATE_LEN); /* erased: its magic is programmed last */
	phase(io, "making the older image in the other slot bootable");
	if (!(rc = put(io, t, 0, p->size, st))) {
		memcpy(t + o, p->want + b, INVALIDATE_LEN);
		rc = put(io, t, o, INVALIDATE_LEN, st);
	}
	if (!rc) { /* O is whole and has its magic: B's goes, and the card runs from O */
		memset(t + b, 0, INVALIDATE_LEN);
		rc = put(io, t, b, INVALIDATE_LEN, st);
	}
	if (!rc) {
		phase(io, "writing the backup's image");
		memcpy(t, p->want, p->size);
		memcpy(t + o, p->want + b, INVALIDATE_LEN);
		memset(t + b, 0xFF, INVALIDATE_LEN);
		rc = put(io, t, 0, p->size, st);
	}
	if (!rc) { /* B whole: its magic, then O's zeroed as the bundle has it */
		memcpy(t + b, p->want + b, INVALIDATE_LEN);
		rc = put(io, t, b, INVALIDATE_LEN, st);
	}
	if (!rc) {
		phase(io, "clearing the older image's signature");
		rc = io->write(io->ctx, o, p->want + o, INVALIDATE_LEN, st);
	}
	free(t);
	if (!rc && io->set_boot_addr) {
		struct cx_status ignore = {0};
		io->set_boot_addr(io->ctx, b, &ignore);
	}
	return rc;
}

int rewrite_flash(const struct failsafe_io *io, const struct rewrite_plan *p, struct rewrite_info *info,
		  struct cx_status *st)
{
	int rc;

	if ((rc = rewrite_inspect(p, info, st)) || info->identical)
		return rc;
	if (info->no_image) {
		phase(io, "writing the flash");
		return io->write(io->ctx, 0, p->want, p->size, st);
	}
	if (info->used_old) {
		struct dev_image d;
		read_want_image(p, &d);
		if (!d.buf)
			return cx_fail(st, CX_EIMAGE, "internal error: the backup's image cannot be read twice");
		unsigned log2chunk = d.img.log2chunk;
		devimage_free(&d);
		return rewrite_via_old(io, p, info, log2chunk, st);
	}
	if (info->used_copy) {
		struct dev_image d;
		uint32_t at;
		read_want_image(p, &d);
		if (!d.buf)
			return cx_fail(st, CX_EIMAGE, "internal error: the backup's image cannot be read twice");
		struct failsafe_plan fp = {p->size, d.img.log2chunk, true, true, info->boot_start, p->npos, false};
		phase(io, "copying the backup's image into the other slot");
		rc = failsafe_burn(io, &fp, d.buf, (uint32_t)d.len, &at, st);
		devimage_free(&d);
		if (rc)
			return rc;
	}
	int b = region_of(info, info->boot_start);
	phase(io, "writing the backup's image");
	if ((rc = write_region_sigl(io, p, info->region_start[b], info->region_end[b], info->used_copy, st)))
		return rc;
	if (io->set_boot_addr) {
		/* As in failsafe.c: the cold power cycle we end with reads the flash anyway. */
		struct cx_status ignore = {0};
		io->set_boot_addr(io->ctx, info->boot_start, &ignore);
	}
	phase(io, "writing the rest of the flash");
	for (int i = 0; i < info->nregions; i++) {
		bool copy = info->used_copy && info->region_start[i] == info->copy_start;
		if (i != b && (rc = write_region_sigl(io, p, info->region_start[i], info->region_end[i], copy, st)))
			return rc;
	}
	uint32_t gap = info->nregions ? info->region_start[0] : p->size;
	if (gap && memcmp(p->have, p->want, gap))
		return io->write(io->ctx, 0, p->want, gap, st);
	return CX_OK;
}
