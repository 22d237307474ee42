/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mkimage.c — running mkfs2 for a test. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mkimage.h"

void mkfs2_run(const char *args)
{
	char cmd[1200];
	const char *b = getenv("CXR_BUILD") ? getenv("CXR_BUILD") : "build";

	snprintf(cmd, sizeof(cmd), "%s/host/mkfs2 %s", b, args);
	if (system(cmd) != 0) {
		fprintf(stderr, "mkimage: '%s' failed (run 'make build/host/mkfs2')\n", cmd);
		abort();
	}
}

void mkimage_file(const char *path, const char *opts)
{
	char args[1100];

	snprintf(args, sizeof(args), "-o %s %s", path, opts);
	mkfs2_run(args);
}

uint8_t *mkimage(const char *opts, size_t *len)
{
	char path[] = "/tmp/cx-test-image-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	uint8_t *p = NULL;

	if (fd < 0)
		abort();
	close(fd);
	mkimage_file(path, opts);
	if (!(f = fopen(path, "rb")))
		abort();
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	if (!(p = malloc(*len ? *len : 1)) || fread(p, 1, *len, f) != *len)
		abort();
	fclose(f);
	unlink(path);
	return p;
}
