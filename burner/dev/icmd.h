/* SPDX-License-Identifier: GPL-2.0-or-later */
/* icmd.h — commands to the running firmware of a ConnectX-4 / 4 Lx / 5 (hw-access.md §3.14).
 *
 * While their firmware runs, these chips take commands from tools through "ICMD": a
 * control word and a mailbox in the VSEC's ICMD address space, guarded by a semaphore in
 * its SEMAPHORE space (crspace.h cr_space_access). The firmware answers in the mailbox.
 * Register accesses (ACCESS_REGISTER, opcode 0x9001) are the only command cxflash sends:
 * the flash through MFPA/MFBA/MFBE, what runs through MGIR, the settings through NVDA/NVQC/
 * NVIA. The sequence is mstflint 4.21's (mtcr_ul/mtcr_ul_icmd_cif.c icmd_send_command_com):
 *
 *   icmd_open:  take the semaphore, read the mailbox size (ICMD 0x1000), release.
 *   a command:  the chip's "static configuration not done" bit must read 0 (else the
 *               firmware is not ready); take the semaphore (write our value, read it
 *               back: 256 tries); read-modify-write the opcode into the control word;
 *               write the mailbox; the go bit must read 0; write the control word with
 *               go; poll until go reads 0 (5120 polls, sleeping 1, 2, 4, then 8 ms
 *               between them after the fifth: ~40 s); the status is bits 15:8; read the
 *               mailbox back; release the semaphore (write 0).
 *
 * Our semaphore value: mstflint writes its pid. cxflash writes a ticket drawn from the
 * VSEC's counter instead (crspace.h cr_ticket), as unique between agents and the same on
 * --replay as on the recording, which a pid is not.
 *
 * There is no ICMD in recovery mode ("ICMD is not supported while in livefish", mstflint
 * icmd_open): callers use it only on a card whose firmware runs. Only the VSEC way is
 * spoken (a card without the VSEC's ICMD space: CX_EUNSUPPORTED at icmd_open); mstflint's
 * crspace fallback (semaphore 0xe250c / 0xe74e0) is not, as Debian's 4.21 does not use it
 * either (hw-access.md §3.14).
 *
 * Every failure fills st with one line and returns a cx code; ic->result says what it
 * was: an ICMD status (1..7), or one of ICMD_E_*.
 */
#ifndef CX_ICMD_H
#define CX_ICMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev/crspace.h"

#define ICMD_MBOX_MAX 0x340           /* ICMD_MAX_CMD_SIZE, mtcr_ul/mtcr_icmd_cif.h@4.21 */
#define REG_ACCESS_HDRS 20            /* operation TLV (16) + register TLV header (4) */
#define REG_METHOD_GET 1              /* MACCESS_REG_METHOD_GET, mtcr_com_defs.h@4.21 */
#define REG_METHOD_SET 2

/* ICMD statuses (translate_status, mtcr_ul_icmd_cif.c@4.21) and our own outcomes above
 * 0xff for what never got one. */
enum icmd_result {
	ICMD_OK = 0,
	ICMD_ST_BAD_OPCODE = 1,
	ICMD_ST_BAD_CMD = 2,
	ICMD_ST_OPERATIONAL = 3,
	ICMD_ST_BAD_PARAM = 4,
	ICMD_ST_BUSY = 5,
	ICMD_ST_ICM_NA = 6,
	ICMD_ST_WRITE_PROTECT = 7,
	ICMD_E_SEM = 0x100,           /* the semaphore stayed held by another agent */
	ICMD_E_NOT_READY,             /* "static configuration not done": firmware not ready */
	ICMD_E_GO_BEFORE,             /* go still set before ours: another command runs */
	ICMD_E_TIMEOUT,               /* go never cleared after ours */
	ICMD_E_SIZE,                  /* the command does not fit the mailbox */
	ICMD_E_IO,                    /* an access failed */
	ICMD_E_REG,                   /* the register access answered a register status */
};

struct icmd_link {
	struct crspace *cr;
	uint32_t ready_reg;           /* "static configuration not done" register, bit ready_bit */
	uint8_t ready_bit;
	uint32_t ticket;              /* our semaphore value */
	uint32_t mbox_size;           /* what the firmware offers (ICMD 0x1000) */
	unsigned result;              /* enum icmd_result of the last call */
	unsigned reg_status;          /* the last register access's status (0 ok) */
	uint64_t commands;
};

/* ready_reg/ready_bit: the chip's "static configuration not done" bit (chip table). */
int icmd_open(struct icmd_link *ic, struct crspace *cr, uint32_t ready_reg, uint8_t ready_bit, struct cx_status *st);

/* One command: wlen bytes of mbox written (mailbox byte order: byte 4k is bits 31:24 of
 * dword k), rlen bytes read back into it. */
int icmd_send(struct icmd_link *ic, uint16_t opcode, uint8_t *mbox, size_t wlen, size_t rlen, struct cx_status *st);

/* ACCESS_REGISTER: reg (reg_size bytes, big-endian as mstflint's layouts pack it) goes out
 * after the two TLVs, w_size bytes of it written and r_size read back into it. A register
 * status other than 0 is CX_ETOOLS with ic->result ICMD_E_REG and ic->reg_status set: the
 * caller that expects one (NVDA's "nothing stored") checks reg_status. */
int icmd_reg(struct icmd_link *ic, uint16_t reg_id, unsigned method, uint8_t *reg, size_t reg_size, size_t w_size,
	     size_t r_size, struct cx_status *st);

#endif
