/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gateway.h — one SPI transaction through the flash gateway (hw-access.md §3.1, §3.2).
 *
 * The gateway at crspace 0xf0400 runs one piece of an SPI command per
 * transaction: optionally the opcode (command phase), three address bytes
 * (address phase) and up to 16 data bytes in or out (data phase). Chip select
 * drops at the end unless CS_HOLD is set, in which case the next transaction
 * continues the same SPI command (that is how a 256-byte page program is sent
 * as 16-byte pieces, §3.8). Everything above this file talks to the flash
 * through fl_gw_get() and fl_gw_set() only: the one `command` primitive of the
 * flash layer (style.md Lessons 5).
 *
 * Every transaction writes the command word with BUSY and the generation's bit set
 * (FLASH_ENABLE on ConnectX-2/3; the held lock, bit 31, on ConnectX-4/5, whose command
 * word is also its lock: a word without it would release the lock, §3.13) and
 * the bank in bit 11, then reads the word back until BUSY clears, at most
 * FL_GW_BUSY_POLLS times with no sleep (FLASH_CMD_CNT, §3.2); past that the
 * gateway is "stuck busy" (CX_EFLASH). A failing config access is CX_ENODEV
 * (reported by the crspace layer).
 *
 * Data byte order (§3.1): the first flash byte is the most significant byte of
 * data0, so the byte buffers here are the flash's bytes in wire order.
 *
 * Locking: the gateway is shared with the firmware and other tools; the caller
 * holds the flash semaphore (chip_lock, §3.5) for as long as it uses it. These
 * functions never take or release it.
 */
#ifndef CX_FLASH_GATEWAY_H
#define CX_FLASH_GATEWAY_H

#include <stdint.h>

#include "dev/chip.h"
#include "dev/crspace.h"

#define FL_GW_CMD 0xF0400u           /* HCR_FLASH_CMD: command/status word, §3.1 */
#define FL_GW_ADDR 0xF0404u          /* HCR_FLASH_ADDR: 24-bit SPI address, §3.1 */
#define FL_GW_DATA0 0xF0410u         /* HCR_FLASH_DATA data0..data3 at +0/4/8/0xc, §3.1 */
#define FL_GW_DATA_MAX 16u           /* four data registers: 16 bytes at most, §3.1 */

/* Command-word bits, §3.1. */
#define FL_GW_READ_OP (1u << 0)      /* data phase reads the flash into the data regs, §3.1 */
#define FL_GW_CMD_PHASE (1u << 2)    /* send the opcode byte, §3.1 */
#define FL_GW_ADDR_PHASE (1u << 3)   /* send the address from 0xf0404, §3.1 */
#define FL_GW_DATA_PHASE (1u << 4)   /* transfer 2^MSIZE data bytes, §3.1 */
#define FL_GW_CS_HOLD (1u << 5)      /* keep chip select asserted after this transaction, §3.1 */
#define FL_GW_MSIZE_SHIFT 8          /* bits 10:8: data size = 2^MSIZE bytes, §3.1 */
#define FL_GW_BANK_SHIFT 11          /* bit 11: chip select / bank ([PRE] width 1), §3.1, §3.10 */
#define FL_GW_FLASH_ENABLE (1u << 13) /* must be 1 on CX2/CX3/CX3 Pro, §3.1 */
#define FL_GW_OPCODE_SHIFT 16        /* bits 23:16: SPI opcode, §3.1 */
#define FL_GW_BUSY (1u << 30)        /* write 1 to start, hardware clears it when done, §3.1 */
#define FL_GW_BANK_MASK 1u           /* the bank field is 1 bit wide ([PRE]/[HEAD]), §3.1 */

#define FL_GW_BUSY_POLLS 5000u       /* FLASH_CMD_CNT: BUSY reads before giving up, §3.2/§3.7 */

/* The opcode field of a command word (with the command phase on). */
#define FL_GW_OP(opcode) (FL_GW_CMD_PHASE | (uint32_t)(opcode) << FL_GW_OPCODE_SHIFT)

struct fl_gw {
	struct crspace *cr;
	uint32_t always;             /* bits every command word carries: the generation's (gateway.c) */
	unsigned bank;               /* chip select for the next transactions, §3.10 */
	uint64_t transactions;       /* gateway transactions started */
	uint64_t busy_polls;         /* reads of the command word waiting for BUSY to clear */
};

/* gen: the chip's gateway generation (dev/chip.h). */
void fl_gw_init(struct fl_gw *gw, struct crspace *cr, enum chip_gw gen);

/* One transaction with command word cmd (phase bits, opcode, CS_HOLD; not
 * BUSY, FLASH_ENABLE or the bank, which are added here). No data registers
 * or address are written: fl_gw_get/fl_gw_set do that. */
int fl_gw_exec(struct fl_gw *gw, uint32_t cmd, struct cx_status *st);

/* Read len bytes (1, 2, 4, 8 or 16) after cmd's opcode/address phases:
 * writes addr to 0xf0404 if cmd has the address phase, runs the transaction
 * with READ_OP|DATA_PHASE|MSIZE added, then reads the data registers. */
int fl_gw_get(struct fl_gw *gw, uint32_t cmd, uint32_t addr, uint8_t *buf, unsigned len,
	      struct cx_status *st);

/* Write len bytes (0, 1, 2, 4, 8 or 16; 0 = no data phase): fills the data
 * registers, writes addr if cmd has the address phase, then runs it (the
 * order of cntx_exec_cmd_set, §3.2). */
int fl_gw_set(struct fl_gw *gw, uint32_t cmd, uint32_t addr, const uint8_t *buf, unsigned len,
	      struct cx_status *st);

/* A transaction with no phases and no CS_HOLD (0x40002000 on bank 0): it only
 * lets chip select go high. No mstflint sends one (3.8: every cntx_exec_cmd
 * caller in src/mflash/mflash.c sets a cmd or data phase; 4.21 the same in
 * mflash/mflash_gw.c), and what silicon does with it is UNCONFIRMED
 * (sim/core/gateway.c models a deselect). So it is sent only where chip select
 * is known to be held: by fl_gw_end_left_command(), and by a page program of
 * ours that failed between its chained pieces (flash/program.c). An unfinished
 * page program that this ends does run: its data is the killed tool's, and it
 * only clears bits. */
int fl_gw_end_command(struct fl_gw *gw, struct cx_status *st);

/* flash_open()'s first step: a chained command another tool left open. A tool
 * killed between the pieces of a page program leaves chip select asserted, and
 * our next opcode would reach the flash as more data of that old command (the
 * page program would write it). mstflint does nothing here (its f_reset is
 * empty_reset for these chips: cntx_flash_init_direct_access in
 * mflash/mflash.c, v4.21.0-1) and sends no command word that is not an SPI
 * command of its own; so this reads the command word first, as mstflint's
 * gw_wait_ready does, and writes nothing unless it shows a command left open:
 * BUSY set (waited for as gw_wait_ready waits; stuck busy fails, nothing
 * written) or, once idle, CS_HOLD set in the last command word (then
 * fl_gw_end_command()). That the word reads back its CS_HOLD bit is
 * UNCONFIRMED on silicon (mstflint reads only BUSY): if it does not, nothing
 * is sent, which is what mstflint does. */
int fl_gw_end_left_command(struct fl_gw *gw, struct cx_status *st);

#endif
