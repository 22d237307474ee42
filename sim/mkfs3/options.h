/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mkfs3's command line: options.c parses argv into a struct config (README "Options"). */
#ifndef MKFS3_OPTIONS_H
#define MKFS3_OPTIONS_H

#include <stdio.h>

#include "mkfs3.h"

#define EXIT_USAGE	2

enum parse_result { PARSE_OK, PARSE_EXIT_OK, PARSE_USAGE, PARSE_SELFTEST };

void usage(FILE *f);
enum parse_result options_parse(int argc, char **argv, struct config *c);

#endif
