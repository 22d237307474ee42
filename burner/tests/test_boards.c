/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_boards.c — library/boards.c: the real library/boards.txt loads and holds the
 * rows field-notes.md §3 states; every kind of bad row fails with "FILE:LINE: what"
 * and leaves an empty table; CRLF, a missing last newline, comments and padding are
 * accepted; lookups by PSID, subsystem and part; pinned hashes parsed, refused when
 * malformed or given twice, and looked up by PSID and version; mutated and cut
 * copies of the real table never crash. Run from the top of the repository, as make
 * check-unit and tests/test_unit.py do (test_backup finds build/ the same way). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "library/boards.h"
#include "prng.h"
#include "util/fileio.h"

#define REAL_TABLE "library/boards.txt"

/* A good row; rows of the tests below are variations of it. */
#define URL "https://example.org/a"
#define GOOD "HP | 1-B21 | HP_1 | cx3 | 103c:18d6 | MCX354A-FCB | MT_1 | vpi | FDR | stated | " URL " | - | -"

/* ---- a file per case ---- */

static void write_tmp(char *path, size_t n, const char *text, size_t len)
{
	snprintf(path, n, "/tmp/cx-boards-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static int load_text(const char *text, size_t len, struct board_table *t, struct cx_status *st, char *path,
		     size_t n)
{
	write_tmp(path, n, text, len);
	cx_status_clear(st);
	int rc = boards_load(path, t, st);
	unlink(path);
	return rc;
}

/* text must fail at line with a message containing what (after "PATH:LINE: "). */
static void expect_bad(const char *text, unsigned line, const char *what)
{
	char path[64], prefix[96];
	struct board_table t;
	struct cx_status st;

	int rc = load_text(text, strlen(text), &t, &st, path, sizeof(path));
	if (rc != CX_EIMAGE || !strstr(st.msg, what))
		print_error("text:\n%s\ngot %d: %s\nwanted line %u: ...%s...\n", text, rc, st.msg, line, what);
	assert_int_equal(rc, CX_EIMAGE);
	snprintf(prefix, sizeof(prefix), "%s:%u: ", path, line);
	if (strncmp(st.msg, prefix, strlen(prefix)))
		print_error("wanted prefix \"%s\", got \"%s\"\n", prefix, st.msg);
	assert_int_equal(strncmp(st.msg, prefix, strlen(prefix)), 0);
	assert_non_null(strstr(st.msg, what));
	assert_null(strchr(st.msg, '\n'));
	/* and it loads nothing */
	assert_int_equal(t.n, 0);
	assert_null(t.rows);
	assert_null(t.text);
	assert_null(t.name);
}

static void expect_ok(const char *text, size_t len, size_t nrows, struct board_table *t)
{
	char path[64];
	struct cx_status st;

	int rc = load_text(text, len, t, &st, path, sizeof(path));
	if (rc)
		print_error("%s\n", st.msg);
	assert_int_equal(rc, CX_OK);
	assert_int_equal(t->n, nrows);
}

/* ---- the real table ---- */

static void test_real_table(void **state)
{
	(void)state;
	struct board_table t;
	struct cx_status st = {0};

	int rc = boards_load(REAL_TABLE, &t, &st);
	if (rc)
		print_error("%s\n", st.msg);
	assert_int_equal(rc, CX_OK);
	assert_true(t.n >= 20);

	size_t inferred = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct board *b = &t.rows[i];
		assert_true(!strncmp(b->source, "https://", 8) || !strncmp(b->source, "http://", 7));
		assert_string_not_equal(board_family_name(b->family), "?");
		assert_true(strlen(b->oem_psid) >= 1 && strlen(b->oem_psid) <= BOARD_PSID_MAX);
		if (b->basis == BOARD_INFERRED) {
			assert_non_null(b->notes);
			inferred++;
		}
		if (b->stock_psid)
			assert_non_null(b->stock_part);
		/* A target that has a row of its own is the same chip: a table that sent an
		 * OEM CX3 to a CX3 Pro board would be wrong. */
		const struct board *target = b->stock_psid ? boards_by_psid(&t, b->stock_psid) : NULL;
		if (target)
			assert_int_equal(target->family, b->family);
		/* A stock board is its own target. */
		if (b->stock_psid && !strcmp(b->stock_psid, b->oem_psid))
			assert_true(board_has_part(b, b->stock_part));
	}
	assert_true(inferred >= 1 && inferred < t.n);

	/* field-notes.md §3.1, the rows a source states, by PSID */
	const struct board *hp = boards_by_psid(&t, "HP_0280210019");
	assert_non_null(hp);
	assert_string_equal(hp->oem, "HP");
	assert_int_equal(hp->family, CXF_CX3);
	assert_string_equal(hp->stock_psid, "MT_1090120019");
	assert_true(board_has_part(hp, "649281-B21"));
	assert_true(board_has_part(hp, "661685-001"));
	assert_int_equal(hp->port, BOARD_PORT_VPI);
	/* §3.3: HP subsystem 0x18D6 is 661685-001, the same card */
	assert_ptr_equal(boards_by_subsys(&t, 0x103c, 0x18d6, NULL), hp);

	assert_string_equal(boards_by_psid(&t, "ORC1090120019")->stock_psid, "MT_1090120019");
	assert_string_equal(boards_by_psid(&t, "ISL1090110018")->stock_part, "MCX354A-QCB");
	assert_string_equal(boards_by_psid(&t, "IBM1080111023")->oem, "IBM");
	assert_null(boards_by_psid(&t, "DEL1100001019")->stock_part); /* a Dell image, not stock */
	assert_null(boards_by_psid(&t, "DEL0A30000019")->stock_part);
	assert_int_equal(boards_by_psid(&t, "HP_1370110017")->family, CXF_CX3PRO);
	assert_int_equal(boards_by_psid(&t, "SUN0150000009")->family, CXF_CX2);
	/* the stock target of the HP and Oracle rows names itself */
	const struct board *fcb = boards_by_psid(&t, "MT_1090120019");
	assert_non_null(fcb);
	assert_string_equal(fcb->stock_psid, "MT_1090120019");
	boards_free(&t);
	assert_int_equal(t.n, 0);
}

/* ---- bad rows: one line, "FILE:LINE: what", and nothing loaded ---- */

static void test_bad_source(void **state)
{
	(void)state;
	expect_bad("HP | - | HP_1 | cx3 | - | - | - | - | - | stated | - | - | -\n", 1, "no source URL");
	expect_bad("HP | - | HP_1 | cx3 | - | - | - | - | - | stated | ftp://x.org/a | - | -\n", 1,
		   "source \"ftp://x.org/a\" is not an http:// or https:// URL");
	expect_bad("HP | - | HP_1 | cx3 | - | - | - | - | - | stated | https:// | - | -\n", 1, "is not an http://");
	expect_bad("HP | - | HP_1 | cx3 | - | - | - | - | - | stated | " URL " www.x.org | - | -\n", 1,
		   "source \"www.x.org\" is not");
	expect_bad("HP | - | HP_1 | cx3 | - | - | - | - | - | stated | see the forum | - | -\n", 1, "source \"see\"");
}

static void test_bad_psid(void **state)
{
	(void)state;
	expect_bad("# c\n\n# c\n\n\n\nHP | - | HP_02802100199999X | cx3 | - | - | - | - | - | stated | " URL " | - | -\n", 7,
		   "PSID \"HP_02802100199999X\" is 18 characters; at most 16");
	expect_bad("HP | - | hp_0280210019 | cx3 | - | - | - | - | - | stated | " URL " | - | -\n", 1,
		   "PSID \"hp_0280210019\" has 'h': only A-Z, 0-9 and _");
	expect_bad("HP | - | HP-0280 | cx3 | - | - | - | - | - | stated | " URL " | - | -\n", 1, "has '-'");
	expect_bad("HP | - | HP 0280 | cx3 | - | - | - | - | - | stated | " URL " | - | -\n", 1, "has ' '");
	expect_bad("HP | - | - | cx3 | - | - | - | - | - | stated | " URL " | - | -\n", 1, "no PSID");
	/* exactly 16 is the most */
	struct board_table t;
	const char *s16 = "HP | - | ABCDEFGHIJKLMNOP | cx3 | - | - | - | - | - | stated | " URL " | - | -\n";
	expect_ok(s16, strlen(s16), 1, &t);
	boards_free(&t);
	expect_bad("HP | - | ABCDEFGHIJKLMNOPQ | cx3 | - | - | - | - | - | stated | " URL " | - | -\n", 1,
		   "is 17 characters; at most 16");
	/* the stock PSID obeys the same rule */
	expect_bad("HP | - | HP_1 | cx3 | - | MCX | MT_10901200190000 | - | - | stated | " URL " | - | -\n", 1,
		   "stock PSID \"MT_10901200190000\" is 17 characters");
}

static void test_bad_family(void **state)
{
	(void)state;
	expect_bad("# 1\n# 2\n# 3\n# 4\n# 5\n# 6\n# 7\n# 8\n"
		   "HP | - | HP_1 | cx7 | - | - | - | - | - | stated | " URL " | - | -\n",
		   9, "unknown family \"cx7\" (cx2, cx3, cx3pro, cx4, cx4lx, cx5, cx6, cx6dx, cx6lx)");
	expect_bad("HP | - | HP_1 | CX3 | - | - | - | - | - | stated | " URL " | - | -\n", 1, "unknown family \"CX3\"");
	expect_bad("HP | - | HP_1 | - | - | - | - | - | - | stated | " URL " | - | -\n", 1, "unknown family \"-\"");
}

static void test_bad_field_count(void **state)
{
	(void)state;
	expect_bad("HP | - | HP_1 | cx3 | - | - | - | - | stated | " URL " | - | -\n", 1,
		   "12 fields; a row has 13: oem | oem_parts |");
	expect_bad("HP | - | HP_1 | cx3 | - | - | - | - | - | - | stated | " URL " | - | -\n", 1, "14 fields");
	expect_bad(GOOD " | extra\n", 1, "14 fields");
	expect_bad("just some words\n", 1, "1 field; a row has 13");
	/* a row of the twelve-field format, before pins */
	expect_bad("HP | - | HP_1 | cx3 | - | - | - | - | - | stated | " URL " | -\n", 1,
		   "12 fields; a row has 13: oem | oem_parts | oem_psid | family | subsys | stock_part | "
		   "stock_psid | port | speed | basis | source | notes | pins");
	/* an empty field is a missing "-" */
	expect_bad("HP |  | HP_1 | cx3 | - | - | - | - | - | stated | " URL " | - | -\n", 1,
		   "oem_parts (field 2) is empty; write - for none");
	expect_bad("HP | - | HP_1 | cx3 | - | - | - | - | - | stated | " URL " | - |\n", 1, "pins (field 13) is empty");
	expect_bad("HP | - | HP_1 | cx3 | - | - | - | - | - | stated | " URL " | a || b | -\n", 1, "15 fields");
}

static void test_bad_subsys(void **state)
{
	(void)state;
	static const char *const bad[] = {"103C:18D6", "103c18d6", "103c:18d", "103c:18d6x", "0x103c:18d6",
					  "103c-18d6", "g03c:18d6", ":", "103c:"};
	char row[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(row, sizeof(row), "HP | - | HP_1 | cx3 | %s | - | - | - | - | stated | " URL " | - | -\n", bad[i]);
		char what[64];
		snprintf(what, sizeof(what), "subsys \"%s\" is not vvvv:dddd in lower-case hex", bad[i]);
		expect_bad(row, 1, what);
	}
}

static void test_bad_stock_and_basis(void **state)
{
	(void)state;
	expect_bad("HP | - | HP_1 | cx3 | - | - | MT_1090120019 | - | - | stated | " URL " | - | -\n", 1,
		   "stock_psid \"MT_1090120019\" without a stock_part");
	expect_bad("HP | - | HP_1 | cx3 | - | MCX354A-FCB | MT_1 | - | - | inferred | " URL " | - | -\n", 1,
		   "basis inferred without notes");
	expect_bad("HP | - | HP_1 | cx3 | - | - | - | - | - | maybe | " URL " | - | -\n", 1,
		   "unknown basis \"maybe\" (stated, inferred)");
	expect_bad("HP | - | HP_1 | cx3 | - | - | - | eth | - | stated | " URL " | - | -\n", 1,
		   "unknown port \"eth\" (en, vpi, ib, -)");
	expect_bad("HP | - | HP_1 | cx3 | - | MCX 354A | - | - | - | stated | " URL " | - | -\n", 1,
		   "stock_part \"MCX 354A\" has ' '");
	expect_bad("HP | - | HP_1 | cx3 | - | MCX354A,MCX353A | - | - | - | stated | " URL " | - | -\n", 1,
		   "stock_part \"MCX354A,MCX353A\" has ','");
	expect_bad("- | - | HP_1 | cx3 | - | - | - | - | - | stated | " URL " | - | -\n", 1, "no oem: write unknown");
	expect_bad("HP | 649281-B21,,656089-001 | HP_1 | cx3 | - | - | - | - | - | stated | " URL " | - | -\n", 1,
		   "oem_parts \"649281-B21,,656089-001\" has an empty entry");
	expect_bad("HP | 649281-B21, 656089-001 | HP_1 | cx3 | - | - | - | - | - | stated | " URL " | - | -\n", 1,
		   "has ' ': a part number is A-Z a-z 0-9 - _ . /, parts separated by commas");
	expect_bad("HP | 649281-B21, | HP_1 | cx3 | - | - | - | - | - | stated | " URL " | - | -\n", 1, "empty entry");
}

static void test_bad_duplicate(void **state)
{
	(void)state;
	expect_bad(GOOD "\n# another card, the same PSID\n"
		   "Dell | - | HP_1 | cx2 | - | - | - | - | - | stated | " URL " | - | -\n",
		   3, "PSID \"HP_1\" is already on line 1: a PSID maps to one row");
	/* a stock PSID may be the target of many rows */
	struct board_table t;
	const char *two = GOOD "\nHP | - | HP_2 | cx3 | - | MCX354A-FCB | MT_1 | - | - | stated | " URL " | - | -\n";
	expect_ok(two, strlen(two), 2, &t);
	boards_free(&t);
}

static void test_bad_bytes(void **state)
{
	(void)state;
	expect_bad("HP\t| - | HP_1 | cx3 | - | - | - | - | - | stated | " URL " | - | -\n", 1, "tab at column 3");
	expect_bad(GOOD " caf\xc3\xa9\n", 1, "byte 0xc3 at column");
	expect_bad(GOOD "\x1b[2J\n", 1, "byte 0x1b at column");
	expect_bad(GOOD "\rx\n", 1, "byte 0x0d");

	/* a NUL anywhere, comments included */
	char path[64], prefix[128];
	struct board_table t;
	struct cx_status st;
	static const char nul_row[] = GOOD "\n# fine\nHP | - | HP_2\0 | cx3 | - | - | - | - | - | stated | " URL " | - | -\n";
	assert_int_equal(load_text(nul_row, sizeof(nul_row) - 1, &t, &st, path, sizeof(path)), CX_EIMAGE);
	snprintf(prefix, sizeof(prefix), "%s:3: NUL byte at column 14", path);
	assert_string_equal(st.msg, prefix);
	assert_null(t.rows);
	static const char nul_comment[] = "# a\0b\n" GOOD "\n";
	assert_int_equal(load_text(nul_comment, sizeof(nul_comment) - 1, &t, &st, path, sizeof(path)), CX_EIMAGE);
	snprintf(prefix, sizeof(prefix), "%s:1: NUL byte at column 4", path);
	assert_string_equal(st.msg, prefix);
}

static void test_bad_long_line(void **state)
{
	(void)state;
	size_t n = 5000;
	char *text = malloc(n + 64);
	assert_non_null(text);

	strcpy(text, "# ok\n");
	memset(text + 5, 'x', n);
	strcpy(text + 5 + n, "\n");
	expect_bad(text, 2, "line is 5000 bytes; at most 4096");
	/* a long comment is a long line too; so is a last line without a newline */
	text[5] = '#';
	expect_bad(text, 2, "line is 5000 bytes");
	text[5 + n] = '\0';
	expect_bad(text, 2, "line is 5000 bytes");
	free(text);

	/* the whole file has a cap */
	struct board_table t;
	struct cx_status st = {0};
	char *big = calloc(1, BOARDS_MAX_FILE + 1);
	assert_non_null(big);
	memset(big, '\n', BOARDS_MAX_FILE + 1);
	assert_int_equal(boards_parse("big.txt", big, BOARDS_MAX_FILE + 1, &t, &st), CX_EIMAGE);
	assert_string_equal(st.msg, "big.txt: 1048577 bytes; a board table is at most 1048576");
	assert_null(t.text);
	/* the same through a file */
	char path[64], want[128];
	write_tmp(path, sizeof(path), big, BOARDS_MAX_FILE + 1);
	cx_status_clear(&st);
	assert_int_equal(boards_load(path, &t, &st), CX_EIMAGE);
	snprintf(want, sizeof(want), "%s: 1048577 bytes; a board table is at most 1048576", path);
	assert_string_equal(st.msg, want);
	unlink(path);
	/* one byte less is only blank lines */
	cx_status_clear(&st);
	assert_int_equal(boards_parse("big.txt", big, BOARDS_MAX_FILE, &t, &st), CX_OK);
	assert_int_equal(t.n, 0);
	boards_free(&t);
	free(big);
}

static void test_missing_file(void **state)
{
	(void)state;
	struct board_table t;
	struct cx_status st = {0};

	assert_int_equal(boards_load("/nonexistent/boards.txt", &t, &st), CX_EIO);
	assert_non_null(strstr(st.msg, "/nonexistent/boards.txt"));
	assert_null(t.rows);
	boards_free(&t); /* harmless */
	cx_status_clear(&st);
	assert_int_equal(boards_load("/tmp", &t, &st), CX_EIO);
}

/* ---- what is accepted ---- */

static void test_accepted_forms(void **state)
{
	(void)state;
	struct board_table t;

	/* CRLF, no newline at the end, comments with any text, indented comments,
	 * blank lines of spaces and tabs, padded fields */
	const char *crlf = "# caf\xc3\xa9 \t comment\r\n\r\n  \t \r\n   # indented\r\n" GOOD "\r\n"
			   "  Dell   |  -  | DEL_1 |cx2|-|-|-|-|-|stated|" URL "   |  a note  |-";
	expect_ok(crlf, strlen(crlf), 2, &t);
	assert_null(t.rows[0].notes);
	assert_int_equal(t.rows[0].line, 5);
	const struct board *d = &t.rows[1];
	assert_int_equal(d->line, 6);
	assert_string_equal(d->oem, "Dell");
	assert_null(d->oem_parts);
	assert_string_equal(d->oem_psid, "DEL_1");
	assert_int_equal(d->family, CXF_CX2);
	assert_false(d->has_subsys);
	assert_null(d->stock_part);
	assert_null(d->stock_psid);
	assert_int_equal(d->port, BOARD_PORT_NONE);
	assert_null(d->speed);
	assert_string_equal(d->source, URL);
	assert_string_equal(d->notes, "a note");
	boards_free(&t);

	/* every field of the good row */
	expect_ok(GOOD, strlen(GOOD), 1, &t);
	const struct board *b = &t.rows[0];
	assert_string_equal(b->oem, "HP");
	assert_string_equal(b->oem_parts, "1-B21");
	assert_true(b->has_subsys);
	assert_int_equal(b->subsys_vendor, 0x103c);
	assert_int_equal(b->subsys_device, 0x18d6);
	assert_string_equal(b->stock_part, "MCX354A-FCB");
	assert_string_equal(b->stock_psid, "MT_1");
	assert_int_equal(b->port, BOARD_PORT_VPI);
	assert_string_equal(b->speed, "FDR");
	assert_int_equal(b->basis, BOARD_STATED);
	assert_null(b->notes);
	assert_null(b->pins);
	assert_int_equal(t.npins, 0);
	boards_free(&t);

	/* several sources; the names of the words */
	const char *multi = "IBM | - | IBM_1 | cx3pro | - | - | - | ib | - | inferred | http://a.org/x https://b.org/y | from z | -\n";
	expect_ok(multi, strlen(multi), 1, &t);
	assert_string_equal(t.rows[0].source, "http://a.org/x https://b.org/y");
	assert_string_equal(board_family_name(t.rows[0].family), "cx3pro");
	assert_string_equal(board_port_name(t.rows[0].port), "ib");
	assert_string_equal(board_basis_name(t.rows[0].basis), "inferred");
	assert_string_equal(board_port_name(BOARD_PORT_NONE), "-");
	assert_string_equal(board_port_name(BOARD_PORT_EN), "en");
	boards_free(&t);

	/* an empty file, and one of comments only, hold no rows */
	expect_ok("", 0, 0, &t);
	boards_free(&t);
	expect_ok("# nothing yet\n", 14, 0, &t);
	boards_free(&t);
}

/* ---- lookups ---- */

static void test_lookups(void **state)
{
	(void)state;
	struct board_table t;
	const char *text = GOOD "\n"
			   "HP | 649281-B21,656089-001,661685-001 | HP_2 | cx3 | 103c:18d6 | - | - | - | - | stated | " URL " | - | -\n"
			   "HP | - | HP_3 | cx3pro | 103c:22f4 | - | - | - | - | stated | " URL " | - | -\n"
			   "Sun | - | SUN_1 | cx2 | - | - | - | - | - | stated | " URL " | - | -\n";

	expect_ok(text, strlen(text), 4, &t);
	assert_ptr_equal(boards_by_psid(&t, "HP_1"), &t.rows[0]);
	assert_ptr_equal(boards_by_psid(&t, "SUN_1"), &t.rows[3]);
	assert_null(boards_by_psid(&t, "hp_1"));  /* exact */
	assert_null(boards_by_psid(&t, "HP_"));   /* whole PSID only */
	assert_null(boards_by_psid(&t, "HP_1 ")); /* the caller trims */
	assert_null(boards_by_psid(&t, NULL));

	/* two rows share 103c:18d6 */
	const struct board *a = boards_by_subsys(&t, 0x103c, 0x18d6, NULL);
	assert_ptr_equal(a, &t.rows[0]);
	const struct board *b = boards_by_subsys(&t, 0x103c, 0x18d6, a);
	assert_ptr_equal(b, &t.rows[1]);
	assert_null(boards_by_subsys(&t, 0x103c, 0x18d6, b));
	assert_ptr_equal(boards_by_subsys(&t, 0x103c, 0x22f4, NULL), &t.rows[2]);
	assert_null(boards_by_subsys(&t, 0x15b3, 0x18d6, NULL));
	assert_null(boards_by_subsys(&t, 0x0000, 0x0000, NULL)); /* rows without a subsys never match */
	struct board stranger = t.rows[0];
	assert_null(boards_by_subsys(&t, 0x103c, 0x18d6, &stranger)); /* not one of t's rows */

	assert_true(board_has_part(&t.rows[1], "649281-B21"));
	assert_true(board_has_part(&t.rows[1], "656089-001"));
	assert_true(board_has_part(&t.rows[1], "661685-001"));
	assert_false(board_has_part(&t.rows[1], "649281-B2"));
	assert_false(board_has_part(&t.rows[1], "61685-001"));
	assert_false(board_has_part(&t.rows[1], ""));
	assert_false(board_has_part(&t.rows[1], NULL));
	assert_false(board_has_part(&t.rows[2], "649281-B21")); /* no parts */
	boards_free(&t);

	/* an empty table */
	assert_null(boards_by_psid(&t, "HP_1"));
	assert_null(boards_by_subsys(&t, 0x103c, 0x18d6, NULL));
}

/* ---- pins ---- */

#define H1 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define H2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define ROW_PINS(pins) "HP | - | HP_1 | cx3 | - | - | - | - | - | stated | " URL " | - | " pins "\n"

static void test_bad_pins(void **state)
{
	(void)state;
	expect_bad(ROW_PINS("2.42.5000"), 1, "pin \"2.42.5000\" is not X.Y.Z=SHA256");
	expect_bad(ROW_PINS(H1), 1, "is not X.Y.Z=SHA256");
	expect_bad(ROW_PINS("yes"), 1, "pin \"yes\" is not X.Y.Z=SHA256");
	/* the version: three decimal numbers that fit IMAGE_INFO tag 1 */
	static const char *const vers[] = {"2.42", "2.42.5000.1", "2..5000", ".42.5000", "2.42.", "v2.42.5000",
					   "2.42.0x10", "2.42.65536", "2.42.123456", "2,42,5000", "-1.42.5000", ""};
	for (size_t i = 0; i < sizeof(vers) / sizeof(vers[0]); i++) {
		char row[512], what[96];
		snprintf(row, sizeof(row), ROW_PINS("%s=" H1), vers[i]);
		snprintf(what, sizeof(what), "pin version \"%s\" is not X.Y.Z: three decimal numbers, each at most 65535",
			 vers[i]);
		expect_bad(row, 1, what);
	}
	/* the hash: 64 lower-case hex digits */
	expect_bad(ROW_PINS("2.42.5000=0123"), 1, "pin for 2.42.5000: the SHA-256 is 4 characters; it is 64");
	expect_bad(ROW_PINS("2.42.5000=" H1 "0"), 1, "the SHA-256 is 65 characters");
	expect_bad(ROW_PINS("2.42.5000="), 1, "the SHA-256 is 0 characters");
	expect_bad(ROW_PINS("2.42.5000=" "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"), 1,
		   "pin for 2.42.5000: the SHA-256 has 'A'; it is 64 lower-case hex digits");
	expect_bad(ROW_PINS("2.42.5000=" "g123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"), 1,
		   "the SHA-256 has 'g'");
	expect_bad(ROW_PINS("2.42.5000=" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde="), 1,
		   "the SHA-256 has '='");
	/* one hash per version; 2.042.5000 is 2.42.5000 */
	expect_bad(ROW_PINS("2.42.5000=" H1 " 2.40.5030=" H2 " 2.42.5000=" H2), 1,
		   "pin for 2.42.5000 is given twice: one hash per version");
	expect_bad(ROW_PINS("2.42.5000=" H1 " 2.042.5000=" H1), 1, "pin for 2.42.5000 is given twice");
	/* single spaces; the field's own padding is trimmed like any field's */
	expect_bad(ROW_PINS("2.42.5000=" H1 "  2.40.5030=" H2), 1, "has an empty entry: separate pins by single spaces");
	expect_bad(ROW_PINS("2.42.5000=" H1 ",2.40.5030=" H2), 1, "the SHA-256 is 139 characters");
	/* the rest of a good row still counts: the second row is the bad one */
	expect_bad("Mellanox | - | MT_1 | cx3 | - | - | - | - | - | stated | " URL " | - | 1.2.3=" H2 "\n"
		   ROW_PINS("2.42.5000=" H1 " 1.2.3=xy"), 2, "pin for 1.2.3: the SHA-256 is 2 characters");
}

static void test_pins(void **state)
{
	(void)state;
	struct board_table t;
	const char *text = "# pinned\n"
			   ROW_PINS("2.42.5000=" H1 " 2.40.5030=" H2)
			   "Mellanox | - | MT_1 | cx3 | - | - | - | - | - | stated | " URL " | - | -\n"
			   "Sun | - | SUN_1 | cx2 | - | - | - | - | - | stated | " URL " | - |   0.0.65535=" H2 "  \r\n";
	const uint16_t v42[3] = {2, 42, 5000}, v40[3] = {2, 40, 5030}, vmax[3] = {0, 0, 65535},
		       v41[3] = {2, 41, 5000};
	const char *sha = NULL;
	unsigned line = 0;

	expect_ok(text, strlen(text), 3, &t);
	assert_int_equal(strncmp(t.name, "/tmp/cx-boards-", 15), 0); /* for "FILE:LINE" in a refusal */
	assert_int_equal(t.npins, 3);
	assert_string_equal(t.rows[0].pins, "2.42.5000=" H1 " 2.40.5030=" H2);
	assert_null(t.rows[1].pins);
	assert_string_equal(t.rows[2].pins, "0.0.65535=" H2);

	assert_int_equal(boards_pin(&t, "HP_1", v42, &sha, &line), 1);
	assert_string_equal(sha, H1);
	assert_int_equal(line, 2);
	assert_int_equal(boards_pin(&t, "HP_1", v40, &sha, &line), 1);
	assert_string_equal(sha, H2);
	assert_int_equal(boards_pin(&t, "SUN_1", vmax, &sha, &line), 1);
	assert_string_equal(sha, H2);
	assert_int_equal(line, 4);
	assert_int_equal(boards_pin(&t, "SUN_1", vmax, NULL, NULL), 1);

	/* not pinned: another version, a row without pins, another row's pin, no row */
	sha = "untouched";
	line = 77;
	assert_int_equal(boards_pin(&t, "HP_1", v41, &sha, &line), 0);
	assert_int_equal(boards_pin(&t, "SUN_1", v42, &sha, &line), 0);
	assert_int_equal(boards_pin(&t, "MT_1", v42, &sha, &line), 0);
	assert_int_equal(boards_pin(&t, "HP_9", v42, &sha, &line), 0);
	assert_int_equal(boards_pin(&t, NULL, v42, &sha, &line), 0);
	assert_int_equal(boards_pin(&t, "HP_1", NULL, &sha, &line), 0);
	assert_string_equal(sha, "untouched");
	assert_int_equal(line, 77);
	boards_free(&t);
	assert_null(t.pins);
	assert_int_equal(t.npins, 0);
	assert_int_equal(boards_pin(&t, "HP_1", v42, &sha, &line), 0);

	/* many pins in one row, past the first growth of the pin array */
	char row[BOARDS_MAX_LINE + 1], *p = row;
	p += sprintf(p, "HP | - | HP_1 | cx3 | - | - | - | - | - | stated | " URL " | - | ");
	for (int i = 0; i < 40; i++)
		p += sprintf(p, "%s2.%d.5000=" H1, i ? " " : "", i);
	expect_ok(row, strlen(row), 1, &t);
	assert_int_equal(t.npins, 40);
	const uint16_t v39[3] = {2, 39, 5000};
	assert_int_equal(boards_pin(&t, "HP_1", v39, &sha, NULL), 1);
	boards_free(&t);
}

/* ---- hostile copies of the real table ---- */

static uint32_t rng = 0x2545f491;

/* Either a table whose rows keep the rules, or one line naming the file. */
static void parse_any(const char *text, size_t len)
{
	struct board_table t;
	struct cx_status st = {0};

	int rc = boards_parse("m.txt", text, len, &t, &st);
	if (rc) {
		assert_int_equal(rc, CX_EIMAGE);
		assert_int_equal(strncmp(st.msg, "m.txt:", 6), 0);
		assert_null(t.rows);
		return;
	}
	for (size_t i = 0; i < t.n; i++) {
		assert_true(strlen(t.rows[i].oem_psid) <= BOARD_PSID_MAX);
		assert_true(t.rows[i].stock_part || !t.rows[i].stock_psid);
		assert_true(t.rows[i].notes || t.rows[i].basis != BOARD_INFERRED);
		assert_null(strchr(t.rows[i].source, '|'));
	}
	for (size_t i = 0; i < t.npins; i++) {
		assert_true(t.pins[i].row < t.n);
		assert_non_null(t.rows[t.pins[i].row].pins);
		assert_int_equal(strspn(t.pins[i].sha256, "0123456789abcdef"), 64);
		assert_int_equal(strlen(t.pins[i].sha256), 64);
	}
	boards_free(&t);
}

static void test_mutations(void **state)
{
	(void)state;
	uint8_t *real;
	size_t len;
	struct cx_status st = {0};

	assert_int_equal(file_read(REAL_TABLE, BOARDS_MAX_FILE, &real, &len, &st), CX_OK);
	/* cut anywhere: mid-row cuts are a short row or a shorter last field */
	for (size_t n = 0; n <= len; n += 1 + n % 7)
		parse_any((const char *)real, n);

	static const char bytes[] = {'\0', '\n', '\r', '|', ' ', '#', '\t', '-', ',', ':', 'A', '\xff'};
	char *m = malloc(len);
	assert_non_null(m);
	for (int round = 0; round < 3000; round++) {
		memcpy(m, real, len);
		for (int k = 1 + (int)(prng32(&rng) % 4); k; k--) {
			size_t at = prng32(&rng) % len;
			m[at] = prng32(&rng) % 2 ? bytes[prng32(&rng) % sizeof(bytes)] : (char)prng32(&rng);
		}
		parse_any(m, len);
	}
	free(m);
	free(real);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_table),
		cmocka_unit_test(test_bad_source),
		cmocka_unit_test(test_bad_psid),
		cmocka_unit_test(test_bad_family),
		cmocka_unit_test(test_bad_field_count),
		cmocka_unit_test(test_bad_subsys),
		cmocka_unit_test(test_bad_stock_and_basis),
		cmocka_unit_test(test_bad_duplicate),
		cmocka_unit_test(test_bad_bytes),
		cmocka_unit_test(test_bad_long_line),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_accepted_forms),
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_bad_pins),
		cmocka_unit_test(test_pins),
		cmocka_unit_test(test_mutations),
	};
	return cmocka_run_group_tests_name("boards", tests, NULL, NULL);
}
