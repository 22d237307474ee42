/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3_card.h — a ConnectX-4 Lx / ConnectX-5 flash in memory for the FS3/FS4 burn tests
 * (test_fs3_burn.c, test_fs3_powercut.c): a card's whole flash built from fs3_builder.h, a
 * struct failsafe_io over it that can lose power at a chosen byte, and the judge of what a
 * card would boot after a cut.
 *
 * Layout, from the builder's (fs3_builder.h): FS3 2 MiB slots in a 4 MiB flash, FS4 4 MiB slots
 * in an 8 MiB flash; the card's image in slot 0 or 1; its device sections at the absolute
 * addresses its TOC gives (0x1a000 on: in slot 0's span, after the image, which CheckFs3ImgSize
 * allows); FS4's DTOC in the flash's last 4 KiB.
 */
#ifndef CX_TEST_FS3_CARD_H
#define CX_TEST_FS3_CARD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fs3_builder.h"
#include "image/fs3.h"
#include "image/fs3_burnimg.h"
#include "ops/failsafe.h"
#include "util/bytes.h"

#define FC_IMG_END 0x1a000   /* the builder's image part ends where its device data starts */
#define FC_UNIT 0x1000       /* the erase unit the campaign cuts in */
#define FC_BOOT 0xffffffffu  /* fc_mem.log: the set_boot_addr call */

static inline uint32_t fc_slot_size(bool fs4)
{
	return fs4 ? 1u << 0x16 : 1u << 0x15; /* the builder's log2: tools area 0x16, FS3 header 0x15 */
}

static inline size_t fc_flash_size(bool fs4)
{
	return 2 * (size_t)fc_slot_size(fs4);
}

/* The card's device data, different from any file's: its own GUIDs, MACs, VSD, NV data and VPD. */
static inline void fc_card_devdata(struct f3 *b, uint64_t guid)
{
	for (int i = 0; i < b->n; i++) {
		struct f3_ent *e = &b->ents[i];
		uint8_t *p = b->buf + e->addr;
		if (!(e->dtoc || e->abs))
			continue;
		if (e->type == 0xe1 && e->size == 0x200) {
			f3_uid(p + 0x20, 8, 1, guid);
			f3_uid(p + 0x30, 8, 1, guid >> 16);
			memset(p + 0x70, 0, 208);
			f3_str(p + 0x70, "card vsd", 208);
		} else if (e->type == 0xe0) {
			f3_uid(p + 0x20, 8, 1, guid);
		} else if (e->type == 0xe6 || e->type == 0xe3) {
			for (uint32_t k = 0; k < e->size; k++)
				p[k] = (uint8_t)(guid >> (k % 8) ^ k);
		}
	}
	f3_write(b);
}

/* Move a device section of b to addr (its contents follow). */
static inline void fc_move(struct f3 *b, uint8_t type, uint32_t addr)
{
	for (int i = 0; i < b->n; i++)
		if (b->ents[i].type == type && (b->ents[i].dtoc || b->ents[i].abs)) {
			uint8_t tmp[0x1000];
			memcpy(tmp, b->buf + b->ents[i].addr, b->ents[i].size);
			b->ents[i].addr = addr;
			memcpy(b->buf + addr, tmp, b->ents[i].size);
		}
	f3_write(b);
}

/* A whole flash holding b's image in the given slot and b's device sections where its TOC says. */
static inline uint8_t *fc_flash(const struct f3 *b, int slot)
{
	size_t n = fc_flash_size(b->s.fs4);
	uint8_t *f = malloc(n);

	memset(f, 0xff, n);
	memcpy(f + (uint32_t)slot * fc_slot_size(b->s.fs4), b->buf, FC_IMG_END);
	for (int i = 0; i < b->n; i++)
		if (b->ents[i].dtoc || b->ents[i].abs)
			memcpy(f + b->ents[i].addr, b->buf + b->ents[i].addr, b->ents[i].size);
	if (b->s.fs4)
		memcpy(f + n - 0x1000, b->buf + F3_DTOC, 0x1000);
	return f;
}

/* The flash as a failsafe_io: a write stops, power lost, when the budget runs out. */
struct fc_mem {
	uint8_t *flash;
	size_t len;
	int calls;            /* write and set_boot_addr calls so far */
	int cut_call;         /* the call that loses power (-1: none) */
	uint32_t cut_bytes;   /* ... after this many bytes of it */
	bool cut_erased;      /* ... with the unit at cut_bytes erased, not yet programmed */
	bool dead;
	uint32_t boot;
	uint32_t wlo, whi;    /* lowest and highest byte written + 1 */
	struct { uint32_t phys, len; } log[64]; /* every call; set_boot_addr as {FC_BOOT, 0} */
	int nlog;
};

static inline int fc_write(void *ctx, uint32_t phys, const uint8_t *want, uint32_t len, struct cx_status *st)
{
	struct fc_mem *m = ctx;
	int call = m->calls++;

	if (m->dead)
		return cx_fail(st, CX_ENODEV, "power cut");
	if (phys + (uint64_t)len > m->len)
		return cx_fail(st, CX_EFLASH, "past the flash");
	if (m->nlog < 64)
		m->log[m->nlog].phys = phys, m->log[m->nlog++].len = len;
	uint32_t n = call == m->cut_call && m->cut_bytes < len ? m->cut_bytes : len;
	memcpy(m->flash + phys, want, n);
	if (len && (m->wlo > phys || m->whi == 0))
		m->wlo = phys;
	if (phys + len > m->whi)
		m->whi = phys + len;
	if (call == m->cut_call && m->cut_erased) {
		uint32_t u = (phys + n) / FC_UNIT * FC_UNIT;
		memset(m->flash + u, 0xff, FC_UNIT);
	}
	if (call == m->cut_call) { /* power lost during this call, or right after it */
		m->dead = true;
		return cx_fail(st, CX_ENODEV, "power cut");
	}
	return CX_OK;
}

static inline int fc_read(void *ctx, uint32_t phys, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	struct fc_mem *m = ctx;
	(void)st;
	memcpy(buf, m->flash + phys, len);
	return CX_OK;
}

static inline int fc_boot(void *ctx, uint32_t start, struct cx_status *st)
{
	struct fc_mem *m = ctx;
	int call = m->calls++;

	if (m->nlog < 64)
		m->log[m->nlog].phys = FC_BOOT, m->log[m->nlog++].len = 0;
	if (m->dead || call == m->cut_call) {
		m->dead = true;
		return cx_fail(st, CX_ENODEV, "power cut");
	}
	m->boot = start;
	return CX_OK;
}

static inline struct failsafe_io fc_io(struct fc_mem *m)
{
	return (struct failsafe_io){fc_write, fc_read, fc_boot, NULL, m};
}

static inline struct fc_mem fc_mem(uint8_t *flash, size_t len)
{
	return (struct fc_mem){.flash = flash, .len = len, .cut_call = -1};
}

static inline bool fc_magic(const uint8_t *f, uint32_t at, bool fs4)
{
	const struct fs3_format *fmt = fs3_format_of(fs4 ? FMT_FS4 : FMT_FS3);
	for (int i = 0; i < 4; i++)
		if (be32(f + at + 4 * i) != fmt->magic[i])
			return false;
	return true;
}

/* What the card would boot: an image with its magic at a slot start that our reader accepts whole
 * (fs3_parse and fs3_verdict over the whole flash), read as if it were the only one (the other
 * slot's magic dword zeroed in a copy: FS4's reader refuses two). Its start, or -1; *out gets its
 * info, mfg and dev (its buf points to freed memory). */
static inline int64_t fc_bootable(const uint8_t *flash, size_t len, bool fs4, int *nvalid, struct fs3_image *out)
{
	uint32_t s = fc_slot_size(fs4);
	uint8_t *copy = malloc(len);
	struct fs3_image *img = malloc(sizeof(*img));
	int64_t found = -1;

	*nvalid = 0;
	for (uint32_t at = 0; at < 2 * s; at += s) {
		struct cx_status st = {0};
		if (!fc_magic(flash, at, fs4))
			continue;
		memcpy(copy, flash, len);
		if (fc_magic(flash, at ^ s, fs4))
			memset(copy + (at ^ s), 0, 4);
		if (fs3_parse(copy, len, img, &st) || fs3_verdict(img, &st) || img->start != at)
			continue;
		++*nvalid;
		if (found < 0) {
			found = at;
			if (out)
				*out = *img;
		}
	}
	free(copy);
	free(img);
	return found;
}

#endif
