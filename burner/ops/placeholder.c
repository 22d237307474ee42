/* SPDX-License-Identifier: GPL-2.0-or-later */
/* placeholder.c — the release images' placeholder GUIDs and MACs (placeholder.h). */
#include <stddef.h>

#include "ops/placeholder.h"

#define MAC_MASK 0xFFFFFFFFFFFFull /* a MAC is an entry's low 48 bits, fs2-format.md §3.1 */

/* ILLUMOS: illumos-gate usr/src/cmd/fwflash/plugins/hdrs/MELLANOX.h (field-notes.md §2.3).
 * RELEASE: `flint -i fw-ConnectX3-rel-2_42_5000-MCX311A-XCA_Ax-FlexBoot-3.4.752.bin query full`
 * prints GUIDs 0002c9000100d050 0002c9000100d051 0002c9000100d052 0002c9000100d050 and MACs
 * 0002c9000001 0002c9000002 (github y0ug/hugo-blog-codsec,
 * content/posts/homelab/mellanox-connectx3-firmware-upgrade.md); fs2-format.md §3.1 names the
 * same values for the release .bin, and issue 18 for ConnectX-3 Pro 2.42.5000. */
#define ILLUMOS "illumos MELLANOX.h"
#define RELEASE "the ConnectX-3/3 Pro 2.42.5000 release images (fs2-format.md §3.1)"

static const struct placeholder_id table[] = {
	{PLACEHOLDER_GUID, 0x0002c9000100d050ull, "node GUID", ILLUMOS " MLX_DEFAULT_NODE_GUID; " RELEASE},
	{PLACEHOLDER_GUID, 0x0002c9000100d051ull, "port 1 GUID", ILLUMOS " MLX_DEFAULT_P1_GUID; " RELEASE},
	{PLACEHOLDER_GUID, 0x0002c9000100d052ull, "port 2 GUID", ILLUMOS " MLX_DEFAULT_P2_GUID; " RELEASE},
	{PLACEHOLDER_GUID, 0x0002c9000100d053ull, "system image GUID", ILLUMOS " MLX_DEFAULT_SYSIMG_GUID"},
	{PLACEHOLDER_MAC, 0x0002c9000001ull, "port 1 MAC", RELEASE},
	{PLACEHOLDER_MAC, 0x0002c9000002ull, "port 2 MAC", RELEASE},
};

#define NROWS (int)(sizeof(table) / sizeof(table[0]))

const struct placeholder_id *placeholder_table(int *n)
{
	*n = NROWS;
	return table;
}

static const struct placeholder_id *lookup(enum placeholder_kind kind, uint64_t v)
{
	for (int i = 0; i < NROWS; i++)
		if (table[i].kind == kind && table[i].value == v)
			return &table[i];
	return NULL;
}

const struct placeholder_id *placeholder_find(const struct fs2_guids *g)
{
	const struct placeholder_id *p = NULL;

	if (!g || g->blank)
		return NULL;
	for (int i = 0; i < GUIDS_NGUID && !p; i++)
		p = lookup(PLACEHOLDER_GUID, g->guid[i]);
	for (int i = 0; i < GUIDS_NMAC && !p; i++)
		p = lookup(PLACEHOLDER_MAC, g->mac[i] & MAC_MASK);
	return p;
}
