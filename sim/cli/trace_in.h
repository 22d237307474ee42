/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_in.h — cxsim's own reader of cxflash's trace files (`cxsim replay`).
 *
 * The format is cxflash's (burner/dev/trace_fmt.h and docs/traces.md): a gzip
 * stream of "CXTRACE 1\n", "key=value" header lines up to an empty line, then
 * records. This reader is written from that description, not from cxflash's
 * code, and shares none of it: a misreading on one side must show up as a
 * replay failure instead of cancelling out.
 */
#ifndef CXSIM_TRACE_IN_H
#define CXSIM_TRACE_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tin_kind { TIN_CFG_RD, TIN_CFG_WR, TIN_BAR_RD, TIN_BAR_WR, TIN_SLEEP, TIN_NOTE };

struct tin_rec {
	enum tin_kind kind;
	bool failed;             /* the recorded access method reported an error */
	uint32_t off, val;       /* sleep: val is µs */
	uint64_t us;             /* since the trace began */
	char text[512];          /* notes */
};

struct tin;

/* Open a trace and read its header; NULL with err filled. */
struct tin *tin_open(const char *path, char *err, size_t errlen);
/* A header value ("" when absent). */
const char *tin_header(const struct tin *t, const char *key);
/* 1: a record; 0: the data ended (tin_complete() says whether at the end
 * note); -1: damaged, err filled. */
int tin_next(struct tin *t, struct tin_rec *r, char *err, size_t errlen);
bool tin_complete(const struct tin *t);
void tin_close(struct tin *t);

#endif
