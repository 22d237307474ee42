/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbuf.h — a growing text buffer with printf and JSON string escaping. */
#ifndef CXSIM_SBUF_H
#define CXSIM_SBUF_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf {
	char *p;        /* NUL-terminated; NULL until the first append */
	size_t len, cap;
	bool oom;       /* an allocation failed: the text is truncated */
};

void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string literal, quotes included. */
void sb_json_str(struct sbuf *b, const char *s);
void sb_free(struct sbuf *b);

#endif
