/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_devimage.c — reading the image out of a flash dump through the read callback:
 * both slots, chunk sizes, non-failsafe, how much it reads, and broken chains; the
 * meta read a burn uses, the byte-for-byte "same image?" comparison, and the read of
 * what q shows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/zebra.h"
#include "ops/devimage.h"
#include "mkimage.h"

struct mem {
	uint8_t *flash;
	size_t size;
	uint64_t bytes_read;
};

static int mem_read(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	struct mem *m = ctx;

	if ((uint64_t)addr + len > m->size)
		return cx_fail(st, CX_EFLASH, "read past the flash");
	memcpy(buf, m->flash + addr, len);
	m->bytes_read += len;
	return CX_OK;
}

static uint8_t *gen(const char *opts, size_t *len)
{
	return mkimage(opts, len);
}

static void check(const char *img_opts, const char *dump_opts, uint32_t start, unsigned slot,
		  unsigned npos)
{
	char opts[400];
	size_t ilen, flen;
	uint8_t *img = gen(img_opts, &ilen);
	snprintf(opts, sizeof(opts), "%s %s", img_opts, dump_opts);
	uint8_t *flash = gen(opts, &flen);
	struct mem m = {flash, flen, 0};
	struct dev_image d;
	struct cx_status st = {0};

	assert_int_equal(devimage_read(&d, mem_read, &m, (uint32_t)flen, npos, &st), CX_OK);
	assert_int_equal(d.parse_rc, CX_OK);
	assert_int_equal(d.start, start);
	assert_int_equal(d.slot, slot);
	assert_int_equal(d.len, ilen);
	assert_memory_equal(d.buf, img, ilen);
	/* Headers plus one pass over the image, not the whole flash. */
	assert_true(m.bytes_read < ilen + 4096);
	devimage_free(&d);
	free(img);
	free(flash);
}

static void test_slots_and_chunks(void **state)
{
	(void)state;
	check("--chip cx3", "--dump 0", 0, 0, 10);
	check("--chip cx3", "--dump 1", 0x80000, 1, 10);
	check("--chip cx3pro --chunk-log 0 --ddr 6 --flash-size 1048576", "--dump 1", 0x10000, 1, 10);
	check("--chip cx2 --old-guids", "--dump 1 --chunk-log 3", 0x80000, 1, 6);
}

static void test_non_failsafe(void **state)
{
	(void)state;
	size_t ilen;
	uint8_t *img = gen("--chip cx3 --no-failsafe", &ilen);
	uint8_t *flash = malloc(1 << 21);
	memset(flash, 0xFF, 1 << 21);
	memcpy(flash, img, ilen);
	struct mem m = {flash, 1 << 21, 0};
	struct dev_image d;
	struct cx_status st = {0};
	assert_int_equal(devimage_read(&d, mem_read, &m, 1 << 21, 10, &st), CX_OK);
	assert_false(d.failsafe);
	assert_int_equal(d.len, ilen);
	assert_memory_equal(d.buf, img, ilen);
	devimage_free(&d);
	free(img);
	free(flash);
}

static void test_empty_and_broken(void **state)
{
	(void)state;
	size_t flen;
	uint8_t *flash = malloc(1 << 21);
	memset(flash, 0xFF, 1 << 21);
	struct mem m = {flash, 1 << 21, 0};
	struct dev_image d;
	struct cx_status st = {0};
	assert_int_equal(devimage_read(&d, mem_read, &m, 1 << 21, 10, &st), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "no firmware image"));
	devimage_free(&d);
	free(flash);

	/* A section whose next pointer goes back: refused, not an endless walk. */
	flash = gen("--chip cx3 --dump 0 --ddr 2", &flen);
	uint32_t gp = 0x38;
	gp += (uint32_t)(((uint32_t)flash[gp + 4] << 24 | flash[gp + 5] << 16 | flash[gp + 6] << 8 |
			  flash[gp + 7]) + 4) * 4;
	/* second BOOT2 */
	gp += (uint32_t)(((uint32_t)flash[gp + 4] << 24 | flash[gp + 5] << 16 | flash[gp + 6] << 8 |
			  flash[gp + 7]) + 4) * 4;
	memset(flash + gp + 12, 0, 3);
	flash[gp + 15] = 0x38; /* the first section's next → 0x38 */
	m = (struct mem){flash, flen, 0};
	cx_status_clear(&st);
	assert_int_equal(devimage_read(&d, mem_read, &m, (uint32_t)flen, 10, &st), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "loops"));
	devimage_free(&d);
	free(flash);
}

/* The meta read: what a burn's checks need, from ~1.5 KiB of flash. */
static void meta_matches_full(const char *img_opts, const char *dump_opts, unsigned npos)
{
	char opts[400];
	size_t ilen, flen;
	uint8_t *img = gen(img_opts, &ilen);
	snprintf(opts, sizeof(opts), "%s %s", img_opts, dump_opts);
	uint8_t *flash = gen(opts, &flen);
	struct mem m = {flash, flen, 0};
	struct dev_image full, meta;
	struct cx_status st = {0};

	assert_int_equal(devimage_read(&full, mem_read, &m, (uint32_t)flen, npos, &st), CX_OK);
	m.bytes_read = 0;
	assert_int_equal(devimage_read_meta(&meta, mem_read, &m, (uint32_t)flen, npos, &st), CX_OK);
	assert_true(m.bytes_read < 4096);
	assert_true(meta.meta && !full.meta);
	assert_int_equal(meta.parse_rc, CX_OK);
	assert_int_equal(meta.start, full.start);
	assert_int_equal(meta.slot, full.slot);
	assert_int_equal(meta.len, ilen);
	assert_int_equal(meta.img.nitems, full.img.nitems);
	for (int i = 0; i < full.img.nitems; i++) {
		assert_int_equal(meta.img.items[i].off, full.img.items[i].off);
		assert_int_equal(meta.img.items[i].len, full.img.items[i].len);
	}
	assert_string_equal(meta.img.info.psid, full.img.info.psid);
	assert_string_equal(meta.img.info.vsd, full.img.info.vsd);
	assert_memory_equal(meta.img.info.fw_ver, full.img.info.fw_ver, sizeof(full.img.info.fw_ver));
	assert_memory_equal(&meta.img.guids, &full.img.guids, sizeof(full.img.guids));
	assert_int_equal(meta.img.failsafe, full.img.failsafe);
	assert_int_equal(meta.img.log2chunk, full.img.log2chunk);
	assert_true(devimage_known_match(&meta, img, ilen));
	assert_true(devimage_known_match(&full, img, ilen));
	assert_false(devimage_known_match(&meta, img, ilen - 4));
	/* The GUID section is among what was read. */
	img[full.img.guid_ptr] ^= 1;
	assert_false(devimage_known_match(&meta, img, ilen));
	devimage_free(&full);
	devimage_free(&meta);
	free(img);
	free(flash);
}

static void test_meta_read(void **state)
{
	(void)state;
	meta_matches_full("--chip cx3 --ddr 12", "--dump 0", 10);
	meta_matches_full("--chip cx3 --ddr 12", "--dump 1", 10);
	meta_matches_full("--chip cx2 --old-guids", "--dump 1 --chunk-log 3", 6);
	meta_matches_full("--chip cx3pro --chunk-log 0 --ddr 6 --flash-size 1048576", "--dump 1", 10);
}

/* "Same image?" from the flash's bytes: equal, another version, and the same
 * version with one byte damaged deep inside (stored CRCs and versions would
 * say "same"). */
static void test_same(void **state)
{
	(void)state;
	const char *opts = "--chip cx3 --ddr 12 --fw 2.42.5000";
	char o[200];
	size_t ilen, flen, olen;
	uint8_t *img = gen(opts, &ilen);
	snprintf(o, sizeof(o), "%s --dump 1", opts);
	uint8_t *flash = gen(o, &flen);
	uint8_t *other = gen("--chip cx3 --ddr 12 --fw 2.42.6000", &olen);
	struct mem m = {flash, flen, 0};
	struct dev_image d;
	struct cx_status st = {0};
	bool same;

	assert_int_equal(devimage_read_meta(&d, mem_read, &m, (uint32_t)flen, 10, &st), CX_OK);
	m.bytes_read = 0;
	assert_int_equal(devimage_same(&d, mem_read, &m, img, ilen, &same, &st), CX_OK);
	assert_true(same);
	assert_int_equal(m.bytes_read, ilen); /* every byte, once */

	/* Another version of the same length: the boot record's full CRC already
	 * differs in what the meta read holds, so nothing more is read. */
	assert_int_equal(olen, ilen);
	m.bytes_read = 0;
	assert_int_equal(devimage_same(&d, mem_read, &m, other, olen, &same, &st), CX_OK);
	assert_false(same);
	assert_int_equal(m.bytes_read, 0);

	/* One byte of a DDR section damaged on the flash, in slot 1's second chunk. */
	const struct fs2_item *ddr = NULL;
	for (int i = 0; i < d.img.nitems && !ddr; i++)
		if (d.img.items[i].kind == FS2_ITEM_SECTION && d.img.items[i].type == FS2_DDR &&
		    d.img.items[i].off > ilen / 2)
			ddr = &d.img.items[i];
	assert_non_null(ddr);
	uint32_t at = ddr->data_off + 100;
	uint32_t phys = zebra_cont2phys(at, d.log2chunk, d.slot);
	flash[phys] ^= 0x10;
	m.bytes_read = 0;
	assert_int_equal(devimage_same(&d, mem_read, &m, img, ilen, &same, &st), CX_OK);
	assert_false(same);
	assert_int_equal(m.bytes_read, (at / 16 + 1) * 16); /* stopped at that block */
	devimage_free(&d);

	/* A whole read answers from memory. */
	m.bytes_read = 0;
	assert_int_equal(devimage_read(&d, mem_read, &m, (uint32_t)flen, 10, &st), CX_OK);
	uint64_t whole = m.bytes_read;
	assert_int_equal(devimage_same(&d, mem_read, &m, img, ilen, &same, &st), CX_OK);
	assert_false(same);
	assert_int_equal(m.bytes_read, whole);
	devimage_free(&d);
	free(img);
	free(other);
	free(flash);
}

/* The first section of type t in img, or NULL. */
static const struct fs2_item *section(const struct fs2_image *img, uint32_t t)
{
	for (int i = 0; i < img->nitems; i++)
		if (img->items[i].kind == FS2_ITEM_SECTION && img->items[i].type == t)
			return &img->items[i];
	return NULL;
}

/* Damage one byte of item it (contiguous offset at) in the dump. */
static void damage(struct mem *m, const struct dev_image *d, uint32_t at)
{
	m->flash[zebra_cont2phys(at, d->log2chunk, d->slot)] ^= 0x10;
}

/* What q, list and the inventory show, and only that: headers, GUID, IMAGE_INFO and
 * the sections asked for (ROM, FW_CONF) read whole, the rest marked unread; its verdict judges what it read (a damaged
 * DDR section is v's to find, a damaged ROM is q's too, as flint's quick query). */
static void test_shown_read(void **state)
{
	(void)state;
	size_t flen;
	uint8_t *flash = gen("--chip cx3 --ddr 12 --ddr-size 0x8000 --dump 1", &flen);
	struct mem m = {flash, flen, 0};
	struct dev_image whole, shown;
	struct cx_status st = {0};

	assert_int_equal(devimage_read(&whole, mem_read, &m, (uint32_t)flen, 10, &st), CX_OK);
	assert_int_equal(fs2_verdict(&whole.img, &st), CX_OK);
	m.bytes_read = 0;
	assert_int_equal(devimage_read_shown(&shown, mem_read, &m, (uint32_t)flen, 10, DEVIMAGE_ROM | DEVIMAGE_INI, &st), CX_OK);
	assert_int_equal(shown.parse_rc, CX_OK);
	const struct fs2_item *rom = section(&whole.img, FS2_ROM), *conf = section(&whole.img, FS2_FW_CONF);
	const struct fs2_item *guid = section(&whole.img, FS2_GUID), *info = section(&whole.img, FS2_IMG_INFO);
	assert_non_null(rom);
	assert_non_null(conf);
	/* Every byte of the shown sections, their headers and the others' headers: no more. */
	uint64_t want = rom->len + conf->len + guid->len + info->len + 16 * (uint64_t)whole.img.nitems + 64 + 16 * 10;
	assert_true(m.bytes_read >= rom->data_len + conf->data_len);
	assert_true(m.bytes_read <= want);
	assert_true(m.bytes_read * 20 < whole.len);
	/* What it shows is the card's. */
	assert_memory_equal(shown.buf + rom->off, whole.buf + rom->off, rom->len);
	assert_memory_equal(shown.buf + conf->off, whole.buf + conf->off, conf->len);
	assert_int_equal(shown.img.nroms, whole.img.nroms);
	assert_memory_equal(shown.img.roms, whole.img.roms, sizeof(whole.img.roms[0]) * (size_t)whole.img.nroms);
	assert_string_equal(shown.img.info.psid, whole.img.info.psid);
	assert_memory_equal(&shown.img.guids, &whole.img.guids, sizeof(whole.img.guids));
	/* Read items are judged, the others are unread, never "wrong". */
	for (int i = 0; i < shown.img.nitems; i++) {
		const struct fs2_item *it = &shown.img.items[i];
		bool read = it->kind == FS2_ITEM_SECTION &&
			    (it->type == FS2_ROM || it->type == FS2_FW_CONF || it->type == FS2_GUID ||
			     it->type == FS2_IMG_INFO);
		assert_int_equal(it->unread, !read);
		if (read)
			assert_true(it->ok);
	}
	assert_int_equal(fs2_verdict(&shown.img, &st), CX_OK);
	devimage_free(&shown);

	/* q's read: the ROM, not the FW_CONF section it does not show. */
	m.bytes_read = 0;
	assert_int_equal(devimage_read_shown(&shown, mem_read, &m, (uint32_t)flen, 10, DEVIMAGE_ROM, &st), CX_OK);
	assert_true(m.bytes_read <= want - conf->len);
	assert_int_equal(shown.img.nroms, whole.img.nroms);
	assert_true(shown.img.items[shown.img.fwconf_sect].unread);
	assert_false(shown.img.items[shown.img.rom_sect].unread);
	assert_int_equal(fs2_verdict(&shown.img, &st), CX_OK);
	devimage_free(&shown);

	/* A damaged DDR section: q does not see it (v does). */
	const struct fs2_item *ddr = section(&whole.img, FS2_DDR);
	damage(&m, &whole, ddr->data_off + 7);
	assert_int_equal(devimage_read_shown(&shown, mem_read, &m, (uint32_t)flen, 10, DEVIMAGE_ROM | DEVIMAGE_INI, &st), CX_OK);
	assert_int_equal(fs2_verdict(&shown.img, &st), CX_OK);
	devimage_free(&shown);
	struct dev_image again;
	assert_int_equal(devimage_read(&again, mem_read, &m, (uint32_t)flen, 10, &st), CX_OK);
	assert_int_equal(fs2_verdict(&again.img, &st), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "DDR"));
	devimage_free(&again);
	damage(&m, &whole, ddr->data_off + 7);

	/* A damaged ROM section: q refuses it, naming it. */
	damage(&m, &whole, rom->data_off + rom->data_len / 2);
	cx_status_clear(&st);
	assert_int_equal(devimage_read_shown(&shown, mem_read, &m, (uint32_t)flen, 10, DEVIMAGE_ROM | DEVIMAGE_INI, &st), CX_OK);
	assert_int_equal(fs2_verdict(&shown.img, &st), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "ROM"));
	devimage_free(&shown);
	devimage_free(&whole);
	free(flash);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots_and_chunks),
		cmocka_unit_test(test_non_failsafe),
		cmocka_unit_test(test_empty_and_broken),
		cmocka_unit_test(test_meta_read),
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_shown_read),
	};
	return cmocka_run_group_tests_name("devimage", tests, NULL, NULL);
}
