/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rom_edit.c — drom and brom on an image in memory, and their gates (rules and sources
 * in rom_edit.h). */
#include <stdio.h>

#include "image/rom_edit.h"
#include "image/rom_insert.h"

#define DEFAULT_SECTOR (64u << 10) /* CX_DFLT_SECTOR_SIZE: no tag 19 on CX2/CX3, §1.5 */
#define RESERVE_MAX (64u << 10)    /* MAX_CONFIG_AREA_SIZE: reserve at most 64 KiB, §1.5 */
#define ROM_GEN_DEVID 0            /* EXP_ROM_GEN_DEVID: a ROM for any device, fw_ops.h 79 */

int rom_remove(const uint8_t *img, size_t len, uint8_t **out, size_t *out_len, struct cx_status *st)
{
	return rom_update(img, len, NULL, 0, ROM_DROP, out, out_len, st);
}

int rom_replace(const uint8_t *img, size_t len, const uint8_t *rom, size_t rom_len,
		uint8_t **out, size_t *out_len, struct cx_status *st)
{
	if (!rom)
		return cx_fail(st, CX_EVALUE, "internal: rom_replace called without a ROM");
	return rom_update(img, len, rom, rom_len, ROM_SWAP, out, out_len, st);
}

int rom_change_allowed(const struct fs2_image *img, bool allow, struct cx_status *st)
{
	if (allow || !img->info.have[TAG_PRODUCT_VER])
		return CX_OK;
	return cx_fail(st, CX_EUNSUPPORTED,
		       "the image has a common FW/ROM Product Version (%s): its ROM is changed only with "
		       "--allow_rom_change, as flint's",
		       img->info.product_ver[0] ? img->info.product_ver : "empty");
}

/* flint's FindAllImageStart on the ROM file: an FS2 magic at any start position, §1.1. */
static bool has_fs2_magic(const uint8_t *rom, size_t len)
{
	for (unsigned i = 0; i < fs2_nstart_pos; i++)
		if (fs2_start_pos[i] + FS2_MAGIC_LEN <= len && fs2_has_magic(rom + fs2_start_pos[i]))
			return true;
	return false;
}

/* The PCI image chain: present and whole. */
static int check_chain(const uint8_t *rom, size_t len, struct cx_status *st)
{
	struct rom_chain c;

	rom_walk(rom, len, &c);
	switch (c.state) {
	case ROM_CHAIN_OK:
		return CX_OK;
	case ROM_CHAIN_NONE:
		return cx_fail(st, CX_EVALUE, "not an expansion ROM: no PCI option-ROM header (55 AA) at its start");
	case ROM_CHAIN_TRUNCATED:
		return cx_fail(st, CX_EIMAGE, "truncated ROM: its PCI image headers announce more than the file's "
			       "0x%zx bytes", len);
	case ROM_CHAIN_BAD:
		break;
	}
	return cx_fail(st, CX_EIMAGE, "malformed ROM: no sound PCI image at 0x%x, where image %d should begin",
		       c.end, c.n + 1);
}

/* Every record's checksum, then the devid warning (the first record for another device). */
static int check_records(const struct rom_info *r, int n, const struct fs2_image *img, struct cx_status *st)
{
	char t[12];

	for (int i = 0; i < n; i++)
		if (r[i].csum_ok == 0)
			return cx_fail(st, CX_ECHECKSUM, "bad ROM checksum: the %s ROM at 0x%x does not sum to 0",
				       rom_type_name(r[i].product, t), r[i].off);
	for (int i = 0; img && i < n; i++)
		if (r[i].has_dev && r[i].devid != ROM_GEN_DEVID && r[i].devid != img->info.dev_type) {
			snprintf(st->msg, sizeof(st->msg),
				 "-W- the ROM is for another device: the FW is for device %u, the %s ROM for "
				 "device %u", img->info.dev_type, rom_type_name(r[i].product, t), r[i].devid);
			break;
		}
	return CX_OK;
}

int rom_file_check(const uint8_t *rom, size_t len, const struct fs2_image *img, struct cx_status *st)
{
	struct rom_info r[ROM_MAX_IMAGES];
	int rc;

	if (has_fs2_magic(rom, len))
		return cx_fail(st, CX_EVALUE, "this is a firmware image, not an expansion ROM");
	if ((rc = check_chain(rom, len, st)))
		return rc;
	if (len % 4)
		return cx_fail(st, CX_EVALUE, "the ROM is %zu bytes: a ROM section holds whole dwords", len);
	int n = rom_parse(rom, len, r);
	if (n == 0)
		return cx_fail(st, CX_EVALUE, "not a Mellanox expansion ROM: no mlxsign: version record");
	return check_records(r, n, img, st);
}

uint32_t rom_max_image_size(const struct fs2_image *img, uint32_t flash_size)
{
	const struct fs2_info *in = &img->info;
	uint32_t s = DEFAULT_SECTOR;

	if (in->have_sector_size && in->log2_sector_kib < 16)
		s = (1u << in->log2_sector_kib) << 10;
	uint64_t reserve = (uint64_t)in->config_sectors * s;
	if (reserve > RESERVE_MAX)
		reserve = RESERVE_MAX;
	uint64_t pad = (uint64_t)in->config_pad * s;
	uint64_t cut = img->failsafe ? reserve + pad : 2 * reserve + pad;
	uint64_t room = img->failsafe ? flash_size / 2 : flash_size;
	return cut >= room ? 0 : (uint32_t)(room - cut);
}

int rom_fits(const struct fs2_image *img, size_t new_len, uint32_t flash_size, struct cx_status *st)
{
	uint32_t max = rom_max_image_size(img, flash_size);

	if (new_len <= max)
		return CX_OK;
	return cx_fail(st, CX_EMISMATCH,
		       "the image with this ROM is 0x%zx bytes: more than the 0x%x a %s image may have on a "
		       "%u KiB flash",
		       new_len, max, img->failsafe ? "failsafe" : "non-failsafe", flash_size >> 10);
}
