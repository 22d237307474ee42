/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c — streaming JSON output. */
#include <string.h>

#include "util/json.h"

static void put_string(FILE *o, const char *s, size_t n)
{
	fputc('"', o);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", o);
		else if (c == '\t')
			fputs("\\t", o);
		else if (c == '\r')
			fputs("\\r", o);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(o, "\\u%04x", c);
		else
			fputc(c, o);
	}
	fputc('"', o);
}

static void key(struct json *j, const char *k)
{
	if (!j->first[j->depth])
		fputc(',', j->out);
	j->first[j->depth] = false;
	if (k) {
		put_string(j->out, k, strlen(k));
		fputc(':', j->out);
	}
}

static void open(struct json *j, const char *k, char c, char closer)
{
	key(j, k);
	fputc(c, j->out);
	if (j->depth + 1 < JSON_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
	j->close[j->depth] = closer;
}

void json_begin(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->first[0] = true;
	fputc('{', out);
	j->depth = 1;
	j->first[1] = true;
}

void json_end(struct json *j)
{
	fputs("}\n", j->out);
	j->depth = 0;
}

void json_obj(struct json *j, const char *k) { open(j, k, '{', '}'); }
void json_arr(struct json *j, const char *k) { open(j, k, '[', ']'); }

void json_close(struct json *j)
{
	if (j->depth <= 1)
		return;
	fputc(j->close[j->depth], j->out);
	j->depth--;
}

void json_str(struct json *j, const char *k, const char *v)
{
	if (!v) {
		json_null(j, k);
		return;
	}
	json_strn(j, k, v, strlen(v));
}

void json_strn(struct json *j, const char *k, const char *v, size_t n)
{
	key(j, k);
	put_string(j->out, v, n);
}

void json_int(struct json *j, const char *k, long long v)
{
	key(j, k);
	fprintf(j->out, "%lld", v);
}

void json_bool(struct json *j, const char *k, bool v)
{
	key(j, k);
	fputs(v ? "true" : "false", j->out);
}

void json_null(struct json *j, const char *k)
{
	key(j, k);
	fputs("null", j->out);
}

void json_pairs(struct json *j, const char *k, const char *const *pairs)
{
	if (!pairs) {
		json_null(j, k);
		return;
	}
	json_obj(j, k);
	for (; pairs[0]; pairs += 2)
		json_str(j, pairs[0], pairs[1]);
	json_close(j);
}

void json_hex(struct json *j, const char *k, uint64_t v, int width)
{
	key(j, k);
	fprintf(j->out, "\"%0*llx\"", width, (unsigned long long)v);
}
