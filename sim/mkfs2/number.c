/* SPDX-License-Identifier: GPL-2.0-or-later */
/* number_parse: see number.h. */
#include "number.h"

#include <errno.h>
#include <stdlib.h>

int number_parse(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull would take a sign, white space and an empty string: a typed number may not. */
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}
