/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rom_index.h — every boot ROM the stick knows of: in the library's images and
 * in the backups (`cxflash rom list`, `rom extract`, the wizard's "Boot ROM"
 * choices).
 *
 * A source is one image that has a ROM section (fs2-format.md §4.5): a usable
 * file of the library's manifest, or the flash.bin of a backup bundle (a folder
 * directly in backups_dir whose name does not start with '.', as
 * rescue/backup_index.h; the image of slot 0 or 1 of the dump). For each the
 * index keeps a copy of the ROM section's data, its SHA-256, and every ROM in
 * it (image/rom.h: type, version, devid, extent, checksum) with the SHA-256 of
 * that ROM's own bytes [off, off + len).
 *
 * Names: sources are numbered from 1, the library's images first (in manifest
 * order), then the bundles (in name order). "N" names source N's whole ROM
 * section (what `rrom` writes and `brom` takes: all its ROMs, as the card
 * carries them); "N.K" its K-th ROM alone (from 1), as it lies in the section
 * (its PCIR last-image bit unchanged). The numbers hold while the library and
 * the backups stay the same.
 *
 * A file or bundle that cannot be read or parsed, or whose ROM section's CRC
 * is wrong, is no source: it is counted in skipped, never half-listed. One
 * without a ROM section is simply not a source.
 */
#ifndef CX_LIBRARY_ROM_INDEX_H
#define CX_LIBRARY_ROM_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/info.h"
#include "image/rom.h"
#include "library/manifest.h"
#include "util/sha256.h"
#include "util/status.h"

#define ROM_INDEX_MAX 4096 /* sources: more is refused, as backup_index's bundles */

struct rom_source {
	char *path;                 /* the image file, or the bundle folder */
	bool backup;                /* from a backup bundle, else the library */
	char psid[INFO_PSID_LEN + 1];
	uint16_t fw_ver[3];
	uint8_t *data;              /* the ROM section's data (owned) */
	size_t len;
	char sha256[SHA256_HEX_LEN + 1];
	int nroms;
	struct rom_info roms[ROM_MAX_IMAGES];
	char rom_sha256[ROM_MAX_IMAGES][SHA256_HEX_LEN + 1]; /* "" when the ROM's extent is unknown */
};

struct rom_index {
	struct rom_source *s;
	size_t n, cap;
	unsigned skipped;           /* files or bundles that could not be used */
};

/* Index the usable entries of m (may be NULL) and the bundles of backups_dir
 * (may be NULL; a folder that does not exist has none). ix need not be
 * initialised. CX_EIO when backups_dir cannot be read, CX_EUNSUPPORTED past
 * ROM_INDEX_MAX, CX_ENOMEM; ix is then empty. Free it with rom_index_free(). */
int rom_index_scan(struct rom_index *ix, const struct manifest *m, const char *backups_dir,
		   struct cx_status *st);

/* Add one image file (released or a raw flash dump) or bundle folder. CX_OK;
 * CX_EABSENT when it has no ROM section; CX_EIO or CX_EIMAGE (ix->skipped
 * counted) when it cannot be read or parsed or its ROM section's CRC is wrong;
 * CX_ENOMEM, CX_EUNSUPPORTED. st says why. */
int rom_index_add(struct rom_index *ix, const char *path, bool backup, struct cx_status *st);

void rom_index_free(struct rom_index *ix);

/* The bytes "N" or "N.K" names (pointers into ix). CX_EUSAGE for a name of
 * another form, CX_EABSENT for a number not in the index. *rom is K-1, or -1
 * for the whole section. */
int rom_index_pick(const struct rom_index *ix, const char *name, const struct rom_source **src, int *rom,
		   const uint8_t **p, size_t *len, struct cx_status *st);

/* The first ROM of source s whose type name (rom_type_name) is type, ignoring
 * case; -1 when none is, or its extent is unknown. */
int rom_source_find(const struct rom_source *s, const char *type);

#endif
