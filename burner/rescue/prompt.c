/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prompt.c — numbered menus, confirmation words and sticker values, one line at a time. */
#include <ctype.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

#include "image/guids.h"
#include "rescue/prompt.h"

enum line { LINE_OK, LINE_LONG, LINE_CTRL, LINE_EOF };

static bool is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int tries(const struct prompt *p)
{
	return p->tries > 0 ? p->tries : PROMPT_TRIES;
}

static int closed(struct cx_status *st)
{
	return cx_fail(st, CX_EDECLINED, "no answer (input closed)");
}

/* One line, trimmed, into buf (size > 0). The whole line is always consumed,
 * so a line too long for buf can never turn into a second answer. A line
 * cut short by the end of input was never confirmed with Enter: it is no
 * answer, and neither is anything after it. */
static enum line read_line(struct prompt *p, char *buf, size_t size)
{
	size_t n = 0, keep = 0;
	bool long_ = false, ctrl = false, tab = false;
	int c;

	if (p->closed || !p->in) {
		p->closed = true;
		return LINE_EOF;
	}
	fflush(p->out);
	while ((c = getc(p->in)) != EOF && c != '\n') {
		if (is_blank(c) && n == 0)
			continue;
		/* A tab or CR is only trimmed at the ends: inside, the user saw something else. */
		if ((c < 0x20 && !is_blank(c)) || c == 0x7f || (tab && !is_blank(c)))
			ctrl = true;
		if (c == '\t' || c == '\r')
			tab = true;
		if (n + 1 < size) {
			buf[n++] = (char)c;
			if (!is_blank(c))
				keep = n;
		} else if (!is_blank(c)) {
			long_ = true;
		}
	}
	buf[keep] = '\0';
	if (c == EOF) {
		/* End the half-written question line, so what the caller prints next starts clean. */
		fputc('\n', p->out);
		p->closed = true;
		return LINE_EOF;
	}
	return ctrl ? LINE_CTRL : long_ ? LINE_LONG : LINE_OK;
}

/* The one line a rejected answer gets: why the line itself was unusable, if
 * it was, then what the question accepts. */
__attribute__((format(printf, 3, 4)))
static void retry(struct prompt *p, enum line r, const char *fmt, ...)
{
	va_list ap;

	if (r == LINE_LONG)
		fputs("That is too long. ", p->out);
	else if (r == LINE_CTRL)
		fputs("That holds control characters (a Backspace or arrow key?). ", p->out);
	va_start(ap, fmt);
	vfprintf(p->out, fmt, ap);
	va_end(ap);
	fputc('\n', p->out);
}

/* 1..n, or 0 for anything else (leading zeros are fine, signs are not). */
static int menu_number(const char *s, int n)
{
	int v = 0;

	if (!*s)
		return 0;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return 0;
		v = v * 10 + (*s - '0');
		if (v > n)
			return 0;
	}
	return v;
}

int prompt_menu(struct prompt *p, const char *title, const char *const items[], int n, int def,
		int *choice, struct cx_status *st)
{
	char buf[PROMPT_ANSWER_MAX + 1];
	char dflt[32] = "";
	int t, k;
	enum line r;

	if (!items || n < 1 || def < -1 || def >= n)
		return cx_fail(st, CX_EVALUE, "menu of %d items with default %d", n, def);
	if (p->closed)
		return closed(st);
	if (title)
		fprintf(p->out, "%s\n", title);
	for (int i = 0; i < n; i++)
		fprintf(p->out, "%3d. %s\n", i + 1, items[i] ? items[i] : "");
	if (def >= 0)
		snprintf(dflt, sizeof(dflt), ", or just Enter for %d", def + 1);
	for (t = 0; t < tries(p); t++) {
		if (def >= 0)
			fprintf(p->out, "Choose 1-%d [%d]: ", n, def + 1);
		else
			fprintf(p->out, "Choose 1-%d: ", n);
		r = read_line(p, buf, sizeof(buf));
		if (r == LINE_EOF)
			return closed(st);
		if (r == LINE_OK && !buf[0] && def >= 0) {
			*choice = def;
			return CX_OK;
		}
		if (r == LINE_OK && (k = menu_number(buf, n))) {
			*choice = k - 1;
			return CX_OK;
		}
		retry(p, r, "Please type a number from 1 to %d%s.", n, dflt);
	}
	return cx_fail(st, CX_EDECLINED, "no valid choice after %d tries", t);
}

int prompt_word(struct prompt *p, const char *action, const char *word, struct cx_status *st)
{
	char buf[PROMPT_ANSWER_MAX + 1];
	enum line r;

	if (!word || !*word)
		return cx_fail(st, CX_EVALUE, "no confirmation word");
	if (p->closed)
		return closed(st);
	fprintf(p->out, "Type %s to %s, anything else cancels: ", word, action);
	r = read_line(p, buf, sizeof(buf));
	if (r == LINE_EOF)
		return closed(st);
	if (r == LINE_OK && !strcmp(buf, word))
		return CX_OK;
	return cx_fail(st, CX_EDECLINED, "cancelled: nothing written");
}

int prompt_yes_no(struct prompt *p, const char *question, bool default_no, struct cx_status *st)
{
	char buf[PROMPT_ANSWER_MAX + 1];
	int t;
	enum line r;

	if (p->closed)
		return closed(st);
	for (t = 0; t < tries(p); t++) {
		fprintf(p->out, "%s %s: ", question, default_no ? "[y/N]" : "[Y/n]");
		r = read_line(p, buf, sizeof(buf));
		if (r == LINE_EOF)
			return closed(st);
		if (r == LINE_OK) {
			if (!strcasecmp(buf, "y") || !strcasecmp(buf, "yes") || (!buf[0] && !default_no))
				return CX_OK;
			if (!strcasecmp(buf, "n") || !strcasecmp(buf, "no") || !buf[0])
				return cx_fail(st, CX_EDECLINED, "answered no");
		}
		retry(p, r, "Please answer y or n, or just Enter for %s.", default_no ? "n" : "y");
	}
	return cx_fail(st, CX_EDECLINED, "no valid answer after %d tries", t);
}

struct hexkind {
	const char *name;
	int digits;
	uint64_t blank;
	const char *example;
	int (*parse)(const char *s, uint64_t *out, struct cx_status *st);
};

static const struct hexkind kind_guid = { "GUID", 16, UINT64_MAX, "0002c903000a1b2c", guids_parse_guid };
static const struct hexkind kind_mac = { "MAC", 12, 0xFFFFFFFFFFFFull, "0002c90a1b2c", guids_parse_mac };

/* Hex digits in s after an optional 0x, or -1 if s holds anything but hex
 * digits and separators. Only to word the complaint: guids.c decides. */
static int hex_digits(const char *s)
{
	int n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++) {
		if (isxdigit((unsigned char)*s))
			n++;
		else if (*s != ':' && *s != '-')
			return -1;
	}
	return n;
}

/* One entry checked; on failure the one line saying why is printed. */
static bool hex_entry(struct prompt *p, const struct hexkind *k, enum line r, const char *s, uint64_t *v)
{
	struct cx_status e = { 0 };
	int d = r == LINE_OK ? hex_digits(s) : -1;

	if (r != LINE_OK || !*s)
		retry(p, r, "Please type the %d hex digits of the %s.", k->digits, k->name);
	else if (d < 0)
		retry(p, r, "That is not hex: a %s is %d hex digits (0-9, a-f), e.g. %s.", k->name,
		      k->digits, k->example);
	else if (d != k->digits)
		retry(p, r, "That has %d hex digits; a %s has %d.", d, k->name, k->digits);
	else if (guids_parse_guid(s, v, &e))
		retry(p, r, "Separators (':' or '-') go only between digits, e.g. %.2s:%.2s:%.2s:...",
		      k->example, k->example + 2, k->example + 4);
	else if (k->parse(s, v, &e))
		retry(p, r, "That is not a card's %s (%s).", k->name, e.msg);
	else if (*v == 0)
		retry(p, r, "All zeros is not a card's %s; check the sticker.", k->name);
	else if (*v == k->blank)
		retry(p, r, "All ones is an erased flash, not a card's %s; check the sticker.", k->name);
	else
		return true;
	return false;
}

static int prompt_hex(struct prompt *p, const struct hexkind *k, const char *what, uint64_t *out,
		      struct cx_status *st)
{
	char buf[PROMPT_ANSWER_MAX + 1];
	uint64_t first = 0, v = 0;
	bool again = false;
	int left = tries(p);
	enum line r;

	if (p->closed)
		return closed(st);
	while (left > 0) {
		if (again)
			fprintf(p->out, "Type the %s again to confirm: ", what);
		else
			fprintf(p->out, "%s (%d hex digits from the card's sticker): ", what, k->digits);
		r = read_line(p, buf, sizeof(buf));
		if (r == LINE_EOF)
			return closed(st);
		if (!hex_entry(p, k, r, buf, &v)) {
			/* A second entry the user got wrong says nothing about the first. */
			again = false;
			left--;
		} else if (!again) {
			fprintf(p->out, "You typed %0*llx.\n", k->digits, (unsigned long long)v);
			first = v;
			again = true;
		} else if (v == first) {
			*out = v;
			return CX_OK;
		} else {
			fprintf(p->out, "The two entries differ (%0*llx, then %0*llx); starting over.\n",
				k->digits, (unsigned long long)first, k->digits, (unsigned long long)v);
			again = false;
			left--;
		}
	}
	return cx_fail(st, CX_EDECLINED, "no confirmed %s after %d tries", k->name, tries(p));
}

int prompt_guid(struct prompt *p, const char *what, uint64_t *out, struct cx_status *st)
{
	return prompt_hex(p, &kind_guid, what, out, st);
}

int prompt_mac(struct prompt *p, const char *what, uint64_t *out, struct cx_status *st)
{
	return prompt_hex(p, &kind_mac, what, out, st);
}

int prompt_line(struct prompt *p, const char *question, char *buf, size_t len, struct cx_status *st)
{
	int t;
	enum line r;

	if (!buf || !len)
		return cx_fail(st, CX_EVALUE, "no room for an answer");
	buf[0] = '\0';
	if (p->closed)
		return closed(st);
	for (t = 0; t < tries(p); t++) {
		fprintf(p->out, "%s: ", question);
		r = read_line(p, buf, len);
		if (r == LINE_EOF) {
			buf[0] = '\0';
			return closed(st);
		}
		if (r == LINE_OK)
			return CX_OK;
		retry(p, r, "Please type at most %zu characters of plain text.", len - 1);
	}
	buf[0] = '\0';
	return cx_fail(st, CX_EDECLINED, "no valid answer after %d tries", t);
}
