/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progress.c — phase, %, KiB, KiB/s, ETA on one terminal line (progress.h). */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ops/progress.h"

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* A phase with nothing to do (total 0: a write whose plan found every byte
 * already right) prints nothing, not "read 100% 0/0 KiB": the report at the end
 * of the command says what was done, and a line for no work is only noise. A
 * phase under one KiB (the 16 bytes that retire the old image's signature, read
 * before they are zeroed) is counted in bytes, so it never reads "0/0 KiB". */
void progress_format(char *out, size_t n, const char *phase, uint64_t done, uint64_t total,
		     uint64_t elapsed_ns)
{
	bool bytes = total < 1024;
	unsigned div = bytes ? 1 : 1024;
	int k;

	if (!n)
		return;
	out[0] = '\0';
	if (!total)
		return;
	k = snprintf(out, n, "%-8s %3u%%  %llu/%llu %s", phase, (unsigned)(done * 100 / total),
		     (unsigned long long)(done / div), (unsigned long long)(total / div), bytes ? "bytes" : "KiB");
	if (k < 0 || (size_t)k >= n)
		return;
	/* No rate before a tenth of a second or a first byte: it would be noise. */
	if (elapsed_ns < 100000000u || !done)
		return;
	double secs = (double)elapsed_ns / 1e9, rate = (double)done / secs;
	unsigned long left = (unsigned long)((double)(total - done) / rate + 0.5);
	snprintf(out + k, n - (size_t)k, "  %.1f KiB/s  ETA %lu:%02lu", rate / 1024, left / 60, left % 60);
}

void progress_line(const struct write_progress *wp, const char *phase, uint64_t done, uint64_t total)
{
	static const char *cur_phase;
	static uint64_t cur_total, t0;
	char line[96];

	(void)wp;
	if (!total || !isatty(STDERR_FILENO))
		return;   /* nothing to do, or nobody to show it to: progress_format() */
	if (phase != cur_phase || total != cur_total || done == 0) {
		cur_phase = phase;
		cur_total = total;
		t0 = now_ns();
	}
	progress_format(line, sizeof(line), phase, done, total, now_ns() - t0);
	/* Pad over a longer previous line; end the line when the phase is done. */
	fprintf(stderr, "\r%-78s%s", line, done >= total ? "\n" : "");
	fflush(stderr);
}
