/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Numbers typed by a user: mkfs2's options and, through the Makefile, cxsim's too, so that
 * both programs of the simulator read a number the same way. */
#ifndef MKFS2_NUMBER_H
#define MKFS2_NUMBER_H

#include <stdint.h>

/* s as a whole number within max: decimal, 0x-hex or 0-octal (strtoull's base 0), and it
 * must start with a digit (no sign, no space). 0 with *out set, or -1 with *out untouched. */
int number_parse(const char *s, uint64_t max, uint64_t *out);

#endif
