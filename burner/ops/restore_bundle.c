/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore_bundle.c — a bundle checked and loaded, and the card checked against it (restore_bundle.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/restore_bundle.h"
#include "ops/plan.h"
#include "util/fileio.h"

int restore_load_flash(const char *dir, struct backup_identity *id, uint8_t **buf, size_t *len,
		       struct cx_status *st)
{
	char path[BACKUP_PATH_MAX], hex[SHA256_HEX_LEN + 1];
	uint8_t sum[SHA256_LEN];
	int rc;

	if ((rc = backup_verify(dir, st)) || (rc = backup_load_identity(dir, id, st)))
		return rc;
	if (snprintf(path, sizeof(path), "%s/%s", dir, BACKUP_FLASH) >= (int)sizeof(path))
		return cx_fail(st, CX_EIO, "%s: path too long", dir);
	if ((rc = file_read(path, PLAN_MAX_END, buf, len, st)))
		return rc;
	sha256(*buf, *len, sum);
	if (strcmp(sha256_hex(sum, hex), id->flash_sha256) || *len != id->flash_size) {
		free(*buf);
		*buf = NULL;
		return cx_fail(st, CX_EIMAGE, "%s changed after it was checked: nothing written", path);
	}
	return CX_OK;
}

/* Chip and flash must be the ones the bundle was made on: no override. */
int restore_check_card(const struct device *d, const struct backup_identity *id, size_t len, struct cx_status *st)
{
	if (strcmp(id->family, d->chip.desc->name))
		return cx_fail(st, CX_EMISMATCH, "the bundle is of a %s, this card is a %s: nothing written",
			       id->family, d->chip.desc->name);
	if (id->revision != d->chip.rev)
		return cx_fail(st, CX_EMISMATCH, "the bundle is of chip revision 0x%02x, this card is 0x%02x: "
			       "nothing written", id->revision, d->chip.rev);
	if (len != d->flash.size)
		return cx_fail(st, CX_EMISMATCH, "the bundle holds %zu flash bytes, this card has %u: nothing written",
			       len, d->flash.size);
	return CX_OK;
}
