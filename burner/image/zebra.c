/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zebra.c — contiguous ↔ physical addresses in a two-slot failsafe flash. */
#include "image/zebra.h"

uint32_t zebra_cont2phys(uint32_t cont, unsigned log2chunk, unsigned slot)
{
	uint32_t low = cont & ((1u << log2chunk) - 1);
	uint32_t high = cont >> log2chunk;

	return (high << (log2chunk + 1)) | ((uint32_t)(slot & 1) << log2chunk) | low;
}

uint32_t zebra_phys2cont(uint32_t phys, unsigned log2chunk, unsigned *slot)
{
	uint32_t low = phys & ((1u << log2chunk) - 1);
	uint32_t high = phys >> (log2chunk + 1);

	if (slot)
		*slot = (phys >> log2chunk) & 1;
	return (high << log2chunk) | low;
}
