/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growable byte buffer with big-endian append helpers. */
#include "buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "be.h"

#define BUF_MIN_CAP	4096

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* Grow so len more bytes fit and return where they go. */
static uint8_t *buf_grow(struct buf *b, size_t len, size_t *off)
{
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : BUF_MIN_CAP;
		uint8_t *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->data, cap);
		if (!p) {
			fprintf(stderr, "mkfs2: out of memory\n");
			exit(1);
		}
		b->data = p;
		b->cap = cap;
	}
	*off = b->len;
	b->len += len;
	return b->data + *off;
}

size_t buf_append(struct buf *b, const void *p, size_t len)
{
	size_t off;
	uint8_t *dst = buf_grow(b, len, &off);

	if (len)
		memcpy(dst, p, len);
	return off;
}

size_t buf_append_be32(struct buf *b, uint32_t v)
{
	size_t off;

	put_be32(buf_grow(b, 4, &off), v);
	return off;
}

size_t buf_append_byte(struct buf *b, uint8_t v, size_t count)
{
	size_t off;
	uint8_t *dst = buf_grow(b, count, &off);

	if (count)
		memset(dst, v, count);
	return off;
}

size_t buf_append_rand(struct buf *b, struct rng *r, size_t len)
{
	size_t off;

	rng_fill(r, buf_grow(b, len, &off), len);
	return off;
}
