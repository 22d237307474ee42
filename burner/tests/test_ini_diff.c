/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_ini_diff.c — library/ini_diff.c: parsing a board .ini (comments of each
 * kind, sections, CRLF, a missing last newline, keys before any section,
 * duplicates, unparsed lines, NUL bytes, too many keys), case-insensitive
 * lookups, value equality, the class of each key, comparing an OEM board's .ini
 * with its stock twin's, and mutated and cut copies that never crash. The
 * realistic text is what sim/mkfs2/ini.c writes for a ConnectX-3. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "library/ini_diff.h"
#include "prng.h"

/* `mkfs2 -o x.bin --chip cx3` then `cxflash -i x.bin dc`: 57 keys in 6 sections. */
static const char STOCK[] =
	";; Generated automatically by iniprep tool on Sep  5 12:00:00 2017 from ./cx3_SYNTH_MCX354A_2mb.prs\n"
	";; Synthetic ConnectX-3 board written by cxrescue mkfs2; not vendor data.\n"
	"\n"
	"[PS_INFO]\n"
	"Name = SYNTH-MCX354A-FCB\n"
	"Description = ConnectX-3 synthetic test adapter\n"
	"PRS_name = cx3_SYNTH_MCX354A_2mb.prs\n"
	"\n"
	"[ADAPTER]\n"
	"PSID = MT_1090120019\n"
	"adapter_dev_id = 0x1003\n"
	"silicon_rev = 0x1\n"
	"pcie_gen2_speed_supported = true\n"
	"pcie_gen3_speed_supported = true\n"
	"gpio_mode0 = 0x00000000\n"
	"gpio_mode1 = 0x000a02a8\n"
	"gpio_default_val = 0x00000100\n"
	"gpio_pull_up = 0x00000008\n"
	"gpio_pull_enable = 0x00000008\n"
	"receiver_detect_en = true\n"
	"nv_cfg_en = true\n"
	"nv_config_sectors = 2\n"
	"\n"
	"[HCA]\n"
	"hca_header_device_id = 0x1003\n"
	"hca_header_subsystem_id = 0x0050\n"
	"hca_header_class_code = 0x028000\n"
	"dpdp_en = true\n"
	"eth_xfi_en = true\n"
	"mdio_en_port1 = 0\n"
	"led_gt_mode_en = true\n"
	"\n"
	"[IB]\n"
	"num_of_ports = 2\n"
	"gen_guids_from_mac = false\n"
	"do_sense = true\n"
	"phy_type_port1 = QSFP\n"
	"port1_802_3ap_kr_ability = true\n"
	"port1_802_3ap_kx4_ability = false\n"
	"port1_802_3ap_kr_enable = false\n"
	"phy_type_port2 = QSFP\n"
	"port2_802_3ap_kr_ability = true\n"
	"port2_802_3ap_kx4_ability = false\n"
	"port2_802_3ap_kr_enable = false\n"
	"tx_logic_0_serdes = 0\n"
	"rx_logic_0_serdes = 0\n"
	"tx_logic_1_serdes = 1\n"
	"rx_logic_1_serdes = 1\n"
	"tx_logic_2_serdes = 2\n"
	"rx_logic_2_serdes = 2\n"
	"tx_logic_3_serdes = 3\n"
	"rx_logic_3_serdes = 3\n"
	"tx_logic_4_serdes = 4\n"
	"rx_logic_4_serdes = 4\n"
	"tx_logic_5_serdes = 5\n"
	"rx_logic_5_serdes = 5\n"
	"tx_logic_6_serdes = 6\n"
	"rx_logic_6_serdes = 6\n"
	"tx_logic_7_serdes = 7\n"
	"rx_logic_7_serdes = 7\n"
	"\n"
	"[PLL]\n"
	"lbist_en = false\n"
	"pll_stabilize = 0x13\n"
	"core_f = 44\n"
	"core_r = 27\n"
	"\n"
	"[FW]\n"
	"flash_has_suspend_resume = true\n"
	"log_flashdev_size = 21\n"
	"log_flash_sector_size = 2";

#define STOCK_KEYS 57

/* ---- helpers ---- */

static void parse_ok(const char *text, size_t len, struct ini_doc *d)
{
	struct cx_status st = {0};

	int rc = ini_doc_parse(text, len, d, &st);
	if (rc)
		print_error("%s\n", st.msg);
	assert_int_equal(rc, CX_OK);
}

static void parse_str(const char *text, struct ini_doc *d)
{
	parse_ok(text, strlen(text), d);
}

/* A malloc'd copy of text with the first `from` replaced by `to`. */
static char *replace(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	assert_non_null(at);
	size_t head = (size_t)(at - text), nf = strlen(from), nt = strlen(to), n = strlen(text);
	char *out = malloc(n - nf + nt + 1);
	assert_non_null(out);
	memcpy(out, text, head);
	memcpy(out + head, to, nt);
	memcpy(out + head + nt, at + nf, n - head - nf + 1);
	return out;
}

static void compare_ok(const struct ini_doc *card, const struct ini_doc *image, struct ini_diff *out)
{
	struct cx_status st = {0};

	assert_int_equal(ini_compare(card, image, out, &st), CX_OK);
	assert_int_equal(out->nsame + out->nexpected + out->nrisky, out->n);
}

static const struct ini_pair *pair_of(const struct ini_diff *df, const char *section, const char *key)
{
	for (size_t i = 0; i < df->n; i++)
		if (!strcmp(df->pairs[i].section, section) && !strcmp(df->pairs[i].key, key))
			return &df->pairs[i];
	return NULL;
}

/* ---- parsing ---- */

static void test_parse_realistic(void **state)
{
	(void)state;
	struct ini_doc d;

	parse_str(STOCK, &d);
	assert_int_equal(d.n, STOCK_KEYS);
	assert_int_equal(d.unparsed, 0);
	assert_int_equal(d.first_unparsed, 0);
	/* file order, with the line each came from */
	assert_string_equal(d.kv[0].section, "PS_INFO");
	assert_string_equal(d.kv[0].key, "Name");
	assert_string_equal(d.kv[0].value, "SYNTH-MCX354A-FCB");
	assert_int_equal(d.kv[0].line, 5);
	assert_string_equal(d.kv[3].section, "ADAPTER");
	assert_string_equal(d.kv[3].key, "PSID");
	assert_int_equal(d.kv[3].line, 10);
	assert_string_equal(d.kv[STOCK_KEYS - 1].section, "FW");
	assert_string_equal(d.kv[STOCK_KEYS - 1].key, "log_flash_sector_size");
	assert_string_equal(d.kv[STOCK_KEYS - 1].value, "2"); /* no final newline */
	assert_string_equal(ini_doc_get(&d, "PS_INFO", "Description"), "ConnectX-3 synthetic test adapter");
	assert_string_equal(ini_doc_get(&d, "IB", "rx_logic_7_serdes"), "7");
	/* the copy is private: the kv strings outlive the caller's text */
	char *copy = strdup(STOCK);
	struct ini_doc d2;
	parse_str(copy, &d2);
	memset(copy, 'x', strlen(copy));
	free(copy);
	assert_string_equal(ini_doc_get(&d2, "ADAPTER", "psid"), "MT_1090120019");
	ini_doc_free(&d2);
	ini_doc_free(&d);
	ini_doc_free(&d); /* twice is harmless */
}

static void test_comments_and_blanks(void **state)
{
	(void)state;
	struct ini_doc d;

	parse_str(";; double\n"
		  "; single\n"
		  "# hash\n"
		  "   ;; indented\n"
		  "\t# tab-indented\n"
		  "\n"
		  "   \t \n"
		  "[ A ]   ;; a section with a comment after it\n"
		  "  k1   =   v 1  \n"
		  "k2=v2\n"
		  "k3 =\n"
		  "k4 = a = b\n"
		  "k5 = x; y # z\n"
		  "[B]# hash after\n"
		  "k1 = other\n",
		  &d);
	assert_int_equal(d.unparsed, 0);
	assert_int_equal(d.n, 6);
	assert_string_equal(d.kv[0].section, "A");
	assert_string_equal(d.kv[0].key, "k1");
	assert_string_equal(d.kv[0].value, "v 1");
	assert_int_equal(d.kv[0].line, 9);
	assert_string_equal(ini_doc_get(&d, "A", "k2"), "v2");
	assert_string_equal(ini_doc_get(&d, "A", "k3"), "");
	assert_string_equal(ini_doc_get(&d, "A", "k4"), "a = b");     /* after the first '=' */
	assert_string_equal(ini_doc_get(&d, "A", "k5"), "x; y # z"); /* no trailing comments */
	assert_string_equal(ini_doc_get(&d, "B", "k1"), "other");
	ini_doc_free(&d);
}

static void test_crlf_and_endings(void **state)
{
	(void)state;
	struct ini_doc d;

	parse_str(";; c\r\n[PS_INFO]\r\nName = X-1 \r\n\r\nDescription = d\r\n[FW]\r\nlog_flashdev_size = 21", &d);
	assert_int_equal(d.n, 3);
	assert_int_equal(d.unparsed, 0);
	assert_string_equal(ini_doc_get(&d, "PS_INFO", "Name"), "X-1");
	assert_string_equal(ini_doc_get(&d, "PS_INFO", "Description"), "d");
	assert_string_equal(ini_doc_get(&d, "FW", "log_flashdev_size"), "21");
	assert_int_equal(d.kv[2].line, 7);
	ini_doc_free(&d);

	/* len, not the terminator, bounds the text */
	parse_ok("[S]\nk = 12345", strlen("[S]\nk = 12"), &d);
	assert_string_equal(ini_doc_get(&d, "S", "k"), "12");
	ini_doc_free(&d);

	/* a byte order mark from a Windows editor */
	parse_str("\xef\xbb\xbf[S]\nk = v\n", &d);
	assert_int_equal(d.unparsed, 0);
	assert_string_equal(ini_doc_get(&d, "S", "k"), "v");
	ini_doc_free(&d);
}

static void test_key_before_section(void **state)
{
	(void)state;
	struct ini_doc d;

	parse_str("top = 1\n[S]\nk = 2\n", &d);
	assert_int_equal(d.n, 2);
	assert_string_equal(d.kv[0].section, "");
	assert_string_equal(ini_doc_get(&d, "", "top"), "1");
	assert_string_equal(ini_doc_get(&d, NULL, "TOP"), "1");
	assert_null(ini_doc_get(&d, "S", "top"));
	assert_null(ini_doc_get(&d, "", "k"));
	ini_doc_free(&d);
}

static void test_duplicates(void **state)
{
	(void)state;
	struct ini_doc d;

	parse_str("[ADAPTER]\n"
		  "PSID = MT_1\n"
		  "gpio_mode1 = 0x1\n"
		  "[HCA]\n"
		  "psid = other section\n"
		  "[adapter]\n"
		  "psid = HP_2\n"
		  "PSID = HP_3\n",
		  &d);
	assert_int_equal(d.n, 3);
	/* the last value, at the place of the first line */
	assert_string_equal(d.kv[0].key, "PSID");
	assert_string_equal(d.kv[0].value, "HP_3");
	assert_int_equal(d.kv[0].line, 8);
	assert_string_equal(d.kv[1].key, "gpio_mode1");
	assert_string_equal(ini_doc_get(&d, "HCA", "PSID"), "other section");
	assert_string_equal(ini_doc_get(&d, "Adapter", "Psid"), "HP_3");
	ini_doc_free(&d);

	/* thousands of lines of one key are one key, not a limit */
	size_t n = 10000, len = 0;
	char *big = malloc(n * 16 + 8);
	assert_non_null(big);
	len += (size_t)sprintf(big, "[S]\n");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(big + len, "k = %zu\n", i);
	parse_ok(big, len, &d);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.kv[0].value, "9999");
	assert_int_equal(d.kv[0].line, n + 1);
	ini_doc_free(&d);
	free(big);
}

static void test_unparsed(void **state)
{
	(void)state;
	struct ini_doc d;

	parse_str("[S]\n"
		  "good = 1\n"
		  "just words\n"      /* 3 */
		  "[unclosed\n"       /* 4 */
		  "= no key\n"        /* 5 */
		  "[]\n"              /* 6 */
		  "[ ]\n"             /* 7 */
		  "[T] trailing\n"    /* 8: not a section, so later keys stay in S */
		  "also = 2\n"
		  "[U]\n"
		  "more = 3\n"
		  "tail without eq",  /* 12 */
		  &d);
	assert_int_equal(d.unparsed, 7);
	assert_int_equal(d.first_unparsed, 3);
	assert_int_equal(d.n, 3);
	assert_string_equal(ini_doc_get(&d, "S", "also"), "2");
	assert_string_equal(ini_doc_get(&d, "U", "more"), "3");
	ini_doc_free(&d);
}

static void test_nul_byte(void **state)
{
	(void)state;
	static const char text[] = "[S]\nk = v\nk2 = a\0b\n";
	struct ini_doc d = {0};
	struct cx_status st = {0};

	assert_int_equal(ini_doc_parse(text, sizeof(text) - 1, &d, &st), CX_EIMAGE);
	assert_int_equal(st.code, CX_EIMAGE);
	assert_non_null(strstr(st.msg, "NUL"));
	assert_non_null(strstr(st.msg, "line 3"));
	assert_null(strchr(st.msg, '\n'));
	assert_int_equal(d.n, 0);
	assert_null(d.kv);
	assert_null(d.text);
	ini_doc_free(&d);

	/* at the very start, and as the only byte */
	cx_status_clear(&st);
	assert_int_equal(ini_doc_parse("", 1, &d, &st), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "line 1"));
	ini_doc_free(&d);
}

/* n distinct keys spread over sections of 100. */
static char *many_keys(size_t n, size_t *len)
{
	char *t = malloc(n * 32 + 64);
	assert_non_null(t);
	*len = 0;
	for (size_t i = 0; i < n; i++) {
		if (i % 100 == 0)
			*len += (size_t)sprintf(t + *len, "[S%zu]\n", i / 100);
		*len += (size_t)sprintf(t + *len, "key_%zu = %zu\n", i, i);
	}
	return t;
}

static void test_too_many_keys(void **state)
{
	(void)state;
	struct ini_doc d;
	struct cx_status st = {0};
	size_t len;

	char *t = many_keys(INI_DOC_MAX_KEYS, &len);
	parse_ok(t, len, &d);
	assert_int_equal(d.n, INI_DOC_MAX_KEYS);
	assert_string_equal(ini_doc_get(&d, "S40", "KEY_4095"), "4095");
	assert_string_equal(ini_doc_get(&d, "s0", "key_0"), "0");
	assert_null(ini_doc_get(&d, "S0", "key_100"));
	ini_doc_free(&d);
	free(t);

	t = many_keys(INI_DOC_MAX_KEYS + 1, &len);
	assert_int_equal(ini_doc_parse(t, len, &d, &st), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "more than 4096 keys"));
	assert_null(strchr(st.msg, '\n'));
	assert_int_equal(d.n, 0);
	assert_null(d.kv);
	assert_null(d.text);
	ini_doc_free(&d);
	free(t);
}

static void test_empty(void **state)
{
	(void)state;
	struct ini_doc d;

	parse_ok(NULL, 0, &d);
	assert_int_equal(d.n, 0);
	assert_int_equal(d.unparsed, 0);
	assert_null(ini_doc_get(&d, "PS_INFO", "Name"));
	ini_doc_free(&d);

	parse_str("", &d);
	assert_int_equal(d.n, 0);
	ini_doc_free(&d);

	parse_str(";; only a comment\n\n[EMPTY]\n", &d);
	assert_int_equal(d.n, 0);
	assert_int_equal(d.unparsed, 0);
	ini_doc_free(&d);

	/* NULL arguments to the lookups */
	assert_null(ini_doc_get(NULL, "S", "k"));
	parse_str("[S]\nk = v\n", &d);
	assert_null(ini_doc_get(&d, "S", NULL));
	ini_doc_free(&d);
	ini_doc_free(NULL);
	ini_diff_free(NULL);
}

static void test_get_case_insensitive(void **state)
{
	(void)state;
	struct ini_doc d;

	parse_str(STOCK, &d);
	assert_string_equal(ini_doc_get(&d, "ps_info", "NAME"), "SYNTH-MCX354A-FCB");
	assert_string_equal(ini_doc_get(&d, "Ps_Info", "prs_NAME"), "cx3_SYNTH_MCX354A_2mb.prs");
	assert_string_equal(ini_doc_get(&d, "hca", "HCA_HEADER_SUBSYSTEM_ID"), "0x0050");
	assert_null(ini_doc_get(&d, "PS_INFO", "PSID"));  /* a key of another section */
	assert_null(ini_doc_get(&d, "ADAPTER", "PSI"));    /* a prefix is not the key */
	assert_null(ini_doc_get(&d, "ADAPTE", "PSID"));
	assert_null(ini_doc_get(&d, "ADAPTER", "PSIDX"));
	assert_null(ini_doc_get(&d, "", "PSID"));
	ini_doc_free(&d);
}

/* ---- values and classes ---- */

static void test_value_equal(void **state)
{
	(void)state;
	static const struct {
		const char *a, *b;
		bool eq;
	} cases[] = {
		/* numerals by value */
		{"0x10", "16", true},
		{"16", "0x10", true},
		{"0x000a02a8", "0xa02a8", true},
		{"0x000A02A8", "0xa02a8", true},
		{"0X10", "0x10", true},
		{"0", "0x0", true},
		{"0x00000000", "0", true},
		{"21", "21", true},
		{"0x1003", "4099", true},
		{"0xffffffffffffffff", "18446744073709551615", true},
		{"0x10", "0x11", false},
		{"0x10", "10", false},
		{"2", "21", false},
		/* in doubt, different: octal-looking, past 64 bits, signs, bare 0x */
		{"010", "10", false},
		{"010", "8", false},
		{"010", "010", true},
		{"0x1ffffffffffffffff", "0x1ffffffffffffffff", true},
		{"0x1ffffffffffffffff", "0x01ffffffffffffffff", false},
		{"18446744073709551616", "0x10000000000000000", false},
		{"-1", "0xffffffff", false},
		{"+1", "1", false},
		{"0x", "0", false},
		{"1e3", "1000", false},
		/* booleans, two vocabularies */
		{"true", "TRUE", true},
		{"False", "false", true},
		{"yes", "YES", true},
		{"No", "no", true},
		{"true", "false", false},
		{"true", "yes", false},
		{"false", "no", false},
		{"true", "1", false},
		{"false", "0", false},
		{"truee", "TRUEE", false},
		/* other text: trimmed, exact */
		{"QSFP", "QSFP", true},
		{"  QSFP\t", "QSFP", true},
		{"QSFP", "qsfp", false},
		{"Two_Ports", "two_ports", false},
		{"a  b", "a b", false},
		{"", "", true},
		{"", "  ", true},
		{"", "0", false},
		{"cx3_SYNTH.prs", "cx3_SYNTH.prs ", true},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool got = ini_value_equal(cases[i].a, cases[i].b);
		if (got != cases[i].eq)
			print_error("\"%s\" vs \"%s\": got %d\n", cases[i].a, cases[i].b, got);
		assert_int_equal(got, cases[i].eq);
		assert_int_equal(ini_value_equal(cases[i].b, cases[i].a), cases[i].eq); /* symmetric */
	}
	assert_true(ini_value_equal(NULL, NULL));
	assert_false(ini_value_equal("", NULL));
	assert_false(ini_value_equal(NULL, "x"));
}

static void test_key_class(void **state)
{
	(void)state;
	/* what names or identifies a board */
	assert_int_equal(ini_key_class("PS_INFO", "Name"), INI_EXPECTED);
	assert_int_equal(ini_key_class("PS_INFO", "Description"), INI_EXPECTED);
	assert_int_equal(ini_key_class("PS_INFO", "PRS_name"), INI_EXPECTED);
	assert_int_equal(ini_key_class("ADAPTER", "PSID"), INI_EXPECTED);
	assert_int_equal(ini_key_class("ps_info", "NAME"), INI_EXPECTED);
	assert_int_equal(ini_key_class("Adapter", "psid"), INI_EXPECTED);
	/* the same names in another section are something else */
	assert_int_equal(ini_key_class("ADAPTER", "Name"), INI_RISKY);
	assert_int_equal(ini_key_class("PS_INFO", "PSID"), INI_RISKY);
	assert_int_equal(ini_key_class("", "PSID"), INI_RISKY);
	assert_int_equal(ini_key_class("PS_INFO", "Name2"), INI_RISKY);
	assert_int_equal(ini_key_class("PS_INFO", "Nam"), INI_RISKY);

	/* what describes the hardware */
	static const char *const risky[][2] = {
		{"HCA", "hca_header_device_id"},
		{"HCA", "hca_header_subsystem_id"},
		{"HCA", "hca_header_class_code"},
		{"HCA", "dpdp_en"},
		{"HCA", "eth_xfi_en"},
		{"HCA", "mdio_en_port1"},
		{"ADAPTER", "adapter_dev_id"},
		{"ADAPTER", "silicon_rev"},
		{"ADAPTER", "pcie_gen2_speed_supported"},
		{"ADAPTER", "pcie_gen3_speed_supported"},
		{"ADAPTER", "gpio_mode0"},
		{"ADAPTER", "gpio_mode1"},
		{"ADAPTER", "gpio_default_val"},
		{"ADAPTER", "gpio_pull_up"},
		{"ADAPTER", "gpio_pull_enable"},
		{"ADAPTER", "receiver_detect_en"},
		{"ADAPTER", "nv_cfg_en"},
		{"ADAPTER", "nv_config_sectors"},
		{"IB", "num_of_ports"},
		{"IB", "tx_logic_0_serdes"},
		{"IB", "rx_logic_7_serdes"},
		{"IB", "phy_type_port1"},
		{"IB", "port1_802_3ap_kr_ability"},
		{"IB", "gen_guids_from_mac"},
		{"PLL", "core_f"},
		{"FW", "log_flashdev_size"},
		{"FW", "log_flash_sector_size"},
		{"FW", "flash_has_suspend_resume"},
		/* unknown keys and sections */
		{"IB", "some_future_key"},
		{"VENDOR", "Description"},
		{"", ""},
	};
	for (size_t i = 0; i < sizeof(risky) / sizeof(risky[0]); i++) {
		if (ini_key_class(risky[i][0], risky[i][1]) != INI_RISKY)
			print_error("[%s] %s is not risky\n", risky[i][0], risky[i][1]);
		assert_int_equal(ini_key_class(risky[i][0], risky[i][1]), INI_RISKY);
	}
	assert_int_equal(ini_key_class(NULL, "PSID"), INI_RISKY);
	assert_int_equal(ini_key_class("ADAPTER", NULL), INI_RISKY);
}

/* ---- comparing ---- */

/* An HP board and its stock twin: only what names the board differs. */
static void test_compare_oem_twin(void **state)
{
	(void)state;
	struct ini_doc card, image;
	struct ini_diff df;

	char *a = replace(STOCK, "PSID = MT_1090120019", "PSID = HP_0280210019");
	char *b = replace(a, "Name = SYNTH-MCX354A-FCB", "Name = 649281-B21");
	char *oem = replace(b, "Description = ConnectX-3 synthetic test adapter",
			    "Description = HP InfiniBand FDR/EN 10/40Gb Dual Port 544QSFP Adapter");
	free(a);
	free(b);
	parse_str(oem, &card);
	parse_str(STOCK, &image);
	compare_ok(&card, &image, &df);
	assert_int_equal(df.n, STOCK_KEYS);
	assert_int_equal(df.nrisky, 0);
	assert_int_equal(df.nexpected, 3);
	assert_int_equal(df.nsame, STOCK_KEYS - 3);
	/* the card's order */
	for (size_t i = 0; i < df.n; i++) {
		assert_string_equal(df.pairs[i].key, card.kv[i].key);
		assert_non_null(df.pairs[i].card);
		assert_non_null(df.pairs[i].image);
	}
	const struct ini_pair *p = pair_of(&df, "ADAPTER", "PSID");
	assert_non_null(p);
	assert_int_equal(p->cls, INI_EXPECTED);
	assert_string_equal(p->card, "HP_0280210019");
	assert_string_equal(p->image, "MT_1090120019");
	assert_int_equal(pair_of(&df, "PS_INFO", "Name")->cls, INI_EXPECTED);
	assert_int_equal(pair_of(&df, "PS_INFO", "PRS_name")->cls, INI_SAME);
	assert_int_equal(pair_of(&df, "IB", "tx_logic_3_serdes")->cls, INI_SAME);
	ini_diff_free(&df);
	assert_null(df.pairs);
	assert_int_equal(df.n, 0);

	/* the same file against itself */
	compare_ok(&image, &image, &df);
	assert_int_equal(df.nsame, STOCK_KEYS);
	ini_diff_free(&df);
	ini_doc_free(&card);
	ini_doc_free(&image);
	free(oem);
}

/* Spelt differently, meaning the same: case, padding, hex width, CRLF. */
static void test_compare_spelling(void **state)
{
	(void)state;
	struct ini_doc card, image;
	struct ini_diff df;

	parse_str(STOCK, &image);
	parse_str("[ps_info]\r\n"
		  "NAME=SYNTH-MCX354A-FCB\r\n"
		  "[Adapter]\r\n"
		  "gpio_mode1 = 0xa02a8\r\n"
		  "GPIO_MODE0 = 0\r\n"
		  "pcie_gen3_speed_supported = TRUE\r\n"
		  "adapter_dev_id = 4099\r\n",
		  &card);
	compare_ok(&card, &image, &df);
	assert_int_equal(df.n, STOCK_KEYS);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(df.pairs[i].cls, INI_SAME);
	assert_string_equal(df.pairs[0].section, "ps_info"); /* the card's spelling */
	assert_string_equal(df.pairs[0].key, "NAME");
	assert_int_equal(df.nsame, 5);
	assert_int_equal(df.nrisky, STOCK_KEYS - 5); /* the rest is missing on the card */
	ini_diff_free(&df);
	ini_doc_free(&card);
	ini_doc_free(&image);
}

static void test_compare_serdes(void **state)
{
	(void)state;
	struct ini_doc card, image;
	struct ini_diff df;

	char *swapped = replace(STOCK, "rx_logic_5_serdes = 5", "rx_logic_5_serdes = 6");
	parse_str(swapped, &card);
	parse_str(STOCK, &image);
	compare_ok(&card, &image, &df);
	assert_int_equal(df.n, STOCK_KEYS);
	assert_int_equal(df.nrisky, 1);
	assert_int_equal(df.nexpected, 0);
	assert_int_equal(df.nsame, STOCK_KEYS - 1);
	const struct ini_pair *p = NULL;
	for (size_t i = 0; i < df.n; i++)
		if (df.pairs[i].cls == INI_RISKY)
			p = &df.pairs[i];
	assert_non_null(p);
	assert_string_equal(p->section, "IB");
	assert_string_equal(p->key, "rx_logic_5_serdes");
	assert_string_equal(p->card, "6");
	assert_string_equal(p->image, "5");
	ini_diff_free(&df);
	ini_doc_free(&card);
	ini_doc_free(&image);
	free(swapped);
}

static void test_compare_one_side(void **state)
{
	(void)state;
	struct ini_doc card, image;
	struct ini_diff df;

	/* the card lacks the stock board's gen3 key and has one of its own, and even a
	 * name key present on one side only is risky: the pair cannot be checked */
	char *a = replace(STOCK, "pcie_gen3_speed_supported = true\n", "");
	char *b = replace(a, "[HCA]\n", "[HCA]\noem_led_mode = 3\n");
	char *c = replace(STOCK, "Description = ConnectX-3 synthetic test adapter\n", "");
	parse_str(b, &card);
	parse_str(c, &image);
	compare_ok(&card, &image, &df);
	assert_int_equal(df.n, STOCK_KEYS + 1);
	assert_int_equal(df.nrisky, 3);
	assert_int_equal(df.nsame, STOCK_KEYS - 2);

	const struct ini_pair *p = pair_of(&df, "HCA", "oem_led_mode");
	assert_non_null(p);
	assert_int_equal(p->cls, INI_RISKY);
	assert_string_equal(p->card, "3");
	assert_null(p->image);
	p = pair_of(&df, "PS_INFO", "Description");
	assert_int_equal(p->cls, INI_RISKY);
	assert_null(p->image);
	/* the image's own keys come last */
	p = &df.pairs[df.n - 1];
	assert_string_equal(p->section, "ADAPTER");
	assert_string_equal(p->key, "pcie_gen3_speed_supported");
	assert_int_equal(p->cls, INI_RISKY);
	assert_null(p->card);
	assert_string_equal(p->image, "true");
	ini_diff_free(&df);

	/* against an empty file every key is one-sided */
	struct ini_doc none;
	parse_str("", &none);
	compare_ok(&none, &image, &df);
	assert_int_equal(df.nrisky, image.n);
	assert_null(df.pairs[0].card);
	ini_diff_free(&df);
	compare_ok(&card, &none, &df);
	assert_int_equal(df.nrisky, card.n);
	assert_null(df.pairs[0].image);
	ini_diff_free(&df);
	compare_ok(&none, &none, &df);
	assert_int_equal(df.n, 0);
	assert_null(df.pairs);
	ini_diff_free(&df);

	ini_doc_free(&none);
	ini_doc_free(&card);
	ini_doc_free(&image);
	free(a);
	free(b);
	free(c);
}

/* ---- robustness ---- */

static uint32_t rng = 0x9e3779b9;

/* Whatever the text, parsing either fails cleanly or gives a doc that every
 * function accepts. */
static void exercise(const char *text, size_t len, const struct ini_doc *stock)
{
	struct ini_doc d;
	struct ini_diff df;
	struct cx_status st = {0};

	int rc = ini_doc_parse(text, len, &d, &st);
	if (rc != CX_OK) {
		assert_int_equal(rc, CX_EIMAGE);
		assert_null(strchr(st.msg, '\n'));
		assert_int_equal(d.n, 0);
		ini_doc_free(&d);
		return;
	}
	assert_true(d.n <= INI_DOC_MAX_KEYS);
	for (size_t i = 0; i < d.n; i++) {
		assert_ptr_equal(ini_doc_get(&d, d.kv[i].section, d.kv[i].key), d.kv[i].value);
		ini_key_class(d.kv[i].section, d.kv[i].key);
	}
	compare_ok(&d, &d, &df);
	assert_int_equal(df.nsame, d.n);
	ini_diff_free(&df);
	compare_ok(&d, stock, &df);
	assert_true(df.n >= d.n && df.n <= d.n + stock->n);
	ini_diff_free(&df);
	compare_ok(stock, &d, &df);
	ini_diff_free(&df);
	ini_doc_free(&d);
}

static void test_mutations(void **state)
{
	(void)state;
	static const char bytes[] = "[]=;#\n\r \t\0xX0";
	struct ini_doc stock;
	size_t len = sizeof(STOCK) - 1;
	char *m = malloc(len + 1);

	assert_non_null(m);
	parse_str(STOCK, &stock);
	/* every cut, and a cut piece copied so that the last byte is the text's end
	 * (ASan catches a read past it) */
	for (size_t cut = 0; cut <= len; cut++) {
		char *piece = malloc(cut ? cut : 1);
		assert_non_null(piece);
		memcpy(piece, STOCK, cut);
		exercise(piece, cut, &stock);
		free(piece);
	}
	for (int round = 0; round < 4000; round++) {
		size_t n = len;
		memcpy(m, STOCK, len);
		for (int k = 1 + (int)(prng32(&rng) % 6); k; k--) {
			size_t at = prng32(&rng) % n;
			m[at] = prng32(&rng) % 2 ? bytes[prng32(&rng) % (sizeof(bytes) - 1)] : (char)prng32(&rng);
		}
		if (prng32(&rng) % 4 == 0)
			n = prng32(&rng) % (len + 1);
		char *exact = malloc(n ? n : 1);
		assert_non_null(exact);
		memcpy(exact, m, n);
		exercise(exact, n, &stock);
		free(exact);
	}
	ini_doc_free(&stock);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_realistic),
		cmocka_unit_test(test_comments_and_blanks),
		cmocka_unit_test(test_crlf_and_endings),
		cmocka_unit_test(test_key_before_section),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_unparsed),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_too_many_keys),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_get_case_insensitive),
		cmocka_unit_test(test_value_equal),
		cmocka_unit_test(test_key_class),
		cmocka_unit_test(test_compare_oem_twin),
		cmocka_unit_test(test_compare_spelling),
		cmocka_unit_test(test_compare_serdes),
		cmocka_unit_test(test_compare_one_side),
		cmocka_unit_test(test_mutations),
	};
	return cmocka_run_group_tests_name("ini_diff", tests, NULL, NULL);
}
