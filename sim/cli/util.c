/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.c — error messages, option values, number parsing and card load/save for cxsim's commands. */
#include "cli.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_err(const char *fmt, ...)
{
	va_list ap;

	fputs("cxsim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_FAIL;
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cxsim %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'cxsim --help')\n");
	return CLI_USAGE;
}

const char *cli_value(int argc, char **argv, int *i, const char *cmd)
{
	if (*i + 1 >= argc) {
		cli_usage(cmd, "%s needs a value", argv[*i]);
		return NULL;
	}
	return argv[++*i];
}

int cli_operand(const char *cmd, const char *a, const char **first, const char **second)
{
	if (!*first)
		*first = a;
	else if (second && !*second)
		*second = a;
	else
		return cli_usage(cmd, "unexpected argument '%s'", a);
	return CLI_OK;
}

int cli_hex64(const char *s, unsigned maxdigits, uint64_t *out)
{
	uint64_t v = 0;
	unsigned n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++) {
		if (*s == ':')
			continue;
		if (!isxdigit((unsigned char)*s) || ++n > maxdigits)
			return -1;
		v = v << 4 | (uint64_t)(isdigit((unsigned char)*s) ? *s - '0'
					: tolower((unsigned char)*s) - 'a' + 10);
	}
	if (!n)
		return -1;
	*out = v;
	return 0;
}

int cli_onoff(const char *s, bool *out)
{
	if (!strcmp(s, "on") || !strcmp(s, "1") || !strcmp(s, "yes"))
		*out = true;
	else if (!strcmp(s, "off") || !strcmp(s, "0") || !strcmp(s, "no"))
		*out = false;
	else
		return -1;
	return 0;
}

struct cxsim_card *cli_load(const char *stem)
{
	char err[256] = "";
	struct cxsim_card *c = cxsim_load(stem, err, sizeof(err));

	if (!c)
		cli_err("cannot load card %s: %s", stem, err[0] ? err : "unknown error");
	return c;
}

int cli_save(struct cxsim_card *c, const char *stem)
{
	char err[256] = "";

	if (cxsim_save(c, stem, err, sizeof(err)))
		return cli_err("cannot save card %s: %s", stem, err[0] ? err : "unknown error");
	return CLI_OK;
}
