/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A growable byte buffer that the image is appended into. */
#ifndef MKFS2_BUF_H
#define MKFS2_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

struct buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

void buf_free(struct buf *b);
/* Each append returns the offset the new bytes start at; allocation failure exits. */
size_t buf_append(struct buf *b, const void *p, size_t len);
size_t buf_append_be32(struct buf *b, uint32_t v);
size_t buf_append_byte(struct buf *b, uint8_t v, size_t count);
size_t buf_append_rand(struct buf *b, struct rng *r, size_t len);

#endif
