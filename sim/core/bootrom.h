/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bootrom.h — the model's boot ROM: which FS2 (FS3, FS4) image, if any, a card boots at power-on.
 *
 * A small FS2 reader of the simulator's own (fs2-format.md §1–§3): magic at
 * the start positions (the first 6 on ConnectX-2, all on ConnectX-3, hw-access
 * §3.11), then the image read through the zebra translation: header checks,
 * BOOT2 and section CRCs, full-image CRC when tag 11 is present, and the
 * identity (FW version, PSID, VSD, GUIDs, MACs). Which image the hardware
 * picks when both slots are valid is UNCONFIRMED (fs2-format.md §1.5); like
 * mstflint, the model takes the lower address.
 */
#ifndef CXSIM_BOOTROM_H
#define CXSIM_BOOTROM_H

#include <stddef.h>
#include <stdint.h>

#include "cxsim.h"

/* Scan flash (size bytes) with npos start positions; fills *b. */
void bootrom_scan(const uint8_t *flash, size_t size, unsigned npos, struct cxsim_boot *b);


/* FS3 (ConnectX-4, 4 Lx) and FS4 (ConnectX-5) flashes: bootrom_fs3.c. fs is 3 or 4. */
void bootrom_scan_fs3(const uint8_t *flash, size_t size, unsigned fs, struct cxsim_boot *b);

#endif
