/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flint_view.c — the lowest signed image, read from the model's flash as flint reads it. */
#include <stdio.h>
#include <string.h>

#include "flint_view.h"
#include "image/rom_insert.h"
#include "ops/devimage.h"
#include "util/sha256.h"

#define ALL_START_POSITIONS 10 /* CX3's count, a superset of CX2's 6 (chip.c, hw-access.md §3.11) */

struct mem {
	const uint8_t *flash;
	size_t size;
};

static int mem_read(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	struct mem *m = ctx;

	if ((uint64_t)addr + len > m->size)
		return cx_fail(st, CX_EFLASH, "past the flash");
	memcpy(buf, m->flash + addr, len);
	return CX_OK;
}

uint64_t flint_view_rom_hash(const uint8_t *rom, size_t len)
{
	uint8_t h[SHA256_LEN];
	uint64_t v = 0;

	if (!len)
		return 0;
	sha256(rom, len, h);
	for (int i = 0; i < 8; i++)
		v = v << 8 | h[i];
	return v;
}

const char *flint_view_lowest_whole(struct cxsim_card *c, struct flint_view *v)
{
	static char why[CX_MSG_MAX + 80];
	struct mem m;
	struct dev_image d;
	struct cx_status st = {0};

	m.flash = cxsim_flash(c, &m.size);
	if (devimage_read(&d, mem_read, &m, (uint32_t)m.size, ALL_START_POSITIONS, &st)) {
		snprintf(why, sizeof(why), "%s", st.msg);
		devimage_free(&d);
		return why;
	}
	if (d.parse_rc || fs2_verdict(&d.img, &st)) {
		snprintf(why, sizeof(why), "lowest image at 0x%x is broken: %s", d.start,
			 d.parse_rc ? d.parse_msg : st.msg);
		devimage_free(&d);
		return why;
	}
	v->minor = d.img.info.fw_ver[1];
	v->guid = d.img.guids.guid[0];
	v->mac = d.img.guids.mac[0];
	snprintf(v->vsd, sizeof(v->vsd), "%s", d.img.info.vsd);
	v->start = d.start;
	v->rom_len = 0;
	v->rom_hash = 0;
	const uint8_t *rom;
	size_t rom_len;
	if (!rom_sect_data(&d.img, &rom, &rom_len, &st)) {
		v->rom_len = (uint32_t)rom_len;
		v->rom_hash = flint_view_rom_hash(rom, rom_len);
	}
	devimage_free(&d);
	return NULL;
}
