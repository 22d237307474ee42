/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_json_read.c — util/json_read: what it hands its callback for valid
 * documents (paths, kinds, values), every escape and \u range, the limits (depth,
 * key, path, string and number sizes, each at its edge), numbers and hex strings
 * in and out of range, repeated keys, a callback that stops the reading; then a
 * real identity.json made by backup_card() from a simulated card: accepted,
 * every truncation refused, and thousands of random mutations read under ASan
 * from buffers of their exact size, with no crash and only sane answers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/backup.h"
#include "card_fixture.h"
#include "scratch.h"
#include "sim_cfg.h"
#include "util/fileio.h"
#include "util/json_read.h"

#define BDF "0000:01:00.0"

/* ---- a callback that writes down what it is given ---- */

struct log {
	char text[8192];   /* "path kind value\n" lines */
	int calls;
	int stop_at;       /* return CX_EVALUE on this call (1-based); 0: never */
};

static const char *kind_name(enum json_kind k)
{
	return k == JSON_STRING ? "S" : k == JSON_NUMBER ? "N" : k == JSON_BOOL ? "B" : k == JSON_NULL ? "Z" : "?";
}

static int record(void *ctx, const char *path, enum json_kind k, const char *v, struct cx_status *st)
{
	struct log *l = ctx;
	size_t n = strlen(l->text);

	assert_true(strlen(path) < JSON_READ_PATH_MAX);
	assert_true(strlen(v) < JSON_READ_STR_MAX);
	snprintf(l->text + n, sizeof(l->text) - n, "%s %s %s\n", path, kind_name(k), v);
	if (++l->calls == l->stop_at)
		return cx_fail(st, CX_EVALUE, "stopped at %s", path);
	return CX_OK;
}

/* Read len bytes from a heap copy of exactly that size, so ASan sees any read past it. */
static int read_exact(const char *text, size_t len, struct log *l, struct cx_status *st)
{
	char *copy = malloc(len ? len : 1);
	assert_non_null(copy);
	memcpy(copy, text, len);
	memset(l->text, 0, sizeof(l->text));
	l->calls = 0;
	cx_status_clear(st);
	int rc = json_read(copy, len, "test.json", record, l, st);
	free(copy);
	return rc;
}

static void reads_as(const char *doc, const char *want)
{
	struct log l = {.stop_at = 0};
	struct cx_status st = {0};

	if (read_exact(doc, strlen(doc), &l, &st))
		fail_msg("'%s' refused: %s", doc, st.msg);
	assert_string_equal(l.text, want);
}

static void refused(const char *doc, size_t len, const char *says)
{
	struct log l = {.stop_at = 0};
	struct cx_status st = {0};
	char want[128];

	snprintf(want, sizeof(want), "test.json: %s", says);
	if (read_exact(doc, len, &l, &st) != CX_EIMAGE || strcmp(st.msg, want))
		fail_msg("'%.*s': got %d '%s', expected '%s'", (int)len, doc, st.code, st.msg, want);
}

static void refused_s(const char *doc, const char *says)
{
	refused(doc, strlen(doc), says);
}

/* ---- valid documents ---- */

static void test_valid_documents(void **state)
{
	(void)state;
	reads_as("{}", "");
	reads_as(" \t\r\n{ \t\r\n} \t\r\n", "");
	reads_as("{\"a\":1}", "a N 1\n");
	reads_as("{\"a\": 1, \"b\": {\"c\": \"x\", \"d\": null}, \"e\": [true, {\"f\": 2}], \"g\": false}",
		 "a N 1\nb.c S x\nb.d Z null\n[] B true\n[].f N 2\ng B false\n");
	/* Empty containers call nothing; an array's members are "[]" at any depth. */
	reads_as("{\"a\":[],\"b\":{},\"c\":[[1,[2]],{}],\"d\":{\"e\":{\"f\":[\"s\"]}}}", "[] N 1\n[] N 2\n[] S s\n");
	/* A key holding '.' is not told apart from nesting; an empty key is a key. */
	reads_as("{\"a.b\":1,\"a\":{\"b\":2},\"\":3,\"x\":{\"\":4}}", "a.b N 1\na.b N 2\n N 3\nx. N 4\n");
	/* Keys are decoded like strings. */
	reads_as("{\"\\u0041\\n\":true}", "A\n B true\n");
	/* Numbers are handed over as written. */
	reads_as("{\"a\":0,\"b\":-0,\"c\":1.5,\"d\":-0.5e+10,\"e\":1E-3,\"f\":123456789012345678901234567890}",
		 "a N 0\nb N -0\nc N 1.5\nd N -0.5e+10\ne N 1E-3\nf N 123456789012345678901234567890\n");
	/* A literal is matched as a word; what follows it must then be ',' or '}'. */
	refused_s("{\"a\":truex}", "expected ',' or '}'");
	refused_s("{\"a\":nul}", "unexpected character");
}

static void test_refused_documents(void **state)
{
	static const struct {
		const char *doc, *says;
	} bad[] = {
		{"", "not a JSON object"}, {"  ", "not a JSON object"}, {"[]", "not a JSON object"},
		{"null", "not a JSON object"}, {"\"x\"", "not a JSON object"}, {"{", "expected a key"},
		{"{\"a\"", "expected ':'"}, {"{\"a\":", "ends too early"}, {"{\"a\":1", "expected ',' or '}'"},
		{"{\"a\":[1", "expected ',' or ']'"}, {"{\"a\":1,}", "expected a key"}, {"{\"a\":[1,]}", "unexpected character"},
		{"{a:1}", "expected a key"}, {"{1:1}", "expected a key"}, {"{\"a\" 1}", "expected ':'"},
		{"{\"a\":1 \"b\":2}", "expected ',' or '}'"}, {"{\"a\":[1 2]}", "expected ',' or ']'"},
		{"{\"a\":[1}", "expected ',' or ']'"}, {"{\"a\":1]", "expected ',' or '}'"}, {"{}{}", "text after the object"},
		{"{} x", "text after the object"}, {"{\"a\":}", "unexpected character"}, {"{\"a\":'x'}", "unexpected character"},
		{"{\"a\":\"x}", "unterminated string"}, {"{\"a", "unterminated string"}, {"{\"a\":\"x\\", "unterminated string"},
		{"{\"a\":01}", "expected ',' or '}'"}, {"{\"a\":+1}", "unexpected character"}, {"{\"a\":.5}", "unexpected character"},
		{"{\"a\":1.}", "bad number"}, {"{\"a\":1e}", "bad number"}, {"{\"a\":1e+}", "bad number"},
		{"{\"a\":-}", "bad number"}, {"{\"a\":-x}", "bad number"}, {"{\"a\":[1 ,", "ends too early"},
	};
	(void)state;

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		refused_s(bad[i].doc, bad[i].says);
	/* A NUL byte is a control character, in a string or out of one. */
	refused("{\"a\":\"x\0y\"}", 11, "control character in a string");
	refused("{\"a\":1}\0", 8, "text after the object");
}

/* ---- strings ---- */

static void test_every_escape(void **state)
{
	(void)state;
	reads_as("{\"s\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"}", "s S \"\\/\b\f\n\r\t\n");
	/* Raw bytes of 0x20 and above are copied, UTF-8 or not. */
	reads_as("{\"s\":\"a \x7f\x80\xc3\xa9\xff\"}", "s S a \x7f\x80\xc3\xa9\xff\n");
	refused_s("{\"s\":\"\\q\"}", "bad escape in a string");
	refused_s("{\"s\":\"\\U0041\"}", "bad escape in a string");
	refused_s("{\"s\":\"\\x41\"}", "bad escape in a string");
	refused("{\"s\":\"\\\0\"}", 10, "bad escape in a string");
	for (unsigned c = 1; c < 0x20; c++) {
		char doc[16];
		snprintf(doc, sizeof(doc), "{\"s\":\"%c\"}", (char)c);
		refused_s(doc, "control character in a string");
	}
}

static void test_unicode_escapes(void **state)
{
	(void)state;
	/* 0001-00FF: that one byte (how util/json.c writes bytes outside printable ASCII). */
	reads_as("{\"s\":\"\\u0041\\u0001\\u001f\\u007f\\u0080\\u00e9\\u00E9\\u00ff\"}",
		 "s S A\x01\x1f\x7f\x80\xe9\xe9\xff\n");
	/* 0100-07FF: two bytes of UTF-8; 0800-FFFF: three. */
	reads_as("{\"s\":\"\\u0100\\u07ff\\u0800\\u20AC\\uffff\"}",
		 "s S \xc4\x80\xdf\xbf\xe0\xa0\x80\xe2\x82\xac\xef\xbf\xbf\n");
	/* Surrogate halves are each encoded alone: a pair is not joined. */
	reads_as("{\"s\":\"\\uD83D\\uDE00\"}", "s S \xed\xa0\xbd\xed\xb8\x80\n");
	refused_s("{\"s\":\"a\\u0000b\"}", "NUL in a string");
	refused_s("{\"a\\u0000\":1}", "NUL in a string");
	refused_s("{\"s\":\"\\uzzzz\"}", "bad \\u escape");
	refused_s("{\"s\":\"\\u12G4\"}", "bad \\u escape");
	refused_s("{\"s\":\"\\u-123\"}", "bad \\u escape");
	refused_s("{\"s\":\"\\u00\"}", "bad \\u escape");
	refused("{\"s\":\"\\u004", 11, "bad \\u escape"); /* the text ends inside the escape */
}

/* ---- limits ---- */

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);
	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static void test_nesting_limit(void **state)
{
	char doc[256];
	(void)state;

	/* The outer object is level 1: JSON_READ_DEPTH levels are read, one more is refused. */
	for (int inner = JSON_READ_DEPTH - 1; inner <= JSON_READ_DEPTH; inner++) {
		size_t n = 0;
		n += (size_t)snprintf(doc + n, sizeof(doc) - n, "{\"a\":");
		for (int i = 0; i < inner; i++)
			doc[n++] = '[';
		doc[n++] = '1';
		for (int i = 0; i < inner; i++)
			doc[n++] = ']';
		doc[n++] = '}';
		doc[n] = '\0';
		if (inner < JSON_READ_DEPTH)
			reads_as(doc, "[] N 1\n");
		else
			refused_s(doc, "nested too deep");
	}
	reads_as("{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":{\"g\":{\"h\":1}}}}}}}}", "a.b.c.d.e.f.g.h N 1\n");
	refused_s("{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":{\"g\":{\"h\":{}}}}}}}}}", "nested too deep");
	/* Very deep text is refused at the limit, not recursed into (nor read to its end). */
	size_t deep = 200000;
	char *d = repeat('[', deep);
	memcpy(d, "{\"a\":", 5);
	refused(d, deep, "nested too deep");
	memset(d, '{', deep);
	refused(d, deep, "expected a key");
	free(d);
}

static void test_size_limits(void **state)
{
	char doc[2048];
	(void)state;

	/* A key: up to JSON_READ_KEY_MAX - 1 bytes decoded. */
	char *k = repeat('k', JSON_READ_KEY_MAX - 1);
	snprintf(doc, sizeof(doc), "{\"%s\":1}", k);
	struct log l = {.stop_at = 0};
	struct cx_status st = {0};
	assert_int_equal(read_exact(doc, strlen(doc), &l, &st), CX_OK);
	snprintf(doc, sizeof(doc), "{\"%sk\":1}", k);
	refused_s(doc, "string too long");
	snprintf(doc, sizeof(doc), "{\"%.*s\\u00e9\":1}", JSON_READ_KEY_MAX - 2, k); /* escapes count decoded */
	assert_int_equal(read_exact(doc, strlen(doc), &l, &st), CX_OK);
	snprintf(doc, sizeof(doc), "{\"%.*s\\u0100\":1}", JSON_READ_KEY_MAX - 2, k); /* 2 bytes: one too many */
	refused_s(doc, "string too long");
	free(k);

	/* A path: up to JSON_READ_PATH_MAX - 1 bytes ("a.b": the dot counts). */
	size_t first = 60, second = JSON_READ_PATH_MAX - 1 - first - 1;
	char *a = repeat('a', first), *b = repeat('b', second + 1);
	snprintf(doc, sizeof(doc), "{\"%s\":{\"%.*s\":1}}", a, (int)second, b);
	assert_int_equal(read_exact(doc, strlen(doc), &l, &st), CX_OK);
	assert_int_equal(strlen(l.text), JSON_READ_PATH_MAX - 1 + strlen(" N 1\n"));
	snprintf(doc, sizeof(doc), "{\"%s\":{\"%s\":1}}", a, b);
	refused_s(doc, "key path too long");
	/* An array starts the path again: its members are "[]" however deep the array is. */
	snprintf(doc, sizeof(doc), "{\"%s\":[{\"%s\":1}]}", a, b);
	assert_int_equal(read_exact(doc, strlen(doc), &l, &st), CX_OK);
	free(a);
	free(b);

	/* A string value: up to JSON_READ_STR_MAX - 1 bytes decoded. */
	char *s = repeat('s', JSON_READ_STR_MAX);
	snprintf(doc, sizeof(doc), "{\"v\":\"%.*s\"}", JSON_READ_STR_MAX - 1, s);
	assert_int_equal(read_exact(doc, strlen(doc), &l, &st), CX_OK);
	snprintf(doc, sizeof(doc), "{\"v\":\"%s\"}", s);
	refused_s(doc, "string too long");
	snprintf(doc, sizeof(doc), "{\"v\":\"%.*s\\uffff\"}", JSON_READ_STR_MAX - 3, s); /* 3 bytes: one too many */
	refused_s(doc, "string too long");
	free(s);

	/* A number: up to JSON_READ_NUM_MAX - 1 characters, checked after its grammar. */
	char *n = repeat('9', JSON_READ_NUM_MAX);
	snprintf(doc, sizeof(doc), "{\"n\":%.*s}", JSON_READ_NUM_MAX - 1, n);
	assert_int_equal(read_exact(doc, strlen(doc), &l, &st), CX_OK);
	snprintf(doc, sizeof(doc), "{\"n\":%s}", n);
	refused_s(doc, "number too long");
	snprintf(doc, sizeof(doc), "{\"n\":-0.%.*s}", JSON_READ_NUM_MAX - 3, n);
	refused_s(doc, "number too long");
	snprintf(doc, sizeof(doc), "{\"n\":%se}", n);
	refused_s(doc, "bad number");
	free(n);
}

/* ---- numbers and hex strings ---- */

static void test_numbers_in_and_out_of_range(void **state)
{
	uint64_t v;
	(void)state;

	assert_true(json_read_uint("0", 0, &v) && v == 0);
	assert_true(json_read_uint("255", 255, &v) && v == 255);
	assert_true(json_read_uint("1", 1, &v) && v == 1);
	assert_true(json_read_uint("4294967295", UINT32_MAX, &v) && v == UINT32_MAX);
	assert_true(json_read_uint("18446744073709551615", UINT64_MAX, &v) && v == UINT64_MAX);
	assert_true(json_read_uint("007", 7, &v) && v == 7); /* json_read never hands over "007" */
	static const struct {
		const char *s;
		uint64_t max;
	} out[] = {
		{"256", 255}, {"2", 1}, {"10", 1}, {"4294967296", UINT32_MAX}, {"18446744073709551616", UINT64_MAX},
		{"99999999999999999999999", UINT64_MAX}, {"-1", 10}, {"-0", 10}, {"1.0", 10}, {"1e1", 100},
		{"", 10}, {" 1", 10}, {"1 ", 10}, {"0x1", 10},
	};
	for (unsigned i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		v = 12345;
		if (json_read_uint(out[i].s, out[i].max, &v))
			fail_msg("'%s' taken as at most %llu", out[i].s, (unsigned long long)out[i].max);
		assert_int_equal(v, 12345); /* untouched */
	}

	assert_true(json_read_hex("0002c90300c0ffe0", 16, &v) && v == 0x0002c90300c0ffe0ull);
	assert_true(json_read_hex("FFFFffffFFFFffff", 16, &v) && v == UINT64_MAX);
	assert_true(json_read_hex("0", 4, &v) && v == 0);
	assert_true(json_read_hex("15b3", 4, &v) && v == 0x15b3);
	static const struct {
		const char *s;
		unsigned digits;
	} bad[] = {{"10002c90300c0ffe0", 16}, {"15b30", 4}, {"", 4}, {"0x15", 4}, {"15g3", 4}, {"-1", 4}, {" 1", 4},
		   {"12345678901234567", 17}};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		if (json_read_hex(bad[i].s, bad[i].digits, &v))
			fail_msg("'%s' taken as %u hex digits", bad[i].s, bad[i].digits);
		assert_int_equal(v, 12345);
	}
}

/* ---- repeated keys, a callback that stops, the name in messages ---- */

static const char GOOD[] =
	"{\"format\":\"cxflash-backup-1\",\"date\":\"2026-11-24T10:46:00Z\",\"bdf\":\"" BDF "\","
	"\"family\":\"ConnectX-3\",\"chip\":\"ConnectX-3 A1\",\"recovery\":false,\"flash_size\":1048576,"
	"\"flash_sha256\":\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}";

static int identity_with(const char *extra, struct backup_identity *id, struct cx_status *st)
{
	char doc[1024];

	/* extra goes before the first key, so GOOD's own fields come after it */
	snprintf(doc, sizeof(doc), "{%s,%s", extra, GOOD + 1);
	cx_status_clear(st);
	return backup_parse_identity(doc, strlen(doc), id, st);
}

static void test_duplicate_keys(void **state)
{
	struct backup_identity id;
	struct cx_status st = {0};
	(void)state;

	/* The reader hands over every occurrence, in order, and refuses none. */
	reads_as("{\"a\":1,\"a\":\"x\",\"a\":null}", "a N 1\na S x\na Z null\n");
	/* identity.json: a later value overwrites an earlier one; null leaves what is there. */
	assert_int_equal(identity_with("\"chip\":\"first\"", &id, &st), CX_OK);
	assert_string_equal(id.chip, "ConnectX-3 A1");
	char doc[1024];
	snprintf(doc, sizeof(doc), "%.*s,\"chip\":\"last\",\"chip\":null}", (int)strlen(GOOD) - 1, GOOD);
	assert_int_equal(backup_parse_identity(doc, strlen(doc), &id, &st), CX_OK);
	assert_string_equal(id.chip, "last");
	snprintf(doc, sizeof(doc), "%.*s,\"flash_size\":4096}", (int)strlen(GOOD) - 1, GOOD);
	assert_int_equal(backup_parse_identity(doc, strlen(doc), &id, &st), CX_OK);
	assert_int_equal(id.flash_size, 4096);
	/* Each occurrence is checked: a bad one is refused even if a good one follows. */
	assert_int_equal(identity_with("\"flash_size\":4294967296", &id, &st), CX_EIMAGE);
	assert_string_equal(st.msg, "identity.json: 'flash_size' is not a whole number in range");
	assert_int_equal(identity_with("\"revision\":256", &id, &st), CX_EIMAGE);
	assert_string_equal(st.msg, "identity.json: 'revision' is not a whole number in range");
	assert_int_equal(identity_with("\"revision\":255", &id, &st), CX_OK);
	assert_int_equal(id.revision, 255);
	assert_int_equal(identity_with("\"guid_entries\":33", &id, &st), CX_EIMAGE);
	assert_int_equal(identity_with("\"pci_device\":\"11003\"", &id, &st), CX_EIMAGE);
	assert_string_equal(st.msg, "identity.json: 'pci_device' is not a 16-bit hex string");
}

static void test_callback_stops(void **state)
{
	struct log l = {.stop_at = 2};
	struct cx_status st = {0};
	const char *doc = "{\"a\":1,\"b\":2,\"c\":3,\"d\":}";
	(void)state;

	/* Its code and message come back, and nothing after it is read (not even the error). */
	assert_int_equal(read_exact(doc, strlen(doc), &l, &st), CX_EVALUE);
	assert_string_equal(st.msg, "stopped at b");
	assert_int_equal(l.calls, 2);
	/* Scalars before a syntax error were handed over. */
	l.stop_at = 0;
	assert_int_equal(read_exact(doc, strlen(doc), &l, &st), CX_EIMAGE);
	assert_int_equal(l.calls, 3);
	assert_string_equal(st.msg, "test.json: unexpected character");
}

/* ---- a real identity.json, made by backup_card() ---- */

/* Back up a simulated card (image: mkfs2 options, NULL for a blank flash) and return its identity.json. */
static char *real_identity(enum cxsim_chip chip, const char *part, const char *image, size_t *len)
{
	struct cxsim_card *card = card_new(&(struct card_spec){.chip = chip, .part = part, .image = image});
	struct device d;
	struct backup_result r;
	struct cx_status st = {0};
	char tmp[64], path[2 * BACKUP_PATH_MAX];
	uint8_t *buf;

	card_open_listed(&d, card);
	scratch_dir(tmp, sizeof(tmp), "json-read");
	if (backup_card(&d, tmp, &r, &st))
		fail_msg("%s", st.msg);
	snprintf(path, sizeof(path), "%s/%s", r.path, BACKUP_IDENTITY);
	if (file_read(path, BACKUP_META_MAX, &buf, len, &st))
		fail_msg("%s", st.msg);
	rm_rf(tmp);
	device_close(&d);
	cxsim_free(card);
	return (char *)buf;
}

/* A callback that checks what it is given and keeps nothing. */
static int sane(void *ctx, const char *path, enum json_kind k, const char *v, struct cx_status *st)
{
	(void)ctx;
	(void)st;
	assert_true(strlen(path) < JSON_READ_PATH_MAX);
	assert_true(strlen(v) < JSON_READ_STR_MAX);
	assert_true(k == JSON_STRING || k == JSON_NUMBER || k == JSON_BOOL || k == JSON_NULL);
	if (k == JSON_NUMBER)
		assert_true(strlen(v) < JSON_READ_NUM_MAX && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')));
	return CX_OK;
}

/* Both readers on len bytes from a heap copy of exactly that size; returns backup_parse_identity's code. */
static int read_both(const char *text, size_t len, int *json_rc)
{
	struct backup_identity id;
	struct cx_status st = {0};
	char *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, text, len);
	*json_rc = json_read(copy, len, BACKUP_IDENTITY, sane, NULL, &st);
	assert_true(*json_rc == CX_OK || (*json_rc == CX_EIMAGE && !strncmp(st.msg, "identity.json: ", 15)));
	cx_status_clear(&st);
	int rc = backup_parse_identity(copy, len, &id, &st);
	free(copy);
	if (rc == CX_OK) {
		assert_int_equal(*json_rc, CX_OK);
		assert_int_equal(strlen(id.flash_sha256), SHA256_HEX_LEN);
		assert_true(id.flash_size > 0 && (!id.have_image || id.image_start < id.flash_size));
		assert_true(strlen(id.psid) <= 16 && strlen(id.vsd) <= 208);
	} else {
		assert_int_equal(rc, CX_EIMAGE);
		assert_int_equal(strncmp(st.msg, "identity.json: ", 15), 0);
	}
	return rc;
}

static void every_truncation(const char *text, size_t len)
{
	int jrc;
	const char *last = text + len;

	while (last > text && last[-1] != '}')
		last--;
	assert_true(last > text); /* ends with the object's '}' and then only whitespace */
	for (size_t n = 0; n <= len; n++) {
		int rc = read_both(text, n, &jrc);
		if (n < (size_t)(last - text) && (rc != CX_EIMAGE || jrc != CX_EIMAGE))
			fail_msg("the first %zu of %zu bytes were accepted", n, len);
		if (n >= (size_t)(last - text) && (rc != CX_OK || jrc != CX_OK))
			fail_msg("the first %zu of %zu bytes (all of the object) were refused", n, len);
	}
}

static uint32_t rng_state = 0x2545f491;

static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

/* Random damage: bytes replaced (half of them by JSON's own characters), removed and inserted. */
static void mutations(const char *text, size_t len, int rounds)
{
	static const char special[] = "{}[]\",:\\u0 9-.eE+ntf\n\x01\x7f\x80\xff";
	char *b = malloc(len + 16);
	int accepted = 0, jrc;

	assert_non_null(b);
	for (int round = 0; round < rounds; round++) {
		size_t n = len;
		memcpy(b, text, len);
		for (int m = 0; m < 1 + round % 5; m++) {
			uint32_t x = rng(), at = x % (uint32_t)n;
			char c = x & 0x100 ? special[(x >> 9) % (sizeof(special) - 1)] : (char)(x >> 9);
			if ((x >> 20) % 8 == 0 && n > 1) {
				memmove(b + at, b + at + 1, n - at - 1);
				n--;
			} else if ((x >> 20) % 8 == 1 && n < len + 16) {
				memmove(b + at + 1, b + at, n - at);
				b[at] = c;
				n++;
			} else {
				b[at] = c;
			}
		}
		accepted += read_both(b, n, &jrc) == CX_OK;
	}
	free(b);
	/* Some damage lands where it changes nothing a reader checks (a digit of the date, say). */
	assert_true(accepted > 0 && accepted < rounds);
}

static void test_real_identity(void **state)
{
	static const struct {
		enum cxsim_chip chip;
		const char *part, *image;
	} cards[] = {
		{CXSIM_CX3, "W25Q80", "--chip cx3 --psid CX_0000000042 --guid 0002c90300c0ffe0 --mac 0002c9c0ffe0 "
				      "--vsd 'rescued \"card\" \\ \x01 1' --fw 2.42.5100"},
		{CXSIM_CX2, "SST25VF016B", "--chip cx2 --old-guids"},
		{CXSIM_CX3PRO, "W25Q80", NULL}, /* a blank flash: recovery mode, no image fields */
	};
	(void)state;

	for (unsigned i = 0; i < sizeof(cards) / sizeof(cards[0]); i++) {
		size_t len;
		int jrc;
		char *text = real_identity(cards[i].chip, cards[i].part, cards[i].image, &len);
		assert_int_equal(read_both(text, len, &jrc), CX_OK);
		struct backup_identity id;
		struct cx_status st = {0};
		assert_int_equal(backup_parse_identity(text, len, &id, &st), CX_OK);
		assert_int_equal(id.have_image, cards[i].image != NULL);
		if (i == 0)
			assert_string_equal(id.vsd, "rescued \"card\" \\ \x01 1");
		every_truncation(text, len);
		mutations(text, len, 20000);
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_documents),
		cmocka_unit_test(test_refused_documents),
		cmocka_unit_test(test_every_escape),
		cmocka_unit_test(test_unicode_escapes),
		cmocka_unit_test(test_nesting_limit),
		cmocka_unit_test(test_size_limits),
		cmocka_unit_test(test_numbers_in_and_out_of_range),
		cmocka_unit_test(test_duplicate_keys),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_real_identity),
	};
	return cmocka_run_group_tests_name("json_read", tests, NULL, NULL);
}
