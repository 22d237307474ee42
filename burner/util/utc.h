/* SPDX-License-Identifier: GPL-2.0-or-later */
/* utc.h — the UTC time stamps cxrescue writes: in file names, JSON and logs.
 *
 * Digits only, so they are formatted with snprintf, not strftime: musl's strftime
 * brings its locale and time-zone code with it (7 KB of the static cxflash) for
 * conversions these stamps never use.
 */
#ifndef CX_UTC_H
#define CX_UTC_H

#include <stdbool.h>
#include <time.h>

enum { UTC_STAMP_LEN = 32 };   /* room for either form of any struct tm, with its NUL */

/* out: "2026-12-02T19:04:05Z" (ISO 8601), or with compact "20261202T190405Z" (for
 * file names). Returns out. */
char *utc_stamp(char out[UTC_STAMP_LEN], const struct tm *tm, bool compact);

/* out: the stamp of time t (gmtime_r; an impossible t gives 1900-01-01). */
char *utc_stamp_of(char out[UTC_STAMP_LEN], time_t t, bool compact);

#endif
