/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scratch.c — a test's folder and files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scratch.h"

void scratch_dir(char *out, size_t n, const char *what)
{
	snprintf(out, n, "/tmp/cx-%s-XXXXXX", what);
	assert_non_null(mkdtemp(out));
}

void rm_rf(const char *path)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	assert_int_equal(system(cmd), 0);
}

void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f;

	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

void spit(const char *dir, const char *name, const void *buf, size_t len)
{
	char path[9000]; /* a bundle's folder (BACKUP_PATH_MAX) and a name */

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_file(path, buf, len);
}

void write_text(const char *path, const char *text)
{
	write_file(path, text, strlen(text));
}

char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	size_t len = 0, got;
	char chunk[4096];

	if (!f)
		return NULL;
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		char *more = realloc(s, len + got + 1);
		assert_non_null(more);
		s = more;
		memcpy(s + len, chunk, got);
		len += got;
	}
	fclose(f);
	if (!s)
		assert_non_null(s = malloc(1));
	s[len] = '\0';
	return s;
}
