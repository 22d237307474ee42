/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_burn_modes.c — burn_card()'s flint modes against the card model in process:
 * the card's expansion ROM carried into an image that has none (and not with
 * use_image_rom), --nofs on a recovery card and over a running image (asks), and a
 * dry run that sees write protection. */
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
#include "card_fixture.h"
#include "card_ops.h"
#include "mkimage.h"
#include "flint_view.h"

#define SMALL "--chip cx3 --ddr 2 --ddr-size 0x2000"
#define CARD_GUID 0x0002c90300c0ffe0ull

static struct cxsim_card *card(const char *opts, int slot, bool wp)
{
	struct card_spec s = {.chip = CXSIM_CX3, .part = "W25Q16", .slot = slot, .write_protect = wp};
	char o[300];

	if (opts) {
		snprintf(o, sizeof(o), "%s --guid %016llx --mac 0002c9c0ffe0", opts, (unsigned long long)CARD_GUID);
		s.image = o;
	}
	return card_new(&s);
}

/* run_burn(), and the card power-cycled after: it boots what the burn left. */
static int burn_cycled(struct cxsim_card *c, const char *img_opts, struct burn_opts *o, struct burn_result *r,
		    struct cx_status *st)
{
	int rc = run_burn(c, img_opts, o, r, st);

	cxsim_power_cycle(c);
	return rc;
}

/* The ROM the card boots with now, from its flash as flint reads it; 0 if none. */
static size_t card_rom(struct cxsim_card *c, uint8_t *out, size_t cap)
{
	size_t n;
	uint8_t *f = cxsim_flash(c, &n);
	uint32_t starts[2];
	int ns;
	struct cx_status st = {0};
	struct fs2_image *img = malloc(sizeof(*img));
	const uint8_t *rom;
	size_t rom_len = 0;

	assert_non_null(img);
	assert_int_equal(fs2_locate(f, n, starts, &ns, &st), CX_OK);
	/* Our images are smaller than a chunk: either slot holds them contiguous. */
	assert_int_equal(fs2_parse(f + starts[0], n - starts[0], img, &st), CX_OK);
	if (rom_sect_data(img, &rom, &rom_len, &st) == CX_OK) {
		assert_true(rom_len <= cap);
		memcpy(out, rom, rom_len);
	}
	free(img);
	return rom_len;
}

static void test_card_rom_is_carried(void **state)
{
	(void)state;
	static uint8_t before[1 << 16], after[1 << 16];
	struct burn_opts o = {0};
	struct burn_result r;
	struct cx_status st = {0};

	struct cxsim_card *c = card(SMALL " --fw 2.40.7000 --rom-ver 3.4.700", 0, false);
	size_t n = card_rom(c, before, sizeof(before));
	assert_true(n > 0);
	assert_int_equal(burn_cycled(c, SMALL " --fw 2.42.5000 --seed 3 --no-rom", &o, &r, &st), CX_OK);
	assert_true(r.rom_carried);
	assert_int_equal(cxsim_boot_info(c)->fw_ver[1], 42);
	assert_int_equal(card_rom(c, after, sizeof(after)), n);
	assert_memory_equal(after, before, n);
	struct flint_view fv;
	assert_null(flint_view_lowest_whole(c, &fv));

	/* --rom image (--use_image_rom): the image as it is, so no ROM any more. */
	o.rom = ROM_IMAGE;
	assert_int_equal(burn_cycled(c, SMALL " --fw 2.42.5100 --seed 4 --no-rom", &o, &r, &st), CX_OK);
	assert_false(r.rom_carried);
	assert_int_equal(card_rom(c, after, sizeof(after)), 0);
	assert_null(flint_view_lowest_whole(c, &fv));
	cxsim_free(c);
}

static void test_nofs(void **state)
{
	(void)state;
	struct burn_opts o = {0};
	struct burn_result r;
	struct cx_status st = {0};
	int asked = 0;

	/* A recovery card: --nofs puts the image at 0, no question. */
	struct cxsim_card *c = card(NULL, 0, false);
	o.nofs = true;
	o.ident.given.have_guids = o.ident.given.have_macs = true;
	patch_expand_guid(CARD_GUID, o.ident.given.guid);
	patch_expand_mac(0x0002c9c0ffe0ull, o.ident.given.mac);
	assert_int_equal(burn_cycled(c, SMALL " --fw 2.42.5000", &o, &r, &st), CX_OK);
	assert_int_equal(r.start, 0);
	assert_int_equal(cxsim_boot_info(c)->guids[0], CARD_GUID);
	cxsim_free(c);

	/* A running card whose image is at 0: --nofs asks, and no answer writes nothing. */
	c = card(SMALL " --fw 2.40.7000", 0, false);
	struct burn_opts q = {.nofs = true};
	cxsim_counters_reset(c);
	assert_int_equal(burn_cycled(c, SMALL " --fw 2.42.5000", &q, &r, &st), CX_EDECLINED);
	assert_non_null(strstr(st.msg, "--nofs"));
	assert_int_equal(cxsim_counters(c)->erases, 0);
	q.hooks.confirm = confirm_yes;
	q.hooks.confirm_ctx = &asked;
	cx_status_clear(&st);
	assert_int_equal(burn_cycled(c, SMALL " --fw 2.42.5000", &q, &r, &st), CX_OK);
	assert_int_equal(asked, 1);
	assert_int_equal(r.start, 0);
	assert_int_equal(cxsim_boot_info(c)->fw_ver[1], 42);
	assert_int_equal(cxsim_boot_info(c)->guids[0], CARD_GUID);
	cxsim_free(c);
}

static void test_dry_run_sees_write_protection(void **state)
{
	(void)state;
	struct burn_opts o = {.dry_run = true};
	struct burn_result r;
	struct cx_status st = {0};

	struct cxsim_card *c = card(SMALL " --fw 2.40.7000", 0, true);
	cxsim_counters_reset(c);
	assert_int_equal(burn_cycled(c, SMALL " --fw 2.42.5000", &o, &r, &st), CX_EPROTECTED);
	assert_int_equal(cxsim_counters(c)->erases, 0);
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);
	cxsim_free(c);
	c = card(SMALL " --fw 2.40.7000", 0, false);
	cx_status_clear(&st);
	assert_int_equal(burn_cycled(c, SMALL " --fw 2.42.5000", &o, &r, &st), CX_OK);
	assert_int_not_equal(r.start, 0); /* the other slot */
	cxsim_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_card_rom_is_carried),
		cmocka_unit_test(test_nofs),
		cmocka_unit_test(test_dry_run_sees_write_protection),
	};
	return cmocka_run_group_tests_name("burn modes", tests, NULL, NULL);
}
