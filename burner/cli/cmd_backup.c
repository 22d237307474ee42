/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_backup.c — `-d BDF backup DIR`: a checked backup bundle of a card (ops/backup.h). */
#include <stdio.h>
#include <unistd.h>

#include "cli/common.h"
#include "ops/backup.h"

/* Stages on standard error, only for a person watching: reading a flash takes a while. */
static void progress(void *ctx, const char *stage)
{
	const struct device *d = ctx;

	fprintf(stderr, "-I- %s: %s (%u KiB)...\n", d->pci.bdf, stage, d->flash.size / 1024);
}

/* What a backup made: its bundle and the flash's hash, as JSON or as flint-style text. */
static void report(const struct cli *c, const struct device *d, const struct backup_result *r)
{
	if (c->json) {
		struct json j;
		json_begin(&j, stdout);
		json_str(&j, "bundle", r->path);
		json_str(&j, "flash_sha256", r->flash_sha256);
		json_int(&j, "size", r->size);
		json_end(&j);
	} else {
		printf("-I- backup of %s written to %s (flash %u KiB, sha256 %s)\n", d->pci.bdf, r->path,
		       r->size / 1024, r->flash_sha256);
	}
}

int cmd_backup(struct cli *c, struct cx_status *st)
{
	struct device d;
	struct backup_result r;
	int rc;

	if (c->image || !c->device)
		return cx_fail(st, CX_EUSAGE, "backup reads a card: cxflash -d BDF backup DIR (not -i FILE)");
	if ((rc = device_open(&d, c->sysfs, c->device, c->clear_sem, st)) == CX_OK)
		rc = backup_card_ex(&d, c->params[0], isatty(STDERR_FILENO) ? progress : NULL, &d, &r, st);
	if (!rc)
		report(c, &d, &r);
	device_close(&d);
	return rc;
}
