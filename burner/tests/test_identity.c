/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_identity.c — which GUIDs, MACs and VSD a burn leaves on the card. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/identity.h"
#include "mkimage.h"
#include "parsed_image.h"

/* The image of opts with one DDR section (small and quick), parsed. */
static void gen(const char *opts, struct parsed_image *im)
{
	char o[512];

	snprintf(o, sizeof(o), "--ddr 1 %s", opts);
	mkimage_parsed(o, im);
}

/* Decide, apply, re-parse: the result must verify and carry the identity. */
static void burn_identity(const struct parsed_image *card, struct parsed_image *img, const struct identity_opts *o,
			  struct fs2_image *out)
{
	struct identity id;
	struct cx_status st = {0};

	assert_int_equal(identity_decide(card ? &card->fs : NULL, &img->fs, o, &id, &st), CX_OK);
	assert_int_equal(identity_apply(img->buf, &img->fs, &id, &st), CX_OK);
	assert_int_equal(fs2_parse(img->buf, img->len, out, &st), CX_OK);
	assert_int_equal(fs2_verdict(out, &st), CX_OK);
}

static void test_card_identity_is_kept(void **state)
{
	(void)state;
	struct parsed_image card, img;
	struct fs2_image out;
	struct identity_opts o = {0};
	gen("--chip cx3 --guid 0002c90300abcd00 --mac 0002c9abcd00 --vsd CARDVSD", &card);
	gen("--chip cx3 --fw 2.42.5000 --vsd IMAGEVSD", &img);
	burn_identity(&card, &img, &o, &out);
	assert_int_equal(out.guids.guid[0], 0x0002c90300abcd00ull);
	assert_int_equal(out.guids.guid[3], 0x0002c90300abcd03ull);
	assert_int_equal(out.guids.mac[1], 0x0002c9abcd01ull);
	assert_string_equal(out.info.vsd, "CARDVSD");
	free(card.buf);
	free(img.buf);
}

static void test_given_and_image_values(void **state)
{
	(void)state;
	struct parsed_image card, img;
	struct fs2_image out;
	struct identity_opts o = {0};
	gen("--chip cx3 --guid 0002c90300abcd00 --mac 0002c9abcd00", &card);
	gen("--chip cx3 --vsd IMAGEVSD", &img);
	o.given.have_macs = true;
	patch_expand_mac(0x0002c9000077ull, o.given.mac);
	o.use_image_ps = true;
	burn_identity(&card, &img, &o, &out);
	assert_int_equal(out.guids.guid[0], 0x0002c90300abcd00ull); /* the card's GUIDs */
	assert_int_equal(out.guids.mac[0], 0x0002c9000077ull);      /* the given MACs */
	assert_string_equal(out.info.vsd, "IMAGEVSD");
	free(img.buf);

	struct identity_opts keep = {.use_image_guids = true, .vsd = "NEW"};
	gen("--chip cx3 --guid 0002c903000f0000 --mac 0002c90f0000", &img);
	burn_identity(&card, &img, &keep, &out);
	assert_int_equal(out.guids.guid[0], 0x0002c903000f0000ull);
	assert_string_equal(out.info.vsd, "NEW");
	free(card.buf);
	free(img.buf);
}

static void test_old_card_macs_are_derived(void **state)
{
	(void)state;
	struct parsed_image card, img;
	struct fs2_image out;
	struct identity_opts o = {0};
	gen("--chip cx2 --old-guids --guid 0002c90300123400", &card);
	gen("--chip cx2", &img); /* a 6-entry image onto a 4-GUID card: MACs as flint derives them */
	burn_identity(&card, &img, &o, &out);
	assert_int_equal(out.guids.mac[0], 0x0002c9123401ull);
	assert_int_equal(out.guids.mac[1], 0x0002c9123402ull);
	free(card.buf);
	free(img.buf);
}

/* Recovery mode with GUIDs read from the card's damaged image (o.recovered):
 * they and their MACs are kept like a running card's, and the source says so;
 * given GUIDs still win over them. */
static void test_recovered_guids_are_kept(void **state)
{
	(void)state;
	struct parsed_image damaged, img;
	struct fs2_image out;
	struct identity id;
	struct identity_opts o = {0};
	struct cx_status st = {0};
	gen("--chip cx3 --guid 0002c90300abcd00 --mac 0002c9abcd00", &damaged);
	gen("--chip cx3 --fw 2.42.5000", &img);
	o.recovered = &damaged.fs.guids;
	assert_int_equal(identity_decide(NULL, &img.fs, &o, &id, &st), CX_OK);
	assert_int_equal(id.source, ID_SRC_DAMAGED);
	burn_identity(NULL, &img, &o, &out);
	assert_int_equal(out.guids.guid[2], 0x0002c90300abcd02ull);
	assert_int_equal(out.guids.mac[0], 0x0002c9abcd00ull);
	o.given.have_guids = o.given.have_macs = true;
	patch_expand_guid(0x0002c90300000100ull, o.given.guid);
	patch_expand_mac(0x0002c9000100ull, o.given.mac);
	assert_int_equal(identity_decide(NULL, &img.fs, &o, &id, &st), CX_OK);
	assert_int_equal(id.source, ID_SRC_GIVEN);
	assert_int_equal(id.guid[0], 0x0002c90300000100ull);
	free(damaged.buf);
	free(img.buf);
}

/* Recovery mode with the VSD read from the card's damaged image (o.recovered_vsd):
 * kept like a running card's, as mstflint 3.8 keeps it, and the source says so;
 * --vsd still wins, --use_image_ps takes the image's, none read leaves the image's. */
static void test_recovered_vsd_is_kept(void **state)
{
	(void)state;
	struct parsed_image img;
	struct fs2_image out;
	struct identity id;
	struct identity_opts o = {0};
	struct cx_status st = {0};
	struct fs2_guids g = {0};
	gen("--chip cx3 --fw 2.42.5000 --vsd IMAGEVSD", &img);
	g.n = GUIDS_FULL;
	patch_expand_guid(0x0002c90300abcd00ull, g.guid);
	patch_expand_mac(0x0002c9abcd00ull, g.mac);
	o.recovered = &g;
	assert_int_equal(identity_decide(NULL, &img.fs, &o, &id, &st), CX_OK);
	assert_int_equal(id.vsd_source, ID_SRC_IMAGE);
	assert_false(id.set_vsd);
	o.recovered_vsd = "DAMAGEDVSD";
	assert_int_equal(identity_decide(NULL, &img.fs, &o, &id, &st), CX_OK);
	assert_int_equal(id.vsd_source, ID_SRC_DAMAGED);
	assert_string_equal(identity_source_name(id.vsd_source), "damaged-image");
	burn_identity(NULL, &img, &o, &out);
	assert_string_equal(out.info.vsd, "DAMAGEDVSD");
	o.vsd = "TYPED";
	assert_int_equal(identity_decide(NULL, &img.fs, &o, &id, &st), CX_OK);
	assert_int_equal(id.vsd_source, ID_SRC_GIVEN);
	assert_string_equal(id.vsd, "TYPED");
	o.vsd = NULL;
	o.use_image_ps = true;
	assert_int_equal(identity_decide(NULL, &img.fs, &o, &id, &st), CX_OK);
	assert_int_equal(id.vsd_source, ID_SRC_IMAGE);
	assert_false(id.set_vsd);
	free(img.buf);
}

static void test_refusals(void **state)
{
	(void)state;
	struct parsed_image img, blank;
	struct identity id;
	struct identity_opts o = {0};
	struct cx_status st = {0};
	gen("--chip cx3", &img);
	gen("--chip cx3 --blank-guids", &blank);

	/* Recovery: nothing to carry and nothing given. */
	assert_int_equal(identity_decide(NULL, &img.fs, &o, &id, &st), CX_EVALUE);
	assert_non_null(strstr(st.msg, "recovery"));
	/* Recovery with --use_image_guids: placeholders refused. */
	cx_status_clear(&st);
	o.use_image_guids = true;
	assert_int_equal(identity_decide(NULL, &img.fs, &o, &id, &st), CX_EVALUE);
	/* Recovery with GUIDs but no MACs on a 6-entry image: refused. */
	cx_status_clear(&st);
	o = (struct identity_opts){0};
	o.given.have_guids = true;
	patch_expand_guid(0x0002c90300000100ull, o.given.guid);
	assert_int_equal(identity_decide(NULL, &img.fs, &o, &id, &st), CX_EVALUE);
	assert_non_null(strstr(st.msg, "--mac"));
	/* ... and with both it is fine. */
	cx_status_clear(&st);
	o.given.have_macs = true;
	patch_expand_mac(0x0002c9000100ull, o.given.mac);
	assert_int_equal(identity_decide(NULL, &img.fs, &o, &id, &st), CX_OK);
	/* A blank card with nothing given; blank GUIDs given; a multicast MAC. */
	o = (struct identity_opts){0};
	cx_status_clear(&st);
	assert_int_equal(identity_decide(&blank.fs, &img.fs, &o, &id, &st), CX_EVALUE);
	cx_status_clear(&st);
	o.given.have_guids = o.given.have_macs = true;
	memset(o.given.guid, 0xFF, sizeof(o.given.guid));
	patch_expand_mac(0x0002c9000100ull, o.given.mac);
	assert_int_equal(identity_decide(NULL, &img.fs, &o, &id, &st), CX_EVALUE);
	assert_non_null(strstr(st.msg, "blank"));
	cx_status_clear(&st);
	patch_expand_guid(0x0002c90300000100ull, o.given.guid);
	patch_expand_mac(0x0102c9000100ull, o.given.mac);
	assert_int_equal(identity_decide(NULL, &img.fs, &o, &id, &st), CX_EVALUE);
	assert_non_null(strstr(st.msg, "multicast"));
	free(img.buf);
	free(blank.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_card_identity_is_kept),
		cmocka_unit_test(test_given_and_image_values),
		cmocka_unit_test(test_old_card_macs_are_derived),
		cmocka_unit_test(test_recovered_guids_are_kept),
		cmocka_unit_test(test_recovered_vsd_is_kept),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests_name("identity", tests, NULL, NULL);
}
