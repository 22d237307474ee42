/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mkimage.c — running mkfs2 for a test. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mkimage.h"

uint8_t *mkimage(const char *opts, size_t *len)
{
	char cmd[1024], path[] = "/tmp/cx-test-image-XXXXXX";
	const char *b = getenv("CXR_BUILD") ? getenv("CXR_BUILD") : "build";
	int fd = mkstemp(path);
	FILE *f;
	uint8_t *p = NULL;

	if (fd < 0)
		abort();
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s/host/mkfs2 -o %s %s", b, path, opts);
	if (system(cmd) != 0 || !(f = fopen(path, "rb"))) {
		fprintf(stderr, "mkimage: '%s' failed (run 'make build/host/mkfs2')\n", cmd);
		abort();
	}
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	if (!(p = malloc(*len ? *len : 1)) || fread(p, 1, *len, f) != *len)
		abort();
	fclose(f);
	unlink(path);
	return p;
}
