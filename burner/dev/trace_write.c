/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_write.c — the trace file writer and the recording access methods.
 * The byte layout is documented in trace_fmt.h; here: buffering, flushing, and
 * the cfg_ops / crmem_ops that forward and log. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "dev/trace_write.h"

#define BUF_SIZE (TR_FLUSH_BYTES + TR_REC_MAX)
#define GZ_MODE "wb6" /* zlib's default level */

struct trace_writer {
	gzFile gz;
	struct tr_state s;
	uint64_t t0_ns, last_flush_ns;
	size_t len;
	bool header, failed, timestamps;
	uint8_t buf[BUF_SIZE];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int trace_writer_open(struct trace_writer **wp, const char *path, bool timestamps, struct cx_status *st)
{
	struct trace_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	if (!(w->gz = gzopen(path, GZ_MODE))) {
		free(w);
		return cx_fail(st, CX_EIO, "cannot create the trace %s: %s", path,
			       errno ? strerror(errno) : "out of memory");
	}
	w->t0_ns = w->last_flush_ns = mono_ns();
	w->timestamps = timestamps;
	*wp = w;
	return CX_OK;
}

static void put(struct trace_writer *w, const void *p, size_t n)
{
	if (!w->failed && n && gzwrite(w->gz, p, (unsigned)n) != (int)n)
		w->failed = true;
}

static void flush(struct trace_writer *w, uint64_t now)
{
	put(w, w->buf, w->len);
	w->len = 0;
	if (!w->failed && gzflush(w->gz, Z_SYNC_FLUSH) != Z_OK)
		w->failed = true;
	w->last_flush_ns = now;
}

void trace_write_header(struct trace_writer *w, const char *lines)
{
	if (w->header)
		return;
	w->header = true;
	put(w, TR_MAGIC, strlen(TR_MAGIC));
	put(w, lines, strlen(lines));
	put(w, "\n", 1);
}

bool trace_has_header(const struct trace_writer *w)
{
	return w->header;
}

static void add(struct trace_writer *w, struct tr_rec *r)
{
	uint64_t now = w->timestamps ? mono_ns() : w->t0_ns;

	trace_write_header(w, "");
	r->t_us = (now - w->t0_ns) / 1000;
	w->len += tr_encode(&w->s, r, w->buf + w->len);
	if (r->kind == TR_NOTE || w->len >= TR_FLUSH_BYTES || now - w->last_flush_ns >= TR_FLUSH_MS * 1000000ull)
		flush(w, now);
}

void trace_write_access(struct trace_writer *w, enum tr_kind kind, uint32_t off, uint32_t val, bool failed)
{
	struct tr_rec r = {.kind = kind, .off = off, .val = val, .failed = failed};

	add(w, &r);
}

void trace_write_sleep(struct trace_writer *w, unsigned us)
{
	struct tr_rec r = {.kind = TR_SLEEP, .val = us};

	add(w, &r);
}

void trace_write_note(struct trace_writer *w, const char *fmt, ...)
{
	struct tr_rec r = {.kind = TR_NOTE};
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(r.note, sizeof(r.note), fmt, ap);
	va_end(ap);
	r.note_len = n < 0 ? 0 : (size_t)n > TR_NOTE_MAX ? TR_NOTE_MAX : (size_t)n;
	add(w, &r);
}

int trace_writer_close(struct trace_writer *w, struct cx_status *st)
{
	bool failed;

	if (!w)
		return CX_OK;
	trace_write_note(w, "end");
	failed = w->failed;
	if (gzclose(w->gz) != Z_OK)
		failed = true;
	free(w);
	return failed ? cx_fail(st, CX_EIO, "the trace could not be written completely (disk full?)") : CX_OK;
}

/* --- the recorders: forward, then log --------------------------------------------- */

struct rec_cfg {
	struct cfg_dev inner;
	struct trace_writer *w;
};

static int rc_read(void *ctx, unsigned off, uint32_t *val)
{
	struct rec_cfg *r = ctx;
	int rc = cfg_read(&r->inner, off, val);

	trace_write_access(r->w, TR_CFG_READ, off, rc ? 0 : *val, rc != 0);
	return rc;
}

static int rc_write(void *ctx, unsigned off, uint32_t val)
{
	struct rec_cfg *r = ctx;

	/* Logged before it is made: a write that hangs the machine is in the file. */
	trace_write_access(r->w, TR_CFG_WRITE, off, val, false);
	return cfg_write(&r->inner, off, val);
}

static void rc_sleep(void *ctx, unsigned us)
{
	struct rec_cfg *r = ctx;

	trace_write_sleep(r->w, us);
	cfg_sleep_us(&r->inner, us);
}

static int rc_lock(void *ctx)
{
	return cfg_lock(&((struct rec_cfg *)ctx)->inner);
}

static void rc_unlock(void *ctx)
{
	cfg_unlock(&((struct rec_cfg *)ctx)->inner);
}

static void rc_close(void *ctx)
{
	struct rec_cfg *r = ctx;

	cfg_close(&r->inner);
	trace_write_note(r->w, "close");
	free(r);
}

static const struct cfg_ops rec_cfg_ops = {
	.name = "record", .read = rc_read, .write = rc_write, .sleep_us = rc_sleep,
	.close = rc_close, .lock = rc_lock, .unlock = rc_unlock,
};

int trace_record_cfg(struct cfg_dev *d, struct trace_writer *w, struct cx_status *st)
{
	struct rec_cfg *r = malloc(sizeof(*r));

	if (!r)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	*r = (struct rec_cfg){.inner = *d, .w = w};
	d->ops = &rec_cfg_ops;
	d->ctx = r;
	return CX_OK;
}

struct rec_mem {
	struct crmem inner;
	struct trace_writer *w;
};

static uint32_t rm_read(void *ctx, uint32_t off)
{
	struct rec_mem *r = ctx;
	uint32_t v = r->inner.ops->read(r->inner.ctx, off);

	trace_write_access(r->w, TR_MEM_READ, off, v, false);
	return v;
}

static void rm_write(void *ctx, uint32_t off, uint32_t val)
{
	struct rec_mem *r = ctx;

	trace_write_access(r->w, TR_MEM_WRITE, off, val, false);
	r->inner.ops->write(r->inner.ctx, off, val);
}

static void rm_close(void *ctx)
{
	struct rec_mem *r = ctx;

	crmem_close(&r->inner);
	free(r);
}

static const struct crmem_ops rec_mem_ops = {.name = "record", .read = rm_read, .write = rm_write, .close = rm_close};

int trace_record_mem(struct crmem *m, struct trace_writer *w, struct cx_status *st)
{
	struct rec_mem *r;

	if (!m->ops)
		return CX_OK;
	if (!(r = malloc(sizeof(*r))))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	*r = (struct rec_mem){.inner = *m, .w = w};
	m->ops = &rec_mem_ops;
	m->ctx = r;
	return CX_OK;
}
