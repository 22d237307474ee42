/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The FW_CONF section (type 9): the board .ini, zlib-compressed (fs2-format.md §1.4, §5). */
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#include "sections.h"

#define INI_MAX_SIZE	(1u << 20)	/* far above any board .ini */

static char *read_text_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *text;

	if (!f) {
		perror(path);
		return NULL;
	}
	text = malloc(INI_MAX_SIZE + 1);
	if (!text) {
		fclose(f);
		fprintf(stderr, "mkfs2: out of memory\n");
		return NULL;
	}
	*len = fread(text, 1, INI_MAX_SIZE + 1, f);
	if (ferror(f) || *len > INI_MAX_SIZE) {
		fprintf(stderr, "mkfs2: %s: %s\n", path,
			ferror(f) ? "read error" : "larger than 1 MiB");
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	text[*len] = '\0';
	return text;
}

int fw_conf_data(struct buf *b, const struct config *c)
{
	size_t text_len = 0;
	char *text;
	uLongf zlen;
	Bytef *z;
	int rc;

	if (c->ini_file) {
		text = read_text_file(c->ini_file, &text_len);
	} else {
		text = ini_default_text(c);
		if (text)
			while (text[text_len])
				text_len++;
	}
	if (!text)
		return -1;

	/* mstflint `dc` runs zlib uncompress() over the whole section (§3.4). */
	zlen = compressBound(text_len);
	z = malloc(zlen);
	if (!z) {
		free(text);
		fprintf(stderr, "mkfs2: out of memory\n");
		return -1;
	}
	rc = compress2(z, &zlen, (const Bytef *)text, text_len, Z_BEST_COMPRESSION);
	free(text);
	if (rc != Z_OK) {
		free(z);
		fprintf(stderr, "mkfs2: zlib compress2 failed (%d)\n", rc);
		return -1;
	}
	buf_append(b, z, zlen);	/* sect_end pads it to a dword with zeros */
	free(z);
	return 0;
}
