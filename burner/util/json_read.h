/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json_read.h — a small, strict JSON reader for records cxflash reads back
 * (a backup bundle's identity.json); util/json.h writes them.
 *
 * json_read() reads one JSON object (RFC 8259) from len bytes of text, which
 * need not be NUL-terminated and are never read past, and calls fn for every
 * scalar in it, in the order of the text, with its path:
 *
 *   {"a": 1, "b": {"c": "x", "d": null}, "e": [true, {"f": 2}]}
 *   fn("a", JSON_NUMBER, "1")    fn("b.c", JSON_STRING, "x")   fn("b.d", JSON_NULL, "null")
 *   fn("[]", JSON_BOOL, "true")  fn("[].f", JSON_NUMBER, "2")
 *
 * A path is the keys from the outer object down, joined by '.'. A member of an
 * array has the path "[]", whatever holds the array: arrays are read and
 * checked, but what is in them has no name (a record we read keeps its fields
 * in objects). A key holding '.' is not told apart: {"a.b":1} gives "a.b" as
 * {"a":{"b":1}} does. Empty objects and arrays call nothing. A key that comes
 * twice is not refused: fn sees each, in order, and decides what a repeat means.
 *
 * What fn is given (NUL-terminated, valid until fn returns):
 *   JSON_STRING  the decoded bytes, never a NUL (\u0000 is refused). Escapes:
 *                \" \\ \/ \b \f \n \r \t, and \uXXXX (hex, either case):
 *                0001-00FF gives that one byte, as util/json.c writes every byte
 *                outside printable ASCII, so any byte string comes back as it
 *                went; 0100-FFFF gives its UTF-8 (2 or 3 bytes), a surrogate
 *                half on its own (pairs are not joined). Other bytes are taken
 *                as they are: the text is not checked to be UTF-8.
 *   JSON_NUMBER  the number as written, checked against RFC 8259's grammar
 *                ("-0.5e+3" passes; "01", "+1", "1.", ".5", "1e" do not). Its
 *                range is the caller's: json_read_uint() reads a whole number.
 *   JSON_BOOL    "true" or "false".   JSON_NULL  "null".
 *
 * Refused: anything but whitespace (space, tab, CR, LF) around the one object;
 * a key that is not a string; a missing ':' or ','; a trailing comma; a raw
 * control byte (< 0x20) in a string; an unknown escape or a \u without four
 * hex digits; a misspelt true, false or null; and the limits:
 *
 *   JSON_READ_DEPTH     objects and arrays nested, the outer object included
 *   JSON_READ_KEY_MAX   a key, decoded, is shorter than this
 *   JSON_READ_PATH_MAX  a path is shorter than this
 *   JSON_READ_STR_MAX   a string value, decoded, is shorter than this
 *   JSON_READ_NUM_MAX   a number's text is shorter than this
 *
 * A record we write is far inside them (identity.json's longest value, the
 * VSD, is 208 bytes); nothing beyond them is cut short, it is refused. The
 * text's own size is the caller's to limit (file_read() takes a maximum).
 * The reader recurses once per level, so its stack is bounded by the depth;
 * it allocates nothing.
 *
 * Errors: CX_EIMAGE with "<name>: <what>" in st, name being what the user
 * knows the text as: "identity.json: expected ':'", "identity.json: nested
 * too deep". fn returns CX_OK to go on; anything else stops the reading at
 * once and json_read() returns it (fn says why in st, with cx_fail()). Scalars
 * before a syntax error have been handed to fn: a caller that needs the whole
 * record valid acts on what it gathered only when json_read() returns CX_OK.
 */
#ifndef CX_JSON_READ_H
#define CX_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

#define JSON_READ_DEPTH 8
#define JSON_READ_KEY_MAX 64
#define JSON_READ_PATH_MAX 96
#define JSON_READ_STR_MAX 512
#define JSON_READ_NUM_MAX 64

enum json_kind { JSON_STRING, JSON_NUMBER, JSON_BOOL, JSON_NULL };

typedef int (*json_scalar_fn)(void *ctx, const char *path, enum json_kind kind, const char *value,
			      struct cx_status *st);

int json_read(const char *text, size_t len, const char *name, json_scalar_fn fn, void *ctx,
	      struct cx_status *st);

/* A JSON_NUMBER that is a whole number from 0 to max (digits only: no sign,
 * fraction or exponent) into *v; false, and *v untouched, otherwise. */
bool json_read_uint(const char *value, uint64_t max, uint64_t *v);

/* A string of 1 to maxdigits hex digits (either case, nothing else), as
 * json_hex() writes them, into *v; false, and *v untouched, otherwise.
 * maxdigits is at most 16. */
bool json_read_hex(const char *value, unsigned maxdigits, uint64_t *v);

#endif
