/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3_sim_card.h — a ConnectX-4 / 4 Lx / 5 card model (cxsim, in process) holding an FS3/FS4
 * image from the tests' builder (fs3_builder.h), its device data its own: in recovery mode
 * (sc_new, sc_new_part) for test_burn_fs3_card.c and test_powercut_fs3_card.c, or with its
 * firmware running (sc_new_running) for test_flash_fw.c and test_powercut_fw_card.c, and
 * (sc_running_with_image) for test_config_gen5.c.
 *
 * Layout on the model's 16 MiB flash: the card's image in slot 0 or 1 (the slot size is the
 * image's own, fs3_set_slot_log), its device sections at the absolute addresses its TOC
 * gives (0x1a000 on, in slot 0's span after the image), FS4's DTOC in the flash's last 4 KiB.
 * What boots is asked of the model (cxsim_boot_info after a power cycle), never of cxflash. */
#ifndef CX_TEST_FS3_SIM_CARD_H
#define CX_TEST_FS3_SIM_CARD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxsim.h"
#include "fs3_builder.h"

#define SC_GUID 0x0002c9030011aa00ull   /* the card's base GUID, in its DEV_INFO */

/* The slot size an image declares (FS3 header dword 9 [23:16]; FS4 tools area, whose CRC
 * covers it), for a smaller slot than the builder's: the other slot is then nearer. */
static inline void sc_set_slot_log(struct f3 *b, unsigned log)
{
	if (b->s.fs4) {
		uint8_t *t = b->buf + F4_TOOLS;
		f3_put32(t + 4, (uint32_t)log << 16 | 1u << 8 | 0);
		f3_put32(t + 0x3c, f3_crc(t, 0x3c));
	} else {
		b->buf[0x25] = (uint8_t)log;
	}
}

static inline unsigned sc_slot_log(const struct f3 *b)
{
	return b->s.fs4 ? b->buf[F4_TOOLS + 5] : b->buf[0x25];
}

/* A section of the builder's image (type, not device data) grown to size bytes of filler:
 * more flash write commands per burn (the builder's image ends at 0x1a000). */
static inline void sc_grow(struct f3 *b, uint32_t addr, uint32_t size, uint8_t seed)
{
	f3_add(b, 0x01, addr, size, F3_IN_ENTRY, false); /* BOOT_CODE: an ordinary image section */
	for (uint32_t i = 0; i < size; i++) /* after f3_add, which fills by type */
		b->buf[addr + i] = (uint8_t)(i * 31 + seed + (i >> 8));
	f3_write(b);
}

static inline bool sc_is_dev(const struct f3_ent *e)
{
	return e->dtoc || e->abs;
}

/* Put the card's image b (its device data included) on the model's flash, image in slot. */
static inline void sc_install(struct cxsim_card *c, const struct f3 *b, int slot)
{
	size_t n;
	uint8_t *f = cxsim_flash(c, &n);
	uint32_t s = 1u << sc_slot_log(b);

	memset(f, 0xff, n);
	memcpy(f + (uint32_t)slot * s, b->buf, 0x1a000);
	for (int i = 0; i < b->n; i++)
		if (sc_is_dev(&b->ents[i]))
			memcpy(f + b->ents[i].addr, b->buf + b->ents[i].addr, b->ents[i].size);
	if (b->s.fs4)
		memcpy(f + n - 0x1000, b->buf + F3_DTOC, 0x1000);
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
}

/* An older image in the other slot, its magic's first dword zeroed as a burn leaves it: the
 * card has been burned before, so the next burn must erase its way in. */
static inline void sc_older(struct cxsim_card *c, const struct f3 *b, int slot)
{
	size_t n;
	uint8_t *f = cxsim_flash(c, &n);
	uint32_t at = (uint32_t)slot << sc_slot_log(b);

	memcpy(f + at, b->buf, 0x1a000);
	for (uint32_t i = 0x4000; i < 0x1a000; i += 0x100)
		f[at + i] ^= 0x5a; /* not the same bytes as either image */
	memset(f + at, 0, 4);
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
}

/* part: a flash part of the model's table (NULL: the chip's 16 MiB default). The card is
 * strapped into recovery mode (params.recovery): with a valid image the model would run its
 * firmware, and cxflash would reach the flash through it (sc_new_running). */
static inline struct cxsim_card *sc_new_part(enum cxsim_chip chip, bool wp, const char *part)
{
	struct cxsim_params p;

	cxsim_params_default(&p, chip);
	p.write_protect = wp;
	p.recovery = true;
	if (part)
		snprintf(p.flash_part, sizeof(p.flash_part), "%s", part);
	return cxsim_new(&p);
}

static inline struct cxsim_card *sc_new(enum cxsim_chip chip, bool wp)
{
	return sc_new_part(chip, wp, NULL);
}

/* The same card not strapped: once sc_install has put a valid image on it (and power-cycled
 * it), the model's firmware boots and runs, so cxflash asks that firmware for the flash
 * (ICMD, MFBA/MFBE: hw-access.md §3.14). part as for sc_new_part; fault: an ICMD fault the
 * card has from power-on (CXSIM_ICMD_OK: none). */
static inline struct cxsim_card *sc_new_running(enum cxsim_chip chip, bool wp, const char *part,
						enum cxsim_icmd_fault fault)
{
	struct cxsim_params p;

	cxsim_params_default(&p, chip);
	p.write_protect = wp;
	p.recovery = false;
	p.icmd_fault = fault;
	if (part)
		snprintf(p.flash_part, sizeof(p.flash_part), "%s", part);
	return cxsim_new(&p);
}

/* A card whose firmware runs (hw-access.md §3.14): not strapped into recovery mode, the
 * builder's image of hw_id (FS4 when fs4) in slot 0, so the model boots it and shows its
 * normal PCI ID; cxflash reaches it over ICMD (chip.fw_access). b receives the image. */
static inline struct cxsim_card *sc_running_with_image(enum cxsim_chip chip, bool fs4, uint32_t hw_id, struct f3 *b)
{
	struct cxsim_params p;
	struct f3_spec s = f3_defaults(fs4);
	struct cxsim_card *c;

	cxsim_params_default(&p, chip);
	p.recovery = false;
	if (!(c = cxsim_new(&p)))
		return NULL;
	s.hw_id = hw_id;
	f3_build(b, &s);
	sc_install(c, b, 0);
	return c;
}

/* A copy of the flash now (malloc'd). */
static inline uint8_t *sc_snapshot(struct cxsim_card *c, size_t *n)
{
	const uint8_t *f = cxsim_flash(c, n);
	uint8_t *copy = malloc(*n);

	if (copy)
		memcpy(copy, f, *n);
	return copy;
}

/* Every device section of the card (b's), and FS4's DTOC, byte for byte as in before:
 * NULL, or what differs. */
static inline const char *sc_devdata_diff(const struct f3 *b, const uint8_t *before, const uint8_t *now, size_t n)
{
	static char why[80];

	for (int i = 0; i < b->n; i++) {
		const struct f3_ent *e = &b->ents[i];
		if (sc_is_dev(e) && memcmp(before + e->addr, now + e->addr, e->size)) {
			snprintf(why, sizeof(why), "device section 0x%x at 0x%x changed", e->type, e->addr);
			return why;
		}
	}
	if (b->s.fs4 && memcmp(before + n - 0x1000, now + n - 0x1000, 0x1000))
		return "the DTOC changed";
	return NULL;
}

#endif
