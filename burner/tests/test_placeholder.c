/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_placeholder.c — ops/placeholder: a release image's placeholder identity found in any
 * GUID entry or MAC, a card's own identity and a blank section not. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "ops/placeholder.h"

/* A ConnectX-3 section: node GUID g and port GUIDs after it, MACs m and m+1. */
static struct fs2_guids ids(uint64_t g, uint64_t sys, uint64_t m)
{
	struct fs2_guids x;

	memset(&x, 0, sizeof(x));
	x.n = GUIDS_FULL;
	x.guid[0] = g;
	x.guid[1] = g + 1;
	x.guid[2] = g + 2;
	x.guid[3] = sys;
	x.mac[0] = m;
	x.mac[1] = m + 1;
	return x;
}

static void test_release_identity_is_a_placeholder(void **state)
{
	(void)state;
	/* As flint shows the MCX311A 2.42.5000 release .bin: the sys image GUID repeats the node's. */
	struct fs2_guids g = ids(0x0002c9000100d050ull, 0x0002c9000100d050ull, 0x0002c9000001ull);
	const struct placeholder_id *p = placeholder_find(&g);

	assert_non_null(p);
	assert_int_equal(p->kind, PLACEHOLDER_GUID);
	assert_true(p->value == 0x0002c9000100d050ull);
	assert_string_equal(p->what, "node GUID");
	assert_non_null(strstr(p->source, "MELLANOX.h"));
}

/* Each value on its own is enough: own GUIDs with the placeholder MACs are still every
 * such card's MACs; a placeholder port GUID with own MACs likewise. */
static void test_any_one_value_counts(void **state)
{
	(void)state;
	struct fs2_guids g = ids(0x0002c90300c0ffe0ull, 0x0002c90300c0ffe3ull, 0x0002c9000001ull);
	const struct placeholder_id *p = placeholder_find(&g);
	assert_non_null(p);
	assert_int_equal(p->kind, PLACEHOLDER_MAC);
	assert_string_equal(p->what, "port 1 MAC");

	g = ids(0x0002c90300c0ffe0ull, 0x0002c9000100d053ull, 0x0002c9c0ffe0ull);
	assert_non_null(p = placeholder_find(&g));
	assert_string_equal(p->what, "system image GUID");

	/* A MAC entry is compared on its low 48 bits (the section stores it in 64). */
	g = ids(0x0002c90300c0ffe0ull, 0x0002c90300c0ffe3ull, 0x0002c9c0ffe0ull);
	g.mac[1] = 0xFFFF0002c9000002ull;
	assert_non_null(p = placeholder_find(&g));
	assert_string_equal(p->what, "port 2 MAC");
}

static void test_own_and_blank_identities_are_not(void **state)
{
	(void)state;
	struct fs2_guids g = ids(0x0002c90300c0ffe0ull, 0x0002c90300c0ffe3ull, 0x0002c9c0ffe0ull);

	assert_null(placeholder_find(&g));
	/* One off the placeholder node GUID is someone's own. */
	g = ids(0x0002c9000100d054ull, 0x0002c9000100d057ull, 0x0002c9000003ull);
	assert_null(placeholder_find(&g));
	memset(&g, 0xFF, sizeof(g));
	g.n = GUIDS_FULL;
	g.blank = true;
	assert_null(placeholder_find(&g));
	assert_null(placeholder_find(NULL));
}

/* Every row says what it is and where it comes from, and no value is listed twice. */
static void test_table_rows_have_sources(void **state)
{
	int n;
	const struct placeholder_id *t = placeholder_table(&n);

	(void)state;
	assert_true(n >= 6);
	for (int i = 0; i < n; i++) {
		assert_true(t[i].what && t[i].what[0] && t[i].source && t[i].source[0]);
		assert_true(t[i].kind == PLACEHOLDER_GUID || t[i].value <= 0xFFFFFFFFFFFFull);
		for (int k = 0; k < i; k++)
			assert_false(t[k].kind == t[i].kind && t[k].value == t[i].value);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release_identity_is_a_placeholder),
		cmocka_unit_test(test_any_one_value_counts),
		cmocka_unit_test(test_own_and_blank_identities_are_not),
		cmocka_unit_test(test_table_rows_have_sources),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
