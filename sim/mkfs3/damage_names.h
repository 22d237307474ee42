/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Names on the command line: --damage KIND (crc:SECTION or a kind) and --dev-sections LIST. */
#ifndef MKFS3_DAMAGE_NAMES_H
#define MKFS3_DAMAGE_NAMES_H

#include "mkfs3.h"

/* NULL, or why arg is not a damage; *fs4_only says it needs --format fs4. */
const char *damage_parse(const char *arg, struct damage *d, int *fs4_only);
int dev_sections_parse(const char *list, unsigned int *bits);

#endif
