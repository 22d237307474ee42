/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore_order_fs3.c — an FS3/FS4 restore's order: image area signature last, device area DEV_INFO last
 * (restore_order_fs3.h). */
#include <stdlib.h>
#include <string.h>

#include "image/fs2.h"
#include "image/fs3.h"
#include "ops/restore_order_fs3.h"

#define T_MFG_INFO 0xe0           /* FS3_MFG_INFO, fs3-format.md §6.1 */
#define T_DEV_INFO 0xe1           /* FS3_DEV_INFO, §6.2 */
#define T_DEV_INFO1 0xe7          /* FS4 DEV_INFO1, §3.3 */
#define T_DEV_INFO2 0xe8          /* FS4 DEV_INFO2, §3.3 */
#define MAGIC_LEN FS2_MAGIC_LEN   /* FS3_FW_SIGNATURE_SIZE: FS3/FS4 begin with the same 16 bytes, §1.1, §11.2 */
#define SIG_LEN 16                /* the FS4 DEV_INFO signature, four dwords, §6.2 */
#define INVALIDATE_LEN 4          /* one zero dword over "MTFW" (or "mDev") kills it, §11.2 step 5 */
#define NO_START UINT32_MAX

static bool is_devinfo(uint8_t t)
{
	return t == T_DEV_INFO || t == T_DEV_INFO1 || t == T_DEV_INFO2;
}

static bool magic_at(const uint8_t *f, uint32_t size, uint32_t at)
{
	return (uint64_t)at + MAGIC_LEN <= size && fs2_has_magic(f + at);
}

/* A flash copy parsed as a dump (§8); one with two magics (a cut burn's, §11.3) is parsed
 * with the higher one's dword zeroed, as the burn would have left it. */
static bool parse_flash(const uint8_t *f, uint32_t size, struct fs3_image *img, uint8_t **tmp)
{
	struct cx_status ignore = {0};

	*tmp = NULL;
	if (!fs3_parse(f, size, img, &ignore))
		return true;
	for (unsigned log = 20; log <= 23; log++) { /* the slot sizes of §8 */
		uint32_t s = 1u << log;
		if (!magic_at(f, size, 0) || !magic_at(f, size, s))
			continue;
		if (!*tmp && !(*tmp = malloc(size)))
			return false;
		memcpy(*tmp, f, size);
		memset(*tmp + s, 0, INVALIDATE_LEN);
		cx_status_clear(&ignore);
		if (!fs3_parse(*tmp, size, img, &ignore))
			return true;
	}
	free(*tmp);
	*tmp = NULL;
	return false;
}

static bool dev_entry(const struct fs3_image *img, const struct fs3_entry *e)
{
	return img->fmt->dtoc ? e->in_dtoc : e->device_data;
}

/* A DEV_INFO whose CRC holds (and on FS4 its signature: FS4 checks only signed ones). FS3's
 * unchecked (no CRC) entry is the erased spare and carries nothing. */
static bool devinfo_valid(const struct fs3_image *img, int entry)
{
	for (int i = 0; i < img->nitems; i++)
		if (img->items[i].kind == FS3_ITEM_SECTION && img->items[i].entry == entry)
			return img->items[i].ok && img->items[i].crc != FS3_CRC_NONE;
	return false;
}

static void mark(struct rfs3_info *info, uint32_t size, uint32_t off, uint32_t len, uint8_t kind)
{
	for (uint64_t u = off / RFS3_UNIT; u * RFS3_UNIT < (uint64_t)off + len && u < size / RFS3_UNIT; u++)
		if (info->unit[u] < kind)
			info->unit[u] = kind;
}

static void mark_image(const struct fs3_image *img, uint32_t size, struct rfs3_info *info)
{
	for (int i = 0; i < img->nentries; i++) {
		const struct fs3_entry *e = &img->entries[i];
		if (dev_entry(img, e))
			mark(info, size, e->data_off, e->size, is_devinfo(e->type) ? RFS3_DEVINFO : RFS3_DEV);
	}
	if (img->fmt->dtoc)
		mark(info, size, img->dtoc_off, RFS3_UNIT, RFS3_DEV);
}

static void identity(const struct fs3_image *img, bool ok, bool *valid, uint64_t *guid, uint64_t *mac)
{
	*valid = false;
	for (int i = 0; ok && i < img->nentries; i++)
		*valid |= img->entries[i].type == T_DEV_INFO && dev_entry(img, &img->entries[i]) && devinfo_valid(img, i);
	*guid = *valid && img->dev.present ? img->dev.guids[0].uid : 0;
	*mac = *valid && img->dev.present ? img->dev.macs[0].uid : 0;
}

static bool area_differs(const struct rfs3_plan *p, const struct rfs3_info *info, uint8_t kind_lo, uint8_t kind_hi)
{
	for (uint32_t u = 0; u < p->size / RFS3_UNIT; u++)
		if (info->unit[u] >= kind_lo && info->unit[u] <= kind_hi &&
		    memcmp(p->have + u * RFS3_UNIT, p->want + u * RFS3_UNIT, RFS3_UNIT))
			return true;
	return false;
}

/* The end of the bundle's image, relative to its start: its head and ITOC, every firmware section. */
static uint32_t image_end(const struct fs3_image *img)
{
	uint32_t end = img->itoc_off + RFS3_UNIT - img->start;

	for (int i = 0; i < img->nentries; i++) {
		const struct fs3_entry *e = &img->entries[i];
		if (!dev_entry(img, e) && !e->in_dtoc && e->data_off + e->size - img->start > end)
			end = e->data_off + e->size - img->start;
	}
	return end;
}

static bool slot_changes(const uint8_t *now, const uint8_t *want, const struct rfs3_info *info, uint32_t s,
			 uint32_t size)
{
	for (uint32_t at = s; at < s + info->slot_size && at < size; at += RFS3_UNIT)
		if (info->unit[at / RFS3_UNIT] == RFS3_IMAGE && memcmp(now + at, want + at, RFS3_UNIT))
			return true;
	return false;
}

static int plan_copy(const struct rfs3_plan *p, const struct fs3_image *w, struct rfs3_info *info,
		     struct cx_status *st)
{
	uint32_t o = info->boot_start ^ info->slot_size, end = image_end(w);

	info->used_copy = info->run_start == info->boot_start &&
			  slot_changes(p->have, p->want, info, info->boot_start, p->size);
	if (!info->used_copy)
		return CX_OK;
	for (uint32_t at = o; at < o + end; at += RFS3_UNIT)
		if (at >= p->size || info->unit[at / RFS3_UNIT] != RFS3_IMAGE)
			return cx_fail(st, CX_EUNSUPPORTED, "the card runs the slot the bundle's image is in, and the other "
				       "slot cannot hold a temporary copy of it (device data at 0x%x): nothing written", at);
	return CX_OK;
}

int rfs3_inspect(const struct rfs3_plan *p, struct rfs3_info *info, struct cx_status *st)
{
	struct fs3_image w, h;
	uint8_t *wt, *ht;
	int rc = CX_OK;

	memset(info, 0, sizeof(*info));
	if (!parse_flash(p->want, p->size, &w, &wt))
		return cx_fail(st, CX_EIMAGE, "the bundle's flash holds no valid FS3/FS4 image: nothing written");
	bool have_ok = parse_flash(p->have, p->size, &h, &ht);
	info->fs4 = w.fmt->dtoc;
	info->slot_size = 1u << w.log2_slot;
	info->boot_start = w.start;
	info->run_start = magic_at(p->have, p->size, 0) ? 0
			  : magic_at(p->have, p->size, info->slot_size) ? info->slot_size : NO_START;
	if (w.start != 0 && w.start != info->slot_size)
		rc = cx_fail(st, CX_EUNSUPPORTED, "the bundle's image starts at 0x%x, not in a slot: nothing written",
			     w.start);
	else if (have_ok && h.log2_slot != w.log2_slot)
		rc = cx_fail(st, CX_EUNSUPPORTED, "the card's slots are of 0x%x bytes, the bundle's of 0x%x: nothing "
			     "written", 1u << h.log2_slot, info->slot_size);
	else if (!(info->unit = calloc(p->size / RFS3_UNIT, 1)))
		rc = cx_fail(st, CX_ENOMEM, "out of memory");
	if (!rc) {
		mark_image(&w, p->size, info);
		if (have_ok) /* a card whose device data cannot be parsed is taken to share the bundle's layout */
			mark_image(&h, p->size, info);
		identity(&h, have_ok, &info->old_dev_valid, &info->old_guid, &info->old_mac);
		identity(&w, true, &info->new_dev_valid, &info->new_guid, &info->new_mac);
		info->image_differs = area_differs(p, info, RFS3_IMAGE, RFS3_IMAGE);
		info->dev_differs = area_differs(p, info, RFS3_DEV, RFS3_DEVINFO);
		rc = plan_copy(p, &w, info, st);
	}
	free(wt);
	free(ht);
	return rc;
}

void rfs3_free(struct rfs3_info *info)
{
	free(info->unit);
	info->unit = NULL;
}

/* The writer's view of the flash: what it holds now, followed through every write. */
struct cur {
	const struct failsafe_io *io;
	const struct rfs3_plan *p;
	const struct rfs3_info *info;
	uint8_t *f;
};

static int put(struct cur *c, uint32_t at, const uint8_t *data, uint32_t len, struct cx_status *st)
{
	if (!memcmp(c->f + at, data, len))
		return CX_OK;
	int rc = c->io->write(c->io->ctx, at, data, len, st);
	if (!rc)
		memcpy(c->f + at, data, len);
	return rc;
}

/* [at, at + len) from src (src[0] is at's byte), only the units of kind. */
static int put_kind(struct cur *c, uint32_t at, const uint8_t *src, uint32_t len, uint8_t kind, struct cx_status *st)
{
	uint32_t end = at + len;
	int rc = CX_OK;

	while (!rc && at < end) {
		if (c->info->unit[at / RFS3_UNIT] != kind) {
			at += RFS3_UNIT;
			continue;
		}
		uint32_t run = at;
		while (run < end && c->info->unit[run / RFS3_UNIT] == kind)
			run += RFS3_UNIT;
		rc = put(c, at, src + (at - (end - len)), run - at, st);
		at = run;
	}
	return rc;
}

static void phase(const struct failsafe_io *io, const char *name)
{
	if (io->phase)
		io->phase(io->ctx, name);
}

/* Slot s made to hold src's image-area bytes, signature last. */
static int write_slot(struct cur *c, uint32_t s, const uint8_t *src, struct cx_status *st)
{
	static const uint8_t zero[INVALIDATE_LEN];
	uint32_t len = c->info->slot_size;
	int rc;

	if (s >= c->p->size)
		return CX_OK;
	if (len > c->p->size - s)
		len = c->p->size - s;
	bool differs = false;
	for (uint32_t at = 0; at < len && !differs; at += RFS3_UNIT)
		differs = c->info->unit[(s + at) / RFS3_UNIT] == RFS3_IMAGE && memcmp(c->f + s + at, src + at, RFS3_UNIT);
	if (!differs)
		return CX_OK;
	if (magic_at(c->f, c->p->size, s) && (rc = put(c, s, zero, INVALIDATE_LEN, st)))
		return rc;
	uint8_t *body = malloc(len);
	if (!body)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	memcpy(body, src, len);
	bool magic = fs2_has_magic(src);
	if (magic)
		memset(body, 0xFF, MAGIC_LEN);
	rc = put_kind(c, s, body, len, RFS3_IMAGE, st);
	free(body);
	return !rc && magic ? put(c, s, src, MAGIC_LEN, st) : rc;
}

static void set_boot(const struct failsafe_io *io, uint32_t start)
{
	struct cx_status ignore = {0};

	/* As failsafe_fs3.c: a warning upstream; the cold restart finds the image by its magic. */
	if (io->set_boot_addr)
		io->set_boot_addr(io->ctx, start, &ignore);
}

static int write_image_area(struct cur *c, struct cx_status *st)
{
	static const uint8_t zero[INVALIDATE_LEN];
	const struct rfs3_info *i = c->info;
	uint32_t w = i->boot_start, o = w ^ i->slot_size, two = 2 * i->slot_size;
	int rc;

	if (i->used_copy) {
		phase(c->io, "copying the backup's image into the other slot");
		if ((rc = write_slot(c, o, c->p->want + w, st)))
			return rc;
		set_boot(c->io, o);
		if ((rc = put(c, w, zero, INVALIDATE_LEN, st)))
			return rc;
	}
	phase(c->io, "writing the backup's image");
	if ((rc = write_slot(c, w, c->p->want + w, st)))
		return rc;
	set_boot(c->io, w);
	phase(c->io, "writing the other slot");
	if ((rc = write_slot(c, o, c->p->want + o, st)))
		return rc;
	if (two < c->p->size)
		rc = put_kind(c, two, c->p->want + two, c->p->size - two, RFS3_IMAGE, st);
	return rc;
}

/* The DEV_INFO sections either TOC lists, with whether the card's is valid there. */
struct devinfo_set {
	int n;
	uint32_t off[8], len[8];
	bool old_valid[8], new_valid[8];
};

static void add_sections(const struct fs3_image *img, bool old, struct devinfo_set *s)
{
	for (int i = 0; i < img->nentries && s->n < 8; i++) {
		const struct fs3_entry *e = &img->entries[i];
		if (!dev_entry(img, e) || !is_devinfo(e->type))
			continue;
		int k = 0;
		while (k < s->n && s->off[k] != e->data_off)
			k++;
		if (k == s->n) {
			s->off[k] = e->data_off, s->len[k] = e->size;
			s->old_valid[k] = s->new_valid[k] = false;
			s->n++;
		}
		if (old)
			s->old_valid[k] |= devinfo_valid(img, i);
		else
			s->new_valid[k] |= devinfo_valid(img, i);
	}
}

/* A DEV_INFO unit made equal want, each of want's sections in it signature last. */
static int write_devunit(struct cur *c, uint32_t u, const struct devinfo_set *s, struct cx_status *st)
{
	uint8_t buf[RFS3_UNIT];
	int rc;

	if (!memcmp(c->f + u, c->p->want + u, RFS3_UNIT))
		return CX_OK;
	memcpy(buf, c->p->want + u, RFS3_UNIT);
	for (int k = 0; k < s->n; k++)
		if (s->off[k] / RFS3_UNIT * RFS3_UNIT == u && s->new_valid[k] && s->off[k] + SIG_LEN <= u + RFS3_UNIT)
			memset(buf + (s->off[k] - u), 0xFF, SIG_LEN);
	if ((rc = put(c, u, buf, RFS3_UNIT, st)))
		return rc;
	return put(c, u, c->p->want + u, RFS3_UNIT, st);
}

static bool unit_has(const struct devinfo_set *s, uint32_t u, bool old)
{
	for (int k = 0; k < s->n; k++)
		if (s->off[k] / RFS3_UNIT * RFS3_UNIT == u && (old ? s->old_valid[k] : s->new_valid[k]))
			return true;
	return false;
}

static bool all_ff(const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (p[i] != 0xFF)
			return false;
	return true;
}

/* Where the bundle's DEV_INFO can wait while the card's own unit is rewritten (step 3): a listed
 * DEV_INFO unit that holds no valid one of the card's; on FS3, else the other of the two places
 * mstflint keeps its copies (MFG_INFO - 4 KiB or - 8 KiB, fs3_ops.cpp Fs3GetNewSectionAddr)
 * when both flashes hold nothing there. NO_START: none. */
static uint32_t temp_unit(const struct cur *c, const struct devinfo_set *s, uint32_t mfg)
{
	for (int k = 0; k < s->n; k++) {
		uint32_t u = s->off[k] / RFS3_UNIT * RFS3_UNIT;
		if (!unit_has(s, u, true) && s->len[k] >= SIG_LEN)
			return s->off[k];
	}
	for (uint32_t back = 1; !c->info->fs4 && mfg != NO_START && back <= 2; back++) {
		uint32_t u = mfg - back * RFS3_UNIT;
		bool listed = false;
		for (int k = 0; k < s->n; k++)
			listed |= s->off[k] / RFS3_UNIT * RFS3_UNIT == u;
		if (mfg >= back * RFS3_UNIT && !listed && all_ff(c->p->have + u, RFS3_UNIT) &&
		    all_ff(c->p->want + u, RFS3_UNIT))
			return u;
	}
	return NO_START;
}

static uint32_t mfg_of(const struct fs3_image *img)
{
	for (int i = 0; i < img->nentries; i++)
		if (img->entries[i].type == T_MFG_INFO && dev_entry(img, &img->entries[i]))
			return img->entries[i].data_off;
	return NO_START;
}

/* Steps 2-5 of the header. */
static int write_devinfo(struct cur *c, const struct devinfo_set *s, uint32_t mfg, struct cx_status *st)
{
	static const uint8_t zero[INVALIDATE_LEN];
	uint32_t units = c->p->size / RFS3_UNIT, temp = NO_START;
	bool bundle_in_spare = false;
	int rc = CX_OK;

	for (uint32_t u = 0; u < units && !rc; u++)
		if (c->info->unit[u] == RFS3_DEVINFO && !unit_has(s, u * RFS3_UNIT, true)) {
			rc = write_devunit(c, u * RFS3_UNIT, s, st);
			bundle_in_spare |= unit_has(s, u * RFS3_UNIT, false);
		}
	bool old_changes = false;
	for (uint32_t u = 0; u < units; u++)
		old_changes |= c->info->unit[u] == RFS3_DEVINFO && unit_has(s, u * RFS3_UNIT, true) &&
			       memcmp(c->f + u * RFS3_UNIT, c->p->want + u * RFS3_UNIT, RFS3_UNIT);
	int src = -1;
	for (int k = 0; k < s->n && src < 0; k++)
		if (s->new_valid[k])
			src = k;
	if (!rc && old_changes && !bundle_in_spare && src >= 0 && (temp = temp_unit(c, s, mfg)) != NO_START) {
		uint32_t u = temp / RFS3_UNIT * RFS3_UNIT, len = s->len[src];
		uint8_t buf[RFS3_UNIT];
		if (len > u + RFS3_UNIT - temp)
			len = u + RFS3_UNIT - temp;
		memcpy(buf, c->f + u, RFS3_UNIT);
		memset(buf + (temp - u), 0xFF, len);
		memcpy(buf + (temp - u) + SIG_LEN, c->p->want + s->off[src] + SIG_LEN, len - SIG_LEN);
		if (!(rc = put(c, u, buf, RFS3_UNIT, st)))
			rc = put(c, temp, c->p->want + s->off[src], SIG_LEN, st);
	}
	for (uint32_t u = 0; u < units && !rc; u++)
		if (c->info->unit[u] == RFS3_DEVINFO && unit_has(s, u * RFS3_UNIT, true))
			rc = write_devunit(c, u * RFS3_UNIT, s, st);
	if (!rc && temp != NO_START) {
		uint32_t u = temp / RFS3_UNIT * RFS3_UNIT;
		if (!(rc = put(c, temp, zero, INVALIDATE_LEN, st)))
			rc = put(c, u, c->p->want + u, RFS3_UNIT, st);
	}
	return rc;
}

static int write_device_area(struct cur *c, struct cx_status *st)
{
	struct fs3_image w, h;
	uint8_t *wt, *ht;
	struct devinfo_set s = {0};
	int rc;

	phase(c->io, "writing the device data");
	if ((rc = put_kind(c, 0, c->p->want, c->p->size, RFS3_DEV, st)))
		return rc;
	if (!parse_flash(c->p->want, c->p->size, &w, &wt))
		return cx_fail(st, CX_EIMAGE, "internal error: the backup's image cannot be read twice");
	bool have_ok = parse_flash(c->p->have, c->p->size, &h, &ht);
	if (have_ok)
		add_sections(&h, true, &s);
	add_sections(&w, false, &s);
	phase(c->io, "writing the identity (DEV_INFO)");
	rc = write_devinfo(c, &s, mfg_of(&w), st);
	free(wt);
	free(ht);
	return rc;
}

int rfs3_write(const struct failsafe_io *io, const struct rfs3_plan *p, const struct rfs3_info *info,
	       struct cx_status *st)
{
	struct cur c = {io, p, info, malloc(p->size)};
	int rc = CX_OK;

	if (!c.f)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	memcpy(c.f, p->have, p->size);
	if (info->image_differs)
		rc = write_image_area(&c, st);
	if (!rc && p->device_data && info->dev_differs)
		rc = write_device_area(&c, st);
	free(c.f);
	return rc;
}
