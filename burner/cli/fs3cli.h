/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3cli.h — the commands on an FS3/FS4 file (ConnectX-4 and later), read-only.
 *
 * run_command() (commands.c) hands every command given -i FILE to
 * cli_fs3_dispatch() first: when the file is FS3 or FS4 (image/fs3.h) the
 * command runs here — v [showitoc], q [full], dc, rrom, ri/extract — or is
 * refused in one line with CX_EUNSUPPORTED (sg, sv, drom, brom, and every
 * command that would write a card); any other file goes on to the FS2 code
 * unchanged. With -d BDF, a ConnectX-4/4 Lx/5 card (cmd_fs3_card.c) is read as its FS3/FS4
 * image and the same commands run on it; sg there writes the card's DEV_INFO (cmd_fs3_sg.c).
 */
#ifndef CX_CLI_FS3CLI_H
#define CX_CLI_FS3CLI_H

#include <stdbool.h>

#include "cli/cli.h"
#include "image/fs3.h"

struct fs3_file {
	uint8_t *buf;
	size_t len;
	struct fs3_image img;
	bool have_running;         /* a card whose firmware runs: what MGIR says runs */
	uint16_t running[3];
};

/* If c->image is an FS3/FS4 file, run (or refuse) cmd on it, set *handled and
 * return the code; else *handled is false and nothing was printed. */
int cli_fs3_dispatch(const struct command *cmd, struct cli *c, bool *handled, struct cx_status *st);

/* The same commands on a parsed buffer (a file, or a card's flash read by cmd_fs3_card.c). */
int cli_fs3_run(const struct command *cmd, struct cli *c, struct fs3_file *f, int parse_rc, struct cx_status *st);

/* -d BDF on a ConnectX-4/4 Lx/5 card (cmd_fs3_card.c): true when the card is one (then *rc
 * is the command's code and *handled is set); false for a ConnectX-2/3 card, whose commands
 * go on to the FS2 code. */
bool cli_fs3_card_dispatch(const struct command *cmd, struct cli *c, bool *handled, int *rc, struct cx_status *st);

/* sg --guid G --mac M -d BDF on a ConnectX-4/4 Lx/5 card: its DEV_INFO (cmd_fs3_sg.c, ops/setid_fs3.h). */
int cli_fs3_sg(struct cli *c, struct cx_status *st);

/* v [showitoc] and q [full] on a parsed file (cmd_fs3_verify.c, cmd_fs3_query.c). */
int cli_fs3_verify(struct cli *c, struct fs3_file *f, int parse_rc, struct cx_status *st);
int cli_fs3_query(struct cli *c, struct fs3_file *f, struct cx_status *st);

/* The security attributes as mstflint's q shows them (fs3-format.md §7). */
const char *cli_fs3_security(const struct fs3_image *img);

#endif
