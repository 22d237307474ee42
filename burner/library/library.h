/* SPDX-License-Identifier: GPL-2.0-or-later */
/* library.h — where the firmware library is, for both front ends: the commands
 * `library` and `match`, and the wizard.
 *
 * The board table: the path the front end was given (cxflash --boards FILE),
 * else $CXFLASH_BOARDS, else CXFLASH_DATADIR/boards.txt (the rescue image's
 * copy) when it exists. A table given by path or variable must load; the
 * default one may be absent (then there are no mappings, and only a card's own
 * PSID can match).
 *
 * The user's own board table: $CXFLASH_BOARDS_OWN (the rescue image sets it to the
 * stick's cxrescue/boards.txt when there is one), in the same format, for a board no
 * source shipped with cxrescue maps (the HP 544+'s HP_1380110017 is one). Its rows come
 * after the shipped table's and may only add PSIDs it does not have; every mapping it
 * gives is RISKY in `match` (library/match.h), never OK. A table that does not load is
 * left out with the reason in own_error: the rest of the library still works.
 *
 * The firmware folders: the folders the front end was given (the command's own
 * folder parameters, `library list DIR...`, else every --firmware DIR), else
 * $CXFLASH_FIRMWARE (folders separated by ':'; the rescue image's /init sets it
 * to the image's folder and the stick's cxrescue/firmware/), else
 * CXFLASH_DATADIR/firmware.
 */
#ifndef CX_LIBRARY_LIBRARY_H
#define CX_LIBRARY_LIBRARY_H

#include <stddef.h>

#include "library/boards.h"
#include "library/manifest.h"
#include "util/status.h"

#ifndef CXFLASH_DATADIR
#define CXFLASH_DATADIR "/usr/share/cxrescue" /* the rescue image's library (scripts/mkinitramfs.sh) */
#endif
#define LIBRARY_MAX_DIRS 16

struct library {
	struct board_table t;
	const struct board_table *table;   /* &t, or NULL when there is none */
	const char *boards_path;           /* NULL when there is none */
	struct board_table own;            /* the user's own table, chained after t */
	const char *own_path;              /* NULL when there is none, or it was left out */
	char own_error[CX_MSG_MAX + 200];  /* why it was left out, "" if it was not */
	const char *dirs[LIBRARY_MAX_DIRS];
	size_t ndirs;
	char *env_copy;
	struct manifest m;
};

/* Load the table and scan the folders. boards: the table the user named, or
 * NULL; dirs/ndirs: the folders the user named, or 0 (the strings must outlive
 * l). CX_EUSAGE for more than LIBRARY_MAX_DIRS folders. */
int library_open(const char *boards, const char *const *dirs, size_t ndirs, struct library *l,
		 struct cx_status *st);
void library_close(struct library *l);

#endif
