/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Raw flash dump: the image striped into one slot of the zebra layout (fs2-format.md §1.5). */
#include <stdio.h>

#include "layout.h"

#define FLASH_ERASED	0xFF

/*
 * §1.5 FBase::cont2phys: keep the low log2chunk bits, insert the slot bit at
 * bit log2chunk, shift the rest up by one. Slot 0 owns the even chunks,
 * slot 1 the odd ones.
 */
static uint64_t cont2phys(uint64_t a, unsigned int log2chunk, unsigned int slot)
{
	uint64_t low = a & ((1ull << log2chunk) - 1);

	return low | (uint64_t)slot << log2chunk | (a >> log2chunk) << (log2chunk + 1);
}

int build_dump(const struct config *c, const struct buf *img, struct buf *flash)
{
	unsigned int log2chunk = c->chunk_log + LOG2_CHUNK_BASE;
	uint64_t chunk = 1ull << log2chunk;
	size_t a, n;

	if (!c->failsafe && c->dump_slot != 0) {
		/* §1.1: a non-failsafe image must start at 0, unstriped. */
		fprintf(stderr, "mkfs2: a --no-failsafe image can only be dumped to slot 0\n");
		return -1;
	}
	buf_append_byte(flash, FLASH_ERASED, c->flash_size);
	if (!c->failsafe) {
		if (img->len > c->flash_size)
			goto too_big;
		for (a = 0; a < img->len; a++)
			flash->data[a] = img->data[a];
		return 0;
	}
	for (a = 0; a < img->len; a += n) {
		uint64_t phys = cont2phys(a, log2chunk, (unsigned int)c->dump_slot);

		n = (size_t)(chunk - (a & (chunk - 1)));	/* up to the chunk end */
		if (n > img->len - a)
			n = img->len - a;
		if (phys + n > c->flash_size)
			goto too_big;
		for (size_t i = 0; i < n; i++)
			flash->data[phys + i] = img->data[a + i];
	}
	return 0;

too_big:
	fprintf(stderr, "mkfs2: image (0x%zx bytes) does not fit slot %d of a 0x%x-byte flash "
		"with 0x%llx-byte chunks\n", img->len, c->dump_slot, c->flash_size,
		(unsigned long long)chunk);
	return -1;
}
