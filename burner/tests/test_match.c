/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_match.c — library/match.c: a card against a folder of generated images and a
 * generated board table. An HP ConnectX-3 mapped to the stock MCX354A image is OK; the
 * same target with another serdes lane map is RISKY and names the key; ConnectX-3 Pro,
 * A0-only, EN-only, unmapped, inferred, pinned-but-different targets each get their
 * verdict; ranking and the recommendation. Images come from build/host/mkfs2. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/fs2.h"
#include "image/ini.h"
#include "library/library.h"
#include "library/match.h"
#include "mkimage.h"
#include "scratch.h"
#include "util/fileio.h"

#define HP_PSID "HP_0280210019"
#define STOCK_PSID "MT_1090120019"   /* mkfs2's default ConnectX-3 PSID */
#define PRO_PSID "MT_1090111023"     /* mkfs2's default ConnectX-3 Pro PSID */
#define HW_CX3 0x1f5                 /* hw-access.md §1.2 */
#define REV_A1 1
#define URL "https://example.org/src"
/* The HP card: another PSID, another board name, the same hardware. */
#define HP_OPTS "--chip cx3 --psid " HP_PSID " --fw 2.40.5030 --ini-set 'PS_INFO.Name=HP 649281-B21' " \
		"--ini-set 'PS_INFO.Description=HP InfiniBand FDR/EN 10/40Gb Dual Port 544QSFP Adapter'"

struct fixture {
	char dir[64];
	char boards[96];
	struct board_table t;
	struct manifest m;
	/* the card */
	uint8_t *buf;
	size_t len;
	struct fs2_image img;
	char *ini;
	size_t ini_len;
	struct match_card card;
	struct match_result r;
};

static void gen_file(struct fixture *fx, const char *name, const char *opts)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", fx->dir, name);
	mkimage_file(path, opts);
}

static void write_boards(struct fixture *fx, const char *rows)
{
	struct cx_status st = {0};

	snprintf(fx->boards, sizeof(fx->boards), "%s/boards.txt", fx->dir);
	assert_int_equal(file_write(fx->boards, (const uint8_t *)rows, strlen(rows), &st), CX_OK);
	assert_int_equal(boards_load(fx->boards, &fx->t, &st), CX_OK);
}

/* The default table: the HP board maps to the stock one (stated). */
static const char *const default_rows =
	"HP | 649281-B21 | " HP_PSID " | cx3 | 103c:17c9 | MCX354A-FCBT | " STOCK_PSID " | vpi | FDR | stated | " URL
	" | - | -\n"
	"Mellanox | MCX354A-FCBT | " STOCK_PSID " | cx3 | - | MCX354A-FCBT | " STOCK_PSID " | vpi | FDR | stated | "
	URL " | - | -\n";

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/cx-match-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	match_free(&fx->r);
	manifest_free(&fx->m);
	boards_free(&fx->t);
	free(fx->buf);
	free(fx->ini);
	rm_rf(fx->dir);
	free(fx);
	return 0;
}

/* The card: the image mkfs2 makes from opts, as if read from its flash. */
static void card_from(struct fixture *fx, const char *opts)
{
	struct cx_status st = {0};
	char o[1024];

	snprintf(o, sizeof(o), "%s", opts);
	fx->buf = mkimage(o, &fx->len);
	assert_int_equal(fs2_parse(fx->buf, fx->len, &fx->img, &st), CX_OK);
	const struct fs2_info *in = &fx->img.info;
	fx->card.hw_id = in->hw_ids[0] & 0xFFFF;
	fx->card.rev = (uint8_t)(in->hw_ids[0] >> 16);
	fx->card.flash_size = 2u << 20;
	fx->card.current = &fx->img;
	fx->card.psid = in->psid;
	fx->card.have_fw = true;
	memcpy(fx->card.fw_ver, in->fw_ver, sizeof(fx->card.fw_ver));
	fx->card.dev_type = in->dev_type;
	if (fx->img.fwconf_sect >= 0) {
		const struct fs2_item *s = &fx->img.items[fx->img.fwconf_sect];
		assert_int_equal(ini_inflate(fx->buf + s->data_off, s->data_len, &fx->ini, &fx->ini_len, &st), CX_OK);
		fx->card.ini_text = fx->ini;
		fx->card.ini_len = fx->ini_len;
	}
}

static void run(struct fixture *fx, bool expert)
{
	struct cx_status st = {0};
	const char *dirs[] = {fx->dir};
	struct match_opts o = {.expert = expert};

	if (!fx->t.rows)
		write_boards(fx, default_rows);
	assert_int_equal(manifest_scan(dirs, 1, &fx->t, &fx->m, &st), CX_OK);
	assert_int_equal(match_card(&fx->card, &fx->m, &fx->t, &o, &fx->r, &st), CX_OK);
	assert_int_equal(fx->r.n, fx->m.n);
}

static const struct match_candidate *cand(struct fixture *fx, const char *name)
{
	for (size_t i = 0; i < fx->r.n; i++)
		if (!strcmp(fx->r.c[i].e->name, name))
			return &fx->r.c[i];
	fail_msg("no candidate %s", name);
	return NULL;
}

static bool any_reason(const struct match_candidate *c, const char *needle)
{
	for (int i = 0; i < c->nreasons; i++)
		if (strstr(c->reasons[i], needle))
			return true;
	return false;
}

static void print_candidate(const struct match_candidate *c)
{
	printf("# %s %s: %s\n", match_verdict_name(c->verdict), c->e->name, c->line);
	for (int i = 0; i < c->nreasons; i++)
		printf("#   - %s\n", c->reasons[i]);
}

/* ---- the cross-flash the issue names ---- */

static void test_hp_to_stock_is_ok(void **state)
{
	struct fixture *fx = *state;

	card_from(fx, HP_OPTS);
	gen_file(fx, "stock.bin", "--chip cx3 --fw 2.42.5000");
	run(fx, false);
	const struct match_candidate *c = cand(fx, "stock.bin");
	print_candidate(c);
	assert_int_equal(c->verdict, MATCH_OK);
	assert_int_equal(c->rel, REL_CROSS_FLASH);
	assert_non_null(c->via);
	assert_string_equal(c->via->oem_psid, HP_PSID);
	assert_int_equal(c->version_cmp, 1);
	assert_int_equal(c->nreasons, 0);
	assert_true(c->have_diff);
	assert_int_equal(c->diff.nrisky, 0);
	assert_true(c->diff.nexpected >= 3); /* PSID, Name, Description */
	assert_true(c->diff.nsame > 20);
	assert_int_equal(fx->r.best, 0);
	assert_non_null(strstr(c->line, "cross-flash"));
	assert_non_null(strstr(c->line, "upgrade"));
}

static void test_changed_serdes_map_is_risky(void **state)
{
	struct fixture *fx = *state;

	card_from(fx, HP_OPTS);
	gen_file(fx, "stock-swapped.bin", "--chip cx3 --fw 2.42.5000 --ini-set IB.tx_logic_1_serdes=2 "
		 "--ini-set IB.tx_logic_2_serdes=1");
	run(fx, false);
	const struct match_candidate *c = cand(fx, "stock-swapped.bin");
	print_candidate(c);
	assert_int_equal(c->verdict, MATCH_RISKY);
	assert_int_equal(c->rel, REL_CROSS_FLASH);
	assert_int_equal(c->diff.nrisky, 2);
	assert_true(any_reason(c, "tx_logic_1_serdes"));
	assert_true(any_reason(c, "tx_logic_2_serdes"));
	/* The pair itself names both values. */
	bool seen = false;
	for (size_t i = 0; i < c->diff.n; i++) {
		const struct ini_pair *p = &c->diff.pairs[i];
		if (p->cls == INI_RISKY && !strcmp(p->key, "tx_logic_1_serdes")) {
			assert_string_equal(p->card, "1");
			assert_string_equal(p->image, "2");
			seen = true;
		}
	}
	assert_true(seen);
	assert_int_equal(fx->r.best, 0); /* RISKY is still offered, with its reasons */
}

static void test_cx3pro_image_on_cx3_is_refused(void **state)
{
	struct fixture *fx = *state;

	card_from(fx, HP_OPTS);
	gen_file(fx, "pro.bin", "--chip cx3pro");
	run(fx, false);
	const struct match_candidate *c = cand(fx, "pro.bin");
	print_candidate(c);
	assert_int_equal(c->verdict, MATCH_REFUSED);
	assert_true(any_reason(c, "ConnectX-3 Pro"));
	assert_int_equal(c->reason_v[0], MATCH_REFUSED);
	assert_int_equal(fx->r.best, -1);
}

static void test_a0_image_on_a1_is_refused(void **state)
{
	struct fixture *fx = *state;

	card_from(fx, HP_OPTS);
	gen_file(fx, "a0.bin", "--chip cx3 --rev 0 --fw 2.42.5000");
	run(fx, false);
	const struct match_candidate *c = cand(fx, "a0.bin");
	print_candidate(c);
	assert_int_equal(c->verdict, MATCH_REFUSED);
	assert_true(any_reason(c, "revision"));
}

static void test_en_firmware_on_vpi_card_is_flagged(void **state)
{
	struct fixture *fx = *state;

	/* The target's PSID has no row of its own: its .ini's class code says EN. */
	write_boards(fx, "HP | 1-B21 | " HP_PSID " | cx3 | - | MCX312A-XCBT | MT_1080120023 | vpi | FDR | stated | "
		     URL " | - | -\n");
	card_from(fx, HP_OPTS);
	gen_file(fx, "en.bin", "--chip cx3 --psid MT_1080120023 --fw 2.42.5000 "
		 "--ini-set HCA.hca_header_class_code=0x020000");
	run(fx, false);
	const struct match_candidate *c = cand(fx, "en.bin");
	print_candidate(c);
	assert_int_equal(fx->r.card_port, BOARD_PORT_VPI);
	assert_int_equal(c->e->port, BOARD_PORT_EN);
	assert_int_equal(c->verdict, MATCH_RISKY);
	assert_true(any_reason(c, "Ethernet-only firmware on a VPI"));
	assert_true(any_reason(c, "hca_header_class_code"));
}

static void test_vpi_firmware_on_en_card_is_flagged(void **state)
{
	struct fixture *fx = *state;

	/* An EN board by the table: the row's port wins over everything else. */
	write_boards(fx, "HP | 1-B21 | " HP_PSID " | cx3 | - | MCX354A-FCBT | " STOCK_PSID " | en | 10GbE | stated | "
		     URL " | - | -\n");
	card_from(fx, HP_OPTS);
	gen_file(fx, "stock.bin", "--chip cx3 --fw 2.42.5000");
	run(fx, false);
	const struct match_candidate *c = cand(fx, "stock.bin");
	print_candidate(c);
	assert_int_equal(fx->r.card_port, BOARD_PORT_EN);
	assert_int_equal(c->verdict, MATCH_RISKY);
	assert_true(any_reason(c, "VPI/InfiniBand firmware on an Ethernet-only board"));
}

static void test_pinned_hash_mismatch_is_refused(void **state)
{
	struct fixture *fx = *state;
	char rows[1024];

	snprintf(rows, sizeof(rows),
		 "HP | 649281-B21 | " HP_PSID " | cx3 | - | MCX354A-FCBT | " STOCK_PSID " | vpi | FDR | stated | " URL
		 " | - | -\n"
		 "Mellanox | MCX354A-FCBT | " STOCK_PSID " | cx3 | - | MCX354A-FCBT | " STOCK_PSID
		 " | vpi | FDR | stated | " URL " | - | 2.42.5000=%064d\n", 0);
	write_boards(fx, rows);
	card_from(fx, HP_OPTS);
	gen_file(fx, "stock.bin", "--chip cx3 --fw 2.42.5000");
	gen_file(fx, "stock-old.bin", "--chip cx3 --fw 2.40.7000");
	run(fx, false);
	const struct match_candidate *c = cand(fx, "stock.bin");
	print_candidate(c);
	assert_int_equal(c->e->pin, PIN_MISMATCH);
	assert_int_equal(c->verdict, MATCH_REFUSED);
	assert_true(any_reason(c, "pinned"));
	/* The unpinned version is still offered, and it is the recommendation. */
	assert_int_equal(cand(fx, "stock-old.bin")->verdict, MATCH_OK);
	assert_string_equal(fx->r.c[fx->r.best].e->name, "stock-old.bin");
}

static void test_unmapped_psid_refused_unless_expert(void **state)
{
	struct fixture *fx = *state;

	card_from(fx, HP_OPTS);
	gen_file(fx, "other.bin", "--chip cx3 --psid MT_1090120099 --fw 2.42.5000");
	run(fx, false);
	const struct match_candidate *c = cand(fx, "other.bin");
	print_candidate(c);
	assert_int_equal(c->rel, REL_UNRELATED);
	assert_int_equal(c->verdict, MATCH_REFUSED);
	assert_true(any_reason(c, "expert mode"));
	match_free(&fx->r);
	manifest_free(&fx->m);
	run(fx, true);
	c = cand(fx, "other.bin");
	print_candidate(c);
	assert_int_equal(c->verdict, MATCH_RISKY);
}

static void test_psid_not_in_table_refused(void **state)
{
	struct fixture *fx = *state;

	card_from(fx, "--chip cx3 --psid DEL0000000001 --fw 2.40.5030");
	gen_file(fx, "stock.bin", "--chip cx3 --fw 2.42.5000");
	run(fx, false);
	const struct match_candidate *c = cand(fx, "stock.bin");
	assert_null(fx->r.card_row);
	assert_int_equal(c->verdict, MATCH_REFUSED);
	assert_true(any_reason(c, "not in the board table"));
}

/* The user's own board table ($CXFLASH_BOARDS_OWN, library/library.h) adds a board the
 * shipped table lacks: the cross-flash it maps is RISKY and says whose mapping it is; a
 * table that repeats a shipped PSID, or does not parse, is left out with the reason and
 * the rest of the library works. */
static void test_own_board_table(void **state)
{
	struct fixture *fx = *state;
	struct cx_status st = {0};
	struct library l;
	struct match_opts o = {0};
	char own[128];
	const char *dirs[] = {fx->dir};

	write_boards(fx, default_rows);
	snprintf(own, sizeof(own), "%s/own-boards.txt", fx->dir);
	const char *row = "# mine\nDell | X1 | DEL0000000001 | cx3 | 1028:0001 | MCX354A-FCBT | " STOCK_PSID
			  " | vpi | FDR | stated | " URL " | from my card's sticker | -\n";
	assert_int_equal(file_write(own, (const uint8_t *)row, strlen(row), &st), CX_OK);
	setenv("CXFLASH_BOARDS_OWN", own, 1);
	card_from(fx, "--chip cx3 --psid DEL0000000001 --fw 2.40.5030");
	gen_file(fx, "stock.bin", "--chip cx3 --fw 2.42.5000");
	assert_int_equal(library_open(fx->boards, dirs, 1, &l, &st), CX_OK);
	assert_string_equal(l.own_error, "");
	assert_string_equal(l.own_path, own);
	const struct board *b = boards_by_subsys(l.table, 0x1028, 0x0001, NULL);
	assert_non_null(b);
	assert_true(b->own);
	assert_int_equal(b->line, 2);
	assert_null(boards_by_subsys(l.table, 0x1028, 0x0001, b));
	assert_non_null(boards_by_subsys(l.table, 0x103c, 0x17c9, NULL)); /* the shipped rows still */
	assert_int_equal(match_card(&fx->card, &l.m, l.table, &o, &fx->r, &st), CX_OK);
	const struct match_candidate *c = cand(fx, "stock.bin");
	print_candidate(c);
	assert_int_equal(c->rel, REL_CROSS_FLASH);
	assert_int_equal(c->verdict, MATCH_RISKY);
	assert_true(any_reason(c, "your own board table's ("));
	match_free(&fx->r);
	library_close(&l);

	/* A shipped PSID again: left out, the shipped mapping stands. */
	row = "HP | 1 | " HP_PSID " | cx3 | - | MCX354A-FCBT | " STOCK_PSID " | vpi | - | stated | " URL " | - | -\n";
	assert_int_equal(file_write(own, (const uint8_t *)row, strlen(row), &st), CX_OK);
	assert_int_equal(library_open(fx->boards, dirs, 1, &l, &st), CX_OK);
	printf("# %s\n", l.own_error);
	assert_non_null(strstr(l.own_error, "is in cxrescue's table already"));
	assert_null(l.own_path);
	assert_false(boards_by_psid(l.table, HP_PSID)->own);
	library_close(&l);

	/* A row that does not parse: left out, with the file's line. */
	row = "Dell | X1 | DEL0000000001 | cx9 | - | - | - | - | - | stated | " URL " | - | -\n";
	assert_int_equal(file_write(own, (const uint8_t *)row, strlen(row), &st), CX_OK);
	assert_int_equal(library_open(fx->boards, dirs, 1, &l, &st), CX_OK);
	printf("# %s\n", l.own_error);
	assert_non_null(strstr(l.own_error, "own-boards.txt:1: unknown family"));
	assert_null(boards_by_psid(l.table, "DEL0000000001"));
	assert_int_equal(l.m.n, 1);
	library_close(&l);
	unsetenv("CXFLASH_BOARDS_OWN");
}

static void test_inferred_mapping_is_risky(void **state)
{
	struct fixture *fx = *state;

	write_boards(fx, "HP | 1-B21 | " HP_PSID " | cx3 | - | MCX354A-FCBT | " STOCK_PSID
		     " | vpi | FDR | inferred | " URL " | from the part's sibling | -\n");
	card_from(fx, HP_OPTS);
	gen_file(fx, "stock.bin", "--chip cx3 --fw 2.42.5000");
	run(fx, false);
	const struct match_candidate *c = cand(fx, "stock.bin");
	print_candidate(c);
	assert_int_equal(c->rel, REL_CROSS_FLASH);
	assert_int_equal(c->verdict, MATCH_RISKY);
	assert_true(any_reason(c, "inference"));
}

/* Issue 17: a ConnectX-3 Pro card holding an image with 512 KiB chunks, and an image of
 * its PSID built with 64 KiB chunks. The burn refuses it (ops/guard.h): so does match. */
static void test_chunk_size_mismatch_is_refused(void **state)
{
	struct fixture *fx = *state;

	card_from(fx, "--chip cx3pro --fw 2.40.7000");
	gen_file(fx, "pro-64k.bin", "--chip cx3pro --fw 2.42.5000 --chunk-log 0");
	gen_file(fx, "pro.bin", "--chip cx3pro --fw 2.42.5000");
	run(fx, false);
	const struct match_candidate *c = cand(fx, "pro-64k.bin");
	print_candidate(c);
	assert_int_equal(c->verdict, MATCH_REFUSED);
	assert_int_equal(c->burn_code, CX_EMISMATCH);
	assert_int_equal(c->burn_rule, GUARD_CHUNK);
	assert_true(any_reason(c, "the image's chunk size (0x10000) differs from the card's (0x80000)"));
	c = cand(fx, "pro.bin");
	assert_int_equal(c->verdict, MATCH_OK);
	assert_int_equal(c->burn_code, CX_OK);
	assert_string_equal(fx->r.c[fx->r.best].e->name, "pro.bin");
}

/* ---- the card's own PSID, ranking, unknown cards ---- */

static void test_same_psid_ranked_first_newest_first(void **state)
{
	struct fixture *fx = *state;

	card_from(fx, "--chip cx3 --fw 2.40.5030");
	gen_file(fx, "a-old.bin", "--chip cx3 --fw 2.40.7000");
	gen_file(fx, "b-new.bin", "--chip cx3 --fw 2.42.5000");
	gen_file(fx, "c-pro.bin", "--chip cx3pro");
	gen_file(fx, "d-down.bin", "--chip cx3 --fw 2.30.8000");
	gen_file(fx, "e-swapped.bin", "--chip cx3 --fw 2.42.5000 --ini-set IB.rx_logic_0_serdes=3");
	run(fx, false);
	for (size_t i = 0; i < fx->r.n; i++)
		print_candidate(&fx->r.c[i]);
	/* Same PSID: the vendor's own .ini for this board; differences are listed, not judged. */
	assert_string_equal(fx->r.c[0].e->name, "b-new.bin");
	assert_string_equal(fx->r.c[1].e->name, "e-swapped.bin");
	assert_int_equal(fx->r.c[1].verdict, MATCH_OK);
	assert_int_equal(fx->r.c[1].diff.nrisky, 1);
	assert_string_equal(fx->r.c[2].e->name, "a-old.bin");
	assert_string_equal(fx->r.c[3].e->name, "d-down.bin");
	assert_int_equal(fx->r.c[3].version_cmp, -1);
	assert_non_null(strstr(fx->r.c[3].line, "downgrade"));
	assert_string_equal(fx->r.c[4].e->name, "c-pro.bin");
	assert_int_equal(fx->r.c[4].verdict, MATCH_REFUSED);
	assert_int_equal(fx->r.c[0].rel, REL_SAME_PSID);
	assert_int_equal(fx->r.best, 0);
}

static void test_recovery_card_without_identity_is_risky(void **state)
{
	struct fixture *fx = *state;

	fx->card.hw_id = HW_CX3;
	fx->card.rev = REV_A1;
	fx->card.flash_size = 2u << 20;
	fx->card.recovery = true;
	gen_file(fx, "stock.bin", "--chip cx3 --fw 2.42.5000");
	gen_file(fx, "pro.bin", "--chip cx3pro");
	run(fx, false);
	const struct match_candidate *c = cand(fx, "stock.bin");
	print_candidate(c);
	assert_int_equal(c->rel, REL_UNKNOWN);
	assert_int_equal(c->verdict, MATCH_RISKY);
	assert_true(any_reason(c, "recovery mode"));
	assert_int_equal(c->version_cmp, 2);
	assert_int_equal(cand(fx, "pro.bin")->verdict, MATCH_REFUSED);
}

static void test_card_without_ini_makes_crossflash_risky(void **state)
{
	struct fixture *fx = *state;

	card_from(fx, "--chip cx3 --psid " HP_PSID " --fw 2.40.5030 --no-fw-conf");
	gen_file(fx, "stock.bin", "--chip cx3 --fw 2.42.5000");
	run(fx, false);
	const struct match_candidate *c = cand(fx, "stock.bin");
	assert_false(fx->r.have_card_ini);
	assert_int_equal(c->verdict, MATCH_RISKY);
	assert_true(any_reason(c, "no board .ini"));
}

static void test_bad_file_is_refused_not_dropped(void **state)
{
	struct fixture *fx = *state;
	char path[128];
	struct cx_status st = {0};

	card_from(fx, HP_OPTS);
	snprintf(path, sizeof(path), "%s/junk.bin", fx->dir);
	assert_int_equal(file_write(path, (const uint8_t *)"not an image", 12, &st), CX_OK);
	gen_file(fx, "stock.bin", "--chip cx3 --fw 2.42.5000");
	run(fx, false);
	assert_int_equal(fx->r.n, 2);
	assert_int_equal(cand(fx, "junk.bin")->verdict, MATCH_REFUSED);
	assert_string_equal(fx->r.c[fx->r.n - 1].e->name, "junk.bin");
	assert_string_equal(fx->r.c[0].e->name, "stock.bin");
}

static void test_empty_library_has_no_recommendation(void **state)
{
	struct fixture *fx = *state;

	card_from(fx, HP_OPTS);
	run(fx, false);
	assert_int_equal(fx->r.n, 0);
	assert_int_equal(fx->r.best, -1);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_hp_to_stock_is_ok),
		T(test_changed_serdes_map_is_risky),
		T(test_cx3pro_image_on_cx3_is_refused),
		T(test_a0_image_on_a1_is_refused),
		T(test_en_firmware_on_vpi_card_is_flagged),
		T(test_vpi_firmware_on_en_card_is_flagged),
		T(test_pinned_hash_mismatch_is_refused),
		T(test_unmapped_psid_refused_unless_expert),
		T(test_psid_not_in_table_refused),
		T(test_own_board_table),
		T(test_inferred_mapping_is_risky),
		T(test_chunk_size_mismatch_is_refused),
		T(test_same_psid_ranked_first_newest_first),
		T(test_recovery_card_without_identity_is_risky),
		T(test_card_without_ini_makes_crossflash_risky),
		T(test_bad_file_is_refused_not_dropped),
		T(test_empty_library_has_no_recommendation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
