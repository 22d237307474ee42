/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rom_insert_tool.c — test helper: burner/image/rom_insert.h from the command line, so the
 * oracle test can compare its output with what mstflint burns:
 *   rom-insert IMAGE CARD_IMAGE OUT   splice CARD_IMAGE's ROM into IMAGE, write OUT.
 * Both inputs are contiguous images. Exit 0 on success, else the status code with the
 * one-line message on standard error. Built by tests/test_rom_insert_oracle.py itself. */
#include <stdio.h>
#include <stdlib.h>

#include "image/fs2.h"
#include "image/rom_insert.h"
#include "util/fileio.h"

#define MAX_FILE (64u << 20) /* larger than any FS2 image (FS2_MAX_IMAGE) */

int main(int argc, char **argv)
{
	struct cx_status st = {0};
	static struct fs2_image card;
	uint8_t *img = NULL, *cbuf = NULL, *out = NULL;
	size_t len, clen, out_len, rom_len;
	const uint8_t *rom;
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: %s IMAGE CARD_IMAGE OUT\n", argv[0]);
		return 2;
	}
	if (!(rc = file_read(argv[1], MAX_FILE, &img, &len, &st)) &&
	    !(rc = file_read(argv[2], MAX_FILE, &cbuf, &clen, &st)) &&
	    !(rc = fs2_parse(cbuf, clen, &card, &st)) &&
	    !(rc = rom_sect_data(&card, &rom, &rom_len, &st)) &&
	    !(rc = rom_insert(img, len, rom, rom_len, &out, &out_len, &st)))
		rc = file_write(argv[3], out, out_len, &st);
	if (rc)
		fprintf(stderr, "rom-insert: %s\n", st.msg);
	free(img);
	free(cbuf);
	free(out);
	return rc;
}
