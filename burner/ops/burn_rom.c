/* SPDX-License-Identifier: GPL-2.0-or-later */
/* burn_rom.c — the ROM a burned image carries: one rule for the burn and match. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/burn_rom.h"
#include "image/rom_edit.h"
#include "image/rom_insert.h"

void rom_set_of(struct rom_set *s, const uint8_t *rom, size_t len)
{
	memset(s, 0, sizeof(*s));
	if (!rom || !len)
		return;
	s->len = (uint32_t)len;
	s->n = rom_parse(rom, len, s->roms);
}

static bool has_rom(const struct fs2_image *img)
{
	const uint8_t *rom;
	size_t len;
	struct cx_status ignore = {0};

	return img && !rom_sect_data(img, &rom, &len, &ignore);
}

/* Whether the image's ROM section data is exactly rom. */
static bool same_rom(const struct fs2_image *img, const uint8_t *rom, size_t len)
{
	const uint8_t *now;
	size_t now_len;
	struct cx_status ignore = {0};

	return !rom_sect_data(img, &now, &now_len, &ignore) && now_len == len && !memcmp(now, rom, len);
}

/* ROM_KEEP (burn_rom.h): the card's section, whatever the image carries. */
static int keep(bool card_known, const uint8_t *card_rom, size_t card_rom_len, const uint8_t *buf, size_t len,
		const struct fs2_image *img, uint8_t **out, size_t *out_len, struct cx_status *st)
{
	if (!card_known)
		return CX_OK;
	if (!card_rom || !card_rom_len)
		return has_rom(img) ? rom_remove(buf, len, out, out_len, st) : CX_OK;
	if (!has_rom(img))
		return rom_insert(buf, len, card_rom, card_rom_len, out, out_len, st);
	if (same_rom(img, card_rom, card_rom_len))
		return CX_OK;
	return rom_replace(buf, len, card_rom, card_rom_len, out, out_len, st);
}

/* The new image from buf by the pick; *out NULL: buf is burned as it is. */
static int edit(const struct rom_choice *c, bool card_known, const uint8_t *card_rom, size_t card_rom_len,
		const uint8_t *buf, size_t len, const struct fs2_image *img, uint8_t **out, size_t *out_len, char *warn, struct cx_status *st)
{
	struct cx_status cst = {0};
	int rc;

	*out = NULL;
	switch (c->pick) {
	case ROM_KEEP:
		return keep(card_known, card_rom, card_rom_len, buf, len, img, out, out_len, st);
	case ROM_IMAGE:
		return CX_OK;
	case ROM_NONE:
		return has_rom(img) ? rom_remove(buf, len, out, out_len, st) : CX_OK;
	case ROM_FILE:
		/* A warning comes back as CX_OK with a message (image/rom_edit.h). */
		if ((rc = rom_file_check(c->file, c->file_len, img, &cst)))
			return cx_fail(st, rc, "%s", cst.msg);
		if (warn)
			snprintf(warn, CX_MSG_MAX, "%s", cst.msg);
		return rom_replace(buf, len, c->file, c->file_len, out, out_len, st);
	}
	return cx_fail(st, CX_EVALUE, "internal error: unknown ROM choice %d", (int)c->pick);
}

int rom_pick_apply(const struct rom_choice *c, bool card_known, const uint8_t *card_rom, size_t card_rom_len,
		   uint8_t **buf, size_t *len, struct fs2_image *img, bool *changed, char warn[CX_MSG_MAX], struct cx_status *st)
{
	struct cx_status pst = {0};
	uint8_t *out;
	size_t out_len;
	int rc;

	*changed = false;
	if (warn)
		warn[0] = '\0';
	if ((rc = edit(c, card_known, card_rom, card_rom_len, *buf, *len, img, &out, &out_len, warn, st)) || !out)
		return rc;
	free(*buf);
	*buf = out;
	*len = out_len;
	*changed = true;
	if (fs2_parse(out, out_len, img, &pst))
		return cx_fail(st, CX_EIMAGE, "internal error: the image with its new ROM does not parse (%s)", pst.msg);
	return CX_OK;
}

const char *rom_info_text(const struct rom_info *r, char *buf, size_t n)
{
	char tmp[12], ver[24];

	rom_fmt_version(ver, sizeof(ver), r); /* "8025" for HP's CLP, as flint */
	snprintf(buf, n, "%s %s", rom_type_name(r->product, tmp), ver);
	return buf;
}

const char *rom_set_text(const struct rom_set *s, char *buf, size_t n)
{
	char one[32];
	size_t at = 0;

	snprintf(buf, n, "%s", s->n < 0 ? "unknown" : s->len ? "a ROM without version records" : "none");
	for (int i = 0; i < s->n && at < n; i++) {
		int k = snprintf(buf + at, n - at, "%s%s", i ? ", " : "", rom_info_text(&s->roms[i], one, sizeof(one)));
		if (k < 0)
			break;
		at += (size_t)k;
	}
	return buf;
}

const char *rom_pick_name(enum rom_pick p)
{
	static const char *const names[] = {"keep", "image", "none", "file"};

	return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "?";
}
