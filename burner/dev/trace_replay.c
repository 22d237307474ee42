/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_replay.c — config space and BAR0 answered from a recording (--replay). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/trace_replay.h"

#define NO_BAR 0xFFFFFFFFu  /* what a BAR reads once the replay has stopped: decode off, hw-access.md §2.2 */

struct trace_replay {
	struct trace_reader *r;
	uint64_t naccess;        /* accesses matched so far */
	bool stopped;            /* a divergence: every later access fails */
	bool open;               /* between trace_replay_card() and the close */
	struct cx_status why;    /* the divergence */
	char early[96];          /* cxflash ended (closed the card) where the recording has this */
};

int trace_replay_open(struct trace_replay **rp, const char *path, struct cx_status *st)
{
	struct trace_replay *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	if ((rc = trace_reader_open(&p->r, path, st))) {
		free(p);
		return rc;
	}
	*rp = p;
	return CX_OK;
}

const struct trace_reader *trace_replay_reader(const struct trace_replay *rp)
{
	return rp->r;
}

/* "config write 0x58 = 0x000f0014", "sleep 1000 us", "note close" */
static void describe(const struct tr_rec *x, char *out, size_t n)
{
	if (x->kind == TR_SLEEP)
		snprintf(out, n, "sleep %u us", (unsigned)x->val);
	else if (x->kind == TR_NOTE)
		snprintf(out, n, "%.60s", !strcmp(x->note, "end") ? "the end" : !strncmp(x->note, "open", 4) ? "a card's open"
				     : !strcmp(x->note, "close") ? "the card's close" : x->note);
	else if (x->kind == TR_CFG_READ || x->kind == TR_MEM_READ)
		snprintf(out, n, "%s 0x%x", tr_kind_name(x->kind), (unsigned)x->off);
	else
		snprintf(out, n, "%s 0x%x = 0x%08x", tr_kind_name(x->kind), (unsigned)x->off, (unsigned)x->val);
}

static void diverge(struct trace_replay *p, const struct tr_rec *want, const struct tr_rec *got, bool have)
{
	char a[96], b[96];

	describe(want, a, sizeof(a));
	if (have)
		describe(got, b, sizeof(b));
	else
		snprintf(b, sizeof(b), "%s", p->why.code ? "nothing readable" :
			 trace_reader_complete(p->r) ? "its end" : "its end (cut short)");
	p->stopped = true;
	if (!p->why.code)
		cx_fail(&p->why, CX_EREPLAY, "replay: access %llu is %s, the recording has %s (nothing reached a card)",
			(unsigned long long)p->naccess + 1, a, b);
}

/* The next record that is not an "ident" note (which replays regenerate). */
static bool next(struct trace_replay *p, struct tr_rec *x)
{
	struct cx_status st = {0};
	int n;

	while ((n = trace_reader_next(p->r, x, &st)) == 1)
		if (x->kind != TR_NOTE || strncmp(x->note, "ident", 5))
			return true;
	if (n < 0)
		p->why = st;
	return false;
}

/* cxflash does *want; the recording must do the same next. */
static bool expect(struct trace_replay *p, const struct tr_rec *want, struct tr_rec *got)
{
	bool have;

	if (p->stopped)
		return false;
	have = next(p, got);
	bool same = have && got->kind == want->kind;
	if (same && tr_is_access(want->kind))
		same = got->off == want->off && (want->kind == TR_CFG_READ || want->kind == TR_MEM_READ ||
						 (got->val == want->val && !got->failed));
	if (same && want->kind == TR_SLEEP)
		same = got->val == want->val;
	if (!same) {
		diverge(p, want, got, have);
		return false;
	}
	if (tr_is_access(want->kind))
		p->naccess++;
	return true;
}

static int rp_read(void *ctx, unsigned off, uint32_t *val)
{
	struct tr_rec want = {.kind = TR_CFG_READ, .off = off}, got;

	if (!expect(ctx, &want, &got) || got.failed)
		return -1;
	*val = got.val;
	return 0;
}

static int rp_write(void *ctx, unsigned off, uint32_t val)
{
	struct tr_rec want = {.kind = TR_CFG_WRITE, .off = off, .val = val}, got;

	return expect(ctx, &want, &got) ? 0 : -1;
}

static void rp_sleep(void *ctx, unsigned us)
{
	struct tr_rec want = {.kind = TR_SLEEP, .val = us}, got;

	expect(ctx, &want, &got);
}

static void rp_close(void *ctx)
{
	struct trace_replay *p = ctx;
	struct tr_rec want = {.kind = TR_NOTE, .note = "close", .note_len = 5}, got;

	p->open = false;
	if (p->stopped)
		return;
	bool have = next(p, &got);
	if (have && tr_is_access(got.kind)) {
		/* Reported by trace_replay_finish(), with the command's own failure. */
		describe(&got, p->early, sizeof(p->early));
		p->stopped = true;
	} else if (!have || got.kind != TR_NOTE || strcmp(got.note, "close")) {
		diverge(p, &want, &got, have);
	}
}

static const struct cfg_ops replay_cfg_ops = {
	.name = "replay", .read = rp_read, .write = rp_write, .sleep_us = rp_sleep, .close = rp_close,
};

static uint32_t rpm_read(void *ctx, uint32_t off)
{
	struct tr_rec want = {.kind = TR_MEM_READ, .off = off}, got;

	return expect(ctx, &want, &got) ? got.val : NO_BAR;
}

static void rpm_write(void *ctx, uint32_t off, uint32_t val)
{
	struct tr_rec want = {.kind = TR_MEM_WRITE, .off = off, .val = val}, got;

	expect(ctx, &want, &got);
}

static void rpm_close(void *ctx)
{
	(void)ctx;   /* the recording is the config space's */
}

static const struct crmem_ops replay_mem_ops = {.name = "replay", .read = rpm_read, .write = rpm_write, .close = rpm_close};

/* 0000:01:00.0 for 01:00.0, as pci_find() takes both. */
static void full_bdf(const char *bdf, char *out, size_t n)
{
	snprintf(out, n, "%s%s", strchr(bdf, ':') == strrchr(bdf, ':') ? "0000:" : "", bdf);
}

static int parse_open(const char *note, struct pci_card *pci, bool *bar0, struct cx_status *st)
{
	char bdf[sizeof(pci->bdf)], dev[8], sub[16], cls[12], bar[4];
	unsigned sv, sd;

	if (!trace_note_value(note, "bdf", bdf, sizeof(bdf)) || !trace_note_value(note, "device", dev, sizeof(dev)) ||
	    !trace_note_value(note, "subsystem", sub, sizeof(sub)) || !trace_note_value(note, "class", cls, sizeof(cls)) ||
	    !trace_note_value(note, "bar0", bar, sizeof(bar)) || sscanf(sub, "%4x:%4x", &sv, &sd) != 2)
		return cx_fail(st, CX_EIMAGE, "the trace's open note is damaged: %s", note);
	memset(pci, 0, sizeof(*pci));
	snprintf(pci->bdf, sizeof(pci->bdf), "%s", bdf);
	pci->device = (uint16_t)strtoul(dev, NULL, 16);
	pci->subsys_vendor = (uint16_t)sv;
	pci->subsys_device = (uint16_t)sd;
	pci->class_code = (uint32_t)strtoul(cls, NULL, 16);
	if (!pci_id_known(pci->device, &pci->kind, &pci->family))
		return cx_fail(st, CX_EIMAGE, "the trace's card has device ID %04x, not one of ours", pci->device);
	*bar0 = !strcmp(bar, "1");
	return CX_OK;
}

int trace_replay_card(struct trace_replay *p, const char *bdf, struct pci_card *pci, struct cfg_dev *cfg,
		      struct crmem *mem, struct cx_status *st)
{
	struct tr_rec want = {.kind = TR_NOTE, .note = "open", .note_len = 4}, got;
	char full[32];
	bool bar0 = false;
	int rc;

	if (p->stopped)
		return cx_fail(st, CX_EREPLAY, "%s", p->why.msg);
	bool have = next(p, &got);
	if (!have || got.kind != TR_NOTE || strncmp(got.note, "open ", 5)) {
		diverge(p, &want, &got, have);
		return cx_fail(st, CX_EREPLAY, "%s", p->why.msg);
	}
	if ((rc = parse_open(got.note, pci, &bar0, st)))
		return rc;
	full_bdf(bdf, full, sizeof(full));
	if (strcmp(full, pci->bdf))
		return cx_fail(st, CX_EUSAGE, "the trace was recorded on %s, not %s", pci->bdf, bdf);
	cfg->ops = &replay_cfg_ops;
	cfg->ctx = p;
	snprintf(cfg->bdf, sizeof(cfg->bdf), "%s", pci->bdf);
	*mem = bar0 ? (struct crmem){.ops = &replay_mem_ops, .ctx = p} : (struct crmem){0};
	p->open = true;
	return CX_OK;
}

int trace_replay_finish(struct trace_replay *p, struct cx_status *st)
{
	struct tr_rec got;
	int rc = CX_OK;

	if (!p)
		return CX_OK;
	if (!p->stopped && next(p, &got) && !(got.kind == TR_NOTE && !strcmp(got.note, "end")))
		describe(&got, p->early, sizeof(p->early));
	if (p->early[0])   /* cxflash ended first: its own failure, if any, is the reason */
		cx_fail(&p->why, CX_EREPLAY, "replay: cxflash ended after access %llu%s%.200s; the recording goes on "
			"with %s", (unsigned long long)p->naccess, st->code ? " with: " : "", st->code ? st->msg : "",
			p->early);
	if (p->why.code) {
		cx_status_clear(st);
		rc = cx_fail(st, p->why.code, "%s", p->why.msg);
	}
	trace_reader_close(p->r);
	free(p);
	return rc;
}
