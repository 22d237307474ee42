/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.h — a tiny streaming JSON writer for --json output.
 *
 * Objects and arrays nest up to JSON_DEPTH; the writer adds the commas.
 * Strings are escaped per RFC 8259, with bytes outside printable ASCII
 * written as \u00XX so output is always valid UTF-8. util/json_read.h reads
 * it back (those \u00XX as the bytes they stand for).
 */
#ifndef CX_JSON_H
#define CX_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH 8

struct json {
	FILE *out;
	int depth;
	bool first[JSON_DEPTH];
	char close[JSON_DEPTH]; /* the bracket that closes each level */
};

void json_begin(struct json *j, FILE *out);        /* opens the top-level object */
void json_end(struct json *j);                     /* closes it, adds a newline */
void json_obj(struct json *j, const char *key);    /* key may be NULL inside arrays */
void json_arr(struct json *j, const char *key);
void json_close(struct json *j);                   /* closes the innermost obj/arr */
void json_str(struct json *j, const char *key, const char *v);
void json_strn(struct json *j, const char *key, const char *v, size_t n);
void json_int(struct json *j, const char *key, long long v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* key: an object of string members from a NULL-ended list of name, value pairs; key: null
 * when the list is NULL (a part of a record that is absent). */
void json_pairs(struct json *j, const char *key, const char *const *pairs);
void json_hex(struct json *j, const char *key, uint64_t v, int width); /* "0x...." string */

#endif
