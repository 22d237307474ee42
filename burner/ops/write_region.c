/* SPDX-License-Identifier: GPL-2.0-or-later */
/* write_region.c — executing a write plan on the flash, and the cost model the planner uses (see write_region.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/write_region.h"
#include "util/signals.h"

#define US 1000ull
#define MS 1000000ull
#define NS_PER_S 1000000000ull

/* Geometry of the flash layer (flash.h, hw-access.md §3.4–§3.8); flash/spi.h
 * has the same numbers but is internal to burner/flash/. */
#define SZ_4K 0x1000u                /* 0x20 subsector erase (FSS_4KB), §3.4 */
#define SZ_64K 0x10000u              /* 0xD8 sector erase (FSS_64KB), §3.4 */
#define PAGE 256u                    /* one page program command, §3.8 page_write */
#define BLOCK 16u                    /* one gateway transaction carries 16 bytes, §3.6/§3.8 */

/* Cost of the gateway, in config-space dword accesses (a crspace access is
 * two: window address and data, §2.3). The counts are the flash layer's
 * (test_flash.c measures them on the model). */
#define ACCESS_NS 1000u              /* one access: ~1 µs (the model's CXSIM_CFG_ACCESS_NS; sysfs
                                      * pread/pwrite on hardware is of that order: UNCONFIRMED) */
#define READ_ACC 14u                 /* 16-byte READ: address, command, BUSY poll, 4 data registers */
#define PROG_ACC 12u                 /* 16-byte piece of a page program: 4 data, command, BUSY poll */
#define WREN_ACC 4u                  /* write enable: command, BUSY poll */
#define RDSR_ACC 6u                  /* status read: command, BUSY poll, 1 data register */
#define ERASE_ACC (WREN_ACC + RDSR_ACC + 6u) /* WREN, WEL check, erase command with address */
#define SST_SET_ACC 8u               /* one SST byte program: data, address, command, BUSY poll */

/* WIP polling of the flash layer (mstflint's, hw-access.md §3.7). */
#define ERASE_FIRST_POLL_NS (20 * MS) /* the first status read comes 20 ms after an erase ... */
#define ERASE_POLL_NS (300 * US)     /* ... then every 300 µs: on average half of that is lost */
#define PP_POLL_NS (10 * US)         /* page program: every 10 µs, plus one status read */

#define READ_CHUNK 0x10000u          /* write_region reports its reading progress every 64 KiB */

/* Typical datasheet times of the families in parts.c. A family not listed
 * is modelled like the W25Q (if it has 4 KiB sectors) or the M25P (if not):
 * the order of magnitude is what the choice between erase sizes needs. */
struct part_times {
	const char *family;          /* fl_part.name */
	uint64_t erase_4k_ns, erase_64k_ns;
	uint64_t program_ns;         /* one page program (tPP), or one byte (SST tBP) */
};

static const struct part_times part_times[] = {
	/* Winbond W25Q16JV: tSE 45 ms, tBE2 150 ms, tPP 0.4 ms (typ; as sim/core/spi_parts.c). */
	{"W25QxxBV", 45 * MS, 150 * MS, 400 * US},
	/* Micron M25P16: sector erase 0.6 s, page program 0.64 ms (typ, Features page). */
	{"M25Pxx", 0, 600 * MS, 640 * US},
	/* SST25VF016B: sector and block erase 18 ms, byte program 7 µs (typ, Features page). */
	{"SST25VFxx", 18 * MS, 18 * MS, 7 * US},
};

static const struct part_times *times_of(const struct fl_part *part)
{
	for (unsigned i = 0; i < sizeof(part_times) / sizeof(part_times[0]); i++)
		if (!strcmp(part_times[i].family, part->name))
			return &part_times[i];
	return part->sector_size == SZ_4K ? &part_times[0] : &part_times[1];
}

/* One erase command as the flash layer runs it: the WIP wait is at least the first poll. */
static uint64_t erase_cost(uint64_t t_erase)
{
	uint64_t t = t_erase > ERASE_FIRST_POLL_NS ? t_erase : ERASE_FIRST_POLL_NS;

	return t + ERASE_POLL_NS / 2 + ERASE_ACC * ACCESS_NS;
}

void write_geometry(const struct flash *f, struct plan_geom *g)
{
	const struct part_times *t = times_of(f->part);
	uint32_t unit = flash_erase_unit(f);

	*g = (struct plan_geom){.nunits = 1, .page = PAGE, .read_byte_ns = READ_ACC * ACCESS_NS / BLOCK};
	g->unit[0].size = unit;
	g->unit[0].erase_ns = erase_cost(unit == SZ_4K ? t->erase_4k_ns : t->erase_64k_ns);
	if (f->part->sub_and_sector) /* 0xD8 erases 64 KiB too (flash_erase uses it when aligned) */
		g->unit[g->nunits++] = (struct plan_unit){SZ_64K, erase_cost(t->erase_64k_ns)};
	if (f->part->byte_program) {
		/* SST: every byte is its own command, WREN and status polls included; its page's read-back. */
		g->page_ns = 0;
		g->prog_byte_ns = (WREN_ACC + SST_SET_ACC + RDSR_ACC) * ACCESS_NS + t->program_ns +
				  READ_ACC * ACCESS_NS / BLOCK;
	} else {
		g->page_ns = t->program_ns + WREN_ACC * ACCESS_NS + PP_POLL_NS / 2 + RDSR_ACC * ACCESS_NS;
		g->prog_byte_ns = (PROG_ACC + READ_ACC) * ACCESS_NS / BLOCK;
	}
}

/* ---- executing ---- */

struct run {
	struct flash *f;
	const struct plan *p;
	const uint8_t *want;
	struct write_progress *wp;
	uint8_t *keep;               /* the step's unit: bytes kept from outside the region */
	uint8_t *buf;                /* the step's unit: read back */
};

static const char *bdf(const struct flash *f)
{
	return f->gw.cr->cfg->bdf;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static void progress(const struct write_progress *wp, const char *phase, uint64_t done, uint64_t total)
{
	if (wp->fn)
		wp->fn(wp, phase, done, total);
}

static void plan_report(struct write_report *r, const struct plan *p)
{
	r->plan_erases = p->erase_ops;
	r->plan_erase_bytes = p->erase_bytes;
	r->plan_program_bytes = p->program_bytes;
	r->plan_keep_bytes = p->keep_bytes;
	r->est_ns = p->est_ns;
	r->nothing_to_do = p->nothing_to_do;
	r->steps_total = p->nsteps;
}

static void tally(struct write_report *r, const struct flash *f, const struct flash_stats *s0, uint64_t t0)
{
	r->erase_ops = f->stats.erases - s0->erases;
	r->bytes_erased = f->stats.bytes_erased - s0->bytes_erased;
	r->bytes_programmed = f->stats.bytes_programmed - s0->bytes_programmed;
	r->pages_programmed = f->stats.pages_programmed - s0->pages_programmed;
	r->bytes_read = f->stats.bytes_read - s0->bytes_read;
	r->elapsed_ns = now_ns() - t0;
}

/* Append to st's message what the failure means for the card (style.md
 * Lessons 7); [lo, hi) is the part of the flash the write was to change. */
static int explain(struct cx_status *st, int code, const struct write_progress *wp, uint32_t lo, uint32_t hi)
{
	char what[CX_MSG_MAX], state[CX_MSG_MAX];
	size_t room;

	if (!st)
		return code;
	if (!wp->r.touched)
		snprintf(state, sizeof(state), "nothing on the flash was changed: safe to power off");
	else if (wp->if_failed)
		snprintf(state, sizeof(state), "%s", wp->if_failed);
	else if (wp->r.done_upto > lo)
		snprintf(state, sizeof(state),
			 "the flash from 0x%06x to 0x%06x is partly rewritten (complete below 0x%06x): "
			 "do not power off or reset the card before it is written again", lo, hi,
			 wp->r.done_upto);
	else
		snprintf(state, sizeof(state),
			 "the flash from 0x%06x to 0x%06x is partly rewritten: do not power off or reset "
			 "the card before it is written again", lo, hi);
	memcpy(what, st->msg, sizeof(what));
	what[sizeof(what) - 1] = '\0';
	/* The state matters more than the detail: shorten the detail if both do not fit. */
	room = strlen(state) + 3 < CX_MSG_MAX ? CX_MSG_MAX - strlen(state) - 3 : 0;
	cx_status_clear(st);
	cx_fail(st, code, "%.*s; %s", (int)(strlen(what) < room ? strlen(what) : room), what, state);
	return code;
}

/* A program failed: find the first byte of [addr, addr + len) (inside the
 * step's unit, so x->buf holds it) that does not hold what was sent, for the
 * report; the flash layer's message names it too. */
static uint32_t locate(struct run *x, uint32_t addr, const uint8_t *src, uint32_t len, int rc)
{
	struct cx_status scratch = {0};

	if (rc != CX_EFLASH || flash_read(x->f, addr, x->buf, len, &scratch))
		return addr;
	for (uint32_t i = 0; i < len; i++)
		if (x->buf[i] != src[i])
			return addr + i;
	return addr;
}

static const uint8_t *source(const struct run *x, const struct plan_step *s, const struct plan_range *r)
{
	if (r->src == PLAN_FROM_WANT)
		return x->want + (r->addr - x->p->base);
	return x->keep + (r->addr - s->addr);
}

/* What byte a of step s must hold after it (a not in a want range: 0xFF or kept). */
static uint8_t expected(const struct run *x, const struct plan_step *s, uint32_t a)
{
	if (a >= x->p->base && a - x->p->base < x->p->len)
		return x->want[a - x->p->base];
	return x->keep[a - s->addr];
}

static int check(struct run *x, const struct plan_step *s, uint32_t a, uint32_t n, struct cx_status *st)
{
	uint8_t *got = x->buf + (a - s->addr);
	int rc;

	if ((rc = flash_read(x->f, a, got, n, st))) {
		x->wp->r.fail_addr = a;
		return rc;
	}
	for (uint32_t i = 0; i < n; i++)
		if (got[i] != expected(x, s, a + i)) {
			x->wp->r.fail_addr = a + i;
			return cx_fail(st, CX_EFLASH, "%s: verify failed at 0x%06x: expected 0x%02x after the "
				       "erase, the flash reads 0x%02x", bdf(x->f), a + i, expected(x, s, a + i),
				       got[i]);
		}
	return CX_OK;
}

/* Read back what no want range covered: the gaps between them. */
static int verify_rest(struct run *x, const struct plan_step *s, struct cx_status *st)
{
	const struct plan_range *r = &x->p->range[s->first];
	uint32_t at = s->addr;
	int rc;

	for (uint32_t i = 0; i < s->n; i++) {
		if (r[i].src != PLAN_FROM_WANT)
			continue;
		if (r[i].addr > at && (rc = check(x, s, at, r[i].addr - at, st)))
			return rc;
		at = r[i].addr + r[i].len;
	}
	return at < s->addr + s->size ? check(x, s, at, s->addr + s->size - at, st) : CX_OK;
}

/* One step: kept bytes, erase, programs, verify. */
static int do_step(struct run *x, const struct plan_step *s, struct cx_status *st)
{
	const struct plan_range *r = &x->p->range[s->first];
	struct write_report *rep = &x->wp->r;
	int rc;

	if (s->erase) {
		/* Read the kept bytes just before the erase that takes them. */
		for (uint32_t i = 0; i < s->n; i++)
			if (r[i].src == PLAN_FROM_FLASH &&
			    (rc = flash_read(x->f, r[i].addr, x->keep + (r[i].addr - s->addr), r[i].len, st))) {
				rep->fail_addr = r[i].addr;
				return rc;
			}
		rep->touched = true;
		if ((rc = flash_erase(x->f, s->addr, s->size, st))) {
			rep->fail_addr = s->addr;
			return rc;
		}
	}
	for (uint32_t i = 0; i < s->n; i++) {
		const uint8_t *src = source(x, s, &r[i]);

		rep->touched = true;
		if ((rc = flash_program(x->f, r[i].addr, src, r[i].len, st))) {
			rep->fail_addr = locate(x, r[i].addr, src, r[i].len, rc);
			return rc;
		}
	}
	return s->erase ? verify_rest(x, s, st) : CX_OK;
}

int write_execute(struct flash *f, const struct plan *p, const uint8_t *want, uint32_t base,
		  struct write_progress *wp, struct cx_status *st)
{
	struct write_progress none = {0};
	struct run x = {.f = f, .p = p, .want = want};
	struct flash_stats s0 = f->stats;
	uint64_t t0 = now_ns(), total = 0, done = 0;
	uint32_t unit = 0, lo, hi;
	int rc = CX_OK;

	x.wp = wp = wp ? wp : &none;
	wp->r = (struct write_report){.done_upto = p->base};
	plan_report(&wp->r, p);
	if (base != p->base)
		return cx_fail(st, CX_EVALUE, "%s: a write planned for 0x%06x was asked for at 0x%06x", bdf(f),
			       p->base, base);
	if (p->nothing_to_do) {
		progress(wp, WRITE_PHASE_WRITE, 0, 0);
		return CX_OK;
	}
	lo = p->step[0].addr;
	hi = p->step[p->nsteps - 1].addr + p->step[p->nsteps - 1].size;
	/* A plan made for another part would fail half way through: refuse it whole. */
	if (hi > f->size || lo % flash_erase_unit(f))
		return cx_fail(st, CX_EVALUE, "%s: the write plan (0x%06x to 0x%06x) does not fit the %s "
			       "(%u KiB, erased in units of %u KiB); nothing was changed", bdf(f), lo, hi,
			       f->part->name, f->size / 1024, flash_erase_unit(f) / 1024);
	for (uint32_t i = 0; i < p->nsteps; i++) {
		if (p->step[i].size % flash_erase_unit(f) || p->step[i].addr % flash_erase_unit(f))
			return cx_fail(st, CX_EVALUE, "%s: the write plan erases 0x%x bytes at 0x%06x, but the %s "
				       "erases in units of %u KiB; nothing was changed", bdf(f), p->step[i].size,
				       p->step[i].addr, f->part->name, flash_erase_unit(f) / 1024);
		unit = p->step[i].size > unit ? p->step[i].size : unit;
		total += p->step[i].size;
	}
	if (!(x.keep = malloc(unit)) || !(x.buf = malloc(unit))) {
		rc = cx_fail(st, CX_ENOMEM, "out of memory for a %u KiB write buffer", unit / 1024);
		goto out;
	}
	/* Refuses a protected part with "Nothing was erased or written" (flash.h). */
	if ((rc = flash_prepare_write(f, st)))
		goto out;
	progress(wp, WRITE_PHASE_WRITE, 0, total);
	for (uint32_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->step[i];

		if (sig_pending()) {
			wp->r.fail_addr = s->addr;
			rc = cx_fail(st, CX_EINTR, "%s: interrupted; stopped before the erase unit at 0x%06x",
				     bdf(f), s->addr);
			rc = explain(st, rc, wp, lo, hi);
			break;
		}
		if ((rc = do_step(&x, s, st))) {
			rc = explain(st, rc, wp, lo, hi);
			break;
		}
		wp->r.steps_done++;
		wp->r.done_upto = s->addr + s->size;
		done += s->size;
		progress(wp, WRITE_PHASE_WRITE, done, total);
	}
out:
	tally(&wp->r, f, &s0, t0);
	free(x.keep);
	free(x.buf);
	return rc;
}

/* What the planner reads (plan_make_reading): progress every READ_CHUNK of
 * the region, and a signal stops it safely (nothing is changed yet). */
struct have_reader {
	struct flash *f;
	struct write_progress *wp;
	struct cx_status *st;
	uint32_t base, len;
	uint32_t next_report;        /* region offset of the next progress report */
	bool failed;                 /* the error planning returns is ours */
};

static int read_have(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len)
{
	struct have_reader *h = ctx;
	uint32_t off = addr - h->base;
	int rc;

	if (off >= h->next_report) {
		progress(h->wp, WRITE_PHASE_READ, off, h->len);
		h->next_report = (off / READ_CHUNK + 1) * READ_CHUNK;
	}
	if (sig_pending())
		rc = cx_fail(h->st, CX_EINTR, "%s: interrupted while reading the flash at 0x%06x", bdf(h->f), addr);
	else
		rc = flash_read(h->f, addr, buf, len, h->st);
	h->failed = rc != CX_OK;
	return rc;
}

/* write_region() and write_region_known(): have NULL plans by reading the flash. */
static int region(struct flash *f, uint32_t base, const uint8_t *have, const uint8_t *want, uint32_t len,
		  bool dry_run, struct write_progress *wp, struct cx_status *st)
{
	struct write_progress none = {0};
	struct flash_stats s0 = f->stats;
	uint64_t t0 = now_ns();
	struct plan_geom g;
	struct plan p = {0};
	struct have_reader h = {f, NULL, st, base, len, 0, false};
	int rc;

	h.wp = wp = wp ? wp : &none;
	wp->r = (struct write_report){.done_upto = base, .fail_addr = base};
	if ((uint64_t)base + len > f->size)
		return cx_fail(st, CX_EVALUE, "%s: a write of 0x%x bytes at 0x%06x is beyond the end of the %u KiB "
			       "flash; nothing was changed", bdf(f), len, base, f->size / 1024);
	write_geometry(f, &g);
	rc = have ? plan_make(have, want, base, len, &g, &p) : plan_make_reading(read_have, &h, want, base, len, &g, &p);
	if (rc) {
		if (h.failed)
			rc = explain(st, rc, wp, base, base + len);
		else
			rc = cx_fail(st, rc, "%s: cannot plan a write of 0x%x bytes at 0x%06x (%s); nothing was "
				     "changed", bdf(f), len, base,
				     rc == CX_ENOMEM ? "out of memory" : "bad region or geometry");
		goto out;
	}
	if (!have)
		progress(wp, WRITE_PHASE_READ, len, len);
	if (dry_run) {
		plan_report(&wp->r, &p);
		plan_print(&p, wp->out ? wp->out : stdout);
	} else {
		rc = write_execute(f, &p, want, base, wp, st);
	}
	wp->r.plan_read_bytes = p.read_bytes;
	wp->r.est_ns += p.read_bytes * g.read_byte_ns;
out:
	tally(&wp->r, f, &s0, t0);
	plan_free(&p);
	return rc;
}

int write_region(struct flash *f, uint32_t base, const uint8_t *want, uint32_t len, bool dry_run,
		 struct write_progress *wp, struct cx_status *st)
{
	return region(f, base, NULL, want, len, dry_run, wp, st);
}

int write_region_known(struct flash *f, uint32_t base, const uint8_t *have, const uint8_t *want, uint32_t len,
		       struct write_progress *wp, struct cx_status *st)
{
	return region(f, base, have, want, len, false, wp, st);
}
