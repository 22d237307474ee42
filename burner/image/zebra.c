/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zebra.c — contiguous ↔ physical addresses in a two-slot failsafe flash. */
#include "image/zebra.h"

uint32_t zebra_cont2phys(uint32_t cont, unsigned log2chunk, unsigned slot)
{
	uint32_t low = cont & ((1u << log2chunk) - 1);
	uint32_t high = cont >> log2chunk;

	return (high << (log2chunk + 1)) | ((uint32_t)(slot & 1) << log2chunk) | low;
}

static void piece(struct zebra_walk *w)
{
	w->n = w->left;
	w->phys = w->start + w->cont;
	if (w->failsafe) {
		uint32_t room = (1u << w->log2chunk) - (w->cont & ((1u << w->log2chunk) - 1));
		w->n = w->left < room ? w->left : room;
		w->phys = zebra_cont2phys(w->cont, w->log2chunk, w->slot);
	}
}

void zebra_walk_begin(struct zebra_walk *w, bool failsafe, unsigned log2chunk, unsigned slot, uint32_t start,
		      uint32_t off, uint32_t len)
{
	*w = (struct zebra_walk){.failsafe = failsafe, .log2chunk = log2chunk, .slot = slot, .start = start,
				 .cont = off, .left = len};
	piece(w);
}

void zebra_walk_next(struct zebra_walk *w)
{
	w->cont += w->n;
	w->done += w->n;
	w->left -= w->n;
	piece(w);
}

uint32_t zebra_phys2cont(uint32_t phys, unsigned log2chunk, unsigned *slot)
{
	uint32_t low = phys & ((1u << log2chunk) - 1);
	uint32_t high = phys >> (log2chunk + 1);

	if (slot)
		*slot = (phys >> log2chunk) & 1;
	return (high << log2chunk) | low;
}
