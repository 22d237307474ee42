/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setid.c — sg/sv on a card: identity-only check, in place for blank GUIDs, else a failsafe re-burn. */
#include <stdlib.h>
#include <string.h>

#include "image/patch.h"
#include "image/zebra.h"
#include "ops/burn.h"
#include "ops/write_procedure.h"
#include "ops/setid.h"

/* The identity fields make at most four changed runs (0x20, GUID section,
 * VSD, IMAGE_INFO CRC), each cut at most once by a chunk border. */
#define MAX_PIECES 16
/* Changes closer than this are written as one run: the equal bytes between
 * them are left alone by the planner (plan.h), and one read is cheaper. */
#define JOIN_GAP 16

#define IN_PLACE_IF_FAILED \
	"the running image's GUID section or CRC is partly programmed: run the same sg again before " \
	"powering off (it then re-burns failsafe)"

/* A changed run: contiguous image bytes [cont, cont + len) at physical phys. */
struct piece {
	uint32_t cont, phys, len;
};

static bool within(uint32_t a, uint32_t lo, uint32_t n)
{
	return a >= lo && a - lo < n;
}

/* The bytes flint's checksum treats as device data (FwCalcMD5, fs2-format.md §3.3). */
static bool identity_byte(const struct fs2_image *img, uint32_t a)
{
	if (within(a, FS2_OFF_FULL_CRC + 2, 2)) /* 0x20 bits 15:0, big-endian */
		return true;
	if (img->guid_sect >= 0) {
		const struct fs2_item *g = &img->items[img->guid_sect];
		if (within(a, g->data_off, g->data_len + 4))
			return true;
	}
	if (img->info_sect >= 0) {
		const struct fs2_item *in = &img->items[img->info_sect];
		if (within(a, in->data_off + in->data_len, 4))
			return true;
		if (img->info.have[TAG_VSD] &&
		    within(a, in->data_off + img->info.payload_off[TAG_VSD], img->info.payload_len[TAG_VSD]))
			return true;
	}
	return false;
}

static int refuse_recovery(const struct device *d, struct cx_status *st)
{
	return cx_fail(st, CX_EUNSUPPORTED,
		       "%s is in recovery (livefish) mode: there is no image whose GUIDs or VSD could be changed; "
		       "burn an image with the card's identity instead: cxflash -d %s -i IMAGE --guid G --mac M burn",
		       d->pci.bdf, d->pci.bdf);
}

int setid_read(struct device *d, struct dev_image *cur, struct cx_status *st)
{
	int rc;

	memset(cur, 0, sizeof(*cur));
	if (d->chip.recovery)
		return refuse_recovery(d, st);
	if ((rc = device_read_image(d, cur, st)))
		return rc;
	if (cur->parse_rc)
		return cx_fail(st, CX_EIMAGE, "the card's image does not parse (%s): sg/sv need a sound image; "
			       "burn or restore one", cur->parse_msg);
	return CX_OK;
}

/* The new image must verify, carry GUIDs, and differ from the card's only in its identity. */
static int check_want(const struct dev_image *cur, const uint8_t *want, struct cx_status *st)
{
	struct fs2_image *img = malloc(sizeof(*img));
	struct cx_status pst = {0};
	int rc;

	if (!img)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	rc = fs2_parse(want, cur->len, img, &pst);
	if (!rc)
		rc = fs2_verdict(img, &pst);
	free(img);
	if (rc == CX_EBLANK)
		return cx_fail(st, CX_EBLANK, "the card's GUIDs are blank: set them first (sg --guid G --mac M, "
			       "written in place), then the VSD");
	if (rc)
		return cx_fail(st, CX_EIMAGE, "the new image does not verify (%s): nothing written", pst.msg);
	for (uint32_t a = 0; a < cur->len; a++)
		if (want[a] != cur->buf[a] && !identity_byte(&cur->img, a))
			return cx_fail(st, CX_EVALUE, "internal error: the new image differs from the card's at 0x%x, "
				       "outside its GUIDs/MACs/VSD: nothing written", a);
	return CX_OK;
}

/* The changed runs of want, split at chunk borders, the one holding the
 * full-image CRC last (flint: the GUID section, then the CRC over it).
 * False when there are more than MAX_PIECES. */
static bool find_pieces(const struct dev_image *cur, const uint8_t *want, struct piece *pc, int *n)
{
	uint32_t chunk = cur->failsafe ? 1u << cur->log2chunk : 0, len = (uint32_t)cur->len;

	*n = 0;
	for (uint32_t a = 0; a < len; a++) {
		if (want[a] == cur->buf[a])
			continue;
		uint32_t b = a + 1;
		for (uint32_t k = b; k < len && k - b < JOIN_GAP; k++)
			if (want[k] != cur->buf[k])
				b = k + 1;
		while (a < b) {
			uint32_t m = b - a;
			if (chunk && m > chunk - (a & (chunk - 1)))
				m = chunk - (a & (chunk - 1));
			if (*n == MAX_PIECES)
				return false;
			pc[(*n)++] = (struct piece){a, chunk ? zebra_cont2phys(a, cur->log2chunk, cur->slot)
							     : cur->start + a, m};
			a += m;
		}
		a = b - 1;
	}
	if (*n > 1 && pc[0].cont <= FS2_OFF_FULL_CRC + 3) {
		struct piece crc = pc[0];
		memmove(pc, pc + 1, (size_t)(*n - 1) * sizeof(*pc));
		pc[*n - 1] = crc;
	}
	return true;
}

/* Read each run as the flash holds it and plan it (the lock held: write_procedure.h);
 * *erases counts the erases the plans would need (any: not program-only, so
 * not in place). */
static int plan_pieces(struct device *d, const struct dev_image *cur, const uint8_t *want,
		       const struct piece *pc, int n, struct plan *plans, uint32_t *erases,
		       struct cx_status *st)
{
	struct plan_geom g;
	int rc;

	*erases = 0;
	rc = CX_OK;
	write_geometry(&d->flash, &g);
	for (int i = 0; i < n && !rc; i++) {
		uint8_t *have = malloc(pc[i].len);
		if (!have) {
			rc = cx_fail(st, CX_ENOMEM, "out of memory");
			break;
		}
		if (!(rc = flash_read(&d->flash, pc[i].phys, have, pc[i].len, st))) {
			if (memcmp(have, cur->buf + pc[i].cont, pc[i].len))
				rc = cx_fail(st, CX_EFLASH, "the card's flash at 0x%06x changed since it was read: "
					     "nothing written", pc[i].phys);
			else if ((rc = plan_make(have, want + pc[i].cont, pc[i].phys, pc[i].len, &g, &plans[i])))
				rc = cx_fail(st, rc, "cannot plan a write at 0x%06x: nothing written", pc[i].phys);
			else
				*erases += plans[i].erase_ops;
		}
		free(have);
	}
	return rc;
}

/* The flash verify of write_execute() covers every byte it changed; this
 * reads the runs once more as a whole, after the last write. */
static int read_back(struct device *d, const uint8_t *want, const struct piece *pc, int n, struct cx_status *st)
{
	int rc = CX_OK;

	for (int i = 0; i < n && !rc; i++) {
		uint8_t *got = malloc(pc[i].len);
		if (!got)
			return cx_fail(st, CX_ENOMEM, "out of memory");
		if (!(rc = flash_read(&d->flash, pc[i].phys, got, pc[i].len, st)) &&
		    memcmp(got, want + pc[i].cont, pc[i].len))
			rc = cx_fail(st, CX_EFLASH, "read-back after the write does not match at 0x%06x", pc[i].phys);
		free(got);
	}
	return rc;
}

/* Blank GUIDs in place, as an op of the write procedure (write_procedure.h). */
struct in_place_run {
	const struct dev_image *cur;
	const uint8_t *want;
	struct piece pc[MAX_PIECES];
	struct plan plans[MAX_PIECES];
	int n;
	bool fits;                   /* out: every run is program-only (else nothing written) */
};

/* Each changed run planned from the flash; a run that needs an erase means
 * "not in place": the run ends with nothing written and the caller re-burns. */
static int ip_plan(struct card_write *w, struct cx_status *st)
{
	struct in_place_run *x = w->ctx;
	uint32_t erases = 0;
	int rc;

	if (!(x->fits = find_pieces(x->cur, x->want, x->pc, &x->n))) {
		w->out.nothing_to_do = true;
		return CX_OK;
	}
	if ((rc = plan_pieces(w->d, x->cur, x->want, x->pc, x->n, x->plans, &erases, st)))
		return rc;
	x->fits = !erases;
	w->out.nothing_to_do = !x->fits;
	cw_image_of(&w->old_boot, x->cur);
	w->new_boot = (struct cw_image){true, x->cur->start, x->want, x->cur->len};
	return CX_OK;
}

static int ip_write(struct card_write *w, struct cx_status *st)
{
	struct in_place_run *x = w->ctx;
	int rc = CX_OK;

	for (int i = 0; i < x->n && !rc; i++) {
		struct write_progress wp = {.if_failed = IN_PLACE_IF_FAILED};
		wp.fn = cw_progress(w, &wp.arg);
		rc = write_execute(&w->d->flash, &x->plans[i], x->want + x->pc[i].cont, x->pc[i].phys, &wp, st);
	}
	return rc;
}

static int ip_verify(struct card_write *w, struct cx_status *st)
{
	struct in_place_run *x = w->ctx;
	return read_back(w->d, x->want, x->pc, x->n, st);
}

static const struct card_write_op in_place_op = {"set-ids", NULL, ip_plan, ip_write, ip_verify};

/* *fits is false (nothing written) when some run would need an erase. */
static int in_place(struct device *d, const struct dev_image *cur, const uint8_t *want,
		    const struct setid_opts *o, struct setid_result *r, bool *fits, struct cx_status *st)
{
	struct in_place_run x = {.cur = cur, .want = want};
	struct card_write w = {.d = d, .op = &in_place_op, .ctx = &x, .hooks = &o->hooks, .dry_run = o->dry_run};
	int rc = card_write_run(&w, st);

	for (int i = 0; i < x.n; i++)
		plan_free(&x.plans[i]);
	*fits = x.fits && !rc;
	r->in_place = x.fits;
	r->out = w.out;
	r->bytes_erased += w.out.bytes_erased;
	r->bytes_programmed += w.out.bytes_programmed;
	return rc;
}

/* The card's own firmware: the only question burn_card() can ask is
 * whether to burn the same version again, which is what sg/sv does. */
static int same_firmware_again(void *ctx, const char *question, struct cx_status *st)
{
	(void)ctx;
	(void)question;
	(void)st;
	return CX_OK;
}

static int reburn(struct device *d, const struct dev_image *cur, const uint8_t *want,
		  const struct setid_opts *o, struct setid_result *r, struct cx_status *st)
{
	struct burn_opts bo = {0};
	struct burn_result br;
	int rc;

	bo.ident.use_image_guids = true; /* want already carries the new identity */
	bo.ident.use_image_ps = true;
	bo.dry_run = o->dry_run;
	bo.hooks = o->hooks;
	bo.hooks.confirm = same_firmware_again;
	rc = burn_card(d, want, cur->len, &bo, &br, st);
	r->out = br.out;
	r->start = br.start;
	r->nothing_to_do = br.nothing_to_do;
	r->bytes_erased += br.bytes_erased;
	r->bytes_programmed += br.bytes_programmed;
	return rc;
}

int setid_write(struct device *d, const struct dev_image *cur, const uint8_t *want,
		const struct setid_opts *o, struct setid_result *r, struct cx_status *st)
{
	bool fits = false;
	int rc;

	memset(r, 0, sizeof(*r));
	r->start = cur->start;
	if (d->chip.recovery)
		return refuse_recovery(d, st);
	if (cur->parse_rc || !cur->buf)
		return cx_fail(st, CX_EIMAGE, "the card's image was not read: nothing written");
	if ((rc = check_want(cur, want, st)))
		return rc;
	if (!memcmp(cur->buf, want, cur->len)) {
		r->nothing_to_do = true;
		return CX_OK;
	}
	if (o->in_place && cur->img.guids.blank && (rc = in_place(d, cur, want, o, r, &fits, st)))
		return rc;
	if (fits)
		return CX_OK;
	return reburn(d, cur, want, o, r, st);
}

int setid_change(struct device *d, setid_patch_fn *patch, setid_review_fn *review, void *ctx,
		 const struct setid_opts *o, struct setid_result *r, struct cx_status *st)
{
	struct dev_image cur = {0};
	uint8_t *want = NULL;
	int rc = setid_read(d, &cur, st);

	if (!rc && !(want = malloc(cur.len)))
		rc = cx_fail(st, CX_ENOMEM, "out of memory");
	if (!rc) {
		memcpy(want, cur.buf, cur.len);
		rc = patch(ctx, want, &cur.img, st);
	}
	if (!rc)
		rc = patch_check_result(want, cur.len, st);
	if (!rc && review)
		rc = review(ctx, &cur, st);
	if (!rc)
		rc = setid_write(d, &cur, want, o, r, st);
	devimage_free(&cur);
	free(want);
	return rc;
}
