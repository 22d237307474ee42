/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fw_access.h — internal to burner/flash/: the flash of a ConnectX-4 / 4 Lx / 5 whose
 * firmware runs, asked of that firmware (hw-access.md §3.14).
 *
 * The firmware fetches its code from the flash while it runs, so it owns the SPI bus:
 * cxflash reads, erases and programs through its access registers (dev/fw_regs.h), as
 * mstflint 4.21 does when the cache-replacement guard is set (mflash.c
 * fifth_gen_flash_init, mflash_access_layer.c). The part is still looked up in the one
 * parts table, by the JEDEC ID MFPA reports; SPI commands, the status register and its
 * protection bits are the firmware's business and not reached from here (a write-protected
 * flash shows as a program whose read-back differs: UNCONFIRMED what a card answers).
 *
 * flash.c and program.c call these when f->via_fw; the public API (flash.h) is the same.
 */
#ifndef CX_FLASH_FW_ACCESS_H
#define CX_FLASH_FW_ACCESS_H

#include "flash/flash.h"

int fl_fw_open(struct flash *f, struct chip *c, struct cx_status *st);
int fl_fw_read(struct flash *f, uint32_t addr, uint8_t *buf, uint32_t len, struct cx_status *st);
/* [addr, addr + size) in erase units (checked by the caller). */
int fl_fw_erase(struct flash *f, uint32_t addr, uint32_t size, struct cx_status *st);
/* Program erased flash, skip all-0xFF pages, read back every page programmed. */
int fl_fw_program(struct flash *f, uint32_t addr, const uint8_t *buf, uint32_t len, struct cx_status *st);

#endif
