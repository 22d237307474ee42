/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session.c — the wizards' lock: flock(2) on a tmpfs file, labelled with its holder. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "rescue/session.h"

int session_open(struct session *s, const char *path, const char *who, struct cx_status *st)
{
	memset(s, 0, sizeof(*s));
	s->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (s->fd < 0)
		return cx_fail(st, CX_EIO, "cannot open the session lock %s: %s", path, strerror(errno));
	snprintf(s->me, sizeof(s->me), "%.40s pid %ld", who && *who ? who : "a console", (long)getpid());
	return CX_OK;
}

/* The holder's label, as it wrote it; "another console" when unreadable. */
static void holder(int fd, char *out, size_t n)
{
	ssize_t got = pread(fd, out, n - 1, 0);

	if (got <= 0) {
		snprintf(out, n, "another console");
		return;
	}
	out[got] = '\0';
	out[strcspn(out, "\r\n")] = '\0';
	for (char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
}

int session_take(struct session *s, time_t now, struct cx_status *st)
{
	char label[SESSION_LABEL_MAX + 32];
	struct tm tm;

	if (s->held)
		return CX_OK;
	if (flock(s->fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK)
			return cx_fail(st, CX_EIO, "cannot take the session lock: %s", strerror(errno));
		holder(s->fd, label, sizeof(label));
		return cx_fail(st, CX_EBUSY, "the wizard is busy on %s: wait for it to finish, or use that console",
			       label);
	}
	s->held = true;
	gmtime_r(&now, &tm);
	int n = snprintf(label, sizeof(label), "%s since %02d:%02d:%02d UTC\n", s->me, tm.tm_hour, tm.tm_min,
			 tm.tm_sec);
	/* Only a label for the other console's message: a short write changes nothing. */
	if (ftruncate(s->fd, 0) == 0 && n > 0 && pwrite(s->fd, label, (size_t)n, 0) < 0)
		(void)0;
	return CX_OK;
}

void session_give(struct session *s)
{
	if (!s->held)
		return;
	if (ftruncate(s->fd, 0))
		(void)0;
	flock(s->fd, LOCK_UN);
	s->held = false;
}

void session_close(struct session *s)
{
	if (s->fd >= 0) {
		session_give(s);
		close(s->fd);
	}
	s->fd = -1;
}
