/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bytes.h — big-endian field access. Every multi-byte FS2 field is big-endian
 * (fs2-format.md §0), whatever the host is. */
#ifndef CX_BYTES_H
#define CX_BYTES_H

#include <stdint.h>

static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static inline void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, v >> 32);
	put_be32(p + 4, (uint32_t)v);
}

static inline uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[1] << 8 | p[0]);
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Sum of the four bytes of a dword; the FS2 "checksum byte" rule wants 0. */
static inline uint8_t byte_sum32(uint32_t v)
{
	return (uint8_t)((v & 0xff) + (v >> 8 & 0xff) + (v >> 16 & 0xff) + (v >> 24));
}

#endif
