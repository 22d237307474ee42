/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_burn_rom.c — burn --rom keep|image|none|FILE (ops/burn_rom.h) against the card model
 * in process: the ROM the card boots with afterwards, byte for byte, and the ROM the result
 * says went on (rom_before, rom_after); a ROM file the burn refuses writes nothing. And
 * drom/brom on a card (ops/rom_card.h): flint's refusals first, the after hook (the
 * history) once on every path. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/rom_insert.h"
#include "ops/burn.h"
#include "ops/rom_card.h"
#include "card_fixture.h"
#include "card_ops.h"
#include "flint_view.h"
#include "mkimage.h"

#define SMALL "--chip cx3 --ddr 2 --ddr-size 0x2000 --guid 0002c90300c0ffe0 --mac 0002c9c0ffe0"
#define HP544_ROMS "--chip cx3 --ddr 2 --ddr-size 0x1000 --roms hp544"

/* The ROM section data of the image mkfs2 makes from opts (malloc'd), or NULL. */
static uint8_t *rom_of(const char *opts, size_t *len)
{
	size_t n;
	uint8_t *img = mkimage(opts, &n), *out = NULL;
	struct fs2_image *p = malloc(sizeof(*p));
	struct cx_status st = {0};
	const uint8_t *rom;

	assert_non_null(p);
	assert_int_equal(fs2_parse(img, n, p, &st), CX_OK);
	*len = 0;
	if (!rom_sect_data(p, &rom, len, &st)) {
		out = malloc(*len);
		assert_non_null(out);
		memcpy(out, rom, *len);
	}
	free(p);
	free(img);
	return out;
}

/* Burn the image of img_opts with the ROM pick; the card is power-cycled after. */
static int burn(struct cxsim_card *c, const char *img_opts, enum rom_pick pick, const uint8_t *file, size_t file_len,
		struct burn_result *r, struct cx_status *st)
{
	struct burn_opts o = {.rom = pick, .rom_file = file, .rom_file_len = file_len};

	o.hooks.confirm = confirm_yes;
	int rc = run_burn(c, img_opts, &o, r, st);
	cxsim_power_cycle(c);
	return rc;
}

/* The card boots the image flint reads, and its ROM is want (want_len 0: none). */
static void card_rom_is(struct cxsim_card *c, const uint8_t *want, size_t want_len)
{
	struct flint_view v;

	assert_true(cxsim_boot_info(c)->booted);
	assert_null(flint_view_lowest_whole(c, &v));
	assert_int_equal(v.start, cxsim_boot_info(c)->start);
	assert_int_equal(v.rom_len, want_len);
	assert_true(v.rom_hash == flint_view_rom_hash(want, want_len));
}

/* "PXE 3.4.752, UEFI ..." of a result's ROM set. */
static const char *text(const struct rom_set *s)
{
	static char buf[2][160];
	static int k;

	k ^= 1;
	return rom_set_text(s, buf[k], sizeof(buf[k]));
}

static void test_each_pick(void **state)
{
	(void)state;
	struct burn_result r;
	struct cx_status st = {0};
	size_t card_len, img_len, hp_len, v800_len;
	uint8_t *card_rom = rom_of(SMALL " --rom-ver 3.4.700", &card_len);
	uint8_t *img_rom = rom_of(SMALL, &img_len);
	uint8_t *hp = rom_of(HP544_ROMS, &hp_len);
	uint8_t *v800 = rom_of(SMALL " --rom-ver 3.4.800", &v800_len);
	struct cxsim_card *c = card_new(&(struct card_spec){.chip = CXSIM_CX3, .part = "W25Q16",
		.image = SMALL " --fw 2.40.7000 --rom-ver 3.4.700", .slot = 0});

	card_rom_is(c, card_rom, card_len);
	/* keep, onto an image with its own ROM: the card's takes its place (issue 19's keep;
	 * flint 4.21's FS2 burn would keep the image's, which is --rom image here). */
	assert_int_equal(burn(c, SMALL " --fw 2.42.5000", ROM_KEEP, NULL, 0, &r, &st), CX_OK);
	assert_true(r.rom_carried);
	assert_string_equal(text(&r.rom_before), "PXE 3.4.700");
	assert_string_equal(text(&r.rom_image), "PXE 3.4.752");
	assert_string_equal(text(&r.rom_after), "PXE 3.4.700");
	card_rom_is(c, card_rom, card_len);
	/* keep, onto an image without one: the card's is carried in (flint's burn too). */
	assert_int_equal(burn(c, SMALL " --fw 2.42.5100 --no-rom", ROM_KEEP, NULL, 0, &r, &st), CX_OK);
	assert_true(r.rom_carried);
	assert_string_equal(text(&r.rom_after), "PXE 3.4.700");
	card_rom_is(c, card_rom, card_len);
	/* image: as it is, its ROM in place of the card's. */
	assert_int_equal(burn(c, SMALL " --fw 2.42.5150", ROM_IMAGE, NULL, 0, &r, &st), CX_OK);
	assert_false(r.rom_carried);
	assert_string_equal(text(&r.rom_after), "PXE 3.4.752");
	card_rom_is(c, img_rom, img_len);
	/* keep, when the image carries the card's own ROM: nothing to change. */
	assert_int_equal(burn(c, SMALL " --fw 2.42.5160", ROM_KEEP, NULL, 0, &r, &st), CX_OK);
	assert_false(r.rom_carried);
	card_rom_is(c, img_rom, img_len);
	/* none: the image's ROM is removed. */
	assert_int_equal(burn(c, SMALL " --fw 2.42.5200", ROM_NONE, NULL, 0, &r, &st), CX_OK);
	assert_string_equal(text(&r.rom_before), "PXE 3.4.752");
	assert_string_equal(text(&r.rom_after), "none");
	card_rom_is(c, NULL, 0);
	/* keep, on a card without one: the image's is left out (a removed FlexBoot stays removed). */
	assert_int_equal(burn(c, SMALL " --fw 2.42.5250 --rom-ver 3.4.800", ROM_KEEP, NULL, 0, &r, &st), CX_OK);
	assert_true(r.rom_carried);
	assert_string_equal(text(&r.rom_image), "PXE 3.4.800");
	assert_string_equal(text(&r.rom_after), "none");
	card_rom_is(c, NULL, 0);
	/* image: as it is, its ROM onto a card that has none. */
	assert_int_equal(burn(c, SMALL " --fw 2.42.5300 --rom-ver 3.4.800", ROM_IMAGE, NULL, 0, &r, &st), CX_OK);
	assert_string_equal(text(&r.rom_before), "none");
	assert_string_equal(text(&r.rom_after), "PXE 3.4.800");
	card_rom_is(c, v800, v800_len);
	/* FILE: HP's three ROMs in place of the image's. */
	assert_int_equal(burn(c, SMALL " --fw 2.42.5400", ROM_FILE, hp, hp_len, &r, &st), CX_OK);
	assert_int_equal(r.rom_after.n, 3);
	assert_string_equal(text(&r.rom_before), "PXE 3.4.800");
	card_rom_is(c, hp, hp_len);
	/* image, without one: no ROM any more (flint's -use_image_rom). */
	assert_int_equal(burn(c, SMALL " --fw 2.42.5500 --no-rom", ROM_IMAGE, NULL, 0, &r, &st), CX_OK);
	assert_int_equal(r.rom_before.n, 3);
	assert_string_equal(text(&r.rom_after), "none");
	card_rom_is(c, NULL, 0);
	cxsim_free(c);
	free(card_rom);
	free(img_rom);
	free(hp);
	free(v800);
}

/* A ROM file the burn refuses: one line, its code, nothing erased or programmed. */
static void test_bad_rom_file_writes_nothing(void **state)
{
	(void)state;
	struct burn_result r;
	struct cx_status st = {0};
	size_t len;
	uint8_t *fw = mkimage(SMALL, &len);
	struct cxsim_card *c = card_new(&(struct card_spec){.chip = CXSIM_CX3, .part = "W25Q16",
		.image = SMALL " --fw 2.40.7000", .slot = 0});

	assert_int_not_equal(burn(c, SMALL " --fw 2.42.5000", ROM_FILE, fw, len, &r, &st), CX_OK);
	printf("an FS2 image as the ROM file: %s\n", st.msg);
	assert_null(strchr(st.msg, '\n'));
	assert_int_equal(cxsim_counters(c)->erases, 0);
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);
	assert_int_equal(r.out.state, CARD_UNTOUCHED);
	cxsim_free(c);
	free(fw);
}

struct after_spy {
	int calls, rc;
	enum card_state state;
};

static void after(void *ctx, int rc, const struct cx_status *st, const struct write_outcome *out)
{
	struct after_spy *a = ctx;

	(void)st;
	a->calls++;
	a->rc = rc;
	a->state = out->state;
}

static int rom_card_on(struct cxsim_card *c, struct rom_card_opts *o, struct after_spy *a, struct cx_status *st)
{
	struct device d;
	struct burn_result r;

	*a = (struct after_spy){0};
	*st = (struct cx_status){0}; /* cx_fail keeps the first failure */
	o->hooks.after = after;
	o->hooks.after_ctx = a;
	card_open(&d, c);
	int rc = rom_card(&d, o, &r, st);
	device_close(&d);
	assert_int_equal(a->calls, 1);
	assert_int_equal(a->rc, rc);
	return rc;
}

static void test_rom_card_refusals_and_history(void **state)
{
	(void)state;
	struct cx_status st = {0};
	struct after_spy a;
	size_t other_len;
	uint8_t *other = rom_of("--chip cx3 --ddr 2 --ddr-size 0x1000 --roms pxe:3.4.754:dev=4103", &other_len);
	/* FW older than 2.6.1410 (flint's IsFwSupportingRomModify). */
	struct cxsim_card *c = card_new(&(struct card_spec){.chip = CXSIM_CX3, .part = "W25Q16",
		.image = SMALL " --fw 2.6.1000 --no-product-ver", .slot = 0});
	assert_int_equal(rom_card_on(c, &(struct rom_card_opts){0}, &a, &st), CX_EUNSUPPORTED);
	assert_non_null(strstr(st.msg, "2.6.1410"));
	assert_int_equal(cxsim_counters(c)->erases + cxsim_counters(c)->bytes_programmed, 0);
	cxsim_free(c);
	c = card_new(&(struct card_spec){.chip = CXSIM_CX3, .part = "W25Q16", .image = SMALL " --fw 2.40.7000", .slot = 0});
	/* flint's gate: a Product Version and no --allow_rom_change. */
	assert_int_equal(rom_card_on(c, &(struct rom_card_opts){0}, &a, &st), CX_EUNSUPPORTED);
	assert_non_null(strstr(st.msg, "--allow_rom_change"));
	/* A ROM for another device (a CX3 Pro's), and no one to ask. */
	struct rom_card_opts o = {.rom = other, .rom_len = other_len, .allow_rom_change = true};
	assert_non_null(other);
	assert_int_equal(rom_card_on(c, &o, &a, &st), CX_EDECLINED);
	assert_non_null(strstr(st.msg, "4103"));
	assert_int_equal(cxsim_counters(c)->erases + cxsim_counters(c)->bytes_programmed, 0);
	/* drom, then drom again: nothing left to remove. */
	assert_int_equal(rom_card_on(c, &(struct rom_card_opts){.allow_rom_change = true}, &a, &st), CX_OK);
	assert_int_equal(a.state, CARD_NEW_BOOTS);
	cxsim_power_cycle(c);
	card_rom_is(c, NULL, 0);
	assert_int_equal(rom_card_on(c, &(struct rom_card_opts){.allow_rom_change = true}, &a, &st), CX_EABSENT);
	assert_int_equal(a.state, CARD_UNTOUCHED);
	cxsim_free(c);
	free(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_pick),
		cmocka_unit_test(test_bad_rom_file_writes_nothing),
		cmocka_unit_test(test_rom_card_refusals_and_history),
	};
	return cmocka_run_group_tests_name("burn_rom", tests, NULL, NULL);
}
