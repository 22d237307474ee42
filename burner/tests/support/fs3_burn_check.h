/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3_burn_check.h — the tests' whole check of an FS3/FS4 burn done in memory.
 *
 * fs3_burn_check() takes the whole flash after a burn of b (image/fs3_burnimg.h): the
 * extents hold b->slot's bytes, the old magic's dword is zero, and our reader finds the new
 * image, whole, at b->target (device data included). CX_EFLASH with what differs. The card
 * burn (ops/burn_fs3.c) checks less after its write: the writer read back every page. */
#ifndef CX_TEST_FS3_BURN_CHECK_H
#define CX_TEST_FS3_BURN_CHECK_H

#include "image/fs3_burnimg.h"

int fs3_burn_check(const struct fs3_burn *b, const uint8_t *flash, size_t len, struct cx_status *st);

#endif
