/* SPDX-License-Identifier: GPL-2.0-or-later */
/* signals.h — deferring SIGINT, SIGTERM, SIGHUP and SIGQUIT while a card is open.
 *
 * A signal that lands between two gateway transactions of a chained page
 * program, or while we hold the flash semaphores, must not kill the process
 * there (hw-access.md §3.9: flint defers them too). sig_defer_begin() blocks
 * them; long operations call sig_pending() at safe points and stop cleanly;
 * sig_defer_end() — after the locks are released — unblocks them, and a
 * signal still pending then takes its default action.
 */
#ifndef CX_SIGNALS_H
#define CX_SIGNALS_H

#include <stdbool.h>

void sig_defer_begin(void);
bool sig_pending(void);
void sig_defer_end(void);

#endif
