/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.h — what the cxsim command-line files share: commands, option helpers, exit codes. */
#ifndef CXSIM_CLI_H
#define CXSIM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cxsim.h"
#include "../mkfs2/number.h"

/* Exit codes of every cxsim command. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

int cmd_create(int argc, char **argv);
int cmd_boot_check(int argc, char **argv);
int cmd_fault(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_replay(int argc, char **argv);

/* One-line error to stderr: "cxsim: <what>". Returns CLI_FAIL. */
int cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Usage error: "cxsim <cmd>: <what>" plus a hint. Returns CLI_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An option's value: argv[*i + 1], advancing *i; NULL (after a usage message) if absent. */
const char *cli_value(int argc, char **argv, int *i, const char *cmd);
/* An operand (an argument that is no option), a: into *first while that is NULL, else into
 * *second (second may be NULL: one operand). CLI_OK, or CLI_USAGE after "unexpected
 * argument" when both are taken. */
int cli_operand(const char *cmd, const char *a, const char **first, const char **second);

/* Hex of up to 16 digits, optional 0x and ':' separators (GUIDs, MACs). 0 or -1. */
int cli_hex64(const char *s, unsigned maxdigits, uint64_t *out);
/* "on"/"off" (also 1/0, yes/no). 0 or -1. */
int cli_onoff(const char *s, bool *out);

/* A loaded card or a message; NULL after printing the error. */
struct cxsim_card *cli_load(const char *stem);
int cli_save(struct cxsim_card *c, const char *stem);

#endif
