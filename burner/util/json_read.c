/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json_read.c — a strict, bounded JSON reader (see json_read.h). */
#include <stdio.h>
#include <string.h>

#include "util/json_read.h"

struct reader {
	const char *p, *end;
	const char *name;              /* for messages */
	json_scalar_fn fn;
	void *ctx;
	struct cx_status *st;
	char buf[JSON_READ_STR_MAX];   /* the key or scalar being read */
};

static int fail(struct reader *r, const char *what)
{
	return cx_fail(r->st, CX_EIMAGE, "%s: %s", r->name, what);
}

static void skip_ws(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static bool at(const struct reader *r, char c)
{
	return r->p < r->end && *r->p == c;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* What follows a backslash, into *v (a byte, or a code point from \u). */
static int escape(struct reader *r, unsigned *v)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";

	if (r->p >= r->end)
		return fail(r, "unterminated string");
	char c = *r->p++;
	const char *e = c ? strchr(from, c) : NULL;
	if (e) {
		*v = (unsigned char)to[e - from];
		return CX_OK;
	}
	if (c != 'u')
		return fail(r, "bad escape in a string");
	if (r->end - r->p < 4)
		return fail(r, "bad \\u escape");
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(r->p[i]);
		if (h < 0)
			return fail(r, "bad \\u escape");
		*v = *v << 4 | (unsigned)h;
	}
	r->p += 4;
	return *v ? CX_OK : fail(r, "NUL in a string");
}

/* v as stored: one byte below 0x100 (see json_read.h), else UTF-8. */
static size_t encode(unsigned v, unsigned char out[3])
{
	if (v < 0x100) {
		out[0] = (unsigned char)v;
		return 1;
	}
	if (v < 0x800) {
		out[0] = (unsigned char)(0xC0 | v >> 6);
		out[1] = (unsigned char)(0x80 | (v & 0x3F));
		return 2;
	}
	out[0] = (unsigned char)(0xE0 | v >> 12);
	out[1] = (unsigned char)(0x80 | ((v >> 6) & 0x3F));
	out[2] = (unsigned char)(0x80 | (v & 0x3F));
	return 3;
}

/* The string at r->p (its opening quote), decoded into r->buf, shorter than cap. */
static int string(struct reader *r, size_t cap)
{
	size_t n = 0;

	r->p++;
	for (;;) {
		if (r->p >= r->end)
			return fail(r, "unterminated string");
		unsigned char c = (unsigned char)*r->p++, enc[3];
		unsigned v = c; /* a raw byte, UTF-8 or not */
		if (c == '"')
			break;
		if (c < 0x20)
			return fail(r, "control character in a string");
		if (c == '\\' && escape(r, &v))
			return r->st->code;
		size_t k = encode(v, enc);
		if (n + k >= cap)
			return fail(r, "string too long");
		memcpy(r->buf + n, enc, k);
		n += k;
	}
	r->buf[n] = '\0';
	return CX_OK;
}

static void digits(struct reader *r)
{
	while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
		r->p++;
}

static bool digit_here(const struct reader *r)
{
	return r->p < r->end && *r->p >= '0' && *r->p <= '9';
}

/* A number per RFC 8259's grammar, its text copied into r->buf. */
static int number(struct reader *r)
{
	const char *s = r->p;

	if (at(r, '-'))
		r->p++;
	if (!digit_here(r))
		return fail(r, "bad number");
	if (*r->p == '0')
		r->p++;
	else
		digits(r);
	if (at(r, '.')) {
		r->p++;
		if (!digit_here(r))
			return fail(r, "bad number");
		digits(r);
	}
	if (at(r, 'e') || at(r, 'E')) {
		r->p++;
		if (at(r, '+') || at(r, '-'))
			r->p++;
		if (!digit_here(r))
			return fail(r, "bad number");
		digits(r);
	}
	if ((size_t)(r->p - s) >= JSON_READ_NUM_MAX)
		return fail(r, "number too long");
	memcpy(r->buf, s, (size_t)(r->p - s));
	r->buf[r->p - s] = '\0';
	return CX_OK;
}

static int value(struct reader *r, const char *path, int depth);

/* The members of the object or array whose bracket is at r->p. */
static int members(struct reader *r, const char *path, int depth)
{
	bool object = *r->p++ == '{';
	char close = object ? '}' : ']', child[JSON_READ_PATH_MAX];

	skip_ws(r);
	if (at(r, close)) {
		r->p++;
		return CX_OK;
	}
	for (;;) {
		skip_ws(r);
		if (object) {
			if (!at(r, '"'))
				return fail(r, "expected a key");
			if (string(r, JSON_READ_KEY_MAX))
				return r->st->code;
			if ((size_t)snprintf(child, sizeof(child), "%s%s%s", path, *path ? "." : "", r->buf) >=
			    sizeof(child))
				return fail(r, "key path too long");
			skip_ws(r);
			if (!at(r, ':'))
				return fail(r, "expected ':'");
			r->p++;
		} else {
			snprintf(child, sizeof(child), "[]");
		}
		int rc = value(r, child, depth + 1);
		if (rc)
			return rc;
		skip_ws(r);
		if (at(r, ',')) {
			r->p++;
			continue;
		}
		if (at(r, close)) {
			r->p++;
			return CX_OK;
		}
		return fail(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int value(struct reader *r, const char *path, int depth)
{
	static const struct {
		const char *word;
		enum json_kind kind;
	} words[] = {{"true", JSON_BOOL}, {"false", JSON_BOOL}, {"null", JSON_NULL}};

	skip_ws(r);
	if (r->p >= r->end)
		return fail(r, "ends too early");
	char c = *r->p;
	if (c == '{' || c == '[')
		return depth >= JSON_READ_DEPTH ? fail(r, "nested too deep") : members(r, path, depth);
	if (c == '"')
		return string(r, JSON_READ_STR_MAX) ? r->st->code : r->fn(r->ctx, path, JSON_STRING, r->buf, r->st);
	for (unsigned i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t l = strlen(words[i].word);
		if ((size_t)(r->end - r->p) >= l && !memcmp(r->p, words[i].word, l)) {
			r->p += l;
			return r->fn(r->ctx, path, words[i].kind, words[i].word, r->st);
		}
	}
	if (c == '-' || (c >= '0' && c <= '9'))
		return number(r) ? r->st->code : r->fn(r->ctx, path, JSON_NUMBER, r->buf, r->st);
	return fail(r, "unexpected character");
}

int json_read(const char *text, size_t len, const char *name, json_scalar_fn fn, void *ctx,
	      struct cx_status *st)
{
	struct reader r = {.p = text, .end = text + len, .name = name, .fn = fn, .ctx = ctx, .st = st};
	int rc;

	skip_ws(&r);
	if (!at(&r, '{'))
		return fail(&r, "not a JSON object");
	if ((rc = value(&r, "", 0)))
		return rc;
	skip_ws(&r);
	if (r.p != r.end)
		return fail(&r, "text after the object");
	return CX_OK;
}

bool json_read_uint(const char *value, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (!*value)
		return false;
	for (const char *s = value; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		uint64_t digit = (uint64_t)(*s - '0');
		if (digit > max || x > (max - digit) / 10)
			return false;
		x = x * 10 + digit;
	}
	*v = x;
	return true;
}

bool json_read_hex(const char *value, unsigned maxdigits, uint64_t *v)
{
	size_t n = strlen(value);
	uint64_t x = 0;

	if (!n || n > maxdigits || n > 16)
		return false;
	for (size_t i = 0; i < n; i++) {
		int h = hexval(value[i]);
		if (h < 0)
			return false;
		x = x << 4 | (uint64_t)h;
	}
	*v = x;
	return true;
}
