/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_in.c — reading a cxflash trace, one byte at a time from zlib. */
#include "trace_in.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAGIC "CXTRACE 1\n"
#define HEADER_MAX 4096

struct tin {
	gzFile gz;
	char header[HEADER_MAX + 1];
	uint32_t last_off[2];      /* config, BAR0 */
	uint32_t last_val[6];      /* per record kind */
	uint64_t us;
	uint64_t records;
	bool cut;                  /* the data ended inside a record or the stream broke off */
	bool complete;
};

/* The next byte, or -1 at the end of the data. A stream cut short (zlib's
 * Z_BUF_ERROR after the last flush) ends the data like a clean end. */
static int byte(struct tin *t)
{
	return gzgetc(t->gz);
}

static int leb128(struct tin *t, uint64_t *v)
{
	int b, shift = 0;

	*v = 0;
	do {
		if (shift > 63 || (b = byte(t)) < 0)
			return -1;
		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return 0;
}

struct tin *tin_open(const char *path, char *err, size_t errlen)
{
	struct tin *t = calloc(1, sizeof(*t));
	size_t n = 0, m = strlen(MAGIC);
	int c;

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!(t->gz = gzopen(path, "rb"))) {
		snprintf(err, errlen, "cannot open %s", path);
		free(t);
		return NULL;
	}
	for (size_t i = 0; i < m; i++)
		if (byte(t) != MAGIC[i]) {
			snprintf(err, errlen, "%s is not a cxflash trace", path);
			tin_close(t);
			return NULL;
		}
	/* Header lines until an empty one. */
	while ((c = byte(t)) >= 0 && !(c == '\n' && (n == 0 || t->header[n - 1] == '\n')) && n < HEADER_MAX)
		t->header[n++] = (char)c;
	if (c != '\n') {
		snprintf(err, errlen, "%s: the header never ends", path);
		tin_close(t);
		return NULL;
	}
	t->header[n] = '\0';
	return t;
}

const char *tin_header(const struct tin *t, const char *key)
{
	static char out[HEADER_MAX + 1];
	size_t k = strlen(key);
	const char *p = t->header;

	while (*p) {
		size_t len = strcspn(p, "\n");
		if (len > k && p[k] == '=' && !memcmp(p, key, k)) {
			snprintf(out, sizeof(out), "%.*s", (int)(len - k - 1), p + k + 1);
			return out;
		}
		p += len + (p[len] == '\n');
	}
	return "";
}

/* After the tag (and time): the offset and value of an access or sleep, or a note's text. */
static int body(struct tin *t, int tag, struct tin_rec *r)
{
	uint64_t v;
	int mode = (tag >> 5) & 3;

	if (r->kind == TIN_NOTE) {
		if (leb128(t, &v) || v == 0 || v >= sizeof(r->text))
			return -1;
		for (uint64_t i = 0; i < v; i++) {
			int c = byte(t);
			if (c < 0)
				return -1;
			r->text[i] = (char)c;
		}
		r->text[v] = '\0';
		return 0;
	}
	if (r->kind != TIN_SLEEP) {
		int space = r->kind == TIN_BAR_RD || r->kind == TIN_BAR_WR;
		if (!(tag & 0x10)) {
			if (leb128(t, &v))
				return -1;
			/* zigzag: even = +v/2, odd = -(v+1)/2 */
			t->last_off[space] += (v & 1) ? (uint32_t)(0 - ((v + 1) / 2)) : (uint32_t)(v / 2);
		}
		r->off = t->last_off[space];
	}
	if (mode == 0) {
		r->val = t->last_val[r->kind];
	} else if (mode == 1) {
		if (leb128(t, &v) || v > 0xffffffffu)
			return -1;
		r->val = (uint32_t)v;
	} else if (mode == 2) {
		r->val = 0;
		for (int i = 0; i < 4; i++) {
			int c = byte(t);
			if (c < 0)
				return -1;
			r->val |= (uint32_t)c << (8 * i);
		}
	} else {
		return -1;
	}
	t->last_val[r->kind] = r->val;
	return 0;
}

int tin_next(struct tin *t, struct tin_rec *r, char *err, size_t errlen)
{
	uint64_t dt = 0;
	int tag, zerr;

	if (t->complete || t->cut)
		return 0;
	if ((tag = byte(t)) < 0) {
		gzerror(t->gz, &zerr);
		if (zerr != Z_OK && zerr != Z_BUF_ERROR) {
			snprintf(err, errlen, "the compressed data is damaged after record %llu",
				 (unsigned long long)t->records);
			return -1;
		}
		return 0;
	}
	memset(r, 0, sizeof(*r));
	r->kind = (enum tin_kind)(tag & 7);
	r->failed = (tag & 8) != 0;
	if ((tag & 7) > TIN_NOTE) {
		snprintf(err, errlen, "record %llu: kind %d is not one of the format's",
			 (unsigned long long)t->records + 1, tag & 7);
		return -1;
	}
	if (((tag & 0x80) && leb128(t, &dt)) || body(t, tag, r)) {
		/* Ran out of data inside the record: cut short (dropped), or garbage. */
		gzerror(t->gz, &zerr);
		if (gzeof(t->gz) || zerr == Z_BUF_ERROR) {
			t->cut = true;
			return 0;
		}
		snprintf(err, errlen, "record %llu is damaged", (unsigned long long)t->records + 1);
		return -1;
	}
	t->us += dt;
	r->us = t->us;
	t->records++;
	if (r->kind == TIN_NOTE && !strcmp(r->text, "end"))
		t->complete = true;
	return 1;
}

bool tin_complete(const struct tin *t)
{
	return t->complete;
}

void tin_close(struct tin *t)
{
	if (t) {
		gzclose(t->gz);
		free(t);
	}
}
