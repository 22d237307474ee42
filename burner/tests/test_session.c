/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_session.c — rescue/session.c: one wizard at a time, the other told who holds it,
 * and a holder that dies frees the lock. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rescue/session.h"

#define T0 ((time_t)1764495727) /* 2025-11-30 09:42:07 UTC */

static char path[64];

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/cx-session-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void test_second_console_is_told_who_holds_it(void **state)
{
	struct session a, b;
	struct cx_status st = {0};

	(void)state;
	assert_int_equal(session_open(&a, path, "tty1", &st), CX_OK);
	assert_int_equal(session_open(&b, path, "ttyS0", &st), CX_OK);
	assert_int_equal(session_take(&a, T0, &st), CX_OK);
	assert_int_equal(session_take(&a, T0, &st), CX_OK); /* twice is fine */
	assert_int_equal(session_take(&b, T0, &st), CX_EBUSY);
	assert_non_null(strstr(st.msg, "busy on tty1 pid"));
	assert_non_null(strstr(st.msg, "since 09:42:07 UTC"));
	session_give(&a);
	cx_status_clear(&st);
	assert_int_equal(session_take(&b, T0, &st), CX_OK);
	assert_int_equal(session_take(&a, T0, &st), CX_EBUSY);
	assert_non_null(strstr(st.msg, "ttyS0"));
	session_close(&b);
	cx_status_clear(&st);
	assert_int_equal(session_take(&a, T0, &st), CX_OK); /* closing while holding frees it */
	session_close(&a);
}

static void test_a_killed_holder_frees_the_lock(void **state)
{
	struct session a;
	struct cx_status st = {0};
	int ready[2];
	char c;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct session k;
		struct cx_status kst = {0};
		if (session_open(&k, path, "tty2", &kst) || session_take(&k, T0, &kst))
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(session_open(&a, path, "tty1", &st), CX_OK);
	assert_int_equal(session_take(&a, T0, &st), CX_EBUSY);
	assert_non_null(strstr(st.msg, "tty2"));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	cx_status_clear(&st);
	assert_int_equal(session_take(&a, T0, &st), CX_OK);
	session_close(&a);
	close(ready[0]);
	close(ready[1]);
}

static void test_label_is_sanitised_and_open_fails_cleanly(void **state)
{
	struct session a, b;
	struct cx_status st = {0};

	(void)state;
	assert_int_equal(session_open(&a, path, "tty\x1b[2J\nevil", &st), CX_OK);
	assert_int_equal(session_take(&a, T0, &st), CX_OK);
	assert_int_equal(session_open(&b, path, "", &st), CX_OK);
	assert_int_equal(session_take(&b, T0, &st), CX_EBUSY);
	assert_null(strchr(st.msg, '\x1b'));
	assert_null(strchr(st.msg, '\n'));
	session_close(&a);
	session_close(&b);
	cx_status_clear(&st);
	assert_int_equal(session_open(&a, "/nonexistent-dir/wizard.lock", "tty1", &st), CX_EIO);
	assert_non_null(strstr(st.msg, "/nonexistent-dir/wizard.lock"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_second_console_is_told_who_holds_it, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_killed_holder_frees_the_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_label_is_sanitised_and_open_fails_cleanly, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
