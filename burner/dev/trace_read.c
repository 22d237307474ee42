/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_read.c — the trace file reader: header, then records from a gzip stream
 * that may have been cut short. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "dev/trace_read.h"

#define BUF_SIZE (64u << 10)

struct trace_reader {
	gzFile gz;
	struct tr_state s;
	char header[TR_HEADER_MAX + 1];   /* "key=value\n" lines */
	uint8_t buf[BUF_SIZE];
	size_t pos, len;
	bool eof, complete;
	uint64_t nrec;                    /* records read, for messages */
};

/* More bytes after what is left unread; false at the end of the data. A file
 * cut short ends the data too (zlib: Z_BUF_ERROR); damaged data is an error. */
static int fill(struct trace_reader *r, struct cx_status *st)
{
	int errnum, n;

	if (r->eof)
		return 0;
	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->len -= r->pos;
	r->pos = 0;
	n = gzread(r->gz, r->buf + r->len, (unsigned)(BUF_SIZE - r->len));
	if (n > 0) {
		r->len += (size_t)n;
		return 1;
	}
	const char *msg = gzerror(r->gz, &errnum);
	r->eof = true;
	if (n < 0 && errnum != Z_BUF_ERROR)
		return cx_fail(st, CX_EIMAGE, "the trace is damaged after record %llu: %s",
			       (unsigned long long)r->nrec, errnum == Z_ERRNO ? strerror(errno) : msg), -1;
	return 0;
}

static int read_header(struct trace_reader *r, struct cx_status *st)
{
	size_t magic = strlen(TR_MAGIC);

	while (r->len < magic + 1 + TR_HEADER_MAX && !r->eof)
		if (fill(r, st) < 0)
			return st->code;
	if (r->len < magic || memcmp(r->buf, TR_MAGIC, magic))
		return cx_fail(st, CX_EIMAGE, "not a cxflash trace (no \"%.9s\" at its start)", TR_MAGIC);
	const uint8_t *h = r->buf + magic, *end = NULL;
	for (size_t i = 0; i + magic < r->len && i <= TR_HEADER_MAX; i++)
		if (h[i] == '\n' && (i == 0 || h[i - 1] == '\n')) {
			end = h + i;
			break;
		}
	if (!end)
		return cx_fail(st, CX_EIMAGE, "the trace's header is cut short or longer than %u bytes",
			       TR_HEADER_MAX);
	memcpy(r->header, h, (size_t)(end - h));
	r->header[end - h] = '\0';
	r->pos = (size_t)(end + 1 - r->buf);
	return CX_OK;
}

int trace_reader_open(struct trace_reader **rp, const char *path, struct cx_status *st)
{
	struct trace_reader *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	if (!(r->gz = gzopen(path, "rb"))) {
		free(r);
		return cx_fail(st, CX_EIO, "cannot open the trace %s: %s", path, errno ? strerror(errno) : "out of memory");
	}
	if ((rc = read_header(r, st))) {
		trace_reader_close(r);
		return rc;
	}
	*rp = r;
	return CX_OK;
}

const char *trace_header(const struct trace_reader *r, const char *key)
{
	size_t k = strlen(key);

	for (const char *line = r->header; *line;) {
		const char *nl = strchr(line, '\n');
		if (!strncmp(line, key, k) && line[k] == '=') {
			static char value[TR_HEADER_MAX + 1];  /* one answer at a time */
			size_t n = (nl ? (size_t)(nl - line) : strlen(line)) - k - 1;
			memcpy(value, line + k + 1, n);
			value[n] = '\0';
			return value;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	return NULL;
}

int trace_reader_next(struct trace_reader *r, struct tr_rec *rec, struct cx_status *st)
{
	for (;;) {
		int n = r->complete ? 0 : tr_decode(&r->s, r->buf + r->pos, r->len - r->pos, rec);
		if (n > 0) {
			r->pos += (size_t)n;
			r->nrec++;
			if (rec->kind == TR_NOTE && !strcmp(rec->note, "end"))
				r->complete = true;
			return 1;
		}
		if (n < 0)
			return cx_fail(st, CX_EIMAGE, "the trace is damaged at record %llu (byte %llu of its records)",
				       (unsigned long long)r->nrec + 1, (unsigned long long)r->pos), -1;
		if (r->complete)
			return 0;
		int more = fill(r, st);
		if (more < 0)
			return -1;
		if (!more)
			return 0;   /* cut short: a partial record at the end is dropped */
	}
}

bool trace_reader_complete(const struct trace_reader *r)
{
	return r->complete;
}

void trace_reader_close(struct trace_reader *r)
{
	if (!r)
		return;
	gzclose(r->gz);
	free(r);
}

bool trace_note_value(const char *note, const char *key, char *out, size_t outlen)
{
	size_t k = strlen(key);

	for (const char *p = strchr(note, ' '); p; p = strchr(p + 1, ' ')) {
		if (strncmp(p + 1, key, k) || p[1 + k] != '=')
			continue;
		const char *v = p + 2 + k;
		size_t n = strcspn(v, " ");
		if (n >= outlen)
			return false;
		memcpy(out, v, n);
		out[n] = '\0';
		return true;
	}
	return false;
}
