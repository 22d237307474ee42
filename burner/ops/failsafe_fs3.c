/* SPDX-License-Identifier: GPL-2.0-or-later */
/* failsafe_fs3.c — FS3/FS4: body, magic, boot address, old magic (fs3-format.md §11.2). */
#include <stdlib.h>
#include <string.h>

#include "ops/failsafe_fs3.h"

static void phase(const struct failsafe_io *io, const char *name)
{
	if (io->phase)
		io->phase(io->ctx, name);
}

/* The last guard before the flash: [phys, phys+len) in the target slot or the old magic's dword,
 * and on no device section of the card. fs3_burn_prepare checked the same; a struct changed on
 * the way must not reach the flash. */
static int allowed(const struct fs3_burn *b, uint32_t phys, uint32_t len, struct cx_status *st)
{
	uint64_t end = (uint64_t)phys + len;
	bool in_slot = phys >= b->target && end <= (uint64_t)b->target + b->len && b->len <= b->slot_size;
	bool old_magic = phys == b->old_start && len <= FS3_INVALIDATE_LEN;

	if (!(in_slot || old_magic) || end > b->flash_size)
		return cx_fail(st, CX_EFLASH, "refused: a write at 0x%x (0x%x bytes) outside the target slot", phys, len);
	for (int k = 0; k < b->ndev; k++)
		if (phys < (uint64_t)b->dev[k].off + b->dev[k].len && b->dev[k].off < end)
			return cx_fail(st, CX_EFLASH, "refused: a write at 0x%x (0x%x bytes) over the card's device data "
				       "at 0x%x", phys, len, b->dev[k].off);
	return CX_OK;
}

static int put(const struct failsafe_io *io, const struct fs3_burn *b, uint32_t phys, const uint8_t *data,
	       uint32_t len, struct cx_status *st)
{
	int rc = allowed(b, phys, len, st);
	return rc ? rc : io->write(io->ctx, phys, data, len, st);
}

/* Step 1: every extent; the first starts at 0 and goes with its magic's 16 bytes as 0xFF. */
static int body(const struct failsafe_io *io, const struct fs3_burn *b, struct cx_status *st)
{
	uint8_t *head = malloc(b->ext[0].len);
	int rc;

	if (!head)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	memcpy(head, b->slot, b->ext[0].len);
	memset(head, 0xFF, FS3_MAGIC_LEN);
	rc = put(io, b, b->target, head, b->ext[0].len, st);
	free(head);
	for (int i = 1; i < b->next && !rc; i++)
		rc = put(io, b, b->target + b->ext[i].off, b->slot + b->ext[i].off, b->ext[i].len, st);
	return rc;
}

int failsafe_fs3_burn(const struct failsafe_io *io, const struct fs3_burn *b, struct failsafe_fs3_result *res,
		      struct cx_status *st)
{
	static const uint8_t zero[FS3_INVALIDATE_LEN];
	struct failsafe_fs3_result ignore;
	int rc;

	if (!res)
		res = &ignore;
	memset(res, 0, sizeof(*res));
	if (!b->slot || b->next < 1 || b->ext[0].off != 0 || b->ext[0].len < FS3_MAGIC_LEN || b->target == b->old_start)
		return cx_fail(st, CX_EIMAGE, "nothing prepared to burn (fs3_burn_prepare)");
	phase(io, "writing the image body");
	if ((rc = body(io, b, st)))
		return rc;
	phase(io, "writing the signature");
	if ((rc = put(io, b, b->target, b->slot, FS3_MAGIC_LEN, st)))
		return rc;
	/* DoAfterBurnJobs: the boot address first; a failure is a warning (power cycle to boot it). */
	res->boot_addr_set = true;
	if (io->set_boot_addr && io->set_boot_addr(io->ctx, b->target, &res->boot))
		res->boot_addr_set = false;
	phase(io, "invalidating the old image");
	return put(io, b, b->old_start, zero, FS3_INVALIDATE_LEN, st);
}
