/* SPDX-License-Identifier: GPL-2.0-or-later */
/* failsafe.c — body, magic, boot address, old magic: in that order (fs2-format.md §4.2). */
#include <stdlib.h>
#include <string.h>

#include "image/fs2.h"
#include "image/zebra.h"
#include "ops/failsafe.h"

#define INVALIDATE_LEN 4 /* one zero dword over "MTFW" kills an image, §4.2 step 4 */

uint32_t failsafe_target(const struct failsafe_plan *p)
{
	uint32_t chunk = 1u << p->log2chunk;

	if (!p->failsafe || p->nofs)
		return 0;
	return p->have_current && p->current_start != 0 ? 0 : chunk;
}

/* Write contiguous [off, off+len) of the slot starting at 'start', chunk piece by piece. */
static int put(const struct failsafe_io *io, const struct failsafe_plan *p, uint32_t start,
	       uint32_t off, const uint8_t *data, uint32_t len, struct cx_status *st)
{
	struct zebra_walk w;
	for (zebra_walk_begin(&w, p->failsafe, p->log2chunk, start != 0, start, off, len); w.n; zebra_walk_next(&w))
		if (io->write(io->ctx, w.phys, data + w.done, w.n, st))
			return st->code;
	return CX_OK;
}

static void phase(const struct failsafe_io *io, const char *name)
{
	if (io->phase)
		io->phase(io->ctx, name);
}

/* Every other start position that still holds a magic gets its first dword zeroed. */
static int invalidate_others(const struct failsafe_io *io, const struct failsafe_plan *p,
			     uint32_t keep, struct cx_status *st)
{
	static const uint8_t zero[INVALIDATE_LEN];
	uint8_t m[FS2_MAGIC_LEN];

	for (unsigned i = 0; i < p->npos && i < fs2_nstart_pos; i++) {
		uint32_t pos = fs2_start_pos[i];
		if (pos == keep || (uint64_t)pos + FS2_MAGIC_LEN > p->flash_size)
			continue;
		if (io->read(io->ctx, pos, m, sizeof(m), st))
			return st->code;
		if (fs2_has_magic(m) && io->write(io->ctx, pos, zero, INVALIDATE_LEN, st))
			return st->code;
	}
	return CX_OK;
}

int failsafe_burn(const struct failsafe_io *io, const struct failsafe_plan *p, const uint8_t *img,
		  uint32_t len, uint32_t *start, struct cx_status *st)
{
	uint32_t b = failsafe_target(p);
	uint8_t *body;
	int rc;

	if (len < FS2_MAGIC_LEN)
		return cx_fail(st, CX_EIMAGE, "image too short");
	if (!(body = malloc(len)))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	memcpy(body, img, len);
	memset(body, 0xFF, FS2_MAGIC_LEN); /* the magic comes last: until then B is no image */

	phase(io, "writing the image body");
	rc = put(io, p, b, 0, body, len, st);
	free(body);
	if (rc)
		return rc;
	phase(io, "writing the signature");
	if ((rc = put(io, p, b, 0, img, FS2_MAGIC_LEN, st)))
		return rc;
	/* A failed boot-address write only means a warm reset would not pick the new
	 * image; the cold power cycle we always end with does (hw-access.md §4.4). */
	if (io->set_boot_addr) {
		struct cx_status ignore = {0};
		io->set_boot_addr(io->ctx, b, &ignore);
	}
	phase(io, "invalidating the old image");
	if ((rc = invalidate_others(io, p, b, st)))
		return rc;
	*start = b;
	return CX_OK;
}
