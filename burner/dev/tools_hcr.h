/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tools_hcr.h — the running firmware's "tools HCR" command interface (hw-access.md §8).
 *
 * ConnectX-3 / 3 Pro firmware takes commands from tools through seven dwords
 * in crspace at 0x80780, guarded by the semaphore at 0xf03bc. This is how
 * mstconfig reads and writes the card's settings: the firmware stores them, we
 * never touch the flash for it. Everything here goes through the crspace
 * access the caller opened (the config window or the VSEC gateway; mstflint
 * turns to config cycles for these commands, mtcr_ul_com.c@4.25
 * mpci_change_ul), so --record traces and --replay take it unchanged.
 *
 * One command, as mtcr_ul/mtcr_tools_cif.c@4.25 sends it: wait for the go bit
 * to be clear (at most 2000 polls, sleeping 1, 2, 4, then 8 ms between polls
 * after the first few), write the seven dwords, write the last again with go
 * set, wait for go to clear (same bound), read the seven dwords back and take
 * the status in bits 31:24. A command with a mailbox moves the whole 288-byte
 * mailbox first: through the CR mailbox at crspace 0xe0000 when the probe says
 * it is there (a register access only), else 8 bytes at a time with
 * MBOX_WRITE (0x70) and MBOX_READ (0x71) commands; QUERY_DEV_CAP and
 * QUERY_DEF_PARAMS always take the 0x70/0x71 path, as in cmdif/tools_cif.c@4.25.
 *
 * Every failure fills st with one line that names the cause and returns a
 * cx code; h->last says what it was (a firmware status, or one of HCR_E_*),
 * so that the layer above can say what it means for its command (status 2 on
 * the first command means firmware older than 2.31.5000, say).
 */
#ifndef CX_TOOLS_HCR_H
#define CX_TOOLS_HCR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev/crspace.h"

#define HCR_MBOX_SIZE 288        /* TOOLS_HCR_MAX_MBOX, mtcr_ul/mtcr_tools_cif.h@4.25 */

/* Opcodes (cmdif/tools_cif.c@4.25, mtcr_ul/mtcr_tools_cif.c@4.25). */
#define HCR_OP_QUERY_DEV_CAP 0x03
#define HCR_OP_REG_ACCESS 0x3B
#define HCR_OP_MBOX_WRITE 0x70
#define HCR_OP_MBOX_READ 0x71
#define HCR_OP_QUERY_DEF_PARAMS 0x73

/* Firmware statuses (translate_status, mtcr_ul/mtcr_tools_cif.c@4.25), and our
 * own outcomes above 0xff for what never got a status. */
enum hcr_result {
	HCR_OK = 0,
	HCR_ST_BUSY = 0x1,
	HCR_ST_BAD_OP = 0x2,      /* the firmware does not know the opcode */
	HCR_ST_UNKN_TLV = 0x3,
	HCR_ST_BAD_SYS = 0x4,     /* "bad system state": the firmware is not started */
	HCR_ST_RES_STATE = 0x9,
	HCR_E_SEM = 0x100,        /* the 0xf03bc semaphore stayed held */
	HCR_E_GO_BEFORE,          /* go still set from an earlier command: the interface is busy */
	HCR_E_GO_STUCK,           /* go never cleared after our command */
	HCR_E_IO,                 /* a crspace access failed */
};

struct hcr {
	struct crspace *cr;
	int cr_mbox;              /* 0: not probed yet, 1: the CR mailbox works, -1: it does not */
	unsigned result;          /* enum hcr_result of the last call (or the raw status) */
	uint64_t commands;        /* commands sent (go bit set), mailbox moves included */
};

void hcr_init(struct hcr *h, struct crspace *cr);

/* One command with no mailbox: in and out are the in_param/out_param pair. */
int hcr_inline(struct hcr *h, uint16_t op, uint8_t op_mod, uint32_t in_mod, uint64_t in, uint64_t *out,
	       struct cx_status *st);

/* One command with a mailbox, under the semaphore. wbuf (wlen bytes, NULL:
 * none) goes at the start of a zeroed 288-byte mailbox that is written whole,
 * unless skip_write; after the command rlen bytes from rbuf_off are read back
 * into rbuf. use_cr picks the CR mailbox (0xe0000) over 0x70/0x71. */
int hcr_mbox(struct hcr *h, uint16_t op, uint8_t op_mod, uint32_t in_mod, const uint8_t *wbuf, size_t wlen,
	     bool skip_write, uint8_t *rbuf, unsigned rbuf_off, size_t rlen, bool use_cr, struct cx_status *st);

/* ACCESS_REGISTER: buf (the operation TLV, the register TLV and the register,
 * big-endian bytes) is sent (wlen bytes) and rlen bytes are read back into it.
 * The CR mailbox is probed once (tools_cmdif_is_cr_mbox_supported: write
 * 0xbadb00f to 0xe0000 under the semaphore and read it back). */
int hcr_reg_access(struct hcr *h, uint8_t *buf, size_t wlen, size_t rlen, struct cx_status *st);

/* The line for a result ("the firmware is not started (status 4)", ...). */
const char *hcr_result_text(unsigned result);

#endif
