/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sha256.h — SHA-256 as FIPS 180-4 §6.2 specifies it, for backup bundles.
 *
 * Plain and portable (no tables beyond the 64 round constants, no CPU
 * extensions): a backup hashes a few MiB, which this does in milliseconds.
 * Feed any number of pieces of any size to sha256_update(); the digest is the
 * same as hashing their concatenation at once.
 */
#ifndef CX_SHA256_H
#define CX_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32                  /* digest bytes */
#define SHA256_HEX_LEN (2 * SHA256_LEN) /* lowercase hex digits, without the NUL */

struct sha256 {
	uint32_t h[8];
	uint64_t bytes;    /* message length so far */
	uint8_t block[64]; /* a partial block */
	unsigned used;     /* bytes in block[] */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* Pads, writes the digest and leaves s to be re-initialised before reuse. */
void sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN]);

/* One-shot digest of len bytes. */
void sha256(const void *data, size_t len, uint8_t out[SHA256_LEN]);

/* Lowercase hex of a digest into hex[SHA256_HEX_LEN + 1]; returns hex. */
char *sha256_hex(const uint8_t d[SHA256_LEN], char hex[SHA256_HEX_LEN + 1]);

#endif
