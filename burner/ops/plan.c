/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan.c — choosing erases and programs by modelled cost (style.md Lessons 6; see plan.h). */
#include <stdlib.h>
#include <string.h>

#include "ops/plan.h"
#include "util/status.h"

#define ERASED 0xFFu                 /* what NOR flash reads after an erase */
#define FIRST_CAP 64u                /* first allocation of the step and range arrays */
#define KIB 1024u
#define NS_PER_S 1e9

enum state { S_CLEAN, S_PROGRAM, S_ERASE };

/* Which bytes of want a range must carry. */
enum need {
	NEED_NOT_FF,                 /* after an erase: every byte that is not 0xFF */
	NEED_DIFF,                   /* program only: every byte that differs from have */
};

/* One smallest erase unit. */
struct sector {
	enum state state;
	bool partial;                /* some of its bytes lie outside the region */
	uint64_t content_ns;         /* refilling it after an erase: programs, kept bytes, verify */
};

struct run {
	uint32_t a, e;               /* [a, e) */
};

struct ctx {
	const uint8_t *have, *want;
	plan_read_fn *rd;            /* plan_make_reading: fills have as classify() goes */
	void *rd_ctx;
	uint8_t *fill;               /* ... into this (= have) */
	uint32_t known;              /* ... which holds the flash's bytes below this address */
	uint64_t read_bytes;
	uint32_t base, end;          /* the region */
	const struct plan_geom *g;
	struct plan *p;              /* NULL while only costing */
	int rc;                      /* CX_ENOMEM from an append, or rd's error */
	uint32_t lo;                 /* the extent: aligned to the largest unit */
	struct sector *sect;
	uint64_t *best[PLAN_MAX_UNITS]; /* cheapest way to bring each unit of each level to want */
	bool *whole[PLAN_MAX_UNITS]; /* ... is to erase that unit as a whole */
};

static int grow(void **arr, uint32_t *cap, uint32_t n, size_t elem)
{
	uint32_t ncap;
	void *q;

	if (n < *cap)
		return CX_OK;
	ncap = *cap ? *cap * 2 : FIRST_CAP;
	if (!(q = realloc(*arr, (size_t)ncap * elem)))
		return CX_ENOMEM;
	*arr = q;
	*cap = ncap;
	return CX_OK;
}

static void add_range(struct ctx *c, uint32_t a, uint32_t len, enum plan_src src)
{
	struct plan *p = c->p;

	if (!p || c->rc || (c->rc = grow((void **)&p->range, &p->cap_ranges, p->nranges, sizeof(*p->range))))
		return;
	p->range[p->nranges++] = (struct plan_range){a, len, src};
	if (src == PLAN_FROM_WANT)
		p->program_bytes += len;
	else
		p->keep_bytes += len;
}

static void add_step(struct ctx *c, uint32_t a, uint32_t size, bool erase)
{
	struct plan *p = c->p;

	if (c->rc || (c->rc = grow((void **)&p->step, &p->cap_steps, p->nsteps, sizeof(*p->step))))
		return;
	p->step[p->nsteps++] = (struct plan_step){a, size, erase, p->nranges, 0};
	if (erase) {
		p->erase_ops++;
		p->erase_bytes += size;
	}
}

/* Close the last step: its ranges are the ones added since add_step(). */
static void end_step(struct ctx *c)
{
	struct plan *p = c->p;

	if (!c->rc)
		p->step[p->nsteps - 1].n = p->nranges - p->step[p->nsteps - 1].first;
}

static uint32_t min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static uint32_t max32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

static uint32_t page_end(const struct plan_geom *g, uint32_t a, uint32_t to)
{
	return min32((a | (g->page - 1)) + 1, to);
}

static bool needs(const struct ctx *c, uint32_t a, enum need m)
{
	uint8_t w = c->want[a - c->base];

	return m == NEED_NOT_FF ? w != ERASED : w != c->have[a - c->base];
}

/* Join runs of one page: where sending the bytes between two runs costs no
 * more than a second program command, and then, smallest gaps first, until
 * at most PLAN_MAX_RUNS_PER_PAGE are left. */
static void join(struct run *r, unsigned *n, const struct plan_geom *g)
{
	unsigned k = 0;

	for (unsigned i = 1; i < *n; i++)
		if ((uint64_t)(r[i].a - r[k].e) * g->prog_byte_ns <= g->page_ns)
			r[k].e = r[i].e;
		else
			r[++k] = r[i];
	*n = *n ? k + 1 : 0;
	while (*n > PLAN_MAX_RUNS_PER_PAGE) {
		unsigned at = 0;

		for (unsigned i = 1; i + 1 < *n; i++)
			if (r[i + 1].a - r[i].e < r[at + 1].a - r[at].e)
				at = i;
		r[at].e = r[at + 1].e;
		memmove(&r[at + 1], &r[at + 2], (*n - at - 2) * sizeof(*r));
		(*n)--;
	}
}

/* Ranges of want for [from, to), inside the region and one unit; adds them to
 * the plan if there is one. Returns their cost; *bytes += their length. */
static uint64_t want_ranges(struct ctx *c, uint32_t from, uint32_t to, enum need m, uint64_t *bytes)
{
	const struct plan_geom *g = c->g;
	struct run r[PLAN_MAX_PAGE / 2 + 1];
	uint64_t ns = 0;

	for (uint32_t pg = from; pg < to; pg = page_end(g, pg, to)) {
		uint32_t pe = page_end(g, pg, to);
		unsigned n = 0;

		for (uint32_t a = pg; a < pe; a++) {
			if (!needs(c, a, m))
				continue;
			if (n && r[n - 1].e == a)
				r[n - 1].e++;
			else
				r[n++] = (struct run){a, a + 1};
		}
		join(r, &n, g);
		for (unsigned i = 0; i < n; i++) {
			ns += g->page_ns + (uint64_t)(r[i].e - r[i].a) * g->prog_byte_ns;
			*bytes += r[i].e - r[i].a;
			add_range(c, r[i].a, r[i].e - r[i].a, PLAN_FROM_WANT);
		}
	}
	return ns;
}

/* Bytes of [from, to) outside the region, kept across an erase: read before
 * it, programmed after it, page by page. Their content is unknown here, so
 * they are costed as if no byte were 0xFF. */
static uint64_t keep_ranges(struct ctx *c, uint32_t from, uint32_t to)
{
	const struct plan_geom *g = c->g;
	uint64_t ns = 0;

	for (uint32_t pg = from; pg < to; pg = page_end(g, pg, to)) {
		uint32_t len = page_end(g, pg, to) - pg;

		ns += g->page_ns + (uint64_t)len * (g->prog_byte_ns + g->read_byte_ns);
		add_range(c, pg, len, PLAN_FROM_FLASH);
	}
	return ns;
}

/* Refill [u, u + size) after its erase: kept bytes, the non-0xFF bytes of
 * want, and a read of every byte no want range verified (write_region.c). */
static uint64_t refill(struct ctx *c, uint32_t u, uint32_t size)
{
	uint32_t lo = max32(u, c->base), hi = min32(u + size, c->end);
	uint64_t ns = 0, verified = 0;

	if (lo >= hi)
		return keep_ranges(c, u, u + size) + (uint64_t)size * c->g->read_byte_ns;
	ns += keep_ranges(c, u, lo);
	ns += want_ranges(c, lo, hi, NEED_NOT_FF, &verified);
	ns += keep_ranges(c, hi, u + size);
	return ns + (size - verified) * c->g->read_byte_ns;
}

/* plan_make_reading: read the block holding a, up to hi (the sector's end in
 * the region). false with c->rc set if the callback failed. */
static bool read_block(struct ctx *c, uint32_t a, uint32_t hi)
{
	uint32_t e = min32((a | (PLAN_READ_BLOCK - 1)) + 1, hi);

	if ((c->rc = c->rd(c->rd_ctx, a, c->fill + (a - c->base), e - a)))
		return false;
	c->read_bytes += e - a;
	c->known = e;
	return true;
}

/* Level 0: what each sector needs on its own. The scan stops at the first
 * byte that needs an erase, so when reading it stops reading there too. */
static void classify(struct ctx *c, uint32_t i)
{
	const struct plan_geom *g = c->g;
	uint32_t size = g->unit[0].size, u = c->lo + i * size;
	uint32_t lo = max32(u, c->base), hi = min32(u + size, c->end);
	struct sector *s = &c->sect[i];
	uint64_t bytes = 0;

	*s = (struct sector){.state = S_CLEAN, .partial = lo != u || hi != u + size};
	for (uint32_t a = lo; a < hi && s->state != S_ERASE; a++) {
		if (c->rd && a >= c->known && !read_block(c, a, hi))
			return;

		uint8_t h = c->have[a - c->base], w = c->want[a - c->base];

		if (h == w)
			continue;
		s->state = (h & w) == w ? S_PROGRAM : S_ERASE;
	}
	s->content_ns = s->state == S_ERASE ? refill(c, u, size) : 0;
	c->whole[0][i] = s->state == S_ERASE;
	if (s->state == S_ERASE)
		c->best[0][i] = g->unit[0].erase_ns + s->content_ns;
	else if (s->state == S_PROGRAM)
		c->best[0][i] = want_ranges(c, lo, hi, NEED_DIFF, &bytes);
	else
		c->best[0][i] = 0;
}

/* Level k >= 1: erase unit i whole, or leave it to its parts, whichever costs less. */
static void choose(struct ctx *c, unsigned k, uint32_t i)
{
	const struct plan_geom *g = c->g;
	uint32_t size = g->unit[k].size, u = c->lo + i * size;
	uint32_t ratio = size / g->unit[k - 1].size, sectors = size / g->unit[0].size;
	uint32_t s0 = (u - c->lo) / g->unit[0].size;
	uint64_t parts = 0, whole = g->unit[k].erase_ns;
	bool any = false, safe = true;

	for (uint32_t j = 0; j < ratio; j++)
		parts += c->best[k - 1][i * ratio + j];
	for (uint32_t j = s0; j < s0 + sectors; j++) {
		const struct sector *s = &c->sect[j];

		any |= s->state == S_ERASE;
		/* A part outside the region is erased here only if its sector is erased anyway. */
		safe &= !s->partial || s->state == S_ERASE;
		if (s->state != S_ERASE)
			whole += refill(c, c->lo + j * g->unit[0].size, g->unit[0].size);
		else
			whole += s->content_ns;
	}
	c->whole[k][i] = any && safe && whole < parts;
	c->best[k][i] = c->whole[k][i] ? whole : parts;
}

/* Emit unit i of level k into the plan, in address order. */
static void emit(struct ctx *c, unsigned k, uint32_t i)
{
	const struct plan_geom *g = c->g;
	uint32_t size = g->unit[k].size, u = c->lo + i * size;

	if (c->whole[k][i]) {
		add_step(c, u, size, true);
		refill(c, u, size);
		end_step(c);
	} else if (k > 0) {
		uint32_t ratio = size / g->unit[k - 1].size;

		for (uint32_t j = 0; j < ratio; j++)
			emit(c, k - 1, i * ratio + j);
	} else if (c->sect[i].state == S_PROGRAM) {
		uint64_t bytes = 0;

		add_step(c, u, size, false);
		want_ranges(c, max32(u, c->base), min32(u + size, c->end), NEED_DIFF, &bytes);
		end_step(c);
	}
}

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static bool geom_ok(const struct plan_geom *g)
{
	if (!g || g->nunits < 1 || g->nunits > PLAN_MAX_UNITS || !pow2(g->page) || g->page > PLAN_MAX_PAGE)
		return false;
	for (unsigned k = 0; k < g->nunits; k++)
		if (!pow2(g->unit[k].size) || g->unit[k].size < g->page || g->unit[k].size > PLAN_MAX_END ||
		    (k && g->unit[k].size <= g->unit[k - 1].size))
			return false;
	return true;
}

static void ctx_free(struct ctx *c)
{
	free(c->fill);
	free(c->sect);
	for (unsigned k = 0; k < PLAN_MAX_UNITS; k++) {
		free(c->best[k]);
		free(c->whole[k]);
	}
}

/* plan_make and plan_make_reading: c holds the region, want and the source of have. */
static int make(struct ctx *c, struct plan *p)
{
	const struct plan_geom *g = c->g;
	uint32_t top, hi, ntop;

	if (c->rd && !(c->fill = malloc(c->end - c->base)))
		return CX_ENOMEM;
	if (c->rd)
		c->have = c->fill;
	top = g->unit[g->nunits - 1].size;
	c->lo = c->base & ~(top - 1);
	hi = (uint32_t)(((uint64_t)c->end + top - 1) & ~(uint64_t)(top - 1));
	ntop = (hi - c->lo) / top;
	if (!(c->sect = calloc((hi - c->lo) / g->unit[0].size, sizeof(*c->sect))))
		return CX_ENOMEM;
	for (unsigned k = 0; k < g->nunits; k++) {
		uint32_t n = (hi - c->lo) / g->unit[k].size;

		if (!(c->best[k] = calloc(n, sizeof(*c->best[k]))) ||
		    !(c->whole[k] = calloc(n, sizeof(*c->whole[k]))))
			return CX_ENOMEM;
	}
	/* Costs bottom-up, then the plan top-down. */
	for (uint32_t i = 0; i < (hi - c->lo) / g->unit[0].size && !c->rc; i++)
		classify(c, i);
	p->read_bytes = c->read_bytes;
	if (c->rc)
		return c->rc;
	for (unsigned k = 1; k < g->nunits; k++)
		for (uint32_t i = 0; i < (hi - c->lo) / g->unit[k].size; i++)
			choose(c, k, i);
	c->p = p;
	for (uint32_t i = 0; i < ntop; i++) {
		emit(c, g->nunits - 1, i);
		p->est_ns += c->best[g->nunits - 1][i];
	}
	if (c->rc) {
		plan_free(p);
		return c->rc;
	}
	p->nothing_to_do = p->nsteps == 0;
	return CX_OK;
}

/* nothing_to_do stays false unless planning succeeds: a caller that ignores
 * a failure must not take it for "already written". */
static int start(struct ctx *c, struct plan *p)
{
	uint32_t len = c->end - c->base; /* exact even where base + len wrapped */
	int rc;

	*p = (struct plan){.base = c->base, .len = len};
	if (!geom_ok(c->g) || c->base > PLAN_MAX_END || len > PLAN_MAX_END - c->base)
		return CX_EVALUE;
	if (!len) {
		p->nothing_to_do = true;
		return CX_OK;
	}
	rc = make(c, p);
	ctx_free(c);
	return rc;
}

int plan_make(const uint8_t *have, const uint8_t *want, uint32_t base, uint32_t len,
	      const struct plan_geom *g, struct plan *p)
{
	struct ctx c = {.have = have, .want = want, .base = base, .end = base + len, .g = g};

	return start(&c, p);
}

int plan_make_reading(plan_read_fn *rd, void *ctx, const uint8_t *want, uint32_t base, uint32_t len,
		      const struct plan_geom *g, struct plan *p)
{
	struct ctx c = {.want = want, .rd = rd, .rd_ctx = ctx, .base = base, .end = base + len, .g = g};

	return start(&c, p);
}

static void print_size(FILE *out, uint32_t n)
{
	if (n % KIB == 0)
		fprintf(out, "%u KiB", n / KIB);
	else
		fprintf(out, "%u bytes", n);
}

void plan_print(const struct plan *p, FILE *out)
{
	if (p->nothing_to_do) {
		fprintf(out, "nothing to do: the flash already holds the %u bytes at 0x%x\n", p->len, p->base);
		return;
	}
	for (uint32_t s = 0; s < p->nsteps; s++) {
		const struct plan_step *st = &p->step[s];

		if (st->erase) {
			fprintf(out, "erase ");
			print_size(out, st->size);
			fprintf(out, " at 0x%x\n", st->addr);
		}
		for (uint32_t i = st->first; i < st->first + st->n;) {
			const struct plan_range *r = &p->range[i];
			uint32_t len = r->len;

			/* Adjacent ranges of one source are one line. */
			for (i++; i < st->first + st->n && p->range[i].src == r->src &&
			     p->range[i].addr == r->addr + len; i++)
				len += p->range[i].len;
			if (r->src == PLAN_FROM_WANT)
				fprintf(out, "program %u bytes at 0x%x\n", len, r->addr);
			else
				fprintf(out, "keep %u bytes at 0x%x (outside the region: read before the erase, "
					"programmed back)\n", len, r->addr);
		}
	}
	fprintf(out, "total: %u erase%s (%llu KiB), %llu bytes to program", p->erase_ops,
		p->erase_ops == 1 ? "" : "s", (unsigned long long)(p->erase_bytes / KIB),
		(unsigned long long)p->program_bytes);
	if (p->keep_bytes)
		fprintf(out, ", up to %llu bytes kept", (unsigned long long)p->keep_bytes);
	fprintf(out, "; estimated %.2f s\n", p->est_ns / NS_PER_S);
}

void plan_free(struct plan *p)
{
	free(p->step);
	free(p->range);
	p->step = NULL;
	p->range = NULL;
	p->nsteps = p->nranges = p->cap_steps = p->cap_ranges = 0;
}
