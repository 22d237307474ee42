/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_guard_walk.c — burn and match apply the same rules (ops/guard.h). Every rule is
 * walked through both: on a card of the in-process model, an image that trips the rule
 * is refused by burn_card() (a dry run) with the code and reason that match_card(),
 * told of the same card as `match` and the wizard are (cardinfo, card_facts), reports
 * for it as REFUSED; an image (or option) just inside the rule passes both. Among them
 * the case: a ConnectX-3 Pro card with 512 KiB chunks and a library image of
 * its PSID built with 64 KiB chunks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "library/card_facts.h"
#include "library/match.h"
#include "ops/burn.h"
#include "ops/cardinfo.h"
#include "card_fixture.h"
#include "card_ops.h"
#include "mkimage.h"
#include "sim_cfg.h"
#include "util/fileio.h"

#define HP_PSID "HP_0280210019"
/* An image without a ROM that fits the 1040384 bytes a failsafe slot of 2 MiB holds
 * (tag 19: two 4 KiB sectors reserved), and with the card's ROM (8 KiB) does not. */
#define NEAR_FULL "--chip cx3 --no-rom --ddr 64 --ddr-size 16136"
#define NEAR_FULL_ROM "--chip cx3 --ddr 64 --ddr-size 16136" /* the same with mkfs2's 8 KiB ROM */

enum ident { OWN, NONE_GIVEN, GIVEN, IMAGE_GUIDS };

/* One way to burn: the library image, how it is spoiled, the burn's options. */
struct attempt {
	const char *image;           /* mkfs2 options */
	void (*spoil)(uint8_t **buf, size_t *len);
	bool allow_psid;
	enum ident ident;
	enum rom_pick rom;
};

struct walk_case {
	enum guard_rule rule;
	enum cxsim_chip chip;
	const char *part;
	const char *card;            /* mkfs2 options of the card's image; NULL: blank (recovery) */
	struct attempt trips, inside;
	int code;
	const char *needle;          /* in the reason */
};

static void flip_rom_byte(uint8_t **buf, size_t *len)
{
	assert_true(*len > 0x400);
	(*buf)[0x400] ^= 0xFF; /* inside the ROM section of mkfs2's default layout */
}

static void append_bytes(uint8_t **buf, size_t *len)
{
	*buf = realloc(*buf, *len + 16);
	assert_non_null(*buf);
	memset(*buf + *len, 0, 16);
	*len += 16;
}

static const struct walk_case cases[] = {
	{GUARD_VERIFY, CXSIM_CX3, "W25Q16", "--chip cx3", {"--chip cx3", flip_rom_byte, false, OWN, ROM_KEEP},
	 {"--chip cx3", NULL, false, OWN, ROM_KEEP}, CX_EIMAGE, "the image does not verify: ROM"},
	{GUARD_TRAILING, CXSIM_CX3, "W25Q16", "--chip cx3", {"--chip cx3", append_bytes, false, OWN, ROM_KEEP},
	 {"--chip cx3", NULL, false, OWN, ROM_KEEP}, CX_EIMAGE, "16 bytes after its last section"},
	{GUARD_CHIP, CXSIM_CX3, "W25Q16", "--chip cx3", {"--chip cx3pro --psid MT_1090120019", NULL, false, OWN, ROM_KEEP},
	 {"--chip cx3", NULL, false, OWN, ROM_KEEP}, CX_EMISMATCH, "for ConnectX-3 Pro (HW 0x1f7)"},
	{GUARD_CHIP, CXSIM_CX3, "W25Q16", "--chip cx3", {"--chip cx3 --rev 0", NULL, false, OWN, ROM_KEEP},
	 {"--chip cx3 --rev 1", NULL, false, OWN, ROM_KEEP}, CX_EMISMATCH, "revision 0x0 of ConnectX-3"},
	{GUARD_SIZE, CXSIM_CX3, "W25Q16", "--chip cx3", {"--chip cx3 --ddr 64 --ddr-size 0x5000", NULL, false, OWN, ROM_KEEP},
	 {"--chip cx3 --ddr 64 --ddr-size 0x3000", NULL, false, OWN, ROM_KEEP}, CX_EMISMATCH, "at most 1040384 fit"},
	/* The card's ROM goes into an image without one, and then it does not fit. */
	{GUARD_SIZE, CXSIM_CX3, "W25Q16", "--chip cx3", {NEAR_FULL, NULL, false, OWN, ROM_KEEP},
	 {NEAR_FULL, NULL, false, OWN, ROM_IMAGE}, CX_EMISMATCH, "bytes; at most 1040384 fit"},
	/* The image's own ROM makes it too big (keep burns it, as flint); --rom none takes it out. */
	{GUARD_SIZE, CXSIM_CX3, "W25Q16", "--chip cx3", {NEAR_FULL_ROM, NULL, false, OWN, ROM_KEEP},
	 {NEAR_FULL_ROM, NULL, false, OWN, ROM_NONE}, CX_EMISMATCH, "bytes; at most 1040384 fit"},
	{GUARD_PSID, CXSIM_CX3, "W25Q16", "--chip cx3 --psid " HP_PSID, {"--chip cx3", NULL, false, OWN, ROM_KEEP},
	 {"--chip cx3 --psid " HP_PSID, NULL, false, OWN, ROM_KEEP}, CX_EMISMATCH, "needs --allow_psid_change"},
	/* The case. */
	{GUARD_CHUNK, CXSIM_CX3PRO, "M25P16", "--chip cx3pro", {"--chip cx3pro --chunk-log 0", NULL, false, OWN, ROM_KEEP},
	 {"--chip cx3pro --chunk-log 3", NULL, false, OWN, ROM_KEEP}, CX_EMISMATCH,
	 "the image's chunk size (0x10000) differs from the card's (0x80000)"},
	{GUARD_IDENTITY, CXSIM_CX3PRO, "M25P16", NULL, {"--chip cx3pro", NULL, false, NONE_GIVEN, ROM_KEEP},
	 {"--chip cx3pro", NULL, false, GIVEN, ROM_KEEP}, CX_EVALUE, "the card is in recovery mode"},
	{GUARD_IDENTITY, CXSIM_CX3, "W25Q16", "--chip cx3 --blank-guids", {"--chip cx3", NULL, false, OWN, ROM_KEEP},
	 {"--chip cx3", NULL, false, IMAGE_GUIDS, ROM_KEEP}, CX_EVALUE, "the card's GUIDs are blank"},
};

static struct cxsim_card *make_card(const struct walk_case *k)
{
	struct cxsim_params p;

	cxsim_params_default(&p, k->chip);
	snprintf(p.flash_part, sizeof(p.flash_part), "%s", k->part);
	struct cxsim_card *c = cxsim_new(&p);
	assert_non_null(c);
	if (k->card)
		card_install(c, k->card, 0);
	return c;
}


static void options(const struct attempt *a, struct identity_opts *id, struct guard_opts *g)
{
	memset(id, 0, sizeof(*id));
	if (a->ident == GIVEN) {
		id->given.have_guids = id->given.have_macs = true;
		patch_expand_guid(0x0002c90300123400ull, id->given.guid);
		patch_expand_mac(0x0002c9123400ull, id->given.mac);
	}
	id->use_image_guids = a->ident == IMAGE_GUIDS;
	memset(g, 0, sizeof(*g));
	g->allow_psid_change = a->allow_psid;
	g->ident = id;
}

/* burn_card() of the image (a dry run: the rules are all before the write). */
static int burn(struct cxsim_card *c, const uint8_t *img, size_t len, const struct attempt *a, struct cx_status *st)
{
	struct burn_opts o = {0};
	struct burn_result r;
	struct guard_opts g;

	options(a, &o.ident, &g);
	o.guard = g;
	o.guard.ident = NULL; /* burn_card() takes o.ident */
	o.rom = a->rom;
	o.dry_run = true;
	o.hooks.confirm = confirm_yes;
	return run_burn_image(c, img, len, &o, &r, st);
}

/* What match_card() was told and said; the verdict points into the rest. */
struct judged {
	struct cardinfo ci;
	struct card_facts k;
	struct manifest m;
	struct match_result r;
};

/* match_card() of the folder holding only the image, for the card as cardinfo reads it. */
static void judge(struct cxsim_card *c, const char *dir, const struct attempt *a, struct judged *j)
{
	struct identity_opts id;
	struct guard_opts g;
	struct cx_status st = {0};
	struct device d;
	const char *dirs[] = {dir};

	memset(j, 0, sizeof(*j));
	card_open(&d, c);
	assert_int_equal(cardinfo_read(&d, &j->ci, &st), CX_OK);
	device_close(&d);
	card_facts_from_info(&j->k, &j->ci);
	options(a, &id, &g);
	struct match_opts mo = {.burn = &g, .rom = {.pick = a->rom}};
	assert_int_equal(manifest_scan(dirs, 1, NULL, &j->m, &st), CX_OK);
	assert_int_equal(j->m.n, 1);
	assert_int_equal(match_card(&j->k.mc, &j->m, NULL, &mo, &j->r, &st), CX_OK);
	assert_int_equal(j->r.n, 1);
}

static void judged_free(struct judged *j)
{
	match_free(&j->r);
	manifest_free(&j->m);
	card_facts_free(&j->k);
	cardinfo_free(&j->ci);
	free(j);
}

static bool has_reason(const struct match_candidate *m, const char *text)
{
	for (int i = 0; i < m->nreasons; i++)
		if (!strcmp(m->reasons[i], text))
			return true;
	return false;
}

static void print(const char *what, int rc, const char *msg, const struct match_candidate *m)
{
	printf("#   %s: burn %d \"%s\"; match %s, burn_code %d, rule %s\n", what, rc, rc ? msg : "",
	       match_verdict_name(m->verdict), m->burn_code, guard_rule_name(m->burn_rule));
	for (int i = 0; i < m->nreasons; i++)
		printf("#     - %s: %s\n", match_verdict_name(m->reason_v[i]), m->reasons[i]);
}

static void attempt(const struct walk_case *k, const struct attempt *a, bool trips)
{
	char dir[] = "/tmp/cx-walk-XXXXXX", path[64], opts[256];
	struct cx_status st = {0};
	struct judged *j = malloc(sizeof(*j));
	size_t len;

	assert_non_null(mkdtemp(dir));
	snprintf(opts, sizeof(opts), "%s", a->image);
	uint8_t *img = mkimage(opts, &len);
	if (a->spoil)
		a->spoil(&img, &len);
	snprintf(path, sizeof(path), "%s/image.bin", dir);
	assert_int_equal(file_write(path, img, len, &st), CX_OK);

	struct cxsim_card *c = make_card(k);
	cxsim_counters_reset(c);
	int rc = burn(c, img, len, a, &st);
	assert_non_null(j);
	judge(c, dir, a, j);
	const struct match_candidate *m = &j->r.c[0];
	print(trips ? "trips" : "inside", rc, st.msg, m);
	if (trips) {
		assert_int_equal(rc, k->code);
		assert_non_null(strstr(st.msg, k->needle));
		assert_int_equal(m->verdict, MATCH_REFUSED);
		assert_int_equal(m->burn_code, rc);
		assert_int_equal(m->burn_rule, k->rule);
		assert_true(has_reason(m, st.msg));
	} else {
		assert_int_equal(rc, CX_OK);
		assert_int_equal(m->burn_code, CX_OK);
		assert_int_equal(m->burn_rule, GUARD_NRULES);
		assert_int_not_equal(m->verdict, MATCH_REFUSED);
	}
	assert_int_equal(cxsim_counters(c)->erases + cxsim_counters(c)->bytes_programmed, 0);
	judged_free(j);
	cxsim_free(c);
	free(img);
	unlink(path);
	rmdir(dir);
}

static void test_every_rule_through_burn_and_match(void **state)
{
	bool walked[GUARD_NRULES] = {false};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct walk_case *k = &cases[i];
		printf("# rule %s: %s\n", guard_rule_name(k->rule), k->needle);
		attempt(k, &k->trips, true);
		attempt(k, &k->inside, false);
		walked[k->rule] = true;
	}
	for (int r = 0; r < GUARD_NRULES; r++)
		if (!walked[r])
			fail_msg("rule %s has no case here", guard_rule_name((enum guard_rule)r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_rule_through_burn_and_match),
	};
	return cmocka_run_group_tests_name("guard walk", tests, NULL, NULL);
}
