/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ini_diff.c — reading a board .ini and comparing two of them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "library/ini_diff.h"

/* Keys that name or identify a board and say nothing about its wiring, so an
 * OEM board and its stock twin may differ in them. Everything else that
 * differs is risky, so this list stays short: a key that only looks like a
 * name (hca_header_subsystem_id is the PCI identity the host sees) is not here. */
static const struct {
	const char *section, *key;
} ini_expected_keys[] = {
	{"PS_INFO", "Name"},        /* the board's part name */
	{"PS_INFO", "Description"}, /* free text for people */
	{"PS_INFO", "PRS_name"},    /* the source file mlxburn's iniprep read */
	{"ADAPTER", "PSID"},        /* the parameter set's name; what cross-flashing changes */
};

#define NEXPECTED (sizeof(ini_expected_keys) / sizeof(ini_expected_keys[0]))

/* ---- ASCII case folding: names are ASCII, and the locale must not matter ---- */

static unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

static bool same_name(const char *a, const char *b)
{
	while (*a && fold((unsigned char)*a) == fold((unsigned char)*b))
		a++, b++;
	return fold((unsigned char)*a) == fold((unsigned char)*b);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* ---- an index of (section, key) over a kv array, open addressing ---- */

struct index {
	uint32_t *slot; /* kv index + 1; 0 is empty */
	size_t mask;
};

static uint32_t hash_name(uint32_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ fold((unsigned char)*s)) * 16777619u; /* FNV-1a */
	return (h ^ 0xffu) * 16777619u; /* an end mark: "ab"+"c" and "a"+"bc" hash apart */
}

static size_t hash_kv(const char *section, const char *key)
{
	return hash_name(hash_name(2166136261u, section), key);
}

/* Room for n entries at most half full, so probing stays short. */
static int index_init(struct index *ix, size_t n)
{
	size_t size = 16;

	while (size < 2 * n) {
		if (size > SIZE_MAX / 4 / sizeof(*ix->slot))
			return -1;
		size *= 2;
	}
	ix->slot = calloc(size, sizeof(*ix->slot));
	ix->mask = size - 1;
	return ix->slot ? 0 : -1;
}

/* The slot of section/key: the one holding it, or the empty one it belongs in.
 * Only same_name() decides a match; the hash only saves time. */
static uint32_t *index_find(const struct index *ix, const struct ini_kv *kv, const char *section,
			    const char *key)
{
	size_t i = hash_kv(section, key) & ix->mask;

	for (; ix->slot[i]; i = (i + 1) & ix->mask) {
		const struct ini_kv *e = &kv[ix->slot[i] - 1];
		if (same_name(e->key, key) && same_name(e->section, section))
			break;
	}
	return &ix->slot[i];
}

/* ---- parsing ---- */

static char *trim(char *s, char **end)
{
	while (s < *end && is_blank(*s))
		s++;
	while (*end > s && is_blank((*end)[-1]))
		(*end)--;
	**end = '\0';
	return s;
}

static unsigned line_of(const char *text, size_t off)
{
	unsigned line = 1;

	for (size_t i = 0; i < off; i++)
		line += text[i] == '\n';
	return line;
}

/* Add or update section/key. The key keeps the place of its first line, which
 * is where a reader of the file looks for it; the later line's value wins. */
static int add_key(struct ini_doc *d, struct index *ix, size_t *cap, const char *section, const char *key,
		   const char *value, unsigned line, struct cx_status *st)
{
	uint32_t *slot = index_find(ix, d->kv, section, key);

	if (*slot) {
		d->kv[*slot - 1].value = value;
		d->kv[*slot - 1].line = line;
		return CX_OK;
	}
	if (d->n == INI_DOC_MAX_KEYS)
		return cx_fail(st, CX_EIMAGE, "board .ini: more than %d keys (line %u); a real one has ~300",
			       INI_DOC_MAX_KEYS, line);
	if (d->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;
		struct ini_kv *kv = realloc(d->kv, ncap * sizeof(*kv));
		if (!kv)
			return cx_fail(st, CX_ENOMEM, "out of memory reading the board .ini");
		d->kv = kv;
		*cap = ncap;
	}
	d->kv[d->n] = (struct ini_kv){.section = section, .key = key, .value = value, .line = line};
	*slot = (uint32_t)++d->n;
	return CX_OK;
}

/* "[NAME]", optionally followed by a comment. Returns the name, or NULL if the
 * line is not a well-formed section header. */
static char *section_name(char *s, char *end)
{
	char *close = memchr(s, ']', (size_t)(end - s));

	if (!close)
		return NULL;
	char *rest = close + 1;
	while (rest < end && is_blank(*rest))
		rest++;
	if (rest < end && *rest != ';' && *rest != '#')
		return NULL;
	char *name = trim(s + 1, &close);
	return *name ? name : NULL;
}

static size_t count_lines(const char *p, const char *end, size_t max)
{
	size_t n = 1;

	while (n < max && (p = memchr(p, '\n', (size_t)(end - p))) != NULL)
		p++, n++;
	return n;
}

static int parse_lines(struct ini_doc *d, size_t len, struct cx_status *st)
{
	struct index ix;
	size_t cap = 0;
	const char *section = "";
	char *p = d->text, *text_end = d->text + len;
	unsigned line = 0;
	int rc = CX_OK;

	/* No more keys than lines: a small text gets a small index. */
	if (index_init(&ix, count_lines(p, text_end, INI_DOC_MAX_KEYS)))
		return cx_fail(st, CX_ENOMEM, "out of memory reading the board .ini");
	/* A byte order mark, as Windows editors write one at the start of a file. */
	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	while (p < text_end && rc == CX_OK) {
		char *nl = memchr(p, '\n', (size_t)(text_end - p));
		char *end = nl ? nl : text_end;
		char *s = trim(p, &end), *eq;

		line++;
		p = nl ? nl + 1 : text_end;
		if (!*s || *s == ';' || *s == '#')
			continue;
		if (*s == '[') {
			char *name = section_name(s, end);
			if (name) {
				section = name;
				continue;
			}
		} else if ((eq = strchr(s, '=')) != NULL) {
			char *key_end = eq, *value_end = end;
			char *key = trim(s, &key_end);
			char *value = trim(eq + 1, &value_end);
			if (*key) {
				rc = add_key(d, &ix, &cap, section, key, value, line, st);
				continue;
			}
		}
		d->unparsed++;
		if (!d->first_unparsed)
			d->first_unparsed = line;
	}
	free(ix.slot);
	return rc;
}

int ini_doc_parse(const char *text, size_t len, struct ini_doc *d, struct cx_status *st)
{
	const char *nul;

	*d = (struct ini_doc){0};
	if (len && (nul = memchr(text, '\0', len)) != NULL)
		return cx_fail(st, CX_EIMAGE, "board .ini: a NUL byte on line %u; it is not text",
			       line_of(text, (size_t)(nul - text)));
	if (len == SIZE_MAX || !(d->text = malloc(len + 1)))
		return cx_fail(st, CX_ENOMEM, "out of memory reading the board .ini");
	if (len)
		memcpy(d->text, text, len);
	d->text[len] = '\0';
	int rc = parse_lines(d, len, st);
	if (rc)
		ini_doc_free(d);
	return rc;
}

void ini_doc_free(struct ini_doc *d)
{
	if (!d)
		return;
	free(d->kv);
	free(d->text);
	*d = (struct ini_doc){0};
}

const char *ini_doc_get(const struct ini_doc *d, const char *section, const char *key)
{
	if (!d || !key)
		return NULL;
	if (!section)
		section = "";
	for (size_t i = 0; i < d->n; i++)
		if (same_name(d->kv[i].key, key) && same_name(d->kv[i].section, section))
			return d->kv[i].value;
	return NULL;
}

/* ---- values ---- */

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)fold((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* s[0..n) as a numeral: "0x" and hex digits, or decimal without a leading
 * zero. "010" is not one: strtoul(,,0) reads it as eight, and we cannot tell
 * whether mlxburn does, so it compares as text and at worst shows a difference. */
static bool numeral(const char *s, size_t n, uint64_t *v)
{
	unsigned base = 10;
	size_t i = 0;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (!n || (s[0] == '0' && n > 1)) {
		return false;
	}
	*v = 0;
	for (; i < n; i++) {
		int dg = hex_digit(s[i]);
		if (dg < 0 || (unsigned)dg >= base || *v > (UINT64_MAX - (unsigned)dg) / base)
			return false;
		*v = *v * base + (unsigned)dg;
	}
	return true;
}

static bool is_bool_word(const char *s, size_t n)
{
	static const char *const words[] = {"true", "false", "yes", "no"};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t k = 0;
		while (k < n && words[i][k] && fold((unsigned char)s[k]) == (unsigned char)words[i][k])
			k++;
		if (k == n && !words[i][k])
			return true;
	}
	return false;
}

static const char *trimmed(const char *s, size_t *n)
{
	while (is_blank(*s))
		s++;
	*n = strlen(s);
	while (*n && is_blank(s[*n - 1]))
		(*n)--;
	return s;
}

bool ini_value_equal(const char *a, const char *b)
{
	size_t na, nb;
	uint64_t va, vb;

	if (!a || !b)
		return a == b;
	a = trimmed(a, &na);
	b = trimmed(b, &nb);
	if (numeral(a, na, &va) && numeral(b, nb, &vb))
		return va == vb;
	if (na != nb)
		return false;
	if (is_bool_word(a, na) && is_bool_word(b, nb)) {
		for (size_t i = 0; i < na; i++)
			if (fold((unsigned char)a[i]) != fold((unsigned char)b[i]))
				return false;
		return true;
	}
	return !memcmp(a, b, na);
}

/* ---- classes and the comparison ---- */

enum ini_class ini_key_class(const char *section, const char *key)
{
	if (!section || !key)
		return INI_RISKY;
	for (size_t i = 0; i < NEXPECTED; i++)
		if (same_name(section, ini_expected_keys[i].section) && same_name(key, ini_expected_keys[i].key))
			return INI_EXPECTED;
	return INI_RISKY;
}

static void count(struct ini_diff *out, struct ini_pair p)
{
	out->pairs[out->n++] = p;
	if (p.cls == INI_SAME)
		out->nsame++;
	else if (p.cls == INI_EXPECTED)
		out->nexpected++;
	else
		out->nrisky++;
}

int ini_compare(const struct ini_doc *card, const struct ini_doc *image, struct ini_diff *out,
		struct cx_status *st)
{
	struct index ix = {0};
	bool *paired = NULL;

	*out = (struct ini_diff){0};
	size_t total = card->n + image->n;
	if (total < card->n || total > SIZE_MAX / sizeof(*out->pairs))
		return cx_fail(st, CX_ENOMEM, "out of memory comparing the board .ini files");
	if (!total)
		return CX_OK;
	out->pairs = malloc(total * sizeof(*out->pairs));
	paired = calloc(image->n ? image->n : 1, sizeof(*paired));
	if (!out->pairs || !paired || index_init(&ix, image->n)) {
		free(paired);
		free(ix.slot);
		ini_diff_free(out);
		return cx_fail(st, CX_ENOMEM, "out of memory comparing the board .ini files");
	}
	/* The first of any duplicates is the one that pairs: a parsed doc has none. */
	for (size_t i = 0; i < image->n; i++) {
		uint32_t *slot = index_find(&ix, image->kv, image->kv[i].section, image->kv[i].key);
		if (!*slot)
			*slot = (uint32_t)i + 1;
	}
	for (size_t i = 0; i < card->n; i++) {
		const struct ini_kv *c = &card->kv[i];
		uint32_t *slot = index_find(&ix, image->kv, c->section, c->key);
		struct ini_pair p = {INI_RISKY, c->section, c->key, c->value, NULL};
		if (*slot) {
			paired[*slot - 1] = true;
			p.image = image->kv[*slot - 1].value;
			p.cls = ini_value_equal(p.card, p.image) ? INI_SAME : ini_key_class(c->section, c->key);
		}
		count(out, p);
	}
	for (size_t i = 0; i < image->n; i++)
		if (!paired[i])
			count(out, (struct ini_pair){INI_RISKY, image->kv[i].section, image->kv[i].key, NULL,
						     image->kv[i].value});
	free(paired);
	free(ix.slot);
	return CX_OK;
}

void ini_diff_free(struct ini_diff *d)
{
	if (!d)
		return;
	free(d->pairs);
	*d = (struct ini_diff){0};
}
