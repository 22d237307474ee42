/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wizard_upload.c — the upload command's stand-in, and the first write to a card. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "scratch.h"
#include "util/fileio.h"
#include "wizard_upload.h"

void upload_script(struct rig *r, int status, char *path, size_t n)
{
	char text[1024];

	snprintf(path, n, "%s/upload-%d", r->root, status);
	snprintf(text, sizeof(text),
		 "#!/bin/sh\n"
		 "printf '%%s\\n' \"$*\" >> '%s/upload.args'\n"
		 "cat \"$2/flash.bin\" > '%s/uploaded.bin' || exit 99\n"
		 "exit %d\n",
		 r->root, r->root, status);
	write_text(path, text);
	assert_int_equal(chmod(path, 0755), 0);
}

int upload_calls(const struct rig *r, char *out, size_t n)
{
	char path[128];
	int lines = 0;

	snprintf(path, sizeof(path), "%s/upload.args", r->root);
	char *text = read_text(path);
	if (out)
		snprintf(out, n, "%s", text ? text : "");
	for (char *p = text; p && *p; p++)
		lines += *p == '\n';
	free(text);
	return lines;
}

void expect_upload_of(const struct rig *r, const char *bundle)
{
	char calls[2 * BACKUP_PATH_MAX], want[BACKUP_PATH_MAX + 16];

	assert_int_equal(upload_calls(r, calls, sizeof(calls)), 1);
	snprintf(want, sizeof(want), "backup %s\n", bundle);
	assert_string_equal(calls, want);
}

void expect_uploaded(const struct rig *r, const uint8_t *flash, size_t n)
{
	struct cx_status st = {0};
	char path[128];
	uint8_t *buf;
	size_t len;

	snprintf(path, sizeof(path), "%s/uploaded.bin", r->root);
	assert_int_equal(file_read(path, 64u << 20, &buf, &len, &st), CX_OK);
	assert_int_equal(len, n);
	assert_memory_equal(buf, flash, n);
	free(buf);
}

static void on_flash_change(void *ctx, size_t off, size_t len)
{
	struct first_write *f = ctx;

	(void)off, (void)len;
	if (f->changes++ == 0)
		f->uploads_before = upload_calls(f->r, NULL, 0);
}

void watch_first_write(struct cxsim_card *c, struct first_write *f)
{
	if (f)
		cxsim_set_flash_sink(c, on_flash_change, f);
	else
		cxsim_set_flash_sink(c, NULL, NULL);
}
