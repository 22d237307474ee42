/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mkfs3: writes a synthetic FS3/FS4 image or flash dump and its map (README.md). */
#include <stdio.h>

#include "crc16.h"
#include "hwcrc.h"
#include "image.h"
#include "options.h"

static int write_file(const char *path, const uint8_t *p, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f) {
		perror(path);
		return -1;
	}
	if (fwrite(p, 1, len, f) != len) {
		perror(path);
		fclose(f);
		return -1;
	}
	if (fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

static int selftest(void)
{
	int fail = crc16_selftest();

	fail |= hw_crc_selftest();
	printf("selftest %s\n", fail ? "FAILED" : "passed");
	return fail ? 1 : 0;
}

int main(int argc, char **argv)
{
	static struct config c;
	static struct image im;
	int rc = 1;

	switch (options_parse(argc, argv, &c)) {
	case PARSE_EXIT_OK: return 0;
	case PARSE_SELFTEST: return selftest();
	case PARSE_USAGE: usage(stderr); return EXIT_USAGE;
	case PARSE_OK: break;
	}
	if (image_plan(&im, &c) == 0) {
		image_assemble(&im);
		image_damage(&im);
		rc = write_file(c.out, im.d, im.out_len) ? 1 : 0;
		if (rc == 0 && c.map && map_write(&im.m, c.map))
			rc = 1;
	}
	image_free(&im);
	return rc;
}
