/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_prompt.c — rescue/prompt: menus, the confirmation word, y/n, GUIDs and
 * MACs typed twice, free lines; blanks, defaults, garbage, overlong lines,
 * EOF at every step, retries running out; and thousands of random byte
 * streams that must end in an answer or a refusal, never a crash. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"
#include "rescue/prompt.h"

/* One conversation: input from a buffer, output into memory. */
static struct prompt p;
static struct cx_status st;
static char *out_buf;
static size_t out_len;
static char *in_copy;

static void talk_n(const void *in, size_t len)
{
	in_copy = malloc(len + 1);
	assert_non_null(in_copy);
	memcpy(in_copy, in, len);
	p = (struct prompt){ 0 };
	p.in = len ? fmemopen(in_copy, len, "r") : fopen("/dev/null", "r");
	assert_non_null(p.in);
	p.out = open_memstream(&out_buf, &out_len);
	assert_non_null(p.out);
	cx_status_clear(&st);
}

static void talk(const char *in)
{
	talk_n(in, strlen(in));
}

static const char *said(void)
{
	fflush(p.out);
	return out_buf;
}

static long consumed(void)
{
	return ftell(p.in);
}

static void hang_up(void)
{
	fclose(p.in);
	fclose(p.out);
	free(out_buf);
	free(in_copy);
	out_buf = NULL;
	in_copy = NULL;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *s = hay; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

/* A line of n copies of c, then the rest, as a new string. */
static char *long_line(char c, size_t n, const char *rest)
{
	char *s = malloc(n + strlen(rest) + 1);

	assert_non_null(s);
	memset(s, c, n);
	strcpy(s + n, rest);
	return s;
}

static const char *const items3[] = { "Back up all cards", "Update a card", "Power off" };

static int menu(int def, int *choice)
{
	return prompt_menu(&p, "What now?", items3, 3, def, choice, &st);
}

/* --- menus ------------------------------------------------------------------------ */

static void test_menu_good(void **state)
{
	int c = -1;

	(void)state;
	talk("2\n");
	assert_int_equal(menu(0, &c), CX_OK);
	assert_int_equal(c, 1);
	assert_string_equal(said(), "What now?\n  1. Back up all cards\n  2. Update a card\n  3. Power off\n"
				    "Choose 1-3 [1]: ");
	hang_up();

	talk("3\n");
	assert_int_equal(menu(-1, &c), CX_OK);
	assert_int_equal(c, 2);
	assert_non_null(strstr(said(), "Choose 1-3: "));
	assert_null(strstr(said(), "["));
	hang_up();
}

static void test_menu_blanks(void **state)
{
	static const char *const in[] = { "  3\n", "3  \n", "\t 3 \t\r\n", "3\r\n", "03\n", "0003\n" };
	int c;

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		c = -1;
		talk(in[i]);
		assert_int_equal(menu(0, &c), CX_OK);
		assert_int_equal(c, 2);
		hang_up();
	}
}

static void test_menu_default(void **state)
{
	int c = -1;

	(void)state;
	talk("\n");
	assert_int_equal(menu(1, &c), CX_OK);
	assert_int_equal(c, 1);
	assert_non_null(strstr(said(), "Choose 1-3 [2]: "));
	hang_up();

	talk(" \t \r\n");
	assert_int_equal(menu(2, &c), CX_OK);
	assert_int_equal(c, 2);
	hang_up();

	/* No default: an empty line is a wrong answer. */
	talk("\n  \n1\n");
	assert_int_equal(menu(-1, &c), CX_OK);
	assert_int_equal(c, 0);
	assert_int_equal(count(said(), "Please type a number from 1 to 3.\n"), 2);
	assert_int_equal(count(said(), "Choose 1-3: "), 3);
	hang_up();
}

static void test_menu_out_of_range(void **state)
{
	int c = -1;

	(void)state;
	talk("0\n4\n99999999999999999999999\n2\n");
	assert_int_equal(menu(0, &c), CX_OK);
	assert_int_equal(c, 1);
	assert_int_equal(count(said(), "Please type a number from 1 to 3, or just Enter for 1.\n"), 3);
	/* The menu is shown once; only the question is asked again. */
	assert_int_equal(count(said(), "Power off"), 1);
	assert_int_equal(count(said(), "Choose 1-3 [1]: "), 4);
	hang_up();
}

static void test_menu_not_numbers(void **state)
{
	int c = -1;

	(void)state;
	talk("1 2\n0x1\n1.\n2\n");
	assert_int_equal(menu(-1, &c), CX_OK);
	assert_int_equal(c, 1);
	assert_int_equal(count(said(), "Please type"), 3);
	hang_up();

	talk("a\n1a\n-1\n+1\n3\n");
	assert_int_equal(menu(-1, &c), CX_OK);
	assert_int_equal(c, 2);
	hang_up();
}

static void test_menu_control_chars(void **state)
{
	static const char in[] = "1\b2\n1\0\n\x1b[A\n\x7f\n3\n";
	int c = -1;

	(void)state;
	talk_n(in, sizeof(in) - 1);
	assert_int_equal(menu(0, &c), CX_OK);
	assert_int_equal(c, 2);
	assert_int_equal(count(said(), "That holds control characters"), 4);
	hang_up();
}

static void test_menu_overlong(void **state)
{
	char *in;
	int c = -1;

	(void)state;
	/* Too long for the buffer, with an answer at its end: consumed whole, never split. */
	in = long_line('x', PROMPT_ANSWER_MAX, "2\n3\n");
	talk(in);
	assert_int_equal(menu(0, &c), CX_OK);
	assert_int_equal(c, 2);
	assert_int_equal(count(said(), "That is too long. Please type a number from 1 to 3"), 1);
	hang_up();
	free(in);

	in = long_line('1', 5000, "\n");
	talk(in);
	assert_int_equal(menu(0, &c), CX_EDECLINED);
	assert_true(p.closed);
	hang_up();
	free(in);

	/* PROMPT_ANSWER_MAX characters is still an answer, one more is not. */
	in = long_line('0', PROMPT_ANSWER_MAX - 1, "2\n");
	talk(in);
	assert_int_equal(menu(0, &c), CX_OK);
	assert_int_equal(c, 1);
	hang_up();
	free(in);
	in = long_line('0', PROMPT_ANSWER_MAX, "2\n");
	talk(in);
	assert_int_equal(menu(0, &c), CX_EDECLINED);
	assert_non_null(strstr(said(), "That is too long."));
	hang_up();
	free(in);

	/* Blanks around an answer do not count towards its length. */
	in = long_line(' ', 3000, "2");
	char *in2 = long_line('\t', 3000, "\n");
	char *both = malloc(strlen(in) + strlen(in2) + 1);
	strcpy(both, in);
	strcat(both, in2);
	talk(both);
	assert_int_equal(menu(0, &c), CX_OK);
	assert_int_equal(c, 1);
	hang_up();
	free(in);
	free(in2);
	free(both);
}

static void test_menu_eof(void **state)
{
	int c = 7;

	(void)state;
	talk("");
	assert_int_equal(menu(0, &c), CX_EDECLINED);
	assert_string_equal(st.msg, "no answer (input closed)");
	assert_true(p.closed);
	assert_int_equal(c, 7);
	/* The question line is ended, so the caller's message starts on its own line. */
	assert_true(said()[strlen(said()) - 1] == '\n');
	/* Closed stays closed: no output, no wait. */
	size_t before = strlen(said());
	cx_status_clear(&st);
	assert_int_equal(menu(0, &c), CX_EDECLINED);
	assert_string_equal(st.msg, "no answer (input closed)");
	assert_int_equal(strlen(said()), before);
	hang_up();

	/* A last line without Enter was never confirmed: no answer, not 2. */
	talk("2");
	assert_int_equal(menu(0, &c), CX_EDECLINED);
	assert_string_equal(st.msg, "no answer (input closed)");
	assert_int_equal(c, 7);
	hang_up();

	/* EOF after a wrong answer. */
	talk("x\n");
	assert_int_equal(menu(0, &c), CX_EDECLINED);
	assert_string_equal(st.msg, "no answer (input closed)");
	hang_up();
}

static void test_menu_retries(void **state)
{
	int c = 7;

	(void)state;
	talk("a\nb\nc\nd\ne\n1\n");
	assert_int_equal(menu(0, &c), CX_EDECLINED);
	assert_string_equal(st.msg, "no valid choice after 5 tries");
	assert_false(p.closed);
	assert_int_equal(c, 7);
	assert_int_equal(consumed(), 10); /* the sixth line is left for the next question */
	hang_up();

	talk("a\nb\n1\n");
	p.tries = 2;
	assert_int_equal(menu(0, &c), CX_EDECLINED);
	assert_string_equal(st.msg, "no valid choice after 2 tries");
	hang_up();
}

static void test_menu_bad_arguments(void **state)
{
	int c = 7;

	(void)state;
	talk("1\n");
	assert_int_equal(prompt_menu(&p, "x", items3, 0, -1, &c, &st), CX_EVALUE);
	cx_status_clear(&st);
	assert_int_equal(prompt_menu(&p, "x", items3, 3, 3, &c, &st), CX_EVALUE);
	cx_status_clear(&st);
	assert_int_equal(prompt_menu(&p, "x", items3, 3, -2, &c, &st), CX_EVALUE);
	cx_status_clear(&st);
	assert_int_equal(prompt_menu(&p, "x", NULL, 3, 0, &c, &st), CX_EVALUE);
	assert_int_equal(consumed(), 0);
	assert_int_equal(c, 7);
	hang_up();
}

static void test_menu_many_items(void **state)
{
	const char *items[12];
	char names[12][24];
	int c = -1;

	(void)state;
	for (int i = 0; i < 12; i++) {
		snprintf(names[i], sizeof(names[i]), "card %d", i);
		items[i] = names[i];
	}
	talk("12\n");
	assert_int_equal(prompt_menu(&p, NULL, items, 12, -1, &c, &st), CX_OK);
	assert_int_equal(c, 11);
	assert_non_null(strstr(said(), "  9. card 8\n 10. card 9\n 11. card 10\n 12. card 11\nChoose 1-12: "));
	assert_true(said()[0] == ' ');
	hang_up();
}

/* --- the confirmation word -------------------------------------------------------- */

static int word(void)
{
	return prompt_word(&p, "write the card", "FLASH", &st);
}

static void test_word_exact(void **state)
{
	static const char *const in[] = { "FLASH\n", "  FLASH\t\r\n", "FLASH   \n" };

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		talk(in[i]);
		assert_int_equal(word(), CX_OK);
		assert_string_equal(said(), "Type FLASH to write the card, anything else cancels: ");
		hang_up();
	}
}

static void test_word_wrong(void **state)
{
	static const char in[][24] = {
		"flash\n", "Flash\n", "FLASH now\n", "FLASHY\n", "FLAS\n", "F LASH\n",
		"\n", "y\n", "yes\n", "\"FLASH\"\n", "FLA\bSH\n", "FLASH\x1b\n", "FLA\tSH\n", "FL\rFLASH\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		talk(in[i]);
		assert_int_equal(word(), CX_EDECLINED);
		assert_string_equal(st.msg, "cancelled: nothing written");
		assert_false(p.closed);
		hang_up();
	}

	static const char nul[] = "FLASH\0\n";
	talk_n(nul, sizeof(nul) - 1);
	assert_int_equal(word(), CX_EDECLINED);
	assert_string_equal(st.msg, "cancelled: nothing written");
	hang_up();

	/* No second chance: the line after a wrong word is not read. */
	talk("FLASk\nFLASH\n");
	assert_int_equal(word(), CX_EDECLINED);
	assert_int_equal(consumed(), 6);
	assert_int_equal(count(said(), "Type FLASH"), 1);
	hang_up();
}

static void test_word_overlong(void **state)
{
	char *in = long_line('F', 5000, "\n");

	(void)state;
	talk(in);
	assert_int_equal(word(), CX_EDECLINED);
	assert_string_equal(st.msg, "cancelled: nothing written");
	hang_up();
	free(in);

	/* The word with a huge run of 'H' after it is not the word either. */
	in = long_line('H', PROMPT_ANSWER_MAX * 3, "\n");
	memcpy(in, "FLAS", 4);
	talk(in);
	assert_int_equal(word(), CX_EDECLINED);
	hang_up();
	free(in);
}

static void test_word_eof(void **state)
{
	(void)state;
	talk("");
	assert_int_equal(word(), CX_EDECLINED);
	assert_string_equal(st.msg, "no answer (input closed)");
	assert_true(p.closed);
	hang_up();

	talk("FLASH");
	assert_int_equal(word(), CX_EDECLINED);
	assert_string_equal(st.msg, "no answer (input closed)");
	hang_up();

	talk("x\n");
	assert_int_equal(prompt_word(&p, "write", "", &st), CX_EVALUE);
	assert_int_equal(consumed(), 0);
	hang_up();
}

/* --- yes / no --------------------------------------------------------------------- */

static void test_yes_no(void **state)
{
	static const char *const yes[] = { "y\n", "Y\n", "yes\n", "YES\n", " Yes \r\n", "yEs\n" };
	static const char *const no[] = { "n\n", "N\n", "no\n", "NO\n", "\tNo\n" };

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		talk(yes[i]);
		assert_int_equal(prompt_yes_no(&p, "Back up now?", true, &st), CX_OK);
		assert_string_equal(said(), "Back up now? [y/N]: ");
		hang_up();
		talk(yes[i]);
		assert_int_equal(prompt_yes_no(&p, "Back up now?", false, &st), CX_OK);
		assert_string_equal(said(), "Back up now? [Y/n]: ");
		hang_up();
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		talk(no[i]);
		assert_int_equal(prompt_yes_no(&p, "Back up now?", false, &st), CX_EDECLINED);
		assert_string_equal(st.msg, "answered no");
		assert_false(p.closed);
		hang_up();
	}
}

static void test_yes_no_default(void **state)
{
	(void)state;
	talk("\n");
	assert_int_equal(prompt_yes_no(&p, "Q?", true, &st), CX_EDECLINED);
	assert_string_equal(st.msg, "answered no");
	hang_up();
	talk("   \n");
	assert_int_equal(prompt_yes_no(&p, "Q?", false, &st), CX_OK);
	hang_up();
}

static void test_yes_no_retries(void **state)
{
	char *in;

	(void)state;
	talk("maybe\nyess\n1\ny\n");
	assert_int_equal(prompt_yes_no(&p, "Q?", true, &st), CX_OK);
	assert_int_equal(count(said(), "Please answer y or n, or just Enter for n.\n"), 3);
	hang_up();

	talk("a\nb\nc\nd\ne\ny\n");
	assert_int_equal(prompt_yes_no(&p, "Q?", false, &st), CX_EDECLINED);
	assert_string_equal(st.msg, "no valid answer after 5 tries");
	assert_false(p.closed);
	hang_up();

	in = long_line('y', 1000, "\nn\n");
	talk(in);
	assert_int_equal(prompt_yes_no(&p, "Q?", false, &st), CX_EDECLINED);
	assert_string_equal(st.msg, "answered no");
	assert_non_null(strstr(said(), "That is too long. Please answer y or n"));
	hang_up();
	free(in);

	talk("");
	assert_int_equal(prompt_yes_no(&p, "Q?", false, &st), CX_EDECLINED);
	assert_string_equal(st.msg, "no answer (input closed)");
	hang_up();
	talk("y");
	assert_int_equal(prompt_yes_no(&p, "Q?", false, &st), CX_EDECLINED);
	assert_string_equal(st.msg, "no answer (input closed)");
	hang_up();
	talk("x\n");
	assert_int_equal(prompt_yes_no(&p, "Q?", false, &st), CX_EDECLINED);
	assert_string_equal(st.msg, "no answer (input closed)");
	hang_up();
}

/* --- GUIDs and MACs --------------------------------------------------------------- */

#define GUID 0x0002c903000a1b2cull
#define MAC 0x0002c90a1b2cull

static const char *const guid_forms[] = {
	"0002c903000a1b2c", "0002C903000A1B2C", "0x0002c903000a1b2c", "0X0002C903000a1b2c",
	"00:02:c9:03:00:0a:1b:2c", "00-02-C9-03-00-0A-1B-2C", "0002:c903:000a:1b2c",
	"0002c903-000a1b2c", "  0002c903000a1b2c \t", "0x00:02:c9:03:00:0a:1b:2c",
};

static const char *const mac_forms[] = {
	"0002c90a1b2c", "0002C90A1B2C", "0x0002c90a1b2c", "00:02:c9:0a:1b:2c",
	"00-02-C9-0A-1B-2C", "0002-c90a-1b2c", " 0002c90a1b2c\r",
};

static void typed_twice(const char *first, const char *second, char *in, size_t n)
{
	snprintf(in, n, "%s\n%s\n", first, second);
}

static void test_guid_forms(void **state)
{
	size_t n = sizeof(guid_forms) / sizeof(guid_forms[0]);
	char in[128];
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		/* Each form, confirmed with the same and with another form. */
		for (size_t j = 0; j < 2; j++) {
			typed_twice(guid_forms[i], guid_forms[j ? (i + 3) % n : i], in, sizeof(in));
			talk(in);
			v = 0;
			assert_int_equal(prompt_guid(&p, "node GUID", &v, &st), CX_OK);
			assert_true(v == GUID);
			assert_string_equal(said(), "node GUID (16 hex digits from the card's sticker): "
						    "You typed 0002c903000a1b2c.\n"
						    "Type the node GUID again to confirm: ");
			hang_up();
		}
	}
}

static void test_mac_forms(void **state)
{
	size_t n = sizeof(mac_forms) / sizeof(mac_forms[0]);
	char in[128];
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		typed_twice(mac_forms[i], mac_forms[(i + 1) % n], in, sizeof(in));
		talk(in);
		v = 0;
		assert_int_equal(prompt_mac(&p, "port 1 MAC", &v, &st), CX_OK);
		assert_true(v == MAC);
		assert_string_equal(said(), "port 1 MAC (12 hex digits from the card's sticker): "
					    "You typed 0002c90a1b2c.\n"
					    "Type the port 1 MAC again to confirm: ");
		hang_up();
	}
}

/* One invalid entry, then a good pair: the complaint is one line, then it goes on. */
static void expect_guid_refused(const char *bad, const char *why)
{
	char in[256];
	uint64_t v = 0;

	snprintf(in, sizeof(in), "%s\n0002c903000a1b2c\n0002c903000a1b2c\n", bad);
	talk(in);
	assert_int_equal(prompt_guid(&p, "node GUID", &v, &st), CX_OK);
	assert_true(v == GUID);
	if (!strstr(said(), why))
		fail_msg("'%s': wanted \"%s\" in:\n%s", bad, why, said());
	assert_int_equal(count(said(), "You typed"), 1);
	assert_int_equal(count(said(), "node GUID (16 hex digits"), 2);
	hang_up();
}

static void expect_mac_refused(const char *bad, const char *why)
{
	char in[256];
	uint64_t v = 0;

	snprintf(in, sizeof(in), "%s\n0002c90a1b2c\n0002c90a1b2c\n", bad);
	talk(in);
	assert_int_equal(prompt_mac(&p, "port 1 MAC", &v, &st), CX_OK);
	assert_true(v == MAC);
	if (!strstr(said(), why))
		fail_msg("'%s': wanted \"%s\" in:\n%s", bad, why, said());
	assert_int_equal(count(said(), "You typed"), 1);
	hang_up();
}

static void test_guid_invalid(void **state)
{
	(void)state;
	expect_guid_refused("", "Please type the 16 hex digits of the GUID.\n");
	expect_guid_refused("2c903000a1b2c", "That has 13 hex digits; a GUID has 16.\n");
	expect_guid_refused("0002c903000a1b2c0", "That has 17 hex digits; a GUID has 16.\n");
	expect_guid_refused("0002c903000a1b2c0002c903000a1b2c", "That has 32 hex digits");
	expect_guid_refused("0x", "That has 0 hex digits");
	expect_guid_refused("0002c903000a1b2g", "That is not hex: a GUID is 16 hex digits (0-9, a-f)");
	expect_guid_refused("0002c903 000a1b2c", "That is not hex");
	expect_guid_refused("0002.c903.000a.1b2c", "That is not hex");
	expect_guid_refused("GUID: 0002c903000a1b2c", "That is not hex");
	expect_guid_refused(":0002c903000a1b2c", "Separators (':' or '-') go only between digits");
	expect_guid_refused("0002c903000a1b2c:", "Separators");
	expect_guid_refused("0002::c903000a1b2c", "Separators");
	expect_guid_refused("0x:0002c903000a1b2c", "Separators");
	expect_guid_refused("0000000000000000", "All zeros is not a card's GUID");
	expect_guid_refused("00:00:00:00:00:00:00:00", "All zeros");
	expect_guid_refused("ffffffffffffffff", "All ones is an erased flash, not a card's GUID");
	expect_guid_refused("FFFF-FFFF-FFFF-FFFF", "All ones");
	expect_guid_refused("0002c903\b000a1b2c", "That holds control characters");
}

static void test_mac_invalid(void **state)
{
	(void)state;
	expect_mac_refused("", "Please type the 12 hex digits of the MAC.\n");
	expect_mac_refused("02c90a1b2c", "That has 10 hex digits; a MAC has 12.\n");
	expect_mac_refused("0002c903000a1b2c", "That has 16 hex digits; a MAC has 12.\n");
	expect_mac_refused("0002c90a1b2g", "That is not hex: a MAC is 12 hex digits");
	expect_mac_refused("0002.c90a.1b2c", "That is not hex");
	expect_mac_refused("00:02:c9:0a:1b:2c:", "Separators");
	/* guids_check_mac: the multicast bit (bit 0 of the first byte), which the blank value has too. */
	expect_mac_refused("010203040506", "That is not a card's MAC (invalid MAC 010203040506: multicast bit is set).\n");
	expect_mac_refused("ff:ff:ff:ff:ff:ff", "multicast bit is set");
	expect_mac_refused("000000000000", "All zeros is not a card's MAC");
	/* Not multicast, so allowed: a locally administered address. */
	char in[64];
	uint64_t v = 0;
	typed_twice("02:00:00:00:00:01", "020000000001", in, sizeof(in));
	talk(in);
	assert_int_equal(prompt_mac(&p, "MAC", &v, &st), CX_OK);
	assert_true(v == 0x020000000001ull);
	hang_up();
}

static void test_guid_mismatch(void **state)
{
	uint64_t v = 0;

	(void)state;
	talk("0002c903000a1b2c\n0002c903000a1b2d\n0002c903000a1b2c\n0002c903000a1b2c\n");
	assert_int_equal(prompt_guid(&p, "node GUID", &v, &st), CX_OK);
	assert_true(v == GUID);
	assert_non_null(strstr(said(), "The two entries differ (0002c903000a1b2c, then 0002c903000a1b2d); "
					"starting over.\nnode GUID (16 hex digits"));
	assert_int_equal(count(said(), "You typed 0002c903000a1b2c.\n"), 2);
	hang_up();

	/* A second entry that is no GUID at all starts over as well. */
	talk("0002c903000a1b2c\nxyz\n0002c903000a1b2d\n0002c903000a1b2d\n");
	assert_int_equal(prompt_guid(&p, "node GUID", &v, &st), CX_OK);
	assert_true(v == GUID + 1);
	assert_non_null(strstr(said(), "That is not hex"));
	hang_up();

	talk("0002c90a1b2c\n0002c90a1b2d\n0002c90a1b2d\n0002c90a1b2d\n");
	assert_int_equal(prompt_mac(&p, "port 2 MAC", &v, &st), CX_OK);
	assert_true(v == MAC + 1);
	assert_non_null(strstr(said(), "The two entries differ (0002c90a1b2c, then 0002c90a1b2d); starting over.\n"));
	hang_up();
}

static void test_guid_retries(void **state)
{
	uint64_t v = 7;
	char in[512] = "";

	(void)state;
	/* Five mismatched pairs use up the tries; the line after them is not read. */
	for (int i = 0; i < 5; i++)
		snprintf(in + strlen(in), sizeof(in) - strlen(in), "0002c903000a1b2c\n000000000000000%d\n", i + 1);
	strcat(in, "0002c903000a1b2c\n");
	talk(in);
	assert_int_equal(prompt_guid(&p, "node GUID", &v, &st), CX_EDECLINED);
	assert_string_equal(st.msg, "no confirmed GUID after 5 tries");
	assert_true(v == 7);
	assert_false(p.closed);
	assert_int_equal(consumed(), (long)strlen(in) - 17);
	hang_up();

	talk("x\ny\n");
	p.tries = 2;
	assert_int_equal(prompt_mac(&p, "port 1 MAC", &v, &st), CX_EDECLINED);
	assert_string_equal(st.msg, "no confirmed MAC after 2 tries");
	assert_true(v == 7);
	hang_up();
}

static void test_guid_eof(void **state)
{
	uint64_t v = 7;

	(void)state;
	talk("");
	assert_int_equal(prompt_guid(&p, "node GUID", &v, &st), CX_EDECLINED);
	assert_string_equal(st.msg, "no answer (input closed)");
	hang_up();

	/* After the first entry: read back, then the input ends. */
	talk("0002c903000a1b2c\n");
	assert_int_equal(prompt_guid(&p, "node GUID", &v, &st), CX_EDECLINED);
	assert_string_equal(st.msg, "no answer (input closed)");
	assert_non_null(strstr(said(), "You typed 0002c903000a1b2c.\n"));
	assert_true(v == 7);
	hang_up();

	/* The second entry without Enter is not a confirmation. */
	talk("0002c903000a1b2c\n0002c903000a1b2c");
	assert_int_equal(prompt_guid(&p, "node GUID", &v, &st), CX_EDECLINED);
	assert_true(v == 7);
	hang_up();

	talk("0002c90a1b2c\n0002c90a1b2d\n");
	assert_int_equal(prompt_mac(&p, "port 1 MAC", &v, &st), CX_EDECLINED);
	assert_string_equal(st.msg, "no answer (input closed)");
	assert_true(v == 7);
	hang_up();
}

static void test_guid_overlong(void **state)
{
	char *in = long_line('0', 2000, "1\n0002c903000a1b2c\n0002c903000a1b2c\n");
	uint64_t v = 0;

	(void)state;
	talk(in);
	assert_int_equal(prompt_guid(&p, "node GUID", &v, &st), CX_OK);
	assert_true(v == GUID);
	assert_non_null(strstr(said(), "That is too long. Please type the 16 hex digits of the GUID.\n"));
	hang_up();
	free(in);
}

/* --- free lines ------------------------------------------------------------------- */

static void test_line(void **state)
{
	char buf[64];

	(void)state;
	talk("  /mnt/cxrescue/firmware/fw 2.bin \t\r\n");
	assert_int_equal(prompt_line(&p, "Image file", buf, sizeof(buf), &st), CX_OK);
	assert_string_equal(buf, "/mnt/cxrescue/firmware/fw 2.bin");
	assert_string_equal(said(), "Image file: ");
	hang_up();

	talk("\n");
	strcpy(buf, "old");
	assert_int_equal(prompt_line(&p, "Image file", buf, sizeof(buf), &st), CX_OK);
	assert_string_equal(buf, "");
	hang_up();

	/* UTF-8 is text. */
	talk("/mnt/Übersicht\n");
	assert_int_equal(prompt_line(&p, "Image file", buf, sizeof(buf), &st), CX_OK);
	assert_string_equal(buf, "/mnt/Übersicht");
	hang_up();
}

static void test_line_overlong(void **state)
{
	char buf[8];

	(void)state;
	talk("12345678\n  1234567  \n");
	assert_int_equal(prompt_line(&p, "Q", buf, sizeof(buf), &st), CX_OK);
	assert_string_equal(buf, "1234567");
	assert_non_null(strstr(said(), "That is too long. Please type at most 7 characters of plain text.\n"));
	hang_up();

	talk("a\x01\na\tb\na\rb\nok\n");
	assert_int_equal(prompt_line(&p, "Q", buf, sizeof(buf), &st), CX_OK);
	assert_string_equal(buf, "ok");
	assert_int_equal(count(said(), "That holds control characters"), 3);
	hang_up();

	talk("123456789\n123456789\n123456789\n123456789\n123456789\nok\n");
	assert_int_equal(prompt_line(&p, "Q", buf, sizeof(buf), &st), CX_EDECLINED);
	assert_string_equal(st.msg, "no valid answer after 5 tries");
	assert_string_equal(buf, "");
	hang_up();

	talk("x\n");
	buf[0] = 'z';
	assert_int_equal(prompt_line(&p, "Q", buf, 1, &st), CX_EDECLINED);
	assert_string_equal(buf, "");
	hang_up();
	talk("\n");
	assert_int_equal(prompt_line(&p, "Q", buf, 1, &st), CX_OK);
	hang_up();
	talk("x\n");
	assert_int_equal(prompt_line(&p, "Q", buf, 0, &st), CX_EVALUE);
	assert_int_equal(prompt_line(&p, "Q", NULL, 8, &st), CX_EVALUE);
	hang_up();
}

static void test_line_eof(void **state)
{
	char buf[16];

	(void)state;
	talk("");
	assert_int_equal(prompt_line(&p, "Q", buf, sizeof(buf), &st), CX_EDECLINED);
	assert_string_equal(st.msg, "no answer (input closed)");
	assert_string_equal(buf, "");
	hang_up();
	talk("/half/typed");
	assert_int_equal(prompt_line(&p, "Q", buf, sizeof(buf), &st), CX_EDECLINED);
	assert_string_equal(buf, "");
	hang_up();
}

/* A whole wizard step: the input ends midway, every later question refuses at once. */
static void test_closed_everywhere(void **state)
{
	char buf[16];
	uint64_t v;
	int c;

	(void)state;
	talk("1\n");
	assert_int_equal(menu(0, &c), CX_OK);
	assert_int_equal(word(), CX_EDECLINED);
	assert_true(p.closed);
	size_t before = strlen(said());
	cx_status_clear(&st);
	assert_int_equal(prompt_yes_no(&p, "Q?", false, &st), CX_EDECLINED);
	assert_string_equal(st.msg, "no answer (input closed)");
	cx_status_clear(&st);
	assert_int_equal(prompt_guid(&p, "GUID", &v, &st), CX_EDECLINED);
	cx_status_clear(&st);
	assert_int_equal(prompt_mac(&p, "MAC", &v, &st), CX_EDECLINED);
	cx_status_clear(&st);
	assert_int_equal(prompt_line(&p, "Q", buf, sizeof(buf), &st), CX_EDECLINED);
	cx_status_clear(&st);
	assert_int_equal(word(), CX_EDECLINED);
	assert_string_equal(st.msg, "no answer (input closed)");
	assert_int_equal(strlen(said()), before);
	hang_up();
}

/* --- robustness ------------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* Pieces a stream is made of: noise, the answers the prompts want, and the
 * things that break naive readers (NULs, huge lines, CRs, no final newline). */
static size_t random_stream(char *s, size_t cap)
{
	static const char *const tokens[] = {
		"1", "2", "3", "12", "0", "FLASH", "flash", "y", "n", "yes", "",
		"0002c903000a1b2c", "0002c90a1b2c", "00:02:c9:0a:1b:2c", "010203040506",
		"0x", ":", "-", " ", "\t", "\r", "\x7f", "\x1b[A",
	};
	size_t n = 0, want = prng64(&rng) % 6000;

	while (n < want) {
		size_t room = cap - n, k;

		switch (prng64(&rng) % 6) {
		case 0: /* raw bytes, NULs included */
			k = prng64(&rng) % 64;
			for (size_t i = 0; i < k && n < cap; i++)
				s[n++] = (char)prng64(&rng);
			break;
		case 1: /* a long run of one byte */
			k = prng64(&rng) % 3000;
			if (k > room)
				k = room;
			memset(s + n, (int)(prng64(&rng) % 4 ? "0 aF"[prng64(&rng) % 4] : 0), k);
			n += k;
			break;
		default: { /* a plausible answer and a newline, sometimes twice as a confirmation wants */
			const char *t = tokens[prng64(&rng) % (sizeof(tokens) / sizeof(tokens[0]))];
			int times = prng64(&rng) % 3 ? 1 : 2;
			k = strlen(t);
			for (int j = 0; j < times; j++) {
				if (k + 1 > cap - n)
					return n;
				memcpy(s + n, t, k);
				n += k;
				s[n++] = prng64(&rng) % 8 ? '\n' : '\0';
			}
		}
		}
	}
	return n;
}

static void test_random_streams(void **state)
{
	static char s[16384];
	static const char *const items[] = { "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l" };
	long calls = 0, ok[6] = { 0 };

	(void)state;
	for (int round = 0; round < 3000; round++) {
		size_t len = random_stream(s, sizeof(s));
		int def = (int)(prng64(&rng) % 13) - 1;

		talk_n(s, len);
		p.tries = (int)(prng64(&rng) % 7);
		for (int i = 0; !p.closed && i < 400; i++, calls++) {
			char buf[41];
			size_t blen = 1 + prng64(&rng) % 40;
			uint64_t v = 0;
			int c = -1, rc = 0;

			cx_status_clear(&st);
			switch ((round + i) % 6) {
			case 0:
				rc = prompt_menu(&p, "Menu", items, 12, def, &c, &st);
				if (rc == CX_OK)
					assert_true(c >= 0 && c < 12);
				break;
			case 1:
				rc = prompt_word(&p, "write", "FLASH", &st);
				break;
			case 2:
				rc = prompt_yes_no(&p, "Q?", prng64(&rng) & 1, &st);
				break;
			case 3:
				rc = prompt_guid(&p, "GUID", &v, &st);
				if (rc == CX_OK)
					assert_true(v != 0 && v != UINT64_MAX);
				break;
			case 4:
				rc = prompt_mac(&p, "MAC", &v, &st);
				if (rc == CX_OK)
					assert_true(v != 0 && v <= 0xffffffffffffull && !(v & (1ull << 40)));
				break;
			case 5:
				rc = prompt_line(&p, "Line", buf, blen, &st);
				assert_true(strlen(buf) < blen);
				if (rc == CX_OK)
					for (const char *q = buf; *q; q++)
						assert_true((unsigned char)*q >= 0x20 && *q != 0x7f);
				break;
			}
			assert_true(rc == CX_OK || rc == CX_EDECLINED);
			ok[(round + i) % 6] += rc == CX_OK;
			if (rc != CX_OK)
				assert_true(st.msg[0] != '\0');
		}
		assert_true(p.closed);
		/* Nothing typed is ever printed back raw: the output is plain text. */
		for (const char *q = said(); *q; q++)
			assert_true(*q == '\n' || ((unsigned char)*q >= 0x20 && (unsigned char)*q < 0x7f));
		hang_up();
	}
	print_message("%ld prompts over 3000 random streams; answered: menu %ld, word %ld, "
		      "y/n %ld, GUID %ld, MAC %ld, line %ld\n", calls, ok[0], ok[1], ok[2], ok[3], ok[4], ok[5]);
	/* The streams reach the answers, not only the refusals. */
	for (int k = 0; k < 6; k++)
		assert_true(ok[k] > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_menu_good),
		cmocka_unit_test(test_menu_blanks),
		cmocka_unit_test(test_menu_default),
		cmocka_unit_test(test_menu_out_of_range),
		cmocka_unit_test(test_menu_not_numbers),
		cmocka_unit_test(test_menu_control_chars),
		cmocka_unit_test(test_menu_overlong),
		cmocka_unit_test(test_menu_eof),
		cmocka_unit_test(test_menu_retries),
		cmocka_unit_test(test_menu_bad_arguments),
		cmocka_unit_test(test_menu_many_items),
		cmocka_unit_test(test_word_exact),
		cmocka_unit_test(test_word_wrong),
		cmocka_unit_test(test_word_overlong),
		cmocka_unit_test(test_word_eof),
		cmocka_unit_test(test_yes_no),
		cmocka_unit_test(test_yes_no_default),
		cmocka_unit_test(test_yes_no_retries),
		cmocka_unit_test(test_guid_forms),
		cmocka_unit_test(test_mac_forms),
		cmocka_unit_test(test_guid_invalid),
		cmocka_unit_test(test_mac_invalid),
		cmocka_unit_test(test_guid_mismatch),
		cmocka_unit_test(test_guid_retries),
		cmocka_unit_test(test_guid_eof),
		cmocka_unit_test(test_guid_overlong),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_line_overlong),
		cmocka_unit_test(test_line_eof),
		cmocka_unit_test(test_closed_everywhere),
		cmocka_unit_test(test_random_streams),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
