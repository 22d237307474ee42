/* SPDX-License-Identifier: GPL-2.0-or-later */
/* boards.c — reading and checking library/boards.txt, and looking rows up. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "library/boards.h"
#include "util/fileio.h"

static const char *const field_names[BOARDS_NFIELDS] = {
	"oem", "oem_parts", "oem_psid", "family", "subsys", "stock_part",
	"stock_psid", "port", "speed", "basis", "source", "notes", "pins",
};
enum { F_OEM, F_PARTS, F_PSID, F_FAMILY, F_SUBSYS, F_STOCK_PART, F_STOCK_PSID, F_PORT, F_SPEED,
       F_BASIS, F_SOURCE, F_NOTES, F_PINS };

static const char *const port_names[] = {[BOARD_PORT_NONE] = "-", [BOARD_PORT_EN] = "en",
					  [BOARD_PORT_VPI] = "vpi", [BOARD_PORT_IB] = "ib"};
static const char *const basis_names[] = {[BOARD_STATED] = "stated", [BOARD_INFERRED] = "inferred"};

#define NAMES(a) (sizeof(a) / sizeof((a)[0]))

/* "FILE:LINE: what", as compilers write it. Values quoted in messages are cut at
 * 40 characters so that the line stays one line. */
static int bad(struct cx_status *st, const char *name, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int bad(struct cx_status *st, const char *name, unsigned line, const char *fmt, ...)
{
	char what[CX_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return cx_fail(st, CX_EIMAGE, "%s:%u: %s", name, line, what);
}

static bool is_none(const char *s)
{
	return !strcmp(s, "-");
}

static int lookup(const char *s, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

/* A PSID: 1..16 of A-Z 0-9 _ (the characters of every PSID in field-notes.md §3;
 * the length is the IMAGE_INFO field, fs2-format.md §3.2 tag 4). */
static int check_psid(const char *s, const char *what, const char *name, unsigned line,
		      struct cx_status *st)
{
	size_t n = strlen(s);

	if (n > BOARD_PSID_MAX)
		return bad(st, name, line, "%s \"%.40s\" is %zu characters; at most %d", what, s, n,
			   BOARD_PSID_MAX);
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return bad(st, name, line, "%s \"%s\" has '%c': only A-Z, 0-9 and _", what, s, s[i]);
	return CX_OK;
}

static bool part_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
	       c == '_' || c == '.' || c == '/';
}

/* One part number, or with list set a comma-separated list of them. */
static int check_parts(const char *s, bool list, const char *what, const char *name, unsigned line,
		       struct cx_status *st)
{
	const char *p = s;

	for (;;) {
		size_t n = 0;
		while (p[n] && !(list && p[n] == ','))
			n++;
		if (!n)
			return bad(st, name, line, "%s \"%.40s\" has an empty entry", what, s);
		for (size_t i = 0; i < n; i++)
			if (!part_char(p[i]))
				return bad(st, name, line, "%s \"%.40s\" has '%c': a part number is A-Z a-z 0-9 - _ . /%s",
					   what, s, p[i], list ? ", parts separated by commas" : "");
		if (!p[n])
			return CX_OK;
		p += n + 1;
	}
}

static int hex4(const char *s, uint16_t *v)
{
	unsigned x = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9')
			x = x << 4 | (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			x = x << 4 | (unsigned)(c - 'a' + 10);
		else
			return -1;
	}
	*v = (uint16_t)x;
	return 0;
}

/* One or more http(s) URLs separated by spaces. */
static int check_source(const char *s, const char *name, unsigned line, struct cx_status *st)
{
	const char *p = s;

	if (is_none(s))
		return bad(st, name, line, "no source URL: every row cites where it comes from");
	while (*p) {
		size_t n = strcspn(p, " ");
		size_t scheme = !strncmp(p, "https://", 8) ? 8 : !strncmp(p, "http://", 7) ? 7 : 0;
		if (n && (!scheme || n == scheme))
			return bad(st, name, line, "source \"%.*s\" is not an http:// or https:// URL",
				   (int)(n < 40 ? n : 40), p);
		p += n;
		while (*p == ' ')
			p++;
	}
	return CX_OK;
}

/* Split a row (printable ASCII, NUL-terminated) into its fields, in place. */
static int split_fields(char *s, char **f, const char *name, unsigned line, struct cx_status *st)
{
	int nf = 1;

	for (const char *p = s; *p; p++)
		nf += *p == '|';
	if (nf != BOARDS_NFIELDS)
		return bad(st, name, line,
			   "%d field%s; a row has %d: oem | oem_parts | oem_psid | family | subsys | stock_part | "
			   "stock_psid | port | speed | basis | source | notes | pins",
			   nf, nf == 1 ? "" : "s", BOARDS_NFIELDS);
	for (int i = 0; i < BOARDS_NFIELDS; i++) {
		char *end = strchr(s, '|');
		char *next = end ? end + 1 : NULL;
		if (!end)
			end = s + strlen(s);
		while (end > s && end[-1] == ' ')
			end--;
		*end = '\0';
		while (*s == ' ')
			s++;
		if (!*s)
			return bad(st, name, line, "%s (field %d) is empty; write - for none", field_names[i], i + 1);
		f[i] = s;
		s = next;
	}
	return CX_OK;
}

static int parse_row(char *s, struct board *b, const char *name, unsigned line, struct cx_status *st)
{
	char *f[BOARDS_NFIELDS];
	int k;

	if (split_fields(s, f, name, line, st))
		return st->code;
	memset(b, 0, sizeof(*b));
	b->line = line;

	if (is_none(f[F_OEM]))
		return bad(st, name, line, "no oem: write unknown when no source names the vendor");
	b->oem = f[F_OEM];

	if (!is_none(f[F_PARTS])) {
		if (check_parts(f[F_PARTS], true, "oem_parts", name, line, st))
			return st->code;
		b->oem_parts = f[F_PARTS];
	}

	if (is_none(f[F_PSID]))
		return bad(st, name, line, "no PSID: oem_psid is required, it is the row's key");
	if (check_psid(f[F_PSID], "PSID", name, line, st))
		return st->code;
	b->oem_psid = f[F_PSID];

	const struct chip_desc *chip = chip_by_slug(f[F_FAMILY]);
	if (!chip)
		return bad(st, name, line, "unknown family \"%.40s\" (cx2, cx3, cx3pro, cx4, cx4lx, cx5, cx6, "
			   "cx6dx, cx6lx)", f[F_FAMILY]);
	b->family = chip->family;

	if (!is_none(f[F_SUBSYS])) {
		const char *v = f[F_SUBSYS];
		if (strlen(v) != 9 || v[4] != ':' || hex4(v, &b->subsys_vendor) || hex4(v + 5, &b->subsys_device))
			return bad(st, name, line, "subsys \"%.40s\" is not vvvv:dddd in lower-case hex, e.g. 103c:18d6",
				   v);
		b->has_subsys = true;
	}

	if (!is_none(f[F_STOCK_PART])) {
		if (check_parts(f[F_STOCK_PART], false, "stock_part", name, line, st))
			return st->code;
		b->stock_part = f[F_STOCK_PART];
	}
	if (!is_none(f[F_STOCK_PSID])) {
		if (!b->stock_part)
			return bad(st, name, line, "stock_psid \"%.40s\" without a stock_part", f[F_STOCK_PSID]);
		if (check_psid(f[F_STOCK_PSID], "stock PSID", name, line, st))
			return st->code;
		b->stock_psid = f[F_STOCK_PSID];
	}

	if ((k = lookup(f[F_PORT], port_names, NAMES(port_names))) < 0)
		return bad(st, name, line, "unknown port \"%.40s\" (en, vpi, ib, -)", f[F_PORT]);
	b->port = (enum board_port)k;

	if (!is_none(f[F_SPEED]))
		b->speed = f[F_SPEED];

	if ((k = lookup(f[F_BASIS], basis_names, NAMES(basis_names))) < 0)
		return bad(st, name, line, "unknown basis \"%.40s\" (stated, inferred)", f[F_BASIS]);
	b->basis = (enum board_basis)k;

	if (check_source(f[F_SOURCE], name, line, st))
		return st->code;
	b->source = f[F_SOURCE];

	if (!is_none(f[F_NOTES]))
		b->notes = f[F_NOTES];
	else if (b->basis == BOARD_INFERRED)
		return bad(st, name, line, "basis inferred without notes: say what it is inferred from");

	if (!is_none(f[F_PINS]))
		b->pins = f[F_PINS];
	return CX_OK;
}

/* n decimal digits at s, at most 65535 (a field of IMAGE_INFO tag 1). */
static int dec16(const char *s, size_t n, uint16_t *v)
{
	unsigned x = 0;

	if (!n || n > 5)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (unsigned)(s[i] - '0');
	}
	if (x > 0xFFFF)
		return -1;
	*v = (uint16_t)x;
	return 0;
}

/* One pin, the n bytes at s: X.Y.Z=<64 lower-case hex digits>. */
static int parse_pin(const char *s, size_t n, struct board_pin *pin, const char *name, unsigned line,
		     struct cx_status *st)
{
	const char *eq = memchr(s, '=', n);
	const char *p = s;
	int cut = (int)(n < 40 ? n : 40);

	if (!eq)
		return bad(st, name, line, "pin \"%.*s\" is not X.Y.Z=SHA256, e.g. 2.42.5000=<64 hex digits>", cut,
			   s);
	for (int i = 0; i < 3; i++) {
		const char *end = i < 2 ? memchr(p, '.', (size_t)(eq - p)) : eq;
		if (!end || dec16(p, (size_t)(end - p), &pin->ver[i]))
			return bad(st, name, line,
				   "pin version \"%.*s\" is not X.Y.Z: three decimal numbers, each at most 65535",
				   (int)(eq - s < 40 ? eq - s : 40), s);
		p = end + 1;
	}
	size_t hl = n - (size_t)(eq + 1 - s);
	if (hl != SHA256_HEX_LEN)
		return bad(st, name, line, "pin for %u.%u.%u: the SHA-256 is %zu characters; it is 64 lower-case hex digits",
			   pin->ver[0], pin->ver[1], pin->ver[2], hl);
	for (size_t i = 0; i < hl; i++) {
		char c = eq[1 + i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return bad(st, name, line, "pin for %u.%u.%u: the SHA-256 has '%c'; it is 64 lower-case hex digits",
				   pin->ver[0], pin->ver[1], pin->ver[2], c);
	}
	memcpy(pin->sha256, eq + 1, SHA256_HEX_LEN);
	pin->sha256[SHA256_HEX_LEN] = '\0';
	return CX_OK;
}

/* The pins of the last row read into the table: one per version. */
static int add_pins(struct board_table *t, size_t *cap, const char *pins, const char *name, unsigned line,
		    struct cx_status *st)
{
	size_t first = t->npins;

	for (const char *p = pins; p; ) {
		size_t n = strcspn(p, " ");
		struct board_pin pin = {.row = t->n - 1};

		if (!n)
			return bad(st, name, line, "pins \"%.40s\" has an empty entry: separate pins by single spaces",
				   pins);
		if (parse_pin(p, n, &pin, name, line, st))
			return st->code;
		for (size_t i = first; i < t->npins; i++)
			if (!memcmp(t->pins[i].ver, pin.ver, sizeof(pin.ver)))
				return bad(st, name, line, "pin for %u.%u.%u is given twice: one hash per version",
					   pin.ver[0], pin.ver[1], pin.ver[2]);
		if (t->npins == *cap) {
			size_t ncap = *cap ? *cap * 2 : 8;
			struct board_pin *r = realloc(t->pins, ncap * sizeof(*r));
			if (!r)
				return cx_fail(st, CX_ENOMEM, "out of memory reading %s", name);
			t->pins = r;
			*cap = ncap;
		}
		t->pins[t->npins++] = pin;
		p = p[n] ? p + n + 1 : NULL;
	}
	return CX_OK;
}

/* Bytes a row may not hold: control characters (tabs included) and non-ASCII. */
static int check_row_bytes(const char *s, size_t n, const char *name, unsigned line, struct cx_status *st)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\t')
			return bad(st, name, line, "tab at column %zu: separate fields with \" | \"", i + 1);
		if (c < 0x20 || c >= 0x7f)
			return bad(st, name, line, "byte 0x%02x at column %zu: a row is printable ASCII", c, i + 1);
	}
	return CX_OK;
}

static int add_row(struct board_table *t, size_t *cap, const struct board *b)
{
	if (t->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		struct board *r = realloc(t->rows, ncap * sizeof(*r));
		if (!r)
			return -1;
		t->rows = r;
		*cap = ncap;
	}
	t->rows[t->n++] = *b;
	return 0;
}

static int parse(const char *name, struct board_table *t, size_t len, struct cx_status *st)
{
	char *buf = t->text;
	size_t pos = 0, cap = 0, pcap = 0;
	unsigned line = 0;

	while (pos < len) {
		char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		struct board b;

		pos += n + (nl != NULL);
		line++;
		if (n && s[n - 1] == '\r')
			n--;
		s[n] = '\0'; /* on the '\r', the '\n', or the terminator past the end */
		if (strlen(s) != n)
			return bad(st, name, line, "NUL byte at column %zu", strlen(s) + 1);
		if (n > BOARDS_MAX_LINE)
			return bad(st, name, line, "line is %zu bytes; at most %d", n, BOARDS_MAX_LINE);
		size_t lead = strspn(s, " \t");
		if (s[lead] == '#' || s[lead] == '\0')
			continue;
		if (check_row_bytes(s, n, name, line, st) || parse_row(s, &b, name, line, st))
			return st->code;
		b.file = t->name;
		for (size_t i = 0; i < t->n; i++)
			if (!strcmp(t->rows[i].oem_psid, b.oem_psid))
				return bad(st, name, line, "PSID \"%s\" is already on line %u: a PSID maps to one row",
					   b.oem_psid, t->rows[i].line);
		if (t->n >= BOARDS_MAX_ROWS)
			return bad(st, name, line, "more than %d rows", BOARDS_MAX_ROWS);
		if (add_row(t, &cap, &b))
			return cx_fail(st, CX_ENOMEM, "out of memory reading %s", name);
		if (b.pins && add_pins(t, &pcap, b.pins, name, line, st))
			return st->code;
	}
	return CX_OK;
}

int boards_parse(const char *name, const char *text, size_t len, struct board_table *t,
		 struct cx_status *st)
{
	memset(t, 0, sizeof(*t));
	if (len > BOARDS_MAX_FILE)
		return cx_fail(st, CX_EIMAGE, "%s: %zu bytes; a board table is at most %u", name, len,
			       BOARDS_MAX_FILE);
	t->text = malloc(len + 1);
	t->name = strdup(name);
	if (!t->text || !t->name) {
		boards_free(t);
		return cx_fail(st, CX_ENOMEM, "out of memory reading %s", name);
	}
	memcpy(t->text, text, len);
	t->text[len] = '\0';
	if (parse(name, t, len, st)) {
		int code = st->code;
		boards_free(t);
		return code;
	}
	return CX_OK;
}

int boards_load(const char *path, struct board_table *t, struct cx_status *st)
{
	struct stat sb;
	uint8_t *buf;
	size_t len;

	memset(t, 0, sizeof(*t));
	if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size > BOARDS_MAX_FILE)
		return cx_fail(st, CX_EIMAGE, "%s: %lld bytes; a board table is at most %u", path,
			       (long long)sb.st_size, BOARDS_MAX_FILE);
	if (file_read(path, BOARDS_MAX_FILE, &buf, &len, st))
		return st->code;
	int rc = boards_parse(path, (const char *)buf, len, t, st);
	free(buf);
	return rc;
}

void boards_free(struct board_table *t)
{
	free(t->rows);
	free(t->pins);
	free(t->text);
	free(t->name);
	memset(t, 0, sizeof(*t));
}

const struct board *boards_by_psid(const struct board_table *t, const char *psid)
{
	for (; t; t = t->next)
		for (size_t i = 0; psid && i < t->n; i++)
			if (!strcmp(t->rows[i].oem_psid, psid))
				return &t->rows[i];
	return NULL;
}

/* Whether b is one of t's own rows (not of a chained table). */
static bool row_of(const struct board_table *t, const struct board *b)
{
	/* compared as integers: b may be any pointer the caller holds */
	uintptr_t a = (uintptr_t)b, first = (uintptr_t)t->rows;
	return t->n && a >= first && a < first + t->n * sizeof(*t->rows) && !((a - first) % sizeof(*t->rows));
}

const struct board *boards_by_subsys(const struct board_table *t, uint16_t vendor, uint16_t device,
				     const struct board *after)
{
	if (after) {
		while (t && !row_of(t, after))
			t = t->next;
		if (!t)
			return NULL;
	}
	for (size_t i = after ? (size_t)(after - t->rows) + 1 : 0; t; t = t->next, i = 0)
		for (; i < t->n; i++)
			if (t->rows[i].has_subsys && t->rows[i].subsys_vendor == vendor &&
			    t->rows[i].subsys_device == device)
				return &t->rows[i];
	return NULL;
}

int boards_pin(const struct board_table *t, const char *psid, const uint16_t ver[3], const char **sha_hex_out,
	       unsigned *line_out)
{
	const struct board *b = boards_by_psid(t, psid);

	while (b && t && !row_of(t, b))
		t = t->next;
	for (size_t i = 0; b && t && ver && i < t->npins; i++) {
		const struct board_pin *p = &t->pins[i];
		if (&t->rows[p->row] == b && !memcmp(p->ver, ver, sizeof(p->ver))) {
			if (sha_hex_out)
				*sha_hex_out = p->sha256;
			if (line_out)
				*line_out = b->line;
			return 1;
		}
	}
	return 0;
}

bool board_has_part(const struct board *b, const char *part)
{
	size_t n = part ? strlen(part) : 0;

	for (const char *p = b->oem_parts; n && p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, part, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

const char *board_family_name(enum cx_family f)
{
	const struct chip_desc *c = chip_by_family(f);
	return c ? c->slug : "?";
}

const char *board_port_name(enum board_port p)
{
	return (unsigned)p < NAMES(port_names) ? port_names[p] : "?";
}

const char *board_basis_name(enum board_basis b)
{
	return (unsigned)b < NAMES(basis_names) ? basis_names[b] : "?";
}
