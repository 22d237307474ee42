/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3_burn_check.c — the tests' read-back of an FS3/FS4 burn: is the new image on the flash
 * as planned (fs3-format.md §11.2)? (fs3_burn_check.h) */
#include <stdlib.h>
#include <string.h>

#include "fs3_burn_check.h"

int fs3_burn_check(const struct fs3_burn *b, const uint8_t *flash, size_t len, struct cx_status *st)
{
	struct fs3_image *img;
	struct cx_status t = {0};
	int rc;

	if (len != b->flash_size)
		return cx_fail(st, CX_EFLASH, "verify: read 0x%zx bytes of a 0x%x-byte flash", len, b->flash_size);
	for (int i = 0; i < b->next; i++)
		if (memcmp(flash + b->target + b->ext[i].off, b->slot + b->ext[i].off, b->ext[i].len))
			return cx_fail(st, CX_EFLASH, "verify: the new image differs from what was written, in "
				       "0x%x..0x%x of the slot at 0x%x", b->ext[i].off, b->ext[i].off + b->ext[i].len,
				       b->target);
	for (int i = 0; i < FS3_INVALIDATE_LEN; i++)
		if (flash[b->old_start + i])
			return cx_fail(st, CX_EFLASH, "verify: the old image's magic at 0x%x is not zeroed", b->old_start);
	if (!(img = malloc(sizeof(*img))))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	rc = fs3_parse(flash, len, img, &t);
	if (!rc)
		rc = fs3_verdict(img, &t);
	if (!rc && img->start != b->target)
		rc = cx_fail(&t, CX_EIMAGE, "the image found starts at 0x%x", img->start);
	free(img);
	if (rc)
		return cx_fail(st, CX_EFLASH, "verify: the flash does not read as the new image: %s", t.msg);
	return CX_OK;
}
