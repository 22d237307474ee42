/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backup_reuse.c — the backup before a write, when a bundle may already hold the card's
 * flash (backup.h, backup_card_reuse): one read of the card against the bundle's verified
 * flash.bin, instead of a second copy of the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/backup.h"
#include "util/fileio.h"

/* Is prior a sound bundle of the card d as it shows itself now? id is filled. */
static bool same_card(const struct device *d, const char *prior, struct backup_identity *id)
{
	struct cx_status st = {0};

	if (backup_verify(prior, &st) || backup_load_identity(prior, id, &st))
		return false;
	return !strcmp(id->bdf, d->pci.bdf) && !strcmp(id->family, d->chip.desc->name) &&
	       id->pci_device == d->pci.device && id->subsys_vendor == d->pci.subsys_vendor &&
	       id->subsys_device == d->pci.subsys_device && id->recovery == d->chip.recovery &&
	       id->flash_size == d->flash.size;
}

/* prior's flash.bin, hashed again as it is read (it may have changed since backup_verify),
 * equals flash (d->flash.size bytes)? */
static bool same_flash(const char *prior, const struct backup_identity *id, const uint8_t *flash, uint32_t size)
{
	char path[BACKUP_PATH_MAX], hex[SHA256_HEX_LEN + 1];
	struct cx_status st = {0};
	uint8_t *buf = NULL, dg[SHA256_LEN];
	size_t len = 0;
	bool same;

	if (path_join(path, sizeof(path), prior, BACKUP_FLASH, &st) || file_read(path, (size_t)size + 1, &buf, &len, &st))
		return false;
	sha256(buf, len, dg);
	same = len == size && !strcmp(sha256_hex(dg, hex), id->flash_sha256) && !memcmp(buf, flash, size);
	free(buf);
	return same;
}

/* r as backup_card_ex() would have described prior when it wrote it. */
static void describe(struct backup_result *r, const char *prior, const struct backup_identity *id)
{
	const char *slash = strrchr(prior, '/');

	memset(r, 0, sizeof(*r));
	snprintf(r->path, sizeof(r->path), "%s", prior);
	snprintf(r->name, sizeof(r->name), "%s", slash ? slash + 1 : prior);
	snprintf(r->flash_sha256, sizeof(r->flash_sha256), "%s", id->flash_sha256);
	r->size = id->flash_size;
	r->recovery = id->recovery;
	r->have_image = id->have_image;
	r->have_ini = id->have_ini;
	r->reused = true;
}

int backup_card_reuse(struct device *d, const char *dir, const char *prior, backup_progress_fn progress,
		      void *ctx, struct backup_result *r, struct cx_status *st)
{
	static struct backup_identity id; /* ~1 KiB, off the stack */
	uint8_t *flash = NULL;
	int rc;

	if (!prior || !d->have_flash || !same_card(d, prior, &id))
		return backup_card_ex(d, dir, progress, ctx, r, st);
	if (progress)
		progress(ctx, "reading the flash, to compare it with the newest backup");
	if ((rc = device_read_flash(d, &flash, st))) {
		memset(r, 0, sizeof(*r));
		return rc;
	}
	if (!same_flash(prior, &id, flash, d->flash.size))
		return backup_card_from(d, dir, flash, progress, ctx, r, st);
	device_keep_flash(d, flash); /* equal to a bundle whose two reads agreed: as good */
	describe(r, prior, &id);
	return CX_OK;
}
