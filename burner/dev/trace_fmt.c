/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_fmt.c — encoding and decoding one trace record (the layout: trace_fmt.h). */
#include <string.h>

#include "dev/trace_fmt.h"

#define TAG_KIND 0x07u
#define TAG_FAILED 0x08u
#define TAG_SAME_OFF 0x10u
#define TAG_VAL_SHIFT 5
#define TAG_VAL_MASK 0x60u
#define TAG_TIME 0x80u
enum { VAL_SAME, VAL_VARINT, VAL_FIXED, VAL_BAD };

#define VARINT_MAX 10

static size_t put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	do {
		out[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

/* 0: incomplete, -1: longer than VARINT_MAX, else the bytes used. */
static int get_varint(const uint8_t *p, size_t n, uint64_t *v)
{
	*v = 0;
	for (size_t i = 0; i < VARINT_MAX; i++) {
		if (i >= n)
			return 0;
		*v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80))
			return (int)i + 1;
	}
	return -1;
}

static unsigned space(enum tr_kind k)
{
	return k == TR_MEM_READ || k == TR_MEM_WRITE;
}

static uint64_t zigzag(uint32_t now, uint32_t prev)
{
	int64_t d = (int64_t)now - (int64_t)prev;
	return d < 0 ? ((uint64_t)(-d) << 1) - 1 : (uint64_t)d << 1;
}

static uint32_t unzigzag(uint64_t z, uint32_t prev)
{
	int64_t d = z & 1 ? -(int64_t)((z + 1) >> 1) : (int64_t)(z >> 1);
	return (uint32_t)((int64_t)prev + d);
}

static size_t encode_value(struct tr_state *s, const struct tr_rec *r, uint8_t *tag, uint8_t *out)
{
	unsigned mode = r->val == s->val[r->kind] ? VAL_SAME : r->val < (1u << 21) ? VAL_VARINT : VAL_FIXED;
	size_t n = 0;

	*tag |= (uint8_t)(mode << TAG_VAL_SHIFT);
	if (mode == VAL_VARINT)
		n = put_varint(out, r->val);
	if (mode == VAL_FIXED) {
		for (; n < 4; n++)
			out[n] = (uint8_t)(r->val >> (8 * n));
	}
	s->val[r->kind] = r->val;
	return n;
}

size_t tr_encode(struct tr_state *s, const struct tr_rec *r, uint8_t *out)
{
	uint8_t tag = (uint8_t)r->kind;
	uint64_t dt = r->t_us > s->t_us ? r->t_us - s->t_us : 0;
	size_t n = 1;

	if (dt) {
		tag |= TAG_TIME;
		n += put_varint(out + n, dt);
	}
	s->t_us += dt;
	if (r->kind == TR_NOTE) {
		size_t len = r->note_len > TR_NOTE_MAX ? TR_NOTE_MAX : r->note_len;
		n += put_varint(out + n, len ? len : 1);
		memcpy(out + n, len ? r->note : " ", len ? len : 1);
		out[0] = tag;
		return n + (len ? len : 1);
	}
	if (r->failed)
		tag |= TAG_FAILED;
	if (tr_is_access(r->kind)) {
		unsigned sp = space(r->kind);
		if (r->off == s->off[sp])
			tag |= TAG_SAME_OFF;
		else
			n += put_varint(out + n, zigzag(r->off, s->off[sp]));
		s->off[sp] = r->off;
	}
	n += encode_value(s, r, &tag, out + n);
	out[0] = tag;
	return n;
}

#define INCOMPLETE (-2)  /* the decoders below: more bytes needed */

/* The value field at p[0..n): bytes used, INCOMPLETE, or -1 (bad). */
static int decode_value(struct tr_state *s, unsigned mode, const uint8_t *p, size_t n, struct tr_rec *r)
{
	uint64_t v;
	int k;

	switch (mode) {
	case VAL_SAME:
		r->val = s->val[r->kind];
		return 0;
	case VAL_VARINT:
		if ((k = get_varint(p, n, &v)) <= 0)
			return k ? -1 : INCOMPLETE;
		if (v > UINT32_MAX)
			return -1;
		r->val = (uint32_t)v;
		break;
	case VAL_FIXED:
		if (n < 4)
			return INCOMPLETE;
		r->val = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		k = 4;
		break;
	default:
		return -1;
	}
	s->val[r->kind] = r->val;
	return k;
}

static int decode_note(const uint8_t *p, size_t n, struct tr_rec *r)
{
	uint64_t len;
	int k = get_varint(p, n, &len);

	if (k <= 0)
		return k ? -1 : INCOMPLETE;
	if (!len || len > TR_NOTE_MAX)
		return -1;
	if (n < (size_t)k + len)
		return INCOMPLETE;
	memcpy(r->note, p + k, len);
	r->note[len] = '\0';
	r->note_len = len;
	return k + (int)len;
}

/* The offset, then the value: bytes used past the tag and time, INCOMPLETE, or -1. */
static int decode_fields(struct tr_state *s, uint8_t tag, const uint8_t *p, size_t n, struct tr_rec *r)
{
	size_t used = 0;
	uint64_t z;
	int k;

	if (tr_is_access(r->kind)) {
		unsigned sp = space(r->kind);
		if (!(tag & TAG_SAME_OFF)) {
			if ((k = get_varint(p, n, &z)) <= 0)
				return k ? -1 : INCOMPLETE;
			used += (size_t)k;
			s->off[sp] = unzigzag(z, s->off[sp]);
		}
		r->off = s->off[sp];
	} else if (tag & (TAG_SAME_OFF | TAG_FAILED)) {
		return -1;
	}
	k = decode_value(s, (tag & TAG_VAL_MASK) >> TAG_VAL_SHIFT, p + used, n - used, r);
	return k < 0 ? k : (int)(used + (size_t)k);
}

int tr_decode(struct tr_state *s, const uint8_t *p, size_t n, struct tr_rec *r)
{
	struct tr_state t = *s;   /* committed only when the whole record is there */
	size_t used = 1;
	uint64_t dt = 0;
	int k;

	if (!n)
		return 0;
	memset(r, 0, offsetof(struct tr_rec, note));
	r->kind = (enum tr_kind)(p[0] & TAG_KIND);
	r->failed = p[0] & TAG_FAILED;
	if (r->kind >= TR_NKINDS)
		return -1;
	if (p[0] & TAG_TIME) {
		if ((k = get_varint(p + 1, n - 1, &dt)) <= 0)
			return k;   /* 0: incomplete, -1: bad, as tr_decode's */
		used += (size_t)k;
	}
	t.t_us += dt;
	r->t_us = t.t_us;
	if (r->kind == TR_NOTE && (p[0] & ~(TAG_KIND | TAG_TIME)))
		return -1;
	k = r->kind == TR_NOTE ? decode_note(p + used, n - used, r) : decode_fields(&t, p[0], p + used, n - used, r);
	if (k < 0)
		return k == INCOMPLETE ? 0 : -1;
	*s = t;
	return (int)used + k;
}

const char *tr_kind_name(enum tr_kind k)
{
	static const char *const names[TR_NKINDS] = {
		[TR_CFG_READ] = "config read", [TR_CFG_WRITE] = "config write", [TR_MEM_READ] = "BAR0 read",
		[TR_MEM_WRITE] = "BAR0 write", [TR_SLEEP] = "sleep", [TR_NOTE] = "note",
	};
	return k < TR_NKINDS ? names[k] : "?";
}
