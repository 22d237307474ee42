/* SPDX-License-Identifier: GPL-2.0-or-later */
/* utc.c — UTC time stamps without strftime (see utc.h). */
#include "util/utc.h"

#include <stdio.h>
#include <string.h>

char *utc_stamp(char out[UTC_STAMP_LEN], const struct tm *tm, bool compact)
{
	snprintf(out, UTC_STAMP_LEN,
		 compact ? "%04d%02d%02dT%02d%02d%02dZ" : "%04d-%02d-%02dT%02d:%02d:%02dZ",
		 tm->tm_year + 1900, tm->tm_mon + 1, tm->tm_mday, tm->tm_hour, tm->tm_min, tm->tm_sec);
	return out;
}

char *utc_stamp_of(char out[UTC_STAMP_LEN], time_t t, bool compact)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	return utc_stamp(out, &tm, compact);
}
