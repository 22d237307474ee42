/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sha256.c — util/sha256: the FIPS 180-2/NIST example vectors, pieces of odd
 * sizes against one shot, and coreutils' sha256sum on random files of sizes around
 * the 64-byte block and the 56-byte padding boundary. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prng.h"
#include "util/sha256.h"

static void hex_of(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1])
{
	uint8_t d[SHA256_LEN];

	sha256(data, len, d);
	sha256_hex(d, hex);
}

static void expect(const char *msg, const char *want)
{
	char hex[SHA256_HEX_LEN + 1];

	hex_of(msg, strlen(msg), hex);
	assert_string_equal(hex, want);
}

/* NIST's examples (FIPS 180-2 appendix B, SHA256.pdf of the CSRC examples). */
static void test_nist_vectors(void **state)
{
	(void)state;
	expect("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	expect("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	expect("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	expect("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
	       "mnopqrstnopqrstu",
	       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");

	/* One million 'a': once as one buffer, once as 1000-byte updates. */
	char *a = malloc(1000000);
	assert_non_null(a);
	memset(a, 'a', 1000000);
	char hex[SHA256_HEX_LEN + 1];
	hex_of(a, 1000000, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	struct sha256 s;
	uint8_t d[SHA256_LEN];
	sha256_init(&s);
	for (int i = 0; i < 1000; i++)
		sha256_update(&s, a, 1000);
	sha256_final(&s, d);
	assert_string_equal(sha256_hex(d, hex), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);

	/* A NULL piece of length 0 changes nothing (and is not undefined behaviour). */
	sha256_init(&s);
	sha256_update(&s, NULL, 0);
	sha256_update(&s, "abc", 3);
	sha256_update(&s, NULL, 0);
	sha256_final(&s, d);
	assert_string_equal(sha256_hex(d, hex), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static uint32_t rng = 0x2545F491u; /* prng32 state */

/* Pieces of sizes 0, 1, 3, 7, ... 64, 65, 127, 200 in turn give the one-shot digest,
 * for every length around the block boundaries and for a long message. */
static void test_pieces_equal_one_shot(void **state)
{
	static const size_t sizes[] = {0, 1, 3, 7, 13, 55, 56, 57, 63, 64, 65, 127, 200, 4099};
	const size_t total = 70001;
	uint8_t *m = malloc(total), one[SHA256_LEN], inc[SHA256_LEN];
	(void)state;

	assert_non_null(m);
	for (size_t i = 0; i < total; i++)
		m[i] = (uint8_t)prng32(&rng);
	size_t lens[] = {0, 1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 128, 129, 1000, total};
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		for (size_t start = 0; start < sizeof(sizes) / sizeof(sizes[0]); start++) {
			struct sha256 s;
			size_t off = 0, k = start;
			sha256_init(&s);
			while (off < lens[l]) {
				size_t n = sizes[k++ % (sizeof(sizes) / sizeof(sizes[0]))];
				if (n > lens[l] - off)
					n = lens[l] - off;
				sha256_update(&s, m + off, n);
				off += n;
			}
			sha256_final(&s, inc);
			sha256(m, lens[l], one);
			if (memcmp(one, inc, SHA256_LEN))
				fail_msg("length %zu, pieces from %zu: incremental digest differs", lens[l], start);
		}
	}
	/* And a changed byte changes the digest (the comparison above can fail). */
	sha256(m, total, one);
	m[total / 2] ^= 1;
	sha256(m, total, inc);
	assert_memory_not_equal(one, inc, SHA256_LEN);
	free(m);
}

/* coreutils' sha256sum, an implementation that shares nothing with ours. */
static void test_against_sha256sum(void **state)
{
	static const size_t lens[] = {0, 1, 55, 56, 63, 64, 65, 111, 112, 4096, 65537, 1048576 + 3};
	(void)state;

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		char path[] = "/tmp/cx-sha256-XXXXXX", cmd[128], theirs[128] = "", ours[SHA256_HEX_LEN + 1];
		uint8_t *buf = malloc(lens[i] + 1);
		assert_non_null(buf);
		for (size_t k = 0; k < lens[i]; k++)
			buf[k] = (uint8_t)prng32(&rng);
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, buf, lens[i]), (ssize_t)lens[i]);
		close(fd);
		snprintf(cmd, sizeof(cmd), "sha256sum %s", path);
		FILE *p = popen(cmd, "r");
		assert_non_null(p);
		assert_non_null(fgets(theirs, sizeof(theirs), p));
		assert_int_equal(pclose(p), 0);
		unlink(path);
		hex_of(buf, lens[i], ours);
		if (strncmp(theirs, ours, SHA256_HEX_LEN) || theirs[SHA256_HEX_LEN] != ' ')
			fail_msg("length %zu: sha256sum says %.64s, we say %s", lens[i], theirs, ours);
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nist_vectors),
		cmocka_unit_test(test_pieces_equal_one_shot),
		cmocka_unit_test(test_against_sha256sum),
	};
	return cmocka_run_group_tests_name("sha256", tests, NULL, NULL);
}
