/* SPDX-License-Identifier: GPL-2.0-or-later */
/* signals.c — blocking and polling the signals that would interrupt a flash session. */
#include <signal.h>
#include <stddef.h>

#include "util/signals.h"

static sigset_t saved;
static int depth;

static void deferred_set(sigset_t *s)
{
	sigemptyset(s);
	sigaddset(s, SIGINT);
	sigaddset(s, SIGTERM);
	sigaddset(s, SIGHUP);
	sigaddset(s, SIGQUIT);
}

void sig_defer_begin(void)
{
	sigset_t s;

	if (depth++)
		return;
	deferred_set(&s);
	sigprocmask(SIG_BLOCK, &s, &saved);
}

bool sig_pending(void)
{
	sigset_t p, s;

	deferred_set(&s);
	if (sigpending(&p))
		return false;
	for (int sig = 1; sig < 32; sig++)
		if (sigismember(&s, sig) && sigismember(&p, sig))
			return true;
	return false;
}

void sig_defer_end(void)
{
	if (depth == 0 || --depth)
		return;
	sigprocmask(SIG_SETMASK, &saved, NULL);
}
