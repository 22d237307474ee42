/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progress.h — the one progress line long work shows on a terminal, for
 * both front ends (the commands and the wizard).
 *
 *   write     41%  1234/2944 KiB  61.2 KiB/s  ETA 0:28
 *
 * Phase, share done, bytes, rate and time left, rewritten in place on
 * standard error, and only when standard error is a terminal: logs, pipes
 * and the tests see nothing. The rate is measured from the start of the
 * phase (wall clock), so the ETA settles after the first steps.
 */
#ifndef CX_OPS_PROGRESS_H
#define CX_OPS_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ops/write_region.h"

/* A write_progress_fn (ops/write_region.h): give it as the progress of a burn, a
 * restore or an sg/sv on a card. */
void progress_line(const struct write_progress *wp, const char *phase, uint64_t done, uint64_t total);

/* The line itself, for the tests: elapsed_ns since the phase began. A phase
 * with nothing to do (total 0) is the empty string, and progress_line() prints
 * nothing for it; below one KiB the amounts are in bytes. */
void progress_format(char *out, size_t n, const char *phase, uint64_t done, uint64_t total,
		     uint64_t elapsed_ns);

#endif
