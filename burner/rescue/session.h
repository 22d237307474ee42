/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session.h — one wizard writes at a time.
 *
 * The rescue image starts a wizard on every console it was told about (the
 * screen and the serial line), and nobody knows which one a person will use.
 * Two wizards writing two cards at once, or one card twice, must not happen;
 * two wizards reading is harmless but confusing. So each console's wizard takes
 * the session lock when its user picks an action, and gives it back when the
 * action is over and the menu shows again. The lock is an flock(2) on a file in
 * a tmpfs (/run/cxrescue/wizard.lock on the image): the kernel drops it when
 * the holder dies, so a killed wizard never leaves a stale lock. The file's
 * text names the holder ("ttyS0 pid 123 since 10:42:07 UTC") for the other
 * console's message; it is only a label, never trusted for the decision.
 */
#ifndef CX_RESCUE_SESSION_H
#define CX_RESCUE_SESSION_H

#include <stdbool.h>
#include <time.h>

#include "util/status.h"

#define SESSION_LABEL_MAX 96

struct session {
	int fd;                         /* the lock file, -1 when closed */
	bool held;
	char me[SESSION_LABEL_MAX];     /* what this wizard writes into the file */
};

/* Open (create) the lock file at path without taking it. who names this
 * console ("ttyS0"). CX_EIO when the file cannot be opened. */
int session_open(struct session *s, const char *path, const char *who, struct cx_status *st);

/* Take the lock without waiting. CX_EBUSY when another wizard holds it, with
 * "the wizard is busy on <its label>" in st. Taking it twice is fine. */
int session_take(struct session *s, time_t now, struct cx_status *st);

/* Give it back (a no-op when not held). */
void session_give(struct session *s);

void session_close(struct session *s);

#endif
