/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_progress.c — ops/progress: the progress line's text, on a terminal (a pty) and
 * silence off one; a phase with nothing to do prints nothing. */
#define _XOPEN_SOURCE 700 /* posix_openpt */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ops/progress.h"

#define MS 1000000ull

/* The line's text, case by case. */
static const struct {
	const char *phase;
	uint64_t done, total, elapsed_ns;
	const char *want;
} lines[] = {
	/* Before a tenth of a second: phase, share and bytes only (a rate would be noise). */
	{"write", 1234 * 1024, 2944 * 1024, 99 * MS, "write     41%  1234/2944 KiB"},
	/* No byte done yet: no rate either, however long it took. */
	{"erase", 0, 1024 * 1024, 5000 * MS, "erase      0%  0/1024 KiB"},
	/* Half of 2 MiB in one second: 1024 KiB/s, one second left. */
	{"verify", 1024 * 1024, 2048 * 1024, 1000 * MS, "verify    50%  1024/2048 KiB  1024.0 KiB/s  ETA 0:01"},
	/* Minutes and seconds of what is left: 2048 KiB at 10 KiB/s is 204.8 s. */
	{"write", 10 * 1024, 2058 * 1024, 1000 * MS, "write      0%  10/2058 KiB  10.0 KiB/s  ETA 3:25"},
	/* A phase with nothing to do is no line at all (not "read 100%  0/0 KiB"). */
	{"read", 0, 0, 0, ""},
	{"write", 0, 0, 5000 * MS, ""},
	/* Under one KiB (an old signature's 16 bytes): bytes, never "0/0 KiB". */
	{"read", 16, 16, 0, "read     100%  16/16 bytes"},
	{"write", 0, 1023, 0, "write      0%  0/1023 bytes"},
	/* One KiB exactly is KiB again. */
	{"read", 1024, 1024, 0, "read     100%  1/1 KiB"},
};

static void test_lines(void **state)
{
	char line[96];

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		progress_format(line, sizeof(line), lines[i].phase, lines[i].done, lines[i].total,
				lines[i].elapsed_ns);
		assert_string_equal(line, lines[i].want);
	}
}

/* A short buffer gets a cut, terminated line, and nothing past it. */
static void test_short_buffer(void **state)
{
	char line[16];

	(void)state;
	memset(line, 'x', sizeof(line));
	progress_format(line, 12, "write", 1024 * 1024, 2048 * 1024, 1000 * MS);
	assert_string_equal(line, "write     5");
	assert_int_equal(line[12], 'x');
}

/* Standard error that is not a terminal (a log, a pipe, the tests) gets nothing. */
static void test_silent_off_a_terminal(void **state)
{
	char path[] = "/tmp/cx-progress-XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	struct stat sb;

	(void)state;
	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	progress_line(NULL, "write", 0, 4096);
	progress_line(NULL, "write", 4096, 4096);
	fflush(stderr);
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	assert_int_equal(fstat(fd, &sb), 0);
	close(fd);
	close(saved);
	unlink(path);
	assert_int_equal(sb.st_size, 0);
}

/* What progress_line() shows on a terminal (a pty as standard error) for these phases. */
static void on_a_terminal(char *got, size_t n, const char *phase, uint64_t done, uint64_t total)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), saved = dup(STDERR_FILENO), s;
	ssize_t k;

	assert_true(m >= 0 && saved >= 0);
	assert_int_equal(grantpt(m), 0);
	assert_int_equal(unlockpt(m), 0);
	assert_true((s = open(ptsname(m), O_RDWR | O_NOCTTY)) >= 0);
	fflush(stderr);
	assert_int_equal(dup2(s, STDERR_FILENO), STDERR_FILENO);
	progress_line(NULL, phase, done, total);
	fflush(stderr);
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(s);
	close(saved);
	fcntl(m, F_SETFL, O_NONBLOCK);
	k = read(m, got, n - 1);
	got[k > 0 ? k : 0] = '\0';
	close(m);
}

static void test_terminal_lines(void **state)
{
	char got[256];

	(void)state;
	on_a_terminal(got, sizeof(got), "read", 0, 0);
	assert_string_equal(got, "");
	on_a_terminal(got, sizeof(got), "read", 16, 16);
	assert_non_null(strstr(got, "read     100%  16/16 bytes"));
	assert_null(strstr(got, "KiB"));
	on_a_terminal(got, sizeof(got), "write", 4096, 4096);
	assert_non_null(strstr(got, "write    100%  4/4 KiB"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_short_buffer),
		cmocka_unit_test(test_silent_off_a_terminal),
		cmocka_unit_test(test_terminal_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
