/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3seed.c — write FS3/FS4 images from the tests' builder (fs3_builder.h) to files:
 * the fuzzer's FS3/FS4 seeds (tests/fuzz-corpus.sh) and the CLI tests' images
 * (tests/test_cxflash_fs3.py). Not a generator of real images: a test fixture.
 *
 *   fs3seed KIND OUT      KIND: fs3, fs4, fs4-hashes, fs4-signed, fs3-nooverride, fs4-noini, fs3-olduids,
 *                        fs4-devkeys
 */
#include <stdio.h>
#include <string.h>

#include "fs3_builder.h"

static struct f3 b;

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: fs3seed fs3|fs4|fs4-hashes|fs4-signed|fs3-nooverride|fs4-noini|fs3-olduids|fs4-devkeys OUT\n");
		return 2;
	}
	const char *k = argv[1];
	struct f3_spec s = f3_defaults(!strncmp(k, "fs4", 3));
	s.rom = true;
	s.ini = strcmp(k, "fs4-noini") != 0;
	s.hashes = !strcmp(k, "fs4-hashes");
	s.override_en = strcmp(k, "fs3-nooverride") != 0;
	s.old_uids = !strcmp(k, "fs3-olduids");
	f3_build(&b, &s);
	if (!strcmp(k, "fs4-signed") || !strcmp(k, "fs4-devkeys")) {
		f3_add(&b, 0xa0, 0xa000, 0x140, F3_IN_ENTRY, false); /* IMAGE_SIGNATURE_256 */
		f3_add(&b, 0xa1, 0xb000, 0x400, F3_IN_ENTRY, false); /* PUBLIC_KEYS_2048 */
		if (k[4] == 'd') { /* keypair UUID of development keys: dword 2 low half 0, dword 3 0 */
			f3_put32(b.buf + 0xa000 + 0x18, 0x12340000);
			f3_put32(b.buf + 0xa000 + 0x1c, 0);
		}
		f3_write(&b);
	}
	FILE *f = fopen(argv[2], "wb");
	if (!f || fwrite(b.buf, 1, b.len, f) != b.len || fclose(f)) {
		perror(argv[2]);
		return 1;
	}
	return 0;
}
