/* SPDX-License-Identifier: GPL-2.0-or-later */
/* library.h — where the firmware library is, for `library` and `match`.
 *
 * The board table: --boards FILE, else $CXFLASH_BOARDS, else
 * CXFLASH_DATADIR/boards.txt (the rescue image's copy) when it exists. A table
 * given by option or variable must load; the default one may be absent (then
 * there are no mappings, and only a card's own PSID can match).
 *
 * The firmware folders: the command's own folder parameters (library list
 * DIR...), else every --firmware DIR, else $CXFLASH_FIRMWARE (folders separated
 * by ':'; the rescue image's /init sets it to the image's folder and the
 * stick's cxrescue/firmware/), else CXFLASH_DATADIR/firmware.
 */
#ifndef CX_CLI_LIBRARY_H
#define CX_CLI_LIBRARY_H

#include "cli/cli.h"
#include "library/boards.h"
#include "library/manifest.h"

#ifndef CXFLASH_DATADIR
#define CXFLASH_DATADIR "/usr/share/cxrescue" /* the rescue image's library (scripts/mkinitramfs.sh) */
#endif
#define CLI_LIBRARY_MAX_DIRS 16

struct cli_library {
	struct board_table t;
	const struct board_table *table;   /* &t, or NULL when there is none */
	const char *boards_path;           /* NULL when there is none */
	const char *dirs[CLI_LIBRARY_MAX_DIRS];
	size_t ndirs;
	char *env_copy;
	struct manifest m;
};

/* Load the table and scan the folders (dirs/ndirs: the command's own, or 0). */
int cli_library_open(struct cli *c, const char *const *dirs, size_t ndirs, struct cli_library *l,
		     struct cx_status *st);
void cli_library_close(struct cli_library *l);

#endif
