/* SPDX-License-Identifier: GPL-2.0-or-later */
/* imgfile.c — opening an image file, contiguous or zebra-striped (fs2-format.md §1.5). */
#include <stdlib.h>
#include <string.h>

#include "image/imgfile.h"
#include "image/zebra.h"
#include "util/bytes.h"
#include "util/fileio.h"

#define FS_INFO_FAILSAFE 0x8  /* FS info word bit 3, §1.5 */
#define FS_INFO_LOG2_MASK 0x7 /* bits 2:0, §1.5 */

/* How many contiguous bytes of 'slot' a dump of len bytes holds. */
static size_t slot_len(size_t len, unsigned log2chunk, unsigned slot)
{
	size_t chunk = (size_t)1 << log2chunk, n = 0;

	for (size_t c = slot; c * chunk < len; c += 2)
		n += len - c * chunk < chunk ? len - c * chunk : chunk;
	return n;
}

static int open_striped(struct imgfile *f, struct cx_status *st)
{
	uint32_t starts[2];
	int n, rc = fs2_locate(f->raw, f->raw_len, starts, &n, st);

	if (rc)
		return rc;
	f->start = starts[0];
	if ((uint64_t)f->start + FS2_BOOT2_START > f->raw_len)
		return cx_fail(st, CX_EIMAGE, "image at 0x%x: dump truncated inside its header", f->start);
	uint32_t fs = be32(f->raw + f->start + FS2_OFF_FS_INFO);
	if (byte_sum32(fs))
		return cx_fail(st, CX_EIMAGE, "corrupted FS info word 0x%08x in the image at 0x%x", fs,
			       f->start);
	if (!(fs & FS_INFO_FAILSAFE)) {
		/* A non-failsafe image is never striped and must start at 0, §1.1. */
		if (f->start)
			return cx_fail(st, CX_EIMAGE, "non-failsafe image at 0x%x: it must start at 0",
				       f->start);
		f->cont = f->raw;
		f->cont_len = f->raw_len;
		return CX_OK;
	}
	f->log2chunk = (fs & FS_INFO_LOG2_MASK) + ZEBRA_LOG2CHUNK_MIN;
	if (f->start != 0 && f->start != 1u << f->log2chunk)
		return cx_fail(st, CX_EIMAGE,
			       "image at 0x%x: a failsafe image must start at 0 or at its chunk size 0x%x",
			       f->start, 1u << f->log2chunk);
	f->slot = f->start != 0;
	f->striped = true;
	f->cont_len = slot_len(f->raw_len, f->log2chunk, f->slot);
	f->cont = malloc(f->cont_len ? f->cont_len : 1);
	if (!f->cont)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	for (size_t a = 0; a < f->cont_len; a++)
		f->cont[a] = f->raw[zebra_cont2phys((uint32_t)a, f->log2chunk, f->slot)];
	return CX_OK;
}

static int open_contiguous(struct imgfile *f, struct cx_status *st)
{
	uint32_t starts[2];
	int n;
	struct cx_status ignore = {0};

	if (f->raw_len >= FS2_MAGIC_LEN && fs2_has_magic(f->raw)) {
		if (fs2_locate(f->raw, f->raw_len, starts, &n, st))
			return st->code;
	} else if (fs2_locate(f->raw, f->raw_len, starts, &n, &ignore) == CX_OK) {
		return cx_fail(st, CX_EIMAGE,
			       "no image at offset 0, but one starts at 0x%x: for a raw flash dump use --striped_image",
			       starts[0]);
	}
	f->cont = f->raw;
	f->cont_len = f->raw_len;
	return CX_OK;
}

static int open_raw(struct imgfile *f, bool striped, struct cx_status *st)
{
	int rc;

	if (f->raw_len == 0)
		return cx_fail(st, CX_EIMAGE, "%s is empty", f->path);
	rc = striped ? open_striped(f, st) : open_contiguous(f, st);
	if (rc)
		return rc;
	return fs2_parse(f->cont, f->cont_len, &f->img, st);
}

int imgfile_open(struct imgfile *f, const char *path, bool striped, struct cx_status *st)
{
	int rc;

	memset(f, 0, sizeof(*f));
	f->path = path;
	if ((rc = file_read(path, IMGFILE_MAX, &f->raw, &f->raw_len, st)))
		return rc;
	return open_raw(f, striped, st);
}

int imgfile_open_mem(struct imgfile *f, const uint8_t *buf, size_t len, bool striped,
		     struct cx_status *st)
{
	memset(f, 0, sizeof(*f));
	f->path = "(memory)";
	f->raw = malloc(len ? len : 1);
	if (!f->raw)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	memcpy(f->raw, buf, len);
	f->raw_len = len;
	return open_raw(f, striped, st);
}

int imgfile_save(struct imgfile *f, struct cx_status *st)
{
	if (f->striped)
		for (size_t a = 0; a < f->cont_len; a++)
			f->raw[zebra_cont2phys((uint32_t)a, f->log2chunk, f->slot)] = f->cont[a];
	return file_replace(f->path, f->raw, f->raw_len, st);
}

void imgfile_close(struct imgfile *f)
{
	if (f->cont != f->raw)
		free(f->cont);
	free(f->raw);
	f->cont = f->raw = NULL;
}
